"""One engine behind both gateways: what Thrift1 writes Thrift2 reads, and the other way round.

Thrift1 (`Hbase`, idl/hbase1.thrift) and Thrift2 (`THBaseService`, idl/hbase2.thrift) clients
talk to the same server process. The two clients use different transports and protocols on
purpose (Thrift1 framed + compact, Thrift2 buffered + binary).
"""

import pytest
from thriftpy2.rpc import make_client

from t2_util import (
    T,
    cells,
    col,
    create_table,
    cv,
    from_i64,
    hbase1,
    i64,
    put,
    rows_of,
    scan_all,
    versions,
)

H1 = hbase1


@pytest.fixture
def c1(server):
    c = server.client1("framed", "compact")
    yield c
    c.close()


@pytest.fixture
def c2(server):
    c = server.client("buffered", "binary")
    yield c
    c.close()


def t1_create(c1, name, families=("f", "g"), max_versions=5):
    c1.createTable(
        name.encode(),
        [H1.ColumnDescriptor(name=f"{f}:".encode(), maxVersions=max_versions) for f in families],
    )
    return name.encode()


def t1_row(c1, table, row):
    """Thrift1 getRow as {"f:q": (value, timestamp)}, or None when the row is missing."""
    res = c1.getRow(table, row, {})
    if not res:
        return None
    assert len(res) == 1
    return {k: (v.value, v.timestamp) for k, v in res[0].columns.items()}


def test_tables_created_on_one_gateway_exist_on_the_other(c1, c2, table_name):
    a = t1_create(c1, table_name + "_t1")
    d = c2.getTableDescriptor(T.TTableName(qualifier=a))
    assert sorted(f.name for f in d.columns) == [b"f", b"g"]
    assert all(f.maxVersions == 5 for f in d.columns)

    b = create_table(c2, table_name + "_t2", ("x",), maxVersions=2)
    assert b in c1.getTableNames()
    descs = c1.getColumnDescriptors(b)
    assert list(descs) == [b"x:"]
    assert descs[b"x:"].maxVersions == 2


def test_thrift1_writes_thrift2_reads(c1, c2, table_name):
    t = t1_create(c1, table_name)
    c1.mutateRow(
        t,
        b"r1",
        [
            H1.Mutation(column=b"f:a", value=b"1"),
            H1.Mutation(column=b"g:", value=b"empty-qualifier"),
        ],
        {},
    )
    c1.mutateRowTs(t, b"r2", [H1.Mutation(column=b"f:a", value=b"old")], 100, {})
    c1.mutateRowTs(t, b"r2", [H1.Mutation(column=b"f:a", value=b"new")], 200, {})

    r = c2.get(t, T.TGet(row=b"r1"))
    assert r.row == b"r1"
    assert cells(r) == {(b"f", b"a"): b"1", (b"g", b""): b"empty-qualifier"}
    assert all(c.type == 4 for c in r.columnValues)
    assert versions(c2.get(t, T.TGet(row=b"r2", maxVersions=5))) == [(b"new", 200), (b"old", 100)]
    assert rows_of(scan_all(c2, t)) == [b"r1", b"r2"]
    # Same timestamps on both sides.
    t1 = t1_row(c1, t, b"r1")
    assert {(c.family, c.qualifier): c.timestamp for c in r.columnValues} == {
        (b"f", b"a"): t1[b"f:a"][1],
        (b"g", b""): t1[b"g:"][1],
    }


def test_thrift2_writes_thrift1_reads(c1, c2, table_name):
    t = create_table(c2, table_name, ("f", "g"), maxVersions=5)
    put(c2, t, b"r1", [cv(b"f", b"a", b"1"), cv(b"g", b"", b"e")])
    c2.put(t, T.TPut(row=b"r2", columnValues=[cv(b"f", b"a", b"v100")], timestamp=100))
    put(c2, t, b"r2", [cv(b"f", b"a", b"v300", 300)])

    row1 = t1_row(c1, t, b"r1")
    assert {k: v for k, (v, _) in row1.items()} == {b"f:a": b"1", b"g:": b"e"}
    cellsv = c1.getVer(t, b"r2", b"f:a", 5, {})
    assert [(c.value, c.timestamp) for c in cellsv] == [(b"v300", 300), (b"v100", 100)]
    # Thrift1 reads "at" a timestamp cover [0, ts).
    assert t1_row(c1, t, b"r2") == {b"f:a": (b"v300", 300)}
    assert c1.getRowTs(t, b"r2", 300, {})[0].columns[b"f:a"].value == b"v100"

    sid = c1.scannerOpenWithScan(t, H1.TScan(), {})
    try:
        got = c1.scannerGetList(sid, 10)
    finally:
        c1.scannerClose(sid)
    assert [r.row for r in got] == [b"r1", b"r2"]


