"""Helpers for the operations suite: a real `redbase serve` with both gateways and its HTTP
listener on free loopback ports, real Thrift clients, and plain HTTP (urllib) for the
operations endpoints."""

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

import happybase
import thriftpy2
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from redbase_proc import RedbaseProcess, free_port, server_binary, server_fixtures, wait_until  # noqa: E402,F401

REPO = Path(__file__).resolve().parents[2]
hbase2 = thriftpy2.load(str(REPO / "idl" / "hbase2.thrift"), module_name="redbase_ops_hbase2_thrift")

CLIENT_TIMEOUT_MS = 10_000


class Server(RedbaseProcess):
    """`redbase serve` with Thrift1, Thrift2 and the HTTP operations listener."""

    def __init__(self, data_dir: Path, args=()):
        super().__init__(data_dir, args, gateways=("thrift1", "thrift2"))

    def happybase(self):
        return happybase.Connection(self.host, self.ports["thrift1"], timeout=CLIENT_TIMEOUT_MS)

    def client2(self, timeout_ms=CLIENT_TIMEOUT_MS):
        """A Thrift2 client generated from idl/hbase2.thrift (buffered, binary)."""
        return make_client(
            hbase2.THBaseService,
            self.host,
            self.ports["thrift2"],
            proto_factory=TBinaryProtocolFactory(),
            trans_factory=TBufferedTransportFactory(),
            timeout=timeout_ms,
        )

    def get(self, path):
        """(status, content type, body text) of an HTTP GET on the operations listener."""
        try:
            with urllib.request.urlopen(self.http_url(path), timeout=10) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read().decode()

    def status(self):
        code, _, body = self.get("/api/status")
        assert code == 200, body
        return json.loads(body)


def create_table(client2, name, families=("f",), splits=None):
    """Creates a table through Thrift2 (which takes split keys)."""
    desc = hbase2.TTableDescriptor(
        tableName=hbase2.TTableName(qualifier=name.encode()),
        columns=[hbase2.TColumnFamilyDescriptor(name=f.encode(), maxVersions=3) for f in families],
    )
    client2.createTable(desc, [s.encode() for s in splits] if splits else None)
