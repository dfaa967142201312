#!/usr/bin/env bash
# The README's first session, run as written against a fresh server: every code block after a
# `<!-- readme-test: python -->` or `<!-- readme-test: sh -->` marker runs in order, and its
# output must match the `<!-- readme-test: output -->` block after it (timestamps and timings
# masked). The server runs on free ports; the blocks' default ports are rewritten to them.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON="${PYTHON:-python3}"
"$PYTHON" -m pip install --disable-pip-version-check -q happybase==1.3.0 || {
    echo "tests/readme/run.sh: pip install happybase failed" >&2
    exit 1
}
cargo build -p redbase || {
    echo "tests/readme/run.sh: cargo build failed" >&2
    exit 1
}
export PYTHONDONTWRITEBYTECODE=1
exec "$PYTHON" tests/readme/first_session.py README.md
