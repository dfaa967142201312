#!/usr/bin/env bash
# node-thrift2-hbase (npm, unmodified) against redbase: `npm ci` from package-lock.json when the
# lock changed, then `node --test`. The library's package.json names a GitHub fork of
# caching-map, which a machine without GitHub access cannot fetch; package.json overrides it
# with caching-map 1.0.2 from npm, the package that fork was made from. Only the library's
# optional get cache (`cachedTables`) uses it, and this suite does not.
# REDBASE_BIN picks the server binary (default target/debug/redbase, built by the caller);
# REDBASE_SDK_TARGET=host:port runs the suite against a running Thrift2 gateway instead (the
# HBase oracle in tests/oracle/run.sh). Extra arguments go to `node --test`.
set -euo pipefail
cd "$(dirname "$0")"

lock_sum="$(sha256sum package.json package-lock.json | sha256sum | cut -d' ' -f1)"
if [ "$(cat node_modules/.redbase-lock 2>/dev/null)" != "$lock_sum" ]; then
    echo "== npm ci (tests/thrift2/node)" >&2
    npm ci --no-audit --no-fund --loglevel=error >&2
    echo "$lock_sum" >node_modules/.redbase-lock
fi
exec node --test "$@" node_thrift2_hbase.test.js
