#!/usr/bin/env bash
# The Thrift2 suite against the real redbase server:
#   1. pytest on tests/thrift2 (thriftpy2 clients generated from idl/hbase2.thrift and
#      idl/hbase1.thrift), every THBaseService method and the cross-gateway checks;
#   2. the Go client in tests/thrift2/go (code generated from idl/hbase2.thrift by the Thrift
#      compiler 0.17, Apache Thrift Go library v0.17.0), run with `go test`;
#   3. node-thrift2-hbase 0.6.2 from npm, unmodified (tests/thrift2/node), run with `node --test`.
# Installs what it needs (pip requirements, Debian's thrift-compiler, Go modules), builds the
# server, runs both, and exits non-zero if either fails. Extra arguments go to pytest.
set -uo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-python3}"

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi

sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
apt_install() {
    $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq "$@" >/dev/null
}

"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/requirements.txt || {
    echo "tests/thrift2/run.sh: pip install failed" >&2
    exit 1
}
# easybase (a Thrift2 client from PyPI) without its optional Kerberos extension, which needs
# a C toolchain and libkrb5: only SASL/Kerberos connections import it.
"$PYTHON" -m pip install --disable-pip-version-check -q --no-deps easybase==2.0.1 pure-sasl==0.6.2 || {
    echo "tests/thrift2/run.sh: pip install easybase failed" >&2
    exit 1
}
if ! command -v thrift >/dev/null 2>&1; then
    echo "== installing thrift-compiler"
    apt_install thrift-compiler || {
        echo "tests/thrift2/run.sh: cannot install thrift-compiler" >&2
        exit 1
    }
fi
if ! command -v go >/dev/null 2>&1; then
    echo "== installing golang-go"
    apt_install golang-go || {
        echo "tests/thrift2/run.sh: cannot install Go" >&2
        exit 1
    }
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "== installing nodejs, npm"
    apt_install nodejs npm || {
        echo "tests/thrift2/run.sh: cannot install Node.js" >&2
        exit 1
    }
fi
cargo build -p redbase || {
    echo "tests/thrift2/run.sh: cargo build failed" >&2
    exit 1
}

export PYTHONDONTWRITEBYTECODE=1
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"

echo "== pytest tests/thrift2"
"$PYTHON" -m pytest -q -p no:cacheprovider tests/thrift2 "$@"
py_status=$?

echo "== go test tests/thrift2/go"
go_status=0
(
    cd tests/thrift2/go &&
        ./gen.sh &&
        go mod download &&
        go test -count=1 -v . 2>&1 | grep -Ev '^(=== (RUN|PAUSE|CONT)|    --- PASS)'
    exit "${PIPESTATUS[0]}"
) || go_status=$?

echo "== node --test tests/thrift2/node (node-thrift2-hbase from npm)"
node_status=0
tests/thrift2/node/run.sh || node_status=$?

if [ "$py_status" -ne 0 ] || [ "$go_status" -ne 0 ] || [ "$node_status" -ne 0 ]; then
    echo "tests/thrift2/run.sh: pytest exit $py_status, go test exit $go_status, node exit $node_status" >&2
    exit 1
fi
