"""The Thrift2 plumbing under every generated table client: a connection to redbase or HBase's
Thrift2 gateway (Apache `thrift` runtime, binary protocol, buffered or framed transport), table
creation from the schema, and row-level calls in bytes: reads with versions and time ranges,
writes with timestamps, batches (batch.py), scans with columns and filters. Salted scans open
one scanner per bucket and merge them by the key without its salt (`merge_rows`), so a salted
table reads in the order of its unsalted design."""

from __future__ import annotations

import heapq
import itertools
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, TypeVar, Union

from thrift.protocol import TBinaryProtocol
from thrift.Thrift import TApplicationException
from thrift.transport import TSocket, TTransport

from .._thrift.hbase2 import THBaseService
from .._thrift.hbase2 import ttypes as tt
from .keys import KeySpec, KeyValue, StartsWith

Cell = Tuple[bytes, bytes, bytes]
Cells = Dict[Tuple[bytes, bytes], bytes]
#: A column to read: (family, qualifier), or a whole family.
ColumnSpec = Union[Tuple[bytes, bytes], bytes]
TimeRange = Tuple[int, int]


@dataclass(frozen=True)
class VersionedCell:
    """One cell as the server returned it, with its timestamp (ms)."""

    family: bytes
    qualifier: bytes
    value: bytes
    timestamp: int


class ThriftError(RuntimeError):
    """An error the server reported (TIOError, TIllegalArgument, TApplicationException) or a
    transport failure."""


def _wrap(e: Exception) -> ThriftError:
    message = getattr(e, "message", None) or str(e) or type(e).__name__
    return ThriftError(message)


# TApplicationException: what a Thrift server sends for an error its handler did not declare
# (HBase's gateway does so for some refused arguments).
_ERRORS = (tt.TIOError, tt.TIllegalArgument, TTransport.TTransportException, TApplicationException)


class Connection:
    """One Thrift2 connection. Each call holds the connection's lock, so a buffered writer's
    background flush and the caller's own calls take turns; for parallel work give each thread
    its own connection."""

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
        #: Held for each call (one request and its reply on the socket at a time).
        self.lock = threading.RLock()
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


@dataclass(frozen=True)
class KeyRange:
    """Row ranges, one per salt bucket (one for unsalted tables): start inclusive, stop
    exclusive (None: to the end)."""

    ranges: Tuple[Tuple[bytes, Optional[bytes]], ...]

    @staticmethod
    def prefix(spec: KeySpec, leading: Sequence[KeyValue]) -> "KeyRange":
        """Every row whose leading components equal `leading` (whole components: `dave` is no
        prefix of `daveX`, and a whole key is that row alone)."""
        return KeyRange(tuple(spec.prefix_ranges(leading)))

    @staticmethod
    def bounds(
        spec: KeySpec, values: Sequence[Union[KeyValue, Tuple[KeyValue, KeyValue], StartsWith, None]]
    ) -> "KeyRange":
        """Leading components by value, then optionally one as an inclusive (low, high) pair or
        (strings) a `StartsWith`."""
        return KeyRange(tuple(spec.bounds(values)))

    @staticmethod
    def between(start: "KeyRange", stop: "KeyRange") -> "KeyRange":
        """From `start`'s first key (inclusive) up to `stop`'s first key (exclusive)."""
        if len(start.ranges) != len(stop.ranges):
            raise ValueError("ranges of different tables")
        return KeyRange(tuple((a[0], b[0]) for a, b in zip(start.ranges, stop.ranges)))


def read_options(
    versions: Optional[int], time_range: Optional[TimeRange], at: Optional[int]
) -> Tuple[Optional[int], Any]:
    """TGet/TScan maxVersions and timeRange from the typed options, checked."""
    if versions is not None and (isinstance(versions, bool) or not isinstance(versions, int) or versions < 1):
        raise ValueError(f"versions must be an integer >= 1, not {versions!r}")
    if at is not None and time_range is not None:
        raise ValueError("give either `at` or `time_range`, not both")
    if at is not None:
        _check_ts("at", at)
        time_range = (at, at + 1)
    if time_range is None:
        return versions, None
    lo, hi = time_range
    _check_ts("time_range start", lo)
    _check_ts("time_range end", hi)
    if lo > hi:
        raise ValueError(f"time_range ({lo}, {hi}): the start is after the end")
    return versions, tt.TTimeRange(minStamp=lo, maxStamp=hi)


