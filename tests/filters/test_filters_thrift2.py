"""The filter language over Thrift2 (THBaseService) with a thriftpy2 client generated from
idl/hbase2.thrift: get, exists, getMultiple, getScannerResults and openScanner/getScannerRows."""

import pytest
from thriftpy2.thrift import TApplicationException

from f_util import hbase2 as T


def cells(result):
    return {(c.family + b":" + c.qualifier): c.value for c in result.columnValues}


def rows(results):
    return [(r.row, cells(r)) for r in results]


def test_get_with_a_filter(t2, table_name):
    t = table_name.encode()
    r = t2.get(t, T.TGet(row=b"a1", filterString=b"QualifierFilter(=, 'binary:c')"))
    assert cells(r) == {b"g:c": b"3"}
    # A filter that drops the row: an empty result.
    r = t2.get(t, T.TGet(row=b"a1", filterString=b"RowFilter(=, 'binary:zz')"))
    assert r.columnValues == [] and not r.row
    # Versions are counted after the filter: the older version is found.
    r = t2.get(t, T.TGet(row=b"a2", filterString=b"ValueFilter(=, 'binary:old')"))
    assert [(c.value, c.timestamp) for c in r.columnValues] == [(b"old", 1)]
    r = t2.get(t, T.TGet(row=b"a2", maxVersions=3, filterString=b"KeyOnlyFilter(true)"))
    assert [c.value for c in r.columnValues] == [b"\0\0\0\3", b"\0\0\0\3", b"\0\0\0\1"]


def test_exists_and_get_multiple_with_filters(t2, table_name):
    t = table_name.encode()
    f = b"SingleColumnValueFilter('f', 'a', =, 'binary:1', true, true)"
    assert t2.exists(t, T.TGet(row=b"a1", filterString=f)) is True
    assert t2.exists(t, T.TGet(row=b"a2", filterString=f)) is False
    got = t2.getMultiple(t, [T.TGet(row=r, filterString=b"FirstKeyOnlyFilter()") for r in (b"b1", b"b2")])
    assert [cells(r) for r in got] == [{b"f:a": b"1"}, {b"g:c": b"World"}]


def test_scanner_results_with_filters(t2, table_name):
    t = table_name.encode()
    scan = lambda f, n=100, **kw: rows(  # noqa: E731
        t2.getScannerResults(t, T.TScan(filterString=f, **kw), n)
    )
    assert scan(b"PrefixFilter('b')") == [
        (b"b1", {b"f:a": b"1", b"g:d": b"hello"}), (b"b2", {b"g:c": b"World"}),
    ]
    assert [r for r, _ in scan(b"PrefixFilter('b')", reversed=True)] == [b"b2", b"b1"]
    assert [r for r, _ in scan(b"RowFilter(!=, 'binary:a1')", limit=2)] == [b"a2", b"b1"]
    got = t2.getScannerResults(
        t, T.TScan(filterString=b"ColumnValueFilter('f', 'a', >, 'binary:m')", maxVersions=3), 10
    )
    assert [(r.row, [(c.value, c.timestamp) for c in r.columnValues]) for r in got] == [
        (b"a2", [(b"new", 2), (b"old", 1)]),
    ]
    assert scan(b"ColumnRangeFilter('x', true, 'y', true) AND PageFilter(1)") == [
        (b"c1", {b"f:x": b"abc", b"f:y": b"abd"}),
    ]
    assert scan(b"PrefixFilter('c')", batchSize=2) == [
        (b"c1", {b"f:x": b"abc", b"f:y": b"abd"}), (b"c1", {b"f:z": b"xyz"}),
    ]
    assert [r for r, _ in scan(b"WHILE RowFilter(<, 'binary:b')")] == [b"a1", b"a2"]


def test_open_scanner_with_a_filter(t2, table_name):
    t = table_name.encode()
    sid = t2.openScanner(t, T.TScan(filterString=b"SKIP ValueFilter(!=, 'binary:1')"))
    try:
        got = []
        while True:
            batch = t2.getScannerRows(sid, 2)
            if not batch:
                break
            got.extend(r.row for r in batch)
    finally:
        t2.closeScanner(sid)
    assert got == [b"a2", b"b2", b"c1"]


def test_whole_row_filter_with_a_cutting_batch_is_an_io_error(t2, table_name):
    scan = T.TScan(filterString=b"DependentColumnFilter('f', 'x')", batchSize=1)
    with pytest.raises(T.TIOError) as e:
        t2.getScannerResults(table_name.encode(), scan, 10)
    assert "whole rows" in e.value.message


BAD = [
    (b"", 0, "empty"),
    (b"RowFilter(=, 'binary:a', 'x')", 0, "takes 2 argument"),
    (b"ValueFilter(=, 'nope:x')", 15, "unknown comparator type"),
    (b"KeyOnlyFilter(maybe)", 14, "true or false"),
    (b"SKIP", 0, "SKIP needs a filter"),
    (b"ColumnPrefixFilter('a'", 18, "never closed"),
    (b"ValueFilter(=, 'regexstring:[a-')", 15, "bad regular expression"),
]


@pytest.mark.parametrize("text,at,problem", BAD, ids=[b[2] for b in BAD])
def test_bad_filter_strings_are_clear_errors(t2, table_name, text, at, problem):
    t = table_name.encode()
    for call in (
        lambda: t2.get(t, T.TGet(row=b"a1", filterString=text)),
        lambda: t2.getScannerResults(t, T.TScan(filterString=text), 10),
        lambda: t2.openScanner(t, T.TScan(filterString=text)),
    ):
        with pytest.raises(TApplicationException) as e:
            call()
        assert f"at position {at}" in e.value.message and problem in e.value.message, e.value.message
    # The connection still works.
    assert len(t2.getScannerResults(t, T.TScan(filterString=b"PageFilter(2)"), 10)) == 2


def test_filter_bytes_are_decoded(t2, table_name):
    """filterBytes: HBase's serialized protobuf filter (class name + that class's message), as
    HBase's Java ThriftConnection sends it; a bad one is a TIOError naming the problem."""
    t = table_name.encode()
    name = b"org.apache.hadoop.hbase.filter.PrefixFilter"
    inner = b"\x0a\x01a"  # PrefixFilter { prefix: "a" }
    prefix_a = b"\x0a" + bytes([len(name)]) + name + b"\x12" + bytes([len(inner)]) + inner
    got = t2.getScannerResults(t, T.TScan(filterBytes=prefix_a), 10)
    assert [r.row for r in got] == [b"a1", b"a2"]
    with pytest.raises(T.TIOError) as e:
        t2.getScannerResults(t, T.TScan(filterBytes=b"\x0a\x00"), 10)
    assert "unknown filter class" in e.value.message
