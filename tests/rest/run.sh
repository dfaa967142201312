#!/usr/bin/env bash
# The REST API suite: third-party REST clients through their own APIs against a real
# `redbase serve` (its operations listener serves HBase's REST API, docs/rest.md):
#   Python: PyPI `starbase` (tables, schema, inserts, fetches with versions, scanners with
#           filters, batches, removes)
#   Node:   npm `hbase` (node-hbase; tables, puts, gets with versions, scanners with filters,
#           deletes, cluster resources), `npm ci` from the committed package-lock.json
#   curl:   every example of docs/rest.md, executed in order
# Installs what it needs (pip into the suites' venv, npm ci, curl and node from Debian) and
# exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

PYTHON="${PYTHON:-python3}"
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
die() {
    echo "tests/rest/run.sh: $*" >&2
    exit 1
}
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ "${#missing[@]}" -ne 0 ]; then
    echo "== installing ${missing[*]}"
    { $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
        die "cannot install ${missing[*]}"
fi

"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/requirements.txt -r tests/rest/requirements.txt ||
    die "pip install failed"
(cd tests/rest && npm ci --no-audit --no-fund --silent) || die "npm ci failed"
cargo build -p redbase || die "cargo build failed"

"$PYTHON" -m pytest -q tests/rest -p no:cacheprovider
