#!/usr/bin/env bash
# The Thrift1 suite: happybase, aiohappybase and a thriftpy2 client against the real redbase server.
# Installs the Python requirements, builds the server, runs pytest; exits with pytest's code.
set -uo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-python3}"

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi

"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/requirements.txt || {
    echo "tests/thrift1/run.sh: pip install failed" >&2
    exit 1
}
cargo build -p redbase || {
    echo "tests/thrift1/run.sh: cargo build failed" >&2
    exit 1
}

export PYTHONDONTWRITEBYTECODE=1
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
"$PYTHON" -m pytest -q -p no:cacheprovider tests/thrift1 "$@"
exit $?
