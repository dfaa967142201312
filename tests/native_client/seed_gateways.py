"""The seed documents' tables across every gateway, around tests/native_client's SeedTablesTest.

Two directions, one server (redbase, or HBase with its Thrift and REST servers):

  write   before the Java suite: creates namespace gw_<pid> and, through Thrift2 (thriftpy2),
          access-logs (16 regions, MD5-prefixed keys, two versions per cell), counters
          (increments) and drive-file (random 16-byte keys), and through REST (HTTP, JSON)
          social-usage and drive-directory, with one delete through each; reads every table
          back through Thrift2, checks it holds what was written, and saves its cells in
          DIR/gateway.cells for SeedTablesTest to compare with what the native client reads.
  check   after the Java suite: every DIR/native-*.cells (the tables SeedTablesTest wrote
          through hbase-client, one file per client version) read back through Thrift1
          (happybase), Thrift2 (thriftpy2), REST (GET /table/*) and `redbase shell` (its
          JSON output), compared cell by cell: row, family, qualifier, timestamp and value of
          every version. Then both directions' namespaces are dropped.
  drop    the tables the rest of the suite left (default namespace, named
          nc_<prefix>_<pid>_<n> by Cluster.freshName), so that a server which outlives the
          run (the oracle) keeps none of them.

Cells files: one cell a line, `table<TAB>row hex<TAB>family<TAB>qualifier hex<TAB>timestamp
<TAB>value hex`, sorted; the Java side writes and reads the same format.

Usage: seed_gateways.py write|check|drop --dir DIR --thrift1 H:P --thrift2 H:P --rest H:P
       [--shell PATH-TO-redbase]
"""

import argparse
import base64
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import happybase
import thriftpy2
from thriftpy2.rpc import make_client

REPO = Path(__file__).resolve().parents[2]
hbase2 = thriftpy2.load(str(REPO / "idl" / "hbase2.thrift"), module_name="seed_hbase2_thrift")

TIMEOUT_MS = 20_000
SPLITS_16 = [c.encode() for c in "123456789abcdef"]
SYSTEMS = ["jericho", "web_01", "mobile", "api"]


def hostport(s):
    host, port = s.rsplit(":", 1)
    return host, int(port)


def thrift2(addr):
    host, port = hostport(addr)
    return make_client(hbase2.THBaseService, host, port, timeout=TIMEOUT_MS)


def long8(n):
    return n.to_bytes(8, "big", signed=True)


class Rest:
    """HBase's REST API over urllib: JSON bodies and answers, bytes in base64."""

    def __init__(self, addr):
        self.base = f"http://{addr}"

    def call(self, method, path, body=None, accept="application/json"):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Accept", accept)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT_MS / 1000) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"REST {method} {path}: {e.code} {e.read()[:300]!r}") from None


def b64(b):
    return base64.b64encode(b).decode()


def unb64(s):
    return base64.b64decode(s)


# ---------------------------------------------------------------------------------------------
# cells files

def cell_line(table, row, family, qualifier, ts, value):
    return "\t".join([table, row.hex(), family, qualifier.hex(), str(ts), value.hex()])


def write_cells(path, cells):
    path.write_text("".join(cell_line(*c) + "\n" for c in sorted(cells)))


def read_cells(path):
    out = {}
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        t, row, fam, q, ts, v = line.split("\t")
        out.setdefault(t, []).append(
            (t, bytes.fromhex(row), fam, bytes.fromhex(q), int(ts), bytes.fromhex(v)))
    return out


# ---------------------------------------------------------------------------------------------
# reading a whole table through each gateway: a sorted list of
# (table, row, family, qualifier, timestamp, value), every version

def split_column(col):
    fam, _, q = col.partition(b":")
    return fam.decode(), q


def via_thrift2(addr, table):
    c = thrift2(addr)
    try:
        sid = c.openScanner(table.encode(), hbase2.TScan(maxVersions=10, caching=200))
        out = []
        while True:
            rows = c.getScannerRows(sid, 200)
            if not rows:
                break
            for r in rows:
                for cv in r.columnValues:
                    out.append((table, r.row, cv.family.decode(), cv.qualifier, cv.timestamp,
                                cv.value))
        c.closeScanner(sid)
        return sorted(out)
    finally:
        c.close()


