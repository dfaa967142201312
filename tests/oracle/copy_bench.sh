#!/usr/bin/env bash
# Copy, export and import rates for docs/benchmarks.md ("Copy"): 10^6 cells
# (server/benches/data_move_gen.py: 100,000 rows x 10 cells, 4 pre-split regions) loaded into
# redbase A, then
#   redbase copy A -> B (another redbase), A -> A under a new name, export A + import into B;
#   with the HBase oracle running (tests/oracle/hbase.sh status): copy A -> HBase, HBase -> B,
#   and export HBase + import into HBase, the closest measurable equivalent of HBase's
#   CopyTable (a MapReduce job, which the oracle cannot run) through its Thrift2 gateway.
# Every step prints its own summary line (rows, cells, seconds, cells/s); ROUNDS runs each
# redbase step several times (new destination table names), HBase steps once.
#
# Environment: REDBASE_BIN [target/release/redbase], ORACLE_THRIFT2_PORT [19091], ROUNDS [3],
# PARALLEL [4] (copy --parallel).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

BIN="${REDBASE_BIN:-$PWD/target/release/redbase}"
PYTHON="${PYTHON:-python3}"
eval "$(tests/oracle/hbase.sh ports)"
HBASE_T2="127.0.0.1:${ORACLE_THRIFT2_PORT:-19091}"
ROUNDS="${ROUNDS:-3}"
PARALLEL="${PARALLEL:-4}"
HB=redbase-copy-bench
work=$(mktemp -d)
hbase_up=0
tests/oracle/hbase.sh status >/dev/null 2>&1 && hbase_up=1

drop_on_hbase() {
    [ "$hbase_up" -eq 1 ] || return 0
    "$BIN" shell --thrift2 "$HBASE_T2" >/dev/null 2>&1 <<EOS
disable '$HB'
drop '$HB'
disable '$HB-imp'
drop '$HB-imp'
EOS
}
cleanup() {
    for f in "$work"/*.pid; do
        [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
    done
    sleep 1
    drop_on_hbase
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
serve() { # NAME: starts a server on a data dir of that name, prints its Thrift2 address
    # (run in a command substitution, so its PID goes to a file for cleanup)
    local t2 http
    t2=$(free_port)
    http=$(free_port)
    "$BIN" serve --data-dir "$work/$1" --gateways thrift2 --thrift2-addr "127.0.0.1:$t2" \
        --http-addr "127.0.0.1:$http" >"$work/$1.log" 2>&1 &
    echo $! >"$work/$1.pid"
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$t2") 2>/dev/null && break
        sleep 0.1
    done
    echo "127.0.0.1:$t2"
}
step() { # LABEL COMMAND...: runs it and prints the label with its summary line
    local out
    out=$("${@:2}" 2>&1 | grep -E '^(copied|exported|imported)') || true
    printf '%-34s %s\n' "$1" "${out:-FAILED}"
}

A=$(serve a)
B=$(serve b)
"$PYTHON" server/benches/data_move_gen.py "$work/seed.jsonl"
"$BIN" import --thrift2 "$A" --in "$work/seed.jsonl" --table bench --quiet >/dev/null
drop_on_hbase
echo "load: $(uptime)"
for r in $(seq 1 "$ROUNDS"); do
    step "copy redbase -> redbase ($r)" "$BIN" copy --from "$A" --to "$B" --table bench \
        --new-name "c$r" --parallel "$PARALLEL" --quiet
    step "copy redbase -> same server ($r)" "$BIN" copy --from "$A" --table bench \
        --new-name "s$r" --parallel "$PARALLEL" --quiet
    step "export redbase ($r)" "$BIN" export --thrift2 "$A" --table bench \
        --out "$work/e$r.rbx" --quiet
    step "import into redbase ($r)" "$BIN" import --thrift2 "$B" --in "$work/e$r.rbx" \
        --table "i$r" --quiet
done
if [ "$hbase_up" -eq 1 ]; then
    step "copy redbase -> HBase" "$BIN" copy --from "$A" --to "$HBASE_T2" --table bench \
        --new-name "$HB" --parallel "$PARALLEL" --quiet
    step "copy HBase -> redbase" "$BIN" copy --from "$HBASE_T2" --to "$B" --table "$HB" \
        --new-name h1 --parallel "$PARALLEL" --quiet
    step "export HBase" "$BIN" export --thrift2 "$HBASE_T2" --table "$HB" \
        --out "$work/h.rbx" --quiet
    step "import into HBase" "$BIN" import --thrift2 "$HBASE_T2" --in "$work/h.rbx" \
        --table "$HB-imp" --quiet
    step "copy HBase -> HBase (new name)" "$BIN" copy --from "$HBASE_T2" --table "$HB" \
        --new-name "$HB-imp" --no-create --parallel "$PARALLEL" --quiet
else
    echo "(the HBase oracle is not running: HBase steps skipped)"
fi
echo "load: $(uptime)"
