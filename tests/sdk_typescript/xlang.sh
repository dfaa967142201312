#!/usr/bin/env bash
# The TypeScript cross-language tool (tests/xlang/README.md), built first if needed:
#   tests/sdk_typescript/xlang.sh write HOST PORT
#   tests/sdk_typescript/xlang.sh dump HOST PORT
#   (and write-versions, dump-versions, write-batch, dump-batch: tests/xlang/README.md)
# Build output goes to stderr, so `dump` prints only its JSON.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/build.sh"
exec node "$here/.build/tests/xlang.js" "$@"
