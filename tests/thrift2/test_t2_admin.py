"""Thrift2 administration: tables, families, namespaces, regions, server identity.

Expected behaviour is HBase 2.6's Admin API as the thrift2 handler exposes it: failures are
TIOError, table name patterns are Java regexes matched against the whole name ("t" for the
default namespace, "ns:t" otherwise), an unset or empty TTableName.ns means "default".
"""

import pytest

from t2_util import T, cells, create_table, cv, drop_table, put, rows_of, scan_all, tname, versions

TIOError = T.TIOError


def family_names(desc):
    return sorted(c.name for c in desc.columns)


def names(tnames):
    return sorted((t.ns, t.qualifier) for t in tnames)


# ----------------------------------------------------------------------------------------------
# Server identity
# ----------------------------------------------------------------------------------------------


def test_get_thrift_server_type_is_two(client):
    assert client.getThriftServerType() == T.TThriftServerType.TWO == 2


def test_get_cluster_id_is_stable_across_restart(redbase, tmp_path):
    data = tmp_path / "cid"
    srv = redbase(data_dir=data)
    c = srv.client()
    cid = c.getClusterId()
    c.close()
    assert isinstance(cid, str) and cid
    srv.stop_and_check()

    srv2 = redbase(data_dir=data)
    c = srv2.client()
    assert c.getClusterId() == cid
    c.close()

    other = redbase(data_dir=tmp_path / "other")
    c = other.client()
    assert c.getClusterId() != cid
    c.close()


# ----------------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------------


def test_create_table_and_describe(client, table_name):
    create_table(client, table_name, ("f", "g"), maxVersions=4)
    assert client.tableExists(tname(table_name)) is True
    d = client.getTableDescriptor(tname(table_name))
    assert d.tableName.qualifier == table_name.encode()
    assert d.tableName.ns == b"default"
    assert family_names(d) == [b"f", b"g"]
    assert all(c.maxVersions == 4 for c in d.columns)


def test_create_existing_table_is_tioerror(client, table_name):
    create_table(client, table_name)
    with pytest.raises(TIOError):
        create_table(client, table_name)


def test_table_exists_false_and_missing_descriptor_is_tioerror(client):
    assert client.tableExists(tname("t2_never_created")) is False
    with pytest.raises(TIOError):
        client.getTableDescriptor(tname("t2_never_created"))


def test_unset_or_empty_namespace_means_default(client, table_name):
    client.createTable(
        T.TTableDescriptor(
            tableName=T.TTableName(qualifier=table_name.encode()),
            columns=[T.TColumnFamilyDescriptor(name=b"f")],
        ),
        None,
    )
    for ns in (None, b"", b"default"):
        t = T.TTableName(ns=ns, qualifier=table_name.encode())
        assert client.tableExists(t) is True, ns
        assert client.getTableDescriptor(t).tableName == T.TTableName(
            ns=b"default", qualifier=table_name.encode()
        )
    # The data methods name the table by its plain name.
    put(client, table_name.encode(), b"r", {(b"f", b"a"): b"1"})
    assert cells(client.get(table_name.encode(), T.TGet(row=b"r"))) == {(b"f", b"a"): b"1"}


def test_get_table_descriptors_in_order(client, table_name):
    a, b = f"{table_name}_a", f"{table_name}_b"
    create_table(client, a, ("x",))
    create_table(client, b, ("y", "z"))
    ds = client.getTableDescriptors([tname(b), tname(a)])
    assert [d.tableName.qualifier for d in ds] == [b.encode(), a.encode()]
    assert [family_names(d) for d in ds] == [[b"y", b"z"], [b"x"]]


def test_create_table_with_split_keys_gives_real_regions(client, table_name):
    splits = [b"g", b"p"]
    t = create_table(client, table_name, ("f",), splits=splits)
    locs = client.getAllRegionLocations(t)
    bounds = [(l.regionInfo.startKey or b"", l.regionInfo.endKey or b"") for l in locs]
    assert bounds == [(b"", b"g"), (b"g", b"p"), (b"p", b"")]
    for l in locs:
        assert l.regionInfo.tableName == t
        assert l.serverName.hostName == "localhost"
        assert l.serverName.port and l.serverName.port > 0
    ids = {l.regionInfo.regionId for l in locs}
    assert len(ids) == 3

    def region_of(row):
        l = client.getRegionLocation(t, row, False)
        return (l.regionInfo.startKey or b"", l.regionInfo.endKey or b"")

    assert region_of(b"a") == (b"", b"g")
    assert region_of(b"g") == (b"g", b"p")
    assert region_of(b"hello") == (b"g", b"p")
    assert region_of(b"p") == (b"p", b"")
    assert region_of(b"zzz") == (b"p", b"")
    assert client.getRegionLocation(t, b"m", True).regionInfo.startKey == b"g"

    # Data spread over the regions reads back in order.
    for r in (b"a", b"h", b"q", b"z"):
        put(client, t, r, {(b"f", b"c"): r})
    assert rows_of(scan_all(client, t)) == [b"a", b"h", b"q", b"z"]

    assert client.isTableAvailableWithSplit(tname(table_name), splits) is True
    assert client.isTableAvailableWithSplit(tname(table_name), [b"g", b"x"]) is False


