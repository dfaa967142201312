#!/usr/bin/env bash
# The generated Python SDK (sdks/python, package redbase_examples) against a real redbase:
#   1. the SDK installs from its pyproject.toml, and `python -m build --wheel` builds a wheel
#      that installs into a fresh venv (with its `thrift` dependency from PyPI) and imports, its
#      version and README the schema's;
#   2. mypy --strict on the SDK and on a typed example program;
#   3. pytest: the shared vectors byte for byte, and end-to-end tests over Thrift2 against
#      `redbase serve` on loopback (or, with REDBASE_SDK_TARGET=host:port, against an already
#      running Thrift2 gateway such as Apache HBase's).
# Installs its Python requirements with pip; extra arguments go to pytest.
set -uo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-python3}"

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi

"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/sdk_python/requirements.txt || {
    echo "tests/sdk_python/run.sh: pip install failed" >&2
    exit 1
}
if [ -z "${REDBASE_SDK_TARGET:-}" ]; then
    cargo build -p redbase --bin redbase || {
        echo "tests/sdk_python/run.sh: cargo build failed" >&2
        exit 1
    }
fi

export PYTHONDONTWRITEBYTECODE=1
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
status=0

echo "== pip install sdks/python (into a scratch directory)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# Built from a copy, so no build/ or egg-info lands in the tree.
cp -r sdks/python "$scratch/src"
"$PYTHON" -m pip install --disable-pip-version-check -q --no-deps --no-build-isolation \
    --target "$scratch/site" "$scratch/src" || status=1
[ -f "$scratch/site/redbase_examples/py.typed" ] || {
    echo "tests/sdk_python/run.sh: the installed SDK lacks py.typed" >&2
    status=1
}

echo "== python -m build --wheel sdks/python, installed into a venv"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' sdks/schemas/access_logs.toml)"
cp -r sdks/python "$scratch/wheel-src"
if "$PYTHON" -m build --wheel --no-isolation --outdir "$scratch/dist" "$scratch/wheel-src" >"$scratch/build.log" 2>&1; then
    wheel="$scratch/dist/redbase_examples-$version-py3-none-any.whl"
    if [ ! -f "$wheel" ]; then
        echo "tests/sdk_python/run.sh: no wheel for version $version: $(ls "$scratch/dist")" >&2
        status=1
    elif ! { "$PYTHON" -m venv "$scratch/venv" &&
        "$scratch/venv/bin/pip" install --disable-pip-version-check -q "$wheel" &&
        (cd "$scratch" && "$scratch/venv/bin/python" - "$version" <<'PY'
import sys
from importlib import metadata

import redbase_examples as sdk
from redbase_examples import AccessLogsKey, Filter

version = sys.argv[1]
assert sdk.__version__ == version, (sdk.__version__, version)
assert metadata.version("redbase_examples") == version
readme = metadata.metadata("redbase_examples")["Description"]
assert f"redbase_examples {version}" in readme, "the README names the version"
assert sdk.__file__.startswith(sys.prefix), f"imported from the venv, not the tree: {sdk.__file__}"
assert AccessLogsKey("dave", "jericho", 201510).encode() == b"16108|jericho|201510"
assert Filter.page(3).render() == b"PageFilter(3)"
print(f"wheel redbase_examples {version}: installed and imported from {sdk.__file__}")
PY
        ); }; then
        echo "tests/sdk_python/run.sh: the wheel does not install or import" >&2
        status=1
    fi
else
    cat "$scratch/build.log" >&2
    echo "tests/sdk_python/run.sh: python -m build --wheel failed" >&2
    status=1
fi

echo "== mypy --strict"
(cd sdks/python && "$PYTHON" -m mypy --strict --no-incremental --cache-dir=/dev/null) || status=1
MYPYPATH=sdks/python "$PYTHON" -m mypy --strict --no-incremental --cache-dir=/dev/null \
    --config-file sdks/python/pyproject.toml tests/sdk_python/typed_example.py || status=1

echo "== pytest tests/sdk_python"
PYTHONPATH="$PWD/sdks/python${PYTHONPATH:+:$PYTHONPATH}" \
    "$PYTHON" -m pytest -q -p no:cacheprovider tests/sdk_python "$@" || status=1
exit $status
