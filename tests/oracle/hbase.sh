#!/usr/bin/env bash
# A real Apache HBase as a differential oracle for redbase: standalone HBase (one JVM holding the
# master, a region server and ZooKeeper, data on the local filesystem) plus its Thrift1 and Thrift2
# gateways, each in its own JVM, everything bound to 127.0.0.1.
#
#   tests/oracle/hbase.sh fetch    download the jars with Maven (cached; start does this too)
#   tests/oracle/hbase.sh start    start all three JVMs, return once both gateways answer a call
#   tests/oracle/hbase.sh status   exit 0 if all three run and both gateways answer
#   tests/oracle/hbase.sh stop     stop the JVMs (by recorded PID) and delete the run directory
#   tests/oracle/hbase.sh ports    the ports in use, as shell exports: eval "$(tests/oracle/hbase.sh ports)"
#   tests/oracle/hbase.sh rest-start   add HBase's REST server to a running oracle (start starts it
#                                      too); rest-stop stops only that JVM; rest-status probes it
#
# Environment (defaults in brackets):
#   ORACLE_HBASE_VERSION  HBase artifact version [2.6.1]
#   ORACLE_WAL_HSYNC      1: a WAL that reaches the disk, for like-for-like durable puts (the
#                         benchmark's, not the differential tests'). The master JVM (region server
#                         and WAL) then runs HBase's Hadoop 3 build [ORACLE_MASTER_VERSION,
#                         2.6.1-hadoop3: hbase-server only; Maven Central has no hbase-thrift of
#                         it], whose local filesystem (Hadoop 3.3.5's RawLocalFileSystem) turns
#                         hsync into fsync; the site sets hbase.wal.hsync=true and fs.file.impl to
#                         that class (the default checksummed one drops hsync). The gateways keep
#                         ORACLE_HBASE_VERSION; they reach the region server over HBase's RPC. [0]
#   ORACLE_QUOTA          1: hbase.quota.enabled=true, so the master enforces namespace quotas
#                         (hbase.namespace.quota.maxtables/maxregions) as `redbase serve
#                         --quota-enabled` does; the differential tests run with it off, HBase's
#                         default [0]
#   ORACLE_CACHE_DIR      jar cache [~/.cache/redbase-oracle]; jars go to <cache>/<version>/lib
#   ORACLE_RUN_DIR        config, data, logs and PIDs of the running oracle
#                         [${TMPDIR:-/tmp}/redbase-oracle-<uid>]; stop deletes it and keeps a copy
#                         of the logs in <cache>/last-logs
#   ORACLE_THRIFT1_PORT [19090]  ORACLE_THRIFT2_PORT [19091]  ORACLE_ZK_PORT [19181]
#   ORACLE_MASTER_PORT [19160]   ORACLE_RS_PORT [19162]   ORACLE_REST_PORT [19080] (HBase's REST
#                         server, `org.apache.hadoop.hbase.rest.RESTServer` of the hbase-rest
#                         artifact, jars in <cache>/<version>-rest/lib)
#   ORACLE_MASTER_XMX [1536m]     ORACLE_THRIFT_XMX [160m]  (heap of each gateway); direct
#                         memory is capped at 256m (master) and 64m (each gateway)
#   ORACLE_JVM_OPTS       extra flags for every JVM, after (so overriding) the ones above []
#   ORACLE_START_TIMEOUT  seconds start waits for both gateways [300]
#   ORACLE_STOP_GRACE     seconds stop waits after SIGTERM before SIGKILL, per JVM [8]
#   PYTHON                interpreter for the readiness probe (needs thriftpy2) [python3]
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HBASE_VERSION="${ORACLE_HBASE_VERSION:-2.6.1}"
WAL_HSYNC="${ORACLE_WAL_HSYNC:-0}"
MASTER_VERSION="${ORACLE_MASTER_VERSION:-2.6.1-hadoop3}"
CACHE_DIR="${ORACLE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/redbase-oracle}"
LIB="$CACHE_DIR/$HBASE_VERSION/lib"
MASTER_LIB="$LIB"
if [[ "$WAL_HSYNC" == 1 ]]; then
  MASTER_LIB="$CACHE_DIR/$MASTER_VERSION/lib"
