"""happybase's public API against the real server, over every transport x protocol combination.

Each test gets a happybase Connection from the `conn` fixture, which is parametrized over
buffered/framed x binary/compact. Expected values are what HBase 2.6 returns to happybase.
"""

import threading
from collections import OrderedDict

import pytest

import happybase
from thriftpy2.thrift import TApplicationException
from t1_util import (
    HB_AlreadyExists,
    HB_IOError,
    TTL_FOREVER,
    i64,
    now_ms,
)


def make_table(conn, name, families=None):
    conn.create_table(name, families or {"f": {}, "g": {}})
    return conn.table(name)


# ----------------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------------


def test_table_lifecycle(conn, table_name):
    conn.create_table(table_name, {"f": {}, "g": dict(max_versions=5)})
    assert table_name.encode() in conn.tables()
    assert conn.is_table_enabled(table_name) is True

    conn.disable_table(table_name)
    assert conn.is_table_enabled(table_name) is False
    conn.enable_table(table_name)
    assert conn.is_table_enabled(table_name) is True

    # delete_table(disable=True) disables first, as HBase requires.
    conn.delete_table(table_name, disable=True)
    assert table_name.encode() not in conn.tables()


def test_delete_table_that_is_enabled_is_refused(conn, table_name):
    make_table(conn, table_name)
    with pytest.raises(HB_IOError):
        conn.delete_table(table_name)
    assert table_name.encode() in conn.tables()
    conn.disable_table(table_name)
    conn.delete_table(table_name)
    assert table_name.encode() not in conn.tables()


def test_create_existing_table_raises_already_exists(conn, table_name):
    make_table(conn, table_name)
    with pytest.raises(HB_AlreadyExists):
        conn.create_table(table_name, {"f": {}})


def test_table_prefix(server, combo, conn, table_name):
    prefix = f"p{table_name}"
    pconn = server.happybase(*combo, table_prefix=prefix)
    try:
        pconn.create_table("inner", {"f": {}})
        make_table(conn, f"{table_name}_other")
        full = f"{prefix}_inner".encode()
        assert full in conn.tables()
        # A prefixed connection lists only its own tables, without the prefix.
        assert pconn.tables() == [b"inner"]
        pconn.table("inner").put(b"r", {b"f:a": b"1"})
        assert conn.table(full).row(b"r") == {b"f:a": b"1"}
        assert pconn.table(full, use_prefix=False).row(b"r") == {b"f:a": b"1"}
        assert pconn.is_table_enabled("inner")
        pconn.delete_table("inner", disable=True)
        assert full not in conn.tables()
        assert pconn.tables() == []
    finally:
        pconn.close()


def test_table_prefix_with_custom_separator(server, combo, conn, table_name):
    prefix = f"p{table_name}"
    pconn = server.happybase(*combo, table_prefix=prefix, table_prefix_separator=b".")
    try:
        pconn.create_table("inner", {"f": {}})
        assert f"{prefix}.inner".encode() in conn.tables()
        assert pconn.tables() == [b"inner"]
    finally:
        pconn.close()


def test_families(conn, table_name):
    conn.create_table(
        table_name,
        {
            "f": {},
            "g": dict(
                max_versions=10,
                in_memory=True,
                block_cache_enabled=True,
                bloom_filter_type="ROW",
                time_to_live=3600,
            ),
            "h": dict(time_to_live=0),
        },
    )
    fams = conn.table(table_name).families()
    assert set(fams) == {b"f", b"g", b"h"}
    assert fams[b"f"] == {
        "name": b"f:",
        "max_versions": 3,
        "compression": b"NONE",
        "in_memory": False,
        "bloom_filter_type": b"NONE",
        "bloom_filter_vector_size": 0,
        "bloom_filter_nb_hashes": 0,
        "block_cache_enabled": False,
        # happybase sends timeToLive=-1 when unset: HBase stores "forever".
        "time_to_live": TTL_FOREVER,
    }
    g = fams[b"g"]
    assert g["name"] == b"g:"
    assert g["max_versions"] == 10
    assert g["in_memory"] is True
    assert g["block_cache_enabled"] is True
    assert g["bloom_filter_type"] == b"ROW"
    assert g["time_to_live"] == 3600
    assert fams[b"h"]["time_to_live"] == TTL_FOREVER


