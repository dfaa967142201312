"""Runs a command with REDBASE_SDK_TARGET=host:port of a fresh `redbase serve` (Thrift2 only,
free loopback ports, tests/redbase_proc.py), then stops the server and requires it to exit 0.
With REDBASE_SDK_TARGET already set, runs the command against that gateway instead.

    python3 tests/sdk_rust/with_server.py CMD [ARGS...]
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from redbase_proc import RedbaseProcess  # noqa: E402


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if os.environ.get("REDBASE_SDK_TARGET"):
        return subprocess.call(argv[1:])
    proc = RedbaseProcess(Path(tempfile.mkdtemp()) / "data", gateways=("thrift2",)).start()
    env = dict(os.environ, REDBASE_SDK_TARGET=f"{proc.host}:{proc.ports['thrift2']}")
    try:
        code = subprocess.call(argv[1:], env=env)
    finally:
        stopped = proc.stop()
    if stopped != 0:
        print(f"redbase exited with {stopped} after SIGTERM:\n{proc.log_tail()}", file=sys.stderr)
        return code or 1
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
