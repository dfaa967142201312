#!/usr/bin/env bash
# `redbase shell` against a real `redbase serve` on loopback ports, through the real binary:
#   1. commands.hb (every command, the seed documents' commands among them) on standard
#      input; the output, with timestamps, timings, ports and region ids masked, must equal
#      commands.golden (UPDATE_GOLDEN=1 rewrites it);
#   2. seed.hb as `redbase shell < seed.hb` and as a script file argument, exit status 0;
#   3. -n stops at the first error with exit status 1; -e runs one command; multi-line input;
#      --format json prints one object per row;
#   4. a terminal session in tmux: tab completion (Tab Tab lists several matches), multi-line
#      input, history, a pasted HBase prompt, Ctrl-C stopping a long count (the scanner loop
#      scan shares) while the shell goes on.
set -uo pipefail
PYTHON="${PYTHON:-python3}"
cd "$(dirname "$0")/../.."

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
cargo build -p redbase || {
    echo "tests/shell/run.sh: cargo build failed" >&2
    exit 1
}
BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start_server() {
    local t2 http
    t2=$(free_port)
    http=$(free_port)
    rm -rf "$work/data"
    "$BIN" serve --data-dir "$work/data" --gateways thrift2 --thrift2-addr "127.0.0.1:$t2" \
        --http-addr "127.0.0.1:$http" --advertised-host localhost >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$t2") 2>/dev/null; then
            ADDR="127.0.0.1:$t2"
            return 0
        fi
        sleep 0.1
    done
    echo "tests/shell/run.sh: the server did not start" >&2
    cat "$work/server.log" >&2
    exit 1
}

stop_server() {
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    server_pid=""
}

# What changes from run to run: timestamps, timings, ports, region ids, the cluster id, the user.
mask() {
    sed -E -f tests/shell/mask.sed
}

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# 1. every command against the golden output
start_server
"$BIN" shell --thrift2 "$ADDR" <tests/shell/commands.hb >"$work/commands.out" 2>&1
status=$?
[ "$status" -eq 1 ] || fail "commands.hb (with its deliberate errors) exited $status, not 1"
mask <"$work/commands.out" >"$work/commands.masked"
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
    cp "$work/commands.masked" tests/shell/commands.golden
    echo "tests/shell/run.sh: rewrote tests/shell/commands.golden"
elif ! diff -u tests/shell/commands.golden "$work/commands.masked"; then
    fail "commands.hb output differs from commands.golden"
fi
stop_server

# 2. the seed documents' commands, from standard input and as a script file
start_server
"$BIN" shell --thrift2 "$ADDR" -n <tests/shell/seed.hb >"$work/seed.out" 2>&1 ||
    fail "redbase shell < seed.hb exited non-zero: $(cat "$work/seed.out")"
grep -q '^COUNTER VALUE = 100$' "$work/seed.out" || fail "seed: no 'COUNTER VALUE = 100'"
grep -q '^ c:2 timestamp=.*, value=\\x00\\x00\\x00\\x00\\x00\\x00\\x00d$' "$work/seed.out" ||
    fail "seed: the counter cell is not shown as HBase shows it"
stop_server
start_server
"$BIN" shell --thrift2 "$ADDR" -n tests/shell/seed.hb >"$work/seed2.out" 2>&1 ||
    fail "redbase shell seed.hb exited non-zero: $(cat "$work/seed2.out")"

# 3. -n, -e, multi-line input, JSON
printf "list\nexists 'nope'\nget 'nope', 'r'\nlist\n" |
    "$BIN" shell --thrift2 "$ADDR" -n >"$work/n.out" 2>&1
status=$?
[ "$status" -eq 1 ] || fail "-n after a failing command exited $status, not 1"
[ "$(grep -c '^TABLE$' "$work/n.out")" -eq 1 ] || fail "-n went on after the first error"
grep -q '^ERROR: ' "$work/n.out" || fail "-n printed no ERROR line"

out=$("$BIN" shell --thrift2 "$ADDR" -e "exists 'counters'")
[ "$?" -eq 0 ] || fail "-e exited non-zero"
echo "$out" | grep -q '^=> true$' || fail "-e: no '=> true' in: $out"

printf "put 'counters',\n  'multi', 'c:q',\n  \"v\\\\x01\"\nget 'counters', 'multi'\n" |
    "$BIN" shell --thrift2 "$ADDR" -n >"$work/multi.out" 2>&1 || fail "multi-line input failed: $(cat "$work/multi.out")"
grep -q '^ c:q timestamp=.*, value=v\\x01$' "$work/multi.out" || fail "multi-line put: $(cat "$work/multi.out")"

