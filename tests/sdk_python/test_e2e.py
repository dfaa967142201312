"""The generated SDK end to end against a real Thrift2 gateway: tables created from the schema
with their split keys, typed rows written and read back, prefix and range scans in key order,
salted scans merged by the key without the salt, exact counters under threads, check-and-put, deletes."""

import threading

import pytest

import typed_example
from redbase_examples import (
    Connection,
    AccessLogsByUserKey,
    AccessLogsByUserTable,
    AccessLogsByUserValues,
    AccessLogsKey,
    AccessLogsTable,
    AccessLogsValues,
    AllTypesKey,
    AllTypesTable,
    AllTypesValues,
    BooksColumns,
    BooksKey,
    BooksTable,
    BooksValues,
    CountersKey,
    CountersTable,
    DeviceEventsKey,
    DeviceEventsTable,
    DeviceEventsValues,
    DriveDirectoriesKey,
    DriveDirectoriesTable,
    DriveDirectoriesValues,
    DriveFilesKey,
    DriveFilesTable,
    DriveFilesValues,
    EventsKey,
    EventsTable,
    EventsValues,
    FixedOrdersKey,
    FixedOrdersTable,
    FixedOrdersValues,
    KeyEncodingError,
    LeaderboardKey,
    LeaderboardTable,
    LeaderboardValues,
    MetricsKey,
    MetricsTable,
    MetricsValues,
    SensorReadingsKey,
    SensorReadingsTable,
    SensorReadingsValues,
    SocialUsageKey,
    SocialUsageTable,
    SocialUsageValues,
    WebPagesKey,
    WebPagesTable,
    WebPagesValues,
)
from redbase_examples._runtime.keys import region_index


def test_tables_are_created_with_the_derived_split_keys(fresh):
    logs = fresh(AccessLogsTable)
    starts = logs.region_starts()
    assert starts == [b""] + [bytes([c]) for c in b"123456789abcdef"], "SPLITS => ['1'..'f']"
    events = fresh(EventsTable)
    assert events.region_starts() == [b"", b"b", b"c", b"d"], "one region per salt character"
    devices = fresh(DeviceEventsTable)
    assert devices.region_starts() == [b""] + [bytes([b]) for b in range(1, 16)]
    files = fresh(DriveFilesTable)
    assert files.region_starts() == [b"", b"\x40", b"\x80", b"\xc0"], "explicit split keys"


def test_hashed_keys_land_in_the_seed_regions(fresh):
    logs = fresh(AccessLogsTable)
    starts = logs.region_starts()
    for user, region in (("dave", 1), ("elton", 13), ("fred", 5)):
        key = AccessLogsKey(user, "jericho", 201510)
        logs.put(key, AccessLogsValues(last_seen=1_445_000_000_000, hits=7))
        assert region_index(starts[1:], key.encode()) == region
        row = logs.get(key)
        assert row is not None
        assert row.values == AccessLogsValues(hits=7, last_seen=1_445_000_000_000)
        assert row.key.hash == key.encode()[:5].decode()
        assert (row.key.system_id, row.key.period) == ("jericho", 201510)
    busy, quarter, versions = typed_example.main(logs)
    assert busy == ["jericho"], "hits 3 + 1 on 201510 only"
    assert quarter == [201504, 201505, 201506]
    assert versions == [(3_000, 30_000), (2_000, 20_000), (1_000, 10_000)]


def test_put_get_delete_typed_values(fresh):
    books = fresh(BooksTable)
    key = BooksKey("978-0-13-468599-1")
    values = BooksValues(
        title="HBase 实战",
        author="Dimiduk",
        date=1_356_998_400,
        cover=b"\x89PNG\r\n\x1a\n\x00\xff",
        file=bytes(range(256)),
        pages=-1,
        rating=4.5,
        price=39.99,
        in_print=True,
        tags={"topics": ["hbase", "nosql"], "level": 2, "ok": None},
        added=-5,
    )
    books.put(key, values)
    row = books.get(key)
    assert row is not None
    assert row.values == values
    assert row.key.isbn == "978-0-13-468599-1"
    books.put(key, BooksValues(in_print=False))
    got = books.get(key)
    assert got is not None and got.values.in_print is False and got.values.title == "HBase 实战"
    books.delete(key)
    assert books.get(key) is None


