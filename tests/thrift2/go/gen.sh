#!/usr/bin/env bash
# Generates the Go client for THBaseService from the repository's idl/hbase2.thrift into gen/
# (gitignored). Needs Debian's thrift compiler 0.17 (package thrift-compiler).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
idl="$here/../../../idl/hbase2.thrift"
rm -rf "$here/gen"
mkdir -p "$here/gen"
# The compiler warns about `byte` and `optional` arguments (kept for HBase wire fidelity): show
# its output only when it fails.
if ! out="$(thrift --gen go:package_prefix=redbase/tests/thrift2/go/gen/,skip_remote -out "$here/gen" "$idl" 2>&1)"; then
    echo "$out" >&2
    exit 1
fi
test -f "$here/gen/hbase2/hbase2.go"