def _check_ts(what: str, ts: int) -> None:
    if isinstance(ts, bool) or not isinstance(ts, int) or not 0 <= ts < 1 << 63:
        raise ValueError(f"{what} must be a timestamp in ms (0 <= ts < 2^63), not {ts!r}")


def thrift_columns(columns: Optional[Sequence[ColumnSpec]]) -> Optional[List[Any]]:
    if not columns:
        return None
    return [
        tt.TColumn(family=c) if isinstance(c, bytes) else tt.TColumn(family=c[0], qualifier=c[1]) for c in columns
    ]


@dataclass(frozen=True)
class ScanOptions:
    """What a scan asks the server for, besides its key range."""

    columns: Optional[List[Any]] = None
    filter: Optional[bytes] = None
    versions: Optional[int] = None
    time_range: Any = None
    caching: int = 256
    batch_size: Optional[int] = None
    limit: Optional[int] = None


@dataclass
class _Scan:
    """One bucket's scanner, read lazily in batches."""

    conn: Any
    table: bytes
    start: bytes
    stop: Optional[bytes]
    reversed: bool
    opts: ScanOptions

    def _call(self, method: str, *args: Any) -> Any:
        with self.conn.lock:
            return getattr(self.conn.client, method)(*args)

    def rows(self) -> Iterator[Tuple[bytes, List[VersionedCell]]]:
        """Whole rows: the partial results of a `batch_size` scan joined back per row."""
        pending: Optional[Tuple[bytes, List[VersionedCell]]] = None
        for row, cells in self._results():
            if pending is not None and pending[0] == row:
                pending[1].extend(cells)
                continue
            if pending is not None:
                yield pending[0], _ordered(pending[1])
            pending = (row, cells)
        if pending is not None:
            yield pending[0], _ordered(pending[1])

    def _results(self) -> Iterator[Tuple[bytes, List[VersionedCell]]]:
        o = self.opts
        limit = o.limit
        if limit is not None and self.reversed and self.stop is not None:
            # A reversed scanner starts at `stop` itself, which is out of range and trimmed
            # below: the server's row limit must leave room for it.
            limit += 1
        common: Dict[str, Any] = dict(
            columns=o.columns,
            caching=o.caching,
            maxVersions=o.versions,
            timeRange=o.time_range,
            filterString=o.filter,
            batchSize=o.batch_size,
            limit=limit,
        )
        if self.reversed:
            # Reversed: the scanner's start row is the upper bound (inclusive) and its stop
            # row the lower bound (exclusive); trim the bounds to [start, stop) here.
            scan = tt.TScan(
                startRow=self.stop, stopRow=self.start[:-1] if self.start else None, reversed=True, **common
            )
        else:
            scan = tt.TScan(startRow=self.start or None, stopRow=self.stop, **common)
        try:
            sid = self._call("openScanner", self.table, scan)
            try:
                while True:
                    batch = self._call("getScannerRows", sid, o.caching)
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
                        yield row, _versioned(r)
            finally:
                self._call("closeScanner", sid)
        except _ERRORS as e:
            raise _wrap(e) from None


def _versioned(result: Any) -> List[VersionedCell]:
    return [
        VersionedCell(bytes(c.family), bytes(c.qualifier), bytes(c.value or b""), int(c.timestamp or 0))
        for c in result.columnValues or []
    ]


def _ordered(cells: List[VersionedCell]) -> List[VersionedCell]:
    """Cells by column, newest first within a column (the order HBase returns them in)."""
    return sorted(cells, key=lambda c: (c.family, c.qualifier, -c.timestamp))


def newest(cells: Sequence[VersionedCell]) -> Cells:
    """The newest value of each column (cells ordered as `_ordered` leaves them)."""
    out: Cells = {}
    for c in cells:
        out.setdefault((c.family, c.qualifier), c.value)
    return out


