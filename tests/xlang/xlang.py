"""The Python side of the cross-language test (tests/xlang/README.md), through the generated
SDK only:

    python3 tests/xlang/xlang.py write HOST PORT            # (re)create the tables, write the rows
    python3 tests/xlang/xlang.py dump HOST PORT             # print every table's rows as canonical JSON
    python3 tests/xlang/xlang.py write-versions HOST PORT   # timestamped puts of `versions`
    python3 tests/xlang/xlang.py dump-versions HOST PORT    # each entry read back with versions=3
    python3 tests/xlang/xlang.py write-batch HOST PORT      # put_many, delete_many, increment_many
    python3 tests/xlang/xlang.py dump-batch HOST PORT       # the `batches` tables, as `dump`

Needs sdks/python on PYTHONPATH.
"""

import importlib
import json
import os
import struct
import sys
from dataclasses import fields
from pathlib import Path

from redbase_examples import Connection

DATASET = json.loads((Path(__file__).resolve().parent / "dataset.json").read_text())

#: Table names get this prefix (default none, as every language's tool uses the schema's names;
#: tests/sdk_python sets `py_` so its own run never touches another suite's tables).
PREFIX = os.environ.get("XLANG_TABLE_PREFIX", "")


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


def open_table(conn, table):
    t = cls(table, "Table")
    return t(conn, name=PREFIX + t.definition.name) if PREFIX else t(conn)


def recreate(conn, table):
    t = open_table(conn, table)
    if t.exists():
        t.drop()
    t.create()
    return t


def values_of(table, given):
    """The table's Values dataclass from a row's vector-JSON values."""
    cols = columns(table)
    values = cls(table, "Values")()
    for name, j in given.items():
        ty, part = cols[name]
        if part is None:
            setattr(values, name, from_json(ty, j))
        else:
            getattr(values, name).update({(p if part == "string" else int(p)): from_json(ty, v) for p, v in j.items()})
    return values


def write(conn):
    for table, data in DATASET["tables"].items():
        t = recreate(conn, table)
        cols = columns(table)
        for row in data.get("rows", []):
            t.put(key_of(table, row["key"]), values_of(table, row["values"]))
        for inc in data.get("increments", []):
            k = key_of(table, inc["key"])
            method = getattr(t, "increment_" + inc["field"])
            if "part" in inc:
                ty, part = cols[inc["field"]]
                method(k, inc["part"] if part == "string" else int(inc["part"]), int(inc["amount"]))
            else:
                method(k, int(inc["amount"]))


def write_versions(conn):
    """One put per cell, each with its explicit timestamp, in the listed order."""
    for table, entries in DATASET["versions"].items():
        t = recreate(conn, table)
        for e in entries:
            for c in e["cells"]:
                values = values_of(table, {e["field"]: c["value"]})
                t.put(key_of(table, e["key"]), values, timestamp=int(c["timestamp"]))


def dump_versions(conn):
    """{table: [{key_hex, field, cells: [{timestamp, value}]}]}: every version, newest first."""
    out = {}
    for table in sorted(DATASET["versions"]):
        t = open_table(conn, table)
        cols = columns(table)
        entries = []
        for e in DATASET["versions"][table]:
            key = key_of(table, e["key"])
            row = t.get(key, versions=3)
            ty, _ = cols[e["field"]]
            cells = getattr(row.versions, e["field"]) if row is not None else []
            entries.append(
                {
                    "key_hex": key.encode().hex(),
                    "field": e["field"],
                    "cells": [{"timestamp": str(ts), "value": to_json(ty, v)} for ts, v in cells],
                }
            )
        out[table] = entries
    return out


def write_batch(conn):
    """Per table: one put_many, one delete_many, one increment_many."""
    for table, data in DATASET["batches"].items():
        t = recreate(conn, table)
        t.put_many([(key_of(table, r["key"]), values_of(table, r["values"])) for r in data["rows"]])
        t.delete_many([key_of(table, k) for k in data["deletes"]])
        col = cls(table, "Columns")
        t.increment_many(
            [
                (key_of(table, inc["key"]), {getattr(col, f): int(a) for f, a in inc["counters"].items()})
                for inc in data["increments"]
            ]
        )


def dump(conn, tables=None):
    """{table: [{key_hex, salt, hash, key: {...}, values: {...}}]}, rows in key order."""
    out = {}
    for table in sorted(tables or DATASET["tables"]):
        spec = {c.name: c.type for c in module(table).KEY.components}
        cols = columns(table)
        rows = []
        for r in open_table(conn, table).scan():
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


def _add(vals, field, amount):
    vals[field] = str(int(vals.get(field, "0")) + amount)


def expected_rows():
    """table -> {key_hex: values} that `tables` implies (puts merged per key, increments summed)."""
    out = {}
    for table, data in DATASET["tables"].items():
        rows = {}
        cols = columns(table)
        for row in data.get("rows", []):
            rows.setdefault(key_of(table, row["key"]).encode().hex(), {}).update(row["values"])
        for inc in data.get("increments", []):
            vals = rows.setdefault(key_of(table, inc["key"]).encode().hex(), {})
            if "part" in inc:
                ty, part = cols[inc["field"]]
                col = getattr(cls(table, "Columns"), inc["field"])
                text = col.part_text(inc["part"] if part == "string" else int(inc["part"]))
                _add(vals.setdefault(inc["field"], {}), text, int(inc["amount"]))
            else:
                _add(vals, inc["field"], int(inc["amount"]))
        out[table] = rows
    return out


def expected_versions():
    """What dump-versions must print: each entry's cells sorted newest first."""
    return {
        table: [
            {
                "key_hex": key_of(table, e["key"]).encode().hex(),
                "field": e["field"],
                "cells": sorted(e["cells"], key=lambda c: -int(c["timestamp"])),
            }
            for e in entries
        ]
        for table, entries in DATASET["versions"].items()
    }


def expected_batches():
    """table -> {key_hex: values} that `batches` implies: rows, minus deletes, plus increments."""
    out = {}
    for table, data in DATASET["batches"].items():
        rows = {}
        for row in data["rows"]:
            rows.setdefault(key_of(table, row["key"]).encode().hex(), {}).update(row["values"])
        for k in data["deletes"]:
            rows.pop(key_of(table, k).encode().hex(), None)
        for inc in data["increments"]:
            vals = rows.setdefault(key_of(table, inc["key"]).encode().hex(), {})
            for f, a in inc["counters"].items():
                _add(vals, f, int(a))
        out[table] = rows
    return out


COMMANDS = {
    "write": write,
    "dump": dump,
    "write-versions": write_versions,
    "dump-versions": dump_versions,
    "write-batch": write_batch,
    "dump-batch": lambda conn: dump(conn, DATASET["batches"]),
}


def main(argv):
    if len(argv) != 4 or argv[1] not in COMMANDS:
        what = f"unknown command {argv[1]}" if len(argv) > 1 else "no command"
        print(f"xlang.py: {what}\n{__doc__}", file=sys.stderr)
        return 2
    with Connection(argv[2], int(argv[3])) as conn:
        out = COMMANDS[argv[1]](conn)
        if argv[1].startswith("dump"):
            print(json.dumps(out, sort_keys=True, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
