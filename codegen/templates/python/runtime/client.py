"""The Thrift2 plumbing under every generated table client: a connection to redbase or HBase's
Thrift2 gateway (Apache `thrift` runtime, binary protocol, buffered or framed transport), table
creation from the schema, and row-level calls in bytes. Salted scans fan out one scanner per
bucket and merge them in key order."""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from .._thrift.hbase2 import THBaseService
from .._thrift.hbase2 import ttypes as tt
from .keys import KeySpec, KeyValue

Cell = Tuple[bytes, bytes, bytes]
Cells = Dict[Tuple[bytes, bytes], bytes]


class ThriftError(RuntimeError):
    """An error the server reported (TIOError, TIllegalArgument) or a transport failure."""


def _wrap(e: Exception) -> ThriftError:
    message = getattr(e, "message", None) or str(e) or type(e).__name__
    return ThriftError(message)


_ERRORS = (tt.TIOError, tt.TIllegalArgument, TTransport.TTransportException)


class Connection:
    """One Thrift2 connection. Not thread-safe: give each thread its own."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 9091,
        *,
        transport: str = "buffered",
        timeout_ms: Optional[int] = 30_000,
    ) -> None:
        if transport not in ("buffered", "framed"):
            raise ValueError(f"transport must be 'buffered' or 'framed', not {transport!r}")
        sock = TSocket.TSocket(host, port)
        if timeout_ms is not None:
            sock.setTimeout(timeout_ms)
        wrap = TTransport.TFramedTransport if transport == "framed" else TTransport.TBufferedTransport
        self._transport: Any = wrap(sock)
        self.client: Any = THBaseService.Client(TBinaryProtocol.TBinaryProtocol(self._transport))
        try:
            self._transport.open()
        except TTransport.TTransportException as e:
            raise _wrap(e) from None

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class FamilyDef:
    """A column family's descriptor attributes (None leaves HBase's default)."""

    name: bytes
    max_versions: Optional[int] = None
    min_versions: Optional[int] = None
    ttl_seconds: Optional[int] = None
    keep_deleted_cells: Optional[str] = None
    in_memory: Optional[bool] = None
    block_cache: Optional[bool] = None
    block_size: Optional[int] = None
    bloom_filter: Optional[str] = None
    compression: Optional[str] = None
    data_block_encoding: Optional[str] = None
    scope: Optional[int] = None
    dfs_replication: Optional[int] = None
    configuration: Tuple[Tuple[str, str], ...] = ()

    def descriptor(self) -> Any:
        def enum(kind: Any, name: Optional[str]) -> Optional[int]:
            return None if name is None else int(kind._NAMES_TO_VALUES[name])

        return tt.TColumnFamilyDescriptor(
            name=self.name,
            configuration=dict(self.configuration) or None,
            blockSize=self.block_size,
            bloomnFilterType=enum(tt.TBloomFilterType, self.bloom_filter),
            compressionType=enum(tt.TCompressionAlgorithm, self.compression),
            dfsReplication=self.dfs_replication,
            dataBlockEncoding=enum(tt.TDataBlockEncoding, self.data_block_encoding),
            keepDeletedCells=enum(tt.TKeepDeletedCells, self.keep_deleted_cells),
            maxVersions=self.max_versions,
            minVersions=self.min_versions,
            scope=self.scope,
            timeToLive=self.ttl_seconds,
            blockCacheEnabled=self.block_cache,
            inMemory=self.in_memory,
        )


@dataclass(frozen=True)
class TableDef:
    """A table as its schema declares it: name, families, split keys, key design."""

    namespace: str
    name: str
    families: Tuple[FamilyDef, ...]
    splits: Tuple[bytes, ...]
    key: KeySpec

    @property
    def full_name(self) -> bytes:
        """`ns:name` as Thrift2 calls take it (just `name` in the default namespace)."""
        if self.namespace == "default":
            return self.name.encode()
        return f"{self.namespace}:{self.name}".encode()


def next_prefix(prefix: bytes) -> Optional[bytes]:
    """The smallest key after every key starting with `prefix` (None: no such key)."""
    b = bytearray(prefix)
    while b and b[-1] == 0xFF:
        b.pop()
    if not b:
        return None
    b[-1] += 1
    return bytes(b)


@dataclass(frozen=True)
class KeyRange:
    """Row ranges, one per salt bucket (one for unsalted tables): start inclusive, stop
    exclusive (None: to the end)."""

    ranges: Tuple[Tuple[bytes, Optional[bytes]], ...]

    @staticmethod
    def prefix(spec: KeySpec, leading: Sequence[KeyValue]) -> "KeyRange":
        return KeyRange(tuple((p, next_prefix(p)) for p in spec.prefixes(leading)))

    @staticmethod
    def between(start: "KeyRange", stop: "KeyRange") -> "KeyRange":
        """From `start`'s first key (inclusive) up to `stop`'s first key (exclusive)."""
        if len(start.ranges) != len(stop.ranges):
            raise ValueError("ranges of different tables")
        return KeyRange(tuple((a[0], b[0]) for a, b in zip(start.ranges, stop.ranges)))


@dataclass
class _Scan:
    """One bucket's scanner, read lazily in batches."""

    client: Any
    table: bytes
    start: bytes
    stop: Optional[bytes]
    reversed: bool
    batch: int
    done: bool = False
    scanner: Optional[int] = None
    buffer: List[Any] = field(default_factory=list)

    def rows(self) -> Iterator[Tuple[bytes, Cells]]:
        if self.reversed:
            # Reversed: the scanner's start row is the upper bound (inclusive) and its stop
            # row the lower bound (exclusive); trim the bounds to [start, stop) here.
            scan = tt.TScan(
                startRow=self.stop,
                stopRow=self.start[:-1] if self.start else None,
                reversed=True,
                caching=self.batch,
            )
        else:
            scan = tt.TScan(startRow=self.start or None, stopRow=self.stop, caching=self.batch)
        try:
            sid = self.client.openScanner(self.table, scan)
            try:
                while True:
                    batch = self.client.getScannerRows(sid, self.batch)
                    if not batch:
                        return
                    for r in batch:
                        row = bytes(r.row)
                        if self.stop is not None and row >= self.stop:
                            continue
                        if row < self.start:
                            if self.reversed:
                                return
                            continue
                        yield row, _cells(r)
            finally:
                self.client.closeScanner(sid)
        except _ERRORS as e:
            raise _wrap(e) from None


