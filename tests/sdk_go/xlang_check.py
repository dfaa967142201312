"""Go <-> Python over one live `redbase serve` (tests/xlang/README.md): every case of the
cross-language driver (rows, versions, batches) with only these two tools: each writes, both
dump, every dump must equal the first, which must be exactly what the dataset implies. Run by
tests/sdk_go/run.sh (sdks/python on PYTHONPATH); REDBASE_SDK_TARGET=host:port uses a running
gateway instead."""

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "xlang"))

import cross  # noqa: E402
from redbase_proc import RedbaseProcess  # noqa: E402

cross.TOOLS = {name: cross.TOOLS[name] for name in ("python", "go")}


def main():
    given = os.environ.get("REDBASE_SDK_TARGET")
    proc = None
    if given:
        host, _, port = given.rpartition(":")
    else:
        proc = RedbaseProcess(Path(tempfile.mkdtemp()) / "data", gateways=("thrift2",)).start()
        host, port = proc.host, proc.ports["thrift2"]
    results = {}
    try:
        for case in cross.CASES:
            results[case[0]] = cross.run_case(case, host, port)
    finally:
        if proc is not None:
            proc.stop_and_check()
    failures = []
    for name, cells in results.items():
        cross.table(name, cells)
        failures += [(name, *k) for k, v in cells.items() if not v.startswith("ok")]
    if failures:
        print(f"xlang python <-> go: failed (case, writer, reader): {failures}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
