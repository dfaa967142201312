"""HBase 2.6 behaviours that Thrift1 clients depend on, one explicit test each (the numbered
Thrift1 list in shared/reference/hbase-thrift.md). Scanner lease expiry is in test_t1_limits.py."""

import pytest

from t1_util import (
    HB_AlreadyExists,
    HB_IOError,
    TTL_FOREVER,
    hb_thrift,
    hbase1,
    now_ms,
)

Mutation = hbase1.Mutation
ColumnDescriptor = hbase1.ColumnDescriptor
TScan = hbase1.TScan
IOError = hbase1.IOError
IllegalArgument = hbase1.IllegalArgument
AlreadyExists = hbase1.AlreadyExists


def create(client, name, families=("f", "g"), **options):
    client.createTable(
        name.encode(), [ColumnDescriptor(name=f"{f}:".encode(), **options) for f in families]
    )
    return name.encode()


def put(client, t, row, cols, ts=None):
    muts = [Mutation(column=c, value=v) for c, v in cols.items()]
    if ts is None:
        client.mutateRow(t, row, muts, {})
    else:
        client.mutateRowTs(t, row, muts, ts, {})


def cols(r):
    return {k: v.value for k, v in r.columns.items()}


def rows_of(client, sid):
    try:
        out = []
        while True:
            got = client.scannerGetList(sid, 50)
            if not got:
                return [(r.row, cols(r)) for r in out]
            out.extend(got)
    finally:
        client.scannerClose(sid)


# 1. Column specs ------------------------------------------------------------------------------


