"""Key-component bounds against a real server: a (low, high) pair selects exactly the rows whose
component lies between the two values (inclusive), never a longer value that merely starts
with `high`; a whole key given by value is that row alone; and a range is refused, naming the
component and why, wherever the key's byte order is not the component's value order (hashed,
reversed, escaped, separated text followed by more components, separated numbers without a
width), since start/stop rows could then only return the wrong rows."""

import pytest

from redbase_examples import (
    AccessLogsByPeriodKey,
    AccessLogsByPeriodTable,
    AccessLogsByPeriodValues,
    AccessLogsByUserKey,
    AccessLogsByUserTable,
    AccessLogsByUserValues,
    AccessLogsKey,
    AccessLogsTable,
    CountersKey,
    CountersTable,
    CountersValues,
    EventsKey,
    EventsTable,
    EventsValues,
    KeyEncodingError,
    LeaderboardKey,
    LeaderboardTable,
    WebPagesKey,
    WebPagesTable,
    WebPagesValues,
)
from redbase_examples._runtime.keys import Component, KeySpec

#: In value order; "k0", "k_" and "ka" start with "k" but are greater than it.
USERS = ("i", "j", "k", "k0", "k_", "ka", "l")


@pytest.fixture
def by_period(fresh):
    """period|system_id|user_id: user_id is the last component of a separated key."""
    t = fresh(AccessLogsByPeriodTable)
    t.put_many([(AccessLogsByPeriodKey(201501, "s", u), AccessLogsByPeriodValues(hits=1)) for u in USERS])
    return t


def users(rows):
    return [r.key.user_id for r in rows]


def test_a_text_range_on_the_last_component_stops_at_the_high_value(by_period):
    got = users(by_period.scan(period=201501, system_id="s", user_id=("j", "k")))
    assert got == ["j", "k"], "high 'k' includes 'k' itself, not 'k0', 'k_' or 'ka'"
    same = AccessLogsByPeriodKey.bounds(period=201501, system_id="s", user_id=("j", "k"))
    assert users(by_period.scan(same)) == ["j", "k"]
    assert users(by_period.scan(same, reversed=True)) == ["k", "j"]
    assert users(by_period.scan(period=201501, system_id="s", user_id=("k", "k_"))) == ["k", "k0", "k_"]
    assert users(by_period.scan(period=201501, system_id="s", user_id=("k0", "l"))) == ["k0", "k_", "ka", "l"]


def test_a_range_on_a_salted_last_component_stops_at_the_high_value(fresh):
    events = fresh(EventsTable)
    names = ["foo0004", "foo0005", "foo0006", "foo0008", "foo00080", "foo0008a", "foo0009"]
    events.put_many([(EventsKey(n), EventsValues(at=i)) for i, n in enumerate(names)])
    got = sorted(r.key.event for r in events.scan(event=("foo0005", "foo0008")))
    assert got == ["foo0005", "foo0006", "foo0008"], "one exact range per salt bucket"


def test_a_whole_key_given_by_value_is_that_row_alone(by_period, fresh):
    assert users(by_period.scan(period=201501, system_id="s", user_id="k")) == ["k"]
    assert users(by_period.scan(AccessLogsByPeriodKey.prefix(201501, "s", "k"))) == ["k"]
    assert users(by_period.scan(AccessLogsByPeriodKey.prefix(201501, "s"))) == list(USERS)
    pages = fresh(WebPagesTable)
    for path in ("", "/", "/a"):
        pages.put(WebPagesKey("www.example.com", path), WebPagesValues(fetched=1))
    root = [r.key.path for r in pages.scan(WebPagesKey.prefix("www.example.com", ""))]
    assert root == [""], "an empty last component matches only the empty path (docs/schema.md)"
    assert [r.key.path for r in pages.scan(domain="www.example.com")] == ["", "/", "/a"]


def test_separated_text_followed_by_components_is_not_in_value_order(fresh):
    t = fresh(AccessLogsByUserTable)  # user_id|system_id|period
    for u in ("j", "k", "k0", "l"):
        t.put(AccessLogsByUserKey(u, "s", 201501), AccessLogsByUserValues(hits=1))
    assert users(t.scan()) == ["j", "k0", "k", "l"], "'k0|' sorts before 'k|': key order is not value order"
    why = r"component user_id: .*separated.* not in its value order"
    with pytest.raises(KeyEncodingError, match=why):
        t.scan(user_id=("k", "l"))
    with pytest.raises(KeyEncodingError, match=why):
        AccessLogsByUserKey.bounds(user_id=("j", "k"))
    with pytest.raises(KeyEncodingError, match=r"component system_id: .*separated.* not in its value order"):
        t.scan(user_id="k", system_id=("a", "z"))
    assert [r.key.period for r in t.scan(user_id="k", system_id="s", period=(201501, 201501))] == [201501]
    logs = fresh(AccessLogsTable)  # md5(user_id)[:5]|system_id|period
    with pytest.raises(KeyEncodingError, match=r"component system_id: .*separated.* not in its value order"):
        logs.scan(user_id="dave", system_id=("anvil", "jericho"))
    with pytest.raises(KeyEncodingError, match=r"component system_id: .*not in its value order"):
        AccessLogsKey.bounds(user_id="dave", system_id=("anvil", "jericho"))


def test_reversed_and_escaped_components_are_not_in_value_order(fresh):
    with pytest.raises(KeyEncodingError, match=r"component domain: .*reversed.* not in its value order"):
        fresh(WebPagesTable).scan(domain=("a.com", "b.com"))
    counters = fresh(CountersTable)  # separated, the last component escaped
    for name in ("a]", "a|", "a~", "b"):
        counters.put(CountersKey(name), CountersValues(slots={1: 1}))
    assert [r.key.name for r in counters.scan()] == ["a|", "a]", "a~", "b"], "'a\\|' sorts before 'a]'"
    with pytest.raises(KeyEncodingError, match=r"component name: .*escape.* not in its value order"):
        counters.scan(name=("a]", "a~"))
    assert [r.key.name for r in counters.scan(name="a|")] == ["a|"], "one value still works"


def test_separated_numbers_without_a_width_are_not_in_value_order():
    spec = KeySpec(
        layout="separated",
        separator="|",
        components=(Component(name="host", type="string", charset="word"), Component(name="n", type="i64")),
        table="unpadded",
    )
    assert spec.encode(["h", 10]) < spec.encode(["h", 9]), "'10' sorts before '9'"
    with pytest.raises(KeyEncodingError, match=r"component n: .*without a width.* not in its value order"):
        spec.bounds(["h", (9, 10)])
    assert spec.bounds(["h", 9]) == [(b"h|9", b"h|9\x00")], "one value still works"


def test_hashed_components_and_inverted_ranges_are_refused(by_period, fresh):
    with pytest.raises(KeyEncodingError, match="component user_id is hashed"):
        fresh(AccessLogsTable).scan(user_id=("a", "b"))
    with pytest.raises(KeyEncodingError, match=r"component user_id: the range's low 'k' is above its high 'j'"):
        by_period.scan(period=201501, system_id="s", user_id=("k", "j"))
    board = fresh(LeaderboardTable)  # score is descending: the key holds high values first
    with pytest.raises(KeyEncodingError, match=r"component score: the range's low 300 is above its high 10"):
        board.scan(game="chess", score=(300, 10))
    assert LeaderboardKey.bounds(game="chess", score=(10, 300)).ranges[0][0] == LeaderboardKey.prefix("chess", 300).ranges[0][0]
