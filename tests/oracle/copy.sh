#!/usr/bin/env bash
# `redbase copy` against HBase's own Thrift2 gateway: the seed tables (access-logs pre-split at
# 1..f with MD5-prefixed keys and two versions of every cell, social-usage with families fb and
# tw, counters, books with binary values; tests/oracle/copy_seed.py) are loaded into a fresh
# `redbase serve` (access-logs through `redbase import --csv` and its schema, the others through
# `redbase shell`), copied into the running HBase oracle (tests/oracle/hbase.sh) with --verify,
# copied back into redbase under new names with --verify, and every cell, timestamp and split
# point of the three sides compared by tests/oracle/copy_compare.py (thriftpy2, not redbase's
# code). tests/oracle/run.sh calls it; the tables it makes on HBase are dropped before and after
# (the oracle is shared with other scenarios).
#
# Environment: REDBASE_BIN [target/debug/redbase], ORACLE_THRIFT2_PORT [19091],
# COPY_ORACLE_USERS [400] (access-logs rows = users x 2.5 x 2 periods).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
PYTHON="${PYTHON:-python3}"
# the ports the running oracle chose (hbase.sh ports), unless ORACLE_*_PORT says otherwise
eval "$(tests/oracle/hbase.sh ports)"
HBASE_T2="127.0.0.1:${ORACLE_THRIFT2_PORT:-19091}"
USERS="${COPY_ORACLE_USERS:-400}"
TABLES=(access-logs social-usage counters books)
PREFIX=redbase-copy-oracle-
ON_HBASE=("${TABLES[@]}" access-logs-inc social-usage-renamed)
work=$(mktemp -d)
server_pid=""

drop_on_hbase() {
    local script=""
    for t in "${ON_HBASE[@]}"; do
        script+="disable '$PREFIX$t'"$'\n'"drop '$PREFIX$t'"$'\n'
    done
    "$BIN" shell --thrift2 "$HBASE_T2" <<<"$script" >/dev/null 2>&1
}
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    drop_on_hbase
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

t0=$(date +%s%N)
t2=$(free_port)
http=$(free_port)
REDBASE="127.0.0.1:$t2"
"$BIN" serve --data-dir "$work/data" --gateways thrift2 --thrift2-addr "$REDBASE" \
    --http-addr "127.0.0.1:$http" >"$work/server.log" 2>&1 &
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
    echo "tests/oracle/copy.sh: redbase did not start" >&2
    cat "$work/server.log" >&2
    exit 1
fi

fail() {
    echo "tests/oracle/copy.sh: $*" >&2
    exit 1
}

drop_on_hbase # leftovers of an interrupted earlier run
"$PYTHON" tests/oracle/copy_seed.py "$work" "$USERS" || fail "copy_seed.py failed"
for v in 1 2; do
    "$BIN" import --thrift2 "$REDBASE" --csv "$work/access-v$v.csv" \
        --schema sdks/schemas/access_logs.toml --table access-logs ||
        fail "import --csv access-v$v.csv failed"
done
"$BIN" shell --thrift2 "$REDBASE" -n <"$work/seed.hb" >"$work/seed.out" 2>&1 || {
    cat "$work/seed.out" >&2
    fail "loading seed.hb failed"
}

status=0
for t in "${TABLES[@]}"; do
    echo "== $t: redbase -> HBase ($PREFIX$t) -> redbase ($t-back)"
    "$BIN" copy --from "$REDBASE" --to "$HBASE_T2" --table "$t" --new-name "$PREFIX$t" \
        --verify --quiet || status=1
    "$BIN" copy --from "$HBASE_T2" --to "$REDBASE" --table "$PREFIX$t" --new-name "$t-back" \
        --verify --quiet || status=1
    "$PYTHON" tests/oracle/copy_compare.py "$REDBASE/$t" "$HBASE_T2/$PREFIX$t" \
        "$REDBASE/$t-back" || status=1
done

# An incremental copy into HBase: only the cells at or after a time, then the whole table
# equal again (the second version of access-logs was written at 1700000500000 and later).
echo "== access-logs: incremental copy of the second versions into HBase"
inc="${PREFIX}access-logs-inc"
"$BIN" copy --from "$REDBASE" --to "$HBASE_T2" --table access-logs --new-name "$inc" \
    --end-time 1700000500000 --quiet || status=1
out=$("$BIN" copy --from "$REDBASE" --to "$HBASE_T2" --table access-logs --new-name "$inc" \
    --start-time 1700000500000 --quiet 2>&1) || status=1
echo "$out"
# the second run copies the second versions only: half the cells
want=$("$PYTHON" -c "print(sum(1 for _ in open('$work/access-v2.csv')) - 1)")
[[ "$out" == *"copied $want rows, $((want * 2)) cells"* ]] || {
    echo "tests/oracle/copy.sh: the incremental copy did not copy $want rows, $((want * 2)) cells"
    status=1
}
"$PYTHON" tests/oracle/copy_compare.py "$REDBASE/access-logs" "$HBASE_T2/$inc" || status=1

# Family renames and one version into HBase, checked by --verify on both sides (the source's
# fb cells are hashed under the destination's name, facebook).
echo "== social-usage: --families fb:facebook,tw --versions 1 into HBase"
"$BIN" copy --from "$REDBASE" --to "$HBASE_T2" --table social-usage \
    --new-name "${PREFIX}social-usage-renamed" --families fb:facebook,tw --versions 1 \
    --verify --quiet | grep -v '^  ' || status=1
"$BIN" shell --thrift2 "$HBASE_T2" -n -e "describe '${PREFIX}social-usage-renamed'" |
    grep -q "NAME => 'facebook'" || {
    echo "tests/oracle/copy.sh: HBase's copy has no family facebook"
    status=1
}

ms=$((($(date +%s%N) - t0) / 1000000))
echo "tests/oracle/copy.sh: ${TABLES[*]} redbase -> HBase -> redbase, exit $status after $((ms / 1000)).$(printf '%03d' $((ms % 1000)))s"
exit "$status"
