#!/usr/bin/env bash
# The npm package as a user installs it: `npm pack` of the built SDK (.build/sdk, see
# build.sh), installed into a fresh project, then used from an ES module (pack/esm.mjs:
# named imports), from CommonJS (pack/cjs.cjs: require) and type-checked by tsc in both
# module modes (pack/typed.mts, pack/typed.cts). The version must be the schema's.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
"$here/build.sh"
build="$here/.build"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/sdks/schemas/access_logs.toml")"
rm -rf "$build/pack" && mkdir -p "$build/pack/consumer"
echo "== npm pack (sdks/typescript, version $version)"
(cd "$build/sdk" && npm pack --ignore-scripts --silent --pack-destination "$build/pack" >/dev/null)
tgz="$build/pack/redbase_examples-$version.tgz"
[ -f "$tgz" ] || { echo "pack.sh: $tgz was not built" >&2; exit 1; }
listing="$(tar -tzf "$tgz")"
for f in package/package.json package/README.md package/dist/index.js package/dist/index.d.ts \
    package/esm/index.mjs package/esm/index.d.mts package/thrift/THBaseService.js; do
    grep -qx "$f" <<<"$listing" || { echo "pack.sh: $f missing from the package" >&2; exit 1; }
done
if grep -q '^package/src/' <<<"$listing"; then echo "pack.sh: sources shipped" >&2; exit 1; fi
grep -q "redbase_examples $version" <(tar -xzOf "$tgz" package/README.md) || { echo "pack.sh: README does not name $version" >&2; exit 1; }
cd "$build/pack/consumer"
echo '{ "name": "consumer", "private": true }' >package.json
npm install --no-audit --no-fund --prefer-offline --loglevel=error "$tgz" >/dev/null
cp "$here/pack/esm.mjs" "$here/pack/cjs.cjs" "$here/pack/typed.mts" "$here/pack/typed.cts" .
node esm.mjs
node cjs.cjs "$version"
tsc="$here/node_modules/.bin/tsc"
"$tsc" --noEmit --strict --skipLibCheck --module nodenext --moduleResolution nodenext --target es2022 \
    --types node --typeRoots "$here/node_modules/@types" typed.mts typed.cts
echo "typed ok"
