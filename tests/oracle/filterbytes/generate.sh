#!/usr/bin/env bash
# Regenerates tests/oracle/filterbytes/filters.tsv (name <TAB> hex of the protobuf-serialized
# filter, from HBase's own Java classes: FilterBytes.java) and, from it, the oracle scenario
# tests/oracle/scenarios/t2_filter_bytes.json (make_scenario.py). Both outputs are committed;
# CI never runs this. Needs a JDK 17 and the oracle's jar cache (hbase.sh fetch).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
HBASE_VERSION="${ORACLE_HBASE_VERSION:-2.6.1}"
CACHE_DIR="${ORACLE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/redbase-oracle}"
LIB="$CACHE_DIR/$HBASE_VERSION/lib"
[ -d "$LIB" ] || "$ROOT/tests/oracle/hbase.sh" fetch
CLASSES="$(mktemp -d)"
trap 'rm -rf "$CLASSES"' EXIT
javac -nowarn -d "$CLASSES" -cp "$LIB/*" "$HERE/FilterBytes.java"
java -cp "$CLASSES:$LIB/*" FilterBytes >"$HERE/filters.tsv.tmp"
mv "$HERE/filters.tsv.tmp" "$HERE/filters.tsv"
echo "wrote $HERE/filters.tsv ($(wc -l <"$HERE/filters.tsv") filters)"
"${PYTHON:-python3}" "$HERE/make_scenario.py"
