#!/usr/bin/env bash
# HBase's standard Java client (org.apache.hbase:hbase-client: ConnectionFactory, Admin,
# Table) against redbase's native RPC listener, bootstrapped through RpcConnectionRegistry and
# (ZooKeeperBootstrapTest) through its ZooKeeper responder. Maven + JUnit 5 (tests/native_client/pom.xml): one build, the suite run on
# hbase-client 2.6.1 and again on 2.5.11.
#
#   tests/native_client/run.sh      builds redbase, starts `redbase serve` (native, Thrift1,
#                                   Thrift2 and HTTP/REST listeners on free loopback ports
#                                   below 32768, a temporary data dir), runs the suite between
#                                   the two steps of seed_gateways.py, stops the server; then
#                                   the test helper's own tests and its example project
#                                   (sdks/java-testkit), which start redbase themselves
#
# Environment:
#   NATIVE_CLIENT_BOOTSTRAP  HOST:PORT of a running server to test instead of starting redbase
#   NATIVE_CLIENT_ZOOKEEPER  HOST:PORT of that server's ZooKeeper [127.0.0.1:2181]
#   NATIVE_CLIENT_THRIFT1, NATIVE_CLIENT_THRIFT2, NATIVE_CLIENT_REST
#                            HOST:PORT of that server's Thrift1, Thrift2 and REST: the seed
#                            tables then cross the gateways (seed_gateways.py and
#                            SeedTablesTest); without all three SeedTablesTest is not run
#   NATIVE_CLIENT_HBASE      1: that server is HBase itself (tests/oracle/run.sh sets it; the
#                            tests HBase cannot pass in standalone mode are then skipped and
#                            not counted as failures)
#   NATIVE_CLIENT_PREVIOUS   0: only hbase-client 2.6.1, not the 2.5.11 run [1]
#   NATIVE_CLIENT_LOG        the client's log level (WARN; DEBUG shows every RPC it makes)
#   REDBASE_BIN              server binary, whose `shell` seed_gateways.py runs too
#                            [target/debug/redbase, built by `cargo build`]; NativeTlsTest
#                            starts one of its own with TLS and an auth file, ZnodeParentTest
#                            one with --zookeeper-znode-parent
#   PYTHON                   the interpreter of seed_gateways.py (happybase, thriftpy2 from
#                            tests/requirements.txt) [python3]
# A JDK 17 and Maven come from apt when missing; Maven fetches hbase-client and JUnit from
# Maven Central into ~/.m2.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
SUITE="$ROOT/tests/native_client"

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  echo "== native_client: installing openjdk-17-jdk-headless and maven"
  as_root=""
  [ "$(id -u)" -ne 0 ] && as_root="sudo"
  if ! { $as_root apt-get update -qq &&
    $as_root apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null; }; then
    echo "tests/native_client/run.sh: no JDK and Maven, and apt could not install them" >&2
    exit 1
  fi
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/redbase-native-client.XXXXXX")"
PID=""
finish() {
  local rc=$?
  if [ "$rc" -ne 0 ] && [ -s "$WORK/server.log" ]; then
    echo "== native_client: the server's last log lines" >&2
    tail -n 30 "$WORK/server.log" >&2 || true
  fi
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap finish EXIT

in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# A loopback port below 32768 (the kernel hands out ephemeral ports above it) nobody serves.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 12768))
    in_use "$p" || { echo "$p"; return; }
  done
}

