"""Thrift2 data methods against HBase 2.6's behaviour, over every transport x protocol pair.

Every test here runs four times: buffered/framed transport x binary/compact protocol, with a
client generated from idl/hbase2.thrift. Expected results are HBase 2.6's
(thrift2 ThriftHBaseServiceHandler + ThriftUtilities over the HBase client API).
"""

import time

import pytest
from thriftpy2.thrift import TApplicationException

from t2_util import (
    TYPE_PUT,
    T,
    cells,
    col,
    create_table,
    cv,
    drain,
    from_i64,
    i64,
    now_ms,
    put,
    rows_of,
    scan_all,
    versions,
)

TIOError = T.TIOError
TIllegalArgument = T.TIllegalArgument
Del = T.TDeleteType
Op = T.TCompareOperator


@pytest.fixture
def client(combo_client):
    """In this module every test runs over all four transport x protocol pairs."""
    return combo_client


@pytest.fixture
def table(client, table_name):
    """A fresh table with families f and g keeping 5 versions."""
    return create_table(client, table_name, ("f", "g"), maxVersions=5)


def get(client, table, row, **kw):
    return client.get(table, T.TGet(row=row, **kw))


def inc(family, qualifier, amount):
    return T.TColumnIncrement(family=family, qualifier=qualifier, amount=amount)


def put_mutations(row, *column_values):
    """A TRowMutations holding one TPut of `column_values`."""
    return T.TRowMutations(
        row=row, mutations=[T.TMutation(put=T.TPut(row=row, columnValues=list(column_values)))]
    )


def three_versions(client, table, row=b"r", family=b"f", qualifier=b"a"):
    """Writes v10, v20, v30 at timestamps 10, 20, 30."""
    for ts in (10, 20, 30):
        put(client, table, row, [cv(family, qualifier, f"v{ts}".encode(), ts)])


# ----------------------------------------------------------------------------------------------
# get / exists / put
# ----------------------------------------------------------------------------------------------


def test_put_then_get_returns_row_value_timestamp_and_put_type(client, table):
    before = now_ms()
    put(client, table, b"r1", {(b"f", b"a"): b"1", (b"g", b"b"): b"2"})
    after = now_ms()
    r = get(client, table, b"r1")
    assert r.row == b"r1"
    assert cells(r) == {(b"f", b"a"): b"1", (b"g", b"b"): b"2"}
    for c in r.columnValues:
        assert c.type == TYPE_PUT
        assert before - 5000 <= c.timestamp <= after + 5000
    # HBase returns cells sorted by family then qualifier.
    assert [(c.family, c.qualifier) for c in r.columnValues] == [(b"f", b"a"), (b"g", b"b")]


def test_get_missing_row_has_unset_row_and_no_cells(client, table):
    r = get(client, table, b"nope")
    assert r.row is None
    assert r.columnValues == []


def test_get_multiple_is_positional_with_unset_row_for_missing(client, table):
    put(client, table, b"a", {(b"f", b"q"): b"1"})
    put(client, table, b"c", {(b"f", b"q"): b"3"})
    gets = [T.TGet(row=b"c"), T.TGet(row=b"b"), T.TGet(row=b"a"), T.TGet(row=b"zz")]
    res = client.getMultiple(table, gets)
    assert len(res) == 4
    assert [r.row for r in res] == [b"c", None, b"a", None]
    assert cells(res[0]) == {(b"f", b"q"): b"3"}
    assert res[1].columnValues == [] and res[3].columnValues == []
    assert cells(res[2]) == {(b"f", b"q"): b"1"}
    assert client.getMultiple(table, []) == []


def test_exists_and_exists_all(client, table):
    put(client, table, b"r", {(b"f", b"a"): b"1"})
    assert client.exists(table, T.TGet(row=b"r")) is True
    assert client.exists(table, T.TGet(row=b"missing")) is False
    # Restricted to a column the row does not have.
    assert client.exists(table, T.TGet(row=b"r", columns=[col(b"f", b"zz")])) is False
    assert client.exists(table, T.TGet(row=b"r", columns=[col(b"f", b"a")])) is True
    got = client.existsAll(
        table,
        [T.TGet(row=b"missing"), T.TGet(row=b"r"), T.TGet(row=b"r", columns=[col(b"g")])],
    )
    assert got == [False, True, False]