def test_check_and_put(fresh):
    books = fresh(BooksTable)
    key = BooksKey("b1")
    assert books.check_and_put(key, BooksColumns.title, None, BooksValues(title="first"))
    assert not books.check_and_put(key, BooksColumns.title, None, BooksValues(title="again"))
    assert not books.check_and_put(key, BooksColumns.title, "nope", BooksValues(title="x"))
    assert books.check_and_put(key, BooksColumns.title, "first", BooksValues(title="second", pages=3))
    row = books.get(key)
    assert row is not None and (row.values.title, row.values.pages) == ("second", 3)


def test_counters_are_exact_under_threads(fresh, connect, named):
    fresh(CountersTable)
    key = CountersKey("rk1")
    threads, per = 8, 50

    def work():
        t = named(CountersTable, connect())
        for _ in range(per):
            t.increment_slots(key, 1)
            t.increment_slots(key, 2, 100)

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    table = named(CountersTable, connect())
    row = table.get(key)
    assert row is not None
    assert row.values.slots == {1: threads * per, 2: threads * per * 100}
    assert table.increment_slots(key, 1, 0) == threads * per


def test_social_usage_period_counters(fresh):
    social = fresh(SocialUsageTable)
    key = SocialUsageKey("jericho_user")
    social.put(key, SocialUsageValues(fb_id="fb123", tw_id="@tw"))
    for period, n in ((201510, 3), (201511, 5)):
        for _ in range(n):
            social.increment_fb_usage(key, period)
            social.increment_fb_total(key)
    social.increment_tw_usage(key, 201510, 9)
    row = social.get(key)
    assert row is not None
    v = row.values
    assert (v.fb_id, v.tw_id) == ("fb123", "@tw")
    assert v.fb_usage == {201510: 3, 201511: 5}
    assert v.fb_total == 8
    assert v.tw_usage == {201510: 9}
    assert v.tw_total is None


def test_prefix_scans_in_key_order(fresh):
    logs = fresh(AccessLogsByUserTable)
    rows = [
        (u, s, p)
        for u in ("dave", "elton", "fred", "dav")
        for s in ("jericho", "anvil", "zeus")
        for p in (201512, 201510, 201511)
    ]
    for i, (u, s, p) in enumerate(rows):
        logs.put(AccessLogsByUserKey(u, s, p), AccessLogsByUserValues(hits=i))
    got = [(r.key.user_id, r.key.system_id, r.key.period) for r in logs.scan(AccessLogsByUserKey.prefix("dave"))]
    assert got == sorted(x for x in rows if x[0] == "dave"), "prefix is a whole component: no 'dav'"
    got = [r.key.period for r in logs.scan(AccessLogsByUserKey.prefix("elton", "zeus"))]
    assert got == [201510, 201511, 201512]
    everything = [r.row_key for r in logs.scan()]
    assert everything == sorted(everything) and len(everything) == len(rows)


def test_range_scans_reversed_with_limit(fresh):
    logs = fresh(AccessLogsByUserTable)
    for u in ("a", "b", "c", "d", "e"):
        for p in (201510, 201511):
            logs.put(AccessLogsByUserKey(u, "s", p), AccessLogsByUserValues(hits=1))
    rng = AccessLogsByUserKey.range(AccessLogsByUserKey.prefix("b"), AccessLogsByUserKey.prefix("d"))
    fwd = [(r.key.user_id, r.key.period) for r in logs.scan(rng)]
    assert fwd == [("b", 201510), ("b", 201511), ("c", 201510), ("c", 201511)]
    back = [(r.key.user_id, r.key.period) for r in logs.scan(rng, reversed=True)]
    assert back == list(reversed(fwd))
    assert [(r.key.user_id, r.key.period) for r in logs.scan(rng, reversed=True, limit=3)] == back[:3]
    assert [r.key.user_id for r in logs.scan(limit=2)] == ["a", "a"]
    pre = [r.key.period for r in logs.scan(AccessLogsByUserKey.prefix("e"), reversed=True)]
    assert pre == [201511, 201510]
    assert list(logs.scan(AccessLogsByUserKey.prefix("zz"))) == []