fi
RUN_DIR="${ORACLE_RUN_DIR:-${TMPDIR:-/tmp}/redbase-oracle-$(id -u)}"
HOST=127.0.0.1
# Ports: ORACLE_*_PORT when set (then fixed: start fails if one is taken); else the ports the
# running oracle chose (<run dir>/ports.env, written by start); else the defaults below, each
# moved by start to a free port under 32768 when something else holds it. `hbase.sh ports`
# prints them as shell exports for the scripts that talk to the oracle.
PORT_VARS=(ORACLE_THRIFT1_PORT ORACLE_THRIFT2_PORT ORACLE_THRIFT2_RO_PORT ORACLE_ZK_PORT
  ORACLE_MASTER_PORT ORACLE_RS_PORT ORACLE_REST_PORT)
PINNED=" "
for v in "${PORT_VARS[@]}"; do
  [[ -n "${!v:-}" ]] && PINNED+="$v "
done
if [[ -f "$RUN_DIR/ports.env" ]]; then
  while IFS='=' read -r k v; do
    [[ " ${PORT_VARS[*]} " == *" $k "* && -z "${!k:-}" ]] && printf -v "$k" '%s' "$v"
  done <"$RUN_DIR/ports.env"
fi
T1_PORT="${ORACLE_THRIFT1_PORT:-19090}"
T2_PORT="${ORACLE_THRIFT2_PORT:-19091}"
# A second Thrift2 server in HBase's read-only mode, for the read-only scenarios.
T2RO_PORT="${ORACLE_THRIFT2_RO_PORT:-19092}"
ZK_PORT="${ORACLE_ZK_PORT:-19181}"
MASTER_PORT="${ORACLE_MASTER_PORT:-19160}"
RS_PORT="${ORACLE_RS_PORT:-19162}"
MASTER_XMX="${ORACLE_MASTER_XMX:-1536m}"
THRIFT_XMX="${ORACLE_THRIFT_XMX:-160m}"
START_TIMEOUT="${ORACLE_START_TIMEOUT:-300}"
STOP_GRACE="${ORACLE_STOP_GRACE:-8}"
PY="${PYTHON:-python3}"
REST_PORT="${ORACLE_REST_PORT:-19080}"
REST_LIB="$CACHE_DIR/$HBASE_VERSION-rest/lib"
ROLES=(rest thrift2ro thrift2 thrift1 master) # stop order; start goes the other way

log() { echo "oracle: $*" >&2; }
die() { log "$*"; exit 1; }

# ---------------------------------------------------------------------------------------------
# jars

fetch() { # [version artifact dir]: the jars of one artifact's runtime classpath, cached per
  # version (in <cache>/<dir>, default <cache>/<version>)
  local version="${1:-$HBASE_VERSION}" artifact="${2:-hbase-thrift}" dir="${3:-${1:-$HBASE_VERSION}}" stamp want lib
  lib="$CACHE_DIR/$dir/lib"
  want="$version $artifact $(sha256sum "$HERE/pom.xml" | cut -d' ' -f1)"
  stamp="$CACHE_DIR/$dir/.fetched"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return 0
  fi
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  log "fetching HBase $version ($artifact) jars into $lib (Maven; first time takes a while)"
  rm -rf "$lib" "$lib.tmp"
  mkdir -p "$lib.tmp"
  if ! mvn -B -q -f "$HERE/pom.xml" -Dhbase.version="$version" -Doracle.artifact="$artifact" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$lib.tmp" \
    >"$CACHE_DIR/mvn-$dir.log" 2>&1; then
    tail -n 30 "$CACHE_DIR/mvn-$dir.log" >&2
    die "Maven could not fetch the jars (full log: $CACHE_DIR/mvn-$dir.log)"
  fi
  mv "$lib.tmp" "$lib"
  echo "$want" >"$stamp"
}