def test_get_columns_by_family_and_by_qualifier(client, table):
    put(client, table, b"r", {(b"f", b"a"): b"1", (b"f", b"b"): b"2", (b"g", b"c"): b"3"})
    r = get(client, table, b"r", columns=[col(b"g")])
    assert cells(r) == {(b"g", b"c"): b"3"}
    r = get(client, table, b"r", columns=[col(b"f", b"b"), col(b"g", b"c")])
    assert cells(r) == {(b"f", b"b"): b"2", (b"g", b"c"): b"3"}


def test_tput_timestamp_is_default_for_cells_without_one(client, table):
    cvs = [cv(b"f", b"a", b"x"), cv(b"f", b"b", b"y", ts=200)]
    client.put(table, T.TPut(row=b"r", columnValues=cvs, timestamp=100))
    r = get(client, table, b"r")
    assert {(c.qualifier, c.timestamp) for c in r.columnValues} == {(b"a", 100), (b"b", 200)}


def test_put_multiple_writes_every_row(client, table):
    puts = [
        T.TPut(row=f"r{i}".encode(), columnValues=[cv(b"f", b"a", bytes([i]))]) for i in range(5)
    ]
    assert client.putMultiple(table, puts) is None
    res = client.getMultiple(table, [T.TGet(row=f"r{i}".encode()) for i in range(5)])
    assert [cells(r) for r in res] == [{(b"f", b"a"): bytes([i])} for i in range(5)]


def test_empty_put_is_an_error_and_the_connection_survives(client, table):
    with pytest.raises((TApplicationException, TIOError)):
        client.put(table, T.TPut(row=b"r", columnValues=[]))
    put(client, table, b"r", {(b"f", b"a"): b"ok"})
    assert cells(get(client, table, b"r")) == {(b"f", b"a"): b"ok"}


def test_put_multiple_with_an_empty_put_writes_nothing(client, table):
    # As observed on HBase 2.6.1 (docs/oracle.md): the client-side check fails the whole call
    # before any row is written.
    good = T.TPut(row=b"good", columnValues=[T.TColumnValue(family=b"f", qualifier=b"a", value=b"1")])
    empty = T.TPut(row=b"empty", columnValues=[])
    with pytest.raises(TApplicationException):
        client.putMultiple(table, [good, empty])
    assert get(client, table, b"good").row is None


def test_put_to_unknown_family_is_tioerror(client, table):
    with pytest.raises(TIOError):
        put(client, table, b"r", {(b"nosuch", b"a"): b"1"})
    assert get(client, table, b"r").row is None


def test_get_on_missing_table_is_tioerror(client):
    with pytest.raises(TIOError):
        client.get(b"no_such_table_t2", T.TGet(row=b"r"))


# ----------------------------------------------------------------------------------------------
# Versions and time ranges
# ----------------------------------------------------------------------------------------------


def test_max_versions_newest_first(client, table):
    three_versions(client, table)
    assert versions(get(client, table, b"r")) == [(b"v30", 30)]
    assert versions(get(client, table, b"r", maxVersions=2)) == [(b"v30", 30), (b"v20", 20)]
    assert versions(get(client, table, b"r", maxVersions=10)) == [
        (b"v30", 30),
        (b"v20", 20),
        (b"v10", 10),
    ]


def test_time_range_is_min_inclusive_max_exclusive(client, table):
    three_versions(client, table)
    tr = T.TTimeRange(minStamp=10, maxStamp=30)
    assert versions(get(client, table, b"r", timeRange=tr, maxVersions=5)) == [
        (b"v20", 20),
        (b"v10", 10),
    ]
    # Only the newest version inside the range without maxVersions.
    assert versions(get(client, table, b"r", timeRange=tr)) == [(b"v20", 20)]
    tr = T.TTimeRange(minStamp=11, maxStamp=20)
    assert get(client, table, b"r", timeRange=tr).row is None


def test_timestamp_selects_exactly_one_version_and_overrides_time_range(client, table):
    three_versions(client, table)
    assert versions(get(client, table, b"r", timestamp=20, maxVersions=5)) == [(b"v20", 20)]
    # Both set: the timestamp wins over the range (which would otherwise give v30).
    tr = T.TTimeRange(minStamp=25, maxStamp=100)
    assert versions(get(client, table, b"r", timestamp=10, timeRange=tr)) == [(b"v10", 10)]
    assert get(client, table, b"r", timestamp=15).row is None


