#!/usr/bin/env bash
# Builds the Java SDK suite when its inputs changed, as a user would use the SDK: first
# `mvn install` of the generated SDK (sdks/java: its jar, target/<artifact>-<version>.jar,
# installed into ~/.m2), then the suite module, which depends on that installed artifact at the
# version the schema sets. Extra arguments are Maven goals for the suite (run.sh passes `test`);
# MVN_FLAGS adds Maven options to both (e.g. MVN_FLAGS=-o offline once ~/.m2 is warm).
#   tests/sdk_java/build.sh [--force] [MAVEN_GOALS...]
# Writes suite/target/classpath.txt (the runtime classpath) and suite/target/.built.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
sdk="$root/sdks/java"
stamp="$here/suite/target/.built"

force=0
if [ "${1:-}" = "--force" ]; then
    force=1
    shift
fi
goals=("$@")
[ ${#goals[@]} -eq 0 ] && goals=(-DskipTests test-compile)

if [ "$force" -eq 0 ] && [ -f "$stamp" ] && [ -f "$here/suite/target/classpath.txt" ] &&
    [ -z "$(find "$sdk/pom.xml" "$sdk/src" "$here/suite/pom.xml" "$here/suite/src" -newer "$stamp" -print -quit)" ]; then
    exit 0
fi
rm -f "$stamp"
# The artifact and version the generator wrote into the SDK's pom.xml (the first of each after
# the parent-less header: the project's own).
artifact="$(sed -n 's|^  <artifactId>\(.*\)</artifactId>$|\1|p' "$sdk/pom.xml" | head -1)"
version="$(sed -n 's|^  <version>\(.*\)</version>$|\1|p' "$sdk/pom.xml" | head -1)"
mvn_flags=(-q -B -Dstyle.color=never ${MVN_FLAGS:-})
(cd "$sdk" && mvn "${mvn_flags[@]}" -DskipTests install)
jar="$sdk/target/$artifact-$version.jar"
# (the listing is captured first: grep -q on a pipe could SIGPIPE unzip under pipefail)
if [ ! -f "$jar" ] || [[ "$(unzip -l "$jar")" != *"org/redbase/sdk/TableClient.class"* ]]; then
    echo "tests/sdk_java/build.sh: $jar is missing or lacks the runtime classes" >&2
    exit 1
fi
if [[ "$(cat "$sdk/README.md" 2>/dev/null)" != *"org.redbase.sdk:$artifact:$version"* ]]; then
    echo "tests/sdk_java/build.sh: sdks/java/README.md does not name org.redbase.sdk:$artifact:$version" >&2
    exit 1
fi
echo "built and installed $jar (org.redbase.sdk:$artifact:$version)" >&2
(cd "$here/suite" && mvn "${mvn_flags[@]}" -Dredbase.sdk.version="$version" "${goals[@]}")
touch "$stamp"