def test_regions_of_a_new_table(conn, table_name):
    table = make_table(conn, table_name)
    regions = table.regions()
    assert len(regions) == 1
    r = regions[0]
    assert r["start_key"] == b""
    assert r["end_key"] == b""
    assert r["version"] == 1
    assert r["id"] > 0
    assert r["name"].startswith(f"{table_name},,{r['id']}.".encode())
    assert r["server_name"] == b"localhost"
    assert isinstance(r["port"], int) and r["port"] > 0


def test_compact_table(conn, table_name):
    table = make_table(conn, table_name)
    table.put(b"r", {b"f:a": b"1"})
    table.delete(b"r", columns=[b"f:a"])
    table.put(b"s", {b"f:a": b"2"})
    conn.compact_table(table_name)
    conn.compact_table(table_name, major=True)
    assert table.row(b"r") == {}
    assert table.row(b"s") == {b"f:a": b"2"}


# ----------------------------------------------------------------------------------------------
# Puts and gets
# ----------------------------------------------------------------------------------------------


def test_put_and_row_with_column_selection(conn, table_name):
    table = make_table(conn, table_name)
    table.put(b"r1", {b"f:a": b"A", b"f:b": b"B", b"f:": b"EMPTY", b"g:x": b"X"})

    assert table.row(b"r1") == {b"f:a": b"A", b"f:b": b"B", b"f:": b"EMPTY", b"g:x": b"X"}
    assert table.row(b"r1", columns=[b"f:a"]) == {b"f:a": b"A"}
    # A bare family selects the whole family ...
    assert table.row(b"r1", columns=[b"f"]) == {b"f:a": b"A", b"f:b": b"B", b"f:": b"EMPTY"}
    # ... while "f:" is the empty qualifier only.
    assert table.row(b"r1", columns=[b"f:"]) == {b"f:": b"EMPTY"}
    assert table.row(b"r1", columns=[b"f:a", b"g"]) == {b"f:a": b"A", b"g:x": b"X"}
    assert table.row(b"r1", columns=(b"f:nope",)) == {}
    # An empty column list selects everything, like no list at all.
    assert table.row(b"r1", columns=[]) == table.row(b"r1")
    assert table.row(b"missing") == {}


def test_binary_keys_values_and_colon_in_qualifier(conn, table_name):
    table = make_table(conn, table_name)
    row = b"\x00\xff\x80row"
    value = bytes(range(256))
    table.put(row, {b"f:q\xfe\x00": value, b"f:a:b": b"colon"})
    assert table.row(row) == {b"f:q\xfe\x00": value, b"f:a:b": b"colon"}
    # The column spec splits at the first colon: qualifier "a:b".
    assert table.row(row, columns=[b"f:a:b"]) == {b"f:a:b": b"colon"}
    assert table.row(row, columns=[b"f:a"]) == {}
    assert [k for k, _ in table.scan()] == [row]


def test_row_include_timestamp(conn, table_name):
    table = make_table(conn, table_name)
    table.put(b"r", {b"f:a": b"old"}, timestamp=1000)
    assert table.row(b"r", include_timestamp=True) == {b"f:a": (b"old", 1000)}
    before = now_ms()
    table.put(b"r", {b"f:b": b"now"})
    after = now_ms()
    value, ts = table.row(b"r", columns=[b"f:b"], include_timestamp=True)[b"f:b"]
    assert value == b"now"
    # The server stamps cells with the current time in milliseconds.
    assert before - 5000 <= ts <= after + 5000