def _cells(result: Any) -> Cells:
    return {(bytes(c.family), bytes(c.qualifier)): bytes(c.value) for c in result.columnValues or []}


class TableClient:
    """Row-level Thrift2 calls in bytes for one table; generated clients type them."""

    def __init__(self, conn: Connection, table: TableDef) -> None:
        self.conn = conn
        self.table = table
        self._name = table.full_name

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self.conn.client, method)(*args)
        except _ERRORS as e:
            raise _wrap(e) from None

    def create(self) -> None:
        """Creates the table with its families and split keys, and its namespace if missing."""
        t = self.table
        if t.namespace != "default":
            names = {d.name for d in self._call("listNamespaceDescriptors")}
            if t.namespace not in names:
                self._call("createNamespace", tt.TNamespaceDescriptor(name=t.namespace))
        desc = tt.TTableDescriptor(
            tableName=tt.TTableName(ns=t.namespace.encode(), qualifier=t.name.encode()),
            columns=[f.descriptor() for f in t.families],
        )
        self._call("createTable", desc, list(t.splits) or None)

    def exists(self) -> bool:
        t = self.table
        name = tt.TTableName(ns=t.namespace.encode(), qualifier=t.name.encode())
        return bool(self._call("tableExists", name))

    def drop(self) -> None:
        """Disables and deletes the table."""
        t = self.table
        name = tt.TTableName(ns=t.namespace.encode(), qualifier=t.name.encode())
        if self._call("isTableEnabled", name):
            self._call("disableTable", name)
        self._call("deleteTable", name)

    def region_starts(self) -> List[bytes]:
        """Start keys of the table's regions, ascending (the first is b"")."""
        locs = self._call("getAllRegionLocations", self._name)
        return sorted(bytes(loc.regionInfo.startKey or b"") for loc in locs)

    def get(self, row: bytes) -> Optional[Cells]:
        result = self._call("get", self._name, tt.TGet(row=row))
        cells = _cells(result)
        return cells or None

    def put(self, row: bytes, cells: Sequence[Cell]) -> None:
        if not cells:
            return
        self._call("put", self._name, _put(row, cells))

    def delete(self, row: bytes, columns: Sequence[Tuple[bytes, bytes]] = ()) -> None:
        """Deletes the row, or every version of the given columns."""
        cols = [tt.TColumn(family=f, qualifier=q) for f, q in columns] or None
        self._call("deleteSingle", self._name, tt.TDelete(row=row, columns=cols))

    def increment(self, row: bytes, family: bytes, qualifier: bytes, amount: int) -> int:
        """Atomically adds `amount` to a counter cell; returns the new value."""
        inc = tt.TIncrement(
            row=row, columns=[tt.TColumnIncrement(family=family, qualifier=qualifier, amount=amount)]
        )
        result = self._call("increment", self._name, inc)
        for c in result.columnValues or []:
            if bytes(c.family) == family and bytes(c.qualifier) == qualifier:
                return int.from_bytes(bytes(c.value), "big", signed=True)
        raise ThriftError("the increment returned no value")

    def check_and_put(
        self, row: bytes, family: bytes, qualifier: bytes, expected: Optional[bytes], cells: Sequence[Cell]
    ) -> bool:
        """Puts `cells` if the cell holds `expected` (None: if it is absent); True if it did."""
        return bool(self._call("checkAndPut", self._name, row, family, qualifier, expected, _put(row, cells)))

    def scan(
        self, keys: KeyRange, *, reversed: bool = False, limit: Optional[int] = None, batch: int = 256
    ) -> Iterator[Tuple[bytes, Cells]]:
        """Rows in `keys`, in key order (descending if reversed): one scanner per range, merged."""
        if limit is not None and limit <= 0:
            return iter(())
        size = max(1, min(batch, limit or batch))
        scans = [
            _Scan(self.conn.client, self._name, start, stop, reversed, size).rows()
            for start, stop in keys.ranges
        ]
        merged: Iterator[Tuple[bytes, Cells]] = (
            scans[0] if len(scans) == 1 else heapq.merge(*scans, key=lambda r: r[0], reverse=reversed)
        )
        return itertools.islice(merged, limit) if limit is not None else merged


def _put(row: bytes, cells: Sequence[Cell]) -> Any:
    return tt.TPut(row=row, columnValues=[tt.TColumnValue(family=f, qualifier=q, value=v) for f, q, v in cells])