def test_scan_time_range_and_default_max_versions(client, table):
    three_versions(client, table, row=b"r1")
    three_versions(client, table, row=b"r2")
    res = scan_all(client, table)
    assert [versions(r) for r in res] == [[(b"v30", 30)], [(b"v30", 30)]]
    res = scan_all(client, table, timeRange=T.TTimeRange(minStamp=10, maxStamp=30), maxVersions=5)
    assert [versions(r) for r in res] == [[(b"v20", 20), (b"v10", 10)]] * 2


def test_scan_per_family_time_ranges(client, table):
    for ts in (10, 20, 30):
        put(
            client,
            table,
            b"r",
            [cv(b"f", b"a", f"f{ts}".encode(), ts), cv(b"g", b"a", f"g{ts}".encode(), ts)],
        )
    res = scan_all(
        client,
        table,
        maxVersions=5,
        colFamTimeRangeMap={b"f": T.TTimeRange(minStamp=10, maxStamp=20)},
    )
    assert len(res) == 1
    assert versions(res[0], b"f", b"a") == [(b"f10", 10)]
    # A family without its own range is not restricted.
    assert versions(res[0], b"g", b"a") == [(b"g30", 30), (b"g20", 20), (b"g10", 10)]


def test_store_limit_and_store_offset(client, table):
    quals = [b"a", b"b", b"c", b"d", b"e"]
    put(client, table, b"r", [cv(fam, q, fam + q) for fam in (b"f", b"g") for q in quals])

    def got(**kw):
        return [(c.family, c.qualifier) for c in get(client, table, b"r", **kw).columnValues]

    assert got(storeLimit=2) == [(b"f", b"a"), (b"f", b"b"), (b"g", b"a"), (b"g", b"b")]
    assert got(storeOffset=3) == [(b"f", b"d"), (b"f", b"e"), (b"g", b"d"), (b"g", b"e")]
    assert got(storeLimit=2, storeOffset=1) == [
        (b"f", b"b"),
        (b"f", b"c"),
        (b"g", b"b"),
        (b"g", b"c"),
    ]
    assert got(storeOffset=5) == []


def test_tget_ignores_column_timestamps(client, table):
    # HBase's getFromThrift ignores TColumn.timestamp: only TGet.timestamp/timeRange select.
    three_versions(client, table)
    r = get(client, table, b"r", columns=[col(b"f", b"a", ts=10)])
    assert versions(r) == [(b"v30", 30)]


def test_existence_only_get_carries_no_cells(client, table):
    put(client, table, b"r", {(b"f", b"a"): b"1"})
    r = get(client, table, b"r", existence_only=True)
    assert r.columnValues == []
    r = get(client, table, b"missing", existence_only=True)
    assert r.columnValues == []
    assert r.row is None


def test_ttl_attribute_gives_put_cells_a_time_to_live(client, table):
    now = now_ms()
    # A cell written 10 s ago with a 5 s TTL is already expired; one with 10 min is not.
    old = T.TPut(
        row=b"r",
        columnValues=[cv(b"f", b"old", b"x", now - 10_000)],
        attributes={b"_ttl": i64(5_000)},
    )
    fresh = T.TPut(
        row=b"r",
        columnValues=[cv(b"f", b"fresh", b"y", now - 10_000)],
        attributes={b"_ttl": i64(600_000)},
    )
    client.putMultiple(table, [old, fresh])
    put(client, table, b"r", [cv(b"f", b"plain", b"z", now - 10_000)])
    assert cells(get(client, table, b"r")) == {(b"f", b"fresh"): b"y", (b"f", b"plain"): b"z"}


def test_ttl_attribute_of_wrong_width_is_an_error(client, table):
    bad = T.TPut(row=b"r", columnValues=[cv(b"f", b"a", b"x")], attributes={b"_ttl": b"\x01\x02"})
    with pytest.raises((TApplicationException, TIOError)):
        client.put(table, bad)
    assert get(client, table, b"r").row is None


def test_ttl_attribute_expires_a_current_cell(client, table):
    client.put(
        table,
        T.TPut(row=b"r", columnValues=[cv(b"f", b"a", b"x")], attributes={b"_ttl": i64(400)}),
    )
    deadline = time.monotonic() + 10
    while get(client, table, b"r").row is not None:
        assert time.monotonic() < deadline, "a cell with a 400 ms TTL still visible after 10 s"
        time.sleep(0.1)


# ----------------------------------------------------------------------------------------------
# Deletes
# ----------------------------------------------------------------------------------------------


def delete(client, table, row, columns=None, kind=None, ts=None):
    d = T.TDelete(row=row, columns=columns, timestamp=ts)
    if kind is not None:
        d.deleteType = kind
    client.deleteSingle(table, d)