fetch_rest() { # the REST server's classpath: hbase-rest's jars less Hadoop 2's servlet 2.5 API,
  # which would shadow the servlet 3.1 API HBase's Jetty needs (NoSuchMethodError at start)
  fetch "$HBASE_VERSION" hbase-rest "$HBASE_VERSION-rest"
  rm -f "$REST_LIB/servlet-api-2.5.jar"
}

# ---------------------------------------------------------------------------------------------
# processes

pid_of() { # role -> pid of a live JVM of ours, or nothing
  local f="$RUN_DIR/pids/$1.pid" pid
  [[ -f "$f" ]] || return 0
  pid="$(cat "$f")"
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 0
  # the PID may have been reused: only a JVM carrying our run-dir marker counts
  if tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "-Dredbase.oracle.run=$RUN_DIR "; then
    echo "$pid"
  fi
}

alive() { # pid -> true while the process exists and is not a zombie
  [[ -r "/proc/$1/status" ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

any_running() {
  local r
  for r in "${ROLES[@]}"; do
    [[ -n "$(pid_of "$r")" ]] && return 0
  done
  return 1
}

port_busy() { # true if something accepts connections on 127.0.0.1:$1
  (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null
}

write_site() {
  local d="$RUN_DIR/data"
  cat >"$RUN_DIR/conf/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<!-- written by tests/oracle/hbase.sh start; deleted by stop -->
<configuration>
  <property><name>hbase.cluster.distributed</name><value>false</value></property>
  <property><name>hbase.rootdir</name><value>file://$d/hbase</value></property>
  <property><name>hbase.tmp.dir</name><value>$d/tmp</value></property>
  <property><name>hbase.zookeeper.property.dataDir</name><value>$d/zk</value></property>
  <!-- everything on loopback, on ports of our own -->
  <property><name>hbase.zookeeper.quorum</name><value>$HOST</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$ZK_PORT</value></property>
  <property><name>hbase.zookeeper.property.clientPortAddress</name><value>$HOST</value></property>
  <property><name>hbase.master.port</name><value>$MASTER_PORT</value></property>
  <property><name>hbase.master.ipc.address</name><value>$HOST</value></property>
  <property><name>hbase.master.hostname</name><value>localhost</value></property>
  <property><name>hbase.regionserver.port</name><value>$RS_PORT</value></property>
  <property><name>hbase.regionserver.ipc.address</name><value>$HOST</value></property>
  <property><name>hbase.unsafe.regionserver.hostname</name><value>localhost</value></property>
  <!-- no web UIs -->
  <property><name>hbase.master.info.port</name><value>-1</value></property>
  <property><name>hbase.regionserver.info.port</name><value>-1</value></property>
  <property><name>hbase.thrift.info.port</name><value>-1</value></property>
  <property><name>hbase.rest.info.port</name><value>-1</value></property>
  <property><name>hbase.rest.host</name><value>$HOST</value></property>
  <!-- local filesystem streams lack hflush/hsync: without this the master cannot create its WAL
       (StreamLacksCapabilityException: hflush) and never finishes initialising -->
  <property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
  <!-- faster start-up: the master stops waiting for region servers once the one it has
       checked in, and the region server retries its check-in every second, not every 3 -->
  <property><name>hbase.master.wait.on.regionservers.maxtostart</name><value>1</value></property>
  <property><name>hbase.regionserver.msginterval</name><value>1000</value></property>
  <!-- fewer threads for a small machine -->
  <property><name>hbase.regionserver.handler.count</name><value>10</value></property>
  <property><name>hbase.master.handler.count</name><value>10</value></property>
  <!-- memory: memstores (40% of the heap) and the block cache (40% by default) together left
       768 MB too little for the rest once the whole oracle run's tables were open: the JVM
       spent its last minutes in full collections and stopped answering (ZooKeeper lists and
       region calls timed out in CI). The oracle compares answers, not cache hit rates. -->
  <property><name>hfile.block.cache.size</name><value>0.15</value></property>
$(wal_hsync_site)
$(quota_site)
</configuration>
EOF
}

quota_site() { # the property of ORACLE_QUOTA=1, or nothing
  [[ "${ORACLE_QUOTA:-0}" == 1 ]] || return 0
  echo '  <property><name>hbase.quota.enabled</name><value>true</value></property>'
}

wal_hsync_site() { # the properties of ORACLE_WAL_HSYNC=1, or nothing
  [[ "$WAL_HSYNC" == 1 ]] || return 0
  cat <<EOF
  <!-- ORACLE_WAL_HSYNC=1: every WAL sync is an hsync, and the raw local filesystem of Hadoop 3
       turns hsync into fsync (the default checksummed one only flushes) -->
  <property><name>hbase.wal.hsync</name><value>true</value></property>
  <property><name>fs.file.impl</name><value>org.apache.hadoop.fs.RawLocalFileSystem</value></property>
EOF
}

jvm_flags() { # role heap direct-memory -> java flags of one JVM
  # bounded memory: heap, direct buffers (Netty, RPC buffers) and JIT code cache are capped;
  # serial GC and C1-only JIT keep the overhead (GC threads, compile time) small on 2 cores
  echo "-Dredbase.oracle.run=$RUN_DIR -Dredbase.oracle.role=$1 -Xms64m -Xmx$2"
  echo "-XX:MaxDirectMemorySize=$3 -XX:ReservedCodeCacheSize=64m"
  echo "-XX:+UseSerialGC -XX:TieredStopAtLevel=1"
  # extra flags last, so they override the above (e.g. -XX:TieredStopAtLevel=4 for the full JIT)
  if [[ -n "${ORACLE_JVM_OPTS:-}" ]]; then
    echo "$ORACLE_JVM_OPTS"
  fi
  echo "-Djava.net.preferIPv4Stack=true -Djava.io.tmpdir=$RUN_DIR/data/tmp"
  echo "-Dlog4j2.configurationFile=$HERE/conf/log4j2.properties"
  echo "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true"
  # the module flags HBase's own bin/hbase adds on JDK 11+
  echo "--add-modules jdk.unsupported"
  local p
  for p in java.io java.nio sun.nio.ch java.lang jdk.internal.ref java.lang.reflect java.util \
    java.util.concurrent; do
    echo "--add-opens java.base/$p=ALL-UNNAMED"
  done
  echo "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"
  echo "--add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED"
  echo "--add-exports java.base/sun.net.dns=ALL-UNNAMED"
  echo "--add-exports java.base/sun.net.util=ALL-UNNAMED"
}

launch() { # role heap direct-memory main-class args... (classpath: $LAUNCH_LIB or $LIB)
  local role="$1" heap="$2" direct="$3" lib="${LAUNCH_LIB:-$LIB}" conf="${LAUNCH_CONF:-$RUN_DIR/conf}"
  shift 3
  local -a flags
  read -r -a flags <<<"$(jvm_flags "$role" "$heap" "$direct" | tr '\n' ' ')"
  # setsid: the JVMs outlive this script and a ^C in the caller's terminal; the inner bash
  # records its own PID and then becomes the JVM, so the PID file names the java process.
  setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$RUN_DIR/pids/$role.pid" \
    java "${flags[@]}" -cp "$conf:$lib/*" "$@" \
    </dev/null >"$RUN_DIR/logs/$role.log" 2>&1 &
  local i
  for i in $(seq 1 50); do
    [[ -s "$RUN_DIR/pids/$role.pid" ]] && return 0
    sleep 0.1
  done
  die "$role did not start"
}

probe() {
  "$PY" "$HERE/ping.py" "$HOST" "$T1_PORT" "$T2_PORT"
}

rest_probe() { # true once HBase's REST server answers GET /version/cluster
  "$PY" -c 'import sys, urllib.request
urllib.request.urlopen(f"http://{sys.argv[1]}/version/cluster", timeout=5).read()' "$HOST:$REST_PORT" \
    >/dev/null 2>&1
}

# The port variable of each shell variable, in PORT_VARS order.
port_of_var() {
  case "$1" in
    ORACLE_THRIFT1_PORT) echo "$T1_PORT" ;;
    ORACLE_THRIFT2_PORT) echo "$T2_PORT" ;;
    ORACLE_THRIFT2_RO_PORT) echo "$T2RO_PORT" ;;
    ORACLE_ZK_PORT) echo "$ZK_PORT" ;;
    ORACLE_MASTER_PORT) echo "$MASTER_PORT" ;;
    ORACLE_RS_PORT) echo "$RS_PORT" ;;
    ORACLE_REST_PORT) echo "$REST_PORT" ;;
  esac
}

set_port_of_var() {
  case "$1" in
    ORACLE_THRIFT1_PORT) T1_PORT=$2 ;;
    ORACLE_THRIFT2_PORT) T2_PORT=$2 ;;
    ORACLE_THRIFT2_RO_PORT) T2RO_PORT=$2 ;;
    ORACLE_ZK_PORT) ZK_PORT=$2 ;;
    ORACLE_MASTER_PORT) MASTER_PORT=$2 ;;
    ORACLE_RS_PORT) RS_PORT=$2 ;;
    ORACLE_REST_PORT) REST_PORT=$2 ;;
  esac
}

# Every port free before start: a pinned one (ORACLE_*_PORT) that is taken stops the start, a
# default one that is taken moves to a free port in 20000-31999 (below the kernel's ephemeral
# range). The choice goes to <run dir>/ports.env for `status`, `stop` and `ports`.
choose_ports() {
  local v p taken=" " i
  for v in "${PORT_VARS[@]}"; do
    p="$(port_of_var "$v")"
    if port_busy "$p" || [[ "$taken" == *" $p "* ]]; then
      [[ "$PINNED" == *" $v "* ]] && die "port $HOST:$p ($v) is in use; pick another with $v"
      for i in $(seq 1 400); do
        p=$((20000 + RANDOM % 12000))
        port_busy "$p" || [[ "$taken" == *" $p "* ]] || break
      done
      port_busy "$p" && die "no free port found for $v"
      log "default port of $v is in use; using $p"
      set_port_of_var "$v" "$p"
    fi
    taken+="$p "
  done
  mkdir -p "$RUN_DIR"
  for v in "${PORT_VARS[@]}"; do
    echo "$v=$(port_of_var "$v")"
  done >"$RUN_DIR/ports.env"
}

print_endpoints() {
  echo "thrift1=$HOST:$T1_PORT thrift2=$HOST:$T2_PORT thrift2-read-only=$HOST:$T2RO_PORT rest=$HOST:$REST_PORT zookeeper=$HOST:$ZK_PORT run_dir=$RUN_DIR"
}

# ---------------------------------------------------------------------------------------------
# commands

cmd_start() {
  if any_running; then
    die "already running (run dir $RUN_DIR); stop it first"
  fi
  rm -rf "$RUN_DIR"
  choose_ports
  command -v java >/dev/null || die "java not found (JDK 17 expected)"
  "$PY" -c 'import thriftpy2' 2>/dev/null || die "$PY cannot import thriftpy2"
  fetch
  if [[ "$WAL_HSYNC" == 1 ]]; then
    fetch "$MASTER_VERSION" hbase-server
  fi

  local t0
  t0=$(date +%s%N)
  mkdir -p "$RUN_DIR"/{conf,data/tmp,logs,pids}
  write_site
  LAUNCH_LIB="$MASTER_LIB" launch master "$MASTER_XMX" 256m org.apache.hadoop.hbase.master.HMaster start
  launch thrift1 "$THRIFT_XMX" 64m org.apache.hadoop.hbase.thrift.ThriftServer \
    -b "$HOST" -p "$T1_PORT" start
  launch thrift2 "$THRIFT_XMX" 64m org.apache.hadoop.hbase.thrift2.ThriftServer \
    -b "$HOST" -p "$T2_PORT" start
  launch thrift2ro "$THRIFT_XMX" 64m org.apache.hadoop.hbase.thrift2.ThriftServer \
    -b "$HOST" -p "$T2RO_PORT" -ro start
  fetch_rest
  LAUNCH_LIB="$REST_LIB" launch rest "$THRIFT_XMX" 64m org.apache.hadoop.hbase.rest.RESTServer \
    -p "$REST_PORT" start
  log "started master pid $(pid_of master), thrift1 pid $(pid_of thrift1), thrift2 pid $(pid_of thrift2); waiting for both gateways (up to ${START_TIMEOUT}s)"

  local deadline=$(($(date +%s) + START_TIMEOUT)) r out
  while :; do
    for r in "${ROLES[@]}"; do
      if [[ -z "$(pid_of "$r")" ]]; then
        log "$r exited during start-up; last lines of $RUN_DIR/logs/$r.log:"
        tail -n 40 "$RUN_DIR/logs/$r.log" >&2 || true
        cmd_stop
        exit 1
      fi
    done
    if out=$(probe 2>/dev/null) && rest_probe; then
      break
    fi
    if (($(date +%s) >= deadline)); then
      log "no answer from both gateways after ${START_TIMEOUT}s; last probe:"
      probe >&2 || true
      for r in master thrift1 thrift2 thrift2ro rest; do
        log "--- last lines of $r.log"
        tail -n 15 "$RUN_DIR/logs/$r.log" >&2 || true
      done
      cmd_stop
      exit 1
    fi
    sleep 1
  done
  local ms=$((($(date +%s%N) - t0) / 1000000))
  log "ready after $((ms / 1000)).$(printf '%03d' $((ms % 1000)))s: $out"
  print_endpoints
}

cmd_status() {
  local r pid ok=0
  for r in master thrift1 thrift2 thrift2ro; do
    pid="$(pid_of "$r")"
    if [[ -n "$pid" ]]; then
      echo "$r: running, pid $pid, VmRSS $(awk '/^VmRSS/ {print $2 $3}' "/proc/$pid/status")"
    else
      echo "$r: not running"
      ok=1
    fi
  done
  # HBase's REST server is reported but not required (an oracle started before it existed)
  pid="$(pid_of rest)"
  if [[ -n "$pid" ]]; then
    echo "rest: running, pid $pid, VmRSS $(awk '/^VmRSS/ {print $2 $3}' "/proc/$pid/status")"
  else
    echo "rest: not running (tests/oracle/hbase.sh rest-start adds it)"
  fi
  if ((ok == 0)) && probe; then
    print_endpoints
    return 0
  fi
  return 1
}

# HBase's REST server alone, on a running oracle: its own copy of the site with the REST
# settings (an oracle started by an older hbase.sh has none), the hbase-rest classpath.
cmd_rest_start() {
  [[ -n "$(pid_of master)" ]] || die "no oracle running (run dir $RUN_DIR): start it first"
  if [[ -n "$(pid_of rest)" ]]; then
    rest_probe && { log "REST server already running on $HOST:$REST_PORT"; return 0; }
  else
    port_busy "$REST_PORT" && die "port $HOST:$REST_PORT is in use; pick another with ORACLE_REST_PORT"
    fetch_rest
    mkdir -p "$RUN_DIR/conf-rest"
    grep -v -e 'hbase.rest.host' -e 'hbase.rest.info.port' -e '</configuration>' \
      "$RUN_DIR/conf/hbase-site.xml" >"$RUN_DIR/conf-rest/hbase-site.xml"
    printf '%s\n' "  <property><name>hbase.rest.info.port</name><value>-1</value></property>" \
      "  <property><name>hbase.rest.host</name><value>$HOST</value></property>" \
      "</configuration>" >>"$RUN_DIR/conf-rest/hbase-site.xml"
    LAUNCH_CONF="$RUN_DIR/conf-rest" LAUNCH_LIB="$REST_LIB" launch rest "$THRIFT_XMX" 64m \
      org.apache.hadoop.hbase.rest.RESTServer -p "$REST_PORT" start
  fi
  local deadline=$(($(date +%s) + START_TIMEOUT))
  until rest_probe; do
    if [[ -z "$(pid_of rest)" ]] || (($(date +%s) >= deadline)); then
      log "HBase's REST server did not answer; last lines of $RUN_DIR/logs/rest.log:"
      tail -n 40 "$RUN_DIR/logs/rest.log" >&2 || true
      cmd_rest_stop
      exit 1
    fi
    sleep 1
  done
  log "REST server ready on $HOST:$REST_PORT (pid $(pid_of rest))"
}

cmd_rest_stop() {
  local pid i
  pid="$(pid_of rest)"
  [[ -n "$pid" ]] || { log "REST server not running"; return 0; }
  log "stopping rest (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 $((STOP_GRACE * 10))); do
    alive "$pid" || break
    sleep 0.1
  done
  if alive "$pid"; then
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$RUN_DIR/pids/rest.pid"
}

health_report() { # logs-dir -> a line per sign that a JVM was unwell (CI shows only our output)
  local f n
  for f in "$1"/*.log; do
    [[ -f "$f" ]] || continue
    n=$(grep -c -E 'Detected pause in JVM|OutOfMemoryError|ABORTING|FATAL' "$f" || true)
    ((n == 0)) && continue
    log "$(basename "$f"): $n lines of long pauses, aborts or OutOfMemoryError; the first ones:"
    grep -m 5 -E 'Detected pause in JVM|OutOfMemoryError|ABORTING|FATAL' "$f" | cut -c1-240 >&2
  done
}

cmd_stop() {
  local r pid i stopped=0
  for r in "${ROLES[@]}"; do
    pid="$(pid_of "$r")"
    [[ -n "$pid" ]] || continue
    log "stopping $r (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    # SIGTERM runs HBase's shutdown hooks (gateways: about 2s; master: regions closed, WALs
    # closed, ZooKeeper stopped, usually 3-6s). The master's hooks race: when ZooKeeper goes
    # first, its region server retries deleting its znode for 10-20s more. The data is thrown
    # away anyway, so after STOP_GRACE seconds SIGKILL ends the wait.
    for i in $(seq 1 $((STOP_GRACE * 10))); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      log "$r (pid $pid) still running after ${STOP_GRACE}s; SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      while alive "$pid"; do sleep 0.1; done
    fi
    stopped=1
  done
  if [[ -d "$RUN_DIR" ]]; then
    if [[ -d "$RUN_DIR/logs" ]]; then
      mkdir -p "$CACHE_DIR"
      # the previous stop's logs are kept one more round (run.sh restarts the oracle once)
      rm -rf "$CACHE_DIR/previous-logs"
      [[ ! -d "$CACHE_DIR/last-logs" ]] || mv "$CACHE_DIR/last-logs" "$CACHE_DIR/previous-logs"
      cp -r "$RUN_DIR/logs" "$CACHE_DIR/last-logs"
      health_report "$CACHE_DIR/last-logs"
    fi
    rm -rf "$RUN_DIR"
    log "removed $RUN_DIR (logs kept in $CACHE_DIR/last-logs)"
  elif ((stopped == 0)); then
    log "not running"
  fi
}

case "${1:-}" in
  fetch) mkdir -p "$CACHE_DIR" && fetch ;;
  start) mkdir -p "$CACHE_DIR" && cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  rest-start) mkdir -p "$CACHE_DIR" && cmd_rest_start ;;
  rest-stop) cmd_rest_stop ;;
  rest-status) rest_probe && echo "rest=$HOST:$REST_PORT" ;;
  ports) for v in "${PORT_VARS[@]}"; do echo "export $v=$(port_of_var "$v")"; done ;;
  *)
    echo "usage: $0 fetch|start|stop|status|ports|rest-start|rest-stop|rest-status" >&2
    exit 2
    ;;
esac
