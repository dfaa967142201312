"""The REST API side by side: redbase's and HBase 2.6.1's REST server (tests/oracle/hbase.sh),
the same requests from one keep-alive HTTP/1.1 connection each, one after another.

Usage: python3 tests/oracle/rest_bench.py [--rows N] [--rounds R]
  REDBASE_BIN (default target/release/redbase), ORACLE_REST_PORT (19080; the oracle must run
  its REST server: tests/oracle/hbase.sh start, or rest-start).

Phases, each timed per request: single-cell PUTs of JSON cell sets, GETs of random rows
(JSON), stateless scans of 100 rows (JSON), a stateful scanner reading the whole table 1000
cells per GET. Prints a Markdown table of requests per second and p50/p99 latencies; the best
of R rounds.
"""

import argparse
import base64
import http.client
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("REDBASE_BIN", str(ROOT / "target" / "release" / "redbase"))
from redbase_proc import RedbaseProcess  # noqa: E402


def b(s):
    return base64.b64encode(s.encode()).decode()


class Client:
    def __init__(self, port):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method, path, body=None, accept="application/json", ctype="application/json"):
        headers = {"Accept": accept}
        if body is not None:
            headers["Content-Type"] = ctype
        self.c.request(method, path, body=body, headers=headers)
        r = self.c.getresponse()
        data = r.read()
        return r.status, r.getheader("Location"), data


def timed(fn, n):
    lat = []
    t0 = time.perf_counter()
    for i in range(n):
        s = time.perf_counter()
        fn(i)
        lat.append(time.perf_counter() - s)
    total = time.perf_counter() - t0
    lat.sort()
    return n / total, lat[len(lat) // 2] * 1000, lat[int(len(lat) * 0.99)] * 1000


def run(port, table, rows):
    c = Client(port)
    st, _, body = c.call("PUT", f"/{table}/schema",
                         json.dumps({"name": table, "ColumnSchema": [{"name": "cf"}]}))
    assert st in (200, 201), (st, body)
    value = b("x" * 100)
    res = {}

    def put(i):
        cell = {"Row": [{"key": b(f"row{i:08d}"), "Cell": [{"column": b("cf:q"), "$": value}]}]}
        st, _, _ = c.call("PUT", f"/{table}/row{i:08d}", json.dumps(cell))
        assert st == 200, st

    res["put (1 cell)"] = timed(put, rows)
    rnd = random.Random(7)

    def get(i):
        st, _, _ = c.call("GET", f"/{table}/row{rnd.randrange(rows):08d}")
        assert st == 200, st

    res["get (1 row)"] = timed(get, rows)

    def scan(i):
        start = rnd.randrange(max(1, rows - 100))
        st, _, _ = c.call("GET", f"/{table}/*?startrow=row{start:08d}&limit=100")
        assert st == 200, st

    res["stateless scan (100 rows)"] = timed(scan, max(10, rows // 20))

    def scanner(i):
        st, loc, _ = c.call("PUT", f"/{table}/scanner", json.dumps({"batch": 1000}))
        assert st == 201, st
        path = "/" + loc.split("://", 1)[1].split("/", 1)[1]
        while True:
            st, _, _ = c.call("GET", path)
            if st == 204:
                break
            assert st == 200, st
        c.call("DELETE", path)

    res[f"stateful scan ({rows} rows)"] = timed(scanner, 3)
    c.call("DELETE", f"/{table}/schema")
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    hbase_port = int(os.environ.get("ORACLE_REST_PORT", "19080"))
    proc = RedbaseProcess(Path(tempfile.mkdtemp(prefix="rest-bench-")) / "data", gateways=("thrift2",))
    proc.start()
    best = {}
    try:
        for rnd in range(args.rounds):
            for side, port in (("redbase", proc.http_port), ("HBase", hbase_port)):
                for phase, r in run(port, f"restbench{os.getpid()}_{rnd}", args.rows).items():
                    key = (phase, side)
                    if key not in best or r[0] > best[key][0]:
                        best[key] = r
    finally:
        proc.stop()
    phases = list(dict.fromkeys(p for p, _ in best))
    print("| phase | redbase req/s | HBase req/s | ratio | redbase p50 / p99 ms | HBase p50 / p99 ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for p in phases:
        r, h = best[(p, "redbase")], best[(p, "HBase")]
        print(f"| {p} | {r[0]:.0f} | {h[0]:.0f} | {r[0] / h[0]:.1f}x | {r[1]:.2f} / {r[2]:.2f} | "
              f"{h[1]:.2f} / {h[2]:.2f} |")


if __name__ == "__main__":
    main()