def test_region_locations_of_missing_table(client):
    # As observed on HBase 2.6.1 (docs/oracle.md): all locations of a missing table is an
    # empty list, one location is a TIOError.
    assert client.getAllRegionLocations(b"t2_no_such_table") == []
    with pytest.raises(TIOError):
        client.getRegionLocation(b"t2_no_such_table", b"r", False)


def test_enable_disable_and_state_queries(client, table_name):
    t = create_table(client, table_name)
    tn = tname(table_name)
    put(client, t, b"r", {(b"f", b"a"): b"1"})
    assert client.isTableEnabled(tn) is True
    assert client.isTableDisabled(tn) is False
    assert client.isTableAvailable(tn) is True

    client.disableTable(tn)
    assert client.isTableEnabled(tn) is False
    assert client.isTableDisabled(tn) is True
    assert client.isTableAvailable(tn) is False
    with pytest.raises(TIOError):
        client.get(t, T.TGet(row=b"r"))
    with pytest.raises(TIOError):
        put(client, t, b"r", {(b"f", b"a"): b"2"})

    client.enableTable(tn)
    assert client.isTableEnabled(tn) is True
    assert cells(client.get(t, T.TGet(row=b"r"))) == {(b"f", b"a"): b"1"}


def test_enable_enabled_and_disable_disabled_are_tioerror(client, table_name):
    create_table(client, table_name)
    tn = tname(table_name)
    with pytest.raises(TIOError):
        client.enableTable(tn)
    client.disableTable(tn)
    with pytest.raises(TIOError):
        client.disableTable(tn)


def test_state_of_missing_table_is_tioerror(client):
    tn = tname("t2_missing_state")
    for method in ("isTableEnabled", "isTableDisabled", "enableTable", "disableTable"):
        with pytest.raises(TIOError):
            getattr(client, method)(tn)


def test_delete_table_needs_disable_first(client, table_name):
    create_table(client, table_name)
    tn = tname(table_name)
    with pytest.raises(TIOError):
        client.deleteTable(tn)
    assert client.tableExists(tn) is True
    client.disableTable(tn)
    assert client.deleteTable(tn) is None
    assert client.tableExists(tn) is False
    with pytest.raises(TIOError):
        client.deleteTable(tn)


@pytest.mark.parametrize("preserve", [True, False], ids=["preserve-splits", "drop-splits"])
def test_truncate_table(client, table_name, preserve):
    t = create_table(client, table_name, ("f",), splits=[b"m"])
    tn = tname(table_name)
    put(client, t, b"a", {(b"f", b"c"): b"1"})
    put(client, t, b"z", {(b"f", b"c"): b"2"})
    client.disableTable(tn)
    assert client.truncateTable(tn, preserve) is None
    # HBase leaves a truncated table enabled, empty, with the same families.
    assert client.isTableEnabled(tn) is True
    assert scan_all(client, t) == []
    assert family_names(client.getTableDescriptor(tn)) == [b"f"]
    starts = [l.regionInfo.startKey or b"" for l in client.getAllRegionLocations(t)]
    assert starts == ([b"", b"m"] if preserve else [b""])
    put(client, t, b"b", {(b"f", b"c"): b"3"})
    assert rows_of(scan_all(client, t)) == [b"b"]


# ----------------------------------------------------------------------------------------------
# Column families and modifyTable
# ----------------------------------------------------------------------------------------------


