#!/usr/bin/env bash
# redbase vs Apache HBase 2.6 (the oracle of tests/oracle/hbase.sh), side by side and interleaved.
#
# Starts (or reuses) the oracle HBase and a release redbase on free loopback ports with a fresh
# data directory, loads the same table into both once, then for R rounds runs every cell
# (workload x connections x gateway) once against each server, alternating which goes first,
# with `loadgen bench --addr ... --no-null --rounds 1`. Prints one markdown table: median ops/s
# of each server, the median of the per-round ratios redbase/HBase and their min-max.
# At one connection it also measures a null server (`loadgen null-server`: canned replies, and
# for each durable put one synced record written over a block of a file), on the servers' core:
# what any server could reach on this machine, and so how far a ratio to HBase can go there.
# A benchmark, not a test: it is not part of tests/run.
#
#   tests/oracle/bench.sh [options]
#     --rounds R           rounds [3]
#     --warmup-rounds W    unrecorded rounds before them, every cell once against each server
#                          (HBase's JIT compiles its hot paths during the first) [1]
#     --secs S             measured seconds per cell, server and round [3]
#     --warmup S           unrecorded seconds before each measurement (loadgen --warmup-secs) [0.2]
#     --rows N             preloaded rows (100-byte values) [100000]
#     --connections LIST   connection counts [1,16]
#     --services LIST      gateways [thrift1,thrift2]
#     --cells LIST         workloads [get,put,put-async,scan,ycsb-a,ycsb-b,ycsb-c,ycsb-e]
#     --keep-hbase         leave the oracle running if this script started it
#     --hbase-jvm-opts S   extra JVM flags when this script starts HBase (ORACLE_JVM_OPTS)
#                          [-XX:TieredStopAtLevel=4: the full JIT; the oracle itself runs C1 only]
#     --hbase-wal-hsync    start HBase with a WAL that reaches the disk (hbase.sh's
#                          ORACLE_WAL_HSYNC=1: hbase.wal.hsync on Hadoop 3's raw local
#                          filesystem, whose hsync is an fsync), for durable puts like for like;
#                          a running oracle is reused only if it was started the same way
#     --no-fsync-check     skip the strace count of fsync calls under puts
#     --pin                give the servers CPU 0 and loadgen CPU 1 (taskset; needs 2+ cores):
#                          each server then has one core of its own, as it would with its client
#                          on another machine, and neither side's threads steal from the other
#     --null-conns LIST    connection counts at which the null server is measured too [1]
#     --no-null            do not measure the null server
#     --no-build           use the binaries as they are
#     --out DIR            keep every loadgen output there [a temp dir, deleted at the end]
#
# Environment: CARGO_TARGET_DIR (where the binaries are built and found [<repo>/target]),
# REDBASE_BIN and LOADGEN_BIN (take these binaries; implies --no-build), and the ORACLE_*
# variables of hbase.sh (ports, heap).
#
# Cells (all through loadgen; Thrift2 scans are openScanner + getScannerRows + closeScanner):
#   get        one cell of a random preloaded row (Thrift1 get, Thrift2 get of f:q)
#   put        one 100-byte cell to a new random row; Thrift1 mutateRow, Thrift2 put with no
#              durability set (so the table default: SYNC_WAL)
#   put-async  Thrift2 only: the same put with durability ASYNC_WAL
#   scan       100 consecutive preloaded rows
#   ycsb-a/b/c/e  loadgen --workloads mix: A getrow=50,put=50; B getrow=95,put=5; C getrow=100;
#              E scan=95,put=5. YCSB reads whole records, hence getRow; its updates hit
#              existing records, these puts write new rows; its E scans 1-100 rows, these 100.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
ORACLE="$HERE/hbase.sh"
PY="${PYTHON:-python3}"

ROUNDS=3
WARMUP_ROUNDS=1
SECS=3
WARMUP=0.2
ROWS=100000
CONNS=1,16
SERVICES=thrift1,thrift2
CELLS=get,put,put-async,scan,ycsb-a,ycsb-b,ycsb-c,ycsb-e
KEEP_HBASE=0
HBASE_JVM_OPTS="-XX:TieredStopAtLevel=4"
FSYNC_CHECK=1
WAL_HSYNC=0
BUILD=1
PIN=0
NULL_CONNS=1
OUT=""
TABLE=redbase_bench
CMDLINE="$0${*:+ $*}"

