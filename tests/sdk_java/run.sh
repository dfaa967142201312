#!/usr/bin/env bash
# The generated Java SDK (sdks/java, package redbase_examples) against a real redbase:
#   1. the SDK packaged and installed as a user builds it (`mvn install` in sdks/java: the jar at
#      the schema's version), then the suite (tests/sdk_java/suite) against that installed jar,
#      running the JUnit tests: the shared vectors byte for byte and the end-to-end tests over
#      Thrift2 against `redbase serve` on loopback (or, with REDBASE_SDK_TARGET=host:port, an
#      already running Thrift2 gateway);
#   2. the vector runner's summary lines (`VECTORS java <file> pass <n>`);
#   3. the cross-language check with the Python tool (tests/xlang): each side writes, both dump,
#      the dumps must be equal.
# Installs a JDK 17 and Maven through apt when missing; Maven fetches libthrift 0.17.0, Jackson
# and JUnit 5 from Maven Central into ~/.m2.
set -uo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-python3}"

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
    echo "== installing openjdk-17-jdk-headless and maven"
    { $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null; } || {
        echo "tests/sdk_java/run.sh: cannot install a JDK and Maven" >&2
        exit 1
    }
fi
"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/sdk_python/requirements.txt || {
    echo "tests/sdk_java/run.sh: pip install failed" >&2
    exit 1
}
if [ -z "${REDBASE_SDK_TARGET:-}" ]; then
    cargo build -p redbase --bin redbase || {
        echo "tests/sdk_java/run.sh: cargo build failed" >&2
        exit 1
    }
fi
export PYTHONDONTWRITEBYTECODE=1
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
exec "$PYTHON" tests/sdk_java/drive.py "$@"
