#!/usr/bin/env bash
# `redbase shell` against HBase's own Thrift2 gateway: tests/shell/commands.hb runs through the
# real redbase binary twice, once against a fresh `redbase serve` and once against the running
# HBase oracle's Thrift2 gateway (tests/oracle/hbase.sh; tests/oracle/run.sh calls this script
# after starting it). Both outputs are masked with tests/shell/mask.sed (timestamps, timings,
# ports, start codes, region ids and encoded names, cluster id, user) and compared line by line
# by tests/oracle/shell_diff.py: every difference left must be listed, with its reason, in
# tests/oracle/shell-allow.json. Before and after, tests/oracle/shell-clean.hb drops what the
# script creates on HBase (the oracle is shared with diff.py's scenarios).
#
# Environment: REDBASE_BIN [target/debug/redbase], ORACLE_THRIFT2_PORT [19091],
# SHELL_ORACLE_KEEP=DIR keeps both raw and masked outputs in DIR.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
PYTHON="${PYTHON:-python3}"
# the ports the running oracle chose (hbase.sh ports), unless ORACLE_*_PORT says otherwise
eval "$(tests/oracle/hbase.sh ports)"
HBASE_T2="127.0.0.1:${ORACLE_THRIFT2_PORT:-19091}"
SCRIPT=tests/shell/commands.hb
work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    "$BIN" shell --thrift2 "$HBASE_T2" <tests/oracle/shell-clean.hb >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

t0=$(date +%s%N)
t2=$(free_port)
http=$(free_port)
"$BIN" serve --data-dir "$work/data" --gateways thrift2 --thrift2-addr "127.0.0.1:$t2" \
    --http-addr "127.0.0.1:$http" --advertised-host localhost >"$work/server.log" 2>&1 &
server_pid=$!
up=0
for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$t2") 2>/dev/null; then
        up=1
        break
    fi
    sleep 0.1
done
if [ "$up" -ne 1 ]; then
    echo "tests/oracle/shell.sh: redbase did not start" >&2
    cat "$work/server.log" >&2
    exit 1
fi

# leftovers of an interrupted earlier run on a shared oracle
"$BIN" shell --thrift2 "$HBASE_T2" <tests/oracle/shell-clean.hb >/dev/null 2>&1

status=0
"$BIN" shell --thrift2 "127.0.0.1:$t2" <"$SCRIPT" >"$work/redbase.out" 2>&1
rc_redbase=$?
"$BIN" shell --thrift2 "$HBASE_T2" <"$SCRIPT" >"$work/hbase.out" 2>&1
rc_hbase=$?
if [ "$rc_redbase" -ne "$rc_hbase" ]; then
    echo "tests/oracle/shell.sh: exit status $rc_redbase against redbase, $rc_hbase against HBase" >&2
    status=1
fi
# Beyond tests/shell/mask.sed: list_regions pads its columns to the longest region name, and
# the names hold the region id, which HBase's Thrift2 gateway always answers as 0 (see
# docs/compatibility.md): the table's padding is squeezed.
oracle_mask() {
    sed -E -f tests/shell/mask.sed | sed -E '/ \| .* \|$/{s/ +/ /g; s/-+/-/g}'
}
oracle_mask <"$work/redbase.out" >"$work/redbase.masked"
oracle_mask <"$work/hbase.out" >"$work/hbase.masked"
if [ -n "${SHELL_ORACLE_KEEP:-}" ]; then
    mkdir -p "$SHELL_ORACLE_KEEP"
    cp "$work"/redbase.out "$work"/hbase.out "$work"/*.masked "$SHELL_ORACLE_KEEP"/
fi
"$PYTHON" tests/oracle/shell_diff.py "$work/redbase.masked" "$work/hbase.masked" \
    tests/oracle/shell-allow.json || status=1
ms=$((($(date +%s%N) - t0) / 1000000))
echo "tests/oracle/shell.sh: $SCRIPT against redbase and HBase's Thrift2 gateway, exit $status after $((ms / 1000)).$(printf '%03d' $((ms % 1000)))s"
exit "$status"
