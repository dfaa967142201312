"""PyPI `starbase` (a Stargate client) against redbase through its own API: tables and schemas,
inserts and updates, fetches with versions and columns, scanners with filters, removes."""

import json

from starbase import Connection


def test_tables_rows_and_scanners(server):
    c = Connection(host="127.0.0.1", port=server.http_port)
    assert "2.6.1" in json.dumps(c.cluster_version)
    t = c.table("sb_t")
    assert not t.exists()
    t.create("cf", "cg")
    assert t.exists()
    assert sorted(t.columns()) == ["cf", "cg"]
    assert "sb_t" in c.tables()

    t.insert("r1", {"cf": {"a": "1", "b": "2"}, "cg": {"x": "y"}})
    t.insert("r2", {"cf": {"a": "3"}})
    t.update("r1", {"cf": {"a": "one"}})
    assert t.fetch("r1") == {"cf": {"a": "one", "b": "2"}, "cg": {"x": "y"}}
    assert t.fetch("r1", columns=["cg"]) == {"cg": {"x": "y"}}
    assert t.fetch("r1", columns={"cf": ["b"]}) == {"cf": {"b": "2"}}
    versions = t.fetch("r1", columns={"cf": ["a"]}, number_of_versions=2, perfect_dict=False)
    assert versions is not None

    rows = list(t.fetch_all_rows(with_row_id=True))
    assert [list(r.keys())[0] for r in rows] == ["r1", "r2"]
    only_r2 = (
        '{"type": "RowFilter", "op": "EQUAL", "comparator": '
        '{"type": "RegexStringComparator", "value": "^r2$"}}'
    )
    rows = list(t.fetch_all_rows(with_row_id=True, filter_string=only_r2))
    assert [list(r.keys())[0] for r in rows] == ["r2"]

    b = t.batch()
    for i in range(5):
        b.insert(f"b{i}", {"cf": {"n": str(i)}})
    b.commit(finalize=True)
    assert t.fetch("b3") == {"cf": {"n": "3"}}

    t.remove("r1", "cg")
    assert t.fetch("r1") == {"cf": {"a": "one", "b": "2"}}
    t.remove("r1")
    assert t.fetch("r1") is None

    t.add_columns("ch")
    assert sorted(t.columns()) == ["cf", "cg", "ch"]
    t.drop()
    assert not t.exists()