def via_thrift1(addr, table):
    """happybase: a scan gives each column's newest version; `cells` (getVer) every version
    of each column the scan found."""
    host, port = hostport(addr)
    conn = happybase.Connection(host, port, timeout=TIMEOUT_MS, autoconnect=True)
    try:
        t = conn.table(table)
        out = []
        for row, cols in t.scan(include_timestamp=True, batch_size=200):
            for col in sorted(cols):
                fam, q = split_column(col)
                newest = cols[col]
                versions = t.cells(row, col, versions=10, include_timestamp=True)
                if not versions or tuple(versions[0]) != tuple(newest):
                    raise AssertionError(f"thrift1 {table} {row!r} {col!r}: scan gave {newest}, "
                                         f"getVer {versions}")
                for value, ts in versions:
                    out.append((table, row, fam, q, ts, value))
        return sorted(out)
    finally:
        conn.close()


def via_rest(addr, table):
    _, body = Rest(addr).call("GET", f"/{table}/*?maxversions=10")
    out = []
    for r in json.loads(body).get("Row", []):
        row = unb64(r["key"])
        for cell in r["Cell"]:
            fam, q = split_column(unb64(cell["column"]))
            out.append((table, row, fam, q, int(cell["timestamp"]), unb64(cell["$"])))
    return sorted(out)


def shell_bytes(v):
    if isinstance(v, dict):
        assert v.get("encoding") == "base64", v
        return unb64(v["data"])
    return v.encode()


def via_shell(binary, thrift2_addr, table):
    p = subprocess.run(
        [binary, "shell", "--thrift2", thrift2_addr, "--format", "json", "-n", "-e",
         f"scan '{table}', {{VERSIONS => 10}}"],
        capture_output=True, timeout=120, check=False)
    if p.returncode != 0:
        raise AssertionError(f"redbase shell exit {p.returncode}: {p.stderr.decode()[-500:]}")
    out = []
    for line in p.stdout.decode().splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        row = shell_bytes(r["row"])
        for cell in r["cells"]:
            fam, q = split_column(shell_bytes(cell["column"]))
            out.append((table, row, fam, q, int(cell["timestamp"]), shell_bytes(cell["value"])))
    return sorted(out)


def compare(label, table, want, got):
    if want == got:
        return True
    ws, gs = set(want), set(got)
    print(f"FAIL {label} {table}: {len(want)} cells expected, {len(got)} read")
    for c in sorted(ws - gs)[:5]:
        print(f"  missing {c[1]!r} {c[2]}:{c[3]!r} @{c[4]} = {c[5][:40]!r}")
    for c in sorted(gs - ws)[:5]:
        print(f"  extra   {c[1]!r} {c[2]}:{c[3]!r} @{c[4]} = {c[5][:40]!r}")
    return False


# ---------------------------------------------------------------------------------------------
# write: the gateway-written direction

def md5_key(user, system, period):
    return f"{hashlib.md5(user.encode()).hexdigest()[:5]}|{system}|{period}".encode()


