#!/usr/bin/env bash
# Builds the Java SDK suite when its inputs changed: one Maven reactor run over the generated
# SDK (sdks/java) and the suite module. Extra arguments go to Maven (run.sh passes `test`).
#   tests/sdk_java/build.sh [--force] [MAVEN_GOALS...]
# Writes suite/target/classpath.txt (the runtime classpath) and suite/target/.built.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
stamp="$here/suite/target/.built"

force=0
if [ "${1:-}" = "--force" ]; then
    force=1
    shift
fi
goals=("$@")
[ ${#goals[@]} -eq 0 ] && goals=(-DskipTests test-compile)

if [ "$force" -eq 0 ] && [ -f "$stamp" ] && [ -f "$here/suite/target/classpath.txt" ] &&
    [ -z "$(find "$root/sdks/java/pom.xml" "$root/sdks/java/src" "$here/pom.xml" "$here/suite/pom.xml" \
        "$here/suite/src" -newer "$stamp" -print -quit)" ]; then
    exit 0
fi
rm -f "$stamp"
(cd "$here" && mvn -q -B -Dstyle.color=never "${goals[@]}")
touch "$stamp"
