"""Runs every SDK's vector runner over sdks/vectors/*.json and prints one table, language x
vector file, pass/fail (issue: "a single command runs all five"). Each runner prints
`VECTORS <lang> <file> pass <n>` or `VECTORS <lang> <file> FAIL <failed>/<n>` lines; a runner
that fails to build or run, or prints no line for a file, counts as a failure for that file.

    python3 tests/xlang/vectors.py            # every language
    python3 tests/xlang/vectors.py go rust    # some
"""

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "sdks" / "vectors"

# Each runner: shell commands run from the repository root; build steps print to stderr.
RUNNERS = {
    "python": f'PYTHONPATH="$PWD/sdks/python" "{sys.executable}" tests/sdk_python/vectors.py',
    "go": 'cd tests/sdk_go && go run ./cmd/vectors "$OLDPWD/sdks/vectors"',
    "java": "tests/sdk_java/build.sh >&2 && java -cp "
    '"tests/sdk_java/suite/target/classes:$(cat tests/sdk_java/suite/target/classpath.txt)" '
    "org.redbase.tests.Vectors",
    "typescript": "tests/sdk_typescript/build.sh >&2 && node tests/sdk_typescript/.build/tests/vectors.js",
    "rust": 'cd tests/sdk_rust && CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$OLDPWD/target/sdk_rust}" '
    "cargo test -q --locked --test vectors -- --nocapture",
}

LINE = re.compile(r"^VECTORS (\S+) (\S+) (pass \d+|FAIL \d+/\d+)\s*$")


def run(lang):
    """file -> result text for one language; (output tail) when the runner itself failed."""
    out = subprocess.run(
        ["bash", "-c", RUNNERS[lang]], cwd=REPO, capture_output=True, text=True, env=os.environ
    )
    results = {}
    for line in (out.stdout + "\n" + out.stderr).splitlines():
        m = LINE.match(line.strip())
        if m and m.group(1) == lang:
            results[m.group(2)] = m.group(3)
    return results, out.returncode, out.stderr[-2000:]


def main(argv):
    langs = argv[1:] or list(RUNNERS)
    files = sorted(p.name for p in VECTORS.glob("*.json"))
    table = {}
    failed = False
    for lang in langs:
        results, code, err = run(lang)
        row = {}
        for f in files:
            r = results.get(f, "FAIL (no result)")
            row[f] = r
            failed |= not r.startswith("pass")
        if code != 0:
            failed = True
            if all(r.startswith("pass") for r in row.values()):
                row = {f: f"{r} (runner exit {code})" for f, r in row.items()}
            print(f"--- {lang} runner exited {code}:\n{err}", file=sys.stderr)
        table[lang] = row
    width = max(len(r) for row in table.values() for r in row.values())
    print("| language | " + " | ".join(f.ljust(width) for f in files) + " |")
    print("|---|" + "|".join("-" * (width + 2) for _ in files) + "|")
    for lang, row in table.items():
        print(f"| {lang} | " + " | ".join(row[f].ljust(width) for f in files) + " |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
