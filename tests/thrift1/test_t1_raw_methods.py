"""Thrift1 methods happybase never calls, through a client generated from idl/hbase1.thrift.

Expected results are HBase 2.6's (ThriftHBaseServiceHandler): reads "at" a timestamp cover
[0, ts), writes with a timestamp land exactly on it, deletes with one remove every version <= it.
"""

import pytest
from thriftpy2.thrift import TApplicationException

from t1_util import TTL_FOREVER, hbase1, i64, wait_until

Mutation = hbase1.Mutation
BatchMutation = hbase1.BatchMutation
ColumnDescriptor = hbase1.ColumnDescriptor
TIncrement = hbase1.TIncrement
TAppend = hbase1.TAppend
TScan = hbase1.TScan
IOError = hbase1.IOError
IllegalArgument = hbase1.IllegalArgument
AlreadyExists = hbase1.AlreadyExists


def create(client, name, families=("f", "g"), **options):
    client.createTable(
        name.encode(), [ColumnDescriptor(name=f"{f}:".encode(), **options) for f in families]
    )
    return name.encode()


def put(client, table, row, cols, ts=None):
    muts = [Mutation(column=c, value=v) for c, v in cols.items()]
    if ts is None:
        client.mutateRow(table, row, muts, {})
    else:
        client.mutateRowTs(table, row, muts, ts, {})


def values(cells):
    return [c.value for c in cells]


def stamped(cells):
    return [(c.value, c.timestamp) for c in cells]


def cols(row_result):
    """A TRowResult's columns as {name: value}."""
    return {k: v.value for k, v in row_result.columns.items()}


def drain(client, sid, n=100):
    out = []
    while True:
        batch = client.scannerGetList(sid, n)
        if not batch:
            return out
        out.extend(batch)


def scan_all(client, sid):
    try:
        return drain(client, sid)
    finally:
        client.scannerClose(sid)


# ----------------------------------------------------------------------------------------------
# Server and table administration
# ----------------------------------------------------------------------------------------------


def test_get_thrift_server_type_is_one(client):
    assert client.getThriftServerType() == hbase1.TThriftServerType.ONE == 1


def test_get_cluster_id(client, server):
    cid = client.getClusterId()
    assert isinstance(cid, str) and cid
    other = server.client()
    try:
        assert other.getClusterId() == cid
    finally:
        other.close()


def test_get_table_names_with_is_table_enabled(client, table_name):
    on = create(client, table_name + "_on")
    off = create(client, table_name + "_off")
    client.disableTable(off)
    names = client.getTableNames()
    assert on in names and off in names
    assert names == sorted(names)
    enabled = client.getTableNamesWithIsTableEnabled()
    assert enabled[on] is True
    assert enabled[off] is False
    assert set(enabled) == set(names)


def test_is_table_enabled_enable_disable(client, table_name):
    t = create(client, table_name)
    assert client.isTableEnabled(t) is True
    client.disableTable(t)
    assert client.isTableEnabled(t) is False
    client.enableTable(t)
    assert client.isTableEnabled(t) is True


def test_table_admin_errors(client, table_name):
    missing = (table_name + "_missing").encode()
    for call in (client.isTableEnabled, client.enableTable, client.disableTable):
        with pytest.raises(IOError):
            call(missing)
    t = create(client, table_name)
    # HBase: TableNotDisabledException / TableNotEnabledException.
    with pytest.raises(IOError):
        client.enableTable(t)
    client.disableTable(t)
    with pytest.raises(IOError):
        client.disableTable(t)


