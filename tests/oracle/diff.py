"""Differential runner: the same scenario steps against redbase and the HBase oracle, answers compared.

Usage: python3 tests/oracle/diff.py [--keep-going] [--verbose] [SCENARIO.json ...]
  (default: every tests/oracle/scenarios/*.json)

- redbase: target/debug/redbase (build it first: cargo build -p redbase) is started on free
  loopback ports with its own temporary data directory, and stopped (by PID) at the end.
  REDBASE_BIN overrides the binary.
- HBase: an oracle already answering on ORACLE_THRIFT1_PORT/ORACLE_THRIFT2_PORT (19090/19091) is
  used as is; otherwise `tests/oracle/hbase.sh start` starts one and `stop` ends it afterwards.

Scenario format (JSON, data only): {"comment": "...", "steps": [STEP, ...]} where STEP is
  {"name": "...", "service": "thrift1"|"thrift2", "call": "<method>", "args": {<arg>: VALUE},
   "save": "<var>",        # keep each side's answer (e.g. a scanner id) for later "$<var>"
   "ignore_result": true,  # compare only "answered" vs. "raised <type>"
   "error_type_only": true, # an exception is compared by its type alone (not canRetry)
   "comment": "..."}
VALUE is plain JSON, converted by the argument's Thrift type from the IDL:
  - a string for a binary field is its UTF-8 bytes; {"hex": "00ff"} gives any bytes;
    {"long": N} gives 8-byte big-endian (a counter value); "${P}" inside any string is replaced
    by the scenario's unique table prefix; "$var" (whole string) is a saved answer.
  - structs are objects of field names ({"TPut": {...}} wrapping is accepted and optional);
    enums by name ("DELETE_FAMILY") or number; lists and maps as JSON lists and objects.
Every table whose name starts with the prefix is disabled and deleted on both sides after the
scenario, whatever happened.

Normalisation before comparing: timestamps (fields named timestamp/startCode, TCell.timestamp)
between 10^12 and 10^14 (wall-clock milliseconds) that the scenario did not write itself become
"<ts>" (a literal 2^63-1, HBase's LATEST_TIMESTAMP, is always shown: a server must replace it by
its clock); region ids and region names, host names,
ports and start codes become placeholders; exceptions become their type (plus canRetry for
IOError/TIOError); the prefix becomes "${P}"; table-name lists keep only this scenario's tables.
Differences listed in tests/oracle/allow.json ([{"scenario", "step", "reason"}]) are reported but
do not fail the run. Exit status: 0 when every difference is allowed, 1 otherwise.
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import thriftpy2
from thriftpy2.rpc import make_client
from thriftpy2.thrift import TApplicationException, TType, TException
from thriftpy2.transport import TTransportException

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
IDL = ROOT / "idl"
HOST = "127.0.0.1"
h1 = thriftpy2.load(str(IDL / "hbase1.thrift"), module_name="oracle_diff_hbase1_thrift")
h2 = thriftpy2.load(str(IDL / "hbase2.thrift"), module_name="oracle_diff_hbase2_thrift")
# thrift2ro: a Thrift2 server in read-only mode (HBase's -ro; redbase's --read-only).
SERVICES = {"thrift1": h1.Hbase, "thrift2": h2.THBaseService, "thrift2ro": h2.THBaseService}
BIG_TS = 10 ** 12  # from here up to WALL_MAX: a wall-clock millisecond timestamp (2001..5138)
WALL_MAX = 10 ** 14  # above: not milliseconds (e.g. microseconds, or the server kept a literal
LATEST_TIMESTAMP = 2 ** 63 - 1  # HBase's HConstants.LATEST_TIMESTAMP); never normalised away


# ---------------------------------------------------------------- values in


class ScenarioError(Exception):
    pass


def subst(s, prefix):
    return s.replace("${P}", prefix)


def to_thrift(spec, val, ctx):
    """spec: a thrift_spec type description (int ttype, or (ttype, extra)); val: JSON value."""
    if isinstance(val, str) and val.startswith("$") and not val.startswith("${"):
        if val[1:] not in ctx["vars"]:
            raise ScenarioError(f"no saved answer {val} (the step that saves it raised)")
        return ctx["vars"][val[1:]]
    if val is None:
        return None
    ttype, extra = (spec, None) if isinstance(spec, int) else (spec[0], spec[1])
    if ttype == TType.BINARY:
        if isinstance(val, dict) and "hex" in val:
            return bytes.fromhex(val["hex"])
        if isinstance(val, dict) and "long" in val:
            return int(val["long"]).to_bytes(8, "big", signed=True)
        if isinstance(val, str):
            return subst(val, ctx["prefix"]).encode()
        raise ScenarioError(f"expected bytes, got {val!r}")
    if ttype == TType.STRING:
        return subst(val, ctx["prefix"])
    if ttype == TType.BOOL:
        return bool(val)
    if ttype in (TType.BYTE, TType.I16, TType.I32, TType.I64):
        if extra is not None and isinstance(val, str):  # enum by name
            return getattr(extra, val)
        if isinstance(val, int) and ttype == TType.I64 and 0 < val < LATEST_TIMESTAMP:
            ctx["written_ts"].add(val)
        return int(val)
    if ttype == TType.DOUBLE:
        return float(val)
    if ttype == TType.STRUCT:
        return to_struct(extra, val, ctx)
    if ttype in (TType.LIST, TType.SET):
        return [to_thrift(extra, v, ctx) for v in val]
    if ttype == TType.MAP:
        kspec, vspec = extra
        return {to_thrift(kspec, k, ctx): to_thrift(vspec, v, ctx) for k, v in val.items()}
    raise ScenarioError(f"unsupported type {ttype}")


def field_type(fspec):
    # (ttype, name, required) or (ttype, name, extra, required)
    return fspec[0] if len(fspec) == 3 else (fspec[0], fspec[2])


def to_struct(cls, val, ctx):
    if isinstance(val, dict) and len(val) == 1 and cls.__name__ in val:
        val = val[cls.__name__]
    if not isinstance(val, dict):
        raise ScenarioError(f"{cls.__name__}: expected an object, got {val!r}")
    by_name = {f[1]: f for f in cls.thrift_spec.values()}
    kwargs = {}
    for k, v in val.items():
        if k not in by_name:
            raise ScenarioError(f"{cls.__name__} has no field {k!r}")
        kwargs[k] = to_thrift(field_type(by_name[k]), v, ctx)
    return cls(**kwargs)


def call_args(service, method, args, ctx):
    spec = getattr(service, method + "_args").thrift_spec
    by_name = {f[1]: f for f in spec.values()}
    out = {}
    for k, v in (args or {}).items():
        if k not in by_name:
            raise ScenarioError(f"{method} has no argument {k!r}")
        out[k] = to_thrift(field_type(by_name[k]), v, ctx)
    for f in spec.values():  # Thrift1 attribute maps: default to {} like happybase
        if f[1] not in out and f[1] == "attributes":
            out[f[1]] = {}
    return out


# ---------------------------------------------------------------- values out

TS_FIELDS = {"timestamp", "startCode"}
PLACEHOLDER_FIELDS = {
    "THRegionInfo": {"regionId": "<region-id>"},
    "TServerName": {"hostName": "<host>", "port": "<port>", "startCode": "<start-code>"},
    "TRegionInfo": {"id": "<region-id>", "serverName": "<host>", "port": "<port>"},
}


def show_bytes(b, prefix):
    try:
        s = b.decode()
        if s.isprintable():
            return s.replace(prefix, "${P}") if prefix else s
    except UnicodeDecodeError:
        pass
    return {"hex": b.hex()}


def from_thrift(v, ctx, field=None, owner=None):
    prefix = ctx["prefix"]
    if isinstance(v, bytes):
        if owner == "TRegionInfo" and field == "name":
            # <table>,<startKey>,<id>.<encoded>.
            s = re.sub(rb",(\d+)\.([0-9a-f]{32})\.$", b",<region-id>.<encoded>.", v)
            return show_bytes(s, prefix)
        return show_bytes(v, prefix)
    if isinstance(v, str):
        return v.replace(prefix, "${P}") if prefix else v
    if isinstance(v, bool) or v is None or isinstance(v, float):
        return v
    if isinstance(v, int):
        if field in TS_FIELDS and BIG_TS <= v < WALL_MAX and v not in ctx["written_ts"]:
            return "<ts>"
        return v
    if isinstance(v, list):
        return [from_thrift(x, ctx, field, owner) for x in v]
    if isinstance(v, dict):
        items = [(from_thrift(k, ctx), from_thrift(x, ctx, field, owner)) for k, x in v.items()]
        return {json.dumps(k, sort_keys=True) if not isinstance(k, str) else k: x for k, x in
                sorted(items, key=lambda kv: json.dumps(kv[0], sort_keys=True))}
    if hasattr(v, "thrift_spec"):
        name = type(v).__name__
        places = PLACEHOLDER_FIELDS.get(name, {})
        out = {}
        for f in sorted(v.thrift_spec.values(), key=lambda f: f[1]):
            fname = f[1]
            x = getattr(v, fname, None)
            if x is None:
                continue
            if fname in places:
                out[fname] = places[fname]
            elif name == "TCell" and fname == "timestamp":
                out[fname] = from_thrift(x, ctx, "timestamp", name)
            else:
                out[fname] = from_thrift(x, ctx, fname, name)
        return {name: out}
    return repr(v)


TABLE_LIST_CALLS = {"getTableNames", "getTableNamesWithIsTableEnabled", "getTableNamesByPattern",
                    "getTableNamesByNamespace", "getTableDescriptors", "getTableDescriptorsByPattern",
                    "getTableDescriptorsByNamespace"}


def outcome(call, fn, kwargs, ctx, step):
    try:
        res = fn(**kwargs)
    except TApplicationException as e:
        return None, {"raised": "TApplicationException"}
    except TTransportException as e:
        return None, {"raised": "TTransportException (connection lost)"}
    except TException as e:
        out = {"raised": type(e).__name__}
        if getattr(e, "canRetry", None) is not None and not step.get("error_type_only"):
            out["canRetry"] = e.canRetry
        return None, out
    if step.get("save"):
        shown = "<saved>"
    else:
        if call in TABLE_LIST_CALLS and isinstance(res, (list, dict)):
            def mine(x):
                return ctx["prefix"].encode() in repr(x).encode() or ctx["prefix"] in repr(x)
            res = [x for x in res if mine(x)] if isinstance(res, list) else {k: x for k, x in res.items() if mine(k)}
        shown = from_thrift(res, ctx)
    if step.get("ignore_result"):
        shown = "<answered>"
    return res, {"ok": shown}


# ---------------------------------------------------------------- processes


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"port {port} did not open")


class Side:
    def __init__(self, label, p1, p2, p2ro):
        self.label, self.ports = label, {"thrift1": p1, "thrift2": p2, "thrift2ro": p2ro}
        self.clients = {}

    def client(self, service):
        if service not in self.clients:
            self.clients[service] = make_client(SERVICES[service], HOST, self.ports[service], timeout=120_000)
        return self.clients[service]

    def reset(self, service):
        c = self.clients.pop(service, None)
        if c is not None:
            try:
                c.close()
            except Exception:
                pass

    def close(self):
        for s in list(self.clients):
            self.reset(s)

    def cleanup(self, prefix):
        """disable + delete every table named prefix*."""
        try:
            names = [n for n in self.client("thrift1").getTableNames() if n.startswith(prefix.encode())]
        except Exception:
            self.reset("thrift1")
            return
        for n in names:
            c = self.client("thrift1")
            try:
                if c.isTableEnabled(n):
                    c.disableTable(n)
                c.deleteTable(n)
            except Exception as e:
                print(f"  cleanup {self.label}: {n!r}: {type(e).__name__}", file=sys.stderr)
                self.reset("thrift1")


def oracle_answers(p1, p2):
    r = subprocess.run([sys.executable, str(HERE / "ping.py"), HOST, str(p1), str(p2)],
                       capture_output=True, timeout=60)
    return r.returncode == 0


# ---------------------------------------------------------------- running


def run_scenario(path, sides, stamp, allow, report, verbose):
    scen = json.loads(path.read_text())
    prefix = f"d{stamp}_{path.stem.replace('-', '_')}_"
    ctxs = {s.label: {"prefix": prefix, "vars": {}, "written_ts": set()} for s in sides}
    diffs = []
    try:
        for i, step in enumerate(scen["steps"], 1):
            sid = step.get("name") or str(i)
            service, call = step["service"], step["call"]
            answers = {}
            for side in sides:
                ctx = ctxs[side.label]
                svc = SERVICES[service]
                try:
                    kwargs = call_args(svc, call, step.get("args"), ctx)
                except ScenarioError as e:
                    answers[side.label] = {"not called": str(e)}
                    continue
                fn = getattr(side.client(service), call)
                res, shown = outcome(call, fn, kwargs, ctx, step)
                if "raised" in shown and "Transport" in shown["raised"]:
                    side.reset(service)
                if step.get("save") and res is not None:
                    ctx["vars"][step["save"]] = res
                answers[side.label] = shown
            if step.get("sleep_after"):
                time.sleep(float(step["sleep_after"]))
            report["calls"] += 1
            a, b = answers["redbase"], answers["hbase"]
            same = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
            if verbose:
                print(f"  [{i}] {sid}: {service}.{call} {'same' if same else 'DIFFERENT'}: {json.dumps(b, sort_keys=True)[:300]}")
            if not same:
                reason = allow.get((path.name, sid))
                diffs.append((i, sid, service, call, a, b, reason))
    finally:
        for side in sides:
            side.cleanup(prefix)
    for i, sid, service, call, a, b, reason in diffs:
        tag = f"ALLOWED ({reason})" if reason else "DIFFERENCE"
        print(f"{tag}: {path.name} step {i} [{sid}] {service}.{call}")
        print(f"    redbase: {json.dumps(a, sort_keys=True)}")
        print(f"    hbase:   {json.dumps(b, sort_keys=True)}")
        report["allowed" if reason else "differences"] += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--verbose", "-v", action="store_true")
    opts = ap.parse_args()
    paths = [Path(p) for p in opts.scenarios] or sorted((HERE / "scenarios").glob("*.json"))
    allow = {(a["scenario"], str(a["step"])): a["reason"]
             for a in json.loads((HERE / "allow.json").read_text())}

    o1 = int(os.environ.get("ORACLE_THRIFT1_PORT", 19090))
    o2 = int(os.environ.get("ORACLE_THRIFT2_PORT", 19091))
    started_oracle = False
    if not oracle_answers(o1, o2):
        print("oracle not running: tests/oracle/hbase.sh start", file=sys.stderr)
        subprocess.run([str(HERE / "hbase.sh"), "start"], check=True)
        started_oracle = True

    rb_bin = os.environ.get("REDBASE_BIN", str(ROOT / "target/debug/redbase"))
    data = tempfile.mkdtemp(prefix="redbase-diff-")
    r1, r2 = free_port(), free_port()
    log = open(Path(data) / "redbase.log", "w")
    proc = subprocess.Popen([rb_bin, "serve", "--data-dir", str(Path(data) / "data"),
                             "--thrift1-addr", f"{HOST}:{r1}", "--thrift2-addr", f"{HOST}:{r2}",
                             "--advertised-host", "localhost", "--http-addr", f"{HOST}:0"],
                            stdout=log, stderr=subprocess.STDOUT)
    # The read-only redbase is its own process (read-only mode is per process); it has its own
    # empty data directory, so read-only scenarios only compare what read-only mode refuses.
    o2ro = int(os.environ.get("ORACLE_THRIFT2_RO_PORT", 19092))
    r2ro = free_port()
    proc_ro = subprocess.Popen([rb_bin, "serve", "--data-dir", str(Path(data) / "data-ro"),
                                "--gateways", "thrift2", "--read-only",
                                "--thrift2-addr", f"{HOST}:{r2ro}", "--advertised-host", "localhost",
                                "--http-addr", f"{HOST}:0"],
                               stdout=log, stderr=subprocess.STDOUT)
    report = {"scenarios": 0, "calls": 0, "differences": 0, "allowed": 0}
    sides = [Side("redbase", r1, r2, r2ro), Side("hbase", o1, o2, o2ro)]
    try:
        wait_port(r1, proc)
        wait_port(r2, proc)
        wait_port(r2ro, proc_ro)
        stamp = int(time.time()) % 100000
        for p in paths:
            print(f"== {p.name}")
            run_scenario(p, sides, stamp, allow, report, opts.verbose)
            report["scenarios"] += 1
    finally:
        for s in sides:
            s.close()
        for pr in (proc, proc_ro):
            pr.send_signal(signal.SIGTERM)
            try:
                pr.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pr.kill()
                pr.wait()
        log.close()
        shutil.rmtree(data, ignore_errors=True)
        if started_oracle:
            subprocess.run([str(HERE / "hbase.sh"), "stop"])
    print(f"summary: {report['scenarios']} scenarios, {report['calls']} calls compared, "
          f"{report['differences']} differences, {report['allowed']} allowed differences")
    return 1 if report["differences"] else 0


if __name__ == "__main__":
    sys.exit(main())
