"""Ask a running oracle (tests/oracle/hbase.sh start) the questions whose answers matter for
compatibility, and print each answer as it was on the wire (see wire.py).

Usage: python3 tests/oracle/observe.py [THRIFT1_PORT [THRIFT2_PORT]]   (defaults 19090 19091)

Creates tables named obs_<time>_*, drops them at the end. docs/oracle.md records a run.
"""

import sys
import time
from pathlib import Path

import thriftpy2
from thriftpy2.rpc import make_client

from wire import Wire

HOST = "127.0.0.1"
IDL = Path(__file__).resolve().parents[2] / "idl"
h1 = thriftpy2.load(str(IDL / "hbase1.thrift"), module_name="oracle_obs_hbase1_thrift")
h2 = thriftpy2.load(str(IDL / "hbase2.thrift"), module_name="oracle_obs_hbase2_thrift")
S1, S2 = h1.Hbase, h2.THBaseService
MAXLEN = 1200


def show(label, outcome):
    kind, text = outcome
    text = "None" if text is None else text
    if len(text) > MAXLEN:
        text = text[:MAXLEN] + f"... ({len(text)} chars)"
    print(f"- {label}\n    {kind}: {text}")


def main(p1, p2):
    stamp = int(time.time())
    name = f"obs_{stamp}".encode()
    tn = h2.TTableName(ns=b"default", qualifier=name)
    w1, w2 = Wire(HOST, p1), Wire(HOST, p2)
    c2 = make_client(S2, HOST, p2, timeout=60_000)
    T = h2
    c2.createTable(
        T.TTableDescriptor(
            tableName=tn,
            columns=[T.TColumnFamilyDescriptor(name=b"cf", maxVersions=10),
                     T.TColumnFamilyDescriptor(name=b"cf2", maxVersions=10)],
        ),
        None,
    )
    try:
        c2.put(name, T.TPut(row=b"r1", columnValues=[T.TColumnValue(b"cf", b"a", b"v1", timestamp=5)]))

        print("## Thrift2 reads")
        show("get missing row", w2.call(S2, "get", table=name, tget=T.TGet(row=b"nope")))
        show("get existing row", w2.call(S2, "get", table=name, tget=T.TGet(row=b"r1")))
        show("getMultiple [r1, missing]", w2.call(S2, "getMultiple", table=name,
                                                  tgets=[T.TGet(row=b"r1"), T.TGet(row=b"nope")]))
        show("exists missing row", w2.call(S2, "exists", table=name, tget=T.TGet(row=b"nope")))
        show("get row with unknown family column",
             w2.call(S2, "get", table=name, tget=T.TGet(row=b"r1", columns=[T.TColumn(family=b"zz")])))
        show("get on missing table", w2.call(S2, "get", table=b"no_such_table", tget=T.TGet(row=b"r1")))
        show("exists on missing table", w2.call(S2, "exists", table=b"no_such_table", tget=T.TGet(row=b"r1")))
        show("getScannerRows with an unknown scanner id", w2.call(S2, "getScannerRows", scannerId=424242,
                                                                   numRows=1))

        print("## Thrift2 TDelete with a TDelete-level timestamp")
        # each case: fresh row, versions at 10/20/30 of cf:a, cf:b, cf2:c and cf2: (empty
        # qualifier); then one delete (thriftpy2 always sends deleteType: its IDL default).
        cases = [
            ("columns=[cf:a], timestamp=20 (deleteType default DELETE_COLUMNS)",
             T.TDelete(row=b"", columns=[T.TColumn(family=b"cf", qualifier=b"a")], timestamp=20)),
            ("columns=[cf:a], timestamp=20, deleteType=DELETE_COLUMN",
             T.TDelete(row=b"", columns=[T.TColumn(family=b"cf", qualifier=b"a")], timestamp=20,
                       deleteType=T.TDeleteType.DELETE_COLUMN)),
            ("columns=[cf:a ts=30], timestamp=20 (column ts and delete ts)",
             T.TDelete(row=b"", columns=[T.TColumn(family=b"cf", qualifier=b"a", timestamp=30)], timestamp=20)),
            ("columns=[cf:a ts=30], timestamp=20, deleteType=DELETE_COLUMN",
             T.TDelete(row=b"", columns=[T.TColumn(family=b"cf", qualifier=b"a", timestamp=30)], timestamp=20,
                       deleteType=T.TDeleteType.DELETE_COLUMN)),
            ("columns=[cf2] (family only), timestamp=20",
             T.TDelete(row=b"", columns=[T.TColumn(family=b"cf2")], timestamp=20)),
            ("columns=[cf2] (family only), timestamp=20, deleteType=DELETE_FAMILY_VERSION",
             T.TDelete(row=b"", columns=[T.TColumn(family=b"cf2")], timestamp=20,
                       deleteType=T.TDeleteType.DELETE_FAMILY_VERSION)),
            ("columns=[cf2] (family only), timestamp=20, deleteType=DELETE_FAMILY",
             T.TDelete(row=b"", columns=[T.TColumn(family=b"cf2")], timestamp=20,
                       deleteType=T.TDeleteType.DELETE_FAMILY)),
            ("columns=[cf2 ts=20] (family only), deleteType=DELETE_FAMILY",
             T.TDelete(row=b"", columns=[T.TColumn(family=b"cf2", timestamp=20)],
                       deleteType=T.TDeleteType.DELETE_FAMILY)),
            ("columns=[cf2 ts=20] (family only), deleteType=DELETE_FAMILY_VERSION",
             T.TDelete(row=b"", columns=[T.TColumn(family=b"cf2", timestamp=20)],
                       deleteType=T.TDeleteType.DELETE_FAMILY_VERSION)),
            ("no columns, timestamp=20", T.TDelete(row=b"", timestamp=20)),
            ("columns=[cf:a], no timestamp, deleteType=DELETE_COLUMN (latest version only)",
             T.TDelete(row=b"", columns=[T.TColumn(family=b"cf", qualifier=b"a")],
                       deleteType=T.TDeleteType.DELETE_COLUMN)),
        ]
        for i, (label, d) in enumerate(cases):
            row = f"d{i}".encode()
            for ts in (10, 20, 30):
                c2.put(name, T.TPut(row=row, columnValues=[
                    T.TColumnValue(b"cf", b"a", f"a{ts}".encode(), timestamp=ts),
                    T.TColumnValue(b"cf", b"b", f"b{ts}".encode(), timestamp=ts),
                    T.TColumnValue(b"cf2", b"c", f"c{ts}".encode(), timestamp=ts),
                    T.TColumnValue(b"cf2", b"", f"e{ts}".encode(), timestamp=ts)]))
            d.row = row
            out = w2.call(S2, "deleteSingle", table=name, tdelete=d)
            r = c2.get(name, T.TGet(row=row, maxVersions=10))
            left = {}
            for cv in r.columnValues:
                left.setdefault(f"{cv.family.decode()}:{cv.qualifier.decode()}", []).append(cv.timestamp)
            show(label, ("ok", f"{out[0]} {out[1]}; versions left: {left}"))

        print("## Thrift2 errors")
        show("put to unknown family", w2.call(S2, "put", table=name, tput=T.TPut(
            row=b"r1", columnValues=[T.TColumnValue(b"nofam", b"q", b"v")])))
        show("put with empty columnValues", w2.call(S2, "put", table=name, tput=T.TPut(row=b"r1", columnValues=[])))
        show("putMultiple with one empty TPut among good ones", w2.call(S2, "putMultiple", table=name, tputs=[
            T.TPut(row=b"pm1", columnValues=[T.TColumnValue(b"cf", b"q", b"v")]),
            T.TPut(row=b"pm2", columnValues=[])]))
        show("  then exists pm1", w2.call(S2, "exists", table=name, tget=T.TGet(row=b"pm1")))
        show("put to missing table", w2.call(S2, "put", table=b"no_such_table", tput=T.TPut(
            row=b"r1", columnValues=[T.TColumnValue(b"cf", b"q", b"v")])))
        show("deleteTable of an enabled table", w2.call(S2, "deleteTable", tableName=tn))
        show("createTable of an existing table", w2.call(S2, "createTable", desc=T.TTableDescriptor(
            tableName=tn, columns=[T.TColumnFamilyDescriptor(name=b"cf")]), splitKeys=None))
        show("createTable without families", w2.call(S2, "createTable", desc=T.TTableDescriptor(
            tableName=T.TTableName(ns=b"default", qualifier=name + b"_nofam"), columns=[]), splitKeys=None))
        show("deleteTable of a missing table", w2.call(S2, "deleteTable",
                                                       tableName=T.TTableName(ns=b"default", qualifier=b"no_such_table")))

        print("## Thrift2 regions")
        show("getAllRegionLocations", w2.call(S2, "getAllRegionLocations", table=name))
        show("getRegionLocation row r1", w2.call(S2, "getRegionLocation", table=name, row=b"r1", reload=False))
        show("getAllRegionLocations of a missing table", w2.call(S2, "getAllRegionLocations", table=b"no_such_table"))
        show("getRegionLocation of a missing table", w2.call(S2, "getRegionLocation", table=b"no_such_table",
                                                              row=b"r1", reload=False))

        print("## Thrift1")
        show("getTableRegions", w1.call(S1, "getTableRegions", tableName=name))
        show("getTableRegions of a missing table", w1.call(S1, "getTableRegions", tableName=b"no_such_table"))
        show("getRow missing row", w1.call(S1, "getRow", tableName=name, row=b"nope", attributes={}))
        show("get missing row", w1.call(S1, "get", tableName=name, row=b"nope", column=b"cf:a", attributes={}))
        show("getRow existing row", w1.call(S1, "getRow", tableName=name, row=b"r1", attributes={}))
        show("getRow on a missing table", w1.call(S1, "getRow", tableName=b"no_such_table", row=b"r1", attributes={}))
        show("mutateRow to unknown family", w1.call(S1, "mutateRow", tableName=name, row=b"r1", mutations=[
            h1.Mutation(column=b"nofam:q", value=b"v")], attributes={}))
        show("get with unknown family column", w1.call(S1, "get", tableName=name, row=b"r1", column=b"zz:q",
                                                       attributes={}))
        show("mutateRows with an empty BatchMutation", w1.call(S1, "mutateRows", tableName=name, rowBatches=[
            h1.BatchMutation(row=b"b1", mutations=[])], attributes={}))
        show("mutateRow with empty mutations", w1.call(S1, "mutateRow", tableName=name, row=b"r1",
                                                       mutations=[], attributes={}))
        show("mutateRow with column without ':' (column=b'cf')", w1.call(S1, "mutateRow", tableName=name,
                                                                        row=b"m1", mutations=[
            h1.Mutation(column=b"cf", value=b"v")], attributes={}))
        show("  then getRow m1", w1.call(S1, "getRow", tableName=name, row=b"m1", attributes={}))
        show("mutateRow to a missing table", w1.call(S1, "mutateRow", tableName=b"no_such_table", row=b"r1",
                                                     mutations=[h1.Mutation(column=b"cf:q", value=b"v")],
                                                     attributes={}))
        show("scannerGet with an unknown scanner id", w1.call(S1, "scannerGet", id=424242))
        show("deleteTable of an enabled table", w1.call(S1, "deleteTable", tableName=name))
        show("createTable of an existing table", w1.call(S1, "createTable", tableName=name, columnFamilies=[
            h1.ColumnDescriptor(name=b"cf:")]))
        show("getColumnDescriptors", w1.call(S1, "getColumnDescriptors", tableName=name))
        show("getColumnDescriptors of a missing table", w1.call(S1, "getColumnDescriptors", tableName=b"no_such_table"))
        show("disableTable of a missing table", w1.call(S1, "disableTable", tableName=b"no_such_table"))
    finally:
        if c2.tableExists(tn):
            if c2.isTableEnabled(tn):
                c2.disableTable(tn)
            c2.deleteTable(tn)
        extra = T.TTableName(ns=b"default", qualifier=name + b"_nofam")
        if c2.tableExists(extra):
            c2.disableTable(extra)
            c2.deleteTable(extra)
        c2.close()
        w1.close()
        w2.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 19090, int(sys.argv[2]) if len(sys.argv) > 2 else 19091)