def test_salted_scans_merge_buckets_by_the_key_without_the_salt(fresh):
    events = fresh(EventsTable)
    names = [f"foo{n:04d}" for n in range(1, 41)]
    for i, n in enumerate(names):
        events.put(EventsKey(n), EventsValues(payload={"n": i}, at=i))
    rows = list(events.scan())
    assert [r.key.event for r in rows] == names, "the unsalted design's order, across every bucket"
    assert {r.key.salt for r in rows} == {0, 1, 2, 3}
    assert all(r.row_key[:1] == b"abcd"[r.key.salt : r.key.salt + 1] for r in rows)
    assert [r.key.event for r in events.scan(reversed=True)] == names[::-1]
    assert [r.key.event for r in events.scan(limit=5)] == names[:5]
    assert [r.key.event for r in events.scan(reversed=True, limit=3)] == names[:-4:-1]
    assert [r.key.event for r in events.scan(event=("foo0007", "foo0012"))] == names[6:12]
    by_bucket = [r.row_key for r in events.scan(bucket_order=True)]
    assert by_bucket == sorted(r.row_key for r in rows), "bucket order: bucket a's rows, then b's, ..."
    assert [r.row_key for r in events.scan(bucket_order=True, reversed=True)] == by_bucket[::-1]
    one = list(events.scan(EventsKey.prefix("foo0003")))
    assert [r.key.event for r in one] == ["foo0003"] and one[0].values.payload == {"n": 2}
    starts = events.region_starts()
    for r in rows:
        assert region_index(starts[1:], r.row_key) == r.key.salt


def test_binary_salted_keys_scan_by_device(fresh):
    t = fresh(DeviceEventsTable)
    for dev in ("d1", "d2", "d1x"):
        for seq in (3, -1, 2**40, 0):
            t.put(DeviceEventsKey(dev, seq), DeviceEventsValues(kind=f"{dev}:{seq}"))
            t.increment_count(DeviceEventsKey(dev, seq), seq % 7)
    got = list(t.scan(DeviceEventsKey.prefix("d1")))
    assert [r.key.seq for r in got] == [-1, 0, 3, 2**40], "in seq order across the 16 buckets"
    assert all(r.key.device == "d1" for r in got)
    assert all(r.values.count == r.key.seq % 7 for r in got)
    assert [(r.key.device, r.key.seq) for r in t.scan(limit=2)] == [("d1", -1), ("d1", 0)]


def test_reverse_timestamps_read_newest_first(fresh):
    metrics = fresh(MetricsTable)
    for ts in (1000, 3000, 2000):
        metrics.put(MetricsKey("cpu", "host|1", ts), MetricsValues(value=ts / 10, unit="%"))
    metrics.put(MetricsKey("cpu", "host|2", 5000), MetricsValues(value=1.0))
    got = [r.key.ts for r in metrics.scan(MetricsKey.prefix("cpu", "host|1"))]
    assert got == [3000, 2000, 1000]
    sensors = fresh(SensorReadingsTable)
    for ts in (10, 30, 20):
        sensors.put(SensorReadingsKey(-7, ts), SensorReadingsValues(celsius=ts + 0.5, ok=ts != 20))
    rows = list(sensors.scan(SensorReadingsKey.prefix(-7), limit=2))
    assert [(r.key.ts, r.values.celsius, r.values.ok) for r in rows] == [(30, 30.5, True), (20, 20.5, False)]


def test_desc_components_sort_highest_first(fresh):
    board = fresh(LeaderboardTable)
    for name, score in (("ann", 10), ("bob", 300), ("cy", -5), ("dee", 300)):
        board.put(LeaderboardKey("chess", score, name), LeaderboardValues(player={"name": name}))
    board.put(LeaderboardKey("go", 1, "zed"), LeaderboardValues(player=None))
    got = [(r.key.score, r.key.name) for r in board.scan(LeaderboardKey.prefix("chess"))]
    assert got == [(300, "bob"), (300, "dee"), (10, "ann"), (-5, "cy")]


