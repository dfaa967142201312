"""Helpers for the filter-language suite: one redbase process serving both gateways, and the
clients (happybase on Thrift1, a thriftpy2 client generated from idl/hbase2.thrift on Thrift2)."""

from pathlib import Path

import thriftpy2
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory

import happybase

import sys

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from redbase_proc import RedbaseProcess, free_port, server_binary, wait_until  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

# A module name of its own, so this suite can share a pytest process with the others.
hbase2 = thriftpy2.load(str(REPO / "idl" / "hbase2.thrift"), module_name="redbase_filters_hbase2_thrift")

# Socket timeout for every client, in milliseconds: a hung server fails a test, never the run.
CLIENT_TIMEOUT_MS = 10_000


class Server(RedbaseProcess):
    """One `redbase serve` process with Thrift1 and Thrift2 on free loopback ports."""

    def __init__(self, data_dir: Path):
        super().__init__(data_dir, gateways=("thrift1", "thrift2"))

    @property
    def port1(self) -> int:
        return self.ports["thrift1"]

    @property
    def port2(self) -> int:
        return self.ports["thrift2"]

    def happybase(self):
        return happybase.Connection(self.host, self.port1, timeout=CLIENT_TIMEOUT_MS)

    def thrift2(self):
        return make_client(
            hbase2.THBaseService,
            self.host,
            self.port2,
            proto_factory=TBinaryProtocolFactory(),
            trans_factory=TBufferedTransportFactory(),
            timeout=CLIENT_TIMEOUT_MS,
        )


# The table every test reads: rows a1 a2 b1 b2 c1 in families f and g (3 versions each).
ROWS = [
    (b"a1", {b"f:a": b"1", b"f:b": b"2", b"g:c": b"3"}, 1),
    (b"a2", {b"f:a": b"old", b"f:b": b"z"}, 1),
    (b"a2", {b"f:a": b"new"}, 2),
    (b"b1", {b"f:a": b"1"}, 1),
    (b"b1", {b"g:d": b"hello"}, 5),
    (b"b2", {b"g:c": b"World"}, 3),
    (b"c1", {b"f:x": b"abc", b"f:y": b"abd", b"f:z": b"xyz"}, 1),
]


def fill(conn, name):
    conn.create_table(name, {"f": dict(max_versions=3), "g": dict(max_versions=3)})
    table = conn.table(name)
    for row, data, ts in ROWS:
        table.put(row, data, timestamp=ts)
    return table