log() { echo "bench: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

while (($#)); do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --warmup-rounds) WARMUP_ROUNDS="$2"; shift 2 ;;
    --secs) SECS="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --rows) ROWS="$2"; shift 2 ;;
    --connections) CONNS="$2"; shift 2 ;;
    --services) SERVICES="$2"; shift 2 ;;
    --cells) CELLS="$2"; shift 2 ;;
    --keep-hbase) KEEP_HBASE=1; shift ;;
    --hbase-jvm-opts) HBASE_JVM_OPTS="$2"; shift 2 ;;
    --hbase-wal-hsync) WAL_HSYNC=1; shift ;;
    --no-fsync-check) FSYNC_CHECK=0; shift ;;
    --no-build) BUILD=0; shift ;;
    --pin) PIN=1; shift ;;
    --null-conns) NULL_CONNS="$2"; shift 2 ;;
    --no-null) NULL_CONNS=""; shift ;;
    --out) OUT="$2"; shift 2 ;;
    -h | --help) usage ;;
    *) log "unknown option $1"; usage ;;
  esac
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive integer"
[[ "$WARMUP_ROUNDS" =~ ^[0-9]+$ ]] || die "--warmup-rounds must be a number"
[[ "$ROWS" =~ ^[1-9][0-9]*$ ]] || die "--rows must be a positive integer"
((ROWS > 100)) || die "--rows must exceed the 100 rows of a scan"

# ---------------------------------------------------------------------------------------------
# binaries

TARGET="${CARGO_TARGET_DIR:-$REPO/target}"
if [[ -n "${REDBASE_BIN:-}" || -n "${LOADGEN_BIN:-}" ]]; then
  BUILD=0
fi
REDBASE="${REDBASE_BIN:-$TARGET/release/redbase}"
LOADGEN="${LOADGEN_BIN:-$TARGET/release/loadgen}"
if ((BUILD)); then
  log "building release redbase and loadgen (cargo, target dir $TARGET)"
  (cd "$REPO" && cargo build --release -q -p redbase -p redbase-bench --bin loadgen --bin redbase) ||
    die "cargo build failed"
fi
[[ -x "$REDBASE" && -x "$LOADGEN" ]] || die "missing $REDBASE or $LOADGEN (build them, or drop --no-build)"

# ---------------------------------------------------------------------------------------------
# clean-up: only what this script started

WORK="$(mktemp -d "${TMPDIR:-/tmp}/redbase-bench.XXXXXX")"
[[ -n "$OUT" ]] || OUT="$WORK/out"
mkdir -p "$OUT"
REDBASE_PID=""
NULL_PIDS=()
STARTED_HBASE=0
cleanup() {
  local rc=$?
  if [[ -n "$REDBASE_PID" ]] && kill -0 "$REDBASE_PID" 2>/dev/null; then
    kill -TERM "$REDBASE_PID" 2>/dev/null || true
    local i
    for i in $(seq 1 100); do
      kill -0 "$REDBASE_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$REDBASE_PID" 2>/dev/null || true
    wait "$REDBASE_PID" 2>/dev/null || true
  fi
  local p
  for p in "${NULL_PIDS[@]}"; do
    kill -TERM "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  if ((STARTED_HBASE)); then
    if ((KEEP_HBASE)); then
      log "leaving the oracle HBase running (--keep-hbase); stop it with $ORACLE stop"
    else
      "$ORACLE" stop >/dev/null 2>&1 || log "hbase.sh stop failed"
    fi
  fi
  # the data directory and scratch files; --out DIR lives elsewhere and stays
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# HBase

eval "$(tests/oracle/hbase.sh ports)"
T1_HBASE="127.0.0.1:${ORACLE_THRIFT1_PORT:-19090}"
T2_HBASE="127.0.0.1:${ORACLE_THRIFT2_PORT:-19091}"
RUN_DIR="${ORACLE_RUN_DIR:-${TMPDIR:-/tmp}/redbase-oracle-$(id -u)}"
running_hsync() { # 1 if the running oracle's WAL syncs to disk (its site sets hbase.wal.hsync)
  grep -q '<name>hbase.wal.hsync</name><value>true' "$RUN_DIR/conf/hbase-site.xml" 2>/dev/null &&
    echo 1 || echo 0
}
if "$ORACLE" status >/dev/null 2>&1; then
  if [[ "$(running_hsync)" != "$WAL_HSYNC" ]]; then
    die "a running oracle has hbase.wal.hsync=$([[ "$(running_hsync)" == 1 ]] && echo true || echo false); stop it ($ORACLE stop) or match --hbase-wal-hsync"
  fi
  HBASE_NOTE="reused a running oracle (its JVM flags are whatever it was started with)"
  log "$HBASE_NOTE"
else
  log "starting the oracle HBase (ORACLE_JVM_OPTS=$HBASE_JVM_OPTS, ORACLE_WAL_HSYNC=$WAL_HSYNC)"
  STARTED_HBASE=1
  ORACLE_WAL_HSYNC="$WAL_HSYNC" ORACLE_JVM_OPTS="$HBASE_JVM_OPTS" "$ORACLE" start \
    >"$WORK/hbase-start.log" 2>&1 || {
    cat "$WORK/hbase-start.log" >&2
    die "the oracle did not start"
  }
  HBASE_NOTE="started by this script with ORACLE_JVM_OPTS=\"$HBASE_JVM_OPTS\""
fi
if ((WAL_HSYNC)); then
  HBASE_NOTE="$HBASE_NOTE; WAL synced to disk: hbase.wal.hsync=true on Hadoop 3's RawLocalFileSystem (the master JVM runs hbase-server ${ORACLE_MASTER_VERSION:-2.6.1-hadoop3})"
fi

# ---------------------------------------------------------------------------------------------
# redbase on free loopback ports below 32768

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
  local p i
  for i in $(seq 1 200); do
    p=$((20000 + RANDOM % 12768))
    if port_free "$p" && [[ " ${PICKED:-} " != *" $p "* ]]; then
      PICKED="${PICKED:-} $p"
      echo "$p"
      return 0
    fi
  done
  die "no free port found"
}

