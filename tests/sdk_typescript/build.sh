#!/usr/bin/env bash
# Builds the generated TypeScript SDK and this suite, only when something changed:
#   1. `npm ci` here (package-lock.json: thrift 0.17.0, typescript, type declarations);
#   2. a copy of sdks/typescript in .build/sdk, compiled with `tsc -p` (its tsconfig is
#      --strict) and its ES module entry written (scripts/build-esm.cjs), as the package's
#      `npm run build` does; linked as node_modules/redbase_examples the way an installed
#      package is;
#   3. the suite's TypeScript (tsconfig.json, --strict) into .build/tests.
# The SDK is built from a copy so no dist/ or node_modules/ lands in sdks/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
build="$here/.build"
mkdir -p "$build"

lock_sum="$(sha256sum package.json package-lock.json | sha256sum | cut -d' ' -f1)"
if [ "$(cat node_modules/.redbase-lock 2>/dev/null)" != "$lock_sum" ]; then
    echo "== npm ci (tests/sdk_typescript)" >&2
    npm ci --no-audit --no-fund --loglevel=error >&2
    echo "$lock_sum" >node_modules/.redbase-lock
fi

sources_sum="$(cd "$root" && find sdks/typescript tests/sdk_typescript/*.ts tests/sdk_typescript/tsconfig.json \
    -path '*/node_modules' -prune -o -path '*/dist' -prune -o -type f -print | LC_ALL=C sort | xargs sha256sum |
    sha256sum | cut -d' ' -f1)"
if [ "$(cat "$build/stamp" 2>/dev/null)" = "$lock_sum $sources_sum" ] && [ -e node_modules/redbase_examples ]; then
    exit 0
fi

echo "== tsc --strict: sdks/typescript (a copy in .build/sdk)" >&2
rm -rf "$build/sdk" "$build/tests" "$build/stamp"
mkdir -p "$build/sdk"
cp -r "$root/sdks/typescript/." "$build/sdk/"
rm -rf "$build/sdk/dist" "$build/sdk/node_modules"
node_modules/.bin/tsc -p "$build/sdk" >&2
node "$build/sdk/scripts/build-esm.cjs" >&2
ln -sfn ../.build/sdk node_modules/redbase_examples

echo "== tsc --strict: tests/sdk_typescript" >&2
node_modules/.bin/tsc -p "$here" >&2
echo "$lock_sum $sources_sum" >"$build/stamp"
