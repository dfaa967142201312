#!/usr/bin/env bash
# The cross-language check (tests/xlang/README.md): every SDK tool writes the dataset to a real
# redbase and every tool's dump must be identical (a writer x reader table), and every SDK's
# vector runner over sdks/vectors (a language x file table). Runs after the tests/sdk_* suites,
# which install each language's toolchain. Installs the Python SDK's requirements.
set -uo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-python3}"

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi

"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/sdk_python/requirements.txt || {
    echo "tests/xlang/run.sh: pip install failed" >&2
    exit 1
}
cargo build -p redbase --bin redbase || {
    echo "tests/xlang/run.sh: cargo build failed" >&2
    exit 1
}
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
export PYTHONDONTWRITEBYTECODE=1
status=0
echo "== shared vectors through every SDK (language x vector file)"
"$PYTHON" tests/xlang/vectors.py || status=1
echo "== conformance matrix (writer x reader, one live redbase)"
PYTHONPATH="$PWD/sdks/python${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" tests/xlang/cross.py || status=1
exit $status
