"""The shared vectors (sdks/vectors/*.json, from the Rust reference) through the generated
Python code, byte for byte."""

import importlib
import json
import math
import struct
from pathlib import Path

import pytest

from redbase_examples import Filter, FilterError, KeyEncodingError, StartsWith, ValueEncodingError
from redbase_examples._runtime import keys as rk
from redbase_examples._runtime import values as rv

VECTORS = Path(__file__).resolve().parents[2] / "sdks" / "vectors"
KEYS = json.loads((VECTORS / "keys.json").read_text())
VALUES = json.loads((VECTORS / "values.json").read_text())
FILTERS = json.loads((VECTORS / "filters.json").read_text())
# Missing until the Rust reference writes it; test_bounds_vectors_cover_the_rules then fails.
BOUNDS = json.loads((VECTORS / "bounds.json").read_text()) if (VECTORS / "bounds.json").exists() else {}
MERGE = json.loads((VECTORS / "merge.json").read_text())


def module(table):
    return importlib.import_module(f"redbase_examples.{table}")


def type_name(table):
    return "".join(p.capitalize() for p in table.split("_"))


def from_json(ty, j):
    """A vector's JSON value as the Python value of type `ty` (docs/schema.md, Test vectors)."""
    if ty == "bytes":
        return bytes.fromhex(j)
    if ty in ("i64", "timestamp-ms", "counter"):
        return int(j)
    if ty == "f32":
        return struct.unpack(">f", bytes.fromhex(j))[0]
    if ty == "f64":
        return struct.unpack(">d", bytes.fromhex(j))[0]
    return j


def same(ty, a, b):
    """Equal as the vectors mean it: floats by their bits (NaN equals NaN)."""
    if ty in ("f32", "f64"):
        fmt = ">f" if ty == "f32" else ">d"
        return struct.pack(fmt, a) == struct.pack(fmt, b) or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def components(table, given):
    spec = module(table).KEY
    return {c.name: from_json(c.type, given[c.name]) for c in spec.components if c.name in given}


def key_class(table):
    return getattr(module(table), type_name(table) + "Key")


def test_every_example_table_has_vectors():
    tables = {v["table"] for v in KEYS["keys"]}
    for t in tables:
        assert module(t).KEY is not None
    assert len(KEYS["keys"]) > 100
    assert {"access_logs", "events", "device_events", "all_types", "fixed_orders"} <= tables


@pytest.mark.parametrize("v", KEYS["keys"], ids=lambda v: v["table"])
def test_key_vector(v):
    m = module(v["table"])
    key = key_class(v["table"])(**components(v["table"], v["components"]))
    raw = key.encode()
    assert raw.hex() == v["key_hex"]
    parts = key.decode(raw)
    want = v["decoded"]
    assert parts.salt == want["salt"]
    if isinstance(parts.hash, bytes):
        assert parts.hash.hex() == want["hash"]
    else:
        assert parts.hash == want["hash"]
    spec = {c.name: c for c in m.KEY.components}
    kept = [c.name for c in m.KEY.components if c.kept]
    assert sorted(kept) == sorted(want["components"])
    for name in kept:
        ty = spec[name].type
        assert same(ty, getattr(parts, name), from_json(ty, want["components"][name])), name
    assert rk.region_index(m.SPLITS, raw) == v["region"]


@pytest.mark.parametrize("v", KEYS["prefixes"], ids=lambda v: v["table"])
def test_prefix_vector(v):
    cls = key_class(v["table"])
    given = components(v["table"], v["components"])
    if v.get("error"):
        with pytest.raises(KeyEncodingError):
            cls.prefix(**given)
        return
    starts = [start.hex() for start, _ in cls.prefix(**given).ranges]
    assert starts == v["prefixes_hex"]


@pytest.mark.parametrize("v", KEYS["errors"], ids=lambda v: v["table"])
def test_error_vector(v):
    key = key_class(v["table"])(**components(v["table"], v["components"]))
    with pytest.raises(KeyEncodingError) as refused:
        key.encode()
    if "component" in v:  # the error names the component the reference refused
        assert f"component {v['component']}:" in str(refused.value)


