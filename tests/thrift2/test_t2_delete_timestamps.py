"""Which timestamp a Thrift2 TDelete uses, as HBase 2.6's ThriftUtilities.deleteFromThrift does.

HBase builds `new Delete(row, TDelete.timestamp)` only when the TDelete lists no columns. With
columns it builds `new Delete(row)` and uses each TColumn's own timestamp: TDelete.timestamp is
then ignored, and DELETE_FAMILY_VERSION without a TColumn.timestamp is an
IllegalArgumentException (a TApplicationException for the client). Transport-independent, so
these run once (buffered, binary).
"""

import pytest
from thriftpy2.thrift import TApplicationException

from t2_util import T, col, create_table, cv, put, versions

Del = T.TDeleteType


@pytest.fixture
def table(client, table_name):
    t = create_table(client, table_name, ("f", "g"), maxVersions=5)
    for ts in (10, 20, 30):
        put(client, t, b"r", [cv(b"f", b"a", f"v{ts}".encode(), ts)])
    return t


def all_versions(client, table):
    return versions(client.get(table, T.TGet(row=b"r", maxVersions=5)))


def test_row_delete_uses_tdelete_timestamp(client, table):
    client.deleteSingle(table, T.TDelete(row=b"r", timestamp=20))
    assert all_versions(client, table) == [(b"v30", 30)]


def test_column_timestamp_is_used_for_listed_columns(client, table):
    client.deleteSingle(
        table, T.TDelete(row=b"r", columns=[col(b"f", b"a", ts=20)], deleteType=Del.DELETE_COLUMNS)
    )
    assert all_versions(client, table) == [(b"v30", 30)]


def test_tdelete_timestamp_is_ignored_when_columns_are_listed(client, table):
    # DELETE_COLUMNS without a TColumn timestamp: every version goes, whatever TDelete.timestamp.
    client.deleteSingle(
        table,
        T.TDelete(row=b"r", columns=[col(b"f", b"a")], timestamp=20, deleteType=Del.DELETE_COLUMNS),
    )
    assert all_versions(client, table) == []


def test_delete_family_version_needs_the_column_timestamp(client, table):
    # TDelete.timestamp does not stand in for the TColumn's: HBase refuses the delete.
    with pytest.raises((TApplicationException, T.TIOError)):
        client.deleteSingle(
            table,
            T.TDelete(
                row=b"r", columns=[col(b"f")], timestamp=20, deleteType=Del.DELETE_FAMILY_VERSION
            ),
        )
    assert all_versions(client, table) == [(b"v30", 30), (b"v20", 20), (b"v10", 10)]
