"""easybase (PyPI, a Thrift2 client) unmodified against redbase.

easybase's `Table.families()` reads each family's settings from
`TColumnFamilyDescriptor.attributes`, which HBase fills with the family's whole values map,
defaults included. The expected maps below are what Apache HBase 2.6.1 answered for the same
families (tests/oracle/scenarios/t2_family_attributes.json compares them live).
"""

import easybase
import pytest

from t2_util import T

# HBase 2.6.1's values map of a family created with nothing but its name.
DEFAULT_FAMILY = {
    "BLOCKCACHE": "true",
    "BLOCKSIZE": "65536",
    "BLOOMFILTER": "ROW",
    "COMPRESSION": "NONE",
    "DATA_BLOCK_ENCODING": "NONE",
    "INDEX_BLOCK_ENCODING": "NONE",
    "IN_MEMORY": "false",
    "KEEP_DELETED_CELLS": "FALSE",
    "MIN_VERSIONS": "0",
    "REPLICATION_SCOPE": "0",
    "TTL": "2147483647",
    "VERSIONS": "1",
}


@pytest.fixture
def conn(server):
    c = easybase.Connection(server.host, server.port2)
    yield c
    c.close()


def test_families_returns_hbases_values_map(conn, table_name):
    conn.create_table(
        table_name,
        {
            "d": {},
            "x": {"max_versions": 3, "time_to_live": 100, "in_memory": True, "block_size": 8192},
        },
    )
    fams = conn.table(table_name).families()
    assert fams["d"] == DEFAULT_FAMILY
    assert fams["x"] == {
        **DEFAULT_FAMILY,
        "VERSIONS": "3",
        "TTL": "100",
        "IN_MEMORY": "true",
        "BLOCKSIZE": "8192",
    }


def test_values_map_follows_modify_and_optional_keys(server, conn, table_name):
    """Keys HBase shows only once set appear once set, even at their default value; a later
    modify shows the new settings."""
    c = server.client()
    try:
        tn = T.TTableName(ns=b"default", qualifier=table_name.encode())
        c.createTable(
            T.TTableDescriptor(
                tableName=tn,
                columns=[T.TColumnFamilyDescriptor(name=b"y", dfsReplication=0, compressTags=True,
                                                   keepDeletedCells=2, bloomnFilterType=2)],
            ),
            None,
        )
        assert conn.table(table_name).families()["y"] == {
            **DEFAULT_FAMILY,
            "BLOOMFILTER": "ROWCOL",
            "COMPRESS_TAGS": "true",
            "DFS_REPLICATION": "0",
            "KEEP_DELETED_CELLS": "TTL",
        }
        c.modifyColumnFamily(tn, T.TColumnFamilyDescriptor(name=b"y", maxVersions=7,
                                                           attributes={b"OWNER": b"me"}))
        assert conn.table(table_name).families()["y"] == {
            **DEFAULT_FAMILY,
            "VERSIONS": "7",
            "OWNER": "me",
        }
        # A well-known key sent in the attribute map sets the setting, as in HBase.
        c.modifyColumnFamily(tn, T.TColumnFamilyDescriptor(name=b"y",
                                                           attributes={b"VERSIONS": b"4"}))
        d = c.getTableDescriptor(tn)
        assert d.columns[0].maxVersions == 4
        assert d.attributes[b"IS_META"] == b"false"
    finally:
        c.close()