class TableClient:
    """Row-level Thrift2 calls in bytes for one table; generated clients type them."""

    def __init__(self, conn: Connection, table: TableDef) -> None:
        self.conn = conn
        self.table = table
        self._name = table.full_name

    def _call(self, method: str, *args: Any) -> Any:
        try:
            with self.conn.lock:
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

    def ensure(self) -> List[str]:
        """Makes the live table match the schema (runtime/drift.py): creates it if missing,
        adds missing families, modifies differing settings; returns what it changed. A family
        the schema lacks, or other split points, raise one SchemaDriftError listing them."""
        from . import drift

        t = self.table
        shown = f"{t.namespace}:{t.name}"
        if not self.exists():
            self.create()
            return [f"{shown}: created the table with its families and split keys"]
        name = tt.TTableName(ns=t.namespace.encode(), qualifier=t.name.encode())
        live = {bytes(c.name): c for c in self._call("getTableDescriptor", name).columns or []}
        changed: List[str] = []
        refused: List[str] = []
        for f in t.families:
            family = f.name.decode()
            have = live.get(f.name)
            if have is None:
                self._call("addColumnFamily", name, f.descriptor())
                changed.append(f"{shown}: added family {family}")
                continue
            diffs = drift.family_drift(f, have)
            if diffs:
                self._call("modifyColumnFamily", name, drift.overlaid(f, have))
                for setting, want, was in diffs:
                    changed.append(f"{shown}: family {family}: {setting} was {was}, set to {want}")
        for extra in sorted(set(live) - {f.name for f in t.families}):
            refused.append(f"extra family {extra.decode()} (not in the schema)")
        splits = [s for s in self.region_starts() if s]
        if splits != list(t.splits):
            refused.append(
                f"split points are {drift.splits_shown(splits)}, the schema says {drift.splits_shown(list(t.splits))}"
            )
        if refused:
            raise drift.SchemaDriftError(shown, refused)
        return changed

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

    def get(
        self,
        row: bytes,
        *,
        versions: Optional[int] = None,
        time_range: Optional[TimeRange] = None,
        at: Optional[int] = None,
        columns: Optional[Sequence[ColumnSpec]] = None,
    ) -> Optional[List[VersionedCell]]:
        """The row's cells (every version asked for, newest first per column), or None."""
        max_versions, tr = read_options(versions, time_range, at)
        get = tt.TGet(row=row, columns=thrift_columns(columns), maxVersions=max_versions, timeRange=tr)
        cells = _versioned(self._call("get", self._name, get))
        return _ordered(cells) or None

    def put(self, row: bytes, cells: Sequence[Cell], *, timestamp: Optional[int] = None) -> None:
        if not cells:
            return
        self._call("put", self._name, make_put(row, cells, timestamp))

    def delete(
        self, row: bytes, columns: Sequence[Tuple[bytes, bytes]] = (), *, timestamp: Optional[int] = None
    ) -> None:
        """Deletes the row, or every version of the given columns (with a timestamp: only the
        versions at or before it)."""
        self._call("deleteSingle", self._name, make_delete(row, columns, timestamp))

    def increment(self, row: bytes, family: bytes, qualifier: bytes, amount: int) -> int:
        """Atomically adds `amount` to a counter cell; returns the new value."""
        got = self.increment_row(row, [(family, qualifier, amount)])
        if (family, qualifier) not in got:
            raise ThriftError("the increment returned no value")
        return got[(family, qualifier)]

    def increment_row(self, row: bytes, counters: Sequence[Tuple[bytes, bytes, int]]) -> Dict[Tuple[bytes, bytes], int]:
        """Atomically adds to several counters of one row (one call); their new values."""
        inc = tt.TIncrement(
            row=row, columns=[tt.TColumnIncrement(family=f, qualifier=q, amount=n) for f, q, n in counters]
        )
        result = self._call("increment", self._name, inc)
        return {
            (bytes(c.family), bytes(c.qualifier)): int.from_bytes(bytes(c.value), "big", signed=True)
            for c in result.columnValues or []
        }

    def mutate_row(
        self,
        row: bytes,
        cells: Sequence[Cell],
        delete_columns: Sequence[Tuple[bytes, bytes]],
        *,
        timestamp: Optional[int] = None,
    ) -> None:
        """Puts `cells` and deletes `delete_columns` of one row atomically (Thrift2 mutateRow)."""
        mutations = []
        if cells:
            mutations.append(tt.TMutation(put=make_put(row, cells, timestamp)))
        if delete_columns:
            mutations.append(tt.TMutation(deleteSingle=make_delete(row, delete_columns, timestamp)))
        if not mutations:
            return
        self._call("mutateRow", self._name, tt.TRowMutations(row=row, mutations=mutations))

    def check_and_put(
        self, row: bytes, family: bytes, qualifier: bytes, expected: Optional[bytes], cells: Sequence[Cell]
    ) -> bool:
        """Puts `cells` if the cell holds `expected` (None: if it is absent); True if it did."""
        return bool(self._call("checkAndPut", self._name, row, family, qualifier, expected, make_put(row, cells)))

    def scan(
        self,
        keys: KeyRange,
        *,
        reversed: bool = False,
        limit: Optional[int] = None,
        columns: Optional[Sequence[ColumnSpec]] = None,
        filter: Optional[bytes] = None,
        versions: Optional[int] = None,
        time_range: Optional[TimeRange] = None,
        caching: Optional[int] = None,
        batch_size: Optional[int] = None,
        bucket_order: bool = False,
    ) -> Iterator[Tuple[bytes, List[VersionedCell]]]:
        """Rows in `keys`, one scanner per range (per salt bucket), merged by the key without its
        salt (descending if reversed); `bucket_order`: one bucket after the other instead."""
        for name, n in (("limit", limit), ("caching", caching), ("batch_size", batch_size)):
            if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
                raise ValueError(f"{name} must be an integer >= 0, not {n!r}")
        max_versions, tr = read_options(versions, time_range, None)
        if limit is not None and limit == 0:
            return iter(())
        opts = ScanOptions(
            columns=thrift_columns(columns),
            filter=filter,
            versions=max_versions,
            time_range=tr,
            caching=max(1, caching or min(256, limit or 256)),
            batch_size=batch_size or None,
            limit=limit,
        )
        scans = [_Scan(self.conn, self._name, start, stop, reversed, opts).rows() for start, stop in keys.ranges]
        return merge_rows(
            scans, self.table.key.salt_width(), reversed=reversed, bucket_order=bucket_order, limit=limit
        )


