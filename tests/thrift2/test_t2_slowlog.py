"""getSlowLogResponses / clearSlowLogResponses with a 0 ms threshold, so every call is recorded.

The server records a Thrift2 call once its reply is built, so a call never sees itself. The ring
keeps --slow-log-capacity records, newest first (HBase reverses its ring buffer the same way).
"""

import time

from t2_util import T, create_table, put, now_ms

CAPACITY = 6
REDBASE_ARGS = ["--slow-log-threshold-ms", "0", "--slow-log-capacity", str(CAPACITY)]


def slow(client, **filter_fields):
    return client.getSlowLogResponses([], T.TLogQueryFilter(**filter_fields))


def clear(client):
    # One answer per server named: none named, none answered (as HBase 2.6.1 does); the log is
    # cleared all the same (the tests check that afterwards).
    assert client.clearSlowLogResponses([]) == []
    named = [T.TServerName(hostName="localhost", port=1, startCode=1)]
    assert client.clearSlowLogResponses(named) == [True]


def methods(records):
    return [r.methodName for r in records]


def test_every_call_is_recorded_newest_first(client, table_name):
    t = create_table(client, table_name, ("f",))
    clear(client)
    start = now_ms()
    put(client, t, b"r", {(b"f", b"a"): b"1"})
    client.get(t, T.TGet(row=b"r"))
    client.exists(t, T.TGet(row=b"r"))
    recs = slow(client, limit=3)
    assert methods(recs) == ["exists", "get", "put"]
    # The client's own socket (the transport holds it as `sock`).
    local = client._oprot.trans.sock.getsockname()
    for r in recs:
        assert start - 5000 <= r.startTime <= now_ms() + 5000
        assert r.processingTime >= 0
        assert r.responseSize > 0
        assert r.clientAddress.startswith("127.0.0.1:")
        assert r.serverClass
    assert {r.clientAddress for r in recs} == {f"{local[0]}:{local[1]}"}


def test_default_limit_is_ten_and_capacity_bounds_the_ring(client, table_name):
    t = create_table(client, table_name, ("f",))
    clear(client)
    for i in range(CAPACITY + 4):
        client.get(t, T.TGet(row=str(i).encode()))
    recs = slow(client, limit=100)
    assert len(recs) == CAPACITY
    assert set(methods(recs)) == {"get"}
    # Newest first: start times never increase down the list.
    starts = [r.startTime for r in recs]
    assert starts == sorted(starts, reverse=True)
    assert len(slow(client)) == CAPACITY  # default limit 10 > capacity
    assert len(slow(client, limit=2)) == 2


def test_clear_empties_the_log(client, table_name):
    t = create_table(client, table_name, ("f",))
    client.get(t, T.TGet(row=b"x"))
    assert len(slow(client)) > 0
    clear(client)
    recs = slow(client, limit=100)
    # Only the clear call itself (recorded after it ran) may be left.
    assert set(methods(recs)) <= {"clearSlowLogResponses"}
    assert len(recs) <= 1


def test_clear_answers_one_flag_per_server(client, server):
    locs = client.getAllRegionLocations(create_table(client, f"t2_slow_{time.time_ns()}", ("f",)))
    sn = locs[0].serverName
    out = client.clearSlowLogResponses([sn])
    assert out == [True]


def test_large_log_is_separate(client, table_name):
    t = create_table(client, table_name, ("f",))
    client.get(t, T.TGet(row=b"x"))
    # Small responses are slow-log entries only.
    assert slow(client, logType=T.TLogType.LARGE_LOG, limit=100) == []
    assert len(slow(client, logType=T.TLogType.SLOW_LOG, limit=100)) > 0


def test_filter_by_table_name(client, table_name):
    a = create_table(client, table_name + "_a", ("f",))
    b = create_table(client, table_name + "_b", ("f",))
    clear(client)
    client.get(a, T.TGet(row=b"1"))
    client.get(b, T.TGet(row=b"2"))
    client.exists(a, T.TGet(row=b"3"))
    recs = slow(client, tableName=a.decode(), limit=100)
    assert methods(recs) == ["exists", "get"]
    recs = slow(client, tableName=b.decode(), limit=100)
    assert methods(recs) == ["get"]