start_redbase() {
  local try
  for try in 1 2 3; do
    PICKED=""
    R1="127.0.0.1:$(pick_port)"
    R2="127.0.0.1:$(pick_port)"
    RHTTP="127.0.0.1:$(pick_port)"
    rm -rf "$WORK/data"
    mkdir -p "$WORK/data"
    "$REDBASE" serve --data-dir "$WORK/data" --thrift1-addr "$R1" --thrift2-addr "$R2" \
      --http-addr "$RHTTP" >"$WORK/redbase.log" 2>&1 &
    REDBASE_PID=$!
    local i
    for i in $(seq 1 100); do
      kill -0 "$REDBASE_PID" 2>/dev/null || break
      if "$REDBASE" healthcheck --http-addr "$RHTTP" --timeout-secs 1 >/dev/null 2>&1 &&
        ! port_free "${R1#*:}" && ! port_free "${R2#*:}"; then
        return 0
      fi
      sleep 0.1
    done
    log "redbase did not come up (try $try); last log lines:"
    tail -n 5 "$WORK/redbase.log" >&2 || true
    kill -KILL "$REDBASE_PID" 2>/dev/null || true
    wait "$REDBASE_PID" 2>/dev/null || true
    REDBASE_PID=""
  done
  die "redbase would not start"
}
start_redbase
log "redbase pid $REDBASE_PID: thrift1 $R1, thrift2 $R2, http $RHTTP, data $WORK/data"

# The null servers (one per gateway), each in its own process so that --pin can give them the
# servers' core. Durable puts sync one record each in a file of the data directory's disk.
NULL_PIDS=()
start_null() { # service -> its address on stdout
  local addr="127.0.0.1:$(pick_port)" i pid
  "$LOADGEN" null-server --service "$1" --listen "$addr" --table "$TABLE" --rows "$ROWS" \
    --value-size 100 --sync-file "$WORK/null-$1.sync" >"$WORK/null-$1.log" 2>&1 &
  pid=$!
  NULL_PIDS+=("$pid")
  for i in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || die "the null $1 server exited: $(cat "$WORK/null-$1.log")"
    port_free "${addr#*:}" || { echo "$addr $pid"; return 0; }
    sleep 0.1
  done
  die "the null $1 server did not listen on $addr"
}
if [[ -n "$NULL_CONNS" ]]; then
  read -r N1 N1_PID <<<"$(start_null thrift1)"
  read -r N2 N2_PID <<<"$(start_null thrift2)"
  NULL_PIDS=("$N1_PID" "$N2_PID")
  log "null servers: thrift1 $N1 (pid $N1_PID), thrift2 $N2 (pid $N2_PID)"
