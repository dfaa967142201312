"""Scanner lease and the open-scanner cap on the Thrift2 gateway.

HBase 2.6 keeps Thrift2 scanners in a cache that expires entries unused for the scanner lease
(hbase.client.scanner.timeout.period, 60 s); a scanner that expired is an unknown id:
getScannerRows answers TIllegalArgument "Invalid scanner Id", closeScanner succeeds.
--max-scanners is redbase's own guard: past it openScanner fails with a TIOError.
"""

import time

import pytest

from t2_util import T, create_table, put, rows_of

MAX_SCANNERS = 3
REDBASE_ARGS = ["--scanner-lease-secs", "1", "--max-scanners", str(MAX_SCANNERS)]


@pytest.fixture
def table(client, table_name):
    t = create_table(client, table_name, ("f",))
    for r in (b"a", b"b", b"c"):
        put(client, t, r, {(b"f", b"q"): r})
    return t


def test_idle_scanner_expires_after_the_lease(client, table):
    sid = client.openScanner(table, T.TScan())
    assert rows_of(client.getScannerRows(sid, 1)) == [b"a"]
    # Kept alive by use: three calls 0.5 s apart span more than one lease.
    for expected in (b"b", b"c"):
        time.sleep(0.5)
        assert rows_of(client.getScannerRows(sid, 1)) == [expected]
    time.sleep(2.5)
    with pytest.raises(T.TIllegalArgument) as err:
        client.getScannerRows(sid, 1)
    assert err.value.message == "Invalid scanner Id"
    assert client.closeScanner(sid) is None


def test_open_scanner_past_the_cap_is_tioerror_until_one_closes(client, table):
    sids = [client.openScanner(table, T.TScan()) for _ in range(MAX_SCANNERS)]
    assert len(set(sids)) == MAX_SCANNERS
    try:
        with pytest.raises(T.TIOError):
            client.openScanner(table, T.TScan())
        client.closeScanner(sids.pop())
        sids.append(client.openScanner(table, T.TScan()))
        assert rows_of(client.getScannerRows(sids[-1], 5)) == [b"a", b"b", b"c"]
    finally:
        for sid in sids:
            client.closeScanner(sid)