start_server() {
  local bin="$REDBASE"
  local try i port http t1 t2 zk
  for try in 1 2 3 4 5; do
    port="$(free_port)"
    http="$(free_port)"
    t1="$(free_port)"
    t2="$(free_port)"
    zk="$(free_port)"
    [ "$(printf '%s\n' "$port" "$http" "$t1" "$t2" "$zk" | sort -u | wc -l)" = 5 ] || continue
    ZOOKEEPER="127.0.0.1:$zk"
    # the Thrift gateways and REST (on the HTTP listener) too: seed_gateways.py reads and
    # writes through them
    "$bin" serve --data-dir "$WORK/data" --gateways thrift1,thrift2,native \
      --zookeeper-addr "$ZOOKEEPER" \
      --hbase-rpc-addr "127.0.0.1:$port" --http-addr "127.0.0.1:$http" \
      --thrift1-addr "127.0.0.1:$t1" --thrift2-addr "127.0.0.1:$t2" \
      --advertised-host 127.0.0.1 >>"$WORK/server.log" 2>&1 &
    PID=$!
    for i in $(seq 1 300); do
      kill -0 "$PID" 2>/dev/null || break # exited: a port was taken meanwhile; try others
      if in_use "$port" && in_use "$http" && in_use "$t1" && in_use "$t2"; then
        BOOTSTRAP="127.0.0.1:$port"
        THRIFT1="127.0.0.1:$t1"
        THRIFT2="127.0.0.1:$t2"
        REST="127.0.0.1:$http"
        echo "== native_client: redbase (pid $PID) native RPC on $BOOTSTRAP, data in $WORK/data"
        return 0
      fi
      sleep 0.1
    done
    kill -TERM "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
    PID=""
  done
  echo "tests/native_client/run.sh: redbase did not start" >&2
  exit 1
}

# the server, and `redbase shell` for seed_gateways.py
REDBASE="${REDBASE_BIN:-$ROOT/target/debug/redbase}"
if [ -z "${REDBASE_BIN:-}" ]; then
  cargo build -q -p redbase --bin redbase
fi
THRIFT1=""
THRIFT2=""
REST=""
if [ -n "${NATIVE_CLIENT_BOOTSTRAP:-}" ]; then
  BOOTSTRAP="$NATIVE_CLIENT_BOOTSTRAP"
  ZOOKEEPER="${NATIVE_CLIENT_ZOOKEEPER:-127.0.0.1:2181}"
  THRIFT1="${NATIVE_CLIENT_THRIFT1:-}"
  THRIFT2="${NATIVE_CLIENT_THRIFT2:-}"
  REST="${NATIVE_CLIENT_REST:-}"
else
  start_server
fi

# The seed tables across gateways (SeedTablesTest between the two steps of
# seed_gateways.py), when the server's Thrift and REST addresses are known.
SEED="$WORK/seed"
mkdir -p "$SEED"
seed_props=()
seed_status=0
if [ -n "$THRIFT1" ] && [ -n "$THRIFT2" ] && [ -n "$REST" ]; then
  PYTHON="${PYTHON:-python3}"
  if ! "$PYTHON" -c 'import happybase, thriftpy2' 2>/dev/null; then
    "$PYTHON" -m pip install --disable-pip-version-check -q -r "$ROOT/tests/requirements.txt" || {
      echo "tests/native_client/run.sh: pip install failed" >&2
      exit 1
    }
  fi
  seed_args=(--dir "$SEED" --thrift1 "$THRIFT1" --thrift2 "$THRIFT2" --rest "$REST")
  echo "== native_client: seed tables written through Thrift2 and REST"
  "$PYTHON" "$SUITE/seed_gateways.py" write "${seed_args[@]}" || seed_status=$?
  seed_props=(-Dnc.seed.dir="$SEED")
else
  echo "== native_client: no NATIVE_CLIENT_THRIFT1/THRIFT2/REST: SeedTablesTest not run"
  echo '**/SeedTablesTest*' >"$WORK/excludes"
  seed_props=(-Dsurefire.excludesFile="$WORK/excludes")
fi

rm -rf "$SUITE"/target/surefire-reports*
hbase=false
[ "${NATIVE_CLIENT_HBASE:-0}" = 1 ] && hbase=true
skip_previous=false
[ "${NATIVE_CLIENT_PREVIOUS:-1}" = 0 ] && skip_previous=true
rc=0
# (Debian's Maven 3.8 prints colour resets even in batch mode: sed drops them)
mvn -B -q -Dstyle.color=never -f "$SUITE/pom.xml" test \
  -Dnc.bootstrap="$BOOTSTRAP" -Dnc.zookeeper="$ZOOKEEPER" -Dnc.redbase="$REDBASE" \
  -Dnc.log="${NATIVE_CLIENT_LOG:-WARN}" -Dnc.hbase="$hbase" \
  -Dnc.skip.previous="$skip_previous" -Dmaven.test.failure.ignore=true "${seed_props[@]}" 2>&1 |
  sed -u $'s/\x1b\\[[0-9;]*m//g' || rc=$?

