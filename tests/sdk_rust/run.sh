#!/usr/bin/env bash
# The generated Rust SDK (sdks/rust, crate redbase_examples) against a real redbase:
#   1. the generated crate is rustfmt- and clippy-clean (-D warnings), and so is this suite and
#      a crate generated from keywords.toml (names that are Rust keywords, long names);
#   2. the shared vectors byte for byte (prints `VECTORS rust <file> pass <n>` lines);
#   3. end-to-end tests over Thrift2 against `redbase serve` on loopback (or, with
#      REDBASE_SDK_TARGET=host:port, against an already running Thrift2 gateway);
#   4. `cargo package` builds the crate archive (version from the schema, README naming it);
#   5. the cross-language check with the Python SDK in both directions (xlang.sh).
# One cargo target directory (target/sdk_rust) serves all of it. Crates come from crates.io
# through cargo, pinned by tests/sdk_rust/Cargo.lock.
set -uo pipefail
cd "$(dirname "$0")/../.."

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if command -v rustup >/dev/null 2>&1; then
    rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi
export CARGO_TARGET_DIR="$PWD/target/sdk_rust"
status=0
step() { echo "== $*"; }

# The SDK builds standalone with the versions the suite pins (its own Cargo.lock is ignored).
cp tests/sdk_rust/Cargo.lock sdks/rust/Cargo.lock

step "cargo fmt --check (generated sdks/rust, tests/sdk_rust)"
(cd sdks/rust && cargo fmt --check) || status=1
(cd tests/sdk_rust && cargo fmt --check) || status=1

step "cargo clippy -D warnings (generated sdks/rust, tests/sdk_rust)"
(cd sdks/rust && cargo clippy -q --all-targets -- -D warnings) || status=1
(cd tests/sdk_rust && cargo clippy -q --locked --all-targets -- -D warnings) || status=1

step "a crate generated from keywords.toml (Rust keywords, long names): fmt, clippy"
kw="$CARGO_TARGET_DIR/keyword_sdk"
rm -rf "$kw"
if cargo run -q -p redbase --bin redbase -- codegen --schema tests/sdk_rust/keywords.toml \
    --lang rust --out "$kw" >/dev/null; then
    cp tests/sdk_rust/Cargo.lock "$kw/Cargo.lock"
    (cd "$kw" && cargo fmt --check && cargo clippy -q --all-targets -- -D warnings) || status=1
else
    status=1
fi

step "cargo package: the crate archive, named with the schema's version, builds on its own"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' sdks/schemas/access_logs.toml)"
rm -f "$CARGO_TARGET_DIR/package/redbase_examples-$version.crate"
(cd sdks/rust && cargo package -q --allow-dirty) || status=1
[ -f "$CARGO_TARGET_DIR/package/redbase_examples-$version.crate" ] || {
    echo "no redbase_examples-$version.crate" >&2
    status=1
}
grep -q "^# redbase_examples $version (Rust)" sdks/rust/README.md || {
    echo "sdks/rust/README.md does not name version $version" >&2
    status=1
}

step "vectors"
(cd tests/sdk_rust && cargo test -q --locked --test vectors) || status=1

if [ -z "${REDBASE_SDK_TARGET:-}" ]; then
    cargo build -q -p redbase --bin redbase || {
        echo "tests/sdk_rust/run.sh: cargo build -p redbase failed" >&2
        exit 1
    }
fi
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
PYTHON="${PYTHON:-python3}"
export PYTHONDONTWRITEBYTECODE=1

step "end to end (redbase serve on loopback, or REDBASE_SDK_TARGET)"
(cd tests/sdk_rust && "$PYTHON" with_server.py cargo test -q --locked --test e2e \
    --test scan_filters --test versions --test batches --test writer --test docs_example \
    --test seed_designs --test readme --test ensure) ||
    status=1

step "xlang: python <-> rust"
"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/sdk_python/requirements.txt || {
    echo "tests/sdk_rust/run.sh: pip install failed" >&2
    exit 1
}
(cd tests/sdk_rust && cargo build -q --locked --bin xlang) || status=1
PYTHONPATH="$PWD/sdks/python${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" tests/sdk_rust/xlang_check.py ||
    status=1

exit $status
