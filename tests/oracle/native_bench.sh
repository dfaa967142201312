#!/usr/bin/env bash
# HBase's Java client (hbase-client 2.6.1) against redbase's native RPC and against Apache HBase
# 2.6.1 (the oracle of tests/oracle/hbase.sh), side by side in one run; then the time from
# "start" to the first acknowledged put of redbase-testkit (sdks/java-testkit) against HBase's
# HBaseTestingUtility.startMiniCluster(). A benchmark, not a test: not part of tests/run.
#
# Throughput (bench/java-native, Throughput.java): a release redbase (fresh data directory,
# native listener on a free loopback port below 32768) and the oracle's region server each get
# the same one-region table of N rows with a 100-byte value; then for R rounds every cell
# (get, put, put with ASYNC_WAL, scan of 100 rows, batch of 100 puts, batch of 100 gets, at 1
# and 16 threads sharing one Connection) runs S seconds against each server, alternating which
# goes first, after W unrecorded warm-up rounds. Prints a markdown table: medians, every
# round's ratio, and each server's CPU time per operation (/proc of redbase's process and of
# HBase's master JVM, which holds its region server).
#
# Start-up (Startup.java): each run a fresh JVM with the same flags and classpath, alternating
# redbase-testkit (release binary) and the mini cluster; the time from before
# RedbaseServer.start() / startMiniCluster() to the first put acknowledged (connection, create
# table, put), the time to stop, and peak RSS (JVM; redbase's process apart).
#
#   tests/oracle/native_bench.sh [options]
#     --rounds R            measured rounds [3]
#     --warmup-rounds W     unrecorded rounds first (HBase's JIT, both clients' too) [1]
#     --secs S              seconds per cell, server and round [3]
#     --rows N              preloaded rows [100000]
#     --threads LIST        client threads [1,16]
#     --cells LIST          [get,put,put-async,scan100,batch-put100,batch-get100]
#     --startup-runs N      start-up runs of each kind [3]
#     --no-throughput       only the start-up part
#     --no-startup          only the throughput part
#     --no-build            use the binaries and classes as they are
#     --keep-hbase          leave the oracle running if this script started it
#
# Environment: PYTHON (hbase.sh's readiness probe needs thriftpy2) [python3], ORACLE_* (see
# hbase.sh). When this script starts the oracle it passes ORACLE_JVM_OPTS=-XX:TieredStopAtLevel=4
# (the full JIT, as tests/oracle/bench.sh does); a running oracle is used as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"

rounds=3 warmup_rounds=1 secs=3 rows=100000 threads=1,16
cells=get,put,put-async,scan100,batch-put100,batch-get100 startup_runs=3
do_throughput=1 do_startup=1 build=1 keep_hbase=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --warmup-rounds) warmup_rounds=$2; shift 2 ;;
    --secs) secs=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --cells) cells=$2; shift 2 ;;
    --startup-runs) startup_runs=$2; shift 2 ;;
    --no-throughput) do_throughput=0; shift ;;
    --no-startup) do_startup=0; shift ;;
    --no-build) build=0; shift ;;
    --keep-hbase) keep_hbase=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "native_bench.sh: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
export PYTHON="${PYTHON:-python3}"
BENCH="$ROOT/bench/java-native"
REDBASE="${CARGO_TARGET_DIR:-$ROOT/target}/release/redbase"
mvnq() { mvn -B -q -Dstyle.color=never "$@" 2>&1 | sed -u $'s/\x1b\\[[0-9;]*m//g'; }

if [ "$build" = 1 ]; then
  echo "== cargo build --release -p redbase"
  cargo build -q --release -p redbase --bin redbase
  echo "== Maven: redbase-testkit (installed into ~/.m2) and bench/java-native"
  mvnq -f "$ROOT/sdks/java-testkit/testkit/pom.xml" install -DskipTests
  mvnq -f "$BENCH/pom.xml" compile dependency:build-classpath \
    -Dmdep.outputFile="$BENCH/target/classpath.txt"