if [ -n "$THRIFT1" ] && [ "$seed_status" -eq 0 ]; then
  echo "== native_client: natively written seed tables read through Thrift1, Thrift2, REST, shell"
  "$PYTHON" "$SUITE/seed_gateways.py" check "${seed_args[@]}" --shell "$REDBASE" ||
    seed_status=$?
fi
if [ -n "$THRIFT1" ] && [ -n "${NATIVE_CLIENT_BOOTSTRAP:-}" ]; then
  # a server that outlives this run (the oracle) keeps none of the suite's tables
  "$PYTHON" "$SUITE/seed_gateways.py" drop "${seed_args[@]}" || seed_status=$?
fi

# The test helper (sdks/java-testkit: the kit's own tests and the example project's), each
# test starting its own redbase from REDBASE_BIN; not when testing another server.
kit_rc=0
KIT="$ROOT/sdks/java-testkit"
if [ -z "${NATIVE_CLIENT_BOOTSTRAP:-}" ]; then
  echo "== native_client: sdks/java-testkit (the test helper and its example project)"
  rm -rf "$KIT"/*/target/surefire-reports
  REDBASE_BIN="$REDBASE" mvn -B -q -Dstyle.color=never -f "$KIT/pom.xml" test \
    -Dmaven.test.failure.ignore=true 2>&1 | sed -u $'s/\x1b\\[[0-9;]*m//g' || kit_rc=$?
fi

# One line per report directory: the suite per client version (surefire-reports: 2.6.1,
# surefire-reports-2.5.11), the kit, the example project.
total=0
fail=0
skip_total=0
count() { # reports-dir label
  local reports=$1 label=$2 tests=0 bad=0 skipped=0 f t e s fl
  if compgen -G "$reports/TEST-*.xml" >/dev/null; then
    for f in "$reports"/TEST-*.xml; do
      read -r t e s fl < <(sed -n 's/.*<testsuite [^>]*tests="\([0-9]*\)"[^>]*errors="\([0-9]*\)"[^>]*skipped="\([0-9]*\)"[^>]*failures="\([0-9]*\)".*/\1 \2 \3 \4/p' "$f" | head -n 1)
      tests=$((tests + ${t:-0}))
      bad=$((bad + ${e:-0} + ${fl:-0}))
      skipped=$((skipped + ${s:-0}))
    done
  fi
  if [ "$tests" -eq 0 ]; then
    echo "$label: no test reports (it did not build or did not run)"
    fail=$((fail + 1))
    return
  fi
  echo "$label: $((tests - bad - skipped)) passed, $bad failed, $skipped skipped"
  total=$((total + tests))
  fail=$((fail + bad))
  skip_total=$((skip_total + skipped))
}
for reports in "$SUITE"/target/surefire-reports*; do
  [ -d "$reports" ] || continue
  version="${reports##*/surefire-reports-}"
  [ "$version" = "$reports" ] && version=2.6.1
  count "$reports" "native_client (hbase-client $version)"
done
if [ -z "${NATIVE_CLIENT_BOOTSTRAP:-}" ]; then
  count "$KIT/testkit/target/surefire-reports" "sdks/java-testkit/testkit"
  count "$KIT/example/target/surefire-reports" "sdks/java-testkit/example"
  [ "$kit_rc" -eq 0 ] || fail=$((fail + 1))
fi
[ "$seed_status" -eq 0 ] || echo "native_client: seed_gateways.py failed (exit $seed_status)"
if [ "$total" -eq 0 ] || [ "$fail" -ne 0 ] || [ "$rc" -ne 0 ] || [ "$seed_status" -ne 0 ] ||
  { [ "$skip_total" -ne 0 ] && [ "$hbase" = false ]; }; then
  exit 1
fi
