#!/usr/bin/env bash
# Regenerates the Thrift2 client code the SDKs embed, from idl/hbase2.thrift:
#   codegen/thrift/generate.sh [OUT_DIR]   (default: codegen/thrift)
# Needs the Apache Thrift compiler 0.17 (Debian: thrift-compiler). `redbase codegen` copies
# these files into each SDK, so generating an SDK needs no compiler; a test checks they are
# what the compiler produces.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here}"
idl="$here/../../idl/hbase2.thrift"
mkdir -p "$out/python" "$out/go" "$out/typescript" "$out/rust"
thrift --gen py -out "$out/python" "$idl" >/dev/null 2>&1
rm -f "$out/python/__init__.py" "$out/python/hbase2/THBaseService-remote"
# Go: package hbase2, no *-remote command; the code imports nothing of its own, so it fits any
# module path.
thrift --gen go:skip_remote -out "$out/go" "$idl" >/dev/null 2>&1
# TypeScript: Node.js CommonJS modules with TypeScript declarations beside them.
thrift --gen js:node,ts -out "$out/typescript" "$idl" >/dev/null 2>&1
# Rust: the compiler's plain output. The server's copy (idl/generate.sh) relaxes how its
# processor reads arguments; a client only writes arguments and reads results, so the SDK
# needs no edit.
thrift --gen rs -out "$out/rust" "$idl" >/dev/null 2>&1
# Java: package org.redbase.thrift2 (the IDL's `namespace java`); no @Generated annotation, so
# the output carries no date and needs no javax.annotation dependency.
rm -rf "$out/java"
mkdir -p "$out/java"
thrift --gen java:generated_annotations=suppress -out "$out/java" "$idl" >/dev/null 2>&1