def test_row_at_timestamp_is_exclusive(conn, table_name):
    table = make_table(conn, table_name)
    for ts in (10, 20, 30):
        table.put(b"r", {b"f:a": b"v%d" % ts}, timestamp=ts)
    assert table.row(b"r") == {b"f:a": b"v30"}
    # HBase reads "at" a timestamp over [0, ts): a cell written at exactly ts is not returned.
    assert table.row(b"r", timestamp=20) == {b"f:a": b"v10"}
    assert table.row(b"r", timestamp=21) == {b"f:a": b"v20"}
    assert table.row(b"r", timestamp=31, include_timestamp=True) == {b"f:a": (b"v30", 30)}
    assert table.row(b"r", timestamp=10) == {}
    assert table.row(b"r", columns=[b"f:a"], timestamp=30) == {b"f:a": b"v20"}


def test_rows(conn, table_name):
    table = make_table(conn, table_name)
    table.put(b"r1", {b"f:a": b"1", b"g:b": b"x"}, timestamp=100)
    table.put(b"r2", {b"f:a": b"2"}, timestamp=100)
    table.put(b"r2", {b"f:a": b"2new"}, timestamp=200)

    # Missing rows are left out; the others come back in request order.
    got = table.rows([b"r2", b"missing", b"r1"])
    assert got == [(b"r2", {b"f:a": b"2new"}), (b"r1", {b"f:a": b"1", b"g:b": b"x"})]
    assert table.rows([b"r1", b"r2"], columns=[b"g"]) == [(b"r1", {b"g:b": b"x"})]
    assert table.rows([b"r1", b"r2"], columns=[b"f:a"], include_timestamp=True) == [
        (b"r1", {b"f:a": (b"1", 100)}),
        (b"r2", {b"f:a": (b"2new", 200)}),
    ]
    # With a timestamp (and no columns happybase names every family itself).
    assert table.rows([b"r1", b"r2"], timestamp=200) == [
        (b"r1", {b"f:a": b"1", b"g:b": b"x"}),
        (b"r2", {b"f:a": b"2"}),
    ]
    assert table.rows([b"r1", b"r2"], timestamp=100) == []
    assert table.rows([b"nope1", b"nope2"]) == []


def test_cells_versions_and_timestamps(conn, table_name):
    table = make_table(conn, table_name, {"f": {}, "v": dict(max_versions=10)})
    for ts in range(1, 6):
        table.put(b"r", {b"v:c": b"v%d" % ts, b"f:c": b"f%d" % ts}, timestamp=ts)

    assert table.cells(b"r", b"v:c") == [b"v5", b"v4", b"v3", b"v2", b"v1"]
    assert table.cells(b"r", b"v:c", versions=2) == [b"v5", b"v4"]
    assert table.cells(b"r", b"v:c", timestamp=4) == [b"v3", b"v2", b"v1"]
    assert table.cells(b"r", b"v:c", versions=1, timestamp=4) == [b"v3"]
    assert table.cells(b"r", b"v:c", versions=2, include_timestamp=True) == [
        (b"v5", 5),
        (b"v4", 4),
    ]
    # Family f keeps HBase's default of 3 versions.
    assert table.cells(b"r", b"f:c") == [b"f5", b"f4", b"f3"]
    assert table.cells(b"r", b"f:missing") == []
    assert table.cells(b"missing", b"v:c") == []


# ----------------------------------------------------------------------------------------------
# Batches
# ----------------------------------------------------------------------------------------------


def test_batch_context_manager(conn, table_name):
    table = make_table(conn, table_name)
    table.put(b"old", {b"f:a": b"1"})
    with table.batch() as b:
        for i in range(10):
            b.put(b"row%d" % i, {b"f:a": b"%d" % i, b"g:b": b"x"})
        b.delete(b"old")
        # Nothing is sent before the block ends.
        assert table.row(b"row0") == {}
        assert table.row(b"old") == {b"f:a": b"1"}
    assert table.row(b"old") == {}
    assert [k for k, _ in table.scan()] == [b"row%d" % i for i in range(10)]
    assert table.row(b"row7") == {b"f:a": b"7", b"g:b": b"x"}


