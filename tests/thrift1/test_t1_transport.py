"""Transports, protocols, HTTP and bad input on the Thrift1 port.

One port speaks buffered and framed transport, strict and non-strict binary and compact
protocol, and Thrift binary protocol in HTTP POST bodies. A client that sends garbage, stops in
the middle of a message or sends an oversized frame loses its connection; nobody else notices.
"""

import http.client
import io
import socket
import struct
import threading

import pytest
import thriftpy2
import thriftpy2.http
from thriftpy2.protocol.binary import TBinaryProtocol as PyBinaryProtocol
from thriftpy2.protocol.compact import TCompactProtocol as PyCompactProtocol
from thriftpy2.thrift import TApplicationException, TClient
from thriftpy2.transport import TSocket
from thriftpy2.transport.buffered import TBufferedTransport
from thriftpy2.transport.framed import TFramedTransport

from t1_util import (
    CLIENT_TIMEOUT_MS,
    decode_reply,
    encode_call,
    frame,
    hbase1,
    raw_connect,
    read_exactly,
    read_until_closed,
)

Mutation = hbase1.Mutation
ColumnDescriptor = hbase1.ColumnDescriptor

# A service with the same name as HBase's but a method HBase does not have.
BOGUS = thriftpy2.load_fp(
    io.StringIO(
        "service Hbase {\n"
        "  string noSuchMethod(1: string x)\n"
        "  i32 getThriftServerType()\n"
        "}\n"
    ),
    module_name="redbase_bogus_thrift",
)

PROTOCOLS = [("binary", True), ("binary", False), ("compact", True)]
PROTOCOL_IDS = ["strict-binary", "nonstrict-binary", "compact"]


def clients_on_socket(server, transport, protocol, strict=True, services=(hbase1.Hbase,)):
    """TClients for `services`, all sharing one new connection."""
    sock = TSocket(host=server.host, port=server.port, socket_timeout=CLIENT_TIMEOUT_MS)
    trans = TFramedTransport(sock) if transport == "framed" else TBufferedTransport(sock)
    trans.open()
    if protocol == "compact":
        proto = PyCompactProtocol(trans)
    else:
        proto = PyBinaryProtocol(trans, strict_read=False, strict_write=strict)
    return trans, [TClient(s, proto) for s in services]


def assert_serving(server):
    """The server is alive and answers fresh connections of every kind."""
    assert server.alive(), server.log_tail()
    for transport in ("buffered", "framed"):
        for protocol in ("binary", "compact"):
            c = server.client(transport, protocol)
            try:
                assert c.getThriftServerType() == hbase1.TThriftServerType.ONE
                assert isinstance(c.getTableNames(), list)
            finally:
                c.close()


def create(client, name):
    client.createTable(name.encode(), [ColumnDescriptor(name=b"f:")])
    return name.encode()


# ----------------------------------------------------------------------------------------------
# Every transport x protocol
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["buffered", "framed"])
@pytest.mark.parametrize("protocol,strict", PROTOCOLS, ids=PROTOCOL_IDS)
def test_every_transport_and_protocol(server, transport, protocol, strict, table_name):
    trans, [c] = clients_on_socket(server, transport, protocol, strict)
    try:
        assert c.getThriftServerType() == hbase1.TThriftServerType.ONE
        t = create(c, table_name)
        assert t in c.getTableNames()
        value = bytes(range(256)) * 4
        c.mutateRow(t, b"row\x00\xff", [Mutation(column=b"f:q", value=value)], {})
        [r] = c.getRow(t, b"row\x00\xff", {})
        assert r.row == b"row\x00\xff"
        assert r.columns[b"f:q"].value == value
        assert c.atomicIncrement(t, b"n", b"f:c", -3) == -3
        sid = c.scannerOpen(t, b"", [], {})
        assert [x.row for x in c.scannerGetList(sid, 10)] == [b"n", b"row\x00\xff"]
        c.scannerClose(sid)
        with pytest.raises(hbase1.IOError):
            c.getVer(t, b"n", b"f:c", 0, {})
        # The connection is still usable after a declared exception.
        assert c.getColumnDescriptors(t)[b"f:"].maxVersions == 3
    finally:
        trans.close()


