"""Server limits, each on a server of its own: scanner lease, open-scanner cap, idle timeout,
message size. HBase's Thrift1 scanner map forgets a scanner unused for its lease; using a
forgotten id is an IllegalArgument, like any unknown id."""

import http.client
import time

import pytest
from thriftpy2.transport import TTransportException

from t1_util import HB_IllegalArgument, encode_call, frame, hbase1, raw_connect, read_until_closed

Mutation = hbase1.Mutation
ColumnDescriptor = hbase1.ColumnDescriptor


def setup_table(srv, name, rows=5):
    c = srv.client()
    t = name.encode()
    c.createTable(t, [ColumnDescriptor(name=b"f:")])
    for i in range(rows):
        c.mutateRow(t, b"r%d" % i, [Mutation(column=b"f:a", value=b"%d" % i)], {})
    return c, t


def test_scanner_lease_expiry(redbase, table_name):
    lease = 2.0
    srv = redbase(["--scanner-lease-secs", "2"])
    c, t = setup_table(srv, table_name)
    try:
        idle = c.scannerOpen(t, b"", [], {})
        busy = c.scannerOpen(t, b"", [], {})
        assert [r.row for r in c.scannerGet(idle)] == [b"r0"]
        # A scanner in use keeps its lease ...
        for expected in (b"r0", b"r1", b"r2", b"r3"):
            time.sleep(lease / 4 + 0.25)
            assert [r.row for r in c.scannerGet(busy)] == [expected]
        # ... an idle one loses it (unused for 3 s now): its id is then unknown.
        with pytest.raises(hbase1.IllegalArgument):
            c.scannerGet(idle)
        with pytest.raises(hbase1.IllegalArgument):
            c.scannerGetList(idle, 10)
        with pytest.raises(hbase1.IllegalArgument):
            c.scannerClose(idle)
        assert [r.row for r in c.scannerGetList(busy, 10)] == [b"r4"]
        time.sleep(lease + 0.5)
        with pytest.raises(hbase1.IllegalArgument):
            c.scannerGetList(busy, 10)
        # Through happybase: the scan generator fails the same way.
        hb = srv.happybase()
        try:
            gen = hb.table(table_name).scan(batch_size=1)
            assert next(gen)[0] == b"r0"
            time.sleep(lease + 0.5)
            with pytest.raises(HB_IllegalArgument):
                next(gen)
        finally:
            hb.close()
    finally:
        c.close()


def test_max_open_scanners(redbase, table_name):
    srv = redbase(["--max-scanners", "3"])
    c, t = setup_table(srv, table_name)
    try:
        ids = [c.scannerOpen(t, b"", [], {}) for _ in range(3)]
        assert len(set(ids)) == 3
        with pytest.raises(hbase1.IOError):
            c.scannerOpen(t, b"", [], {})
        c.scannerClose(ids[0])
        ids[0] = c.scannerOpenWithScan(t, hbase1.TScan(), {})
        assert [r.row for r in c.scannerGetList(ids[0], 2)] == [b"r0", b"r1"]
        for sid in ids:
            c.scannerClose(sid)
    finally:
        c.close()


def test_idle_connections_are_closed(redbase):
    srv = redbase(["--idle-timeout-secs", "1"])
    silent = raw_connect(srv)
    talking = srv.client()
    try:
        start = time.monotonic()
        closed, _ = read_until_closed(silent, timeout=6)
        assert closed, "an idle connection was not closed"
        assert time.monotonic() - start >= 0.8
        # A client that was idle as long (it connected a moment later: give it that moment)
        # finds its connection gone, and can reconnect.
        time.sleep(0.5)
        with pytest.raises((TTransportException, OSError, EOFError)):
            talking.getThriftServerType()
    finally:
        silent.close()
        talking.close()
    c = srv.client()
    try:
        assert c.getThriftServerType() == hbase1.TThriftServerType.ONE
    finally:
        c.close()


def test_max_message_size(redbase, table_name):
    srv = redbase(["--max-message-size", "4096"])
    c, t = setup_table(srv, table_name, rows=0)
    c.close()

    def put_call(size):
        return encode_call("mutateRow", tableName=t, row=b"big",
                           mutations=[Mutation(column=b"f:a", value=b"v" * size)], attributes={})

    small, large = put_call(3000), put_call(10_000)
    assert len(small) < 4096 < len(large)

    # Just under the limit: fine, buffered and framed.
    for transport in ("buffered", "framed"):
        cl = srv.client(transport)
        try:
            cl.mutateRow(t, b"ok-" + transport.encode(), [Mutation(column=b"f:a", value=b"v" * 3000)], {})
        finally:
            cl.close()

    # Over it: the connection is dropped, buffered or framed, and nothing is written.
    for data in (large, frame(large)):
        sock = raw_connect(srv)
        try:
            sock.sendall(data)
            closed, _ = read_until_closed(sock, timeout=5)
            assert closed
        finally:
            sock.close()

    # A frame header announcing too much is refused before the body arrives.
    sock = raw_connect(srv)
    try:
        sock.sendall((1_000_000).to_bytes(4, "big") + b"\x80\x01\x00\x01")
        closed, _ = read_until_closed(sock, timeout=5)
        assert closed
    finally:
        sock.close()

    # Over HTTP: an error status (or a dropped connection), never a 200.
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    try:
        conn.request("POST", "/", body=large)
        try:
            assert conn.getresponse().status >= 400
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            pass
    finally:
        conn.close()

    cl = srv.client("framed", "compact")
    try:
        assert cl.getRow(t, b"big", {}) == []
        assert [r.row for r in cl.getRows(t, [b"ok-buffered", b"ok-framed"], {})] == [
            b"ok-buffered",
            b"ok-framed",
        ]
        # A reply larger than the request limit is still sent.
        hb = srv.happybase()
        try:
            table = hb.table(table_name)
            for i in range(4):
                table.put(b"w", {b"f:c%d" % i: b"x" * 3000})
            assert len(b"".join(table.row(b"w").values())) == 12_000
        finally:
            hb.close()
    finally:
        cl.close()