def test_batch_size_sends_automatically(conn, table_name):
    table = make_table(conn, table_name)
    b = table.batch(batch_size=3)
    b.put(b"r1", {b"f:a": b"1"})
    b.put(b"r2", {b"f:a": b"2", b"f:b": b"2"})  # the third mutation: the batch is sent
    assert table.row(b"r1") == {b"f:a": b"1"}
    assert table.row(b"r2") == {b"f:a": b"2", b"f:b": b"2"}
    b.put(b"r3", {b"f:a": b"3"})
    assert table.row(b"r3") == {}
    b.send()
    assert table.row(b"r3") == {b"f:a": b"3"}


def test_batch_transaction(conn, table_name):
    table = make_table(conn, table_name)
    with pytest.raises(ValueError):
        with table.batch(transaction=True) as b:
            b.put(b"tx", {b"f:a": b"1"})
            raise ValueError("abort")
    # A transaction-like batch sends nothing when its block fails ...
    assert table.row(b"tx") == {}
    with pytest.raises(ValueError):
        with table.batch() as b:
            b.put(b"plain", {b"f:a": b"1"})
            raise ValueError("abort")
    # ... while a plain batch still sends what it has.
    assert table.row(b"plain") == {b"f:a": b"1"}
    with table.batch(transaction=True) as b:
        b.put(b"tx", {b"f:a": b"2"})
    assert table.row(b"tx") == {b"f:a": b"2"}


def test_batch_deletes(conn, table_name):
    table = make_table(conn, table_name)
    table.put(b"r1", {b"f:a": b"1", b"f:b": b"2", b"g:x": b"3"})
    table.put(b"r2", {b"f:a": b"1", b"g:x": b"3"})
    table.put(b"r3", {b"f:a": b"1", b"g:x": b"3"})
    with table.batch() as b:
        b.delete(b"r1", columns=[b"f:a"])
        b.delete(b"r2")
        b.delete(b"r3", columns=[b"g"])
        b.put(b"r4", {b"f:a": b"4"})
    assert table.row(b"r1") == {b"f:b": b"2", b"g:x": b"3"}
    assert table.row(b"r2") == {}
    assert table.row(b"r3") == {b"f:a": b"1"}
    assert table.row(b"r4") == {b"f:a": b"4"}


def test_delete_in_a_batch_wins_over_a_put_of_the_same_column(conn, table_name):
    """HBase's mutateRows applies a batch's puts, then its deletes: a column both put and
    deleted in one batch ends up deleted, whatever the order of the calls."""
    table = make_table(conn, table_name)
    table.put(b"r", {b"f:a": b"old"})
    with table.batch() as b:
        b.put(b"r", {b"f:a": b"new", b"f:b": b"b"})
        b.delete(b"r", columns=[b"f:a"])
    assert table.row(b"r") == {b"f:b": b"b"}
    with table.batch(timestamp=5000) as b:
        b.delete(b"x", columns=[b"f:a"])
        b.put(b"x", {b"f:a": b"v", b"f:c": b"c"})
    assert table.row(b"x") == {b"f:c": b"c"}


def test_batch_with_timestamp(conn, table_name):
    table = make_table(conn, table_name)
    with table.batch(timestamp=500) as b:
        b.put(b"r", {b"f:a": b"x", b"f:b": b"y"})
    assert table.row(b"r", include_timestamp=True) == {b"f:a": (b"x", 500), b"f:b": (b"y", 500)}
    table.put(b"r", {b"f:a": b"newer"}, timestamp=600)
    with table.batch(timestamp=550) as b:
        b.delete(b"r", columns=[b"f:a"])
    # The delete at 550 removed the version at 500 only.
    assert table.cells(b"r", b"f:a", include_timestamp=True) == [(b"newer", 600)]
    assert table.row(b"r") == {b"f:a": b"newer", b"f:b": b"y"}


