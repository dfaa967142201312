"""The filter language over Thrift1, through happybase's `Table.scan(filter=...)` (which opens a
scanner with scannerOpenWithScan). Expected rows are what HBase 2.6 returns for the same table."""

import struct

import pytest
from thriftpy2.thrift import TApplicationException

from f_util import hbase2  # noqa: F401  (loads the IDL once for the session)

import Hbase_thrift  # happybase's generated module

# (filter string, {row: {column: value}}) over the table of f_util.ROWS.
CASES = [
    ("KeyOnlyFilter()", "keys", None),
    ("FirstKeyOnlyFilter()", {
        b"a1": {b"f:a": b"1"}, b"a2": {b"f:a": b"new"}, b"b1": {b"f:a": b"1"},
        b"b2": {b"g:c": b"World"}, b"c1": {b"f:x": b"abc"},
    }, None),
    ("PrefixFilter('b')", {b"b1": {b"f:a": b"1", b"g:d": b"hello"}, b"b2": {b"g:c": b"World"}}, None),
    ("ColumnPrefixFilter('b')", {b"a1": {b"f:b": b"2"}, b"a2": {b"f:b": b"z"}}, None),
    ("MultipleColumnPrefixFilter('y', 'd')", {b"b1": {b"g:d": b"hello"}, b"c1": {b"f:y": b"abd"}}, None),
    ("ColumnCountGetFilter(2)", {b"a1": {b"f:a": b"1", b"f:b": b"2"}}, None),
    ("PageFilter(2)", None, [b"a1", b"a2"]),
    ("ColumnPaginationFilter(1, 1)", {
        b"a1": {b"f:b": b"2"}, b"a2": {b"f:b": b"z"}, b"b1": {b"g:d": b"hello"}, b"c1": {b"f:y": b"abd"},
    }, None),
    ("InclusiveStopFilter('b1')", None, [b"a1", b"a2", b"b1"]),
    ("TimestampsFilter(3, 5)", {b"b1": {b"g:d": b"hello"}, b"b2": {b"g:c": b"World"}}, None),
    ("RowFilter(>=, 'binary:b2')", None, [b"b2", b"c1"]),
    ("RowFilter(=, 'regexstring:^.1$')", None, [b"a1", b"b1", b"c1"]),
    ("FamilyFilter(=, 'binary:g')", {
        b"a1": {b"g:c": b"3"}, b"b1": {b"g:d": b"hello"}, b"b2": {b"g:c": b"World"},
    }, None),
    ("QualifierFilter(>=, 'binary:y')", {b"c1": {b"f:y": b"abd", b"f:z": b"xyz"}}, None),
    ("ValueFilter(=, 'substring:WOR')", {b"b2": {b"g:c": b"World"}}, None),
    ("ValueFilter(=, 'regexstringnocase:^ab')", {b"c1": {b"f:x": b"abc", b"f:y": b"abd"}}, None),
    ("ColumnRangeFilter('x', false, 'z', true)", {b"c1": {b"f:y": b"abd", b"f:z": b"xyz"}}, None),
    ("SingleColumnValueFilter('f', 'a', =, 'binary:1', true, true)", {
        b"a1": {b"f:a": b"1", b"f:b": b"2", b"g:c": b"3"}, b"b1": {b"f:a": b"1", b"g:d": b"hello"},
    }, None),
    ("SingleColumnValueExcludeFilter('f', 'a', =, 'binary:1', true, true)", {
        b"a1": {b"f:b": b"2", b"g:c": b"3"}, b"b1": {b"g:d": b"hello"},
    }, None),
    ("DependentColumnFilter('f', 'a')", {
        b"a1": {b"f:a": b"1", b"f:b": b"2", b"g:c": b"3"},
        # f:a@1 (an older version, not returned) still lends its timestamp to f:b@1.
        b"a2": {b"f:a": b"new", b"f:b": b"z"}, b"b1": {b"f:a": b"1"},
    }, None),
    ("ColumnValueFilter('f', 'a', =, 'binary:1')", {b"a1": {b"f:a": b"1"}, b"b1": {b"f:a": b"1"}}, None),
]


@pytest.mark.parametrize("text,expected,keys", CASES, ids=[c[0].split("(")[0] for c in CASES])
def test_each_filter_over_thrift1(hb, table_name, text, expected, keys):
    rows = dict(hb.table(table_name).scan(filter=text))
    if expected == "keys":
        assert list(rows) == [b"a1", b"a2", b"b1", b"b2", b"c1"]
        assert all(v == b"" for data in rows.values() for v in data.values())
        assert set(rows[b"a1"]) == {b"f:a", b"f:b", b"g:c"}
    elif keys is not None:
        assert list(rows) == keys
    else:
        assert rows == expected


