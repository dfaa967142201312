"""Runs the README's marked blocks against a fresh `redbase serve` (see tests/readme/run.sh)."""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("REDBASE_BIN", REPO / "target" / "debug" / "redbase"))
MARKER = re.compile(r"<!-- readme-test: (python|sh|output) -->\s*\n```[a-z]*\n(.*?)```", re.S)
# The README's default addresses, and the flag of each.
DEFAULTS = {
    "thrift1": ("127.0.0.1:9090", "--thrift1-addr"),
    "thrift2": ("127.0.0.1:9091", "--thrift2-addr"),
    "http": ("127.0.0.1:8080", "--http-addr"),
    "native": ("127.0.0.1:16020", "--hbase-rpc-addr"),
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mask(text):
    text = re.sub(r"timestamp=[^,]+", "timestamp=T", text)
    text = re.sub(r"Took \d+\.\d+ seconds", "Took S seconds", text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def blocks(readme):
    """[(kind, code, expected output or None)] in README order."""
    found = MARKER.findall(readme)
    out = []
    for i, (kind, code) in enumerate(found):
        if kind == "output":
            continue
        expected = found[i + 1][1] if i + 1 < len(found) and found[i + 1][0] == "output" else None
        out.append((kind, code, expected))
    return out


def main(readme_path):
    readme = Path(readme_path).read_text()
    todo = blocks(readme)
    assert len(todo) >= 3, f"expected the first session's blocks in {readme_path}, found {len(todo)}"
    ports = {name: free_port() for name in DEFAULTS}
    work = Path(tempfile.mkdtemp(prefix="redbase-readme-"))
    args = [str(BIN), "serve", "--data-dir", str(work / "data")]
    for name, (_, flag) in DEFAULTS.items():
        args += [flag, f"127.0.0.1:{ports[name]}"]
    log = open(work / "server.log", "w")
    server = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=work)
    failures = 0
    try:
        deadline = time.time() + 30
        while "ready:" not in (work / "server.log").read_text():
            if server.poll() is not None or time.time() > deadline:
                print((work / "server.log").read_text())
                raise SystemExit("tests/readme: the server did not say it was ready")
            time.sleep(0.1)
        env = dict(os.environ)
        env["PATH"] = f"{BIN.parent}{os.pathsep}{env['PATH']}"
        env["REDBASE_SHELL_THRIFT2"] = f"127.0.0.1:{ports['thrift2']}"
        for n, (kind, code, expected) in enumerate(todo, 1):
            for name, (addr, _) in DEFAULTS.items():
                port = addr.rsplit(":", 1)[1]
                code = re.sub(rf"(?<!\d){port}(?!\d)", str(ports[name]), code)
            cmd = [sys.executable, "-c", code] if kind == "python" else ["bash", "-euo", "pipefail", "-c", code]
            ran = subprocess.run(cmd, env=env, cwd=work, capture_output=True, text=True, timeout=60)
            if ran.returncode != 0:
                failures += 1
                print(f"block {n} ({kind}) exited {ran.returncode}:\n{code}\n{ran.stdout}{ran.stderr}")
                continue
            if expected is not None and mask(ran.stdout) != mask(expected):
                failures += 1
                print(f"block {n} ({kind}) printed:\n{ran.stdout}\nthe README shows:\n{expected}")
                continue
            print(f"block {n} ({kind}): as the README shows")
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(todo) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