def test_get_column_descriptors(client, table_name):
    t = table_name.encode()
    client.createTable(
        t,
        [
            ColumnDescriptor(name=b"f:"),
            ColumnDescriptor(name=b"g", maxVersions=7, inMemory=True, timeToLive=60),
        ],
    )
    d = client.getColumnDescriptors(t)
    # Keys carry the trailing colon, whether or not the create request had one.
    assert sorted(d) == [b"f:", b"g:"]
    f = d[b"f:"]
    assert f.name == b"f:"
    assert (f.maxVersions, f.compression, f.inMemory, f.bloomFilterType) == (3, "NONE", False, "NONE")
    assert (f.bloomFilterVectorSize, f.bloomFilterNbHashes, f.blockCacheEnabled) == (0, 0, False)
    assert f.timeToLive == TTL_FOREVER
    g = d[b"g:"]
    assert (g.name, g.maxVersions, g.inMemory, g.timeToLive) == (b"g:", 7, True, 60)
    with pytest.raises(IOError):
        client.getColumnDescriptors((table_name + "_missing").encode())


def test_create_table_in_default_namespace(client, table_name):
    client.createTable(f"default:{table_name}".encode(), [ColumnDescriptor(name=b"f:")])
    # HBase names tables of the default namespace without it.
    names = client.getTableNames()
    assert table_name.encode() in names
    assert f"default:{table_name}".encode() not in names
    put(client, table_name.encode(), b"r", {b"f:a": b"1"})
    assert values(client.get(f"default:{table_name}".encode(), b"r", b"f:a", {})) == [b"1"]


def test_create_table_errors(client, table_name):
    t = create(client, table_name)
    with pytest.raises(AlreadyExists):
        client.createTable(t, [ColumnDescriptor(name=b"f:")])
    with pytest.raises(IllegalArgument):
        client.createTable((table_name + "_x").encode(), [ColumnDescriptor(name=b"")])
    with pytest.raises((IOError, IllegalArgument)):
        client.createTable((table_name + "_y").encode(), [])
    assert (table_name + "_x").encode() not in client.getTableNames()
    assert (table_name + "_y").encode() not in client.getTableNames()


def test_create_table_rejects_unknown_bloom_filter_and_compression(client, table_name):
    # HBase: BloomType.valueOf / Compression.getCompressionAlgorithmByName throw
    # IllegalArgumentException, which createTable reports as IllegalArgument.
    with pytest.raises(IllegalArgument):
        client.createTable(
            (table_name + "_b").encode(),
            [ColumnDescriptor(name=b"f:", bloomFilterType="NO_SUCH_BLOOM")],
        )
    with pytest.raises(IllegalArgument):
        client.createTable(
            (table_name + "_c").encode(),
            [ColumnDescriptor(name=b"f:", compression="NO_SUCH_CODEC")],
        )


def test_create_table_compression_names_ignore_case(client, table_name):
    # HBase looks codecs up by lower-cased name (Compression.getCompressionAlgorithmByName) and
    # reports the algorithm's enum name.
    for i, (given, reported) in enumerate([("none", "NONE"), ("gz", "GZ"), ("Gz", "GZ"), ("GZ", "GZ")]):
        t = f"{table_name}_{i}".encode()
        client.createTable(t, [ColumnDescriptor(name=b"f:", compression=given)])
        assert client.getColumnDescriptors(t)[b"f:"].compression == reported


def test_get_table_regions(client, table_name):
    t = create(client, table_name)
    [r] = client.getTableRegions(t)
    assert (r.startKey, r.endKey, r.version) == (b"", b"", 1)
    assert r.name.startswith(t + b",," + str(r.id).encode() + b".")
    assert r.serverName == b"localhost"
    assert r.port > 0
    # HBase answers an empty list for a table that does not exist.
    assert client.getTableRegions((table_name + "_missing").encode()) == []


def test_get_region_info(client, table_name):
    t = create(client, table_name)
    [region] = client.getTableRegions(t)
    info = client.getRegionInfo(t + b",somerow,99999999999999")
    assert (info.startKey, info.endKey, info.id, info.name) == (
        region.startKey,
        region.endKey,
        region.id,
        region.name,
    )
    assert info.version == 1
    assert info.serverName == b"localhost"
    assert info.port == region.port
    assert client.getRegionInfo(t + b",,99999999999999").name == region.name