fi
[ -x "$REDBASE" ] || { echo "native_bench.sh: no $REDBASE (drop --no-build)" >&2; exit 1; }
CP="$BENCH/target/classes:$(cat "$BENCH/target/classpath.txt")"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/redbase-native-bench.XXXXXX")"
PID=""
started=0
finish() {
  local rc=$?
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
  fi
  if [ "$started" = 1 ] && [ "$keep_hbase" = 0 ]; then
    echo "== tests/oracle/hbase.sh stop"
    tests/oracle/hbase.sh stop >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap finish EXIT

# The JVM flags of every benchmark JVM: HBase's own module flags (as hbase.sh's), the full JIT,
# a 2 GiB heap (HBase's tests give the mini cluster about that), temporary files in $WORK.
JVM=(-Xms64m -Xmx2g -Djava.io.tmpdir="$WORK" -Dtest.build.data.basedirectory="$WORK/test-data"
  -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
  --add-modules jdk.unsupported --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
  --add-exports java.base/sun.net.dns=ALL-UNNAMED --add-exports java.base/sun.net.util=ALL-UNNAMED)
for p in java.io java.nio sun.nio.ch java.lang jdk.internal.ref java.lang.reflect java.util \
  java.util.concurrent; do
  JVM+=(--add-opens "java.base/$p=ALL-UNNAMED")
done

echo "== commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- server bench sdks || echo ' (+ local changes)'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 12768))
    in_use "$p" || { echo "$p"; return; }
  done
}

if [ "$do_throughput" = 1 ]; then
  if tests/oracle/hbase.sh status >/dev/null 2>&1; then
    echo "== HBase oracle already running: using it as it is (its JIT settings included)"
  else
    echo "== tests/oracle/hbase.sh start (ORACLE_JVM_OPTS=-XX:TieredStopAtLevel=4)"
    started=1
    ORACLE_JVM_OPTS="${ORACLE_JVM_OPTS:--XX:TieredStopAtLevel=4}" tests/oracle/hbase.sh start >/dev/null
  fi
  eval "$(tests/oracle/hbase.sh ports)"
  port="$(free_port)"
  http="$(free_port)"
  "$REDBASE" serve --data-dir "$WORK/data" --gateways native --hbase-rpc-addr "127.0.0.1:$port" \
    --http-addr "127.0.0.1:$http" --advertised-host 127.0.0.1 >"$WORK/redbase.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do
    in_use "$port" && break
    sleep 0.1
  done
  in_use "$port" || { tail "$WORK/redbase.log"; echo "native_bench.sh: redbase did not start" >&2; exit 1; }
  echo "== throughput: redbase (release, pid $PID) 127.0.0.1:$port vs HBase 127.0.0.1:$ORACLE_RS_PORT"
  hbase_pid="$(tests/oracle/hbase.sh status 2>/dev/null | sed -n 's/^master: running, pid \([0-9]*\).*/\1/p')"
  java "${JVM[@]}" -cp "$CP" redbase.bench.Main throughput --redbase "127.0.0.1:$port" \
    --hbase "127.0.0.1:$ORACLE_RS_PORT" --redbase-pid "$PID" --hbase-pid "${hbase_pid:-0}" \
    --clk-tck "$(getconf CLK_TCK)" --rounds "$rounds" --warmup-rounds "$warmup_rounds" \
    --secs "$secs" --rows "$rows" --threads "$threads" --cells "$cells" 2>"$WORK/throughput.err" || {
    tail -n 30 "$WORK/throughput.err" >&2
    exit 1
  }
  echo "redbase peak RSS: $(awk '/^VmHWM/ {print $2, $3}' "/proc/$PID/status")"
  kill -TERM "$PID"
  wait "$PID" || true
  PID=""
  if [ "$started" = 1 ] && [ "$keep_hbase" = 0 ]; then
    tests/oracle/hbase.sh stop >/dev/null 2>&1 || true
    started=0
  fi
fi

if [ "$do_startup" = 1 ]; then
  echo "== start-up to the first put: redbase-testkit (release binary) vs HBaseTestingUtility.startMiniCluster(), $startup_runs runs each, alternating"
  out="$WORK/startup.txt"
  : >"$out"
  for i in $(seq 1 "$startup_runs"); do
    for kind in redbase minicluster; do
      t0=$(date +%s%N)
      REDBASE_BIN="$REDBASE" java "${JVM[@]}" -Dbench.trace=true -cp "$CP" redbase.bench.Main \
        startup "$kind" 2>"$WORK/startup-$kind-$i.err" | tee -a "$out" || {
        tail -n 30 "$WORK/startup-$kind-$i.err" >&2
        exit 1
      }
      echo "  (JVM process wall time $(( ($(date +%s%N) - t0) / 1000000 )) ms)"
      rm -rf "$WORK/test-data"
    done
  done
  for kind in redbase minicluster; do
    grep "^startup $kind " "$out" | sed 's/.*first_put_ms=\([0-9]*\).*/\1/' | sort -n |
      awk -v k="$kind" '{a[NR]=$1} END {printf "%s: first put after %d ms (median of %d; min %d, max %d)\n", k, a[int((NR+1)/2)], NR, a[1], a[NR]}'
  done
fi
