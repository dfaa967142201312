#!/usr/bin/env bash
# Regenerates the server's Rust types from the IDL in this folder:
#   idl/generate.sh [OUT_DIR]   (default: server/src/generated)
# Needs Debian's thrift-compiler (0.17), which matches the `thrift` crate version the server uses.
#
# One edit is made to the compiler's output: the Rust generator treats every argument of a
# service method as required, while HBase's Java server (and clients such as happybase, which
# leave out arguments they set to None) treat an absent argument as unset. So an absent
# argument reads as its type's default value instead of failing the call.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../server/src/generated}"
mkdir -p "$out"
for idl in "$here"/hbase*.thrift; do
    thrift --gen rs -out "$out" "$idl" >/dev/null 2>&1
done
for f in "$out"/hbase*.rs; do
    sed -i \
        -e '/verify_required_field_exists(".*Args\./d' \
        -e 's/\.expect("auto-generated code should have checked for presence of required fields")/.unwrap_or_default()/' \
        "$f"
done
