"""REST differential runner: every step of tests/oracle/rest_scenarios.py sent to redbase's REST
API and to HBase 2.6.1's REST server (tests/oracle/hbase.sh), answers compared.

Usage: python3 tests/oracle/rest_diff.py [--verbose]   (--verbose: every step, with its answer)

- redbase: REDBASE_BIN (default target/debug/redbase) on free loopback ports, stopped at the end.
- HBase: the REST server on ORACLE_REST_PORT (19080) of a running oracle; when it does not
  answer, `hbase.sh rest-start` adds it to a running oracle (or `hbase.sh start` starts one), and
  what this script started it stops again.

Normalisation: a gzip-compressed answer (Content-Encoding: gzip) is decompressed first and
compares as "encoding": "gzip" plus its content; a status of 300 or more compares the status
and the body's first line (HBase adds a Java stack trace after it), and with `line2` the
second line too (the exception and its message); JSON and XML bodies compare as trees, with wall-clock
timestamps as "<ts>", region ids, names and locations as placeholders, and lists of tables and
namespaces cut to this run's; protobuf bodies of a step naming its message (`pb`) are decoded
field by field (tests/oracle/rest_pb.py) and compare as the JSON trees do; text compares as is.
A step with `norm`: "version" compares /version with the JVM, web server and revision as
"<runtime>"; "status" compares /status/cluster by its fields, this run's regions and heap
sizes above 0, not its figures (HBase's cluster is shared with other tables). A step with
`header_names` compares which of those header names the answer has, spelled exactly as sent. A
step with `thrift2` ([method, table]) calls that admin method (disableTable, enableTable) on
each side's Thrift2 gateway (redbase's own, the oracle's on ORACLE_THRIFT2_PORT) instead of an
HTTP request, and compares the outcomes. Differences listed in
tests/oracle/rest-allow.json ([{"step", "reason"}]) are reported but do not fail the run.
Exit status 0 when every difference is allowed.
"""

import argparse
import base64
import gzip
import json
import os
import re
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
import rest_pb  # noqa: E402

REST_PORT = int(os.environ.get("ORACLE_REST_PORT", "19080"))
THRIFT2_PORT = int(os.environ.get("ORACLE_THRIFT2_PORT", "19091"))


def thrift2_admin(port, method, table):
    """One Thrift2 admin call on a table (`ns:name` or `name`): "ok" or the error's class."""
    import thriftpy2
    from thriftpy2.rpc import make_client
    t = thriftpy2.load(str(ROOT / "idl" / "hbase2.thrift"), module_name="rest_diff_hbase2_thrift")
    ns, _, q = table.rpartition(":")
    c = make_client(t.THBaseService, "127.0.0.1", port, timeout=60_000)
    try:
        getattr(c, method)(t.TTableName(ns=(ns or "default").encode(), qualifier=q.encode()))
        return {"thrift2": "ok"}
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return {"thrift2": type(e).__name__}
    finally:
        c.close()
PREFIX = f"rd{os.getpid()}_"


def request(base, method, path, accept=None, ctype=None, body=None, extra=None):
    data = None
    if body is not None:
        if isinstance(body, tuple) and body[0] == "pb":
            # ("pb", message, fields): a protobuf body, encoded after {P} is filled in.
            fields = json.loads(json.dumps(body[2]).replace("{P}", PREFIX))
            data = rest_pb.encode(body[1], fields)
        elif isinstance(body, (dict, list)):
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
            elif k in ("Namespace", "namespace") and isinstance(x, list):
                out[k] = [n for n in x if ours(n)]
            elif k in ("attrs", "props") and isinstance(x, list):
                # Maps in HBase's models (a Java hash map's order on the wire): by name.
                out[k] = sorted((norm_json(a) for a in x), key=lambda a: json.dumps(a, sort_keys=True))
            elif k == "name" and isinstance(x, list):
                out[k] = [n.replace(PREFIX, "{P}") for n in x if ours(n)]
            else:
                out[k] = norm_json(x, k)
        return out
    if isinstance(v, list):
        return [norm_json(x, key) for x in v]
    if isinstance(v, str):
        return v.replace(PREFIX, "{P}")
    return v