def test_writes_without_wal(conn, table_name):
    table = make_table(conn, table_name)
    table.put(b"r1", {b"f:a": b"1"}, wal=False)
    with table.batch(wal=False) as b:
        b.put(b"r2", {b"f:a": b"2"})
        b.put(b"r3", {b"f:a": b"3"}, wal=True)
        b.delete(b"r1", wal=False)
    assert table.row(b"r1") == {}
    assert table.row(b"r2") == {b"f:a": b"2"}
    assert table.row(b"r3") == {b"f:a": b"3"}
    table.delete(b"r2", wal=False)
    assert table.row(b"r2") == {}


# ----------------------------------------------------------------------------------------------
# Counters
# ----------------------------------------------------------------------------------------------


def test_counters(conn, table_name):
    table = make_table(conn, table_name)
    assert table.counter_get(b"r", b"f:c") == 0
    assert table.counter_inc(b"r", b"f:c") == 1
    assert table.counter_inc(b"r", b"f:c", value=10) == 11
    assert table.counter_dec(b"r", b"f:c") == 10
    assert table.counter_dec(b"r", b"f:c", value=20) == -10
    assert table.counter_get(b"r", b"f:c") == -10
    # Stored as an 8-byte big-endian signed long, as Java's Bytes.toBytes(long).
    assert table.row(b"r", columns=[b"f:c"]) == {b"f:c": i64(-10)}

    table.counter_set(b"r", b"f:c", 42)
    assert table.counter_get(b"r", b"f:c") == 42
    assert table.counter_inc(b"r", b"f:c", 2**40) == 42 + 2**40

    # The empty qualifier works like any other.
    assert table.counter_inc(b"r", b"g:", 7) == 7
    assert table.row(b"r", columns=[b"g:"]) == {b"g:": i64(7)}


def test_counter_on_a_non_counter_cell_fails(conn, table_name):
    table = make_table(conn, table_name)
    table.put(b"r", {b"f:s": b"abc"})
    with pytest.raises(HB_IOError) as e:
        table.counter_inc(b"r", b"f:s")
    assert "3 bytes wide" in str(e.value.message)
    assert table.row(b"r") == {b"f:s": b"abc"}
    with pytest.raises(HB_IOError):
        table.counter_get(b"r", b"f:s")


# ----------------------------------------------------------------------------------------------
# Scans
# ----------------------------------------------------------------------------------------------


def fill_rows(table, n=20):
    with table.batch() as b:
        for i in range(n):
            b.put(b"r%02d" % i, {b"f:a": b"a%d" % i, b"g:b": b"b%d" % i})


def keys(results):
    return [k for k, _ in results]


def test_scan_ranges_and_prefix(conn, table_name):
    table = make_table(conn, table_name)
    fill_rows(table)
    table.put(b"s", {b"f:a": b"s"})
    everything = list(table.scan())
    assert keys(everything) == [b"r%02d" % i for i in range(20)] + [b"s"]
    assert everything[3] == (b"r03", {b"f:a": b"a3", b"g:b": b"b3"})

    assert keys(table.scan(row_start=b"r05", row_stop=b"r10")) == [b"r%02d" % i for i in range(5, 10)]
    assert keys(table.scan(row_start=b"r18")) == [b"r18", b"r19", b"s"]
    assert keys(table.scan(row_stop=b"r02")) == [b"r00", b"r01"]
    assert keys(table.scan(row_start=b"r045", row_stop=b"r065")) == [b"r05", b"r06"]
    assert keys(table.scan(row_prefix=b"r1")) == [b"r%02d" % i for i in range(10, 20)]
    assert keys(table.scan(row_prefix=b"x")) == []
    assert keys(table.scan(row_start=b"t")) == []


