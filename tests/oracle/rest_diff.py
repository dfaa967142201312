"""REST differential runner: every step of tests/oracle/rest_scenarios.py sent to redbase's REST
API and to HBase 2.6.1's REST server (tests/oracle/hbase.sh), answers compared.

Usage: python3 tests/oracle/rest_diff.py [--verbose]

- redbase: REDBASE_BIN (default target/debug/redbase) on free loopback ports, stopped at the end.
- HBase: the REST server on ORACLE_REST_PORT (19080) of a running oracle; when it does not
  answer, `hbase.sh rest-start` adds it to a running oracle (or `hbase.sh start` starts one), and
  what this script started it stops again.

Normalisation: a status of 300 or more compares the status and the body's first line (HBase
adds a Java stack trace after it); JSON and XML bodies compare as trees, with wall-clock
timestamps as "<ts>", region ids, names and locations as placeholders, and lists of tables and
namespaces cut to this run's; text compares as is. Differences listed in
tests/oracle/rest-allow.json ([{"step", "reason"}]) are reported but do not fail the run.
Exit status 0 when every difference is allowed.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(HERE))
from redbase_proc import RedbaseProcess  # noqa: E402
from rest_scenarios import STEPS  # noqa: E402

REST_PORT = int(os.environ.get("ORACLE_REST_PORT", "19080"))
PREFIX = f"rd{os.getpid()}_"


def request(base, method, path, accept=None, ctype=None, body=None, extra=None):
    data = None
    if body is not None:
        if isinstance(body, (dict, list)):
            data = json.dumps(body).replace("{P}", PREFIX).encode()
        elif isinstance(body, str):
            data = body.replace("{P}", PREFIX).encode()
        else:
            data = body
    req = urllib.request.Request(base + path, data=data, method=method)
    if accept:
        req.add_header("Accept", accept)
    if ctype:
        req.add_header("Content-Type", ctype)
    for k, v in (extra or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def is_clock(v):
    try:
        return 10**12 <= int(v) < 10**14
    except (TypeError, ValueError):
        return False


def ours(name):
    return name.startswith(PREFIX) or name in ("default", "hbase")


def norm_json(v, key=None):
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k in ("id", "location", "startCode") or (k == "name" and isinstance(x, str) and "," in x):
                out[k] = f"<{k}>"
            elif k == "timestamp" and is_clock(x):
                out[k] = "<ts>"
            elif k == "table" and isinstance(x, list):
                out[k] = [norm_json(t) for t in x if ours(t.get("name", ""))]
            elif k == "Namespace" and isinstance(x, list):
                out[k] = [n for n in x if ours(n)]
            else:
                out[k] = norm_json(x, k)
        return out
    if isinstance(v, list):
        return [norm_json(x, key) for x in v]
    if isinstance(v, str):
        return v.replace(PREFIX, "{P}")
    return v


def norm_xml(e):
    attrs = {}
    for k, v in e.attrib.items():
        if k in ("id", "location", "startCode") or (k == "name" and e.tag == "Region"):
            v = f"<{k}>"
        elif k == "timestamp" and is_clock(v):
            v = "<ts>"
        attrs[k] = v.replace(PREFIX, "{P}")
    kids = [norm_xml(c) for c in e]
    if e.tag == "TableList":
        kids = [k for k in kids if ours(k[1].get("name", "").replace("{P}", PREFIX))]
    if e.tag == "Namespaces":
        kids = [k for k in kids if ours(k[2].replace("{P}", PREFIX))]
    return (e.tag, attrs, (e.text or "").strip().replace(PREFIX, "{P}"), kids)


def normalise(status, headers, body):
    ctype = (headers.get("Content-Type") or headers.get("content-type") or "").split(";")[0].strip()
    if status >= 300:
        first = body.decode("utf-8", "replace").split("\r\n")[0].split("\n")[0]
        return {"status": status, "first line": first.replace(PREFIX, "{P}")}
    out = {"status": status}
    if not body:
        return out
    out["type"] = ctype
    if ctype == "application/json":
        try:
            out["body"] = norm_json(json.loads(body))
        except ValueError:
            out["body"] = body.decode("utf-8", "replace")
    elif ctype in ("text/xml", "application/xml"):
        try:
            out["body"] = norm_xml(ET.fromstring(body))
        except ET.ParseError:
            out["body"] = body.decode("utf-8", "replace")
    elif ctype in ("application/octet-stream", "application/x-protobuf", "application/protobuf"):
        out["body"] = body.hex()
    else:
        out["body"] = body.decode("utf-8", "replace").replace(PREFIX, "{P}")
    return out


def location_path(headers):
    loc = headers.get("Location") or headers.get("location") or ""
    if "://" in loc:
        loc = "/" + loc.split("://", 1)[1].split("/", 1)[1]
    return loc


def step_name(s):
    """A step's name in reports and in rest-allow.json: its `name`, else method, path, Accept."""
    if s.get("name"):
        return s["name"]
    return f"{s['method']} {s['path']}" + (f" [{s['accept']}]" if s.get("accept") else "") + (
        f" ({s['comment']})" if s.get("comment") else "")