def norm_xml(e, keep_regions=False):
    attrs = {}
    for k, v in e.attrib.items():
        if keep_regions:
            attrs[k] = v
            continue
        if k in ("id", "location", "startCode") or (k == "name" and e.tag == "Region"):
            v = f"<{k}>"
        elif k == "timestamp" and is_clock(v):
            v = "<ts>"
        attrs[k] = v.replace(PREFIX, "{P}")
    kids = [norm_xml(c, keep_regions) for c in e]
    if e.tag == "TableList":
        kids = [k for k in kids if ours(k[1].get("name", "").replace("{P}", PREFIX))]
    if e.tag == "Namespaces":
        kids = [k for k in kids if ours(k[2].replace("{P}", PREFIX))]
    return (e.tag, attrs, (e.text or "").strip().replace(PREFIX, "{P}"), kids)


RUNTIME = {"JVM", "Server", "Revision", "jvmVersion", "serverVersion", "revision"}
HEAP = {"heapSizeMB", "maxHeapSizeMB"}


def region_ours(name):
    """A region name (text, or base64 as JSON and XML carry it) of this run's main table. Only
    that one: HBase reports a dropped table's regions until its server's next report."""
    mine = f"{PREFIX}t,"
    if mine in name:
        return True
    try:
        return mine in base64.b64decode(name).decode("utf-8", "replace")
    except ValueError:
        return False


def status_shape(v):
    """/status/cluster as what must agree: its fields, this run's regions and their fields,
    heap sizes above 0; not the figures (other tables share HBase's cluster, counters move)."""
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k in ("Region", "regions") and isinstance(x, list):
                out[k] = [status_shape(r) for r in x if region_ours(r.get("name", ""))]
            elif k in HEAP:
                out[k] = "<above 0>" if isinstance(x, int) and x > 0 else x
            elif k == "name":
                out[k] = "<this run's region>" if region_ours(x) else "<node>"
            elif isinstance(x, (int, float)) and not isinstance(x, bool):
                out[k] = "<number>"
            else:
                out[k] = status_shape(x)
        return out
    if isinstance(v, list):
        return [status_shape(x) for x in v]
    return v


def status_xml_shape(e):
    tag, attrs, text, kids = e
    if tag == "Region" and not region_ours(attrs.get("name", "")):
        return None
    a = {}
    for k, x in attrs.items():
        if k in HEAP:
            a[k] = "<above 0>" if x.isdigit() and int(x) > 0 else x
        elif k == "name":
            a[k] = "<this run's region>" if region_ours(x) else "<node>"
        else:
            a[k] = "<number>" if re.fullmatch(r"-?[0-9.E]+", x) else x
    kept = [k for k in (status_xml_shape(k) for k in kids) if k is not None]
    return (tag, a, text, kept)


def status_text_shape(t):
    out, keep, regions = [], True, False
    for line in t.splitlines():
        header = line.startswith("        ") and not line.startswith("         ") and "=" not in line
        if header:
            # A region: kept when it is this run's; its lines (and those of a name holding a
            # line break) go with it.
            regions = True
            keep = f"{PREFIX}t," in line
            if keep:
                out.append("        <this run's region>")
            continue
        if regions and (line.startswith("            ") or not line.startswith(" ")) and line:
            if not keep:
                continue
        elif line.startswith("    ") and not line.startswith("     "):
            line = "    <node> <startCode>"
        line = re.sub(r"(heapSizeMB|maxHeapSizeMB)=[1-9][0-9]*", r"\1=<above 0>", line)
        out.append(re.sub(r"(?<![A-Za-z<])[0-9]+(\.[0-9]+)?", "N", line))
    return "\n".join(out)


def version_shape(v):
    """/version: the REST and HBase versions must agree; the JVM, web server and revision
    describe each side's runtime."""
    if isinstance(v, dict):
        return {k: ("<runtime>" if k in RUNTIME else x) for k, x in v.items()}
    if isinstance(v, tuple):
        tag, attrs, text, kids = v
        return (tag, {k: ("<runtime>" if k in RUNTIME else x) for k, x in attrs.items()}, text, kids)
    return re.sub(r"\[(JVM|Server|Revision): [^]]*\]", r"[\1: <runtime>]", v)


def header(headers, name):
    return next((v for k, v in headers.items() if k.lower() == name.lower()), None)