def test_column_spec_splits_at_the_first_colon(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r", {b"f:": b"empty", b"f:a": b"a", b"f:a:b": b"ab", b"g:x": b"x"})
    [r] = client.getRowWithColumns(t, b"r", [b"f"], {})
    assert cols(r) == {b"f:": b"empty", b"f:a": b"a", b"f:a:b": b"ab"}
    [r] = client.getRowWithColumns(t, b"r", [b"f:"], {})
    assert cols(r) == {b"f:": b"empty"}
    [r] = client.getRowWithColumns(t, b"r", [b"f:a:b"], {})
    assert cols(r) == {b"f:a:b": b"ab"}
    [r] = client.getRowWithColumns(t, b"r", [b"f:a"], {})
    assert cols(r) == {b"f:a": b"a"}
    assert [c.value for c in client.get(t, b"r", b"f:", {})] == [b"empty"]
    # Deleting "f:" touches the empty qualifier only.
    client.deleteAll(t, b"r", b"f:", {})
    [r] = client.getRow(t, b"r", {})
    assert cols(r) == {b"f:a": b"a", b"f:a:b": b"ab", b"g:x": b"x"}


# 2. Reads at a timestamp are [0, ts) ------------------------------------------------------------


def test_timestamped_reads_exclude_cells_at_exactly_ts(server, client, table_name):
    T = 1000
    t = create(client, table_name, maxVersions=5)
    put(client, t, b"r", {b"f:a": b"before"}, ts=T - 1)
    put(client, t, b"r", {b"f:a": b"at", b"g:b": b"at"}, ts=T)
    put(client, t, b"s", {b"f:a": b"at"}, ts=T)
    expected = [(b"r", {b"f:a": b"before"})]

    assert [(c.value, c.timestamp) for c in client.getVerTs(t, b"r", b"f:a", T, 5, {})] == [
        (b"before", T - 1)
    ]
    assert client.getVerTs(t, b"r", b"g:b", T, 5, {}) == []
    assert [(r.row, cols(r)) for r in client.getRowTs(t, b"r", T, {})] == expected
    assert [(r.row, cols(r)) for r in client.getRowWithColumnsTs(t, b"r", [b"f", b"g"], T, {})] == expected
    assert [(r.row, cols(r)) for r in client.getRowsTs(t, [b"r", b"s"], T, {})] == expected
    assert [
        (r.row, cols(r)) for r in client.getRowsWithColumnsTs(t, [b"r", b"s"], [b"f:a", b"g:b"], T, {})
    ] == expected
    assert rows_of(client, client.scannerOpenTs(t, b"", [], T, {})) == expected
    assert rows_of(client, client.scannerOpenWithStopTs(t, b"", b"z", [b"f", b"g"], T, {})) == expected
    assert rows_of(client, client.scannerOpenWithScan(t, TScan(timestamp=T), {})) == expected
    # One past T sees the cells at T.
    [r] = client.getRowTs(t, b"r", T + 1, {})
    assert cols(r) == {b"f:a": b"at", b"g:b": b"at"}

    hb = server.happybase()
    try:
        table = hb.table(table_name)
        assert table.row(b"r", timestamp=T) == {b"f:a": b"before"}
        assert table.cells(b"r", b"f:a", timestamp=T) == [b"before"]
        assert list(table.scan(timestamp=T)) == expected
        assert table.rows([b"r", b"s"], timestamp=T) == expected
    finally:
        hb.close()


# 3. Writes and deletes with a timestamp ---------------------------------------------------------


def test_timestamped_writes_land_on_ts_and_deletes_cover_ts(client, table_name):
    t = create(client, table_name, maxVersions=10)
    for ts in (10, 20, 30):
        put(client, t, b"r", {b"f:a": b"a%d" % ts, b"f:b": b"b%d" % ts, b"g:c": b"c%d" % ts}, ts=ts)
    assert [c.timestamp for c in client.getVer(t, b"r", b"f:a", 10, {})] == [30, 20, 10]

    # A delete at exactly 20 removes the version at 20 too.
    client.deleteAllTs(t, b"r", b"f:a", 20, {})
    assert [c.timestamp for c in client.getVer(t, b"r", b"f:a", 10, {})] == [30]
    client.mutateRowTs(t, b"r", [Mutation(isDelete=True, column=b"f:b")], 10, {})
    assert [c.timestamp for c in client.getVer(t, b"r", b"f:b", 10, {})] == [30, 20]
    client.deleteAllRowTs(t, b"r", 29, {})
    [r] = client.getRow(t, b"r", {})
    assert {k: v.timestamp for k, v in r.columns.items()} == {b"f:a": 30, b"f:b": 30, b"g:c": 30}
    assert [c.timestamp for c in client.getVer(t, b"r", b"g:c", 10, {})] == [30]


def test_delete_markers_mask_later_puts_with_older_timestamps(client, table_name):
    t = create(client, table_name)
    client.deleteAllTs(t, b"r", b"f:a", 100, {})
    put(client, t, b"r", {b"f:a": b"old"}, ts=100)
    put(client, t, b"r", {b"f:a": b"older"}, ts=50)
    assert client.get(t, b"r", b"f:a", {}) == []
    put(client, t, b"r", {b"f:a": b"newer"}, ts=101)
    assert [c.value for c in client.get(t, b"r", b"f:a", {})] == [b"newer"]
    client.deleteAllRowTs(t, b"q", 500, {})
    put(client, t, b"q", {b"g:x": b"masked"}, ts=499)
    assert client.getRow(t, b"q", {}) == []


# 4. TTL and column descriptors ------------------------------------------------------------------


def test_ttl_unset_by_happybase_means_forever(server, table_name):
    # happybase's own IDL defaults timeToLive to -1 and sends it for every family.
    assert hb_thrift.ColumnDescriptor().timeToLive == -1
    hb = server.happybase()
    try:
        hb.create_table(table_name, {"f": {}})
        table = hb.table(table_name)
        assert table.families()[b"f"]["time_to_live"] == TTL_FOREVER
        # A cell from 1970 is still there: nothing expires.
        table.put(b"r", {b"f:a": b"ancient"}, timestamp=1)
        assert table.row(b"r", include_timestamp=True) == {b"f:a": (b"ancient", 1)}
    finally:
        hb.close()


@pytest.mark.parametrize("ttl", [0, -1, -5])
def test_ttl_zero_or_negative_means_forever(client, table_name, ttl):
    t = create(client, table_name, families=("f",), timeToLive=ttl)
    assert client.getColumnDescriptors(t)[b"f:"].timeToLive == TTL_FOREVER
    put(client, t, b"r", {b"f:a": b"ancient"}, ts=1)
    assert [c.value for c in client.get(t, b"r", b"f:a", {})] == [b"ancient"]


def test_positive_ttl_expires_old_cells(client, table_name):
    t = create(client, table_name, families=("f",), timeToLive=60)
    assert client.getColumnDescriptors(t)[b"f:"].timeToLive == 60
    now = now_ms()
    put(client, t, b"old", {b"f:a": b"x"}, ts=now - 120_000)
    put(client, t, b"new", {b"f:a": b"y"}, ts=now)
    assert client.getRow(t, b"old", {}) == []
    assert [cols(r) for r in client.getRow(t, b"new", {})] == [{b"f:a": b"y"}]
    assert rows_of(client, client.scannerOpen(t, b"", [], {})) == [(b"new", {b"f:a": b"y"})]


def test_column_descriptor_keys_end_with_a_colon(client, table_name):
    t = table_name.encode()
    client.createTable(t, [ColumnDescriptor(name=b"f"), ColumnDescriptor(name=b"g:")])
    d = client.getColumnDescriptors(t)
    assert sorted(d) == [b"f:", b"g:"]
    assert all(name.endswith(b":") and desc.name == name for name, desc in d.items())
    assert (d[b"f:"].maxVersions, d[b"f:"].compression, d[b"f:"].bloomFilterType) == (3, "NONE", "NONE")


def test_max_versions_are_kept(client, table_name):
    t = create(client, table_name, families=("f",), maxVersions=2)
    for ts in (1, 2, 3, 4):
        put(client, t, b"r", {b"f:a": b"%d" % ts}, ts=ts)
    assert [c.value for c in client.getVer(t, b"r", b"f:a", 10, {})] == [b"4", b"3"]
    assert [c.value for c in client.getVerTs(t, b"r", b"f:a", 5, 10, {})] == [b"4", b"3"]
    # (Versions beyond maxVersions may still show up in a time range below the newest ones
    # until HBase flushes and compacts; that window is not asserted here.)


# 6. checkAndPut ---------------------------------------------------------------------------------


def test_check_and_put_with_unset_value_means_must_not_exist(client, table_name):
    t = create(client, table_name)
    assert client.checkAndPut(t, b"r", b"f:a", None, Mutation(column=b"f:a", value=b"first"), {}) is True
    assert [c.value for c in client.get(t, b"r", b"f:a", {})] == [b"first"]
    assert client.checkAndPut(t, b"r", b"f:a", None, Mutation(column=b"f:a", value=b"second"), {}) is False
    assert [c.value for c in client.get(t, b"r", b"f:a", {})] == [b"first"]
    # Condition on a column that does not exist, put to another.
    assert client.checkAndPut(t, b"r", b"g:x", None, Mutation(column=b"f:a", value=b"third"), {}) is True
    assert [c.value for c in client.get(t, b"r", b"f:a", {})] == [b"third"]
    # After a delete the column no longer exists.
    client.deleteAll(t, b"r", b"g:x", {})
    client.deleteAll(t, b"r", b"f:a", {})
    assert client.checkAndPut(t, b"r", b"f:a", None, Mutation(column=b"f:a", value=b"fourth"), {}) is True


# 7. Missing rows, versions ----------------------------------------------------------------------


def test_missing_rows(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r1", {b"f:a": b"1"})
    put(client, t, b"r2", {b"f:a": b"2"})
    assert client.get(t, b"missing", b"f:a", {}) == []
    assert client.getRow(t, b"missing", {}) == []
    # getRows is not positional: missing rows are simply left out.
    got = client.getRows(t, [b"missing", b"r2", b"nope", b"r1", b"missing"], {})
    assert [r.row for r in got] == [b"r2", b"r1"]
    assert client.getRows(t, [b"x", b"y"], {}) == []
    got = client.getRowsWithColumns(t, [b"r1", b"r2"], [b"g"], {})
    assert got == []


def test_only_the_newest_version_unless_asked(client, table_name):
    t = create(client, table_name)
    for ts in (1, 2, 3):
        put(client, t, b"r", {b"f:a": b"v%d" % ts}, ts=ts)
    assert [c.value for c in client.get(t, b"r", b"f:a", {})] == [b"v3"]
    assert cols(client.getRow(t, b"r", {})[0]) == {b"f:a": b"v3"}
    assert [c.value for c in client.getVer(t, b"r", b"f:a", 3, {})] == [b"v3", b"v2", b"v1"]
    for n in (0, -1):
        with pytest.raises(IOError):
            client.getVer(t, b"r", b"f:a", n, {})
        with pytest.raises(IOError):
            client.getVerTs(t, b"r", b"f:a", 10, n, {})


# 10. Scanner ids --------------------------------------------------------------------------------


def test_unknown_scanner_id_is_illegal_argument(client):
    for bogus in (424242, -7, 0x7FFFFFFF):
        with pytest.raises(IllegalArgument):
            client.scannerGet(bogus)
        with pytest.raises(IllegalArgument):
            client.scannerGetList(bogus, 3)
        with pytest.raises(IllegalArgument):
            client.scannerClose(bogus)


def test_closed_scanner_id_is_illegal_argument(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r", {b"f:a": b"1"})
    sid = client.scannerOpen(t, b"", [], {})
    client.scannerClose(sid)
    with pytest.raises(IllegalArgument):
        client.scannerGet(sid)
    with pytest.raises(IllegalArgument):
        client.scannerClose(sid)


def test_exhausted_scanner_returns_empty_lists(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r1", {b"f:a": b"1"})
    put(client, t, b"r2", {b"f:a": b"2"})
    sid = client.scannerOpen(t, b"", [], {})
    assert [r.row for r in client.scannerGet(sid)] == [b"r1"]
    assert [r.row for r in client.scannerGetList(sid, 10)] == [b"r2"]
    for _ in range(3):
        assert client.scannerGet(sid) == []
        assert client.scannerGetList(sid, 10) == []
    client.scannerClose(sid)
    # A scanner over nothing is exhausted from the start.
    sid = client.scannerOpenWithStop(t, b"x", b"y", [], {})
    assert client.scannerGet(sid) == []
    client.scannerClose(sid)


# 11. Table lifecycle errors ---------------------------------------------------------------------


def test_create_existing_table_is_already_exists(server, client, table_name):
    t = create(client, table_name)
    with pytest.raises(AlreadyExists):
        client.createTable(t, [ColumnDescriptor(name=b"x:")])
    # The original table is untouched.
    assert sorted(client.getColumnDescriptors(t)) == [b"f:", b"g:"]
    hb = server.happybase()
    try:
        with pytest.raises(HB_AlreadyExists):
            hb.create_table(table_name, {"f": {}})
    finally:
        hb.close()


def test_delete_missing_table_is_io_error(server, client, table_name):
    with pytest.raises(IOError):
        client.deleteTable((table_name + "_missing").encode())
    hb = server.happybase()
    try:
        with pytest.raises(HB_IOError):
            hb.delete_table(table_name + "_missing")
    finally:
        hb.close()


def test_delete_enabled_table_is_io_error(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r", {b"f:a": b"1"})
    with pytest.raises(IOError):
        client.deleteTable(t)
    assert t in client.getTableNames()
    assert cols(client.getRow(t, b"r", {})[0]) == {b"f:a": b"1"}
    client.disableTable(t)
    client.deleteTable(t)
    assert t not in client.getTableNames()
    # Gone means gone: reads fail, and the name can be reused for a fresh table.
    with pytest.raises(IOError):
        client.getRow(t, b"r", {})
    create(client, table_name)
    assert client.getRow(t, b"r", {}) == []


def test_disabled_table_refuses_reads_and_writes(client, table_name):
    t = create(client, table_name)
    put(client, t, b"r", {b"f:a": b"1"})
    client.disableTable(t)
    # HBase: TableNotEnabledException (an IOException) for data access to a disabled table.
    with pytest.raises(IOError):
        client.getRow(t, b"r", {})
    with pytest.raises(IOError):
        put(client, t, b"r", {b"f:a": b"2"})
    client.enableTable(t)
    assert cols(client.getRow(t, b"r", {})[0]) == {b"f:a": b"1"}