def test_delete_column_without_timestamp_removes_only_the_newest_version(client, table):
    three_versions(client, table)
    delete(client, table, b"r", [col(b"f", b"a")], Del.DELETE_COLUMN)
    assert versions(get(client, table, b"r", maxVersions=5)) == [(b"v20", 20), (b"v10", 10)]


def test_delete_column_with_timestamp_removes_exactly_that_version(client, table):
    three_versions(client, table)
    delete(client, table, b"r", [col(b"f", b"a", ts=20)], Del.DELETE_COLUMN)
    assert versions(get(client, table, b"r", maxVersions=5)) == [(b"v30", 30), (b"v10", 10)]


def test_delete_columns_is_the_default_and_removes_every_version(client, table):
    three_versions(client, table)
    put(client, table, b"r", {(b"f", b"b"): b"keep"})
    assert T.TDelete(row=b"r").deleteType == Del.DELETE_COLUMNS
    client.deleteSingle(table, T.TDelete(row=b"r", columns=[col(b"f", b"a")]))
    r = get(client, table, b"r", maxVersions=5)
    assert cells(r) == {(b"f", b"b"): b"keep"}


def test_delete_columns_with_timestamp_removes_versions_up_to_it(client, table):
    three_versions(client, table)
    delete(client, table, b"r", [col(b"f", b"a", ts=20)], Del.DELETE_COLUMNS)
    assert versions(get(client, table, b"r", maxVersions=5)) == [(b"v30", 30)]


@pytest.mark.parametrize("kind", [Del.DELETE_COLUMN, Del.DELETE_COLUMNS], ids=["COLUMN", "COLUMNS"])
def test_family_only_column_with_column_delete_touches_only_empty_qualifier(client, table, kind):
    put(client, table, b"r", {(b"f", b""): b"empty", (b"f", b"a"): b"1", (b"g", b""): b"g"})
    delete(client, table, b"r", [col(b"f")], kind)
    assert cells(get(client, table, b"r")) == {(b"f", b"a"): b"1", (b"g", b""): b"g"}


def test_delete_family_removes_the_family_only(client, table):
    put(client, table, b"r", {(b"f", b""): b"0", (b"f", b"a"): b"1", (b"g", b"b"): b"2"})
    delete(client, table, b"r", [col(b"f")], Del.DELETE_FAMILY)
    assert cells(get(client, table, b"r")) == {(b"g", b"b"): b"2"}


def test_delete_family_with_timestamp_removes_versions_up_to_it(client, table):
    three_versions(client, table, qualifier=b"a")
    three_versions(client, table, qualifier=b"b")
    delete(client, table, b"r", [col(b"f", ts=20)], Del.DELETE_FAMILY)
    r = get(client, table, b"r", maxVersions=5)
    assert versions(r, b"f", b"a") == [(b"v30", 30)]
    assert versions(r, b"f", b"b") == [(b"v30", 30)]


def test_delete_family_version_removes_that_timestamp_in_every_column(client, table):
    three_versions(client, table, qualifier=b"a")
    three_versions(client, table, qualifier=b"b")
    three_versions(client, table, family=b"g", qualifier=b"a")
    delete(client, table, b"r", [col(b"f", ts=20)], Del.DELETE_FAMILY_VERSION)
    r = get(client, table, b"r", maxVersions=5)
    assert versions(r, b"f", b"a") == [(b"v30", 30), (b"v10", 10)]
    assert versions(r, b"f", b"b") == [(b"v30", 30), (b"v10", 10)]
    assert versions(r, b"g", b"a") == [(b"v30", 30), (b"v20", 20), (b"v10", 10)]


def test_delete_family_version_without_timestamp_is_an_error(client, table):
    three_versions(client, table)
    # HBase: IllegalArgumentException "Timestamp is required for TDelete with
    # DeleteFamilyVersion type", which reaches the client as a TApplicationException.
    with pytest.raises((TApplicationException, TIOError)) as err:
        delete(client, table, b"r", [col(b"f")], Del.DELETE_FAMILY_VERSION)
    assert "imestamp" in str(err.value)
    assert len(versions(get(client, table, b"r", maxVersions=5))) == 3


