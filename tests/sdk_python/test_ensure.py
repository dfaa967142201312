"""`Table.ensure()` at start-up against a real Thrift2 gateway: it creates a missing table, adds
missing families and sets drifted family settings as the schema says, and raises
SchemaDriftError, listing every such difference, for what it will not fix (a family the schema
lacks, other split points)."""

import pytest

from redbase_examples import (
    AccessLogsTable,
    EventsTable,
    SchemaDriftError,
    SocialUsageTable,
)
from redbase_examples._thrift.hbase2 import ttypes as tt


def tname(table):
    d = table.definition
    return tt.TTableName(ns=d.namespace.encode(), qualifier=d.name.encode())


def family(table, name):
    desc = table._t._call("getTableDescriptor", tname(table))
    return next((c for c in desc.columns if bytes(c.name) == name), None)


@pytest.fixture
def missing(conn, named):
    """`missing(TableClass)`: the suite's copy of a table, dropped if it exists (and after)."""
    made = []

    def make(cls):
        t = named(cls, conn)
        if t.exists():
            t.drop()
        made.append(t)
        return t

    yield make
    for t in made:
        if t.exists():
            t.drop()


def test_ensure_creates_a_missing_table_then_changes_nothing(missing):
    logs = missing(AccessLogsTable)
    assert logs.ensure() == [f"default:{logs.definition.name}: created the table with its families and split keys"]
    assert len(logs.region_starts()) == 16
    assert logs.ensure() == []


def test_ensure_sets_drifted_settings_and_adds_missing_families(missing):
    social = missing(SocialUsageTable)
    social.ensure()
    c = social._t
    drifted = family(social, b"fb")
    drifted.maxVersions, drifted.timeToLive, drifted.attributes = 7, 60, None
    c._call("modifyColumnFamily", tname(social), drifted)
    c._call("deleteColumnFamily", tname(social), b"tw")
    name = social.definition.name
    assert social.ensure() == [
        f"default:{name}: family fb: VERSIONS was 7, set to 1",
        f"default:{name}: family fb: TTL was 60, set to FOREVER",
        f"default:{name}: added family tw",
    ]
    assert (family(social, b"fb").maxVersions, family(social, b"fb").timeToLive) == (1, (1 << 31) - 1)
    assert family(social, b"tw") is not None
    assert social.ensure() == []


def test_ensure_refuses_to_drop_a_family_or_resplit(missing):
    logs = missing(AccessLogsTable)
    logs.ensure()
    logs._t._call("addColumnFamily", tname(logs), tt.TColumnFamilyDescriptor(name=b"x"))
    t = family(logs, b"t")
    t.maxVersions, t.attributes = 1, None
    logs._t._call("modifyColumnFamily", tname(logs), t)
    with pytest.raises(SchemaDriftError) as refused:
        logs.ensure()
    assert refused.value.drifts == ["extra family x (not in the schema)"]
    assert "--allow-drop" in str(refused.value)
    assert family(logs, b"t").maxVersions == 3, "what it may fix is fixed all the same"
    assert family(logs, b"x") is not None, "nothing is deleted"

    events = missing(EventsTable)
    desc = tt.TTableDescriptor(tableName=tname(events), columns=[tt.TColumnFamilyDescriptor(name=b"e")])
    events._t._call("createTable", desc, [b"m"])
    with pytest.raises(SchemaDriftError, match=r"split points are \['m'\], the schema says \['b', 'c', 'd'\]"):
        events.ensure()