def test_pipelined_calls_on_one_connection(server, table_name):
    """Several calls written back to back before reading any reply are answered in order."""
    c = server.client()
    try:
        t = create(c, table_name)
    finally:
        c.close()
    sock = raw_connect(server)
    try:
        calls = [
            encode_call("mutateRow", tableName=t, row=b"r%d" % i,
                        mutations=[Mutation(column=b"f:a", value=b"%d" % i)], attributes={})
            for i in range(5)
        ] + [encode_call("getRows", tableName=t, rows=[b"r0", b"r4"], attributes={})]
        sock.sendall(b"".join(frame(m) for m in calls))
        replies = []
        for _ in calls:
            (n,) = struct.unpack(">i", read_exactly(sock, 4))
            replies.append(read_exactly(sock, n))
        for r in replies[:5]:
            assert decode_reply("mutateRow", r) is None
        rows = decode_reply("getRows", replies[5])
        assert [(x.row, x.columns[b"f:a"].value) for x in rows] == [(b"r0", b"0"), (b"r4", b"4")]
    finally:
        sock.close()


def test_message_split_across_many_writes(server, table_name):
    """A buffered message arriving a few bytes at a time is assembled, not rejected."""
    c = server.client()
    try:
        t = create(c, table_name)
    finally:
        c.close()
    msg = encode_call("mutateRow", tableName=t, row=b"slow",
                      mutations=[Mutation(column=b"f:a", value=b"x" * 300)], attributes={})
    sock = raw_connect(server)
    try:
        for i in range(0, len(msg), 7):
            sock.sendall(msg[i:i + 7])
            if i % 70 == 0:
                threading.Event().wait(0.01)
        trans = TBufferedTransport(TSocket(sock=sock, socket_timeout=CLIENT_TIMEOUT_MS))
        reply_client = TClient(hbase1.Hbase, PyBinaryProtocol(trans))
        assert reply_client._recv("mutateRow") is None
    finally:
        sock.close()
    c = server.client()
    try:
        assert c.get(t, b"slow", b"f:a", {})[0].value == b"x" * 300
    finally:
        c.close()


def test_many_concurrent_connections(server):
    socks = []
    try:
        for _ in range(40):
            trans, [c] = clients_on_socket(server, "framed", "compact")
            socks.append((trans, c))
        results = []

        def call(c):
            results.append(c.getThriftServerType())

        threads = [threading.Thread(target=call, args=(c,)) for _, c in socks]
        for th in threads:
            th.start()
        for th in threads:
            th.join(30)
        assert results == [hbase1.TThriftServerType.ONE] * 40
    finally:
        for trans, _ in socks:
            trans.close()


# ----------------------------------------------------------------------------------------------
# HTTP
# ----------------------------------------------------------------------------------------------


def test_http_with_thriftpy2_http_client(server, table_name):
    c = thriftpy2.http.make_client(hbase1.Hbase, server.host, server.port, path="/hbase",
                                   timeout=CLIENT_TIMEOUT_MS)
    assert c.getThriftServerType() == hbase1.TThriftServerType.ONE
    t = create(c, table_name)
    c.mutateRow(t, b"r", [Mutation(column=b"f:a", value=b"over http")], {})
    [r] = c.getRow(t, b"r", {})
    assert r.columns[b"f:a"].value == b"over http"
    with pytest.raises(hbase1.AlreadyExists):
        create(c, table_name)
    assert t in c.getTableNames()


def test_http_raw_post_of_a_binary_message(server):
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        for path in ("/", "/any/path"):
            body = encode_call("getThriftServerType")
            conn.request("POST", path, body=body, headers={"Content-Type": "application/x-thrift"})
            resp = conn.getresponse()
            data = resp.read()
            assert resp.status == 200
            # A strict binary reply to getThriftServerType: field 0 (success) = ONE.
            assert data[:4] == b"\x80\x01\x00\x02"
            assert decode_reply("getThriftServerType", data) == hbase1.TThriftServerType.ONE
        body = encode_call("getClusterId")
        conn.request("POST", "/", body=body, headers={"Content-Type": "application/vnd.apache.thrift.binary"})
        resp = conn.getresponse()
        assert resp.status == 200
        assert decode_reply("getClusterId", resp.read())
    finally:
        conn.close()


def test_http_get_is_refused_and_server_keeps_serving(server):
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request("GET", "/")
        try:
            resp = conn.getresponse()
            assert resp.status >= 400
        except (http.client.RemoteDisconnected, ConnectionResetError):
            pass  # dropping the connection is an acceptable refusal
    finally:
        conn.close()
    assert_serving(server)


