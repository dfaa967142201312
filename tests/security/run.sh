#!/usr/bin/env bash
# The transport security suite: real third-party clients against a real redbase with TLS,
# client certificates, SASL PLAIN and HTTP Basic (docs/security.md):
#   Python: Apache `thrift` (TSSLSocket, TSocket) with `thrift_sasl` over `pure-sasl`; thriftpy2
#           (TSSLSocket, idl/hbase2.thrift loaded at run time)
#   Java:   libthrift 0.14.1 (TSSLTransportFactory, TSaslClientTransport + the JDK's SASL PLAIN)
#   Node:   the thrift npm package (createSSLConnection, createHttpConnection over https)
#   Go:     github.com/apache/thrift (TSSLSocket with a client certificate)
#   curl over HTTPS, and headless Chromium (Debian's chromium) for the cross-site rules.
# Certificates come from openssl (and a PKCS12 truststore from keytool); the auth file from
# `redbase hash-password`. Installs what it needs (apt, pip, npm ci, Maven, Go modules) and
# builds the clients into target/security/ before pytest runs them; exits non-zero on any
# failure.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT="$PWD"

PYTHON="${PYTHON:-python3}"
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
die() {
    echo "tests/security/run.sh: $*" >&2
    exit 1
}
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"

# Debian packages for each tool that is missing (one apt-get update at most).
missing=()
need() { # command package
    command -v "$1" >/dev/null 2>&1 || missing+=("$2")
}
need openssl openssl
need curl curl
need thrift thrift-compiler
need node nodejs
need npm npm
need javac openjdk-17-jdk-headless
need keytool openjdk-17-jdk-headless
need mvn maven
need go golang-go
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing+=(chromium)
if [ "${#missing[@]}" -ne 0 ]; then
    echo "== installing ${missing[*]}"
    { $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
        die "cannot install ${missing[*]}"
fi

"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/requirements.txt -r tests/security/requirements.txt ||
    die "pip install failed"
cargo build -p redbase || die "cargo build failed"

export SECURITY_BUILD="$ROOT/target/security"
mkdir -p "$SECURITY_BUILD"

echo "== Go client (tests/security/go)"
(
    cd tests/security/go || exit 1
    unformatted="$(gofmt -l .)"
    [ -z "$unformatted" ] || { echo "not gofmt-clean: $unformatted" >&2; exit 1; }
    go mod download && go vet . && go build -o "$SECURITY_BUILD/go/tlsclient" .
) || die "the Go client did not build"

echo "== Node client (tests/security/node: npm ci, thrift --gen js:node)"
(
    cd tests/security/node || exit 1
    lock_sum="$(sha256sum package.json package-lock.json | sha256sum | cut -d' ' -f1)"
    if [ "$(cat node_modules/.redbase-lock 2>/dev/null)" != "$lock_sum" ]; then
        npm ci --no-audit --no-fund --loglevel=error || exit 1
        echo "$lock_sum" >node_modules/.redbase-lock
    fi
) || die "npm ci failed"
rm -rf "$SECURITY_BUILD/node/gen" && mkdir -p "$SECURITY_BUILD/node/gen"
# (its warnings about the IDL are HBase's own: shown only on failure)
thrift --gen js:node -out "$SECURITY_BUILD/node/gen" idl/hbase2.thrift >"$SECURITY_BUILD/node/thrift.log" 2>&1 || {
    cat "$SECURITY_BUILD/node/thrift.log" >&2
    die "thrift --gen js:node failed"
}

echo "== Java client (tests/security/java: Maven)"
# (Debian's Maven 3.8 prints stray colour resets even in batch mode: sed drops them)
mvn -B -q -Dstyle.color=never -f tests/security/java/pom.xml compile dependency:build-classpath \
    -Dmdep.outputFile="$SECURITY_BUILD/java/classpath.txt" 2>&1 | sed -u $'s/\x1b\\[[0-9;]*m//g'
[ "${PIPESTATUS[0]}" -eq 0 ] || die "mvn compile failed"

export PYTHONDONTWRITEBYTECODE=1
export REDBASE_BIN="${REDBASE_BIN:-$ROOT/target/debug/redbase}"
"$PYTHON" -m pytest -q -p no:cacheprovider tests/security "$@"
exit $?
