"""Cross-language check over one real `redbase serve`: each SDK's tool writes dataset.json,
then every tool dumps it; all dumps must be identical, whoever wrote (tests/xlang/README.md).

A new SDK adds its tool to TOOLS (a command taking `write|dump HOST PORT`).
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from redbase_proc import RedbaseProcess  # noqa: E402

TOOLS = {
    "python": [sys.executable, str(REPO / "tests" / "xlang" / "xlang.py")],
    "go": [str(REPO / "tests" / "sdk_go" / "xlang.sh")],
    # Builds the TypeScript SDK first if needed (build output on stderr).
    "typescript": [str(REPO / "tests" / "sdk_typescript" / "xlang.sh")],
    # Builds the Java SDK suite first if its sources changed (tests/sdk_java/run.sh installs a
    # JDK and Maven, and runs before this suite in tests/run).
    "java": [str(REPO / "tests" / "sdk_java" / "xlang.sh")],
    # Builds the Rust tool first if needed (cargo output on stderr).
    "rust": [str(REPO / "tests" / "sdk_rust" / "xlang.sh")],
}


def run(tool, cmd, host, port):
    out = subprocess.run(
        [*TOOLS[tool], cmd, host, str(port)], cwd=REPO, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise SystemExit(f"{tool} {cmd} failed ({out.returncode}):\n{out.stderr}")
    return out.stdout


def main():
    proc = RedbaseProcess(Path(tempfile.mkdtemp()) / "data", gateways=("thrift2",)).start()
    host, port = proc.host, proc.ports["thrift2"]
    failures = []
    baseline = None
    try:
        for writer in TOOLS:
            run(writer, "write", host, port)
            for reader in TOOLS:
                dump = json.loads(run(reader, "dump", host, port))
                rows = sum(len(v) for v in dump.values())
                if baseline is None:
                    baseline = dump
                same = dump == baseline
                print(f"xlang: written by {writer}, read by {reader}: {rows} rows, {'same' if same else 'DIFFERENT'}")
                if not same or rows == 0:
                    failures.append((writer, reader))
    finally:
        proc.stop_and_check()
    if failures:
        print(f"xlang: dumps differ for {failures}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
