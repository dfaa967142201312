"""Python <-> TypeScript through one live `redbase serve`, every case of tests/xlang/README.md
(rows, versions, batches): tests/xlang/cross.py's matrix limited to these two tools, so each
writes, both dump, and every dump must equal the first, which must be exactly what
tests/xlang/dataset.json implies. Exits non-zero on any failed cell.

    python3 tests/sdk_typescript/xlang_check.py                   # every case
    python3 tests/sdk_typescript/xlang_check.py versions batches  # some
"""

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "xlang"))
sys.path.insert(0, str(REPO / "sdks" / "python"))

import cross  # noqa: E402

# The Python tool imports the generated SDK from sdks/python.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "sdks" / "python"), os.environ.get("PYTHONPATH")]))
if __name__ == "__main__":
    sys.exit(cross.main([sys.argv[0], "--tools=python,typescript", *sys.argv[1:]]))
