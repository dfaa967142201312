#!/usr/bin/env bash
# The generated Go SDK (sdks/go, module redbase_examples) against a real redbase:
#   1. gofmt -l and go vet on the SDK (hbase2/ is the Thrift compiler's output, kept byte for
#      byte as the compiler writes it and checked against it by a cargo test, so gofmt skips it);
#   2. the shared vectors byte for byte (cmd/vectors: keys, values, filters and bounds, one
#      "VECTORS go <file> ..." line each);
#   3. packaging (package.sh): the module as `go get` installs it from a module proxy, at the
#      schema's version and at 2.1.0 (module path ending in /v2), used by a consumer program;
#   4. go test ./e2e: end-to-end tests over Thrift2 against `redbase serve` on loopback (or,
#      with REDBASE_SDK_TARGET=host:port, an already running Thrift2 gateway such as HBase's);
#   5. xlang with the Python tool, every case of tests/xlang (rows, versions, batches), against
#      one live server (the same REDBASE_SDK_TARGET when set).
# REDBASE_SDK_TABLE_PREFIX=go_ names every table the suite and the xlang tools touch go_<name>
# (Options.TablePrefix), so it can share one HBase with other languages' suites.
# Installs Go (Debian's golang-go) if missing; Go modules come from the Go module proxy. Extra
# arguments go to `go test ./e2e` (e.g. -skip TestFramedTransport against HBase).
set -uo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
    echo "== installing golang-go"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    { $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq golang-go >/dev/null; } || {
        echo "tests/sdk_go/run.sh: cannot install Go" >&2
        exit 1
    }
fi

status=0
fail() {
    echo "tests/sdk_go/run.sh: $*" >&2
    status=1
}

echo "== go mod download"
(cd tests/sdk_go && go mod download) || { fail "go mod download failed"; exit 1; }

echo "== gofmt -l, go vet (sdks/go)"
unformatted="$(cd sdks/go && gofmt -l . | grep -v '^hbase2/')"
[ -z "$unformatted" ] || fail "not gofmt-clean: $unformatted"
(cd sdks/go && go vet ./...) || fail "go vet sdks/go"
(cd tests/sdk_go && go vet ./...) || fail "go vet tests/sdk_go"

echo "== vectors"
(cd tests/sdk_go && go run ./cmd/vectors "$root/sdks/vectors") || fail "vectors"

# The binary runs the e2e server and generates the /v2 SDK of the packaging check.
cargo build -p redbase --bin redbase || { fail "cargo build failed"; exit 1; }
export REDBASE_BIN="${REDBASE_BIN:-$root/target/debug/redbase}"

echo "== packaging (go get from a module proxy)"
tests/sdk_go/package.sh "$REDBASE_BIN" || fail "packaging"

echo "== go test ./e2e"
(
    cd tests/sdk_go &&
        go test -count=1 -v ./e2e "$@" 2>&1 | grep -Ev '^(=== (RUN|PAUSE|CONT)|    --- PASS)'
    exit "${PIPESTATUS[0]}"
) || fail "go test ./e2e"

echo "== xlang: python <-> go (rows, versions, batches)"
PYTHON="${PYTHON:-python3}"
"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/sdk_python/requirements.txt ||
    fail "pip install failed"
XLANG_TABLE_PREFIX="${REDBASE_SDK_TABLE_PREFIX:-}" PYTHONDONTWRITEBYTECODE=1 \
    PYTHONPATH="$root/sdks/python${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" tests/sdk_go/xlang_check.py || fail "xlang python <-> go"

exit $status