def test_scan_columns(conn, table_name):
    table = make_table(conn, table_name)
    fill_rows(table, 5)
    table.put(b"r02", {b"f:": b"empty"})
    assert list(table.scan(columns=[b"g"]))[0] == (b"r00", {b"g:b": b"b0"})
    assert list(table.scan(columns=[b"f:a"], row_prefix=b"r01")) == [(b"r01", {b"f:a": b"a1"})]
    assert list(table.scan(columns=[b"f:"])) == [(b"r02", {b"f:": b"empty"})]
    assert list(table.scan(columns=[b"f"], row_prefix=b"r02")) == [
        (b"r02", {b"f:a": b"a2", b"f:": b"empty"})
    ]
    # Rows with nothing in the selected columns are not returned.
    assert list(table.scan(columns=[b"g:nope"])) == []


def test_scan_limit_and_batch_size(conn, table_name):
    table = make_table(conn, table_name)
    fill_rows(table, 20)
    expected = keys(table.scan())
    assert keys(table.scan(batch_size=3)) == expected
    assert keys(table.scan(batch_size=1)) == expected
    assert keys(table.scan(limit=7)) == expected[:7]
    assert keys(table.scan(limit=5, batch_size=2)) == expected[:5]
    assert keys(table.scan(limit=100)) == expected
    assert keys(table.scan(row_start=b"r10", limit=3)) == [b"r10", b"r11", b"r12"]


def test_scan_timestamp_and_include_timestamp(conn, table_name):
    table = make_table(conn, table_name)
    table.put(b"r1", {b"f:a": b"old"}, timestamp=10)
    table.put(b"r1", {b"f:a": b"new"}, timestamp=20)
    table.put(b"r2", {b"f:a": b"only-new"}, timestamp=20)
    assert list(table.scan(include_timestamp=True)) == [
        (b"r1", {b"f:a": (b"new", 20)}),
        (b"r2", {b"f:a": (b"only-new", 20)}),
    ]
    # [0, ts): the cells at exactly 20 are not seen.
    assert list(table.scan(timestamp=20)) == [(b"r1", {b"f:a": b"old"})]
    assert list(table.scan(timestamp=21, columns=[b"f:a"])) == [
        (b"r1", {b"f:a": b"new"}),
        (b"r2", {b"f:a": b"only-new"}),
    ]
    assert list(table.scan(timestamp=10)) == []


def test_scan_batching_splits_wide_rows(conn, table_name):
    table = make_table(conn, table_name)
    wide = {b"f:c%02d" % i: b"v%d" % i for i in range(10)}
    table.put(b"a-wide", wide)
    table.put(b"b-narrow", {b"f:x": b"1", b"g:y": b"2"})

    results = list(table.scan(scan_batching=3))
    # HBase's Scan.setBatching: at most 3 cells per result, a wide row spread over several.
    assert keys(results) == [b"a-wide"] * 4 + [b"b-narrow"]
    assert [len(cols) for _, cols in results] == [3, 3, 3, 1, 2]
    merged = {}
    for _, cols in results[:4]:
        merged.update(cols)
    assert merged == wide
    assert results[0][1] == {b"f:c00": b"v0", b"f:c01": b"v1", b"f:c02": b"v2"}
    # Combined with a happybase batch size and a limit (which counts results, not rows).
    assert keys(table.scan(scan_batching=4, batch_size=1)) == [b"a-wide"] * 3 + [b"b-narrow"]
    assert keys(table.scan(scan_batching=3, limit=2)) == [b"a-wide", b"a-wide"]


def test_scan_sorted_columns(conn, table_name):
    table = make_table(conn, table_name)
    table.put(b"r", {b"g:a": b"4", b"f:c": b"3", b"f:a": b"1", b"f:b": b"2"}, timestamp=7)
    [(row, cols)] = list(table.scan(sorted_columns=True))
    assert row == b"r"
    assert isinstance(cols, OrderedDict)
    assert list(cols.items()) == [(b"f:a", b"1"), (b"f:b", b"2"), (b"f:c", b"3"), (b"g:a", b"4")]
    [(_, cols)] = list(table.scan(sorted_columns=True, include_timestamp=True))
    assert list(cols.items())[0] == (b"f:a", (b"1", 7))


