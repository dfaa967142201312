package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redbase.sdk.Connection;
import org.redbase.sdk.Filter;
import org.redbase.sdk.GetOptions;
import org.redbase.sdk.KeyEncodingException;
import org.redbase.sdk.ScanOptions;
import org.redbase.sdk.Version;
import org.redbase.sdk.WriteOptions;
import redbase_examples.AccessLogs;
import redbase_examples.AccessLogsByPeriod;
import redbase_examples.Books;
import redbase_examples.SocialUsage;

/**
 * Versions, timestamps, column selection, typed filters and named key bounds end to end: what
 * the server returns for each option, read through the typed rows.
 */
class ReadsTest {
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

    private static final AccessLogs.Key DAVE = new AccessLogs.Key("dave", "jericho", 201510);

    private AccessLogs.Table threeVersions() {
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        logs.put(DAVE, new AccessLogs.Values().hits(1L).lastSeen(11L), 1_000L);
        logs.put(DAVE, new AccessLogs.Values().hits(2L), 2_000L);
        logs.put(DAVE, new AccessLogs.Values().hits(3L), 3_000L);
        return logs;
    }

    @Test
    void versionsAndTimestampsOfEveryCell() {
        AccessLogs.Table logs = threeVersions();
        AccessLogs.Row latest = logs.get(DAVE).orElseThrow();
        assertEquals(new AccessLogs.Values().hits(3L).lastSeen(11L), latest.values());
        assertEquals(List.of(new Version<>(3_000L, 3L)), latest.versions().hits());
        AccessLogs.Row all = logs.get(DAVE, GetOptions.DEFAULT.versions(3)).orElseThrow();
        assertEquals(List.of(new Version<>(3_000L, 3L), new Version<>(2_000L, 2L), new Version<>(1_000L, 1L)),
                all.versions().hits(), "newest first, with timestamps");
        assertEquals(List.of(new Version<>(1_000L, 11L)), all.versions().lastSeen());
        assertEquals(3L, all.values().hits(), "values are the newest version");
        assertEquals(4, all.cells().size());
        assertEquals(List.of(3_000L, 2_000L, 1_000L, 1_000L), all.cells().stream().map(c -> c.timestamp()).toList());

        AccessLogs.Row ranged = logs.get(DAVE, GetOptions.DEFAULT.versions(3).timeRange(1_000L, 2_500L)).orElseThrow();
        assertEquals(List.of(new Version<>(2_000L, 2L), new Version<>(1_000L, 1L)), ranged.versions().hits(),
                "[min, max): 1000 in, 2500 out");
        assertEquals(2L, ranged.values().hits());
        AccessLogs.Row at = logs.get(DAVE, GetOptions.DEFAULT.at(2_000L)).orElseThrow();
        assertEquals(new AccessLogs.Values().hits(2L), at.values());
        assertTrue(logs.get(DAVE, GetOptions.DEFAULT.at(1_500L)).isEmpty());
        AccessLogs.Row hitsOnly = logs.get(DAVE, GetOptions.DEFAULT.columns(AccessLogs.Columns.HITS)).orElseThrow();
        assertEquals(new AccessLogs.Values().hits(3L), hitsOnly.values());
        assertEquals(new AccessLogs.Values().hits(3L).lastSeen(11L),
                logs.get(DAVE, GetOptions.DEFAULT.families("t")).orElseThrow().values());

        logs.delete(DAVE, 2_000L);
        AccessLogs.Row after = logs.get(DAVE, GetOptions.DEFAULT.versions(3)).orElseThrow();
        assertEquals(List.of(new Version<>(3_000L, 3L)), after.versions().hits(), "versions <= 2000 deleted");
        assertNull(after.values().lastSeen());
        assertThrows(IllegalArgumentException.class, () -> GetOptions.DEFAULT.versions(0));
        assertThrows(IllegalArgumentException.class, () -> GetOptions.DEFAULT.timeRange(5, 1));
    }