def test_delete_without_columns_deletes_the_whole_row(client, table):
    three_versions(client, table)
    put(client, table, b"r", {(b"g", b"x"): b"1"})
    put(client, table, b"other", {(b"f", b"a"): b"keep"})
    client.deleteSingle(table, T.TDelete(row=b"r"))
    assert get(client, table, b"r").row is None
    assert cells(get(client, table, b"other")) == {(b"f", b"a"): b"keep"}


def test_delete_row_with_timestamp_removes_versions_up_to_it(client, table):
    three_versions(client, table)
    put(client, table, b"r", [cv(b"g", b"x", b"g15", 15), cv(b"g", b"y", b"g25", 25)])
    client.deleteSingle(table, T.TDelete(row=b"r", timestamp=20))
    r = get(client, table, b"r", maxVersions=5)
    assert versions(r) == [(b"v30", 30)]
    assert cells(r) == {(b"f", b"a"): b"v30", (b"g", b"y"): b"g25"}


def test_delete_multiple_returns_empty_list_and_deletes_all(client, table):
    for r in (b"a", b"b", b"c"):
        put(client, table, r, {(b"f", b"q"): r})
    out = client.deleteMultiple(
        table, [T.TDelete(row=b"a"), T.TDelete(row=b"c", columns=[col(b"f", b"q")])]
    )
    assert out == []
    assert rows_of(scan_all(client, table)) == [b"b"]


def test_delete_masks_later_put_with_older_timestamp(client, table):
    now = now_ms()
    put(client, table, b"r", [cv(b"f", b"a", b"v1", now - 1000)])
    client.deleteSingle(table, T.TDelete(row=b"r"))
    # A put arriving after the delete but stamped before it stays hidden.
    put(client, table, b"r", [cv(b"f", b"a", b"late-but-old", now - 500)])
    assert get(client, table, b"r").row is None
    # A put stamped after the delete is visible.
    put(client, table, b"r", [cv(b"f", b"a", b"new", now + 60_000)])
    assert cells(get(client, table, b"r")) == {(b"f", b"a"): b"new"}


def test_column_delete_marker_masks_later_put_at_or_below_its_timestamp(client, table):
    delete(client, table, b"r", [col(b"f", b"a", ts=50)], Del.DELETE_COLUMNS)
    put(client, table, b"r", [cv(b"f", b"a", b"at40", 40)])
    put(client, table, b"r", [cv(b"f", b"a", b"at50", 50)])
    assert get(client, table, b"r").row is None
    put(client, table, b"r", [cv(b"f", b"a", b"at60", 60)])
    assert versions(get(client, table, b"r", maxVersions=5)) == [(b"at60", 60)]


# ----------------------------------------------------------------------------------------------
# increment / append
# ----------------------------------------------------------------------------------------------


def test_increment_creates_from_zero_and_returns_new_values(client, table):
    increment = T.TIncrement(
        row=b"r",
        columns=[inc(b"f", b"n", 5), T.TColumnIncrement(family=b"g", qualifier=b"m")],
    )
    assert T.TColumnIncrement(family=b"f", qualifier=b"x").amount == 1
    r = client.increment(table, increment)
    assert r.row == b"r"
    assert {(c.family, c.qualifier): from_i64(c.value) for c in r.columnValues} == {
        (b"f", b"n"): 5,
        (b"g", b"m"): 1,
    }
    assert all(c.timestamp is not None and c.timestamp > 0 for c in r.columnValues)
    r = client.increment(table, T.TIncrement(row=b"r", columns=[inc(b"f", b"n", -7)]))
    assert [from_i64(c.value) for c in r.columnValues] == [-2]
    assert cells(get(client, table, b"r"))[(b"f", b"n")] == i64(-2)


def test_increment_return_results_false_returns_empty_result(client, table):
    increment = T.TIncrement(
        row=b"r", columns=[inc(b"f", b"n", 3)], returnResults=False
    )
    r = client.increment(table, increment)
    assert r.columnValues == []
    assert r.row is None
    assert cells(get(client, table, b"r")) == {(b"f", b"n"): i64(3)}


def test_increment_of_non_long_value_is_tioerror(client, table):
    put(client, table, b"r", {(b"f", b"n"): b"abc"})
    with pytest.raises(TIOError) as err:
        client.increment(table, T.TIncrement(row=b"r", columns=[inc(b"f", b"n", 1)]))
    assert "Field is not a long" in (err.value.message or "")
    assert cells(get(client, table, b"r")) == {(b"f", b"n"): b"abc"}


