#!/usr/bin/env bash
# The Java side of the cross-language test (tests/xlang/README.md), built first if needed:
#   tests/sdk_java/xlang.sh write HOST PORT
#   tests/sdk_java/xlang.sh dump HOST PORT
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/build.sh" >&2
cp="$here/suite/target/classes:$(cat "$here/suite/target/classpath.txt")"
exec java -cp "$cp" org.redbase.tests.Xlang "$@"
