#!/usr/bin/env bash
# The generated TypeScript SDK (sdks/typescript, package redbase_examples) against a real redbase:
#   1. build.sh: npm ci (package-lock.json), tsc --strict on the SDK and on this suite;
#      an SDK generated from edge_names.toml (reserved words everywhere) must compile too;
#   2. pack.sh: `npm pack`, installed into a fresh project, imported from ESM and required
#      from CommonJS, type-checked in both module modes;
#   3. the shared vectors byte for byte (one `VECTORS typescript <file> ...` line per file),
#      filters.json included;
#   4. node --test: end-to-end tests (e2e.test.ts, features.test.ts, bounds.test.ts, seeds.test.ts,
#      readme.test.ts: the generated README's quick start compiled and run, ensure.test.ts)
#      over Thrift2 against
#      `redbase serve` on loopback (or, with REDBASE_SDK_TARGET=host:port, against an already
#      running Thrift2 gateway);
#   5. xlang: rows, versions and batches written by the Python SDK dumped by this one and the
#      other way round (xlang_check.py, tests/xlang/cross.py for these two languages).
# Installs Node.js (Debian) if missing and its npm packages; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "== installing nodejs, npm"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    { $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq nodejs npm >/dev/null; } || {
        echo "tests/sdk_typescript/run.sh: cannot install Node.js" >&2
        exit 1
    }
fi
if [ -z "${REDBASE_SDK_TARGET:-}" ]; then
    cargo build -p redbase --bin redbase || {
        echo "tests/sdk_typescript/run.sh: cargo build failed" >&2
        exit 1
    }
fi
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"

tests/sdk_typescript/build.sh || {
    echo "tests/sdk_typescript/run.sh: build failed" >&2
    exit 1
}
out=tests/sdk_typescript/.build/tests
status=0

if [ -x "$REDBASE_BIN" ]; then
    echo "== reserved words: an SDK from edge_names.toml through tsc --strict"
    edge=tests/sdk_typescript/.build/edge
    rm -rf "$edge"
    { "$REDBASE_BIN" codegen --schema tests/sdk_typescript/edge_names.toml --lang typescript --out "$edge" >/dev/null &&
        tests/sdk_typescript/node_modules/.bin/tsc -p "$edge"; } || status=1
fi

echo "== packaging: npm pack, installed, used from ESM and CommonJS"
tests/sdk_typescript/pack.sh || status=1

echo "== vectors (sdks/vectors through the generated TypeScript)"
node "$out/vectors.js" || status=1

echo "== node --test (end to end)"
node --test "$out/e2e.test.js" "$out/features.test.js" "$out/bounds.test.js" "$out/seeds.test.js" "$out/readme.test.js" "$out/ensure.test.js" || status=1

if [ -z "${REDBASE_SDK_TARGET:-}" ]; then
    echo "== xlang: python <-> typescript through one redbase serve"
    # The Python tool needs the Python SDK's runtime (Apache Thrift's library from PyPI).
    "${PYTHON:-python3}" -m pip install --disable-pip-version-check -q -r tests/sdk_python/requirements.txt &&
        "${PYTHON:-python3}" tests/sdk_typescript/xlang_check.py || status=1
fi

exit $status