def test_compact_and_major_compact(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r1", {b"f:a": b"1"})
    put(client, t, b"r2", {b"f:a": b"2"})
    client.deleteAllRow(t, b"r1", {})
    client.compact(t)
    client.majorCompact(t)
    # Region names are accepted too.
    [region] = client.getTableRegions(t)
    client.compact(region.name)
    client.majorCompact(region.name)
    assert client.getRow(t, b"r1", {}) == []
    assert cols(client.getRow(t, b"r2", {})[0]) == {b"f:a": b"2"}
    with pytest.raises(IOError):
        client.majorCompact((table_name + "_missing").encode())


def test_major_compaction_drops_delete_markers(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r", {b"f:a": b"v100"}, ts=100)
    client.deleteAllTs(t, b"r", b"f:a", 200, {})
    # The marker at 200 masks a put at 150 that arrives later ...
    put(client, t, b"r", {b"f:a": b"v150"}, ts=150)
    assert client.get(t, b"r", b"f:a", {}) == []
    client.majorCompact(t)

    # ... until a major compaction removes it (HBase compacts asynchronously: poll).
    def visible():
        put(client, t, b"r", {b"f:a": b"again"}, ts=150)
        return values(client.get(t, b"r", b"f:a", {})) == [b"again"]

    assert wait_until(visible, timeout=10, interval=0.2)


# ----------------------------------------------------------------------------------------------
# Reads
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def versioned(client, table_name):
    """A table whose row r has f:a and f:b at 10, 20, 30, 40 and g:c at 20."""
    t = create(client, table_name, maxVersions=10)
    for ts in (10, 20, 30, 40):
        put(client, t, b"r", {b"f:a": b"a%d" % ts, b"f:b": b"b%d" % ts}, ts=ts)
    put(client, t, b"r", {b"g:c": b"c20"}, ts=20)
    return t


def test_get_and_get_ver(client, versioned):
    t = versioned
    assert stamped(client.get(t, b"r", b"f:a", {})) == [(b"a40", 40)]
    # A bare family: the newest cell of each of its columns, in column order.
    assert values(client.get(t, b"r", b"f", {})) == [b"a40", b"b40"]
    assert client.get(t, b"missing", b"f:a", {}) == []
    assert client.get(t, b"r", b"f:nope", {}) == []

    assert values(client.getVer(t, b"r", b"f:a", 2, {})) == [b"a40", b"a30"]
    assert values(client.getVer(t, b"r", b"f:a", 100, {})) == [b"a40", b"a30", b"a20", b"a10"]
    assert values(client.getVer(t, b"r", b"f", 2, {})) == [b"a40", b"a30", b"b40", b"b30"]
    with pytest.raises(IOError):
        client.getVer(t, b"r", b"f:a", 0, {})


def test_get_ver_ts_is_exclusive(client, versioned):
    t = versioned
    assert stamped(client.getVerTs(t, b"r", b"f:a", 30, 10, {})) == [(b"a20", 20), (b"a10", 10)]
    assert values(client.getVerTs(t, b"r", b"f:a", 31, 1, {})) == [b"a30"]
    assert client.getVerTs(t, b"r", b"f:a", 10, 10, {}) == []
    assert values(client.getVerTs(t, b"r", b"f", 20, 10, {})) == [b"a10", b"b10"]


def test_get_row_ts_and_with_columns_ts(client, versioned):
    t = versioned
    [r] = client.getRowTs(t, b"r", 30, {})
    assert r.row == b"r"
    assert r.sortedColumns is None
    assert {k: (v.value, v.timestamp) for k, v in r.columns.items()} == {
        b"f:a": (b"a20", 20),
        b"f:b": (b"b20", 20),
        b"g:c": (b"c20", 20),
    }
    assert client.getRowTs(t, b"r", 10, {}) == []
    [r] = client.getRowTs(t, b"r", 20, {})
    assert cols(r) == {b"f:a": b"a10", b"f:b": b"b10"}

    [r] = client.getRowWithColumnsTs(t, b"r", [b"f:b", b"g"], 40, {})
    assert cols(r) == {b"f:b": b"b30", b"g:c": b"c20"}
    assert client.getRowWithColumnsTs(t, b"r", [b"g:c"], 20, {}) == []
    [r] = client.getRowWithColumns(t, b"r", [b"f"], {})
    assert cols(r) == {b"f:a": b"a40", b"f:b": b"b40"}


def test_get_rows_variants(client, versioned):
    t = versioned
    put(client, t, b"q", {b"f:a": b"qa", b"g:c": b"qc"}, ts=25)
    rows = [b"r", b"missing", b"q"]

    got = client.getRows(t, rows, {})
    assert [r.row for r in got] == [b"r", b"q"]
    assert cols(got[0]) == {b"f:a": b"a40", b"f:b": b"b40", b"g:c": b"c20"}

    got = client.getRowsTs(t, rows, 25, {})
    assert [(r.row, cols(r)) for r in got] == [
        (b"r", {b"f:a": b"a20", b"f:b": b"b20", b"g:c": b"c20"})
    ]

    got = client.getRowsWithColumns(t, rows, [b"g"], {})
    assert [(r.row, cols(r)) for r in got] == [(b"r", {b"g:c": b"c20"}), (b"q", {b"g:c": b"qc"})]

    got = client.getRowsWithColumnsTs(t, rows, [b"f:a"], 26, {})
    assert [(r.row, cols(r)) for r in got] == [(b"r", {b"f:a": b"a20"}), (b"q", {b"f:a": b"qa"})]
    assert client.getRowsWithColumnsTs(t, rows, [b"f:a"], 5, {}) == []


def test_attributes_are_accepted(client, table_name):
    t = create(client, table_name)
    attrs = {b"some.attribute": b"value"}
    client.mutateRow(t, b"r", [Mutation(column=b"f:a", value=b"1")], attrs)
    assert values(client.get(t, b"r", b"f:a", attrs)) == [b"1"]
    assert cols(client.getRow(t, b"r", attrs)[0]) == {b"f:a": b"1"}


# ----------------------------------------------------------------------------------------------
# Writes
# ----------------------------------------------------------------------------------------------


def test_mutate_row_ts(client, table_name):
    t = create(client, table_name, maxVersions=10)
    client.mutateRowTs(t, b"r", [Mutation(column=b"f:a", value=b"x")], 123, {})
    client.mutateRowTs(t, b"r", [Mutation(column=b"f:a", value=b"y")], 456, {})
    assert stamped(client.getVer(t, b"r", b"f:a", 10, {})) == [(b"y", 456), (b"x", 123)]
    # A delete in a timestamped mutation removes every version at or before it.
    client.mutateRowTs(
        t,
        b"r",
        [Mutation(isDelete=True, column=b"f:a"), Mutation(column=b"f:b", value=b"z")],
        123,
        {},
    )
    assert stamped(client.getVer(t, b"r", b"f:a", 10, {})) == [(b"y", 456)]
    assert stamped(client.get(t, b"r", b"f:b", {})) == [(b"z", 123)]


def test_mutate_rows_ts(client, table_name):
    t = create(client, table_name, maxVersions=10)
    batch = [
        BatchMutation(row=b"r1", mutations=[Mutation(column=b"f:a", value=b"1")]),
        BatchMutation(
            row=b"r2",
            mutations=[Mutation(column=b"f:a", value=b"2"), Mutation(column=b"g:", value=b"e")],
        ),
    ]
    client.mutateRowsTs(t, batch, 77, {})
    assert stamped(client.get(t, b"r1", b"f:a", {})) == [(b"1", 77)]
    assert stamped(client.get(t, b"r2", b"g:", {})) == [(b"e", 77)]
    newer = BatchMutation(row=b"r1", mutations=[Mutation(column=b"f:a", value=b"n")])
    client.mutateRowsTs(t, [newer], 99, {})
    client.mutateRowsTs(
        t,
        [
            BatchMutation(row=b"r1", mutations=[Mutation(isDelete=True, column=b"f:a")]),
            BatchMutation(row=b"r2", mutations=[Mutation(isDelete=True, column=b"g")]),
        ],
        80,
        {},
    )
    assert stamped(client.getVer(t, b"r1", b"f:a", 10, {})) == [(b"n", 99)]
    assert client.get(t, b"r2", b"g:", {}) == []
    assert values(client.get(t, b"r2", b"f:a", {})) == [b"2"]


def test_mutate_rows_mixes_rows_puts_and_deletes(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r1", {b"f:a": b"old", b"f:b": b"keep"})
    client.mutateRows(
        t,
        [
            BatchMutation(
                row=b"r1",
                mutations=[Mutation(isDelete=True, column=b"f:a"), Mutation(column=b"g:x", value=b"new")],
            ),
            BatchMutation(row=b"r2", mutations=[Mutation(column=b"f:a", value=b"2", writeToWAL=False)]),
        ],
        {},
    )
    assert cols(client.getRow(t, b"r1", {})[0]) == {b"f:b": b"keep", b"g:x": b"new"}
    assert cols(client.getRow(t, b"r2", {})[0]) == {b"f:a": b"2"}


def test_put_without_a_qualifier(client, table_name):
    """A put needs "family:qualifier". HBase's mutateRow logs and skips a put to a bare family;
    mutateRows rejects it with IllegalArgument ("Invalid famAndQf provided.")."""
    t = create(client, table_name)
    client.mutateRow(
        t, b"r", [Mutation(column=b"f", value=b"bare"), Mutation(column=b"g:x", value=b"1")], {}
    )
    assert cols(client.getRow(t, b"r", {})[0]) == {b"g:x": b"1"}
    with pytest.raises(IllegalArgument):
        client.mutateRows(
            t, [BatchMutation(row=b"r2", mutations=[Mutation(column=b"f", value=b"bare")])], {}
        )
    assert client.getRow(t, b"r2", {}) == []


def test_atomic_increment(client, table_name):
    t = create(client, table_name)
    assert client.atomicIncrement(t, b"r", b"f:c", 5) == 5
    assert client.atomicIncrement(t, b"r", b"f:c", -7) == -2
    assert values(client.get(t, b"r", b"f:c", {})) == [i64(-2)]
    # A bare family means the empty qualifier.
    assert client.atomicIncrement(t, b"r", b"g", 3) == 3
    assert client.atomicIncrement(t, b"r", b"g", 3) == 6
    assert values(client.get(t, b"r", b"g:", {})) == [i64(6)]
    assert cols(client.getRow(t, b"r", {})[0]) == {b"f:c": i64(-2), b"g:": i64(6)}


def test_atomic_increment_of_a_non_counter_fails(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r", {b"f:s": b"abc"})
    with pytest.raises(IOError) as e:
        client.atomicIncrement(t, b"r", b"f:s", 1)
    assert "Field is not a long, it's 3 bytes wide" in e.value.message
    assert e.value.canRetry is False
    assert values(client.get(t, b"r", b"f:s", {})) == [b"abc"]


def test_increment_and_increment_rows(client, table_name):
    t = create(client, table_name)
    client.increment(TIncrement(table=t, row=b"r1", column=b"f:n", ammount=4))
    client.increment(TIncrement(table=t, row=b"r1", column=b"f:n", ammount=6))
    assert values(client.get(t, b"r1", b"f:n", {})) == [i64(10)]
    client.incrementRows(
        [
            TIncrement(table=t, row=b"r1", column=b"f:n", ammount=-1),
            TIncrement(table=t, row=b"r2", column=b"f:n", ammount=2),
            TIncrement(table=t, row=b"r2", column=b"g:m", ammount=3),
        ]
    )
    assert values(client.get(t, b"r1", b"f:n", {})) == [i64(9)]
    assert cols(client.getRow(t, b"r2", {})[0]) == {b"f:n": i64(2), b"g:m": i64(3)}
    assert client.atomicIncrement(t, b"r2", b"g:m", 0) == 3


def test_delete_all_column_and_family(client, versioned):
    t = versioned
    client.deleteAll(t, b"r", b"f:a", {})
    assert client.getVer(t, b"r", b"f:a", 10, {}) == []
    assert len(client.getVer(t, b"r", b"f:b", 10, {})) == 4
    client.deleteAll(t, b"r", b"f", {})
    assert client.get(t, b"r", b"f", {}) == []
    assert values(client.get(t, b"r", b"g:c", {})) == [b"c20"]


def test_delete_all_ts(client, versioned):
    t = versioned
    client.deleteAllTs(t, b"r", b"f:a", 20, {})
    assert values(client.getVer(t, b"r", b"f:a", 10, {})) == [b"a40", b"a30"]
    client.deleteAllTs(t, b"r", b"f", 30, {})
    assert values(client.getVer(t, b"r", b"f", 10, {})) == [b"a40", b"b40"]
    assert values(client.get(t, b"r", b"g:c", {})) == [b"c20"]


def test_delete_all_row_and_row_ts(client, versioned):
    t = versioned
    put(client, t, b"other", {b"f:a": b"x"})
    client.deleteAllRowTs(t, b"r", 20, {})
    [r] = client.getRow(t, b"r", {})
    assert cols(r) == {b"f:a": b"a40", b"f:b": b"b40"}
    assert values(client.getVer(t, b"r", b"f:a", 10, {})) == [b"a40", b"a30"]
    client.deleteAllRow(t, b"r", {})
    assert client.getRow(t, b"r", {}) == []
    assert cols(client.getRow(t, b"other", {})[0]) == {b"f:a": b"x"}


def test_append(client, table_name):
    t = create(client, table_name)
    cells = client.append(TAppend(table=t, row=b"r", columns=[b"f:a"], values=[b"abc"]))
    assert values(cells) == [b"abc"]
    cells = client.append(
        TAppend(table=t, row=b"r", columns=[b"f:a", b"g:b"], values=[b"def", b"xyz"])
    )
    assert sorted(values(cells)) == [b"abcdef", b"xyz"]
    assert all(c.timestamp > 0 for c in cells)
    assert cols(client.getRow(t, b"r", {})[0]) == {b"f:a": b"abcdef", b"g:b": b"xyz"}
    with pytest.raises((IOError, IllegalArgument, TApplicationException)):
        client.append(TAppend(table=t, row=b"r", columns=[b"f:a", b"f:b"], values=[b"1"]))
    assert cols(client.getRow(t, b"r", {})[0]) == {b"f:a": b"abcdef", b"g:b": b"xyz"}


def test_check_and_put(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r", {b"f:a": b"v1"})
    # Equal: the put (to another column) happens.
    assert client.checkAndPut(t, b"r", b"f:a", b"v1", Mutation(column=b"f:b", value=b"p1"), {}) is True
    assert values(client.get(t, b"r", b"f:b", {})) == [b"p1"]
    # Not equal: nothing happens.
    assert client.checkAndPut(t, b"r", b"f:a", b"zz", Mutation(column=b"f:b", value=b"p2"), {}) is False
    assert values(client.get(t, b"r", b"f:b", {})) == [b"p1"]
    # The same column as the condition.
    assert client.checkAndPut(t, b"r", b"f:a", b"v1", Mutation(column=b"f:a", value=b"v2"), {}) is True
    assert values(client.get(t, b"r", b"f:a", {})) == [b"v2"]
    # Missing row: an equality check fails.
    assert client.checkAndPut(t, b"nope", b"f:a", b"v1", Mutation(column=b"f:a", value=b"x"), {}) is False
    assert client.getRow(t, b"nope", {}) == []


# ----------------------------------------------------------------------------------------------
# Scanners
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def scan_table(client, table_name):
    """Rows a, ab, ab1, abc, ac, b with f:x at ts 10 and 20 and g:y at ts 20."""
    t = create(client, table_name, maxVersions=5)
    for row in (b"a", b"ab", b"ab1", b"abc", b"ac", b"b"):
        put(client, t, row, {b"f:x": row + b"-10"}, ts=10)
        put(client, t, row, {b"f:x": row + b"-20", b"g:y": row + b"-y"}, ts=20)
    return t


def test_scanner_open_and_with_stop(client, scan_table):
    t = scan_table
    rows = scan_all(client, client.scannerOpen(t, b"ab1", [], {}))
    assert [r.row for r in rows] == [b"ab1", b"abc", b"ac", b"b"]
    assert cols(rows[0]) == {b"f:x": b"ab1-20", b"g:y": b"ab1-y"}
    rows = scan_all(client, client.scannerOpenWithStop(t, b"ab", b"ac", [b"g"], {}))
    assert [(r.row, cols(r)) for r in rows] == [
        (b"ab", {b"g:y": b"ab-y"}),
        (b"ab1", {b"g:y": b"ab1-y"}),
        (b"abc", {b"g:y": b"abc-y"}),
    ]


def test_scanner_open_ts(client, scan_table):
    t = scan_table
    rows = scan_all(client, client.scannerOpenTs(t, b"ac", [], 20, {}))
    assert [(r.row, cols(r)) for r in rows] == [(b"ac", {b"f:x": b"ac-10"}), (b"b", {b"f:x": b"b-10"})]
    rows = scan_all(client, client.scannerOpenTs(t, b"b", [b"f:x", b"g:y"], 21, {}))
    assert [(r.row, cols(r)) for r in rows] == [(b"b", {b"f:x": b"b-20", b"g:y": b"b-y"})]
    assert scan_all(client, client.scannerOpenTs(t, b"", [], 10, {})) == []


def test_scanner_open_with_stop_ts(client, scan_table):
    t = scan_table
    rows = scan_all(client, client.scannerOpenWithStopTs(t, b"a", b"ab1", [b"f"], 15, {}))
    assert [(r.row, {k: (v.value, v.timestamp) for k, v in r.columns.items()}) for r in rows] == [
        (b"a", {b"f:x": (b"a-10", 10)}),
        (b"ab", {b"f:x": (b"ab-10", 10)}),
    ]
    assert scan_all(client, client.scannerOpenWithStopTs(t, b"a", b"b", [b"g"], 20, {})) == []


def test_scanner_open_with_prefix(client, scan_table):
    t = scan_table
    rows = scan_all(client, client.scannerOpenWithPrefix(t, b"ab", [], {}))
    assert [r.row for r in rows] == [b"ab", b"ab1", b"abc"]
    rows = scan_all(client, client.scannerOpenWithPrefix(t, b"a", [b"g:y"], {}))
    assert [(r.row, cols(r)) for r in rows][:2] == [(b"a", {b"g:y": b"a-y"}), (b"ab", {b"g:y": b"ab-y"})]
    assert len(rows) == 5
    assert scan_all(client, client.scannerOpenWithPrefix(t, b"zz", [], {})) == []


def test_scanner_open_with_scan_basic(client, scan_table):
    t = scan_table
    rows = scan_all(client, client.scannerOpenWithScan(t, TScan(), {}))
    assert [r.row for r in rows] == [b"a", b"ab", b"ab1", b"abc", b"ac", b"b"]
    scan = TScan(startRow=b"ab", stopRow=b"ac", columns=[b"f:x"], caching=2, cacheBlocks=False)
    rows = scan_all(client, client.scannerOpenWithScan(t, scan, {}))
    assert [(r.row, cols(r)) for r in rows] == [
        (b"ab", {b"f:x": b"ab-20"}),
        (b"ab1", {b"f:x": b"ab1-20"}),
        (b"abc", {b"f:x": b"abc-20"}),
    ]


def test_scanner_open_with_scan_timestamp(client, scan_table):
    t = scan_table
    rows = scan_all(client, client.scannerOpenWithScan(t, TScan(startRow=b"ac", timestamp=20), {}))
    assert [(r.row, cols(r)) for r in rows] == [(b"ac", {b"f:x": b"ac-10"}), (b"b", {b"f:x": b"b-10"})]


def test_scanner_open_with_scan_sort_columns(client, scan_table):
    t = scan_table
    put(client, t, b"b", {b"f:a": b"fa", b"f:": b"fe"}, ts=30)
    rows = scan_all(client, client.scannerOpenWithScan(t, TScan(startRow=b"b", sortColumns=True), {}))
    [r] = rows
    assert r.row == b"b"
    assert r.columns is None
    assert [(c.columnName, c.cell.value, c.cell.timestamp) for c in r.sortedColumns] == [
        (b"f:", b"fe", 30),
        (b"f:a", b"fa", 30),
        (b"f:x", b"b-20", 20),
        (b"g:y", b"b-y", 20),
    ]


def test_scanner_open_with_scan_reversed(client, scan_table):
    t = scan_table
    rows = scan_all(client, client.scannerOpenWithScan(t, TScan(reversed=True), {}))
    assert [r.row for r in rows] == [b"b", b"ac", b"abc", b"ab1", b"ab", b"a"]
    scan = TScan(startRow=b"abc", stopRow=b"ab", reversed=True, columns=[b"g"])
    rows = scan_all(client, client.scannerOpenWithScan(t, scan, {}))
    assert [(r.row, cols(r)) for r in rows] == [(b"abc", {b"g:y": b"abc-y"}), (b"ab1", {b"g:y": b"ab1-y"})]


def test_scanner_open_with_scan_batch_size(client, table_name):
    t = create(client, table_name)
    put(client, t, b"wide", {b"f:%02d" % i: b"%d" % i for i in range(7)})
    put(client, t, b"x-narrow", {b"g:a": b"1"})
    rows = scan_all(client, client.scannerOpenWithScan(t, TScan(batchSize=3), {}))
    assert [(r.row, len(r.columns)) for r in rows] == [
        (b"wide", 3),
        (b"wide", 3),
        (b"wide", 1),
        (b"x-narrow", 1),
    ]
    assert sorted(rows[1].columns) == [b"f:03", b"f:04", b"f:05"]
    rows = scan_all(client, client.scannerOpenWithScan(t, TScan(batchSize=5, sortColumns=True), {}))
    assert [[c.columnName for c in r.sortedColumns] for r in rows] == [
        [b"f:00", b"f:01", b"f:02", b"f:03", b"f:04"],
        [b"f:05", b"f:06"],
        [b"g:a"],
    ]


def test_scanner_get_list_counts(client, scan_table):
    t = scan_table
    sid = client.scannerOpen(t, b"", [], {})
    assert [r.row for r in client.scannerGetList(sid, 4)] == [b"a", b"ab", b"ab1", b"abc"]
    assert [r.row for r in client.scannerGetList(sid, 4)] == [b"ac", b"b"]
    assert client.scannerGetList(sid, 4) == []
    client.scannerClose(sid)


def test_scanner_is_shared_across_connections(server, client, scan_table):
    """Scanner ids belong to the gateway, not to one connection (HBase keeps one map)."""
    sid = client.scannerOpen(scan_table, b"", [], {})
    assert [r.row for r in client.scannerGetList(sid, 2)] == [b"a", b"ab"]
    other = server.client(transport="framed", protocol="compact")
    try:
        assert [r.row for r in other.scannerGetList(sid, 2)] == [b"ab1", b"abc"]
        other.scannerClose(sid)
    finally:
        other.close()
    with pytest.raises(IllegalArgument):
        client.scannerGet(sid)


def test_scanner_on_missing_table_fails_at_the_first_get(client, table_name):
    # As HBase's Thrift1 gateway: the scanner opens lazily, the first scannerGet fails.
    missing = (table_name + "_missing").encode()
    for sid in (
        client.scannerOpen(missing, b"", [], {}),
        client.scannerOpenWithScan(missing, TScan(), {}),
    ):
        with pytest.raises(IOError):
            client.scannerGet(sid)
        client.scannerClose(sid)