def test_append_creates_and_concatenates(client, table):
    app = T.TAppend(row=b"r", columns=[cv(b"f", b"s", b"abc"), cv(b"g", b"t", b"x")])
    r = client.append(table, app)
    assert r.row == b"r"
    assert cells(r) == {(b"f", b"s"): b"abc", (b"g", b"t"): b"x"}
    r = client.append(table, T.TAppend(row=b"r", columns=[cv(b"f", b"s", b"def")]))
    assert cells(r) == {(b"f", b"s"): b"abcdef"}
    assert cells(get(client, table, b"r")) == {(b"f", b"s"): b"abcdef", (b"g", b"t"): b"x"}


def test_append_return_results_false_returns_empty_result(client, table):
    put(client, table, b"r", {(b"f", b"s"): b"12"})
    app = T.TAppend(row=b"r", columns=[cv(b"f", b"s", b"34")], returnResults=False)
    r = client.append(table, app)
    assert r.columnValues == []
    assert cells(get(client, table, b"r")) == {(b"f", b"s"): b"1234"}


# ----------------------------------------------------------------------------------------------
# check-and-mutate family, mutateRow
# ----------------------------------------------------------------------------------------------


def test_check_and_put(client, table):
    put(client, table, b"r", {(b"f", b"c"): b"1"})
    p = T.TPut(row=b"r", columnValues=[cv(b"f", b"x", b"A")])
    assert client.checkAndPut(table, b"r", b"f", b"c", b"2", p) is False
    assert (b"f", b"x") not in cells(get(client, table, b"r"))
    assert client.checkAndPut(table, b"r", b"f", b"c", b"1", p) is True
    assert cells(get(client, table, b"r"))[(b"f", b"x")] == b"A"


def test_check_and_put_unset_value_means_must_not_exist(client, table):
    p = T.TPut(row=b"r", columnValues=[cv(b"f", b"c", b"first")])
    assert client.checkAndPut(table, b"r", b"f", b"c", None, p) is True
    p2 = T.TPut(row=b"r", columnValues=[cv(b"f", b"c", b"second")])
    assert client.checkAndPut(table, b"r", b"f", b"c", None, p2) is False
    assert cells(get(client, table, b"r")) == {(b"f", b"c"): b"first"}


def test_check_and_delete(client, table):
    put(client, table, b"r", {(b"f", b"c"): b"1", (b"f", b"x"): b"X"})
    d = T.TDelete(row=b"r", columns=[col(b"f", b"x")])
    assert client.checkAndDelete(table, b"r", b"f", b"c", b"nope", d) is False
    assert (b"f", b"x") in cells(get(client, table, b"r"))
    assert client.checkAndDelete(table, b"r", b"f", b"c", b"1", d) is True
    assert cells(get(client, table, b"r")) == {(b"f", b"c"): b"1"}


def test_check_and_delete_unset_value_means_must_not_exist(client, table):
    put(client, table, b"r", {(b"f", b"x"): b"X"})
    d = T.TDelete(row=b"r", columns=[col(b"f", b"x")])
    # f:c exists -> no delete; f:missing does not -> delete.
    put(client, table, b"r", {(b"f", b"c"): b"1"})
    assert client.checkAndDelete(table, b"r", b"f", b"c", None, d) is False
    assert (b"f", b"x") in cells(get(client, table, b"r"))
    assert client.checkAndDelete(table, b"r", b"f", b"missing", None, d) is True
    assert (b"f", b"x") not in cells(get(client, table, b"r"))


# HBase compares the value in the request against the stored one: `given <op> stored`.
COMPARE_CASES = [
    (b"3", Op.LESS, True),
    (b"5", Op.LESS, False),
    (b"7", Op.LESS, False),
    (b"3", Op.LESS_OR_EQUAL, True),
    (b"5", Op.LESS_OR_EQUAL, True),
    (b"7", Op.LESS_OR_EQUAL, False),
    (b"3", Op.EQUAL, False),
    (b"5", Op.EQUAL, True),
    (b"7", Op.EQUAL, False),
    (b"3", Op.NOT_EQUAL, True),
    (b"5", Op.NOT_EQUAL, False),
    (b"7", Op.NOT_EQUAL, True),
    (b"3", Op.GREATER_OR_EQUAL, False),
    (b"5", Op.GREATER_OR_EQUAL, True),
    (b"7", Op.GREATER_OR_EQUAL, True),
    (b"3", Op.GREATER, False),
    (b"5", Op.GREATER, False),
    (b"7", Op.GREATER, True),
]


