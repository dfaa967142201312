"""Where tests/security/run.sh puts the clients it builds (Go, Java, Node), and how to run one."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("SECURITY_BUILD", ROOT / "target" / "security"))


def built(name):
    path = BUILD / name
    assert path.exists(), f"{path} is missing: run tests/security/run.sh, which builds the clients"
    return path


def run(cmd, timeout=120, env=None):
    """(exit code, stdout + stderr) of a client program."""
    out = subprocess.run([str(c) for c in cmd], capture_output=True, timeout=timeout, env=env)
    return out.returncode, (out.stdout + out.stderr).decode(errors="replace")