fi

# ---------------------------------------------------------------------------------------------
# pinning: servers on CPU 0, loadgen on CPU 1

CLIENT=("$LOADGEN")
PIN_NOTE=""
if ((PIN)); then
  (($(nproc) >= 2)) || die "--pin needs at least 2 cores"
  command -v taskset >/dev/null || die "--pin needs taskset (util-linux)"
  pinned=()
  for pid in "$REDBASE_PID" "${NULL_PIDS[@]}" $(cat "$RUN_DIR"/pids/*.pid 2>/dev/null); do
    kill -0 "$pid" 2>/dev/null || continue
    taskset -a -p -c 0 "$pid" >/dev/null || die "taskset could not pin pid $pid"
    pinned+=("$pid")
  done
  CLIENT=(taskset -c 1 "$LOADGEN")
  PIN_NOTE="pinned with taskset: every thread of the servers (pids ${pinned[*]}: redbase, the null servers and each HBase JVM) on CPU 0, loadgen on CPU 1"
  log "$PIN_NOTE"
fi

# ---------------------------------------------------------------------------------------------
# cells

addr_of() { # server service -> address
  case "$1:$2" in
    redbase:thrift1) echo "$R1" ;;
    redbase:thrift2) echo "$R2" ;;
    hbase:thrift1) echo "$T1_HBASE" ;;
    hbase:thrift2) echo "$T2_HBASE" ;;
    null:thrift1) echo "$N1" ;;
    null:thrift2) echo "$N2" ;;
  esac
}

cell_args() { # cell service -> loadgen arguments, or nothing if the cell does not apply
  case "$1" in
    get) echo "--workloads get" ;;
    put) echo "--workloads put" ;;
    put-async) [[ "$2" == thrift2 ]] && echo "--workloads put --durability async-wal" ;;
    scan) echo "--workloads scan --scan-rows 100" ;;
    ycsb-a) echo "--workloads mix --mix getrow=50,put=50" ;;
    ycsb-b) echo "--workloads mix --mix getrow=95,put=5" ;;
    ycsb-c) echo "--workloads mix --mix getrow=100" ;;
    ycsb-e) echo "--workloads mix --mix scan=95,put=5 --scan-rows 100" ;;
    *) die "unknown cell $1" ;;
  esac
  return 0
}

cell_label() { # cell service -> the label in the table
  local s
  s=$([[ "$2" == thrift1 ]] && echo T1 || echo T2)
  case "$1" in
    put) [[ "$2" == thrift1 ]] && echo "$s put (mutateRow)" || echo "$s put (durability unset)" ;;
    put-async) echo "$s put ASYNC_WAL" ;;
    scan) echo "$s scan 100 rows" ;;
    ycsb-a) echo "$s YCSB A (50 getRow / 50 put)" ;;
    ycsb-b) echo "$s YCSB B (95 getRow / 5 put)" ;;
    ycsb-c) echo "$s YCSB C (100 getRow)" ;;
    ycsb-e) echo "$s YCSB E (95 scan / 5 put)" ;;
    *) echo "$s $1" ;;
  esac
}

server_pids() { # server service -> the pids whose CPU time is the server's, comma-separated
  if [[ "$1" == redbase ]]; then
    echo "$REDBASE_PID"
  elif [[ "$1" == null ]]; then
    [[ "$2" == thrift1 ]] && echo "$N1_PID" || echo "$N2_PID"
  else # the master JVM (region server, WAL) and the gateway's own JVM
    local m g
    m="$(cat "$RUN_DIR/pids/master.pid" 2>/dev/null || true)"
    g="$(cat "$RUN_DIR/pids/$2.pid" 2>/dev/null || true)"
    echo "$m${m:+${g:+,}}$g"
  fi
}

# One measurement: server service cell conns round -> "ops/s server-CPU-us/op" on stdout ("err"
# on failure; "-" for the CPU when it was not read).
measure() {
  local server="$1" service="$2" cell="$3" conns="$4" round="$5" f rate cpu pids
  local -a extra
  read -r -a extra <<<"$(cell_args "$cell" "$service")"
  f="$OUT/$cell.$service.c$conns.r$round.$server.txt"
  pids="$(server_pids "$server" "$service")"
  if "${CLIENT[@]}" bench --addr "$(addr_of "$server" "$service")" --service "$service" \
    --table "$TABLE" --rows "$ROWS" --value-size 100 --preload skip --no-null \
    --connections "$conns" --secs "$SECS" --rounds 1 --warmup-secs "$WARMUP" "${extra[@]}" \
    ${pids:+--server-pids "$pids"} >"$f" 2>&1; then
    rate=$(awk -F'|' -v c="$conns" '$3 ~ "^ *"c" *$" && $4 ~ /[0-9]/ {gsub(/ /, "", $4); print $4; exit}' "$f")
    cpu=$(awk -F'|' -v c="$conns" '$3 ~ "^ *"c" *$" && $4 ~ /[0-9]/ {split($9, a, "/"); gsub(/ /, "", a[1]); print a[1]; exit}' "$f")
  fi
  if [[ -z "${rate:-}" ]]; then
    log "$server $service $cell at $conns connections failed: $(tail -n 2 "$f" | tr '\n' ' ')"
    rate=err
  fi
  echo "$rate ${cpu:--}"
}

IFS=, read -r -a SERVICE_LIST <<<"$SERVICES"
IFS=, read -r -a CELL_LIST <<<"$CELLS"
IFS=, read -r -a CONN_LIST <<<"$CONNS"
with_null() { # conns -> 0 if the null server is measured at this count
  [[ ",$NULL_CONNS," == *",$1,"* ]]
}
KEYS=()
for service in "${SERVICE_LIST[@]}"; do
  [[ "$service" == thrift1 || "$service" == thrift2 ]] || die "unknown service $service"
  for cell in "${CELL_LIST[@]}"; do
    [[ -n "$(cell_args "$cell" "$service")" ]] || continue
    for conns in "${CONN_LIST[@]}"; do
      KEYS+=("$service|$cell|$conns")
    done
  done
done
((${#KEYS[@]})) || die "no cells"

# ---------------------------------------------------------------------------------------------
# fsync check: what a put costs on the disk on each side, counted with strace

FSYNC_NOTES=()
fsync_count() { # server pid service durability(or "") -> "about N puts, M calls" on stdout
  local server="$1" pid="$2" service="$3" dur="$4" st="$WORK/strace.txt" sp rate puts calls
  local f="$OUT/fsync.$server.$service.${dur:-unset}.txt"
  timeout 120 strace -f -qq -c -e trace=fsync,fdatasync,sync_file_range,syncfs -p "$pid" \
    -o "$st" 2>/dev/null &
  sp=$!
  sleep 3 # attaching to a JVM's threads takes a moment
  "$LOADGEN" bench --addr "$(addr_of "$server" "$service")" --service "$service" --table "$TABLE" --rows "$ROWS" --preload skip --no-null \
    --workloads put --connections 1 --secs 2 --rounds 1 --warmup-secs 0 \
    ${dur:+--durability "$dur"} >"$f" 2>&1 || true
  sleep 1
  kill -INT "$sp" 2>/dev/null || true
  wait "$sp" 2>/dev/null || true
  rate=$(awk -F'|' '$2 ~ /put/ {gsub(/ /, "", $4); print $4; exit}' "$f")
  puts=$(awk -v r="${rate:-0}" 'BEGIN {printf "%d", r * 2}')
  calls=$(awk '$NF ~ /^(fsync|fdatasync|sync_file_range|syncfs)$/ {n += $4} END {print n + 0}' "$st")
  printf '%s\t%s\t%s\t%s\t%s\n' "$server" "$service" "${dur:-unset}" "$puts" "$calls" >>"$WORK/fsync.tsv"
  echo "about $puts puts, $calls fsync/fdatasync calls"
}

# What one synced write costs this disk, next to the servers' puts: the floor under a durable put
# at one connection, where neither side can group commits. Two shapes: appending to a file and
# fsyncing it (a WAL that grows, as HBase's does) and overwriting a block of a file already
# written, then fdatasync (no file-size change to make durable).
# Pinned, the probe runs on the servers' core: where a sync completes matters on this machine
# (its disk interrupts may be delivered to another core).
flush_floor() {
  local on=()
  ((PIN)) && on=(taskset -c 0)
  "${on[@]}" "$PY" - "$WORK" <<'PY'
import os, sys, time
work = sys.argv[1]
def per_op(path, write, sync, n=1000):
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
    try:
        if write is None:
            os.write(fd, b"\0" * (n * 4096)); os.fsync(fd)
        t = time.perf_counter()
        for i in range(n):
            if write is None:
                os.pwrite(fd, b"x" * 200, i * 4096)
            else:
                os.write(fd, b"x" * 200)
            sync(fd)
        return (time.perf_counter() - t) / n * 1e6
    finally:
        os.close(fd); os.unlink(path)
a = per_op(os.path.join(work, "floor.append"), True, os.fsync)
o = per_op(os.path.join(work, "floor.overwrite"), None, os.fdatasync)
print(f"append + fsync {a:.0f} us, overwrite + fdatasync {o:.0f} us")
PY
}

# ---------------------------------------------------------------------------------------------
# load both servers once (Thrift2 putMultiple of 1,000 rows; both gateways read the same table)

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
T_START=$(date +%s)
for server in redbase hbase; do
  log "loading $ROWS rows into $server"
  "$LOADGEN" bench --addr "$(addr_of "$server" thrift2)" --service thrift2 --table "$TABLE" \
    --rows "$ROWS" --value-size 100 --preload only --no-null >"$OUT/preload.$server.txt" 2>&1 || {
    cat "$OUT/preload.$server.txt" >&2
    die "preloading $server failed"
  }
  grep 'preloaded' "$OUT/preload.$server.txt" | sed "s/^loadgen:/bench: $server:/" >&2 || true
done

if ((FSYNC_CHECK)) && command -v strace >/dev/null; then
  HBASE_MASTER_PID="$(cat "$RUN_DIR/pids/master.pid" 2>/dev/null || true)"
  log "counting fsync calls under puts (strace, a few seconds each)"
  FSYNC_NOTES+=("redbase, Thrift2 put, durability unset: $(fsync_count redbase "$REDBASE_PID" thrift2 "")")
  FSYNC_NOTES+=("redbase, Thrift2 put, ASYNC_WAL: $(fsync_count redbase "$REDBASE_PID" thrift2 async-wal)")
  FSYNC_NOTES+=("redbase, Thrift1 mutateRow: $(fsync_count redbase "$REDBASE_PID" thrift1 "")")
  if [[ -n "$HBASE_MASTER_PID" ]]; then
    FSYNC_NOTES+=("HBase (master JVM, holds the region server and its WAL), Thrift2 put, durability unset: $(fsync_count hbase "$HBASE_MASTER_PID" thrift2 "")")
    FSYNC_NOTES+=("HBase, Thrift2 put, FSYNC_WAL: $(fsync_count hbase "$HBASE_MASTER_PID" thrift2 fsync-wal)")
    FSYNC_NOTES+=("HBase, Thrift1 mutateRow (its gateway sets SYNC_WAL on every put): $(fsync_count hbase "$HBASE_MASTER_PID" thrift1 "")")
  fi
  where=""
  ((PIN)) && where=", from the servers' core (CPU 0)"
  FSYNC_NOTES+=("this disk, one synced 200-byte write (the floor of a durable put at one connection)$where: $(flush_floor)")
fi

# ---------------------------------------------------------------------------------------------
# the rounds

RESULTS="$OUT/results.tsv"
: >"$RESULTS"
total=0
for key in "${KEYS[@]}"; do
  IFS='|' read -r service cell conns <<<"$key"
  if with_null "$conns"; then total=$((total + ROUNDS * 3)); else total=$((total + ROUNDS * 2)); fi
done
n=0
for ((round = 1; round <= WARMUP_ROUNDS; round++)); do
  for key in "${KEYS[@]}"; do
    IFS='|' read -r service cell conns <<<"$key"
    servers=(hbase redbase)
    with_null "$conns" && servers+=(null)
    for server in "${servers[@]}"; do
      measure "$server" "$service" "$cell" "$conns" "warmup$round" >/dev/null
    done
  done
  log "warm-up round $round/$WARMUP_ROUNDS done, not recorded ($(($(date +%s) - T_START)) s)"
done
for ((round = 1; round <= ROUNDS; round++)); do
  i=0
  for key in "${KEYS[@]}"; do
    IFS='|' read -r service cell conns <<<"$key"
    if (((round + i) % 2)); then order=(hbase redbase); else order=(redbase hbase); fi
    # the null server goes between them, so that neither is always next to it
    with_null "$conns" && order=("${order[0]}" null "${order[1]}")
    for server in "${order[@]}"; do
      read -r rate cpu <<<"$(measure "$server" "$service" "$cell" "$conns" "$round")"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$service" "$cell" "$conns" "$round" "$server" "$rate" "$cpu" >>"$RESULTS"
      n=$((n + 1))
    done
    i=$((i + 1))
  done
  log "round $round/$ROUNDS done ($n/$total runs, $(($(date +%s) - T_START)) s, load average $(cut -d' ' -f1-3 /proc/loadavg))"
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
ELAPSED=$(($(date +%s) - T_START))

# ---------------------------------------------------------------------------------------------
# the report

LABELS="$WORK/labels.tsv"
: >"$LABELS"
for key in "${KEYS[@]}"; do
  IFS='|' read -r service cell conns <<<"$key"
  printf '%s\t%s\t%s\t%s\n' "$service" "$cell" "$conns" "$(cell_label "$cell" "$service")" >>"$LABELS"
done

COMMIT="commit $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$REPO" status --porcelain -- server 2>/dev/null)" ]]; then
  COMMIT="$COMMIT (server/ has uncommitted changes)"
fi
if [[ -n "${REDBASE_BIN:-}${LOADGEN_BIN:-}" ]]; then
  COMMIT="binaries given ($REDBASE, $LOADGEN), not built from the checkout at $COMMIT"
fi
echo
echo "## redbase vs HBase 2.6 (tests/oracle/bench.sh)"
echo
echo "command: \`${CMDLINE#"$REPO"/}\`"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); redbase: $COMMIT; $(nproc) cores; load average before $LOAD_BEFORE, after $LOAD_AFTER; $ELAPSED s of loading and measuring"
echo "setup: $ROWS preloaded rows of one 100-byte cell; $WARMUP_ROUNDS unrecorded warm-up round(s), then $ROUNDS rounds of $SECS s per cell and server (+ $WARMUP s warm-up), the order alternating; one loadgen process per measurement, buffered transport, binary protocol"
echo "HBase: ${ORACLE_HBASE_VERSION:-2.6.1} standalone, the oracle of tests/oracle/hbase.sh (master + region server + ZooKeeper in one JVM, Thrift1 and Thrift2 gateways in their own), $HBASE_NOTE"
echo
"$PY" - "$RESULTS" "$LABELS" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
labels = [l.rstrip("\n").split("\t") for l in open(sys.argv[2]) if l.strip()]
rates, cpus = {}, {}
for service, cell, conns, rnd, server, rate, cpu in rows:
    rates.setdefault((service, cell, conns), {}).setdefault(rnd, {})[server] = rate
    cpus.setdefault((service, cell, conns), {}).setdefault(server, [])
    try:
        cpus[(service, cell, conns)][server].append(float(cpu))
    except ValueError:
        pass
print("| cell | conns | redbase ops/s (median) | HBase ops/s (median) | ratio redbase/HBase: median (per-round min–max) | server CPU µs/op redbase / HBase (median) | HBase/redbase CPU per op | null ops/s (median) | ceiling null/HBase (median) | redbase/null (median) |")
print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
def ratios(per, a, b):
    out = []
    for rnd in per:
        try:
            x, y = float(per[rnd][a]), float(per[rnd][b])
        except (KeyError, ValueError):
            continue
        if y > 0:
            out.append(x / y)
    return out
for service, cell, conns, label in labels:
    per = rates.get((service, cell, conns), {})
    r, h, q, bad = [], [], [], 0
    for rnd in sorted(per, key=int):
        x, y = per[rnd].get("redbase", "err"), per[rnd].get("hbase", "err")
        try:
            x, y = float(x), float(y)
        except ValueError:
            bad += 1
            continue
        r.append(x)
        h.append(y)
        if y > 0:
            q.append(x / y)
    fmt = lambda v: f"{statistics.median(v):.0f}" if v else "-"
    med2 = lambda v: f"{statistics.median(v):.2f}" if v else "-"
    ratio = f"{statistics.median(q):.2f} ({min(q):.2f}–{max(q):.2f})" if q else "-"
    if bad:
        ratio += f"; {bad} round(s) failed"
    c = cpus.get((service, cell, conns), {})
    rc, hc = c.get("redbase", []), c.get("hbase", [])
    cpu = f"{fmt(rc)} / {fmt(hc)}"
    cq = f"{statistics.median(hc) / statistics.median(rc):.1f}" if rc and hc and statistics.median(rc) > 0 else "-"
    n = []
    for rnd in per:
        try:
            n.append(float(per[rnd]["null"]))
        except (KeyError, ValueError):
            pass
    print(f"| {label} | {conns} | {fmt(r)} | {fmt(h)} | {ratio} | {cpu} | {cq} | {fmt(n)} | {med2(ratios(per, 'null', 'hbase'))} | {med2(ratios(per, 'redbase', 'null'))} |")
EOF
echo
echo "Notes:"
if ((WAL_HSYNC)); then
  echo "- HBase standalone writes its WAL to the local filesystem through Hadoop 3's RawLocalFileSystem with hbase.wal.hsync=true: every WAL sync is an fsync (see the counts below)."
else
  echo "- HBase standalone writes its WAL to the local filesystem (hbase.rootdir file://, hbase.unsafe.stream.capability.enforce=false because those streams lack hflush/hsync)."
fi
if ((${#FSYNC_NOTES[@]})); then
  echo "- fsync/fdatasync/sync_file_range/syncfs calls counted with strace -f while one connection put for 2 s (this run):"
  for note in "${FSYNC_NOTES[@]}"; do
    echo "  - $note"
  done
  awk -F'\t' '
    $1 == "redbase" && $2 == "thrift2" && $3 == "unset" { rp = $4; rc = $5 }
    $1 == "hbase" && $2 == "thrift2" && $3 == "unset" { hp = $4; hc = $5 }
    $1 == "hbase" && $2 == "thrift2" && $3 == "fsync-wal" { fp = $4; fc = $5 }
    $1 == "hbase" && $2 == "thrift1" { tp = $4; tc = $5 }
    END {
      if (hp > 0 && hc * 10 < hp && (fp == 0 || fc * 10 < fp))
        print "  HBase synced far less often than once per put, with FSYNC_WAL too: its acknowledged puts are not on disk, so durable puts are not like for like" (rp > 0 && rc * 2 >= rp ? " (redbase synced about once per durable put)." : ".")
      else if (hp > 0)
        print "  HBase synced about as often as it acknowledged Thrift2 puts: durable Thrift2 puts compare like for like here."
      if (tp > 0 && tc * 10 < tp && hp > 0 && hc * 10 >= hp)
        print "  HBase did not sync its Thrift1 puts: its Thrift1 gateway marks every put SYNC_WAL, which HBase 2 writes to its WAL with hflush, never hsync, even with hbase.wal.hsync=true (that setting governs the table default only). redbase syncs Thrift1 puts, so the T1 put rows are not like for like."
    }' "$WORK/fsync.tsv"
else
  echo "- fsync behaviour not checked in this run (--no-fsync-check or no strace): durable puts may not be like for like."
fi
echo "- The oracle's JVMs are sized for a small footprint (heap 768m master, 160m gateways, serial GC; C1-only JIT unless ORACLE_JVM_OPTS overrides it), not tuned for throughput. HBase's table is one region; no flush or compaction is forced before measuring."
if ((PIN)); then
  echo "- $PIN_NOTE. Each server has one core; the figures are what one core serves with the client elsewhere."
else
  echo "- Both sides share this machine with loadgen; on 2 cores the client takes a large share of the CPU, which caps both servers' figures (--pin gives each side its own core)."
fi
echo "- Server CPU per operation: the CPU time (user + system, /proc/PID/stat) of redbase's process, or of HBase's master JVM (region server, WAL) plus the measured gateway's JVM, over each measured phase, divided by the operations; it includes work done for the phase after it (HBase's background flushes, redbase's commits) and is read in 10 ms clock ticks."
if [[ -n "$NULL_CONNS" ]]; then
  echo "- The null server (\`loadgen null-server\`, one process per gateway$( ((PIN)) && echo ', on the servers'"'"' core')) answers every call with canned replies shaped as redbase's; for each durable put (Thrift1 mutateRow, a Thrift2 put not marked ASYNC_WAL or SKIP_WAL) it writes one 256-byte record over a block of a file on the data directory's disk and fdatasyncs it. It does no other work, so its rate is the most any server reaches on this machine and client: *ceiling null/HBase* is the largest ratio to HBase any server could show in that cell, *redbase/null* how much of that ceiling redbase reaches. Measured at $NULL_CONNS connection(s) only: at more, a server groups its syncs and the null server does not, so it is no ceiling there."
fi
echo "- Each cell's figures come from short runs; compare the per-round ranges before reading much into a ratio."
if [[ "$OUT" != "$WORK/out" ]]; then
  echo "- raw loadgen outputs: $OUT"
fi
