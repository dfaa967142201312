"""Cross-language check over one real `redbase serve`: each SDK's tool writes dataset.json,
then every tool dumps it; all dumps must be identical, whoever wrote (tests/xlang/README.md).

A new SDK adds its tool to TOOLS (a command taking `write|dump HOST PORT`). Prints a table,
writer x reader; the first dump must also be exactly what dataset.json implies.
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


class ToolFailed(Exception):
    pass


def run(tool, cmd, host, port):
    out = subprocess.run(
        [*TOOLS[tool], cmd, host, str(port)], cwd=REPO, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise ToolFailed(f"{tool} {cmd} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return out.stdout


def dataset_rows():
    """table -> {key_hex: values} that dataset.json implies (tests/sdk_python/test_xlang.py)."""
    sys.path.insert(0, str(REPO / "tests" / "xlang"))
    sys.path.insert(0, str(REPO / "tests" / "sdk_python"))
    import test_xlang
    import xlang

    return test_xlang.expected(xlang)


def main():
    want = dataset_rows()
    proc = RedbaseProcess(Path(tempfile.mkdtemp()) / "data", gateways=("thrift2",)).start()
    host, port = proc.host, proc.ports["thrift2"]
    cells = {}
    baseline = None
    try:
        for writer in TOOLS:
            try:
                run(writer, "write", host, port)
            except ToolFailed as e:
                print(e, file=sys.stderr)
                cells.update({(writer, r): "write failed" for r in TOOLS})
                continue
            for reader in TOOLS:
                try:
                    dump = json.loads(run(reader, "dump", host, port))
                except (ToolFailed, ValueError) as e:
                    print(e, file=sys.stderr)
                    cells[(writer, reader)] = "dump failed"
                    continue
                rows = sum(len(v) for v in dump.values())
                if baseline is None:
                    # The first dump must be exactly what the dataset implies; every later
                    # dump must equal it, whoever wrote and whoever read.
                    got = {t: {r["key_hex"]: r["values"] for r in rs} for t, rs in dump.items()}
                    if got == want:
                        baseline = dump
                    else:
                        print(f"xlang: {writer}/{reader} dump is not the dataset", file=sys.stderr)
                ok = baseline is not None and dump == baseline and rows > 0
                cells[(writer, reader)] = f"ok ({rows} rows)" if ok else "DIFFERENT"
                print(f"xlang: written by {writer}, read by {reader}: {cells[(writer, reader)]}")
    finally:
        proc.stop_and_check()
    names = list(TOOLS)
    width = max(len(c) for c in cells.values())
    print()
    print("| written by \\ read by | " + " | ".join(n.ljust(width) for n in names) + " |")
    print("|---|" + "|".join("-" * (width + 2) for _ in names) + "|")
    for w in names:
        print(f"| {w} | " + " | ".join(cells[(w, r)].ljust(width) for r in names) + " |")
    failures = [k for k, v in cells.items() if not v.startswith("ok")]
    if failures:
        print(f"xlang: failed pairs {failures}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
