#!/usr/bin/env bash
# A sequential load against small regions, to see whether regions outgrow their split size:
# a release redbase with --region-max-size MAXSIZE and --region-block-factor FACTOR (0: no hold),
# loaded by loadgen through Thrift1 (one connection, mutateRows of 1,000 rows); prints the load
# time, the hold metrics, the region count and each split's parent size.
#
#   cargo build --release -p redbase -p redbase-bench --bin redbase --bin loadgen
#   server/benches/block_load.sh FACTOR ROWS MAXSIZE [PORT]
#   server/benches/block_load.sh 4 3000000 33554432
set -u
F=${1:?factor}; ROWS=${2:?rows}; MAX=${3:?region max size}; P=${4:-27500}
D=/tmp/redbase-block-load-$F; rm -rf $D; mkdir -p $D
BIN=$(cd "$(dirname "$0")/../.." && pwd)/target/release
REDBASE_REGION_BLOCK_FACTOR=$F REDBASE_REGION_MAX_SIZE=$MAX RUST_LOG=info $BIN/redbase serve --data-dir $D/data --thrift1-addr 127.0.0.1:$P --thrift2-addr 127.0.0.1:$((P + 1)) --http-addr 127.0.0.1:$((P + 2)) > $D/server.log 2>&1 &
PID=$!; sleep 1
start=$(date +%s.%N)
$BIN/loadgen bench --addr 127.0.0.1:$P --rows $ROWS --workloads get --connections 1 --secs 1 --rounds 1 --no-null > $D/lg.txt 2>&1
end=$(date +%s.%N)
grep preloaded $D/lg.txt
echo "factor $F: load+1s get $(echo "$end - $start" | bc) s"
curl -s 127.0.0.1:$((P + 2))/metrics | grep -E '^redbase_(regions|region_blocking_size|write_size_)' 
echo "parents at split (MiB):" $(grep -a 'region split' $D/server.log | sed -E 's/.*region_bytes=([0-9]+).*/\1/' | awk '{printf "%.0f ", $1/1048576}')
kill $PID; wait $PID 2>/dev/null