# ----------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "garbage",
    [
        b"\xde\xad\xbe\xef" * 8,
        b"this is not thrift at all\r\n\r\n",
        b"\x80\x07\x00\x01garbage-after-a-bad-version",
        b"\xff" * 64,
    ],
    ids=["deadbeef", "text", "bad-binary-version", "ff"],
)
def test_garbage_first_packet_drops_only_that_connection(server, garbage):
    bystander = server.client()
    try:
        sock = raw_connect(server)
        try:
            sock.sendall(garbage)
            closed, _ = read_until_closed(sock, timeout=5)
            assert closed, "the server kept a connection open after garbage"
        finally:
            sock.close()
        # A connection that was open all along is unaffected.
        assert bystander.getThriftServerType() == hbase1.TThriftServerType.ONE
    finally:
        bystander.close()
    assert_serving(server)


@pytest.mark.parametrize("transport", ["buffered", "framed"])
def test_truncated_message_then_close(server, transport, table_name):
    c = server.client()
    try:
        t = create(c, table_name)
    finally:
        c.close()
    msg = encode_call("mutateRow", tableName=t, row=b"half",
                      mutations=[Mutation(column=b"f:a", value=b"v" * 200)], attributes={})
    data = frame(msg) if transport == "framed" else msg
    sock = raw_connect(server)
    sock.sendall(data[: len(data) // 2])
    sock.close()
    assert_serving(server)
    c = server.client()
    try:
        # Half a message does nothing.
        assert c.getRow(t, b"half", {}) == []
    finally:
        c.close()


def test_huge_declared_lengths_are_rejected(server):
    cases = [
        # Strict binary header whose method name claims 2 GiB.
        b"\x80\x01\x00\x01\x7f\xff\xff\xf0getTableNames",
        # A framed message claiming a 1 GiB frame.
        b"\x40\x00\x00\x00\x80\x01\x00\x01",
        # A negative frame length.
        b"\xff\xff\xff\xf0\x80\x01\x00\x01",
    ]
    for data in cases:
        sock = raw_connect(server)
        try:
            sock.sendall(data)
            closed, _ = read_until_closed(sock, timeout=5)
            assert closed, f"connection not dropped after {data!r}"
        finally:
            sock.close()
    assert_serving(server)


@pytest.mark.parametrize(
    "transport,protocol",
    [("buffered", "binary"), ("buffered", "compact"), ("framed", "binary"), ("framed", "compact")],
)
def test_unknown_method_is_an_application_exception(server, transport, protocol):
    trans, [bogus, real] = clients_on_socket(
        server, transport, protocol, services=(BOGUS.Hbase, hbase1.Hbase)
    )
    try:
        with pytest.raises(TApplicationException) as e:
            bogus.noSuchMethod("x")
        assert e.value.type == TApplicationException.UNKNOWN_METHOD
        # The same connection goes on working.
        assert real.getThriftServerType() == hbase1.TThriftServerType.ONE
        assert bogus.getThriftServerType() == 1
    finally:
        trans.close()
    assert_serving(server)


def test_unknown_method_over_http(server):
    c = thriftpy2.http.make_client(BOGUS.Hbase, server.host, server.port, timeout=CLIENT_TIMEOUT_MS)
    with pytest.raises(TApplicationException) as e:
        c.noSuchMethod("x")
    assert e.value.type == TApplicationException.UNKNOWN_METHOD
    assert_serving(server)


def test_wrong_argument_types_do_not_kill_the_server(server):
    """getTableNames sent with a field of an unexpected type: skipped or refused, never fatal."""
    wrong = BOGUS.Hbase  # noSuchMethod's args: field 1 string
    body = encode_call("noSuchMethod", service=wrong, x="abc")
    # Rename the method inside the message to a real one with no arguments.
    body = body.replace(b"\x00\x00\x00\x0cnoSuchMethod", b"\x00\x00\x00\x0dgetTableNames")
    sock = raw_connect(server)
    try:
        sock.sendall(frame(body))
        (n,) = struct.unpack(">i", read_exactly(sock, 4))
        reply = read_exactly(sock, n)
        names = decode_reply("getTableNames", reply)
        assert isinstance(names, list)
    finally:
        sock.close()
    assert_serving(server)


def test_client_disconnect_mid_reply_does_not_hurt(server, table_name):
    c = server.client()
    try:
        t = create(c, table_name)
        c.mutateRows(
            t,
            [hbase1.BatchMutation(row=b"r%04d" % i, mutations=[Mutation(column=b"f:a", value=b"x" * 500)])
             for i in range(500)],
            {},
        )
    finally:
        c.close()
    for _ in range(5):
        sock = raw_connect(server)
        rows = [b"r%04d" % i for i in range(500)]
        sock.sendall(encode_call("getRows", tableName=t, rows=rows, attributes={}))
        sock.recv(100)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    assert_serving(server)
