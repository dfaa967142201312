"""The Python side of tests/xlang: `write` then `dump` through the generated SDK gives exactly
the rows dataset.json implies (puts merged per key, increments summed)."""

import json
import os
import subprocess
import sys
from pathlib import Path

XLANG = Path(__file__).resolve().parents[1] / "xlang"


def run(cmd, target):
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, str(XLANG / "xlang.py"), cmd, target[0], str(target[1])],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def expected(xlang):
    """table → {key_hex: values} from the dataset alone."""
    out = {}
    for table, data in xlang.DATASET["tables"].items():
        rows = {}
        cols = xlang.columns(table)
        for row in data.get("rows", []):
            k = xlang.key_of(table, row["key"]).encode().hex()
            rows.setdefault(k, {}).update(row["values"])
        for inc in data.get("increments", []):
            k = xlang.key_of(table, inc["key"]).encode().hex()
            vals = rows.setdefault(k, {})
            if "part" in inc:
                ty, part = cols[inc["field"]]
                col = getattr(xlang.cls(table, "Columns"), inc["field"])
                p = inc["part"] if part == "string" else int(inc["part"])
                m = vals.setdefault(inc["field"], {})
                text = col.part_text(p)
                m[text] = str(int(m.get(text, "0")) + int(inc["amount"]))
            else:
                vals[inc["field"]] = str(int(vals.get(inc["field"], "0")) + int(inc["amount"]))
        out[table] = rows
    return out


def test_write_then_dump_matches_the_dataset(target):
    sys.path.insert(0, str(XLANG))
    import xlang

    run("write", target)
    dump = json.loads(run("dump", target))
    want = expected(xlang)
    assert sorted(dump) == sorted(want)
    for table, rows in dump.items():
        keys = [r["key_hex"] for r in rows]
        assert keys == sorted(keys), table
        assert {r["key_hex"]: r["values"] for r in rows} == want[table], table
        for r in rows:
            parts = xlang.cls(table, "Key").decode(bytes.fromhex(r["key_hex"]))
            assert r["salt"] == parts.salt
    assert json.loads(run("dump", target)) == dump, "dumps are stable"
