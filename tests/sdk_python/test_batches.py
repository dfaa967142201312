"""Batch writes end to end: put_many / delete_many chunked into putMultiple / deleteMultiple
calls, mutate_row, increment_many, per-row errors naming every refused row while the others
are written, and the buffered writer (rows, bytes and time bounds, summed increments, order)."""

import time

import pytest

from redbase_examples import (
    AccessLogsByUserColumns,
    AccessLogsByUserKey,
    AccessLogsByUserTable,
    AccessLogsByUserValues,
    BatchError,
    Connection,
    CountersColumns,
    CountersKey,
    CountersTable,
    CountersValues,
    DeviceEventsColumns,
    DeviceEventsKey,
    DeviceEventsTable,
    DeviceEventsValues,
    KeyEncodingError,
    ValueEncodingError,
)

U = AccessLogsByUserKey
V = AccessLogsByUserValues
C = AccessLogsByUserColumns

#: A row key of 40,000 bytes: beyond HBase's 32,767, so the server refuses that one row.
TOO_LONG = "x" * 40_000


def keys_in(table):
    return [r.row_key for r in table.scan()]


def test_put_many_chunks_by_rows_and_writes_every_row(fresh, conn, counting):
    t = fresh(AccessLogsByUserTable)
    rows = [(U(f"u{i:04d}", "s", 201501 + i % 12), V(hits=i, last_seen=1_445_000_000_000 + i)) for i in range(2500)]
    with counting(conn) as c:
        t.put_many(rows)
    assert c.calls.get("putMultiple") == 3, "1,000 rows per call by default: 1000 + 1000 + 500"
    assert "put" not in c.calls
    got = {r.key.user_id: (r.values.hits, r.values.last_seen, r.key.period) for r in t.scan()}
    assert len(got) == 2500
    assert got["u0007"] == (7, 1_445_000_000_007, 201508)
    assert got["u2499"] == (2499, 1_445_000_002_499, 201501 + 2499 % 12)


def test_put_many_chunks_by_bytes(fresh, conn, counting):
    t = fresh(AccessLogsByUserTable)
    rows = [(U(f"u{i}", "s", 201501), V(hits=i)) for i in range(10)]
    # each row: key (9 bytes) + family + qualifier + 8-byte value, about 20 bytes of cell data
    with counting(conn) as c:
        t.put_many(rows, max_bytes=45)
    assert c.calls.get("putMultiple") == 5, "two rows per call under a 45-byte bound"
    with counting(conn) as c:
        t.put_many(rows, max_rows=4)
    assert c.calls.get("putMultiple") == 3
    assert len(keys_in(t)) == 10


def test_put_many_with_a_timestamp(fresh):
    t = fresh(AccessLogsByUserTable)
    t.put_many([(U("a", "s", 201501), V(hits=1)), (U("b", "s", 201501), V(hits=2))], timestamp=1_000)
    row = t.get(U("b", "s", 201501))
    assert row is not None and [c.timestamp for c in row.cells] == [1_000]
    assert t.get(U("a", "s", 201501), at=1_000) is not None
    assert t.get(U("a", "s", 201501), at=999) is None


def test_per_row_errors_name_each_refused_row_and_keep_the_others(fresh):
    t = fresh(AccessLogsByUserTable)
    rows = [(U(f"u{i}", "s", 201501), V(hits=i)) for i in range(10)]
    rows[3] = (U(TOO_LONG, "s", 201501), V(hits=3))
    rows[7] = (U(TOO_LONG + "y", "s", 201501), V(hits=7))
    with pytest.raises(BatchError) as refused:
        t.put_many(rows, max_rows=4)
    e = refused.value
    assert [f.index for f in e.failures] == [3, 7]
    assert e.failures[0].row == rows[3][0].encode()
    assert all(f.message for f in e.failures), "the server's message for each row"
    assert e.total == 10 and "2 of 10 rows failed" in str(e)
    written = sorted(r.key.user_id for r in t.scan())
    assert written == sorted(f"u{i}" for i in range(10) if i not in (3, 7))


def test_key_errors_are_raised_before_anything_is_sent(fresh, conn, counting):
    t = fresh(AccessLogsByUserTable)
    rows = [(U("ok", "s", 201501), V(hits=1)), (U("bad id", "s", 201501), V(hits=2))]
    with counting(conn) as c, pytest.raises(KeyEncodingError, match="user_id"):
        t.put_many(rows)
    assert c.calls == {}
    with pytest.raises(ValueEncodingError):
        t.put_many([(U("ok", "s", 201501), V(hits="many"))])  # type: ignore[arg-type]
    assert keys_in(t) == []


def test_delete_many_chunks_and_deletes(fresh, conn, counting):
    t = fresh(AccessLogsByUserTable)
    t.put_many([(U(f"u{i:02d}", "s", 201501), V(hits=i)) for i in range(30)])
    with counting(conn) as c:
        t.delete_many([U(f"u{i:02d}", "s", 201501) for i in range(0, 30, 2)], max_rows=10)
    assert c.calls.get("deleteMultiple") == 2
    assert sorted(r.key.user_id for r in t.scan()) == [f"u{i:02d}" for i in range(1, 30, 2)]
    t.delete_many([])  # nothing to do, no error