def normalise(status, headers, body, step=None):
    step = step or {}
    ctype = (header(headers, "Content-Type") or "").split(";")[0].strip()
    shape = step.get("norm")
    gzipped = (header(headers, "Content-Encoding") or "").lower() == "gzip"
    if gzipped:
        try:
            body = gzip.decompress(body)
        except (OSError, EOFError) as e:
            body = f"undecodable gzip ({e})".encode()
    if status >= 300:
        lines = body.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
        out = {"status": status, "first line": lines[0].replace(PREFIX, "{P}")}
        if step.get("line2"):
            out["second line"] = (lines[1] if len(lines) > 1 else "").replace(PREFIX, "{P}")
        if gzipped and body:
            out["encoding"] = "gzip"
        return out
    out = {"status": status}
    if step.get("header_names"):
        wanted = {n.lower() for n in step["header_names"]}
        out["header names"] = sorted(k for k in headers if k.lower() in wanted)
    if gzipped and body:
        out["encoding"] = "gzip"
    if not body:
        return out
    out["type"] = ctype
    if ctype == "application/json":
        try:
            v = json.loads(body)
            out["body"] = status_shape(v) if shape == "status" else norm_json(v)
        except ValueError:
            out["body"] = body.decode("utf-8", "replace")
    elif ctype in ("text/xml", "application/xml"):
        try:
            root = ET.fromstring(body)
            out["body"] = status_xml_shape(norm_xml(root, keep_regions=True)) if shape == "status" else norm_xml(root)
        except ET.ParseError:
            out["body"] = body.decode("utf-8", "replace")
    elif ctype in ("application/x-protobuf", "application/protobuf") and step.get("pb"):
        # Decoded field by field, then normalised as the JSON form is.
        kind = step["pb"]
        try:
            if kind.startswith("stream:"):
                v = rest_pb.decode_stream(kind[len("stream:"):], body)
            else:
                v = rest_pb.decode(kind, body)
            out["body"] = status_shape(v) if shape == "status" else norm_json(v)
        except (rest_pb.DecodeError, IndexError, UnicodeDecodeError) as e:
            out["body"] = f"undecodable {kind} ({e}): {body.hex()}"
    elif ctype in ("application/octet-stream", "application/x-protobuf", "application/protobuf"):
        out["body"] = body.hex()
    else:
        text = body.decode("utf-8", "replace")
        # A URL in a text answer (HBase's namespace alteration) names each side's own address.
        text = re.sub(r"http://127\.0\.0\.1:[0-9]+/", "http://<host>/", text)
        out["body"] = status_text_shape(text) if shape == "status" else text.replace(PREFIX, "{P}")
    if shape == "version" and "body" in out:
        out["body"] = version_shape(out["body"])
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
    if s.get("thrift2"):
        return "thrift2 " + " ".join(s["thrift2"])
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
    thrift2 = {"hbase": THRIFT2_PORT}
    work = Path(tempfile.mkdtemp(prefix="rest-diff-"))
    proc = RedbaseProcess(work / "data", gateways=("thrift2",))
    proc.start()
    redbase = proc.http_url("").rstrip("/")
    thrift2["redbase"] = proc.ports["thrift2"]
    saved = {"redbase": {}, "hbase": {}}
    failures, allowed, same = [], [], 0
    t0 = time.monotonic()
    try:
        for i, s in enumerate(STEPS):
            name = step_name(s)
            answers = {}
            for side, base in (("redbase", redbase), ("hbase", hbase)):
                if s.get("thrift2"):
                    method, table = s["thrift2"]
                    answers[side] = thrift2_admin(thrift2[side], method, table.replace("{P}", PREFIX))
                    continue
                path = s["path"]
                if path.startswith("$"):
                    path = saved[side].get(path[1:], "/missing-scanner")
                path = path.replace("{P}", PREFIX)
                status, headers, body = request(
                    base, s["method"], path, s.get("accept"), s.get("ctype"), s.get("body"), s.get("extra"))
                if s.get("save"):
                    saved[side][s["save"]] = location_path(headers)
                a = normalise(status, headers, body, s)
                if s.get("compare") == "status":
                    a = {"status": status}
                answers[side] = a
            if answers["redbase"] == answers["hbase"]:
                same += 1
                if args.verbose:
                    print(f"same     {i:03d} {name}: {json.dumps(answers['hbase'], sort_keys=True)[:300]}")
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
            for path in (f"/{PREFIX}t/schema", f"/{PREFIX}p/schema", f"/{PREFIX}ns:t2/schema",
                         f"/{PREFIX}k/schema", f"/{PREFIX}d/schema", f"/{PREFIX}ns2:t/schema",
                         f"/namespaces/{PREFIX}ns", f"/namespaces/{PREFIX}pbns",
                         f"/namespaces/{PREFIX}ns2"):
                request(base, "DELETE", path)
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