    @Test
    void putManyAndScansWithTimestamps() {
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        List<Map.Entry<AccessLogs.Key, AccessLogs.Values>> rows = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            rows.add(Map.entry(new AccessLogs.Key("u" + i, "s", 201501), new AccessLogs.Values().hits((long) i)));
        }
        logs.putMany(rows, WriteOptions.DEFAULT.timestamp(500L));
        logs.putMany(rows.subList(0, 2), WriteOptions.DEFAULT.timestamp(600L));
        List<AccessLogs.Row> scanned = logs.scan(ScanOptions.DEFAULT.versions(3)).toList();
        assertEquals(5, scanned.size());
        int twoVersions = 0;
        for (AccessLogs.Row r : scanned) {
            List<Version<Long>> v = r.versions().hits();
            assertEquals(500L, v.get(v.size() - 1).timestamp());
            twoVersions += v.size() == 2 ? 1 : 0;
        }
        assertEquals(2, twoVersions);
        assertEquals(2, logs.scan(ScanOptions.DEFAULT.at(600L)).toList().size());
        assertEquals(5, logs.scan(ScanOptions.DEFAULT.timeRange(0L, 501L)).toList().size());
    }

    private Books.Table books() {
        Books.Table books = target.fresh(new Books.Table(conn));
        String[] titles = {"alpha", "bravo", "charlie", "delta", "echo", "it's"};
        for (int i = 0; i < titles.length; i++) {
            books.put(new Books.Key("isbn" + i), new Books.Values().title(titles[i]).pages(i * 100).author("a" + (i % 2)), 1_000L + i);
        }
        return books;
    }

    static List<String> titles(List<Books.Row> rows) {
        return rows.stream().map(r -> r.values().title()).toList();
    }

    @Test
    void typedFiltersRunOnTheServer() {
        Books.Table books = books();
        assertEquals(List.of("delta", "echo", "it's"),
                titles(books.scan(ScanOptions.DEFAULT.filter(Books.Columns.PAGES.ge(300))).toList()));
        assertEquals(List.of("it's"), titles(books.scan(ScanOptions.DEFAULT.filter(Books.Columns.TITLE.eq("it's"))).toList()));
        assertEquals(List.of("alpha", "bravo"), titles(books.scan(ScanOptions.DEFAULT.filter(Books.Columns.TITLE.lt("c"))).toList()));
        assertEquals(List.of("bravo", "delta", "it's"), titles(books.scan(ScanOptions.DEFAULT.filter(
                Filter.allOf(Books.Columns.AUTHOR.eq("a1"), Books.Columns.PAGES.ne(200)))).toList()));
        assertEquals(List.of("alpha", "bravo", "echo", "it's"), titles(books.scan(ScanOptions.DEFAULT.filter(
                Filter.anyOf(Books.Columns.PAGES.le(100), Books.Columns.TITLE.gt("e")))).toList()));
        assertEquals(List.of("echo"), titles(books.scan(ScanOptions.DEFAULT.filter(Books.Key.prefixFilter("isbn4"))).toList()));
        assertEquals(List.of("alpha", "bravo"), titles(books.scan(ScanOptions.DEFAULT.filter(Filter.page(2))).toList()));
        assertEquals(List.of("charlie"), titles(books.scan(ScanOptions.DEFAULT.filter(Filter.timestamps(1_002L))).toList()));
        List<Books.Row> keys = books.scan(ScanOptions.DEFAULT.filter(Filter.keyOnly())).toList();
        assertEquals(6, keys.size());
        assertTrue(keys.stream().allMatch(r -> r.values().equals(new Books.Values()) && r.cells().size() == 3
                && r.cells().stream().allMatch(c -> c.value().length == 0)), "cells without values");
        List<Books.Row> first = books.scan(ScanOptions.DEFAULT.filter(Filter.firstKeyOnly())).toList();
        assertTrue(first.stream().allMatch(r -> r.cells().size() == 1));
        List<Books.Row> authors = books.scan(ScanOptions.DEFAULT.filter(Filter.columnPrefix(new byte[] {'a'}))).toList();
        assertTrue(authors.stream().allMatch(r -> r.values().equals(new Books.Values().author(r.values().author()))));
        assertEquals(List.of("alpha"), titles(List.of(books.get(new Books.Key("isbn0"),
                GetOptions.DEFAULT.filter(Books.Columns.PAGES.eq(0))).orElseThrow())));
    }

    @Test
    void columnsLimitReversedCachingAndBatchSize() {
        Books.Table books = books();
        List<Books.Row> titled = books.scan(ScanOptions.DEFAULT.columns(Books.Columns.TITLE)).toList();
        assertTrue(titled.stream().allMatch(r -> r.values().pages() == null && r.values().title() != null));
        List<Books.Row> fam = books.scan(ScanOptions.DEFAULT.families("b")).toList();
        assertTrue(fam.stream().allMatch(r -> r.values().pages() != null));
        assertEquals(List.of("it's", "echo"), titles(books.scan(ScanOptions.DEFAULT.reversed(true).limit(2)).toList()));
        assertEquals(6, books.scan(ScanOptions.DEFAULT.caching(1)).toList().size());
        List<Books.Row> parts = books.scan(ScanOptions.DEFAULT.batchSize(1).caching(2)).toList();
        assertEquals(List.of("alpha", "bravo", "charlie", "delta", "echo", "it's"), titles(parts),
                "a row split by batchSize comes back whole");
        assertTrue(parts.stream().allMatch(r -> r.cells().size() == 3));
        assertEquals(List.of("alpha", "bravo", "charlie"), titles(books.scan(ScanOptions.DEFAULT.batchSize(2).limit(3)).toList()));
    }

    @Test
    void namedKeyBounds() {
        AccessLogsByPeriod.Table byPeriod = target.fresh(new AccessLogsByPeriod.Table(conn));
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        for (int p = 201412; p <= 201601; p++) {
            if (p % 100 == 13) {
                p += 88;
            }
            byPeriod.put(new AccessLogsByPeriod.Key(p, "jericho", "dave"), new AccessLogsByPeriod.Values().hits(1L));
            logs.put(new AccessLogs.Key("dave", "jericho", p), new AccessLogs.Values().hits(1L));
            logs.put(new AccessLogs.Key("elton", "jericho", p), new AccessLogs.Values().hits(1L));
        }
        List<Integer> year = byPeriod.scan(AccessLogsByPeriod.Key.where().periodBetween(201501, 201512)).toList().stream()
                .map(r -> r.key().period()).toList();
        assertEquals(12, year.size());
        assertEquals(201501, year.get(0));
        assertEquals(201512, year.get(11), "both ends inclusive");
        List<AccessLogs.Row> dave = logs.scan(AccessLogs.Key.where().userId("dave").systemId("jericho")
                .periodBetween(201503, 201505)).toList();
        assertEquals(List.of(201503, 201504, 201505), dave.stream().map(r -> r.key().period()).toList());
        assertEquals(14, logs.scan(AccessLogs.Key.where().userId("elton")).toList().size());
        for (String u : List.of("a", "b", "bz", "c", "d", "da")) {
            byPeriod.put(new AccessLogsByPeriod.Key(201701, "s", u), new AccessLogsByPeriod.Values().hits(1L));
        }
        assertEquals(List.of("b", "bz", "c", "d"), byPeriod.scan(AccessLogsByPeriod.Key.where().period(201701).systemId("s")
                .userIdBetween("b", "d")).toList().stream().map(r -> r.key().userId()).toList(),
                "a text range on the last component: by value, d included, da not");
        KeyEncodingException e = assertThrows(KeyEncodingException.class,
                () -> logs.scan(AccessLogs.Key.where().periodBetween(201501, 201512)));
        assertEquals("component user_id: must be given (the hash prefix is computed from it)", e.getMessage());
    }

    @Test
    void patternColumnVersions() {
        SocialUsage.Table social = target.fresh(new SocialUsage.Table(conn));
        SocialUsage.Key k = new SocialUsage.Key("ann");
        social.put(k, new SocialUsage.Values().fbUsage(201510, 3L).fbUsage(201511, 4L), 7_000L);
        SocialUsage.Row row = social.get(k).orElseThrow();
        assertEquals(Map.of(201510, List.of(new Version<>(7_000L, 3L)), 201511, List.of(new Version<>(7_000L, 4L))),
                row.versions().fbUsage());
        assertEquals(Map.of(201511, 4L), social.get(k, GetOptions.DEFAULT.columns(SocialUsage.Columns.FB_USAGE.at(201511)))
                .orElseThrow().values().fbUsage());
    }
}