@pytest.mark.parametrize("v", VALUES["values"], ids=lambda v: v["type"])
def test_value_vector(v):
    enc, dec = rv.CODECS[v["type"]]
    value = from_json(v["type"], v["value"])
    assert enc(value).hex() == v["hex"]
    back = dec(bytes.fromhex(v["hex"]))
    assert same(v["type"], back, value)


@pytest.mark.parametrize("v", VALUES["qualifiers"], ids=lambda v: v["field"])
def test_qualifier_vector(v):
    cols = getattr(module(v["table"]), type_name(v["table"]) + "Columns")
    col = getattr(cols, v["field"])
    q = col.qualifier(v["part"])
    assert q.hex() == v["qualifier_hex"]
    assert col.parse(q) == v["part"]


def test_seed_table_4_keys():
    from redbase_examples import AccessLogsKey

    assert AccessLogsKey("dave", "jericho", 201510).encode() == b"16108|jericho|201510"
    assert AccessLogsKey("elton", "jericho", 201510).encode() == b"d5fe7|jericho|201510"
    assert AccessLogsKey("fred", "jericho", 201510).encode() == b"570a9|jericho|201510"


def test_python_numbers_the_type_checker_allows():
    from redbase_examples import AllTypesKey, ValueEncodingError
    from redbase_examples._runtime.values import enc_f32, enc_f64

    whole = AllTypesKey("s", b"", 1, 2, 3, 4, 5)  # ints where floats are declared: PEP 484 allows it
    assert whole.encode() == AllTypesKey("s", b"", 1, 2, 3.0, 4.0, 5).encode()
    with pytest.raises(KeyEncodingError):
        AllTypesKey("s", b"", 1, 2, 1e300, 4.0, 5).encode()  # beyond f32
    with pytest.raises(KeyEncodingError):
        AllTypesKey("s", b"", True, 2, 3.0, 4.0, 5).encode()  # bool is not an i32
    with pytest.raises(ValueEncodingError):
        enc_f32(1e300)
    assert enc_f64(2) == struct.pack(">d", 2.0)


def test_an_empty_component_is_refused_unless_allowed():
    from redbase_examples import AccessLogsKey, WebPagesKey

    with pytest.raises(KeyEncodingError, match="component user_id: must not be empty"):
        AccessLogsKey("", "jericho", 201501).encode()
    with pytest.raises(KeyEncodingError, match="component system_id: must not be empty"):
        AccessLogsKey.prefix("dave", "")
    assert WebPagesKey("www.example.com", "").encode() == b"com.example.www|"


def operand(ty, j):
    """A filter vector's operand as the column's Python value; JSON the type cannot read (a
    wrong-type case) is passed through as is, for the builder to refuse."""
    try:
        return from_json(ty, j)
    except (ValueError, TypeError, AttributeError):
        return j


def build_filter(table, f):
    """A filter vector's F through the generated builder calls, as a developer writes them."""
    (kind, arg), = f.items()
    if kind == "value":
        col = getattr(getattr(module(table), type_name(table) + "Columns"), arg["column"])
        value = operand(col.type, arg["operand"])
        if hasattr(col, arg["op"]):
            return getattr(col, arg["op"])(value)  # BooksColumns.pages.ge(100)
        return Filter.value(col, arg["op"], value)  # pattern columns have no comparison methods
    if kind == "prefix":
        if any(isinstance(j, dict) for j in arg.values()):  # a starts-with: through Key.bounds
            order = [c.name for c in module(table).KEY.components]
            given = sorted(arg.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else -1)
            return Filter.prefix(key_class(table).bounds(**bound_args(table, given)))
        return Filter.prefix(key_class(table).prefix(**components(table, arg)))
    if kind == "page":
        return Filter.page(arg)
    if kind == "key_only":
        return Filter.key_only()
    if kind == "first_key_only":
        return Filter.first_key_only()
    if kind == "timestamps":
        return Filter.timestamps(*arg)
    if kind == "column_prefix":
        return Filter.column_prefix(bytes.fromhex(arg))
    if kind == "all":
        return Filter.all(*(build_filter(table, x) for x in arg))
    if kind == "any":
        return Filter.any(*(build_filter(table, x) for x in arg))
    raise AssertionError(f"unknown filter kind {kind}")


def test_filter_vectors_cover_every_kind():
    kinds = {next(iter(c["filter"])) for c in FILTERS["cases"]}
    assert kinds == {"value", "prefix", "page", "key_only", "first_key_only", "timestamps", "column_prefix", "all", "any"}
    assert FILTERS["format"] == 1 and FILTERS["package"] == "redbase_examples"