def write(args):
    ns = f"gw_{os.getpid()}"
    rng = random.Random(39)
    c = thrift2(args.thrift2)
    rest = Rest(args.rest)
    want = []  # cells with the timestamps we chose
    counters = {}  # (table, row, family, qualifier) -> value, timestamps the server's
    try:
        c.createNamespace(hbase2.TNamespaceDescriptor(name=ns))

        def create(name, families, splits=None):
            c.createTable(hbase2.TTableDescriptor(
                tableName=hbase2.TTableName(ns=ns.encode(), qualifier=name.encode()),
                columns=[hbase2.TColumnFamilyDescriptor(name=f.encode(), maxVersions=v)
                         for f, v in families]), splits or [])
            return f"{ns}:{name}"

        # access-logs (seed 000, table 4): {md5(user)[:5]}|{system}|{period}, 16 regions
        t = create("access-logs", [("t", 3)], SPLITS_16)
        for version, ts in ((1, 1_700_000_000_000), (2, 1_700_000_500_000)):
            puts = []
            for u in range(60):
                for s in SYSTEMS[: 1 + u % 4]:
                    for period in (201510, 201511):
                        row = md5_key(f"user{u}", s, period)
                        hits = long8(rng.randrange(1, 10_000) * version)
                        seen = long8(ts - u)
                        puts.append(hbase2.TPut(row=row, columnValues=[
                            hbase2.TColumnValue(b"t", b"h", hits, ts + u),
                            hbase2.TColumnValue(b"t", b"l", seen, ts + u)]))
                        want += [(t, row, "t", b"h", ts + u, hits), (t, row, "t", b"l", ts + u, seen)]
            c.putMultiple(t.encode(), puts)
        # a user's latest hits deleted through Thrift2: its older version shows again
        row = md5_key("user7", "jericho", 201510)
        c.deleteSingle(t.encode(), hbase2.TDelete(row=row, columns=[
            hbase2.TColumn(b"t", b"h", 1_700_000_500_007)], deleteType=hbase2.TDeleteType.DELETE_COLUMN))
        want = [w for w in want if not (w[0] == t and w[1] == row and w[3] == b"h"
                                        and w[4] == 1_700_000_500_007)]

        # counters (seed 000): incr 'counters', 'rkN', 'c:1' and 'c:2', 100 + N
        t = create("counters", [("c", 1)])
        for r in range(20):
            row = f"rk{r}".encode()
            for q, amount in ((b"1", 1), (b"2", 100 + r), (b"1", 1)):
                c.increment(t.encode(), hbase2.TIncrement(
                    row=row, columns=[hbase2.TColumnIncrement(b"c", q, amount)]))
            counters[(t, row, "c", b"1")] = 2
            counters[(t, row, "c", b"2")] = 100 + r

        # drive-file (seed 004): random 16-byte UUID keys, content in c, metadata in cf
        t = create("drive-file", [("c", 1), ("cf", 1)], [b"\x40", b"\x80", b"\xc0"])
        puts = []
        for i in range(40):
            row = bytes(rng.randrange(256) for _ in range(16))
            ts = 1_650_000_000_000 + i
            content = bytes(rng.randrange(256) for _ in range(rng.randrange(100, 3000)))
            cols = [(b"c", b"c", content), (b"cf", b"creator", f"user{i % 5}".encode()),
                    (b"cf", b"size", long8(len(content))), (b"cf", b"type", b"image/png")]
            puts.append(hbase2.TPut(row=row, columnValues=[
                hbase2.TColumnValue(f, q, v, ts) for f, q, v in cols]))
            want += [(t, row, f.decode(), q, ts, v) for f, q, v in cols]
        c.putMultiple(t.encode(), puts)

        # social-usage (seed 000) and drive-directory (seed 004) through REST
        for name, fams in (("social-usage", ["fb", "tw"]), ("drive-directory", ["sub", "cf"])):
            rest.call("PUT", f"/{ns}:{name}/schema", {
                "name": f"{ns}:{name}", "ColumnSchema": [{"name": f, "VERSIONS": "1"} for f in fams]})
        t = f"{ns}:social-usage"
        rows = []
        for u in range(30):
            row = f"user{u}".encode()
            ts = 1_600_000_000_000 + u
            cells = [("fb", b"id", f"fb{u}".encode()), ("tw", b"id", f"@u{u}".encode())]
            total = 0
            for m in range(1, 1 + u % 6):
                n = rng.randrange(0, 500)
                total += n
                cells.append(("fb", f"2015{m:02d}".encode(), long8(n)))
            cells += [("fb", b"t", long8(total)), ("tw", b"t", long8(total * 2))]
            rows.append({"key": b64(row), "Cell": [
                {"column": b64(f.encode() + b":" + q), "timestamp": ts, "$": b64(v)}
                for f, q, v in cells]})
            want += [(t, row, f, q, ts, v) for f, q, v in cells]
        rest.call("PUT", f"/{t}/fakerow", {"Row": rows})
        rest.call("DELETE", f"/{t}/user3/tw:id")
        want = [w for w in want if not (w[0] == t and w[1] == b"user3" and w[2] == "tw" and w[3] == b"id")]

        t = f"{ns}:drive-directory"
        rows = []
        tree = {"/": ["d_home"], "/home": ["d_alice", "d_bob"], "/home/alice": ["d_photos", "f_notes.txt"],
                "/home/alice/photos": [f"f_img{i}.png" for i in range(8)], "/home/bob": ["f_todo"]}
        for i, (path, children) in enumerate(sorted(tree.items())):
            ts = 1_640_000_000_000 + i
            cells = [("cf", b"creator", b"alice" if "bob" not in path else b"bob")]
            cells += [("sub", ch.encode(), (f"uuid-{i}-{ch}" if ch.startswith("f_") else "").encode())
                      for ch in children]
            rows.append({"key": b64(path.encode()), "Cell": [
                {"column": b64(f.encode() + b":" + q), "timestamp": ts, "$": b64(v)}
                for f, q, v in cells]})
            want += [(t, path.encode(), f, q, ts, v) for f, q, v in cells]
        rest.call("PUT", f"/{t}/fakerow", {"Row": rows})
    finally:
        c.close()

    # What Thrift2 reads is what was written; its cells (with the counters' timestamps) are
    # what the native client must read too.
    ok = True
    got_all = []
    for table in sorted({w[0] for w in want} | {k[0] for k in counters}):
        got = via_thrift2(args.thrift2, table)
        got_all += got
        if table.endswith(":counters"):
            values = {(g[0], g[1], g[2], g[3]): int.from_bytes(g[5], "big", signed=True) for g in got}
            if values != counters or len(got) != len(counters):
                print(f"FAIL thrift2 {table}: counters {sorted(values.items())[:3]}...")
                ok = False
        else:
            ok &= compare("thrift2 after write", table, sorted(w for w in want if w[0] == table), got)
    write_cells(Path(args.dir) / "gateway.cells", got_all)
    (Path(args.dir) / "gateway.namespace").write_text(ns)
    print(f"seed_gateways write: {len(got_all)} cells in {len({g[0] for g in got_all})} tables of "
          f"namespace {ns} (Thrift2: access-logs, counters, drive-file; REST: social-usage, "
          f"drive-directory)")
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------------
# check: the native-written direction

