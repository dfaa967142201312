package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.redbase.sdk.Connection;
import org.redbase.sdk.KeyEncodingException;
import org.redbase.sdk.KeyRange;
import org.redbase.sdk.KeySpec;
import org.redbase.sdk.ScanOptions;
import redbase_examples.AccessLogs;
import redbase_examples.AccessLogsByPeriod;
import redbase_examples.AccessLogsByUser;
import redbase_examples.Counters;
import redbase_examples.Events;
import redbase_examples.Leaderboard;
import redbase_examples.WebPages;

/**
 * Key bounds against a real server (docs/sdks.md, "Key bounds"): a range selects exactly the
 * rows whose component lies between its two values, never a longer value that merely starts
 * with the high one; a whole key given by value is that row alone; and a range is refused,
 * naming the component and why, wherever the key's byte order is not the component's value
 * order (start and stop rows could then only return the wrong rows).
 */
class BoundsTest {
    /** In value order; "k0", "k_" and "ka" start with "k" but are greater than it. */
    static final List<String> USERS = List.of("i", "j", "k", "k0", "k_", "ka", "l");

    private Target target;
    private Connection conn;

    @BeforeEach
    void connect() {
        target = new Target();
        conn = target.connect();
    }

    @AfterEach
    void cleanUp() {
        target.close();
    }

    /** period|system_id|user_id: user_id is the last component of a separated key. */
    private AccessLogsByPeriod.Table byPeriod() {
        AccessLogsByPeriod.Table t = target.fresh(new AccessLogsByPeriod.Table(conn));
        for (String u : USERS) {
            t.put(new AccessLogsByPeriod.Key(201501, "s", u), new AccessLogsByPeriod.Values().hits(1L));
        }
        return t;
    }

    private static List<String> users(List<AccessLogsByPeriod.Row> rows) {
        return rows.stream().map(r -> r.key().userId()).toList();
    }

    private static AccessLogsByPeriod.Where s() {
        return AccessLogsByPeriod.Key.where().period(201501).systemId("s");
    }

    private static String refused(Executable call) {
        return assertThrows(KeyEncodingException.class, call).getMessage();
    }

    private static void says(String message, String... parts) {
        for (String p : parts) {
            assertTrue(message.contains(p), "'" + message + "' does not say '" + p + "'");
        }
    }

    @Test
    void aTextRangeOnTheLastComponentStopsAtTheHighValue() {
        AccessLogsByPeriod.Table t = byPeriod();
        assertEquals(List.of("j", "k"), users(t.scan(s().userIdBetween("j", "k")).toList()),
                "high 'k' includes 'k' itself, not 'k0', 'k_' or 'ka'");
        KeyRange same = s().userIdBetween("j", "k").range();
        assertEquals(List.of("j", "k"), users(t.scan(same).toList()));
        assertEquals(List.of("k", "j"), users(t.scan(same, ScanOptions.DEFAULT.reversed(true)).toList()));
        assertEquals(List.of("k", "k0", "k_"), users(t.scan(s().userIdBetween("k", "k_")).toList()));
        assertEquals(List.of("k0", "k_", "ka", "l"), users(t.scan(s().userIdBetween("k0", "l")).toList()));
    }

    @Test
    void aRangeOnASaltedLastComponentStopsAtTheHighValue() {
        Events.Table events = target.fresh(new Events.Table(conn));
        List<String> names = List.of("foo0004", "foo0005", "foo0006", "foo0008", "foo00080", "foo0008a", "foo0009");
        for (int i = 0; i < names.size(); i++) {
            events.put(new Events.Key(names.get(i)), new Events.Values().at((long) i));
        }
        List<String> got = events.scan(Events.Key.where().eventBetween("foo0005", "foo0008")).toList().stream()
                .map(r -> r.key().event()).sorted().toList();
        assertEquals(List.of("foo0005", "foo0006", "foo0008"), got, "one exact range per salt bucket");
        assertEquals(4, Events.Key.where().eventBetween("foo0005", "foo0008").range().ranges().size());
    }

    @Test
    void aWholeKeyGivenByValueIsThatRowAlone() {
        AccessLogsByPeriod.Table t = byPeriod();
        assertEquals(List.of("k"), users(t.scan(s().userId("k")).toList()));
        assertEquals(List.of("k"), users(t.scan(AccessLogsByPeriod.Key.prefix(201501, "s", "k")).toList()));
        assertEquals(USERS, users(t.scan(AccessLogsByPeriod.Key.prefix(201501, "s")).toList()));
        assertEquals(USERS, users(t.scan(s()).toList()));
        byte[] stop = AccessLogsByPeriod.Key.prefix(201501, "s", "k").ranges().get(0).stop();
        assertEquals("201501|s|k\0", new String(stop, StandardCharsets.US_ASCII), "the stop is the key plus 0x00");

        Events.Table events = target.fresh(new Events.Table(conn));
        for (String n : List.of("foo0003", "foo00030", "foo0003a")) {
            events.put(new Events.Key(n), new Events.Values().at(1L));
        }
        assertEquals(List.of("foo0003"), events.scan(Events.Key.prefix("foo0003")).toList().stream()
                .map(r -> r.key().event()).toList(), "salted: the one row in its bucket");

        WebPages.Table pages = target.fresh(new WebPages.Table(conn));
        for (String path : List.of("", "/", "/a")) {
            pages.put(new WebPages.Key("www.example.com", path), new WebPages.Values().fetched(1L));
        }
        assertEquals(List.of(""), pages.scan(WebPages.Key.prefix("www.example.com", "")).toList().stream()
                .map(r -> r.key().path()).toList(), "an empty last component matches only the empty path");
        assertEquals(List.of("", "/", "/a"), pages.scan(WebPages.Key.where().domain("www.example.com")).toList()
                .stream().map(r -> r.key().path()).toList());
    }