def test_check_and_mutate_every_compare_operator(client, table):
    put(client, table, b"r", {(b"f", b"c"): b"5"})
    wrong = []
    for i, (given, op, expected) in enumerate(COMPARE_CASES):
        marker = f"m{i}".encode()
        rm = put_mutations(b"r", cv(b"g", marker, b"1"))
        got = client.checkAndMutate(table, b"r", b"f", b"c", op, given, rm)
        applied = (b"g", marker) in cells(get(client, table, b"r", columns=[col(b"g", marker)]))
        if got is not expected or applied != expected:
            wrong.append((given, op, expected, got, applied))
    assert not wrong, f"(given, op, expected, returned, applied): {wrong}"


def test_check_and_mutate_applies_puts_and_deletes_together(client, table):
    put(client, table, b"r", {(b"f", b"c"): b"go", (b"f", b"old"): b"o"})
    rm = T.TRowMutations(
        row=b"r",
        mutations=[
            T.TMutation(put=T.TPut(row=b"r", columnValues=[cv(b"f", b"new", b"n")])),
            T.TMutation(deleteSingle=T.TDelete(row=b"r", columns=[col(b"f", b"old")])),
        ],
    )
    assert client.checkAndMutate(table, b"r", b"f", b"c", Op.EQUAL, b"stop", rm) is False
    assert cells(get(client, table, b"r")) == {(b"f", b"c"): b"go", (b"f", b"old"): b"o"}
    assert client.checkAndMutate(table, b"r", b"f", b"c", Op.EQUAL, b"go", rm) is True
    assert cells(get(client, table, b"r")) == {(b"f", b"c"): b"go", (b"f", b"new"): b"n"}


def test_check_and_mutate_unset_value_means_must_not_exist(client, table):
    rm = put_mutations(b"r", cv(b"f", b"c", b"1"))
    assert client.checkAndMutate(table, b"r", b"f", b"c", Op.EQUAL, None, rm) is True
    rm2 = put_mutations(b"r", cv(b"f", b"c", b"2"))
    assert client.checkAndMutate(table, b"r", b"f", b"c", Op.EQUAL, None, rm2) is False
    assert cells(get(client, table, b"r")) == {(b"f", b"c"): b"1"}


def test_check_and_mutate_no_op_operator_is_an_error(client, table):
    put(client, table, b"r", {(b"f", b"c"): b"5"})
    rm = put_mutations(b"r", cv(b"f", b"x", b"1"))
    with pytest.raises((TApplicationException, TIOError)):
        client.checkAndMutate(table, b"r", b"f", b"c", Op.NO_OP, b"5", rm)
    assert cells(get(client, table, b"r")) == {(b"f", b"c"): b"5"}


def test_check_and_put_for_another_row_is_tioerror(client, table):
    put(client, table, b"r", {(b"f", b"c"): b"1"})
    p = T.TPut(row=b"other", columnValues=[cv(b"f", b"x", b"X")])
    with pytest.raises(TIOError):
        client.checkAndPut(table, b"r", b"f", b"c", b"1", p)
    assert get(client, table, b"other").row is None


def test_mutate_row_applies_puts_and_deletes(client, table):
    put(client, table, b"r", {(b"f", b"old"): b"o", (b"g", b"keep"): b"k"})
    rm = T.TRowMutations(
        row=b"r",
        mutations=[
            T.TMutation(deleteSingle=T.TDelete(row=b"r", columns=[col(b"f", b"old")])),
            T.TMutation(
                put=T.TPut(row=b"r", columnValues=[cv(b"f", b"new", b"n"), cv(b"g", b"x", b"y")])
            ),
        ],
    )
    assert client.mutateRow(table, rm) is None
    assert cells(get(client, table, b"r")) == {
        (b"f", b"new"): b"n",
        (b"g", b"keep"): b"k",
        (b"g", b"x"): b"y",
    }


def test_mutate_row_is_atomic(client, table):
    put(client, table, b"r", {(b"f", b"a"): b"before"})
    rm = T.TRowMutations(
        row=b"r",
        mutations=[
            T.TMutation(put=T.TPut(row=b"r", columnValues=[cv(b"f", b"a", b"after")])),
            T.TMutation(deleteSingle=T.TDelete(row=b"r", columns=[col(b"f", b"a")])),
            T.TMutation(put=T.TPut(row=b"r", columnValues=[cv(b"nosuch", b"x", b"1")])),
        ],
    )
    with pytest.raises(TIOError):
        client.mutateRow(table, rm)
    assert cells(get(client, table, b"r")) == {(b"f", b"a"): b"before"}


