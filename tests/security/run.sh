#!/usr/bin/env bash
# The transport security suite: real third-party clients against a real redbase with TLS,
# client certificates, SASL PLAIN and HTTP Basic (docs/security.md). Python's Apache `thrift`
# (TSSLSocket, TSocket) with `thrift_sasl` over `pure-sasl`, and curl over HTTPS.
# Certificates come from openssl; the auth file from `redbase hash-password`.
set -uo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-python3}"
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
for tool in openssl curl; do
    command -v "$tool" >/dev/null 2>&1 || {
        apt-get install -y -q "$tool" >/dev/null 2>&1 || sudo apt-get install -y -q "$tool" >/dev/null 2>&1
    }
done
"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/requirements.txt -r tests/security/requirements.txt || {
    echo "tests/security/run.sh: pip install failed" >&2
    exit 1
}
cargo build -p redbase || {
    echo "tests/security/run.sh: cargo build failed" >&2
    exit 1
}
export PYTHONDONTWRITEBYTECODE=1
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
"$PYTHON" -m pytest -q -p no:cacheprovider tests/security "$@"
exit $?
