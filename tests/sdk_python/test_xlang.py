"""The Python side of tests/xlang: each write command then its dump, through the generated SDK,
gives exactly what dataset.json implies (rows: puts merged per key, increments summed;
versions: every timestamped cell, newest first; batches: rows minus deletes plus increments)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

XLANG = Path(__file__).resolve().parents[1] / "xlang"
sys.path.insert(0, str(XLANG))

import xlang  # noqa: E402


def run(cmd, target):
    # The suite's own copies of the tables (py_...), as conftest.PREFIX for the other tests.
    env = dict(os.environ, XLANG_TABLE_PREFIX=os.environ.get("REDBASE_SDK_TABLE_PREFIX", "py_"))
    return subprocess.run(
        [sys.executable, str(XLANG / "xlang.py"), cmd, target[0], str(target[1])],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def by_key(dump):
    return {t: {r["key_hex"]: r["values"] for r in rows} for t, rows in dump.items()}


@pytest.mark.parametrize(
    "write,dump,expected",
    [
        ("write", "dump", xlang.expected_rows),
        ("write-batch", "dump-batch", xlang.expected_batches),
    ],
)
def test_write_then_dump_matches_the_dataset(target, write, dump, expected):
    run(write, target)
    got = json.loads(run(dump, target))
    want = expected()
    assert sorted(got) == sorted(want)
    for table, rows in got.items():
        keys = [bytes.fromhex(r["key_hex"]) for r in rows]
        # Scan order: key order, a salted table's buckets merged by the key without the salt.
        width = xlang.module(table).KEY.salt_width()
        assert keys == sorted(keys, key=lambda k: (k[width:], k)), table
        assert len(rows) > 0, table
        for r in rows:
            parts = xlang.cls(table, "Key").decode(bytes.fromhex(r["key_hex"]))
            assert r["salt"] == parts.salt
    assert by_key(got) == want
    assert json.loads(run(dump, target)) == got, "dumps are stable"


def test_versions_read_back_newest_first(target):
    run("write-versions", target)
    got = json.loads(run("dump-versions", target))
    assert got == xlang.expected_versions()
    assert all(len(e["cells"]) == 3 for entries in got.values() for e in entries)


def test_an_unknown_command_fails_clearly(target):
    out = subprocess.run(
        [sys.executable, str(XLANG / "xlang.py"), "write-nothing", target[0], str(target[1])],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "unknown command write-nothing" in out.stderr