def test_delete_many_per_row_errors(fresh):
    t = fresh(AccessLogsByUserTable)
    t.put_many([(U(f"u{i}", "s", 201501), V(hits=i)) for i in range(4)])
    with pytest.raises(BatchError) as refused:
        t.delete_many([U("u0", "s", 201501), U(TOO_LONG, "s", 201501), U("u2", "s", 201501)])
    assert [f.index for f in refused.value.failures] == [1]
    assert sorted(r.key.user_id for r in t.scan()) == ["u1", "u3"]


def test_mutate_row_puts_and_deletes_atomically(fresh, conn, counting):
    t = fresh(AccessLogsByUserTable)
    key = U("dave", "jericho", 201510)
    t.put(key, V(hits=1, last_seen=5))
    with counting(conn) as c:
        t.mutate_row(key, put=V(hits=9), delete=[C.last_seen])
    assert c.calls == {"mutateRow": 1}
    row = t.get(key)
    assert row is not None and (row.values.hits, row.values.last_seen) == (9, None)


def test_mutate_row_on_a_pattern_cell(fresh):
    t = fresh(CountersTable)
    key = CountersKey("rk")
    t.put(key, CountersValues(slots={1: 10, 2: 20}))
    t.mutate_row(key, put=CountersValues(slots={3: 30}), delete=[CountersColumns.slots.of(1)])
    row = t.get(key)
    assert row is not None and row.values.slots == {2: 20, 3: 30}


def test_increment_many_one_call_per_row(fresh, conn, counting):
    t = fresh(DeviceEventsTable)
    keys = [DeviceEventsKey("d1", 1), DeviceEventsKey("d1", 2), DeviceEventsKey("d2", 1)]
    t.put(keys[0], DeviceEventsValues(count=10))
    with counting(conn) as c:
        got = t.increment_many([(k, {DeviceEventsColumns.count: n}) for k, n in zip(keys, (5, -1, 7))])
    assert c.calls == {"increment": 3}
    assert [v.count for v in got] == [15, -1, 7]
    social = fresh(CountersTable)
    (res,) = social.increment_many(
        [(CountersKey("r"), {CountersColumns.slots.of(1): 2, CountersColumns.slots.of(2): 3})]
    )
    assert res.slots == {1: 2, 2: 3}


def test_increment_many_reports_failed_rows_after_running_the_others(fresh):
    t = fresh(AccessLogsByUserTable)
    rows = [(U("a", "s", 201501), {C.hits: 1}), (U(TOO_LONG, "s", 201501), {C.hits: 1}), (U("b", "s", 201501), {C.hits: 2})]
    with pytest.raises(BatchError) as refused:
        t.increment_many(rows)
    e = refused.value
    assert [f.index for f in e.failures] == [1]
    assert e.results[1] is None and e.results[2] is not None
    assert {r.key.user_id: r.values.hits for r in t.scan()} == {"a": 1, "b": 2}


def test_writer_flushes_at_the_row_bound_and_on_close(fresh, conn, counting):
    t = fresh(AccessLogsByUserTable)
    with counting(conn) as c:
        with t.writer(max_rows=10, flush_interval=None) as w:
            for i in range(25):
                w.put(U(f"u{i:02d}", "s", 201501), V(hits=i))
            assert w.flushes == 2, "at 10 and 20 rows"
            assert len(keys_in(t)) == 20
        assert w.flushes == 3
    assert c.calls["putMultiple"] == 3
    assert len(keys_in(t)) == 25


def test_writer_flushes_at_the_byte_bound(fresh):
    t = fresh(AccessLogsByUserTable)
    with t.writer(max_rows=1000, max_bytes=200, flush_interval=None) as w:
        for i in range(25):  # about 22 bytes each: a flush every 10 rows
            w.put(U(f"u{i:02d}", "s", 201501), V(last_seen=i))
        assert w.flushes == 2
        assert len(keys_in(t)) == 20
    assert len(keys_in(t)) == 25


def test_writer_flushes_on_its_interval_without_further_calls(fresh, named, target):
    t = fresh(AccessLogsByUserTable)
    with Connection(*target) as other:
        reader = named(AccessLogsByUserTable, other)
        with t.writer(flush_interval=0.2) as w:
            w.put(U("timed", "s", 201501), V(hits=1))
            deadline = time.monotonic() + 5
            while not list(reader.scan()) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert [r.key.user_id for r in reader.scan()] == ["timed"], "flushed by the timer"
            assert w.flushes == 1