def test_add_modify_delete_column_family(client, table_name):
    t = create_table(client, table_name, ("f",))
    tn = tname(table_name)

    client.addColumnFamily(tn, T.TColumnFamilyDescriptor(name=b"h", maxVersions=3))
    d = client.getTableDescriptor(tn)
    assert family_names(d) == [b"f", b"h"]
    assert {c.name: c.maxVersions for c in d.columns}[b"h"] == 3
    for ts in (1, 2, 3):
        put(client, t, b"r", [cv(b"h", b"q", str(ts).encode(), ts)])
    assert len(versions(client.get(t, T.TGet(row=b"r", maxVersions=10)), b"h", b"q")) == 3

    with pytest.raises(TIOError):
        client.addColumnFamily(tn, T.TColumnFamilyDescriptor(name=b"h"))

    client.modifyColumnFamily(tn, T.TColumnFamilyDescriptor(name=b"h", maxVersions=1))
    d = client.getTableDescriptor(tn)
    assert {c.name: c.maxVersions for c in d.columns}[b"h"] == 1
    assert versions(client.get(t, T.TGet(row=b"r", maxVersions=10)), b"h", b"q") == [(b"3", 3)]

    client.deleteColumnFamily(tn, b"h")
    assert family_names(client.getTableDescriptor(tn)) == [b"f"]
    with pytest.raises(TIOError):
        put(client, t, b"r", {(b"h", b"q"): b"x"})
    with pytest.raises(TIOError):
        client.modifyColumnFamily(tn, T.TColumnFamilyDescriptor(name=b"nosuch", maxVersions=2))


def test_column_family_descriptor_fields_round_trip(client, table_name):
    fam = T.TColumnFamilyDescriptor(
        name=b"f",
        maxVersions=7,
        minVersions=1,
        timeToLive=3600,
        inMemory=True,
        blockSize=32768,
        bloomnFilterType=T.TBloomFilterType.ROWCOL,
        compressionType=T.TCompressionAlgorithm.GZ,
        dataBlockEncoding=T.TDataBlockEncoding.FAST_DIFF,
        keepDeletedCells=T.TKeepDeletedCells.TRUE,
        blockCacheEnabled=False,
        scope=1,
    )
    client.createTable(T.TTableDescriptor(tableName=tname(table_name), columns=[fam]), None)
    got = client.getTableDescriptor(tname(table_name)).columns[0]
    for field in (
        "name",
        "maxVersions",
        "minVersions",
        "timeToLive",
        "inMemory",
        "blockSize",
        "bloomnFilterType",
        "compressionType",
        "dataBlockEncoding",
        "keepDeletedCells",
        "blockCacheEnabled",
        "scope",
    ):
        assert getattr(got, field) == getattr(fam, field), field


def test_modify_table_replaces_the_families(client, table_name):
    t = create_table(client, table_name, ("f", "g"))
    tn = tname(table_name)
    put(client, t, b"r", {(b"f", b"a"): b"keep"})
    client.modifyTable(
        T.TTableDescriptor(
            tableName=tn,
            columns=[
                T.TColumnFamilyDescriptor(name=b"f", maxVersions=6),
                T.TColumnFamilyDescriptor(name=b"k"),
            ],
        )
    )
    d = client.getTableDescriptor(tn)
    assert family_names(d) == [b"f", b"k"]
    assert {c.name: c.maxVersions for c in d.columns}[b"f"] == 6
    assert cells(client.get(t, T.TGet(row=b"r"))) == {(b"f", b"a"): b"keep"}
    put(client, t, b"r", {(b"k", b"x"): b"new"})
    with pytest.raises(TIOError):
        put(client, t, b"r", {(b"g", b"x"): b"gone"})


def test_modify_missing_table_is_tioerror(client):
    with pytest.raises(TIOError):
        client.modifyTable(
            T.TTableDescriptor(
                tableName=tname("t2_missing_modify"), columns=[T.TColumnFamilyDescriptor(name=b"f")]
            )
        )


# ----------------------------------------------------------------------------------------------
# Name patterns and namespaces
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def pattern_tables(client):
    client.createNamespace(T.TNamespaceDescriptor(name="t2pat"))
    made = ["patx_a", "patx_b", "other_patx", "t2pat:patx_c", "t2pat:zz"]
    for n in made:
        create_table(client, n, ("f",))
    yield made
    for n in made:
        drop_table(client, n)
    client.deleteNamespace("t2pat")


