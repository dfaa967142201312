#!/usr/bin/env bash
# The scale run of docs/benchmarks.md ("At scale"): a release redbase with a given cache budget,
# loaded through Thrift1 by loadgen (one connection, mutateRows of 1,000 rows), then gets and
# scans at 1 and 16 connections; prints the load time, disk size, peak RSS (sampled every 5 s),
# the cache budget in use, split pauses and the SIGTERM-to-exit time.
#
#   cargo build --release -p redbase -p redbase-bench --bin redbase --bin loadgen
#   server/benches/scale.sh ROWS CACHE_BYTES [DIR] [PORT]
#   server/benches/scale.sh 10000000 268435456
# Server settings come from the environment (REDBASE_REGION_MAX_SIZE, REDBASE_REGION_BLOCK_FACTOR, ...).
set -euo pipefail
ROWS=${1:?rows}
CACHE=${2:?cache bytes}
DIR=${3:-/tmp/redbase-scale-$ROWS}
PORT=${4:-26490}
BIN=$(cd "$(dirname "$0")/../.." && pwd)/target/release
rm -rf "$DIR"
mkdir -p "$DIR"
cd "$DIR"
RUST_LOG=info "$BIN/redbase" serve --data-dir "$DIR/data" --cache-size "$CACHE" \
    --thrift1-addr "127.0.0.1:$PORT" --thrift2-addr "127.0.0.1:$((PORT + 1))" \
    --http-addr "127.0.0.1:$((PORT + 2))" > server.log 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
sleep 1
(while kill -0 $PID 2>/dev/null; do
    awk '/VmRSS/ {print $2}' /proc/$PID/status >> rss.log 2>/dev/null || true
    sleep 5
done) &
"$BIN/loadgen" bench --addr "127.0.0.1:$PORT" --rows "$ROWS" --workloads get,scan \
    --connections 1,16 --secs 10 --rounds 2 --no-null | tee loadgen.out
# Apparent size (redb sizes a file in steps it writes only when used) and blocks allocated.
du -sb data | awk '{printf "disk: %.1f MiB apparent", $1 / 1048576}'
du -sk data | awk '{printf ", %.1f MiB allocated\n", $1 / 1024}'
sort -n rss.log | tail -1 | awk '{printf "peak RSS: %.1f MiB\n", $1 / 1024}'
curl -s "127.0.0.1:$((PORT + 2))/metrics" |
    grep -E '^redbase_(cache_bytes|cache_bytes_max|cache_files|regions|split_pause_seconds_(sum|count)|write_backpressure_wait|write_busy_refusals|region_blocking_size|write_size_)'
echo "split pauses (µs): $(grep -ao 'pause_us=[0-9]*' server.log | cut -d= -f2 | tr '\n' ' ')"
echo "splits (parent file MiB / pause ms / where: middle (copied) or tail (no copy)):"
grep -a 'region split' server.log |
    sed -E -e 's/.*region split at its tail.*region_bytes=([0-9]+).*pause_us=([0-9]+).*/\1 \2 tail/' \
        -e 's/.*region split .*region_bytes=([0-9]+).*pause_us=([0-9]+).*/\1 \2 middle/' |
    awk '{printf "  %.0f MiB / %.1f ms / %s\n", $1 / 1048576, $2 / 1000, $3}'
start=$(date +%s%N)
kill -TERM $PID
while kill -0 $PID 2>/dev/null; do sleep 0.02; done
echo "SIGTERM to exit: $(( ($(date +%s%N) - start) / 1000000 )) ms"