def test_key_only_with_length_as_value(hb, table_name):
    rows = dict(hb.table(table_name).scan(filter="KeyOnlyFilter(true)"))
    assert rows[b"b2"] == {b"g:c": struct.pack(">i", 5)}


def test_combinations(hb, table_name):
    t = hb.table(table_name)
    keys = lambda f, **kw: [k for k, _ in t.scan(filter=f, **kw)]  # noqa: E731
    assert keys("PrefixFilter('a') AND ValueFilter(=, 'binary:z')") == [b"a2"]
    assert keys("PrefixFilter('c') OR RowFilter(=, 'binary:a1')") == [b"a1", b"c1"]
    assert keys("SKIP ValueFilter(!=, 'binary:1')") == [b"a2", b"b2", b"c1"]
    assert keys("WHILE RowFilter(<, 'binary:b2')") == [b"a1", b"a2", b"b1"]
    assert keys("(PageFilter(3) AND KeyOnlyFilter()) OR RowFilter(=, 'binary:zz')") == [
        b"a1", b"a2", b"b1",
    ]


def test_reversed_and_bounded_scans(hb, table_name):
    t = hb.table(table_name)
    assert [k for k, _ in t.scan(filter="PrefixFilter('b')", reverse=True)] == [b"b2", b"b1"]
    assert [k for k, _ in t.scan(filter="InclusiveStopFilter('b1')", reverse=True)] == [
        b"c1", b"b2", b"b1",
    ]
    assert [k for k, _ in t.scan(row_start=b"a2", row_stop=b"c", filter="PageFilter(2)")] == [
        b"a2", b"b1",
    ]
    assert [k for k, _ in t.scan(filter="RowFilter(!=, 'binary:a1')", limit=2)] == [b"a2", b"b1"]


def test_timestamps_and_columns(hb, table_name):
    t = hb.table(table_name)
    rows = dict(t.scan(filter="TimestampsFilter(1)", include_timestamp=True))
    assert rows[b"a2"] == {b"f:a": (b"old", 1), b"f:b": (b"z", 1)}
    # A column list and a filter both apply.
    assert dict(t.scan(columns=[b"g"], filter="ValueFilter(=, 'regexstring:l')")) == {
        b"b1": {b"g:d": b"hello"}, b"b2": {b"g:c": b"World"},
    }


def test_batches_cut_rows_or_refuse_whole_row_filters(hb, table_name):
    t = hb.table(table_name)
    pieces = list(t.scan(filter="PrefixFilter('c')", scan_batching=2))
    assert pieces == [(b"c1", {b"f:x": b"abc", b"f:y": b"abd"}), (b"c1", {b"f:z": b"xyz"})]
    with pytest.raises(Hbase_thrift.IOError) as e:
        list(t.scan(filter="SingleColumnValueFilter('f', 'x', =, 'binary:abc')", scan_batching=2))
    assert b"whole rows" in e.value.message


BAD = [
    ("", 0, "empty"),
    ("FooFilter()", 0, "unknown filter"),
    ("PrefixFilter()", 0, "takes 1 argument"),
    ("PrefixFilter(1)", 13, "must be a quoted string"),
    ("PageFilter('x')", 11, "unquoted integer"),
    ("(PrefixFilter('a')", 0, "never closed"),
    ("PrefixFilter('a'))", 17, "closes no"),
    ("PrefixFilter('a)", 13, "quote is never closed"),
    ("RowFilter(=, 'regexstring:(a')", 13, "bad regular expression"),
    ("ValueFilter(=, 'regexstring:((a{100}){100}){100}')", 15, "bad regular expression"),
    ("RowFilter(<, 'substring:a')", 10, "= and !="),
    ("PageFilter(1) AND", 14, "AND needs a filter"),
]


@pytest.mark.parametrize("text,at,problem", BAD, ids=[b[2] for b in BAD])
def test_bad_filter_strings_are_clear_errors(hb, table_name, text, at, problem):
    t = hb.table(table_name)
    with pytest.raises(TApplicationException) as e:
        list(t.scan(filter=text))
    msg = e.value.message
    # happybase's client hands strings over as bytes.
    msg = msg.decode() if isinstance(msg, bytes) else msg
    assert f"at position {at}" in msg and problem in msg, msg
    # Never a crash: the same connection still scans.
    assert len(list(t.scan(filter="PageFilter(1)"))) == 1
