#!/usr/bin/env bash
# The operations suite: /healthz, /readyz, `redbase healthcheck`, /metrics through Prometheus
# text-format parsers, log formats, the status page's JSON, and a browser test (headless
# Debian Chromium driven by Playwright) that finds the hot region under a skewed write load and
# saves docs/status-page.png. Installs what it needs (apt: chromium; pip: tests/requirements.txt),
# builds the server, runs pytest; exits with pytest's code.
set -uo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-python3}"

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi

if ! command -v chromium >/dev/null 2>&1; then
    echo "== installing chromium"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    $sudo_cmd apt-get install -y -qq chromium >/dev/null || {
        echo "tests/ops/run.sh: apt-get install chromium failed" >&2
        exit 1
    }
fi

"$PYTHON" -m pip install --disable-pip-version-check -q -r tests/requirements.txt || {
    echo "tests/ops/run.sh: pip install failed" >&2
    exit 1
}
cargo build -p redbase || {
    echo "tests/ops/run.sh: cargo build failed" >&2
    exit 1
}

export PYTHONDONTWRITEBYTECODE=1
export REDBASE_BIN="${REDBASE_BIN:-$PWD/target/debug/redbase}"
export CHROMIUM="${CHROMIUM:-$(command -v chromium)}"
"$PYTHON" -m pytest -q -p no:cacheprovider tests/ops "$@"
exit $?
