#!/usr/bin/env bash
# The Rust xlang tool (tests/xlang/README.md): tests/sdk_rust/xlang.sh write|dump HOST PORT.
# Builds it (cargo, target/sdk_rust, the suite's Cargo.lock) when missing or older than its
# sources or the SDK; build output goes to stderr, the dump to stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/sdk_rust}"
bin="$CARGO_TARGET_DIR/debug/xlang"
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if [ ! -x "$bin" ] || [ -n "$(find "$here/src" "$here/Cargo.toml" "$here/Cargo.lock" \
    "$root/sdks/rust/src" "$root/sdks/rust/Cargo.toml" "$root/tests/xlang/dataset.json" \
    -newer "$bin" -print -quit)" ]; then
    [ -f "$root/sdks/rust/Cargo.lock" ] || cp "$here/Cargo.lock" "$root/sdks/rust/Cargo.lock"
    (cd "$here" && cargo build -q --locked --bin xlang) >&2
fi
cd "$root"
exec "$bin" "$@"
