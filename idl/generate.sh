#!/usr/bin/env bash
# Regenerates the server's Rust types from the IDL in this folder:
#   idl/generate.sh [OUT_DIR]   (default: server/src/generated)
# Needs Debian's thrift-compiler (0.17), which matches the `thrift` crate version the server
# uses, and python3. Two edits are made to the compiler's output: see relax_args.py and
# no_panics.py.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../server/src/generated}"
mkdir -p "$out"
for idl in "$here"/hbase*.thrift; do
    thrift --gen rs -out "$out" "$idl" >/dev/null 2>&1
    name="$(basename "$idl" .thrift)"
    python3 "$here/relax_args.py" "$idl" "$out/$name.rs"
    python3 "$here/no_panics.py" "$out/$name.rs"
done