def hbase_sh(*args):
    return subprocess.run([str(HERE / "hbase.sh"), *args], capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()
    allow = {a["step"]: a["reason"] for a in json.loads((HERE / "rest-allow.json").read_text())}

    started = None
    if hbase_sh("rest-status").returncode != 0:
        if hbase_sh("status").returncode == 0:
            print("== tests/oracle/hbase.sh rest-start (adding HBase's REST server to the running oracle)")
            r = hbase_sh("rest-start")
            started = "rest"
        else:
            print("== tests/oracle/hbase.sh start")
            r = hbase_sh("start")
            started = "all"
        if r.returncode != 0:
            print(r.stdout + r.stderr)
            return 1
    hbase = f"http://127.0.0.1:{REST_PORT}"
    work = Path(tempfile.mkdtemp(prefix="rest-diff-"))
    proc = RedbaseProcess(work / "data", gateways=("thrift2",))
    proc.start()
    redbase = proc.http_url("").rstrip("/")
    saved = {"redbase": {}, "hbase": {}}
    failures, allowed, same = [], [], 0
    t0 = time.monotonic()
    try:
        for i, s in enumerate(STEPS):
            name = step_name(s)
            answers = {}
            for side, base in (("redbase", redbase), ("hbase", hbase)):
                path = s["path"]
                if path.startswith("$"):
                    path = saved[side].get(path[1:], "/missing-scanner")
                path = path.replace("{P}", PREFIX)
                status, headers, body = request(
                    base, s["method"], path, s.get("accept"), s.get("ctype"), s.get("body"), s.get("extra"))
                if s.get("save"):
                    saved[side][s["save"]] = location_path(headers)
                a = normalise(status, headers, body)
                if s.get("compare") == "status":
                    a = {"status": status}
                answers[side] = a
            if answers["redbase"] == answers["hbase"]:
                same += 1
                if args.verbose:
                    print(f"same     {i:03d} {name}")
                continue
            entry = (name, answers)
            if name in allow:
                allowed.append(entry)
                print(f"allowed  {i:03d} {name}: {allow[name]}")
            else:
                failures.append(entry)
                print(f"DIFFERS  {i:03d} {name}")
                for side in ("redbase", "hbase"):
                    print(f"  {side:7}: {json.dumps(answers[side], sort_keys=True)[:1500]}")
    finally:
        for base in (redbase, hbase):
            request(base, "DELETE", f"/{PREFIX}t/schema")
            request(base, "DELETE", f"/namespaces/{PREFIX}ns")
        proc.stop()
        if started == "rest":
            hbase_sh("rest-stop")
        elif started == "all":
            hbase_sh("stop")
    print(f"rest_diff: {len(STEPS)} steps, {same} same, {len(allowed)} allowed differences, "
          f"{len(failures)} unexplained differences ({time.monotonic() - t0:.1f}s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
