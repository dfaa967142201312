"""The Python side of the cross-language test (tests/xlang/README.md), through the generated
SDK only:

    python3 tests/xlang/xlang.py write HOST PORT   # (re)create the tables, write dataset.json
    python3 tests/xlang/xlang.py dump HOST PORT    # print every table's rows as canonical JSON

Needs sdks/python on PYTHONPATH.
"""

import importlib
import json
import struct
import sys
from dataclasses import fields
from pathlib import Path

from redbase_examples import Connection

DATASET = json.loads((Path(__file__).resolve().parent / "dataset.json").read_text())


def module(table):
    return importlib.import_module(f"redbase_examples.{table}")


def cls(table, suffix):
    return getattr(module(table), "".join(p.capitalize() for p in table.split("_")) + suffix)


def from_json(ty, j):
    if ty == "bytes":
        return bytes.fromhex(j)
    if ty in ("i64", "timestamp-ms", "counter"):
        return int(j)
    if ty == "f32":
        return struct.unpack(">f", bytes.fromhex(j))[0]
    if ty == "f64":
        return struct.unpack(">d", bytes.fromhex(j))[0]
    return j


def to_json(ty, v):
    if ty == "bytes":
        return v.hex()
    if ty in ("i64", "timestamp-ms", "counter"):
        return str(v)
    if ty == "f32":
        return struct.pack(">f", v).hex()
    if ty == "f64":
        return struct.pack(">d", v).hex()
    return v


def columns(table):
    """field name → (value type, part type or None), from the generated column descriptors."""
    out = {}
    for name, col in vars(cls(table, "Columns")).items():
        if not name.startswith("_"):
            out[name] = (col.type, getattr(col, "part_type", None))
    return out


def key_of(table, given):
    spec = module(table).KEY
    return cls(table, "Key")(**{c.name: from_json(c.type, given[c.name]) for c in spec.components})


def write(conn):
    for table, data in DATASET["tables"].items():
        t = cls(table, "Table")(conn)
        if t.exists():
            t.drop()
        t.create()
        cols = columns(table)
        for row in data.get("rows", []):
            values = cls(table, "Values")()
            for name, j in row["values"].items():
                ty, part = cols[name]
                if part is None:
                    setattr(values, name, from_json(ty, j))
                else:
                    getattr(values, name).update(
                        {(p if part == "string" else int(p)): from_json(ty, v) for p, v in j.items()}
                    )
            t.put(key_of(table, row["key"]), values)
        for inc in data.get("increments", []):
            k = key_of(table, inc["key"])
            method = getattr(t, "increment_" + inc["field"])
            if "part" in inc:
                ty, part = cols[inc["field"]]
                method(k, inc["part"] if part == "string" else int(inc["part"]), int(inc["amount"]))
            else:
                method(k, int(inc["amount"]))


def dump(conn):
    """{table: [{key_hex, salt, hash, key: {...}, values: {...}}]}, rows in key order."""
    out = {}
    for table in sorted(DATASET["tables"]):
        spec = {c.name: c.type for c in module(table).KEY.components}
        cols = columns(table)
        rows = []
        for r in cls(table, "Table")(conn).scan():
            values = {}
            for f in fields(r.values):
                v = getattr(r.values, f.name)
                ty, part = cols[f.name]
                if part is None and v is not None:
                    values[f.name] = to_json(ty, v)
                elif part is not None and v:
                    text = getattr(cls(table, "Columns"), f.name).part_text
                    values[f.name] = {text(p): to_json(ty, x) for p, x in v.items()}
            h = r.key.hash
            rows.append(
                {
                    "key_hex": r.row_key.hex(),
                    "salt": r.key.salt,
                    "hash": h.hex() if isinstance(h, bytes) else h,
                    "key": {
                        f.name: to_json(spec[f.name], getattr(r.key, f.name))
                        for f in fields(r.key)
                        if f.name not in ("salt", "hash")
                    },
                    "values": values,
                }
            )
        out[table] = rows
    return out


def main(argv):
    if len(argv) != 4 or argv[1] not in ("write", "dump"):
        print(__doc__, file=sys.stderr)
        return 2
    with Connection(argv[2], int(argv[3])) as conn:
        if argv[1] == "write":
            write(conn)
        else:
            print(json.dumps(dump(conn), sort_keys=True, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