    @Test
    void separatedTextFollowedByComponentsIsNotInValueOrder() {
        AccessLogsByUser.Table t = target.fresh(new AccessLogsByUser.Table(conn)); // user_id|system_id|period
        for (String u : List.of("j", "k", "k0", "l")) {
            t.put(new AccessLogsByUser.Key(u, "s", 201501), new AccessLogsByUser.Values().hits(1L));
        }
        assertEquals(List.of("j", "k0", "k", "l"), t.scan().toList().stream().map(r -> r.key().userId()).toList(),
                "'k0|' sorts before 'k|': key order is not value order");
        says(refused(() -> t.scan(AccessLogsByUser.Key.where().userIdBetween("k", "l"))),
                "component user_id: ", "separated", "not in its value order");
        says(refused(() -> AccessLogsByUser.Key.where().userId("k").systemIdBetween("a", "z").range()),
                "component system_id: ", "separated", "not in its value order");
        assertEquals(List.of(201501), t.scan(AccessLogsByUser.Key.where().userId("k").systemId("s")
                .periodBetween(201501, 201501)).toList().stream().map(r -> r.key().period()).toList());
        says(refused(() -> AccessLogs.Key.where().userId("dave").systemIdBetween("anvil", "jericho").range()),
                "component system_id: ", "separated", "not in its value order");
    }

    @Test
    void reversedAndEscapedComponentsAreNotInValueOrder() {
        WebPages.Table pages = target.fresh(new WebPages.Table(conn));
        says(refused(() -> pages.scan(WebPages.Key.where().domainBetween("a.com", "b.com"))),
                "component domain: ", "reversed", "not in its value order");
        Counters.Table counters = target.fresh(new Counters.Table(conn)); // separated, its one component escaped
        for (String name : List.of("a]", "a|", "a~", "b")) {
            counters.put(new Counters.Key(name), new Counters.Values().slots(1, 1L));
        }
        assertEquals(List.of("a|", "a]", "a~", "b"), counters.scan().toList().stream().map(r -> r.key().name()).toList(),
                "'a\\|' sorts before 'a]'");
        says(refused(() -> counters.scan(Counters.Key.where().nameBetween("a]", "a~"))),
                "component name: ", "escape", "not in its value order");
        assertEquals(List.of("a|"), counters.scan(Counters.Key.where().name("a|")).toList().stream()
                .map(r -> r.key().name()).toList(), "one value still works");
    }

    @Test
    void separatedNumbersWithoutAWidthAreNotInValueOrder() {
        KeySpec spec = new KeySpec("unpadded", "separated", "|", List.of(
                new KeySpec.Component("host", "string", null, "word", false, false, null, false, false, true),
                new KeySpec.Component("n", "i64", null, "any", false, false, null, false, false, true)), null, null);
        assertTrue(Arrays.compareUnsigned(spec.encode("h", 10L), spec.encode("h", 9L)) < 0, "'10' sorts before '9'");
        says(refused(() -> spec.bounds(java.util.Map.of("host", "h"), "n", 9L, 10L)),
                "component n: ", "without a width", "not in its value order");
        KeyRange one = spec.bounds(java.util.Map.of("host", "h", "n", 9L), null, null, null);
        assertArrayEquals("h|9".getBytes(StandardCharsets.US_ASCII), one.ranges().get(0).start());
        assertArrayEquals("h|9\0".getBytes(StandardCharsets.US_ASCII), one.ranges().get(0).stop(), "one value still works");
    }

    @Test
    void hashedComponentsHaveNoRangeAndInvertedRangesAreRefused() {
        AccessLogsByPeriod.Table t = byPeriod();
        assertTrue(Arrays.stream(AccessLogs.Where.class.getMethods()).noneMatch(m -> m.getName().equals("userIdBetween")),
                "user_id is hashed: AccessLogs.Where has no userIdBetween");
        assertTrue(Arrays.stream(AccessLogs.Where.class.getMethods()).anyMatch(m -> m.getName().equals("periodBetween")));
        says(refused(() -> t.scan(s().userIdBetween("k", "j"))), "component user_id: the range's low k is above its high j");
        Leaderboard.Table board = target.fresh(new Leaderboard.Table(conn)); // score is descending
        says(refused(() -> board.scan(Leaderboard.Key.where().game("chess").scoreBetween(300, 10))),
                "component score: the range's low 300 is above its high 10");
        assertArrayEquals(Leaderboard.Key.prefix("chess", 300L).ranges().get(0).start(),
                Leaderboard.Key.where().game("chess").scoreBetween(10, 300).range().ranges().get(0).start());
    }

    @Test
    void aComponentAfterAMissingOneOrAfterTheRangeIsRefused() {
        says(refused(() -> AccessLogsByPeriod.Key.where().period(201501).userId("k").range()), "component system_id: ");
        says(refused(() -> AccessLogsByPeriod.Key.where().period(201501).systemIdBetween("a", "b").userId("k").range()),
                "component user_id: ");
    }
}
