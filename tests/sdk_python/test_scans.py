"""Scans end to end: key-component bounds (`scan(user_id=..., period=(low, high))`), typed
filters rendered to HBase's filter language and run by the server, column selection, limit,
reversed, caching and batch size."""

import pytest

from redbase_examples import (
    AccessLogsByPeriodKey,
    AccessLogsByPeriodTable,
    AccessLogsByPeriodValues,
    AccessLogsColumns,
    AccessLogsKey,
    AccessLogsTable,
    AccessLogsValues,
    BooksColumns,
    BooksKey,
    BooksTable,
    BooksValues,
    EventsKey,
    EventsTable,
    EventsValues,
    Filter,
    FilterError,
    KeyEncodingError,
    LeaderboardKey,
    LeaderboardTable,
    LeaderboardValues,
)

USERS = ("dave", "elton", "fred")
SYSTEMS = ("anvil", "jericho")
PERIODS = tuple(201501 + i for i in range(12))
T0 = 1_445_000_000_000


@pytest.fixture
def logs(fresh):
    t = fresh(AccessLogsTable)
    rows = []
    for u in USERS:
        for s in SYSTEMS:
            for i, p in enumerate(PERIODS):
                rows.append((AccessLogsKey(u, s, p), AccessLogsValues(hits=i, last_seen=T0 + i)))
    t.put_many(rows)
    return t


def periods(rows):
    return [r.key.period for r in rows]


def test_component_bounds_turn_into_start_and_stop_rows(logs):
    got = list(logs.scan(user_id="dave", system_id="jericho", period=(201503, 201505)))
    assert periods(got) == [201503, 201504, 201505], "inclusive at both ends"
    assert {r.key.system_id for r in got} == {"jericho"}
    assert all(r.row_key.startswith(AccessLogsKey("dave", "x", 1).encode()[:6]) for r in got)
    every = list(logs.scan(user_id="elton"))
    assert len(every) == 24 and periods(every[:12]) == list(PERIODS)
    back = list(logs.scan(user_id="dave", system_id="anvil", period=(201510, 201512), reversed=True))
    assert periods(back) == [201512, 201511, 201510]
    same = list(logs.scan(AccessLogsKey.bounds(user_id="dave", system_id="anvil", period=(201510, 201512))))
    assert periods(same) == [201510, 201511, 201512]


def test_bound_errors_name_the_missing_component(logs):
    with pytest.raises(KeyEncodingError, match="component user_id must be given: .*hash prefix"):
        logs.scan(period=(201501, 201512))
    with pytest.raises(KeyEncodingError, match="component user_id must be given"):
        AccessLogsKey.prefix(period=201510)
    with pytest.raises(KeyEncodingError, match="component system_id must be given: period follows it"):
        logs.scan(user_id="dave", period=201510)
    with pytest.raises(KeyEncodingError, match="user_id is hashed"):
        logs.scan(user_id=("a", "b"))
    with pytest.raises(KeyEncodingError, match="only the last component given may be a range"):
        logs.scan(user_id="dave", system_id=("a", "z"), period=201501)
    with pytest.raises(ValueError, match="either `keys` or key components"):
        logs.scan(AccessLogsKey.prefix("dave"), user_id="dave")


def test_a_range_on_the_leading_component(fresh):
    t = fresh(AccessLogsByPeriodTable)
    t.put_many([(AccessLogsByPeriodKey(p, "s", "u"), AccessLogsByPeriodValues(hits=1)) for p in PERIODS])
    assert periods(t.scan(period=(201511, 201599))) == [201511, 201512]


def test_ranges_on_desc_and_salted_keys(fresh):
    board = fresh(LeaderboardTable)
    for name, score in (("ann", 10), ("bob", 300), ("cy", -5), ("dee", 50)):
        board.put(LeaderboardKey("chess", score, name), LeaderboardValues(player={"n": name}))
    got = [(r.key.score, r.key.name) for r in board.scan(game="chess", score=(10, 300))]
    assert got == [(300, "bob"), (50, "dee"), (10, "ann")], "a desc component keeps its order"
    events = fresh(EventsTable)
    events.put_many([(EventsKey(f"foo{n:04d}"), EventsValues(at=n)) for n in range(1, 21)])
    got = [r.key.event for r in events.scan(event=("foo0005", "foo0008"))]
    assert sorted(got) == ["foo0005", "foo0006", "foo0007", "foo0008"], "one range per salt bucket"


