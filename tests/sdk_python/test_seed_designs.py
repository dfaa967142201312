"""The seeds' key designs end to end against a real Thrift2 gateway: seed 003's OpenTSDB-style
`[salt][metric][Long.MAX_VALUE - ts][host]` (sdks/schemas/opentsdb.toml), read newest first
across its 8 salt buckets; seed 004's cloud-drive directory table keyed by the full (escaped)
path (sdks/schemas/cloud_drive.toml), read a subtree at a time."""

from redbase_examples import (
    DriveDirectoriesKey,
    DriveDirectoriesTable,
    DriveDirectoriesValues,
    Filter,
    StartsWith,
    TsdbKey,
    TsdbTable,
    TsdbValues,
)

NOW = 1_700_000_000_000
#: Seconds before NOW of each cpu.load point (hosts web0..web2 in turn).
AGES = [15, 31, 35, 4, 2, 9, 21, 50, 1, 12, 27, 44, 7, 3]


def points(tsdb):
    rows = [(TsdbKey("cpu.load", NOW - a * 1000, f"web{i % 3}"), TsdbValues(value=float(a))) for i, a in enumerate(AGES)]
    rows += [(TsdbKey("mem.used", NOW - a * 1000, "web0"), TsdbValues(value=-1.0)) for a in (0, 5)]
    rows += [(TsdbKey("cpu.loadx", NOW, "web0"), TsdbValues(value=-2.0))]
    tsdb.put_many(rows)
    return sorted((NOW - a * 1000 for a in AGES), reverse=True)


def test_the_newest_points_of_a_metric_across_every_bucket(fresh):
    tsdb = fresh(TsdbTable)
    newest_first = points(tsdb)
    every = list(tsdb.scan(metric="cpu.load"))
    assert [r.key.ts for r in every] == newest_first
    assert len({r.key.salt for r in every}) > 1, "the points are spread over several buckets"
    three = list(tsdb.scan(metric="cpu.load", limit=3))
    assert [r.key.ts for r in three] == newest_first[:3] == [NOW - 1000, NOW - 2000, NOW - 3000]
    assert [r.values.value for r in three] == [1.0, 2.0, 3.0]
    window = [r.key.ts for r in tsdb.scan(metric="cpu.load", ts=(NOW - 10_000, NOW))]
    assert window == [t for t in newest_first if t >= NOW - 10_000], "a range means its values"
    assert window[0] == NOW - 1000
    oldest = [r.key.ts for r in tsdb.scan(metric="cpu.load", reversed=True, limit=2)]
    assert oldest == [NOW - 50_000, NOW - 44_000]
    assert [r.key.metric for r in tsdb.scan(limit=20)][-3:] == ["cpu.loadx", "mem.used", "mem.used"]


def test_bucket_order_is_an_explicit_option(fresh):
    tsdb = fresh(TsdbTable)
    newest_first = points(tsdb)
    rows = list(tsdb.scan(metric="cpu.load", bucket_order=True))
    salts = [r.key.salt for r in rows]
    assert salts == sorted(salts), "one bucket after the other"
    assert sorted((r.key.ts for r in rows), reverse=True) == newest_first
    for b in set(salts):
        in_bucket = [r.key.ts for r in rows if r.key.salt == b]
        assert in_bucket == sorted(in_bucket, reverse=True), "each bucket newest first"
    first = rows[0].key.salt
    assert [r.key.salt for r in tsdb.scan(metric="cpu.load", bucket_order=True, limit=1)] == [first]


def test_a_metric_prefix_across_every_bucket(fresh):
    tsdb = fresh(TsdbTable)
    newest_first = points(tsdb)
    cpu = list(tsdb.scan(metric=StartsWith("cpu.")))
    assert [(r.key.metric, r.key.ts) for r in cpu] == [("cpu.load", t) for t in newest_first] + [("cpu.loadx", NOW)]
    assert [r.key.ts for r in tsdb.scan(metric=StartsWith("cpu."), limit=3)] == newest_first[:3]
    as_filter = Filter.prefix(TsdbKey.bounds(metric=StartsWith("cpu.")))
    assert [r.row_key for r in tsdb.scan(filter=as_filter)] == [r.row_key for r in cpu]


#: Seed 004's directories; `|` is the key's separator and `\` its escape, so both are escaped in
#: the keys, and `/dir10` shares the text `/dir1` without being under it.
PATHS = ["/", "/dir1", "/dir1/dir2", "/dir1/dir2/dir4", "/dir1/dir3", "/dir1/a|b", "/dir10", "/dir1|odd", "/dir1\\x", "/dir2"]


def directories(fresh):
    dirs = fresh(DriveDirectoriesTable)
    dirs.put_many(
        (DriveDirectoriesKey(p), DriveDirectoriesValues(creator="tom", children={f"d_{i}": "1"})) for i, p in enumerate(PATHS)
    )
    return dirs


def under(prefix):
    """The paths starting with `prefix`, in key order (escaped bytes)."""
    return sorted((p for p in PATHS if p.startswith(prefix)), key=lambda p: DriveDirectoriesKey(p).encode())


def test_a_subtree_of_escaped_paths(fresh):
    dirs = directories(fresh)
    sub = [r.key.path for r in dirs.scan(path=StartsWith("/dir1/"))]
    assert sub == under("/dir1/") == ["/dir1/a|b", "/dir1/dir2", "/dir1/dir2/dir4", "/dir1/dir3"]
    for prefix in ("/dir1", "/dir1|", "/dir1\\", "/dir1/dir2", "/", "", "/nothing"):
        assert [r.key.path for r in dirs.scan(path=StartsWith(prefix))] == under(prefix), prefix
    assert [r.key.path for r in dirs.scan(path=StartsWith("/dir1/"), reversed=True, limit=2)] == ["/dir1/dir3", "/dir1/dir2/dir4"]
    as_filter = Filter.prefix(DriveDirectoriesKey.bounds(path=StartsWith("/dir1/")))
    assert [r.key.path for r in dirs.scan(filter=as_filter)] == sub, "the same subtree as a server-side PrefixFilter"
    rows = list(dirs.scan(path=StartsWith("/dir1|")))
    assert [(r.key.path, r.values.creator) for r in rows] == [("/dir1|odd", "tom")]
