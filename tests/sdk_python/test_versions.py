"""Versions and timestamps end to end on the access-logs table (family `t` keeps 3 versions):
explicit write timestamps, reads of several versions, a time range or one timestamp, each
cell's timestamp on the row, deletes up to a timestamp, and column selection."""

import pytest

from redbase_examples import (
    AccessLogsColumns,
    AccessLogsKey,
    AccessLogsTable,
    AccessLogsValues,
    AccessLogsVersions,
    VersionedCell,
)

T1, T2, T3, T4 = 1_445_000_000_000, 1_445_000_001_000, 1_445_000_002_000, 1_445_000_003_000
KEY = AccessLogsKey("dave", "jericho", 201510)


@pytest.fixture
def logs(fresh):
    t = fresh(AccessLogsTable)
    for ts, seen in ((T2, 200), (T1, 100), (T3, 300)):  # out of order on purpose
        t.put(KEY, AccessLogsValues(last_seen=seen), timestamp=ts)
    return t


def test_three_versions_newest_first_with_their_timestamps(logs):
    row = logs.get(KEY, versions=3)
    assert row is not None
    assert row.versions.last_seen == [(T3, 300), (T2, 200), (T1, 100)]
    assert row.values.last_seen == 300, "values hold the newest version"
    assert row.cells == (
        VersionedCell(b"t", b"l", (300).to_bytes(8, "big"), T3),
        VersionedCell(b"t", b"l", (200).to_bytes(8, "big"), T2),
        VersionedCell(b"t", b"l", (100).to_bytes(8, "big"), T1),
    )


def test_default_read_is_the_newest_version(logs):
    row = logs.get(KEY)
    assert row is not None
    assert row.versions == AccessLogsVersions(last_seen=[(T3, 300)])
    assert [c.timestamp for c in row.cells] == [T3]


def test_at_reads_exactly_one_timestamp(logs):
    row = logs.get(KEY, at=T2)
    assert row is not None and row.values.last_seen == 200 and row.versions.last_seen == [(T2, 200)]
    assert logs.get(KEY, at=T2 + 1) is None


def test_time_range_is_min_inclusive_max_exclusive(logs):
    row = logs.get(KEY, versions=3, time_range=(T1, T3))
    assert row is not None and row.versions.last_seen == [(T2, 200), (T1, 100)]
    row = logs.get(KEY, time_range=(T1, T3))
    assert row is not None and row.versions.last_seen == [(T2, 200)], "one version by default"
    assert logs.get(KEY, time_range=(0, T1)) is None


def test_the_family_keeps_three_versions(logs):
    logs.put(KEY, AccessLogsValues(last_seen=400), timestamp=T4)
    row = logs.get(KEY, versions=10)
    assert row is not None and row.versions.last_seen == [(T4, 400), (T3, 300), (T2, 200)]


def test_delete_with_a_timestamp_removes_versions_at_or_before_it(logs):
    logs.delete(KEY, timestamp=T2)
    row = logs.get(KEY, versions=3)
    assert row is not None and row.versions.last_seen == [(T3, 300)]
    logs.delete(KEY)
    assert logs.get(KEY, versions=3) is None


def test_counter_versions_and_column_selection(logs):
    logs.put(KEY, AccessLogsValues(hits=5), timestamp=T1)
    logs.put(KEY, AccessLogsValues(hits=6), timestamp=T2)
    row = logs.get(KEY, versions=3, columns=[AccessLogsColumns.hits])
    assert row is not None
    assert row.versions.hits == [(T2, 6), (T1, 5)] and row.versions.last_seen == []
    assert row.values.last_seen is None
    row = logs.get(KEY, versions=2, columns=["t"])
    assert row is not None and len(row.versions.hits) == 2 and len(row.versions.last_seen) == 2


def test_scans_read_versions_and_time_ranges(logs):
    other = AccessLogsKey("elton", "jericho", 201510)
    logs.put(other, AccessLogsValues(last_seen=1), timestamp=T1)
    rows = list(logs.scan(versions=3))
    by_user = {r.row_key: r.versions.last_seen for r in rows}
    assert by_user == {KEY.encode(): [(T3, 300), (T2, 200), (T1, 100)], other.encode(): [(T1, 1)]}
    rows = list(logs.scan(versions=3, time_range=(T2, T4)))
    assert [(r.row_key, r.versions.last_seen) for r in rows] == [(KEY.encode(), [(T3, 300), (T2, 200)])]


def test_bad_read_options_are_refused(logs):
    with pytest.raises(ValueError, match="either `at` or `time_range`"):
        logs.get(KEY, at=T1, time_range=(T1, T2))
    with pytest.raises(ValueError, match="versions"):
        logs.get(KEY, versions=0)
    with pytest.raises(ValueError, match="start is after the end"):
        logs.get(KEY, time_range=(T2, T1))
    with pytest.raises(ValueError, match="timestamp"):
        logs.put(KEY, AccessLogsValues(hits=1), timestamp=-1)
    with pytest.raises(ValueError, match="versions"):
        list(logs.scan(versions=-2))
