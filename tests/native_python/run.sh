#!/usr/bin/env bash
# PyPI's hbase-driver 1.1.1 (pure Python, HBase's native RPC, bootstrapped through ZooKeeper
# with kazoo) running its own API against redbase: redbase serves the native RPC and its
# ZooKeeper responder on free loopback ports, the driver is configured with nothing but
# hbase.zookeeper.quorum.
#
#   tests/native_python/run.sh [pytest args]
#
# Environment: PYTHON (tests/run's target/venv; python3 otherwise), REDBASE_BIN (the server;
# target/debug/redbase, built here when unset).
set -uo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-python3}"
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi

"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/native_python/requirements.txt || {
    echo "tests/native_python/run.sh: pip install failed" >&2
    exit 1
}
if [ -z "${REDBASE_BIN:-}" ]; then
    cargo build -q -p redbase --bin redbase || {
        echo "tests/native_python/run.sh: cargo build failed" >&2
        exit 1
    }
fi

export PYTHONDONTWRITEBYTECODE=1
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
echo "== pytest tests/native_python (hbase-driver from PyPI)"
"$PYTHON" -m pytest -q -p no:cacheprovider tests/native_python "$@"
