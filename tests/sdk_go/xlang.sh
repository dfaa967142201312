#!/usr/bin/env bash
# The Go xlang tool (tests/xlang/README.md): tests/sdk_go/xlang.sh write|dump HOST PORT.
# Builds tests/sdk_go/cmd/xlang into tests/sdk_go/.bin (gitignored) when missing or older
# than its sources or the SDK, then runs it from the repository root.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$here/.bin/xlang"
if [ ! -x "$bin" ] || [ -n "$(find "$here/cmd/xlang" "$here/internal" "$here/go.mod" "$root/sdks/go" \
    -newer "$bin" -print -quit)" ]; then
    mkdir -p "$here/.bin"
    (cd "$here" && go build -o "$bin" ./cmd/xlang)
fi
cd "$root"
exec "$bin" "$@"