def test_scan_reverse(conn, table_name):
    table = make_table(conn, table_name)
    fill_rows(table, 20)
    forward = keys(table.scan())
    assert keys(table.scan(reverse=True)) == forward[::-1]
    # Reversed: row_start is the larger key (inclusive), row_stop the smaller (exclusive).
    assert keys(table.scan(row_start=b"r09", row_stop=b"r04", reverse=True)) == [
        b"r09",
        b"r08",
        b"r07",
        b"r06",
        b"r05",
    ]
    assert keys(table.scan(row_prefix=b"r1", reverse=True)) == [
        b"r%02d" % i for i in range(19, 9, -1)
    ]
    assert keys(table.scan(reverse=True, limit=3, batch_size=2)) == [b"r19", b"r18", b"r17"]
    assert list(table.scan(row_start=b"r01", row_stop=b"r00", reverse=True)) == [
        (b"r01", {b"f:a": b"a1", b"g:b": b"b1"})
    ]


def test_scan_with_filter_string(conn, table_name):
    """happybase's scan(filter=...) runs HBase's filter language on the server (every filter is
    covered by tests/filters); a bad filter string is a clear error, never an unfiltered
    result."""
    table = make_table(conn, table_name)
    fill_rows(table, 20)
    assert keys(table.scan(filter="PrefixFilter('r1')")) == [b"r%02d" % i for i in range(10, 20)]
    assert keys(table.scan(filter="PageFilter(3) AND RowFilter(>=, 'binary:r05')")) == [
        b"r05", b"r06", b"r07"
    ]
    assert dict(table.scan(filter="KeyOnlyFilter() AND PrefixFilter('r00')")) == {
        b"r00": {b"f:a": b"", b"g:b": b""}
    }
    assert keys(table.scan(filter="PrefixFilter('r1')", reverse=True))[:2] == [b"r19", b"r18"]
    with pytest.raises(TApplicationException) as err:
        list(table.scan(filter="PrefixFilter('r1'"))
    assert b"at position 12" in err.value.message
    # The connection and the table still work.
    assert len(list(table.scan())) == 20


# ----------------------------------------------------------------------------------------------
# Deletes
# ----------------------------------------------------------------------------------------------


def test_delete_row_and_columns(conn, table_name):
    table = make_table(conn, table_name)
    for r in (b"r1", b"r2", b"r3"):
        table.put(r, {b"f:a": b"1", b"f:b": b"2", b"g:x": b"3"})
    table.delete(b"r1")
    table.delete(b"r2", columns=[b"f:a", b"g:x"])
    table.delete(b"r3", columns=[b"f"])
    assert table.row(b"r1") == {}
    assert table.row(b"r2") == {b"f:b": b"2"}
    assert table.row(b"r3") == {b"g:x": b"3"}
    assert keys(table.scan()) == [b"r2", b"r3"]
    # Deleting what is not there is not an error.
    table.delete(b"never")
    table.delete(b"r2", columns=[b"f:zzz"])
    assert table.row(b"r2") == {b"f:b": b"2"}


