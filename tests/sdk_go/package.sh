#!/usr/bin/env bash
# Packaging check of the generated Go SDK (docs/sdks.md, "Publish"): the module is what
# `go get` installs. For sdks/go (v0.x: no suffix) and for the same schemas generated at 2.1.0
# (module path ending in /v2), it
#   1. checks the module path, the Version constant and the generated README against the schema;
#   2. builds the module zip as a module proxy serves it (files under <module>@<version>/) with
#      its .mod and .info into a file:// GOPROXY;
#   3. in a fresh consumer module, `go get <module>@v<version>` (the go command verifies the
#      zip and records its hash in go.sum), builds a program that imports the SDK and runs it:
#      it encodes the access-logs key and prints the SDK's Version.
# Usage: tests/sdk_go/package.sh [REDBASE_BIN]
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
bin="${1:-${REDBASE_BIN:-$root/target/debug/redbase}}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# check_module DIR WANT_MODULE WANT_VERSION
check_module() {
    local dir="$1" module="$2" version="$3"
    local got
    got="$(cd "$dir" && go list -m)"
    [ "$got" = "$module" ] || { echo "module path $got, want $module" >&2; return 1; }
    grep -q "^const Version = \"$version\"" "$dir/doc.go" || { echo "doc.go: no Version $version" >&2; return 1; }
    grep -q "go get $module@v$version" "$dir/README.md" || { echo "README.md does not name $module@v$version" >&2; return 1; }
    (cd "$dir" && go build ./...)

    local proxy="$work/proxy" at
    at="$proxy/$module/@v"
    mkdir -p "$at"
    cp "$dir/go.mod" "$at/v$version.mod"
    printf '{"Version":"v%s","Time":"2026-01-01T00:00:00Z"}\n' "$version" >"$at/v$version.info"
    echo "v$version" >>"$at/list"
    # The module zip: every file of the module directory under <module>@v<version>/.
    "${PYTHON:-python3}" - "$dir" "$module@v$version" "$at/v$version.zip" <<'EOF'
import os, sys, zipfile
src, prefix, out = sys.argv[1:]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for base, _, files in os.walk(src):
        for f in sorted(files):
            path = os.path.join(base, f)
            z.write(path, prefix + "/" + os.path.relpath(path, src))
EOF

    local use="$work/use-$version"
    mkdir -p "$use"
    printf 'module example.com/use\n\ngo 1.21\n' >"$use/go.mod"
    cat >"$use/main.go" <<EOF
package main

import (
	"fmt"

	sdk "$module"
)

func main() {
	raw, err := sdk.AccessLogsKey{UserID: "dave", SystemID: "jericho", Period: 201510}.Encode()
	if err != nil {
		panic(err)
	}
	fmt.Println(sdk.Version, string(raw))
}
EOF
    local first="${module%%/*}"
    (
        cd "$use"
        export GOPROXY="file://$proxy,${GOPROXY:-https://proxy.golang.org,direct}" GONOSUMDB="$first" GOFLAGS=-mod=mod
        go get "$module@v$version"
        grep -q "^$module v$version h1:" go.sum || { echo "go.sum has no hash of $module v$version" >&2; exit 1; }
        out="$(go run .)"
        [ "$out" = "$version 16108|jericho|201510" ] || { echo "the installed SDK printed: $out" >&2; exit 1; }
        echo "go get $module@v$version: installed, built and ran ($out)"
    )
}

base="$(cd sdks/go && go list -m)"
version="$(sed -n 's/^const Version = "\(.*\)"/\1/p' sdks/go/doc.go)"
case "$version" in
[01].*) check_module sdks/go "$base" "$version" ;;
*) echo "sdks/go is at $version: expected a 0.x or 1.x example" >&2; exit 1 ;;
esac

# The same schemas at 2.1.0: the module path gains /v2 and imports follow it.
mkdir -p "$work/schemas"
for f in sdks/schemas/*.toml; do
    sed 's/^version = ".*"/version = "2.1.0"/' "$f" >"$work/schemas/$(basename "$f")"
done
args=()
for f in "$work"/schemas/*.toml; do args+=(--schema "$f"); done
"$bin" codegen "${args[@]}" --lang go --out "$work/v2" >/dev/null
check_module "$work/v2" "$base/v2" 2.1.0