@pytest.mark.parametrize("v", FILTERS["cases"], ids=lambda v: f"{v['table']}: {v['name']}")
def test_filter_vector(v):
    if "error" in v:
        with pytest.raises((FilterError, KeyEncodingError, ValueEncodingError)) as refused:
            build_filter(v["table"], v["filter"])
        assert v["error"] in str(refused.value)
        return
    assert build_filter(v["table"], v["filter"]).render().hex() == v["bytes"]


def test_filter_operators_are_all_and_any():
    from redbase_examples import BooksColumns as B

    a, b, c = B.pages.ge(100), Filter.key_only(), Filter.page(3)
    assert (a & b).render() == Filter.all(a, b).render() == b"(" + a.render() + b") AND (KeyOnlyFilter())"
    assert (a | (b & c)).render() == b"(" + a.render() + b") OR ((KeyOnlyFilter()) AND (PageFilter(3)))"
    assert (a | b).strips_values and not a.strips_values, "rows under a key-only filter carry no values"
    with pytest.raises(FilterError, match="takes filters"):
        Filter.all(a, "PageFilter(1)")  # type: ignore[arg-type]


def bound_args(table, given):
    """A bounds vector's `given` as the keyword arguments of `Key.bounds`: values as the
    components' Python values, a {"low", "high"} object as a (low, high) tuple. JSON a type
    cannot read (a wrong-type case) is passed through as is, for the SDK to refuse."""
    types = {c.name: c.type for c in module(table).KEY.components}
    out = {}
    for name, j in given:
        ty = types.get(name, "string")
        if isinstance(j, dict) and set(j) == {"low", "high"}:
            out[name] = (operand(ty, j["low"]), operand(ty, j["high"]))
        elif isinstance(j, dict) and set(j) == {"starts_with"}:
            out[name] = StartsWith(j["starts_with"])
        else:
            out[name] = operand(ty, j)
    return out


def test_bounds_vectors_cover_the_rules():
    assert BOUNDS.get("format") == 1 and BOUNDS.get("package") == "redbase_examples", "sdks/vectors/bounds.json"
    cases = BOUNDS["cases"]
    assert any("error" in c for c in cases) and any("ranges" in c for c in cases)
    assert any(isinstance(j, dict) and "low" in j for c in cases for _, j in c["given"]), "some case gives a range"
    assert any(isinstance(j, dict) and "starts_with" in j for c in cases for _, j in c["given"]), "a starts-with"


@pytest.mark.parametrize("v", BOUNDS.get("cases", []), ids=lambda v: f"{v['table']}: {v['name']}")
def test_bounds_vector(v):
    bounds = key_class(v["table"]).bounds
    args = bound_args(v["table"], v["given"])
    if "error" in v:
        with pytest.raises(KeyEncodingError) as refused:
            bounds(**args)
        assert v["error"] in str(refused.value)
        return
    got = [[start.hex(), None if stop is None else stop.hex()] for start, stop in bounds(**args).ranges]
    assert got == v["ranges"]


def test_merge_vectors_cover_the_orders():
    cases = MERGE["cases"]
    assert MERGE["format"] == 1 and MERGE["package"] == "redbase_examples"
    assert {(c["reversed"], c["bucket_order"]) for c in cases} == {(False, False), (True, False), (False, True), (True, True)}
    assert {"tsdb", "events", "device_events"} <= {c["table"] for c in cases}


@pytest.mark.parametrize("v", MERGE["cases"], ids=lambda v: f"{v['table']}: {v['name']}")
def test_merge_vector(v):
    """The scan's own merge (`merge_rows`, what `Table.scan` runs over its bucket scanners) over
    each bucket's rows as its scanner returns them."""
    from redbase_examples._runtime.client import merge_rows

    spec = module(v["table"]).KEY
    assert spec.salt_width() == v["salt_width"]
    streams = [iter([(bytes.fromhex(h), i) for h in rows]) for i, rows in enumerate(v["buckets"])]
    got = merge_rows(streams, spec.salt_width(), reversed=v["reversed"], bucket_order=v["bucket_order"], limit=v["limit"])
    assert [row.hex() for row, _ in got] == v["rows"]