def test_cloud_drive_directories_and_files(fresh):
    dirs = fresh(DriveDirectoriesTable)
    files = fresh(DriveFilesTable)
    fid = bytes.fromhex("9f1c2a7e00ff4b1d8a6b0c3d4e5f6071")
    files.put(DriveFilesKey(fid), DriveFilesValues(content=b"%PDF", creator="alice", size=4, file_type="pdf"))
    dirs.put(
        DriveDirectoriesKey("/home/alice"),
        DriveDirectoriesValues(children={"d_photos": "", "f_cv.pdf": fid.hex()}, creator="alice"),
    )
    dirs.put(DriveDirectoriesKey("/home/alice|odd"), DriveDirectoriesValues(creator="alice"))
    row = dirs.get(DriveDirectoriesKey("/home/alice"))
    assert row is not None
    assert row.values.children == {"d_photos": "", "f_cv.pdf": fid.hex()}
    f = files.get(DriveFilesKey(bytes.fromhex(row.values.children["f_cv.pdf"])))
    assert f is not None and f.values.size == 4 and f.key.file_id == fid
    paths = [r.key.path for r in dirs.scan()]
    assert paths == ["/home/alice", "/home/alice|odd"]
    with pytest.raises(KeyEncodingError):
        DriveFilesKey(b"short").encode()


def test_reversed_domains_in_their_own_namespace(fresh):
    pages = fresh(WebPagesTable)  # namespace "crawl", created with the table
    assert WebPagesTable.definition.full_name == b"crawl:web-pages"
    for host, path in (("www.example.com", "/"), ("api.example.com", "/v1|x"), ("www.example.org", "/")):
        pages.put(WebPagesKey(host, path), WebPagesValues(html=b"<html>", fetched=1))
    got = [(r.key.domain, r.key.path) for r in pages.scan(WebPagesKey.prefix("www.example.com"))]
    assert got == [("www.example.com", "/")]
    everything = [r.row_key for r in pages.scan()]
    assert everything == [b"com.example.api|/v1\\|x", b"com.example.www|/", b"org.example.www|/"]


def test_every_binary_component_type_round_trips_through_the_server(fresh):
    t = fresh(AllTypesTable)
    keys = [
        AllTypesKey("a\x00b", b"\x00\xff", -(2**31), 2**63 - 1, float("-inf"), -0.0, -1),
        AllTypesKey("", b"", 0, -(2**63), 1.5, float("nan"), 2**62),
        AllTypesKey("日本", b"z", 2**31 - 1, 0, -0.0, 1e300, 0),
    ]
    for i, k in enumerate(keys):
        t.put(k, AllTypesValues(note=str(i)))
    rows = list(t.scan())
    assert [r.row_key for r in rows] == sorted(k.encode() for k in keys)
    for r in rows:
        k = keys[int(r.values.note or "0")]
        assert r.row_key == k.encode()
        assert (r.key.s, r.key.b, r.key.i, r.key.l, r.key.t) == (k.s, k.b, k.i, k.l, k.t)


def test_fixed_layout_with_a_kept_hash(fresh):
    t = fresh(FixedOrdersTable)
    for order_no in (5, 7, 6):
        t.put(FixedOrdersKey("eu", order_no, 4321), FixedOrdersValues(total=order_no * 1.5))
    key = FixedOrdersKey("eu", 7, 4321)
    assert len(key.encode()) == 2 + 8 + 10 + 6
    row = t.get(key)
    assert row is not None and row.values.total == 10.5
    assert row.key.hash == key.encode()[:2] and (row.key.region, row.key.order_no, row.key.account) == ("eu", 7, 4321)
    scanned = list(t.scan())
    by_hash = {}
    for r in scanned:
        by_hash.setdefault(r.key.hash, []).append(r.key.order_no)
    assert list(by_hash.values()) == [[7, 6, 5]], "one hash (same account); orders descending"


def test_framed_transport(fresh, named, target):
    fresh(CountersTable)
    with Connection(*target, transport="framed") as framed:
        t = named(CountersTable, framed)
        assert t.increment_slots(CountersKey("framed"), 7, 2) == 2
        row = t.get(CountersKey("framed"))
        assert row is not None and row.values.slots == {7: 2}
    with pytest.raises(ValueError):
        Connection(*target, transport="http")
