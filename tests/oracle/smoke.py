"""Smoke test of a running oracle (tests/oracle/hbase.sh start): a round trip on each gateway.

Usage: python3 tests/oracle/smoke.py [--rows N] [THRIFT1_PORT [THRIFT2_PORT]]   (ports 19090 19091)

Thrift1 through happybase: create a table with two families, put, get, scan, delete, drop it.
Thrift2 through a thriftpy2 client generated from idl/hbase2.thrift: the same plus exists and a
scanner. Prints each step; exits non-zero on the first unexpected answer. With --rows N it then
writes N rows of 4 x 100-byte cells through each gateway and scans them back (for memory figures).
"""

import sys
import time
from pathlib import Path

import happybase
import thriftpy2
from thriftpy2.rpc import make_client

HOST = "127.0.0.1"
IDL = Path(__file__).resolve().parents[2] / "idl"
hbase2 = thriftpy2.load(str(IDL / "hbase2.thrift"), module_name="oracle_smoke_hbase2_thrift")


def check(what, got, want):
    print(f"{what}: {got!r}")
    if got != want:
        raise SystemExit(f"FAILED {what}: want {want!r}")


def thrift1(port):
    name = f"smoke_t1_{int(time.time())}"
    conn = happybase.Connection(HOST, port=port, timeout=60_000)
    try:
        conn.create_table(name, {"cf1": dict(), "cf2": dict(max_versions=3)})
        check("t1 tables contain the new one", name.encode() in conn.tables(), True)
        t = conn.table(name)
        t.put(b"r1", {b"cf1:a": b"v1", b"cf2:b": b"v2"})
        t.put(b"r2", {b"cf1:a": b"w1"})
        check("t1 row r1", t.row(b"r1"), {b"cf1:a": b"v1", b"cf2:b": b"v2"})
        check("t1 scan", [k for k, _ in t.scan()], [b"r1", b"r2"])
        check("t1 scan cf2", list(t.scan(columns=[b"cf2"])), [(b"r1", {b"cf2:b": b"v2"})])
        t.delete(b"r1", columns=[b"cf1:a"])
        check("t1 row r1 after column delete", t.row(b"r1"), {b"cf2:b": b"v2"})
        t.delete(b"r2")
        check("t1 row r2 after row delete", t.row(b"r2"), {})
        check("t1 families", sorted(t.families()), [b"cf1", b"cf2"])
    finally:
        if name.encode() in conn.tables():
            conn.delete_table(name, disable=True)
        conn.close()
    print("thrift1 OK")


def thrift2(port):
    T = hbase2
    name = f"smoke_t2_{int(time.time())}".encode()
    tn = T.TTableName(ns=b"default", qualifier=name)
    c = make_client(T.THBaseService, HOST, port, timeout=60_000)
    try:
        c.createTable(
            T.TTableDescriptor(
                tableName=tn,
                columns=[T.TColumnFamilyDescriptor(name=b"cf1"), T.TColumnFamilyDescriptor(name=b"cf2", maxVersions=3)],
            ),
            None,
        )
        check("t2 tableExists", c.tableExists(tn), True)
        c.put(name, T.TPut(row=b"r1", columnValues=[T.TColumnValue(b"cf1", b"a", b"v1"), T.TColumnValue(b"cf2", b"b", b"v2")]))
        c.put(name, T.TPut(row=b"r2", columnValues=[T.TColumnValue(b"cf1", b"a", b"w1")]))
        r = c.get(name, T.TGet(row=b"r1"))
        check("t2 get r1", [(cv.family, cv.qualifier, cv.value) for cv in r.columnValues],
              [(b"cf1", b"a", b"v1"), (b"cf2", b"b", b"v2")])
        check("t2 exists r2", c.exists(name, T.TGet(row=b"r2")), True)
        sid = c.openScanner(name, T.TScan())
        rows = c.getScannerRows(sid, 10)
        c.closeScanner(sid)
        check("t2 scanner rows", [x.row for x in rows], [b"r1", b"r2"])
        check("t2 getScannerResults", [x.row for x in c.getScannerResults(name, T.TScan(startRow=b"r2"), 10)], [b"r2"])
        c.deleteSingle(name, T.TDelete(row=b"r1", columns=[T.TColumn(family=b"cf1", qualifier=b"a")]))
        r = c.get(name, T.TGet(row=b"r1"))
        check("t2 get r1 after column delete", [(cv.family, cv.qualifier) for cv in r.columnValues], [(b"cf2", b"b")])
        c.deleteSingle(name, T.TDelete(row=b"r2"))
        check("t2 exists r2 after row delete", c.exists(name, T.TGet(row=b"r2")), False)
    finally:
        if c.tableExists(tn):
            if c.isTableEnabled(tn):
                c.disableTable(tn)
            c.deleteTable(tn)
        c.close()
    print("thrift2 OK")


def load(p1, p2, rows):
    name = f"smoke_load_{int(time.time())}"
    conn = happybase.Connection(HOST, port=p1, timeout=120_000)
    conn.create_table(name, {"cf": dict()})
    c = make_client(hbase2.THBaseService, HOST, p2, timeout=120_000)
    try:
        t = conn.table(name)
        val = b"x" * 100
        with t.batch(batch_size=1000) as b:
            for i in range(rows):
                b.put(b"t1-%08d" % i, {b"cf:%d" % q: val for q in range(4)})
        for start in range(0, rows, 1000):
            c.putMultiple(name.encode(), [
                hbase2.TPut(row=b"t2-%08d" % i, columnValues=[hbase2.TColumnValue(b"cf", b"%d" % q, val) for q in range(4)])
                for i in range(start, min(rows, start + 1000))])
        n1 = sum(1 for _ in t.scan(batch_size=1000))
        sid = c.openScanner(name.encode(), hbase2.TScan(caching=1000))
        n2 = 0
        while True:
            got = c.getScannerRows(sid, 1000)
            if not got:
                break
            n2 += len(got)
        c.closeScanner(sid)
        check("load rows scanned via thrift1, thrift2", (n1, n2), (2 * rows, 2 * rows))
    finally:
        conn.delete_table(name, disable=True)
        conn.close()
        c.close()


if __name__ == "__main__":
    args = sys.argv[1:]
    rows = 0
    if args[:1] == ["--rows"]:
        rows, args = int(args[1]), args[2:]
    p1 = int(args[0]) if len(args) > 0 else 19090
    p2 = int(args[1]) if len(args) > 1 else 19091
    t0 = time.monotonic()
    thrift1(p1)
    thrift2(p2)
    if rows:
        load(p1, p2, rows)
    print(f"smoke OK in {time.monotonic() - t0:.1f}s")