def test_delete_with_timestamp_removes_versions_up_to_it(conn, table_name):
    table = make_table(conn, table_name)
    for ts in (10, 20, 30):
        table.put(b"r", {b"f:a": b"a%d" % ts, b"f:b": b"b%d" % ts, b"g:c": b"c%d" % ts}, timestamp=ts)

    table.delete(b"r", columns=[b"f:a"], timestamp=20)
    assert table.cells(b"r", b"f:a", include_timestamp=True) == [(b"a30", 30)]
    assert table.cells(b"r", b"f:b") == [b"b30", b"b20", b"b10"]

    # A whole-row delete with a timestamp (one family delete per family) keeps newer cells.
    table.delete(b"r", timestamp=25)
    assert table.cells(b"r", b"f:b") == [b"b30"]
    assert table.cells(b"r", b"g:c") == [b"c30"]

    # The delete markers still mask older puts that arrive later.
    table.put(b"r", {b"f:b": b"late"}, timestamp=15)
    assert table.cells(b"r", b"f:b") == [b"b30"]
    table.put(b"r", {b"f:b": b"later"}, timestamp=40)
    assert table.cells(b"r", b"f:b") == [b"later", b"b30"]


# ----------------------------------------------------------------------------------------------
# Connections
# ----------------------------------------------------------------------------------------------


def test_connection_open_close_reopen(server, combo, table_name):
    c = server.happybase(*combo, autoconnect=False)
    c.open()
    make_table(c, table_name).put(b"r", {b"f:a": b"1"})
    c.close()
    c.open()
    assert c.table(table_name).row(b"r") == {b"f:a": b"1"}
    c.close()


@pytest.mark.parametrize("compat", ["0.90", "0.92", "0.94", "0.96"])
def test_compat_modes(server, combo, table_name, compat):
    """Older compat levels make happybase scan with scannerOpen/scannerOpenWithStop(/Ts)."""
    c = server.happybase(*combo, compat=compat)
    try:
        table = make_table(c, table_name)
        for i in range(6):
            table.put(b"r%d" % i, {b"f:a": b"old%d" % i}, timestamp=10)
            table.put(b"r%d" % i, {b"f:a": b"new%d" % i, b"g:b": b"x"}, timestamp=20)
        assert keys(table.scan()) == [b"r%d" % i for i in range(6)]
        assert list(table.scan(row_start=b"r2", row_stop=b"r4", columns=[b"f"])) == [
            (b"r2", {b"f:a": b"new2"}),
            (b"r3", {b"f:a": b"new3"}),
        ]
        assert list(table.scan(row_start=b"r4", timestamp=20)) == [
            (b"r4", {b"f:a": b"old4"}),
            (b"r5", {b"f:a": b"old5"}),
        ]
        assert list(table.scan(row_start=b"r1", row_stop=b"r2", timestamp=21, include_timestamp=True)) == [
            (b"r1", {b"f:a": (b"new1", 20), b"g:b": (b"x", 20)})
        ]
        assert keys(table.scan(row_prefix=b"r3")) == [b"r3"]
        assert keys(table.scan(limit=2, batch_size=1)) == [b"r0", b"r1"]
    finally:
        c.close()


# ----------------------------------------------------------------------------------------------
# Connection pool
# ----------------------------------------------------------------------------------------------


def test_connection_pool_with_threads(server, combo, admin, table_name):
    transport, protocol = combo
    make_table(admin, table_name)
    pool = happybase.ConnectionPool(
        size=3,
        host=server.host,
        port=server.port,
        timeout=10_000,
        transport=transport,
        protocol=protocol,
    )
    threads_n, per_thread = 8, 25
    errors = []

    def work(t):
        try:
            for i in range(per_thread):
                row = b"t%d-%03d" % (t, i)
                with pool.connection() as c:
                    table = c.table(table_name)
                    table.put(row, {b"f:v": row, b"g:t": b"%d" % t})
                    got = table.row(row)
                    if got != {b"f:v": row, b"g:t": b"%d" % t}:
                        errors.append((row, got))
                    table.counter_inc(b"counter", b"f:n")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(threads_n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not any(th.is_alive() for th in threads)
    assert errors == []
    with pool.connection() as c:
        table = c.table(table_name)
        rows = keys(table.scan(row_prefix=b"t"))
        assert len(rows) == threads_n * per_thread
        assert table.counter_get(b"counter", b"f:n") == threads_n * per_thread