def test_table_names_by_pattern(client, pattern_tables):
    got = names(client.getTableNamesByPattern("patx_.*", False))
    assert got == [(b"default", b"patx_a"), (b"default", b"patx_b")]
    # Whole-name match, as Java's Pattern.matches.
    assert names(client.getTableNamesByPattern("patx", False)) == []
    assert names(client.getTableNamesByPattern(".*patx.*", False)) == [
        (b"default", b"other_patx"),
        (b"default", b"patx_a"),
        (b"default", b"patx_b"),
        (b"t2pat", b"patx_c"),
    ]
    assert names(client.getTableNamesByPattern("t2pat:.*", False)) == [
        (b"t2pat", b"patx_c"),
        (b"t2pat", b"zz"),
    ]
    assert names(client.getTableNamesByPattern("patx_[ab]|t2pat:z+", False)) == [
        (b"default", b"patx_a"),
        (b"default", b"patx_b"),
        (b"t2pat", b"zz"),
    ]
    # No pattern: every user table.
    everything = names(client.getTableNamesByPattern(None, False))
    for n in pattern_tables:
        ns, q = n.split(":") if ":" in n else ("default", n)
        assert (ns.encode(), q.encode()) in everything
    assert all(ns != b"hbase" for ns, _ in everything)


def test_table_descriptors_by_pattern(client, pattern_tables):
    ds = client.getTableDescriptorsByPattern("patx_.*", False)
    assert sorted(d.tableName.qualifier for d in ds) == [b"patx_a", b"patx_b"]
    assert all(family_names(d) == [b"f"] for d in ds)


def test_tables_by_namespace(client, pattern_tables):
    assert names(client.getTableNamesByNamespace("t2pat")) == [
        (b"t2pat", b"patx_c"),
        (b"t2pat", b"zz"),
    ]
    ds = client.getTableDescriptorsByNamespace("t2pat")
    assert sorted(d.tableName.qualifier for d in ds) == [b"patx_c", b"zz"]
    assert all(d.tableName.ns == b"t2pat" for d in ds)
    assert (b"default", b"patx_a") in names(client.getTableNamesByNamespace("default"))
    with pytest.raises(TIOError):
        client.getTableNamesByNamespace("t2_no_such_ns")
    with pytest.raises(TIOError):
        client.getTableDescriptorsByNamespace("t2_no_such_ns")


def test_namespace_lifecycle(client):
    ns = "t2ns_life"
    assert ns not in client.listNamespaces()
    client.createNamespace(T.TNamespaceDescriptor(name=ns, configuration={"k1": "v1"}))
    d = client.getNamespaceDescriptor(ns)
    assert d.name == ns
    assert d.configuration == {"k1": "v1"}
    assert {"default", "hbase", ns} <= set(client.listNamespaces())
    descs = {n.name: n for n in client.listNamespaceDescriptors()}
    assert {"default", "hbase", ns} <= set(descs)
    assert descs[ns].configuration == {"k1": "v1"}

    with pytest.raises(TIOError):
        client.createNamespace(T.TNamespaceDescriptor(name=ns))

    client.modifyNamespace(T.TNamespaceDescriptor(name=ns, configuration={"k2": "v2"}))
    assert client.getNamespaceDescriptor(ns).configuration == {"k2": "v2"}

    # A table in the namespace: by TTableName(ns, q) for admin, "ns:q" for data.
    client.createTable(
        T.TTableDescriptor(
            tableName=T.TTableName(ns=ns.encode(), qualifier=b"tt"),
            columns=[T.TColumnFamilyDescriptor(name=b"f")],
        ),
        None,
    )
    full = f"{ns}:tt".encode()
    put(client, full, b"r", {(b"f", b"a"): b"1"})
    assert cells(client.get(full, T.TGet(row=b"r"))) == {(b"f", b"a"): b"1"}
    assert client.tableExists(T.TTableName(ns=ns.encode(), qualifier=b"tt")) is True
    assert client.tableExists(T.TTableName(qualifier=b"tt")) is False

    # A namespace holding tables cannot be deleted.
    with pytest.raises(TIOError):
        client.deleteNamespace(ns)
    drop_table(client, f"{ns}:tt")
    assert client.deleteNamespace(ns) is None
    assert ns not in client.listNamespaces()
    with pytest.raises(TIOError):
        client.getNamespaceDescriptor(ns)


def test_missing_namespace_errors(client):
    with pytest.raises(TIOError):
        client.getNamespaceDescriptor("t2_nope_ns")
    with pytest.raises(TIOError):
        client.deleteNamespace("t2_nope_ns")
    with pytest.raises(TIOError):
        client.modifyNamespace(T.TNamespaceDescriptor(name="t2_nope_ns", configuration={}))
    with pytest.raises(TIOError):
        create_table(client, "t2_nope_ns:t")


def test_reserved_namespaces_cannot_be_deleted(client):
    for ns in ("default", "hbase"):
        with pytest.raises(TIOError):
            client.deleteNamespace(ns)
        assert ns in client.listNamespaces()
