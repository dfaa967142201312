"""The generated README's quick start (sdks/python/README.md), extracted from the README itself
rather than copied here: type-checked with mypy --strict and run against the suite's gateway,
its address the only text changed."""

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "sdks" / "python"
#: The address the README dials: redbase's Thrift2 port.
DIAL = 'Connection("127.0.0.1", 9091)'


def quick_start(readme: Path, lang: str) -> str:
    """The first `lang` code block after the README's "## Quick start" heading."""
    text = readme.read_text()
    head = text.index("\n## Quick start\n")
    m = re.compile(rf"```{lang}\n(.*?)```", re.S).search(text, head)
    assert m, f"{readme}: no {lang} block under Quick start"
    return m.group(1)


def test_the_readme_quick_start_type_checks_and_runs(target, tmp_path):
    code = quick_start(SDK / "README.md", "python")
    assert code.count(DIAL) == 1, "the README dials redbase's Thrift2 port, 127.0.0.1:9091"
    assert "9090" not in code.replace("listens on 9090", ""), "9090 is Thrift1 on redbase"
    program = tmp_path / "quick_start.py"
    program.write_text(code.replace(DIAL, f"Connection({target[0]!r}, {target[1]})"))
    env = dict(os.environ, PYTHONPATH=str(SDK), MYPYPATH=str(SDK))
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null",
         "--config-file", str(SDK / "pyproject.toml"), str(program)],
        env=env, capture_output=True, text=True, cwd=tmp_path,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    run = subprocess.run([sys.executable, str(program)], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "AccessLogsKeyParts(" in run.stdout, run.stdout
