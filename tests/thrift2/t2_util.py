"""Shared helpers for the Thrift2 suite: the server process, client factories and small builders.

Clients are generated at import time from this repository's IDL with `thriftpy2.load`:
`hbase2` from idl/hbase2.thrift (Thrift2, `THBaseService`) and `hbase1` from idl/hbase1.thrift
(Thrift1, `Hbase`, used by the cross-gateway tests).
"""

import time
from pathlib import Path

import thriftpy2
import thriftpy2.http
from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory, TFramedTransportFactory

import sys

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from redbase_proc import (  # noqa: E402
    RedbaseProcess,
    free_port,
    server_binary,
    server_fixtures,
    wait_until,
)

REPO = Path(__file__).resolve().parents[2]

# Module names differ from the Thrift1 suite's so both suites can share one pytest process.
hbase2 = thriftpy2.load(str(REPO / "idl" / "hbase2.thrift"), module_name="redbase_t2_hbase2_thrift")
hbase1 = thriftpy2.load(str(REPO / "idl" / "hbase1.thrift"), module_name="redbase_t2_hbase1_thrift")

# Socket timeout for every client, in milliseconds: a hung server fails a test, never the run.
CLIENT_TIMEOUT_MS = 10_000

# The four transport x protocol combinations the server detects per connection.
COMBOS = [
    ("buffered", "binary"),
    ("buffered", "compact"),
    ("framed", "binary"),
    ("framed", "compact"),
]
COMBO_IDS = [f"{t}-{p}" for t, p in COMBOS]

# HBase's cell type code for a Put (KeyValue.Type.Put).
TYPE_PUT = 4


def _proto(protocol):
    return TCompactProtocolFactory() if protocol == "compact" else TBinaryProtocolFactory()


def _trans(transport):
    return TFramedTransportFactory() if transport == "framed" else TBufferedTransportFactory()


class Server(RedbaseProcess):
    """One running `redbase serve` process with both gateways on free loopback ports."""

    def __init__(self, data_dir: Path, args=()):
        super().__init__(data_dir, args, gateways=("thrift1", "thrift2"))

    @property
    def port1(self) -> int:
        return self.ports["thrift1"]

    @property
    def port2(self) -> int:
        return self.ports["thrift2"]

    def client(self, transport="buffered", protocol="binary"):
        """A Thrift2 (`THBaseService`) client generated from idl/hbase2.thrift."""
        return make_client(
            hbase2.THBaseService,
            self.host,
            self.port2,
            proto_factory=_proto(protocol),
            trans_factory=_trans(transport),
            timeout=CLIENT_TIMEOUT_MS,
        )

    def http_client(self, path="/"):
        """A Thrift2 client speaking binary Thrift in HTTP POST bodies."""
        return thriftpy2.http.make_client(
            hbase2.THBaseService,
            self.host,
            self.port2,
            path=path,
            proto_factory=TBinaryProtocolFactory(),
            timeout=CLIENT_TIMEOUT_MS,
        )

    def client1(self, transport="buffered", protocol="binary"):
        """A Thrift1 (`Hbase`) client generated from idl/hbase1.thrift."""
        return make_client(
            hbase1.Hbase,
            self.host,
            self.port1,
            proto_factory=_proto(protocol),
            trans_factory=_trans(transport),
            timeout=CLIENT_TIMEOUT_MS,
        )


# Builders -----------------------------------------------------------------------------------

T = hbase2


def tname(name, ns=None):
    """A TTableName from "t" or "ns:t" (or an explicit ns)."""
    if isinstance(name, bytes):
        name = name.decode()
    if ns is None and ":" in name:
        ns, name = name.split(":", 1)
    return T.TTableName(ns=ns.encode() if ns is not None else None, qualifier=name.encode())


def create_table(client, name, families=("f", "g"), splits=None, **family_options):
    """Creates `name` ("t" or "ns:t") with the given families; returns the name as bytes."""
    desc = T.TTableDescriptor(
        tableName=tname(name),
        columns=[T.TColumnFamilyDescriptor(name=f.encode(), **family_options) for f in families],
    )
    client.createTable(desc, splits)
    return name.encode() if isinstance(name, str) else name


def drop_table(client, name):
    t = tname(name)
    if client.tableExists(t):
        if client.isTableEnabled(t):
            client.disableTable(t)
        client.deleteTable(t)


def cv(family, qualifier, value, ts=None):
    return T.TColumnValue(family=family, qualifier=qualifier, value=value, timestamp=ts)


def put(client, table, row, cells, ts=None, attributes=None):
    """cells: {(family, qualifier): value} or a list of TColumnValue."""
    if isinstance(cells, dict):
        cells = [cv(f, q, v) for (f, q), v in cells.items()]
    client.put(table, T.TPut(row=row, columnValues=cells, timestamp=ts, attributes=attributes))


def col(family, qualifier=None, ts=None):
    return T.TColumn(family=family, qualifier=qualifier, timestamp=ts)


def cells(result):
    """A TResult's cells as {(family, qualifier): value} (newest version wins when several)."""
    out = {}
    for c in result.columnValues:
        out.setdefault((c.family, c.qualifier), c.value)
    return out


def versions(result, family=b"f", qualifier=b"a"):
    """[(value, timestamp)] of one column in a TResult, in returned order."""
    return [
        (c.value, c.timestamp)
        for c in result.columnValues
        if c.family == family and c.qualifier == qualifier
    ]


def rows_of(results):
    return [r.row for r in results]


def drain(client, scanner_id, n=100):
    out = []
    while True:
        batch = client.getScannerRows(scanner_id, n)
        if not batch:
            return out
        out.extend(batch)


def scan_all(client, table, **scan_fields):
    sid = client.openScanner(table, T.TScan(**scan_fields))
    try:
        return drain(client, sid)
    finally:
        client.closeScanner(sid)


def i64(n: int) -> bytes:
    """8-byte big-endian signed, as HBase's Bytes.toBytes(long)."""
    return n.to_bytes(8, "big", signed=True)


def from_i64(b: bytes) -> int:
    return int.from_bytes(b, "big", signed=True)


def now_ms() -> int:
    return int(time.time() * 1000)