def test_writer_sums_increments_of_one_counter(fresh, conn, counting):
    t = fresh(AccessLogsByUserTable)
    a, b = U("a", "s", 201501), U("b", "s", 201501)
    with counting(conn) as c:
        with t.writer(flush_interval=None) as w:
            for _ in range(100):
                w.increment(a, {C.hits: 1})
            w.increment(b, {C.hits: 5})
            w.increment(b, {C.hits: -2})
    assert c.calls == {"increment": 2}, "one call per row, the amounts summed"
    assert {r.key.user_id: r.values.hits for r in t.scan()} == {"a": 100, "b": 3}


def test_writer_keeps_puts_and_deletes_of_a_row_in_order(fresh):
    t = fresh(AccessLogsByUserTable)
    k1, k2 = U("first", "s", 201501), U("second", "s", 201501)
    t.put(k2, V(hits=1))
    with t.writer(flush_interval=None) as w:
        w.put(k1, V(hits=1))
        w.delete(k1)  # put then delete: gone
        w.delete(k2)
        w.put(k2, V(hits=2))  # delete then put: there
        w.put(k2, V(last_seen=7))  # puts of one row merge
    assert [(r.key.user_id, r.values.hits, r.values.last_seen) for r in t.scan()] == [("second", 2, 7)]


def test_writer_writes_after_a_delete_of_the_row_even_in_the_same_millisecond(fresh):
    # A delete marker hides cells at or before its millisecond; on a fast server the put (or
    # increment) sent right after the delete lands in that millisecond unless the writer waits.
    t = fresh(AccessLogsByUserTable)
    for i in range(40):
        key = U(f"again{i}", "s", 201501)
        t.put(key, V(hits=1))
        with t.writer(flush_interval=None) as w:
            w.delete(key)
            w.put(key, V(last_seen=i))  # flushes the delete, then goes out on close
            w.flush()
            w.delete(key)
            w.increment(key, {C.hits: 5})  # flushes the delete, then goes out on close
        row = t.get(key)
        assert row is not None, f"round {i}: the row written after its delete is gone"
        assert (row.values.hits, row.values.last_seen) == (5, None), f"round {i}"


def test_writer_puts_and_increments_of_one_row(fresh):
    t = fresh(AccessLogsByUserTable)
    key = U("mixed", "s", 201501)
    with t.writer(flush_interval=None) as w:
        w.put(key, V(last_seen=5))
        w.increment(key, {C.hits: 2})  # another cell of the row: buffered together
        w.put(key, V(hits=100))  # the counter's cell: flushes the increment first
        w.increment(key, {C.hits: 1})
    row = t.get(key)
    assert row is not None and (row.values.hits, row.values.last_seen) == (101, 5)


def test_writer_raises_a_background_error_on_the_next_call(fresh):
    t = fresh(AccessLogsByUserTable)
    w = t.writer(flush_interval=0.1)
    w.put(U(TOO_LONG, "s", 201501), V(hits=1))
    w.put(U("fine", "s", 201501), V(hits=1))
    deadline = time.monotonic() + 5
    while w.flushes == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    with pytest.raises(BatchError) as refused:
        w.put(U("next", "s", 201501), V(hits=1))
    assert [f.row for f in refused.value.failures] == [U(TOO_LONG, "s", 201501).encode()]
    w.put(U("after", "s", 201501), V(hits=1))
    w.close()
    assert sorted(r.key.user_id for r in t.scan()) == ["after", "fine"]


def test_writer_close_raises_a_background_error(fresh):
    t = fresh(AccessLogsByUserTable)
    w = t.writer(flush_interval=0.1)
    w.put(U(TOO_LONG, "s", 201501), V(hits=1))
    deadline = time.monotonic() + 5
    while w.flushes == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    with pytest.raises(BatchError):
        w.close()
    with pytest.raises(ValueError, match="closed"):
        w.put(U("late", "s", 201501), V(hits=1))


def test_writer_refuses_bad_keys_at_once(fresh):
    t = fresh(AccessLogsByUserTable)
    with t.writer(flush_interval=None) as w:
        with pytest.raises(KeyEncodingError, match="user_id"):
            w.put(U("", "s", 201501), V(hits=1))
        w.put(U("ok", "s", 201501), V(hits=1))
    assert [r.key.user_id for r in t.scan()] == ["ok"]
    with pytest.raises(ValueError, match="flush_interval"):
        t.writer(flush_interval=0)


def test_writer_failure_indices_count_through_the_flushed_rows(fresh):
    t = fresh(AccessLogsByUserTable)
    w = t.writer(flush_interval=None)
    w.put(U("a", "s", 201501), V(hits=1))
    w.put(U("b", "s", 201501), V(hits=1))
    w.delete(U(TOO_LONG, "s", 201501))
    w.increment(U(TOO_LONG, "t", 201501), {C.hits: 1})
    with pytest.raises(BatchError) as refused:
        w.flush()
    assert [f.index for f in refused.value.failures] == [2, 3], "puts 0-1, the delete 2, the increment 3"
    assert refused.value.total == 4
    w.close()
    assert sorted(r.key.user_id for r in t.scan()) == ["a", "b"]
