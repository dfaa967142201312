#!/usr/bin/env bash
# Fails, listing them, when hand-written source files tracked by git run over 800 lines (issue
# #42: a newcomer should find each concept in a file of its own size). Counted: .rs .py .java .go
# .ts .js .sh .hbs .toml .proto. Generated code is not counted: the trees below, and any path
# .gitattributes marks `linguist-generated`.
set -euo pipefail
cd "$(dirname "$0")/.."

limit="${FILE_SIZE_LIMIT:-800}"

# Generated trees, kept here as well as in .gitattributes so this check stands on its own.
# sdks/: only the generated SDKs and vectors (sdks/regenerate.sh); sdks/java-testkit/ and
# sdks/schemas/ are written by hand and counted.
generated=(
    codegen/thrift/
    server/src/generated/
    tests/thrift2/go/gen/
    sdks/go/
    sdks/java/
    sdks/python/
    sdks/rust/
    sdks/typescript/
    sdks/vectors/
)

is_generated() {
    local path=$1 prefix
    for prefix in "${generated[@]}"; do
        [[ $path == "$prefix"* ]] && return 0
    done
    [[ $path == node_modules/* || $path == */node_modules/* ]]
}

# Paths .gitattributes marks linguist-generated (set or true).
declare -A marked=()
while IFS= read -r -d '' path && IFS= read -r -d '' _attr && IFS= read -r -d '' value; do
    if [[ $value == set || $value == true ]]; then
        marked["$path"]=1
    fi
done < <(git ls-files -z | git check-attr -z --stdin linguist-generated)

over=()
while IFS= read -r -d '' path; do
    case "$path" in
    *.rs | *.py | *.java | *.go | *.ts | *.js | *.sh | *.hbs | *.toml | *.proto) ;;
    *) continue ;;
    esac
    is_generated "$path" && continue
    [[ -n ${marked["$path"]:-} ]] && continue
    [[ -f $path ]] || continue
    lines=$(wc -l <"$path")
    if ((lines > limit)); then
        over+=("$(printf '%6d %s' "$lines" "$path")")
    fi
done < <(git ls-files -z)

if ((${#over[@]} > 0)); then
    echo "tests/file_sizes.sh: hand-written files over $limit lines; split them along their seams:"
    printf '%s\n' "${over[@]}" | sort -rn
    exit 1
fi
echo "tests/file_sizes.sh: no hand-written source file over $limit lines"
