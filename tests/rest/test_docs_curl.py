"""Runs every ```sh block of docs/rest.md that calls curl, in order, against a real redbase:
each must exit 0 (the examples use `curl -f` where they expect success and check the status
code where they expect an error)."""

import re
import subprocess
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "rest.md"


def blocks():
    text = DOC.read_text()
    return [b for b in re.findall(r"```sh\n(.*?)```", text, re.S) if "curl" in b]


def test_the_documented_examples_run(server):
    found = blocks()
    assert len(found) >= 8, "docs/rest.md should show every resource"
    for block in found:
        script = block.replace("localhost:8080", f"127.0.0.1:{server.http_port}")
        r = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 0, f"example failed:\n{block}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"