# ----------------------------------------------------------------------------------------------
# Scanners
# ----------------------------------------------------------------------------------------------


def fill_rows(client, table, n=6):
    for i in range(n):
        put(client, table, f"row{i}".encode(), {(b"f", b"a"): str(i).encode(), (b"g", b"b"): b"g"})


def test_open_scanner_get_rows_in_chunks_and_close(client, table):
    fill_rows(client, table, 7)
    sid = client.openScanner(table, T.TScan(caching=2))
    assert isinstance(sid, int)
    first = client.getScannerRows(sid, 3)
    second = client.getScannerRows(sid, 3)
    third = client.getScannerRows(sid, 3)
    assert rows_of(first) == [b"row0", b"row1", b"row2"]
    assert rows_of(second) == [b"row3", b"row4", b"row5"]
    assert rows_of(third) == [b"row6"]
    assert client.getScannerRows(sid, 3) == []
    assert cells(first[1]) == {(b"f", b"a"): b"1", (b"g", b"b"): b"g"}
    assert client.closeScanner(sid) is None


def test_get_scanner_rows_default_num_rows_is_one(client, table):
    fill_rows(client, table, 3)
    sid = client.openScanner(table, T.TScan())
    try:
        assert rows_of(client.getScannerRows(sid)) == [b"row0"]
    finally:
        client.closeScanner(sid)


def test_scan_start_stop_columns_reversed_and_limit(client, table):
    fill_rows(client, table, 6)
    assert rows_of(scan_all(client, table, startRow=b"row2", stopRow=b"row4")) == [b"row2", b"row3"]
    res = scan_all(client, table, startRow=b"row4", columns=[col(b"g")])
    assert rows_of(res) == [b"row4", b"row5"]
    assert all(set(cells(r)) == {(b"g", b"b")} for r in res)
    # Reversed: start at the larger key, stop (exclusive) at the smaller.
    assert rows_of(scan_all(client, table, startRow=b"row3", stopRow=b"row0", reversed=True)) == [
        b"row3",
        b"row2",
        b"row1",
    ]
    assert rows_of(scan_all(client, table, limit=2)) == [b"row0", b"row1"]


def test_scanner_batch_size_splits_wide_row_and_sets_partial(client, table):
    put(client, table, b"wide", [cv(b"f", f"q{i}".encode(), b"v") for i in range(5)])
    put(client, table, b"x", {(b"f", b"a"): b"1"})
    sid = client.openScanner(table, T.TScan(batchSize=2))
    try:
        res = drain(client, sid, 10)
    finally:
        client.closeScanner(sid)
    assert rows_of(res) == [b"wide", b"wide", b"wide", b"x"]
    assert [len(r.columnValues) for r in res] == [2, 2, 1, 1]
    assert [r.partial for r in res] == [True, True, False, False]
    quals = [c.qualifier for r in res[:3] for c in r.columnValues]
    assert quals == [f"q{i}".encode() for i in range(5)]


def test_get_scanner_rows_unknown_id_is_illegal_argument(client, table):
    with pytest.raises(TIllegalArgument) as err:
        client.getScannerRows(987654, 1)
    assert err.value.message == "Invalid scanner Id"


def test_get_scanner_rows_after_close_is_illegal_argument(client, table):
    fill_rows(client, table, 2)
    sid = client.openScanner(table, T.TScan())
    client.closeScanner(sid)
    with pytest.raises(TIllegalArgument):
        client.getScannerRows(sid, 1)


def test_close_scanner_unknown_id_succeeds(client):
    assert client.closeScanner(13572468) is None
    # And the connection still works.
    assert client.getThriftServerType() == T.TThriftServerType.TWO


def test_get_scanner_results_one_shot(client, table):
    fill_rows(client, table, 5)
    res = client.getScannerResults(table, T.TScan(startRow=b"row1"), 3)
    assert rows_of(res) == [b"row1", b"row2", b"row3"]
    res = client.getScannerResults(table, T.TScan(startRow=b"row1", stopRow=b"row3"), 10)
    assert rows_of(res) == [b"row1", b"row2"]
    # numRows defaults to 1.
    assert rows_of(client.getScannerResults(table, T.TScan())) == [b"row0"]


def test_scan_on_missing_table_is_tioerror(client):
    with pytest.raises(TIOError):
        client.openScanner(b"no_such_table_t2", T.TScan())