"$BIN" shell --thrift2 "$ADDR" --format json -e "put 'counters', \"bin\\x00\", 'c:q', 'v'
scan 'counters', {STARTROW => 'bin', STOPROW => 'bio'}" >"$work/json.out" 2>&1 || fail "json scan failed"
"$PYTHON" - "$work/json.out" <<'PY' || fail "JSON output: $(cat "$work/json.out")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert rows == [{"row": {"encoding": "base64", "data": "YmluAA=="},
                 "cells": [{"column": "c:q", "timestamp": rows[0]["cells"][0]["timestamp"],
                            "value": "v", "type": None}]}], rows
PY

"$BIN" shell --thrift2 127.0.0.1:1 -e "list" >"$work/down.out" 2>&1
[ "$?" -eq 1 ] || fail "an unreachable server did not give exit status 1"
grep -q "cannot connect to the Thrift2 server at 127.0.0.1:1" "$work/down.out" || fail "unreachable: $(cat "$work/down.out")"

# 4. a terminal session in tmux: completion, multi-line input, history, Ctrl-C during a scan
if ! command -v tmux >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq tmux >/dev/null ||
        fail "cannot install tmux for the interactive test"
fi
if command -v tmux >/dev/null 2>&1; then
    # A table big enough that a scan one row per call is still running when Ctrl-C comes.
    {
        echo "create 'big', 'f'"
        for i in $(seq 1 6000); do echo "put 'big', 'row$i', 'f:q', 'v$i'"; done
    } | "$BIN" shell --thrift2 "$ADDR" -n >/dev/null 2>&1 || fail "loading the big table failed"
    session="redbase-shell-test-$$"
    pane() { tmux capture-pane -t "$session" -p -S -200; }
    wait_for() { # text, seconds
        for _ in $(seq 1 $(($2 * 10))); do
            pane | grep -qF -- "$1" && return 0
            sleep 0.1
        done
        fail "interactive: no '$1' on the screen:"
        pane >&2
        return 1
    }
    tmux new-session -d -s "$session" -x 200 -y 50 \
        "HOME=$work $BIN shell --thrift2 $ADDR; echo SHELL-EXITED-\$?; sleep 30"
    wait_for "redbase:001:0>" 10
    tmux send-keys -t "$session" "exi" Tab
    tmux send-keys -t "$session" " 'coun" Tab
    tmux send-keys -t "$session" Enter
    wait_for "Table counters does exist" 10
    tmux send-keys -t "$session" "get_counter 'counters'," Enter
    wait_for "redbase:002:1*" 5
    tmux send-keys -t "$session" "  'rk1', 'c:2'" Enter
    wait_for "COUNTER VALUE = 100" 10
    tmux send-keys -t "$session" Up Enter
    wait_for "redbase:004:0>" 10
    [ "$(pane | grep -c 'COUNTER VALUE = 100')" -eq 2 ] || fail "interactive: history did not repeat the command"
    # Tab with several matches: the first beeps, the second lists them (as irb and bash do);
    # typing on narrows it to one, which Tab completes.
    tmux send-keys -t "$session" "get" Tab Tab
    wait_for "get_splits" 5
    pane | grep -qE "^get +get_counter +get_splits *$" || fail "interactive: Tab Tab did not list get, get_counter, get_splits"
    tmux send-keys -t "$session" "_c" Tab
    tmux send-keys -t "$session" " 'counters', 'rk1', 'c:2'" Enter
    wait_for "redbase:005:0>" 10
    [ "$(pane | grep -c 'COUNTER VALUE = 100')" -eq 3 ] || fail "interactive: get_c<Tab> did not complete to get_counter"
    # A line pasted from an HBase shell session, prompt and all.
    tmux send-keys -t "$session" "hbase(main):006:0> exists 'counters'" Enter
    wait_for "left out the shell prompt" 10
    wait_for "redbase:006:0>" 10
    # Ctrl-C a moment after a count starts (about a second, one row per call; `count` reads
    # through the same scanner loop as `scan` but prints little, so tmux passes the key at once).
    tmux send-keys -t "$session" "count 'big', {CACHE => 1, INTERVAL => 100000}" Enter
    sleep 0.3
    tmux send-keys -t "$session" C-c
    wait_for "Count interrupted (Ctrl-C)." 20
    tmux send-keys -t "$session" "exists 'big'" Enter
    wait_for "Table big does exist" 10
    tmux send-keys -t "$session" "exit" Enter
    wait_for "SHELL-EXITED-0" 10
    grep -q "^exists 'counters'$" "$work/.redbase_shell_history" || fail "interactive: no history file"
    tmux kill-session -t "$session" 2>/dev/null
fi

if [ "$failures" -ne 0 ]; then
    echo "tests/shell/run.sh: $failures failure(s)" >&2
    exit 1
fi
echo "tests/shell/run.sh: all passed"
