"""The shared vectors through the generated Python SDK, as a command: one summary line per
vector file (`VECTORS python <file> pass <n>` or `... FAIL <failed>/<n>`), exit status 1 on any
failure. It runs the same checks as test_vectors.py, one vector at a time, so the
cross-language table (tests/xlang/vectors.py) can call every SDK the same way.

    PYTHONPATH=sdks/python python3 tests/sdk_python/vectors.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_vectors as tv  # noqa: E402

CHECKS = {
    "keys.json": [
        (tv.test_key_vector, tv.KEYS["keys"]),
        (tv.test_prefix_vector, tv.KEYS["prefixes"]),
        (tv.test_error_vector, tv.KEYS["errors"]),
    ],
    "filters.json": [(tv.test_filter_vector, tv.FILTERS["cases"])],
    "bounds.json": [(tv.test_bounds_vector, tv.BOUNDS.get("cases", []))],
    "merge.json": [(tv.test_merge_vector, tv.MERGE["cases"])],
    "values.json": [
        (tv.test_value_vector, tv.VALUES["values"]),
        (tv.test_qualifier_vector, tv.VALUES["qualifiers"]),
    ],
}


def main() -> int:
    status = 0
    for name, checks in CHECKS.items():
        total = failed = 0
        if name == "bounds.json" and not tv.BOUNDS:
            total = failed = 1  # the file is missing: a failure, not an empty pass
            print(f"{name}: sdks/vectors/bounds.json is missing", file=sys.stderr)
        for check, vectors in checks:
            for v in vectors:
                total += 1
                try:
                    check(v)
                except Exception as e:  # an assertion or an SDK error: the vector fails
                    failed += 1
                    print(f"{name}: {check.__name__} {v}: {e!r}", file=sys.stderr)
        if failed:
            status = 1
            print(f"VECTORS python {name} FAIL {failed}/{total}")
        else:
            print(f"VECTORS python {name} pass {total}")
    return status


if __name__ == "__main__":
    sys.exit(main())
