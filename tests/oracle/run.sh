#!/usr/bin/env bash
# The HBase differential oracle as a test suite: every tests/oracle/scenarios/*.json run against
# redbase (target/debug/redbase) and a real HBase 2.6.1 (tests/oracle/hbase.sh), answers compared
# by tests/oracle/diff.py; tests/oracle/rest_diff.py, the REST API against HBase's REST server
# (tests/oracle/rest_scenarios.py); tests/oracle/shell.sh, `redbase shell` running tests/shell/commands.hb
# against redbase and against HBase's Thrift2 gateway; and tests/oracle/copy.sh, `redbase copy` of
# the seed tables into HBase and back, compared cell by cell; the generated SDKs' end-to-end
# suites (tests/sdk_<lang>/run.sh with REDBASE_SDK_TARGET at HBase's Thrift2 gateway); and the
# node-thrift2-hbase suite (tests/thrift2/node) at the same gateway; the native Java client
# suite (tests/native_client/run.sh) at HBase's region server RPC port. Exits non-zero on any
# difference not listed in tests/oracle/allow.json (diff.py) or tests/oracle/shell-allow.json (shell.sh). Last,
# namespace quotas with the quota switch on (tests/oracle/quota_compare.py), after restarting
# the oracle this script started.
#
# Installs what it needs on a fresh Debian machine: a JDK 17 and Maven through apt when missing
# (hbase.sh runs Maven once to fetch HBase's jars into ~/.cache/redbase-oracle), the pinned Python
# packages of tests/requirements.txt through pip. Builds the server.
#
# An oracle that already answers (`hbase.sh status`) is used as is and left running; otherwise
# this script starts one and stops it again on exit. Extra arguments go to diff.py (e.g. -v, or
# scenario files).
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-python3}"
export PYTHON

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"

if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    echo "== installing openjdk-17-jdk-headless and maven"
    { $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null; } || {
        echo "tests/oracle/run.sh: cannot install a JDK and Maven" >&2
        exit 1
    }
fi
"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/requirements.txt || {
    echo "tests/oracle/run.sh: pip install failed" >&2
    exit 1
}
cargo build -p redbase || {
    echo "tests/oracle/run.sh: cargo build failed" >&2
    exit 1
}

export PYTHONDONTWRITEBYTECODE=1
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"

t0=$(date +%s)
started=0
stop_oracle() {
    if [ "$started" -eq 1 ]; then
        echo "== tests/oracle/hbase.sh stop"
        tests/oracle/hbase.sh stop || true
    fi
}
trap stop_oracle EXIT

oracle_up() { tests/oracle/hbase.sh status >/dev/null 2>&1; }
# (the status text is captured first: grep -q on a pipe could SIGPIPE hbase.sh under pipefail)
if ! oracle_up && [[ "$(tests/oracle/hbase.sh status 2>/dev/null || true)" == *"running, pid"* ]]; then
    # some of its JVMs run but the gateways do not answer yet: someone else is starting it
    echo "== an HBase oracle is starting elsewhere; waiting for it (up to 300s)"
    for _ in $(seq 1 300); do
        oracle_up && break
        sleep 1
    done
fi
if oracle_up; then
    echo "== HBase oracle already running: using it (and leaving it running)"
else
    echo "== tests/oracle/hbase.sh start"
    # a start that fails stops what it started itself (hbase.sh); only a started oracle is ours
    tests/oracle/hbase.sh start
    started=1
fi

# the ports the oracle chose (free ones, unless ORACLE_*_PORT pinned them)
eval "$(tests/oracle/hbase.sh ports)"