_R = TypeVar("_R", bound=Tuple[bytes, Any])


def merge_rows(
    streams: Sequence[Iterable[_R]],
    salt_width: int,
    *,
    reversed: bool = False,
    bucket_order: bool = False,
    limit: Optional[int] = None,
) -> Iterator[_R]:
    """The rows of one scanner per salt bucket (each in key order, descending if `reversed`)
    as a scan yields them, at most `limit` (docs/schema.md, "Salted scans"): merged by the key
    after its first `salt_width` bytes, ties in bucket order (reversed: exactly the reverse), so
    `limit` and ranges mean what they mean on the unsalted design. `bucket_order`: bucket 0's
    rows, then bucket 1's, ... (reversed: the last bucket first), each scanner opened only when
    the one before it is done."""
    merged: Iterator[_R]
    if bucket_order:
        merged = itertools.chain.from_iterable(streams[::-1] if reversed else streams)
    elif len(streams) == 1:
        merged = iter(streams[0])
    else:
        tagged = [_tagged(i, s, salt_width) for i, s in enumerate(streams)]
        merged = (r for _, _, r in heapq.merge(*tagged, key=lambda t: (t[0], t[1]), reverse=reversed))
    return itertools.islice(merged, limit) if limit is not None else merged


def _tagged(bucket: int, rows: Iterable[_R], salt_width: int) -> Iterator[Tuple[bytes, int, _R]]:
    return ((r[0][salt_width:], bucket, r) for r in rows)


def make_put(row: bytes, cells: Sequence[Cell], timestamp: Optional[int] = None) -> Any:
    if timestamp is not None:
        _check_ts("timestamp", timestamp)
    return tt.TPut(
        row=row,
        columnValues=[tt.TColumnValue(family=f, qualifier=q, value=v) for f, q, v in cells],
        timestamp=timestamp,
    )


def make_delete(row: bytes, columns: Sequence[Tuple[bytes, bytes]] = (), timestamp: Optional[int] = None) -> Any:
    """A TDelete: the whole row or the given columns, every version (DELETE_COLUMNS), or with a
    timestamp the versions at or before it."""
    if timestamp is not None:
        _check_ts("timestamp", timestamp)
    # HBase reads a column delete's timestamp from each TColumn, a row delete's from the TDelete.
    cols = [tt.TColumn(family=f, qualifier=q, timestamp=timestamp) for f, q in columns] or None
    return tt.TDelete(row=row, columns=cols, timestamp=timestamp)