def drop_tables(c, names):
    for tn in names:
        if c.isTableEnabled(tn):
            c.disableTable(tn)
        c.deleteTable(tn)


def drop_namespace(addr, ns):
    c = thrift2(addr)
    try:
        drop_tables(c, c.getTableNamesByNamespace(ns))
        c.deleteNamespace(ns)
    finally:
        c.close()


def drop(args):
    """The suite's own tables: default namespace, nc_<prefix>_<pid>_<n>."""
    c = thrift2(args.thrift2)
    try:
        ours = [tn for tn in c.getTableNamesByNamespace("default")
                if re.fullmatch(rb"nc_[a-z_]+_[0-9]+_[0-9]+", tn.qualifier)]
        drop_tables(c, ours)
    finally:
        c.close()
    print(f"seed_gateways drop: {len(ours)} tables of the suite dropped")
    return 0


def check(args):
    d = Path(args.dir)
    files = sorted(d.glob("native-*.cells"))
    ok = bool(files)
    if not files:
        print(f"FAIL no native-*.cells in {d}: SeedTablesTest did not run")
    namespaces = set()
    for f in files:
        tables = read_cells(f)
        for table, want in sorted(tables.items()):
            namespaces.add(table.split(":")[0])
            want = sorted(want)
            readers = [("thrift1", lambda t: via_thrift1(args.thrift1, t)),
                       ("thrift2", lambda t: via_thrift2(args.thrift2, t)),
                       ("rest", lambda t: via_rest(args.rest, t))]
            if args.shell:
                readers.append(("shell", lambda t: via_shell(args.shell, args.thrift2, t)))
            counts = []
            for label, read in readers:
                t0 = time.monotonic()
                good = compare(label, table, want, read(table))
                ok &= good
                counts.append(f"{label} {'ok' if good else 'DIFFERENT'} {time.monotonic() - t0:.1f}s")
            print(f"seed_gateways check {f.name} {table}: {len(want)} cells; {', '.join(counts)}")
    if (d / "gateway.namespace").exists():
        namespaces.add((d / "gateway.namespace").read_text().strip())
    for ns in sorted(namespaces):
        drop_namespace(args.thrift2, ns)
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("step", choices=["write", "check", "drop"])
    p.add_argument("--dir", required=True)
    p.add_argument("--thrift1", required=True)
    p.add_argument("--thrift2", required=True)
    p.add_argument("--rest", required=True)
    p.add_argument("--shell", help="the redbase binary whose `shell` reads the tables too")
    args = p.parse_args()
    Path(args.dir).mkdir(parents=True, exist_ok=True)
    return {"write": write, "check": check, "drop": drop}[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
