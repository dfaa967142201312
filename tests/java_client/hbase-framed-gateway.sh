#!/usr/bin/env bash
# An extra HBase Thrift2 gateway in framed transport + compact protocol (`-f -c`), attached to
# the HBase oracle that tests/oracle/hbase.sh runs (its jars and its hbase-site.xml), so the suite's
# framed-compact mode can be validated against real HBase too. The oracle itself runs only
# buffered/binary gateways.
#
#   tests/java_client/hbase-framed-gateway.sh start   # 127.0.0.1:${JC_FRAMED_PORT:-19095}
#   tests/java_client/hbase-framed-gateway.sh stop    # stops the JVM this script started (by PID)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE_DIR="${ORACLE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/redbase-oracle}"
LIB="$CACHE_DIR/${ORACLE_HBASE_VERSION:-2.6.1}/lib"
RUN_DIR="${ORACLE_RUN_DIR:-${TMPDIR:-/tmp}/redbase-oracle-$(id -u)}"
PORT="${JC_FRAMED_PORT:-19095}"
STATE="${TMPDIR:-/tmp}/redbase-jc-framed-$(id -u)"

case "${1:-}" in
  start)
    [[ -f "$RUN_DIR/conf/hbase-site.xml" ]] || { echo "no running oracle (tests/oracle/hbase.sh start)" >&2; exit 1; }
    mkdir -p "$STATE"
    opens=()
    for p in java.io java.nio sun.nio.ch java.lang jdk.internal.ref java.lang.reflect java.util java.util.concurrent; do
      opens+=(--add-opens "java.base/$p=ALL-UNNAMED")
    done
    setsid java -Dredbase.jc.framed="$STATE" -Xms64m -Xmx160m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
      -Djava.net.preferIPv4Stack=true -Dlog4j2.configurationFile="$HERE/../oracle/conf/log4j2.properties" \
      --add-modules jdk.unsupported "${opens[@]}" \
      --add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
      -cp "$RUN_DIR/conf:$LIB/*" org.apache.hadoop.hbase.thrift2.ThriftServer \
      -b 127.0.0.1 -p "$PORT" -f -c start </dev/null >"$STATE/gateway.log" 2>&1 &
    echo $! >"$STATE/pid"
    for _ in $(seq 1 120); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
        echo "framed/compact Thrift2 gateway on 127.0.0.1:$PORT (pid $(cat "$STATE/pid"))"
        exit 0
      fi
      sleep 0.5
    done
    echo "gateway did not open 127.0.0.1:$PORT; log: $STATE/gateway.log" >&2
    exit 1
    ;;
  stop)
    if [[ -f "$STATE/pid" ]]; then
      pid="$(cat "$STATE/pid")"
      if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-Dredbase.jc.framed=$STATE "; then
        kill -TERM "$pid" || true
      fi
      rm -f "$STATE/pid"
    fi
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
