"""Python ↔ TypeScript through one live `redbase serve` (tests/xlang/README.md):

    python write → TypeScript dump == Python dump
    TypeScript write → Python dump == TypeScript dump (== the first dump)

Starts the server with tests/redbase_proc.py (Thrift2 on a free loopback port), runs both
languages' tools as the matrix does (`tests/xlang/xlang.py`, `tests/sdk_typescript/xlang.sh`),
and exits non-zero on any difference, naming the tables that differ.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests"))

from redbase_proc import RedbaseProcess  # noqa: E402

TOOLS = {
    "python": [sys.executable, str(REPO / "tests" / "xlang" / "xlang.py")],
    "typescript": [str(HERE / "xlang.sh")],
}


def run(lang, command, srv):
    env = dict(os.environ, PYTHONPATH=str(REPO / "sdks" / "python"), PYTHONDONTWRITEBYTECODE="1")
    args = TOOLS[lang] + [command, srv.host, str(srv.ports["thrift2"])]
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"{lang} {command} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout) if command == "dump" else None


def differ(what, a, b):
    if a == b:
        print(f"xlang: {what}: equal ({sum(len(rows) for rows in a.values())} rows)")
        return False
    tables = sorted(t for t in set(a) | set(b) if a.get(t) != b.get(t))
    print(f"xlang: {what}: DIFFERENT in {tables}", file=sys.stderr)
    for t in tables[:2]:
        print(f"  {t}:\n    {json.dumps(a.get(t))[:1500]}\n    {json.dumps(b.get(t))[:1500]}", file=sys.stderr)
    return True


def main():
    with tempfile.TemporaryDirectory(prefix="redbase-xlang-ts-") as tmp:
        srv = RedbaseProcess(Path(tmp) / "data", gateways=("thrift2",)).start()
        try:
            run("python", "write", srv)
            py_dump = run("python", "dump", srv)
            failed = differ("python write, typescript dump vs python dump", run("typescript", "dump", srv), py_dump)
            run("typescript", "write", srv)
            ts_dump = run("typescript", "dump", srv)
            failed |= differ("typescript write, python dump vs typescript dump", run("python", "dump", srv), ts_dump)
            failed |= differ("typescript write vs python write", ts_dump, py_dump)
            if not any(py_dump.values()):
                print("xlang: the dump is empty", file=sys.stderr)
                failed = True
        finally:
            srv.stop_and_check()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
