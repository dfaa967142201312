"""Batch writes in bytes: chunked Thrift2 `putMultiple` / `deleteMultiple`, one `increment`
per row, per-row errors, and the buffered writer that flushes by rows, bytes and time.

A chunk the server refuses is retried row by row, so the error names every row that failed
(its index in the input, its key, the server's message) while every other row is written."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import (
    Callable,
    Dict,
    Generic,
    Iterable,
    List,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    Set,
    Tuple,
    TypeVar,
)

from .client import Cell, TableClient, ThriftError, make_delete, make_put

MAX_ROWS = 1000
MAX_BYTES = 4 << 20
DELETE_SETTLE = 0.002
"""Seconds a buffered writer lets pass after the server acknowledged a row's delete before it
sends a put or increment of that row. The server stamps both with its clock's millisecond, and
a delete marker hides every cell at or before its own stamp (HBase's rule), so a put landing in
the delete's millisecond would vanish. One millisecond suffices on a steady clock; two leave
room for a clock being slewed."""

Counter = Tuple[bytes, bytes, int]
Column = Tuple[bytes, bytes]


@dataclass(frozen=True)
class RowFailure:
    """One row a batch could not write."""

    index: int
    """Its position in the batch's input."""
    row: bytes
    """Its encoded row key."""
    message: str
    """The server's message."""


class BatchError(ThriftError):
    """Rows of a batch the server refused; every other row was written."""

    def __init__(self, operation: str, failures: List[RowFailure], total: int) -> None:
        self.operation = operation
        self.failures = failures
        self.total = total
        #: For increment_many: each row's new counter values, None where the row failed.
        self.results: List[Optional[Dict[Column, int]]] = []
        shown = "; ".join(f"#{f.index} {f.row!r}: {f.message}" for f in failures[:5])
        more = f"; and {len(failures) - 5} more" if len(failures) > 5 else ""
        super().__init__(f"{operation}: {len(failures)} of {total} rows failed: {shown}{more}")


def _cells_size(row: bytes, cells: Sequence[Cell]) -> int:
    return sum(len(row) + len(f) + len(q) + len(v) for f, q, v in cells) or len(row)


def chunks(sizes: Sequence[int], max_rows: int, max_bytes: int) -> Iterable[range]:
    """Index ranges of at most `max_rows` rows and `max_bytes` bytes (a larger row alone)."""
    if max_rows < 1 or max_bytes < 1:
        raise ValueError("max_rows and max_bytes must be >= 1")
    start, total = 0, 0
    for i, n in enumerate(sizes):
        if i > start and (i - start >= max_rows or total + n > max_bytes):
            yield range(start, i)
            start, total = i, 0
        total += n
    if start < len(sizes):
        yield range(start, len(sizes))


def _chunked(
    operation: str,
    rows: Sequence[bytes],
    sizes: Sequence[int],
    send_chunk: Callable[[range], None],
    send_one: Callable[[int], None],
    max_rows: int,
    max_bytes: int,
) -> None:
    failures: List[RowFailure] = []
    for part in chunks(sizes, max_rows, max_bytes):
        try:
            send_chunk(part)
            continue
        except ThriftError:
            pass
        # The chunk failed: find which rows did, one call each (puts and deletes repeat safely).
        for i in part:
            try:
                send_one(i)
            except ThriftError as e:
                failures.append(RowFailure(i, rows[i], str(e)))
    if failures:
        raise BatchError(operation, failures, len(rows))


def put_many(
    t: TableClient,
    rows: Sequence[Tuple[bytes, Sequence[Cell]]],
    *,
    timestamp: Optional[int] = None,
    max_rows: int = MAX_ROWS,
    max_bytes: int = MAX_BYTES,
) -> None:
    """Puts every row (rows without cells write nothing), in chunks of putMultiple."""
    puts = [make_put(row, cells, timestamp) for row, cells in rows]
    keep = [i for i, (_, cells) in enumerate(rows) if cells]
    keys = [rows[i][0] for i in keep]
    sizes = [_cells_size(*rows[i]) for i in keep]

    def chunk(part: range) -> None:
        t._call("putMultiple", t._name, [puts[keep[i]] for i in part])

    def one(i: int) -> None:
        t._call("put", t._name, puts[keep[i]])

    try:
        _chunked("put_many", keys, sizes, chunk, one, max_rows, max_bytes)
    except BatchError as e:  # report indices of the caller's input, not of the non-empty rows
        raise BatchError(
            "put_many", [RowFailure(keep[f.index], f.row, f.message) for f in e.failures], len(rows)
        ) from None


def delete_many(
    t: TableClient,
    rows: Sequence[bytes],
    *,
    timestamp: Optional[int] = None,
    max_rows: int = MAX_ROWS,
    max_bytes: int = MAX_BYTES,
) -> None:
    """Deletes every row (with a timestamp: the versions at or before it), in chunks of
    deleteMultiple."""
    deletes = [make_delete(row, (), timestamp) for row in rows]

    def chunk(part: range) -> None:
        refused = t._call("deleteMultiple", t._name, [deletes[i] for i in part])
        if refused:  # the IDL returns the deletes it could not apply
            raise ThriftError(f"{len(refused)} deletes were not applied")

    def one(i: int) -> None:
        t._call("deleteSingle", t._name, deletes[i])

    _chunked("delete_many", list(rows), [len(r) for r in rows], chunk, one, max_rows, max_bytes)


def increment_many(t: TableClient, rows: Sequence[Tuple[bytes, Sequence[Counter]]]) -> List[Dict[Column, int]]:
    """One increment call per row with all its counters (Thrift2 has no multi-row increment);
    each row's new counter values. Failed rows raise one BatchError after the others ran."""
    results: List[Optional[Dict[Column, int]]] = []
    failures: List[RowFailure] = []
    for i, (row, counters) in enumerate(rows):
        if not counters:
            results.append({})
            continue
        try:
            results.append(t.increment_row(row, counters))
        except ThriftError as e:
            results.append(None)
            failures.append(RowFailure(i, row, str(e)))
    if failures:
        err = BatchError("increment_many", failures, len(rows))
        err.results = results
        raise err
    return [r for r in results if r is not None]


def _shifted(e: BatchError, offset: int) -> List[RowFailure]:
    return [RowFailure(f.index + offset, f.row, f.message) for f in e.failures]


class _Key(Protocol):
    def encode(self) -> bytes: ...


class _Values(Protocol):
    def cells(self) -> List[Cell]: ...


class _Counter(Protocol):
    @property
    def family(self) -> bytes: ...

    @property
    def qualifier(self) -> bytes: ...


K = TypeVar("K", bound=_Key, contravariant=True)
V = TypeVar("V", bound=_Values, contravariant=True)


class BufferedWriter(Generic[K, V]):
    """Buffers puts, deletes and increments and sends them in batches: when `max_rows` rows or
    `max_bytes` bytes are buffered, when `flush_interval` seconds have passed since the oldest
    buffered write (a background thread, even if no further call comes; None: no timer), on
    `flush()` and on `close()` (or leaving a `with` block).

    Puts to one row merge, increments of one counter sum. A write that would reorder what is
    buffered for its row (a delete after a put or increment, a put after a delete, a put and an
    increment of the same cell) flushes the buffer first, so the server sees them in call order;
    a put or increment of a row whose delete (without a timestamp) was acknowledged less than
    `DELETE_SETTLE` ago waits out the rest of it, so the delete's marker cannot hide it.
    An error of a background flush is raised by the next call or by `close()`; its failures'
    indices count through the flushed rows: puts, then deletes, then increments."""

    def __init__(
        self,
        table: TableClient,
        *,
        max_rows: int = MAX_ROWS,
        max_bytes: int = MAX_BYTES,
        flush_interval: Optional[float] = 1.0,
    ) -> None:
        if max_rows < 1 or max_bytes < 1:
            raise ValueError("max_rows and max_bytes must be >= 1")
        if flush_interval is not None and not flush_interval > 0:
            raise ValueError(f"flush_interval must be > 0 seconds or None, not {flush_interval!r}")
        self._t = table
        self.max_rows = max_rows
        self.max_bytes = max_bytes
        self.flush_interval = flush_interval
        self._cond = threading.Condition(threading.Lock())
        self._puts: Dict[Tuple[bytes, Optional[int]], Dict[Column, bytes]] = {}
        self._put_cols: Dict[bytes, Set[Column]] = {}  # the columns buffered puts set, by row
        self._deletes: Dict[bytes, Optional[int]] = {}
        self._incs: Dict[bytes, Dict[Column, int]] = {}
        self._deleted: Dict[bytes, float] = {}  # rows of server-stamped deletes: when acknowledged
        self._rows = 0
        self._bytes = 0
        self._oldest: Optional[float] = None
        self._error: Optional[BaseException] = None
        self._closed = False
        self.flushes = 0
        """How many flushes sent something (for tests and metrics)."""
        self._thread: Optional[threading.Thread] = None
        if flush_interval is not None:
            self._thread = threading.Thread(target=self._timer, name="redbase-writer", daemon=True)
            self._thread.start()

    # -- the caller's side ------------------------------------------------------------------

    def put(self, key: K, values: V, *, timestamp: Optional[int] = None) -> None:
        row, cells = key.encode(), values.cells()
        with self._cond:
            self._check()
            if not cells:
                return
            cols = {(f, q) for f, q, _ in cells}
            if row in self._deletes or cols & set(self._incs.get(row, {})):
                self._flush_locked()
            slot = self._puts.setdefault((row, timestamp), {})
            self._rows += not slot
            for f, q, v in cells:
                slot[(f, q)] = v
            self._put_cols.setdefault(row, set()).update(cols)
            self._added(_cells_size(row, cells))

    def delete(self, key: K, *, timestamp: Optional[int] = None) -> None:
        row = key.encode()
        with self._cond:
            self._check()
            if row in self._incs or row in self._put_cols:
                self._flush_locked()
            if row in self._deletes:
                old = self._deletes[row]
                self._deletes[row] = None if old is None or timestamp is None else max(old, timestamp)
            else:
                self._deletes[row] = timestamp
                self._rows += 1
            self._added(len(row))

    def increment(self, key: K, counters: Mapping[_Counter, int]) -> None:
        row = key.encode()
        with self._cond:
            self._check()
            cols = {(c.family, c.qualifier): n for c, n in counters.items()}
            if not cols:
                return
            if row in self._deletes or set(cols) & self._put_cols.get(row, set()):
                self._flush_locked()
            slot = self._incs.setdefault(row, {})
            self._rows += not slot
            for col, n in cols.items():
                slot[col] = slot.get(col, 0) + n
            self._added(sum(len(row) + len(f) + len(q) + 8 for f, q in cols))

    def flush(self) -> None:
        """Sends everything buffered now."""
        with self._cond:
            self._check()
            self._flush_locked()

    def close(self) -> None:
        """Flushes, stops the timer and raises a pending error; the writer takes no more writes."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join()
        with self._cond:
            error, self._error = self._error, None
            try:
                self._flush_locked()
            finally:
                if error is not None:
                    raise error

    def __enter__(self) -> BufferedWriter[K, V]:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            self.close()
            return
        try:  # an exception is already leaving the block: flush what we can, keep that one
            self.close()
        except Exception:
            pass

    # -- internals (under self._cond) -------------------------------------------------------

    def _check(self) -> None:
        if self._closed:
            raise ValueError("the writer is closed")
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _added(self, size: int) -> None:
        self._bytes += size
        if self._oldest is None:
            self._oldest = time.monotonic()
            self._cond.notify_all()
        if self._rows >= self.max_rows or self._bytes >= self.max_bytes:
            self._flush_locked()

    def _flush_locked(self) -> None:
        puts, deletes, incs = self._puts, self._deletes, self._incs
        self._puts, self._deletes, self._incs = {}, {}, {}
        self._put_cols = {}
        self._rows = self._bytes = 0
        self._oldest = None
        if not (puts or deletes or incs):
            return
        self.flushes += 1
        failures: List[RowFailure] = []
        total = 0
        by_ts: Dict[Optional[int], List[Tuple[bytes, List[Cell]]]] = {}
        for (row, ts), cells in puts.items():
            by_ts.setdefault(ts, []).append((row, [(f, q, v) for (f, q), v in cells.items()]))
        self._settle([row for row, _ in puts] + list(incs))
        for ts, rows in by_ts.items():
            try:
                put_many(self._t, rows, timestamp=ts, max_rows=self.max_rows, max_bytes=self.max_bytes)
            except BatchError as e:
                failures += _shifted(e, total)
            total += len(rows)
        by_del: Dict[Optional[int], List[bytes]] = {}
        for row, ts in deletes.items():
            by_del.setdefault(ts, []).append(row)
        for ts, rows_ in by_del.items():
            try:
                delete_many(self._t, rows_, timestamp=ts, max_rows=self.max_rows, max_bytes=self.max_bytes)
            except BatchError as e:
                failures += _shifted(e, total)
            finally:
                if ts is None:
                    acked = time.monotonic()
                    self._deleted.update((row, acked) for row in rows_)
            total += len(rows_)
        if incs:
            try:
                increment_many(self._t, [(row, [(f, q, n) for (f, q), n in c.items()]) for row, c in incs.items()])
            except BatchError as e:
                failures += _shifted(e, total)
            total += len(incs)
        if failures:
            raise BatchError("writer flush", failures, total)

    def _settle(self, rows: Iterable[bytes]) -> None:
        """Waits until DELETE_SETTLE has passed since any of `rows` was last deleted."""
        now = time.monotonic()
        self._deleted = {row: t for row, t in self._deleted.items() if now - t < DELETE_SETTLE}
        latest = max((self._deleted[row] for row in rows if row in self._deleted), default=None)
        if latest is not None:
            time.sleep(max(0.0, latest + DELETE_SETTLE - now))

    def _timer(self) -> None:
        assert self.flush_interval is not None
        with self._cond:
            while not self._closed:
                if self._oldest is None:
                    self._cond.wait()
                    continue
                delay = self._oldest + self.flush_interval - time.monotonic()
                if delay > 0:
                    self._cond.wait(delay)
                    continue
                try:
                    self._flush_locked()
                except Exception as e:  # kept for the caller's next call or close()
                    self._error = e
