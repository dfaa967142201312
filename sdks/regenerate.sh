#!/usr/bin/env bash
# Regenerates everything under sdks/ (every language's SDK and the test vectors) from
# sdks/schemas/*.toml. A cargo test (codegen/tests/golden.rs) fails when sdks/ is not current.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cargo run -q -p redbase --bin redbase -- codegen --all --root "$root" "$@"