status=0
# first, while the oracle holds no tables of the scenarios: `list` and `status` in
# tests/shell/commands.hb see every table of the server
echo "== tests/oracle/shell.sh (redbase shell: commands.hb against redbase and HBase's Thrift2 gateway)"
shell_status=0
tests/oracle/shell.sh || shell_status=$?
echo "== tests/oracle/copy.sh (redbase copy: the seed tables redbase -> HBase -> redbase, compared)"
copy_status=0
tests/oracle/copy.sh || copy_status=$?
echo "== $PYTHON tests/oracle/diff.py"
"$PYTHON" tests/oracle/diff.py "$@" || status=$?
echo "== $PYTHON tests/oracle/rest_diff.py (the REST API against HBase's REST server)"
rest_status=0
"$PYTHON" tests/oracle/rest_diff.py || rest_status=$?
if [ "$rest_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/oracle/rest_diff.py exit $rest_status"
    [ "$status" -ne 0 ] || status=$rest_status
fi
if [ "$shell_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/oracle/shell.sh exit $shell_status"
    [ "$status" -ne 0 ] || status=$shell_status
fi
if [ "$copy_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/oracle/copy.sh exit $copy_status"
    [ "$status" -ne 0 ] || status=$copy_status
fi
# The generated SDKs' end-to-end suites against HBase's Thrift2 gateway (REDBASE_SDK_TARGET):
# the same SDK code that runs against redbase, on a real HBase. One block per language.
sdk_target="127.0.0.1:${ORACLE_THRIFT2_PORT:-19091}"
echo "== tests/sdk_python/run.sh against HBase (REDBASE_SDK_TARGET=$sdk_target)"
py_sdk_status=0
# (HBase's Thrift2 server takes one transport, chosen at start; redbase detects it per
# connection, which test_framed_transport checks against redbase only.)
REDBASE_SDK_TARGET="$sdk_target" tests/sdk_python/run.sh \
    --deselect tests/sdk_python/test_e2e.py::test_framed_transport || py_sdk_status=$?
if [ "$py_sdk_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/sdk_python/run.sh against HBase exit $py_sdk_status"
    [ "$status" -ne 0 ] || status=$py_sdk_status
fi
echo "== tests/sdk_go/run.sh against HBase (REDBASE_SDK_TARGET=$sdk_target)"
go_sdk_status=0
# Tables prefixed go_ so the suite can share the oracle with other languages' suites.
REDBASE_SDK_TARGET="$sdk_target" REDBASE_SDK_TABLE_PREFIX=go_ \
    tests/sdk_go/run.sh -skip TestFramedTransport || go_sdk_status=$?
if [ "$go_sdk_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/sdk_go/run.sh against HBase exit $go_sdk_status"
    [ "$status" -ne 0 ] || status=$go_sdk_status
fi
# The Rust SDK's end-to-end suite against HBase's Thrift2 gateway: tables prefixed rs_ (the
# suites of other languages may share the oracle), the gateway buffered (no framed check).
echo "== tests/sdk_rust/run.sh against HBase (REDBASE_SDK_TARGET=$sdk_target)"
rs_sdk_status=0
REDBASE_SDK_TARGET="$sdk_target" REDBASE_SDK_TABLE_PREFIX=rs_ REDBASE_SDK_FRAMED=0 \
    tests/sdk_rust/run.sh || rs_sdk_status=$?
if [ "$rs_sdk_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/sdk_rust/run.sh against HBase exit $rs_sdk_status"
    [ "$status" -ne 0 ] || status=$rs_sdk_status
fi
echo "== tests/sdk_typescript/run.sh against HBase (REDBASE_SDK_TARGET=$sdk_target)"
ts_sdk_status=0
REDBASE_SDK_TARGET="$sdk_target" tests/sdk_typescript/run.sh || ts_sdk_status=$?
if [ "$ts_sdk_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/sdk_typescript/run.sh against HBase exit $ts_sdk_status"
    [ "$status" -ne 0 ] || status=$ts_sdk_status
fi
echo "== tests/sdk_java/run.sh against HBase (REDBASE_SDK_TARGET=$sdk_target)"
java_sdk_status=0
REDBASE_SDK_TARGET="$sdk_target" tests/sdk_java/run.sh || java_sdk_status=$?
if [ "$java_sdk_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/sdk_java/run.sh against HBase exit $java_sdk_status"
    [ "$status" -ne 0 ] || status=$java_sdk_status
fi
# node-thrift2-hbase (npm, unmodified) against HBase: its suite asserts HBase's own behaviour
# (a TColumn timestamp ignored in gets, DELETE_COLUMNS on a family-only column), so it must
# pass on both servers. Tables carry the suite's pid as a prefix.
echo "== tests/thrift2/node/run.sh against HBase (REDBASE_SDK_TARGET=$sdk_target)"
node_status=0
REDBASE_SDK_TARGET="$sdk_target" tests/thrift2/node/run.sh || node_status=$?
if [ "$node_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/thrift2/node/run.sh against HBase exit $node_status"
    [ "$status" -ne 0 ] || status=$node_status
fi
# HBase's own Java client (hbase-client 2.6.1, then 2.5.11, one Maven build) running the
# native suite (tests/native_client) against HBase's region server, the suite that runs
# against redbase's native listener in tests/run: RpcConnectionRegistry bootstraps from the
# region server's RPC port (the master's answers the same). NATIVE_CLIENT_HBASE=1 passes
# -Dnc.hbase=true, which only the tests HBase cannot pass in standalone mode look at
# (docs/compatibility.md). Tables carry the JVM's pid, so nothing collides. The seed tables
# cross HBase's gateways too (Thrift1, Thrift2, its REST server, `redbase shell` over its
# Thrift2), and seed_gateways.py drops its namespaces afterwards.
echo "== tests/native_client/run.sh against HBase (NATIVE_CLIENT_BOOTSTRAP=127.0.0.1:${ORACLE_RS_PORT:-19162})"
nc_status=0
tests/oracle/hbase.sh rest-start >/dev/null || nc_status=$?
[ "$nc_status" -ne 0 ] ||
    NATIVE_CLIENT_BOOTSTRAP="127.0.0.1:${ORACLE_RS_PORT:-19162}" NATIVE_CLIENT_HBASE=1 \
        NATIVE_CLIENT_THRIFT1="127.0.0.1:${ORACLE_THRIFT1_PORT:-19090}" \
        NATIVE_CLIENT_THRIFT2="127.0.0.1:${ORACLE_THRIFT2_PORT:-19091}" \
        NATIVE_CLIENT_REST="127.0.0.1:${ORACLE_REST_PORT:-19080}" \
        NATIVE_CLIENT_ZOOKEEPER="127.0.0.1:${ORACLE_ZK_PORT:-19181}" \
        tests/native_client/run.sh || nc_status=$?
if [ "$nc_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/native_client/run.sh against HBase exit $nc_status"
    [ "$status" -ne 0 ] || status=$nc_status
fi
# Namespace quotas with the quota switch on, which the scenarios above leave off (HBase's
# default): the oracle this script started is restarted with ORACLE_QUOTA=1, and
# quota_compare.py runs the same calls against it and a `redbase serve --quota-enabled`. An
# oracle someone else started is not restarted; the step then says so and fails.
echo "== tests/oracle/quota_compare.py (HBase restarted with hbase.quota.enabled)"
quota_status=0
if [ "$started" -eq 1 ]; then
    tests/oracle/hbase.sh stop >/dev/null || true
    started=0
    if ORACLE_QUOTA=1 tests/oracle/hbase.sh start >/dev/null; then
        started=1
        eval "$(tests/oracle/hbase.sh ports)"
        "$PYTHON" tests/oracle/quota_compare.py --hbase "127.0.0.1:${ORACLE_THRIFT2_PORT:-19091}" ||
            quota_status=$?
    else
        quota_status=1
    fi
else
    echo "tests/oracle/run.sh: the oracle was already running; stop it to run the quota comparison"
    quota_status=1
fi
if [ "$quota_status" -ne 0 ]; then
    echo "tests/oracle/run.sh: tests/oracle/quota_compare.py exit $quota_status"
    [ "$status" -ne 0 ] || status=$quota_status
fi
echo "tests/oracle/run.sh: diff.py exit $status after $(($(date +%s) - t0))s (oracle start included)"
exit "$status"
