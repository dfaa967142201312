"""A client on the wrong port is told which port it meant, in an error it can print.

happybase (Thrift1) pointed at the Thrift2 port, a Thrift2 client pointed at the Thrift1 port,
and a browser's GET on either port: each gets one line naming the service it called, the one
the port serves, and the address of the right one.
"""

import urllib.error
import urllib.request

import happybase
import pytest
from thriftpy2.rpc import make_client

from t2_util import CLIENT_TIMEOUT_MS, _proto, _trans, hbase1, hbase2


@pytest.mark.parametrize("transport,protocol", [("buffered", "binary"), ("framed", "compact")])
def test_happybase_on_the_thrift2_port(server, transport, protocol):
    conn = happybase.Connection(
        server.host,
        server.port2,
        timeout=CLIENT_TIMEOUT_MS,
        transport=transport,
        protocol=protocol,
    )
    try:
        with pytest.raises(Exception) as err:
            conn.tables()
    finally:
        conn.close()
    # happybase raises the method's declared IOError: its message is printable
    assert type(err.value).__name__ == "IOError"
    # (happybase's IDL types the message as binary)
    text = err.value.message.decode()
    assert text in str(err.value)
    assert text == (
        "getTableNames is a Thrift1 (Hbase) method; this port serves Thrift2 (THBaseService); "
        f"Thrift1 is on 127.0.0.1:{server.port1}"
    ), text
    # the connection is still usable for the port's own service afterwards
    c2 = server.client(transport, protocol)
    try:
        assert c2.tableExists(hbase2.TTableName(qualifier=b"no_such_table")) is False
    finally:
        c2.close()


def test_a_thrift2_client_on_the_thrift1_port(server):
    c = make_client(
        hbase2.THBaseService,
        server.host,
        server.port1,
        proto_factory=_proto("binary"),
        trans_factory=_trans("buffered"),
        timeout=CLIENT_TIMEOUT_MS,
    )
    try:
        with pytest.raises(hbase2.TIOError) as err:
            c.tableExists(hbase2.TTableName(qualifier=b"t"))
        assert err.value.message == (
            "tableExists is a Thrift2 (THBaseService) method; this port serves Thrift1 (Hbase); "
            f"Thrift2 is on 127.0.0.1:{server.port2}"
        )
        # a method both services have is the port's own (Thrift1's getTableNames still works)
    finally:
        c.close()
    c1 = make_client(
        hbase1.Hbase,
        server.host,
        server.port1,
        proto_factory=_proto("binary"),
        trans_factory=_trans("buffered"),
        timeout=CLIENT_TIMEOUT_MS,
    )
    try:
        assert isinstance(c1.getTableNames(), list)
    finally:
        c1.close()


@pytest.mark.parametrize("which", ["thrift1", "thrift2"])
def test_a_browser_on_a_thrift_port(server, which):
    port = server.ports[which]
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)
    assert err.value.code == 400
    body = err.value.read().decode()
    title = "Thrift1 (Hbase)" if which == "thrift1" else "Thrift2 (THBaseService)"
    assert body.startswith(f"This is redbase's {title} port, for Thrift clients"), body
    assert f"http://127.0.0.1:{server.http_port}/" in body, body
    assert body.count("\n") == 1, body
