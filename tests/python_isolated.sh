#!/usr/bin/env bash
# Two checks that keep the Python suites honest on a fresh machine:
# 1. no test script calls a bare `python3` (it finds only the system's packages, so a suite that
#    passes where someone once installed thriftpy2 system-wide fails everywhere else): every call
#    goes through "$PYTHON";
# 2. $PYTHON (tests/run's target/venv) sees no system site packages: what the suites import, they
#    install themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0

# A command position (start of line or after ; & | ( ` or whitespace), then the bare interpreter
# name and an argument that is not an option's dash (python3 -m venv is how the venv is made).
bare=$(grep -rnE '(^|[;&|(`]|[[:space:]])python3[[:space:]]+[^-[:space:]]' tests bench .ci \
    --include='*.sh' --include=run 2>/dev/null |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' | grep -v 'echo ' || true)
bare_c=$(grep -rnE '(^|[;&|(`$]|[[:space:]])python3[[:space:]]+-c[[:space:]]' tests bench .ci \
    --include='*.sh' --include=run 2>/dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' || true)
if [ -n "$bare$bare_c" ]; then
    echo "tests/python_isolated.sh: these lines call python3 directly; use \"\$PYTHON\" (tests/run sets it):"
    printf '%s\n' "$bare" "$bare_c" | sed '/^$/d'
    status=1
fi

PY="${PYTHON:-}"
if [ -z "$PY" ]; then
    echo "tests/python_isolated.sh: PYTHON is not set (tests/run sets it to target/venv/bin/python)"
    exit 1
fi
if ! "$PY" - <<'PYCODE'; then
import site, sys
# a venv without --system-site-packages has the system's site-packages nowhere on sys.path
base = [p for p in site.getsitepackages([sys.base_prefix]) if p in sys.path]
if sys.prefix == sys.base_prefix:
    print(f"{sys.executable} is not a virtualenv (prefix {sys.prefix})")
    sys.exit(1)
if base:
    print(f"{sys.executable} sees the system's site packages: {base}")
    sys.exit(1)
print(f"{sys.executable}: a virtualenv without system site packages")
PYCODE
    status=1
fi
exit "$status"
