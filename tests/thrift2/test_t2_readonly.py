"""--read-only: every Thrift2 change fails with HBase's read-only TIOError, reads work.

HBase's thrift2 handler calls checkReadOnlyMode() first in put, putMultiple, checkAndPut,
deleteSingle, deleteMultiple, checkAndDelete, increment, append, mutateRow and checkAndMutate:
TIOError(message="Thrift Server is in Read-only mode.", canRetry=false), from a
DoNotRetryIOException. redbase goes further on purpose (docs/compatibility.md): table and
namespace administration, grant/revoke and clearing the slow log are refused the same way.
"""

import pytest

from t2_util import T, cells, col, create_table, cv, put, rows_of, scan_all, tname

READ_ONLY_MESSAGE = "Thrift Server is in Read-only mode."
TABLE = b"t2_readonly"


@pytest.fixture(scope="module")
def ro_server(tmp_path_factory):
    """Data written by a normal server, then served by a --read-only one on the same data."""
    from t2_util import Server

    data = tmp_path_factory.mktemp("readonly") / "data"
    writer = Server(data).start()
    c = writer.client()
    create_table(c, TABLE.decode(), ("f",))
    for r in (b"a", b"b", b"c"):
        put(c, TABLE, r, {(b"f", b"q"): r, (b"f", b"n"): (1).to_bytes(8, "big")})
    c.close()
    writer.stop_and_check()

    srv = Server(data, ["--read-only"]).start()
    yield srv
    srv.stop_and_check()


@pytest.fixture
def ro(ro_server):
    c = ro_server.client()
    yield c
    c.close()


def rm(row=b"a"):
    return T.TRowMutations(
        row=row, mutations=[T.TMutation(put=T.TPut(row=row, columnValues=[cv(b"f", b"q", b"X")]))]
    )


MUTATIONS = {
    "put": lambda c: c.put(TABLE, T.TPut(row=b"a", columnValues=[cv(b"f", b"q", b"X")])),
    "putMultiple": lambda c: c.putMultiple(
        TABLE, [T.TPut(row=b"z", columnValues=[cv(b"f", b"q", b"X")])]
    ),
    "checkAndPut": lambda c: c.checkAndPut(
        TABLE, b"a", b"f", b"q", b"a", T.TPut(row=b"a", columnValues=[cv(b"f", b"q", b"X")])
    ),
    "deleteSingle": lambda c: c.deleteSingle(TABLE, T.TDelete(row=b"a")),
    "deleteMultiple": lambda c: c.deleteMultiple(TABLE, [T.TDelete(row=b"a"), T.TDelete(row=b"b")]),
    "checkAndDelete": lambda c: c.checkAndDelete(
        TABLE, b"a", b"f", b"q", b"a", T.TDelete(row=b"a")
    ),
    "increment": lambda c: c.increment(
        TABLE, T.TIncrement(row=b"a", columns=[T.TColumnIncrement(family=b"f", qualifier=b"n")])
    ),
    "append": lambda c: c.append(TABLE, T.TAppend(row=b"a", columns=[cv(b"f", b"q", b"X")])),
    "mutateRow": lambda c: c.mutateRow(TABLE, rm()),
    "checkAndMutate": lambda c: c.checkAndMutate(
        TABLE, b"a", b"f", b"q", T.TCompareOperator.EQUAL, b"a", rm()
    ),
}


@pytest.mark.parametrize("method", list(MUTATIONS))
def test_mutation_is_refused(ro, method):
    with pytest.raises(T.TIOError) as err:
        MUTATIONS[method](ro)
    assert err.value.message == READ_ONLY_MESSAGE
    assert err.value.canRetry is False
    # Nothing changed, and the connection still serves reads.
    assert rows_of(scan_all(ro, TABLE)) == [b"a", b"b", b"c"]
    assert cells(ro.get(TABLE, T.TGet(row=b"a", columns=[col(b"f", b"q")]))) == {(b"f", b"q"): b"a"}


def test_reads_work(ro):
    assert ro.exists(TABLE, T.TGet(row=b"b")) is True
    assert ro.existsAll(TABLE, [T.TGet(row=b"b"), T.TGet(row=b"zz")]) == [True, False]
    res = ro.getMultiple(TABLE, [T.TGet(row=b"c"), T.TGet(row=b"zz")])
    assert [r.row for r in res] == [b"c", None]
    assert rows_of(ro.getScannerResults(TABLE, T.TScan(startRow=b"b"), 5)) == [b"b", b"c"]
    sid = ro.openScanner(TABLE, T.TScan())
    assert rows_of(ro.getScannerRows(sid, 2)) == [b"a", b"b"]
    ro.closeScanner(sid)
    assert ro.getTableDescriptor(tname(TABLE)).tableName.qualifier == TABLE
    assert len(ro.getAllRegionLocations(TABLE)) == 1
    assert ro.getThriftServerType() == T.TThriftServerType.TWO


def family(name):
    return T.TColumnFamilyDescriptor(name=name)


ADMINISTRATION = {
    "createTable": lambda c: create_table(c, "t2_readonly_ddl", ("f",)),
    "deleteTable": lambda c: c.deleteTable(tname(TABLE)),
    "truncateTable": lambda c: c.truncateTable(tname(TABLE), True),
    "enableTable": lambda c: c.enableTable(tname(TABLE)),
    "disableTable": lambda c: c.disableTable(tname(TABLE)),
    "addColumnFamily": lambda c: c.addColumnFamily(tname(TABLE), family(b"g")),
    "deleteColumnFamily": lambda c: c.deleteColumnFamily(tname(TABLE), b"f"),
    "modifyColumnFamily": lambda c: c.modifyColumnFamily(tname(TABLE), family(b"f")),
    "modifyTable": lambda c: c.modifyTable(
        T.TTableDescriptor(tableName=tname(TABLE), columns=[family(b"f")])
    ),
    "createNamespace": lambda c: c.createNamespace(T.TNamespaceDescriptor(name="ro_ns")),
    "modifyNamespace": lambda c: c.modifyNamespace(T.TNamespaceDescriptor(name="default")),
    "deleteNamespace": lambda c: c.deleteNamespace("ro_ns"),
    "clearSlowLogResponses": lambda c: c.clearSlowLogResponses(set()),
    "grant": lambda c: c.grant(
        T.TAccessControlEntity(
            username="bob", scope=T.TPermissionScope.TABLE, actions="R", tableName=TABLE.decode()
        )
    ),
    "revoke": lambda c: c.revoke(
        T.TAccessControlEntity(
            username="bob", scope=T.TPermissionScope.NAMESPACE, actions="R", nsName="default"
        )
    ),
}


@pytest.mark.parametrize("method", list(ADMINISTRATION))
def test_administration_is_refused(ro, method):
    # Read-only means no changes at all: DDL, namespaces, grants and the slow log too.
    with pytest.raises(T.TIOError) as err:
        ADMINISTRATION[method](ro)
    assert err.value.message == READ_ONLY_MESSAGE
    assert err.value.canRetry is False
    assert ro.tableExists(tname(TABLE)) is True
    assert ro.tableExists(tname("t2_readonly_ddl")) is False
    assert ro.isTableEnabled(tname(TABLE)) is True
    assert sorted(ro.listNamespaces()) == ["default", "hbase"]
    assert [f.name for f in ro.getTableDescriptor(tname(TABLE)).columns] == [b"f"]
