"""Rust ↔ Python over one live `redbase serve` (tests/xlang/README.md), for each case (rows,
versions, batches): Python writes, then the Rust dump must equal the Python dump; Rust writes,
then the Python dump must equal the Rust dump and the first dump. Run by tests/sdk_rust/run.sh
(sdks/python on PYTHONPATH)."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from redbase_proc import RedbaseProcess  # noqa: E402

TOOLS = {
    "python": [sys.executable, str(REPO / "tests" / "xlang" / "xlang.py")],
    "rust": [str(REPO / "tests" / "sdk_rust" / "xlang.sh")],
}


# Both tools' tables get REDBASE_SDK_TABLE_PREFIX (the oracle run sets rs_) as XLANG_TABLE_PREFIX.
ENV = dict(os.environ, XLANG_TABLE_PREFIX=os.environ.get("REDBASE_SDK_TABLE_PREFIX", ""))


def run(tool, cmd, host, port):
    out = subprocess.run(
        [*TOOLS[tool], cmd, host, str(port)], cwd=REPO, capture_output=True, text=True, env=ENV
    )
    if out.returncode != 0:
        raise SystemExit(f"{tool} {cmd} failed ({out.returncode}):\n{out.stderr}")
    return json.loads(out.stdout) if cmd.startswith("dump") else None


# (case, write command, dump command)
CASES = [
    ("rows", "write", "dump"),
    ("versions", "write-versions", "dump-versions"),
    ("batches", "write-batch", "dump-batch"),
]


def main():
    given = os.environ.get("REDBASE_SDK_TARGET")
    proc = None
    if given:
        host, _, port = given.rpartition(":")
    else:
        proc = RedbaseProcess(Path(tempfile.mkdtemp()) / "data", gateways=("thrift2",)).start()
        host, port = proc.host, proc.ports["thrift2"]
    failed = False
    try:
        for case, write, dump in CASES:
            first = None
            for writer, reader in (("python", "rust"), ("rust", "python")):
                run(writer, write, host, port)
                mine, theirs = run(writer, dump, host, port), run(reader, dump, host, port)
                first = first or mine
                rows = sum(len(v) for v in mine.values())
                same = mine == theirs == first and rows > 0
                failed = failed or not same
                print(
                    f"xlang {case}: {writer} {write}, {reader} {dump} == {writer} {dump}: "
                    f"{rows} entries, {'same' if same else 'DIFFERENT'}"
                )
    finally:
        if proc is not None:
            proc.stop_and_check()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
