"""Cross-language check over one real `redbase serve`: for each case of tests/xlang/README.md
(rows, versions, batches), each SDK's tool writes dataset.json's part, then every tool dumps it;
all dumps must be identical, whoever wrote, and the first exactly what the dataset implies.

A new SDK adds its tool to TOOLS (a command taking `<command> HOST PORT` for the six commands of
the README). Prints one writer x reader table per case. A tool that lacks a case's command
fails that case's cells (its stderr is shown): nothing is skipped.

    python3 tests/xlang/cross.py                   # every case
    python3 tests/xlang/cross.py versions batches  # some
    python3 tests/xlang/cross.py --tools=python,go # some tools
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


def _xlang():
    sys.path.insert(0, str(REPO / "tests" / "xlang"))
    import xlang

    return xlang


def _by_key(dump):
    return {t: {r["key_hex"]: r["values"] for r in rs} for t, rs in dump.items()}


# The cases of tests/xlang/README.md: (name, write command, dump command, what the first dump
# must equal given the dataset, how a dump is reduced before that comparison).
CASES = [
    ("rows", "write", "dump", lambda x: x.expected_rows(), _by_key),
    ("versions", "write-versions", "dump-versions", lambda x: x.expected_versions(), lambda d: d),
    ("batches", "write-batch", "dump-batch", lambda x: x.expected_batches(), _by_key),
]


def count(dump):
    """Rows (or version cells) in a dump, so an empty dump never passes."""
    return sum(len(r.get("cells", [r])) for rows in dump.values() for r in rows)


def run_case(case, host, port):
    """writer x reader cells of one case."""
    name, write_cmd, dump_cmd, expect, reduce = case
    want = expect(_xlang())
    cells = {}
    baseline = None
    for writer in TOOLS:
        try:
            run(writer, write_cmd, host, port)
        except ToolFailed as e:
            print(e, file=sys.stderr)
            cells.update({(writer, r): f"{write_cmd} failed" for r in TOOLS})
            continue
        for reader in TOOLS:
            try:
                dump = json.loads(run(reader, dump_cmd, host, port))
            except (ToolFailed, ValueError) as e:
                print(e, file=sys.stderr)
                cells[(writer, reader)] = f"{dump_cmd} failed"
                continue
            n = count(dump)
            if baseline is None:
                # The first dump must be exactly what the dataset implies; every later dump
                # must equal it, whoever wrote and whoever read.
                if reduce(dump) == want:
                    baseline = dump
                else:
                    print(f"xlang {name}: {writer}/{reader} dump is not the dataset", file=sys.stderr)
            ok = baseline is not None and dump == baseline and n > 0
            cells[(writer, reader)] = f"ok ({n})" if ok else "DIFFERENT"
            print(f"xlang {name}: written by {writer}, read by {reader}: {cells[(writer, reader)]}")
    return cells


def table(name, cells):
    names = list(TOOLS)
    width = max(len(c) for c in cells.values())
    print()
    print(f"{name}:")
    print("| written by \\ read by | " + " | ".join(n.ljust(width) for n in names) + " |")
    print("|---|" + "|".join("-" * (width + 2) for _ in names) + "|")
    for w in names:
        print(f"| {w} | " + " | ".join(cells[(w, r)].ljust(width) for r in names) + " |")


def main(argv):
    """Every case, or those named (`cross.py versions batches`); every tool, or those of
    `--tools python,go`."""
    args = [a for a in argv[1:] if not a.startswith("--tools=")]
    for a in argv[1:]:
        if a.startswith("--tools="):
            keep = a.split("=", 1)[1].split(",")
            unknown = [t for t in keep if t not in TOOLS]
            if unknown:
                print(f"cross.py: unknown tools {unknown}; known: {list(TOOLS)}", file=sys.stderr)
                return 2
            for t in list(TOOLS):
                if t not in keep:
                    del TOOLS[t]
    unknown = [a for a in args if a not in [c[0] for c in CASES]]
    if unknown:
        print(f"cross.py: unknown cases {unknown}; known: {[c[0] for c in CASES]}", file=sys.stderr)
        return 2
    cases = [c for c in CASES if not args or c[0] in args]
    proc = RedbaseProcess(Path(tempfile.mkdtemp()) / "data", gateways=("thrift2",)).start()
    host, port = proc.host, proc.ports["thrift2"]
    results = {}
    try:
        for case in cases:
            results[case[0]] = run_case(case, host, port)
    finally:
        proc.stop_and_check()
    failures = []
    for name, cells in results.items():
        table(name, cells)
        failures += [(name, *k) for k, v in cells.items() if not v.startswith("ok")]
    if failures:
        print(f"xlang: failed (case, writer, reader): {failures}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