def test_deletes_cross_both_ways(c1, c2, table_name):
    t = t1_create(c1, table_name)
    for r in (b"a", b"b", b"c"):
        muts = [H1.Mutation(column=b"f:q", value=r), H1.Mutation(column=b"g:q", value=r)]
        c1.mutateRow(t, r, muts, {})
    # Thrift2 deletes, Thrift1 sees it.
    c2.deleteSingle(t, T.TDelete(row=b"a"))
    family_delete = T.TDelete(row=b"b", columns=[col(b"g")], deleteType=T.TDeleteType.DELETE_FAMILY)
    c2.deleteSingle(t, family_delete)
    assert t1_row(c1, t, b"a") is None
    assert set(t1_row(c1, t, b"b")) == {b"f:q"}
    # Thrift1 deletes, Thrift2 sees it.
    c1.deleteAllRow(t, b"c", {})
    c1.deleteAll(t, b"b", b"f:q", {})
    assert c2.get(t, T.TGet(row=b"c")).row is None
    assert c2.get(t, T.TGet(row=b"b")).row is None
    assert scan_all(c2, t) == []


def test_thrift1_delete_marker_masks_thrift2_put_with_older_timestamp(c1, c2, table_name):
    t = t1_create(c1, table_name)
    c1.deleteAllRowTs(t, b"r", 50, {})
    put(c2, t, b"r", [cv(b"f", b"a", b"at40", 40)])
    assert c2.get(t, T.TGet(row=b"r")).row is None
    assert t1_row(c1, t, b"r") is None
    put(c2, t, b"r", [cv(b"f", b"a", b"at60", 60)])
    assert t1_row(c1, t, b"r") == {b"f:a": (b"at60", 60)}


def test_thrift2_delete_marker_masks_thrift1_put_with_older_timestamp(c1, c2, table_name):
    t = t1_create(c1, table_name)
    c2.deleteSingle(t, T.TDelete(row=b"r", columns=[col(b"f", b"a", ts=50)]))
    c1.mutateRowTs(t, b"r", [H1.Mutation(column=b"f:a", value=b"at50")], 50, {})
    assert t1_row(c1, t, b"r") is None
    assert c2.get(t, T.TGet(row=b"r")).row is None
    c1.mutateRowTs(t, b"r", [H1.Mutation(column=b"f:a", value=b"at51")], 51, {})
    assert versions(c2.get(t, T.TGet(row=b"r", maxVersions=5))) == [(b"at51", 51)]


def test_counters_are_shared(c1, c2, table_name):
    t = t1_create(c1, table_name)
    assert c1.atomicIncrement(t, b"r", b"f:n", 5) == 5
    by2 = T.TColumnIncrement(family=b"f", qualifier=b"n", amount=2)
    r = c2.increment(t, T.TIncrement(row=b"r", columns=[by2]))
    assert [from_i64(c.value) for c in r.columnValues] == [7]
    assert c1.atomicIncrement(t, b"r", b"f:n", -10) == -3
    assert c1.get(t, b"r", b"f:n", {})[0].value == i64(-3)
    assert cells(c2.get(t, T.TGet(row=b"r"))) == {(b"f", b"n"): i64(-3)}


def test_check_and_put_sees_the_other_gateways_writes(c1, c2, table_name):
    t = t1_create(c1, table_name)
    c1.mutateRow(t, b"r", [H1.Mutation(column=b"f:c", value=b"v1")], {})
    p = T.TPut(row=b"r", columnValues=[cv(b"f", b"x", b"X")])
    assert c2.checkAndPut(t, b"r", b"f", b"c", b"v1", p) is True
    assert c1.get(t, b"r", b"f:x", {})[0].value == b"X"
    # Thrift1's checkAndPut against a value Thrift2 wrote.
    assert c1.checkAndPut(t, b"r", b"f:x", b"X", H1.Mutation(column=b"f:y", value=b"Y"), {}) is True
    assert cells(c2.get(t, T.TGet(row=b"r", columns=[col(b"f", b"y")]))) == {(b"f", b"y"): b"Y"}


def test_same_cluster_different_server_types(c1, c2):
    assert c1.getClusterId() == c2.getClusterId()
    assert c1.getThriftServerType() == H1.TThriftServerType.ONE
    assert c2.getThriftServerType() == T.TThriftServerType.TWO


def test_each_port_serves_only_its_own_interface(server):
    # A Thrift1 client on the Thrift2 port: getThriftServerType exists in both services (TWO
    # there), a Thrift1-only method is answered as its declared IOError naming the right port
    # (test_t2_wrong_port.py has the rest).
    on2 = make_client(H1.Hbase, server.host, server.port2, timeout=10_000)
    try:
        assert on2.getThriftServerType() == 2
        with pytest.raises(H1.IOError) as err:
            on2.getTableNames()
        assert f"Thrift1 is on 127.0.0.1:{server.port1}" in err.value.message
    finally:
        on2.close()
    on1 = make_client(T.THBaseService, server.host, server.port1, timeout=10_000)
    try:
        assert on1.getThriftServerType() == 1
        with pytest.raises(T.TIOError) as err:
            on1.listNamespaces()
        assert f"Thrift2 is on 127.0.0.1:{server.port2}" in err.value.message
    finally:
        on1.close()