def test_value_filters_compare_the_codec_bytes(logs):
    got = list(logs.scan(user_id="dave", filter=AccessLogsColumns.hits.ge(10)))
    assert sorted((r.key.system_id, r.values.hits) for r in got) == [
        ("anvil", 10), ("anvil", 11), ("jericho", 10), ("jericho", 11)
    ]
    got = list(logs.scan(filter=AccessLogsColumns.last_seen.eq(T0 + 3)))
    assert len(got) == 6 and {r.key.period for r in got} == {201504}


def test_string_filters_and_combinations(fresh):
    books = fresh(BooksTable)
    books.put_many(
        [
            (BooksKey("b1"), BooksValues(title="HBase in Action", pages=350)),
            (BooksKey("b2"), BooksValues(title="O'Reilly's guide", pages=90)),
            (BooksKey("b3"), BooksValues(title="Other", pages=500)),
        ]
    )
    got = [r.key.isbn for r in books.scan(filter=BooksColumns.title.eq("O'Reilly's guide"))]
    assert got == ["b2"], "a quote inside the operand is doubled"
    both = Filter.all(BooksColumns.pages.ge(100), BooksColumns.title.ne("Other"))
    assert [r.key.isbn for r in books.scan(filter=both)] == ["b1"]
    either = BooksColumns.pages.lt(100) | BooksColumns.title.eq("Other")
    assert [r.key.isbn for r in books.scan(filter=either)] == ["b2", "b3"]
    assert [r.key.isbn for r in books.scan(filter=Filter.prefix(BooksKey.prefix("b2")))] == ["b2"]


def test_key_only_first_key_only_page_timestamps_column_prefix(logs):
    dave = AccessLogsKey.prefix("dave")
    rows = list(logs.scan(dave, filter=Filter.key_only(), limit=3))
    assert len(rows) == 3 and all(r.values == AccessLogsValues() for r in rows)
    assert all(c.value == b"" for r in rows for c in r.cells) and all(len(r.cells) == 2 for r in rows)
    rows = list(logs.scan(dave, filter=Filter.first_key_only()))
    assert len(rows) == 24 and all(len(r.cells) == 1 for r in rows)
    rows = list(logs.scan(filter=Filter.page(2)))
    assert 2 <= len(rows) <= 2 * len(logs.region_starts()), "at most 2 rows per region"
    logs.put(AccessLogsKey("dave", "anvil", 201501), AccessLogsValues(hits=99), timestamp=1234)
    rows = list(logs.scan(filter=Filter.timestamps(1234)))
    assert [(r.key.period, r.values.hits, r.values.last_seen) for r in rows] == [(201501, 99, None)]
    rows = list(logs.scan(dave, filter=Filter.column_prefix(b"l")))
    assert rows and all(r.values.hits is None and r.values.last_seen is not None for r in rows)


def test_column_selection_limit_caching_and_batch_size(logs):
    dave = AccessLogsKey.prefix("dave")
    rows = list(logs.scan(dave, columns=[AccessLogsColumns.hits], limit=5))
    assert len(rows) == 5 and all(r.values.last_seen is None and r.values.hits is not None for r in rows)
    rows = list(logs.scan(dave, columns=["t"], caching=2))
    assert len(rows) == 24 and all(r.values.last_seen is not None for r in rows)
    # batch_size=1: the server sends each cell as a partial row; the SDK joins them back
    rows = list(logs.scan(dave, batch_size=1, caching=3))
    assert len(rows) == 24 and all(len(r.cells) == 2 for r in rows)
    assert [r.row_key for r in rows] == sorted(r.row_key for r in rows)
    assert list(logs.scan(dave, limit=0)) == []
    with pytest.raises(ValueError, match="limit"):
        logs.scan(limit=-1)


def test_filter_errors_are_typed(logs):
    with pytest.raises(FilterError, match="at least one"):
        Filter.all()
    with pytest.raises(FilterError, match="negative"):
        Filter.page(-1)
    with pytest.raises(FilterError, match="hits"):
        AccessLogsColumns.hits.ge("five")  # type: ignore[arg-type]
