package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redbase.sdk.Connection;
import org.redbase.sdk.ScanOptions;
import java.util.Arrays;
import redbase_examples.DriveDirectories;
import redbase_examples.Tsdb;

/**
 * The seeds' key designs end to end against a real Thrift2 gateway: seed 003's OpenTSDB-style
 * {@code [salt][metric][Long.MAX_VALUE - ts][host]} (sdks/schemas/opentsdb.toml), read newest
 * first across its 8 salt buckets; seed 004's cloud-drive directory table keyed by the full
 * (escaped) path (sdks/schemas/cloud_drive.toml), read a subtree at a time.
 */
class SeedDesignsTest {
    static final long NOW = 1_700_000_000_000L;
    /** Seconds before NOW of each cpu.load point (hosts web0..web2 in turn). */
    static final long[] AGES = {15, 31, 35, 4, 2, 9, 21, 50, 1, 12, 27, 44, 7, 3};

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

    /** Writes the points; the cpu.load timestamps newest first. */
    static List<Long> points(Tsdb.Table tsdb) {
        List<Map.Entry<Tsdb.Key, Tsdb.Values>> rows = new ArrayList<>();
        List<Long> newest = new ArrayList<>();
        for (int i = 0; i < AGES.length; i++) {
            long ts = NOW - AGES[i] * 1000;
            newest.add(ts);
            rows.add(Map.entry(new Tsdb.Key("cpu.load", ts, "web" + (i % 3)), new Tsdb.Values().value((double) AGES[i])));
        }
        for (long a : new long[] {0, 5}) {
            rows.add(Map.entry(new Tsdb.Key("mem.used", NOW - a * 1000, "web0"), new Tsdb.Values().value(-1.0)));
        }
        rows.add(Map.entry(new Tsdb.Key("cpu.loadx", NOW, "web0"), new Tsdb.Values().value(-2.0)));
        tsdb.putMany(rows);
        newest.sort(Comparator.reverseOrder());
        return newest;
    }

    static List<Long> ts(List<Tsdb.Row> rows) {
        return rows.stream().map(r -> r.key().ts()).toList();
    }

    @Test
    void theNewestPointsOfAMetricAcrossEveryBucket() {
        Tsdb.Table tsdb = target.fresh(new Tsdb.Table(conn));
        List<Long> newest = points(tsdb);
        List<Tsdb.Row> every = tsdb.scan(Tsdb.Key.where().metric("cpu.load")).toList();
        assertEquals(newest, ts(every));
        assertTrue(every.stream().map(r -> r.key().salt()).distinct().count() > 1, "spread over several buckets");
        List<Tsdb.Row> three = tsdb.scan(Tsdb.Key.where().metric("cpu.load"), new ScanOptions().limit(3)).toList();
        assertEquals(List.of(NOW - 1000, NOW - 2000, NOW - 3000), ts(three));
        assertEquals(List.of(1.0, 2.0, 3.0), three.stream().map(r -> r.values().value()).toList());
        List<Tsdb.Row> window = tsdb.scan(Tsdb.Key.where().metric("cpu.load").tsBetween(NOW - 10_000, NOW)).toList();
        assertEquals(newest.stream().filter(t -> t >= NOW - 10_000).toList(), ts(window), "a range means its values");
        List<Tsdb.Row> oldest = tsdb.scan(Tsdb.Key.where().metric("cpu.load"), new ScanOptions().reversed(true).limit(2)).toList();
        assertEquals(List.of(NOW - 50_000, NOW - 44_000), ts(oldest));
        List<Tsdb.Row> all = tsdb.scan(new ScanOptions().limit(20)).toList();
        assertEquals(List.of("cpu.loadx", "mem.used", "mem.used"),
                all.subList(all.size() - 3, all.size()).stream().map(r -> r.key().metric()).toList());
    }

    @Test
    void bucketOrderIsAnExplicitOption() {
        Tsdb.Table tsdb = target.fresh(new Tsdb.Table(conn));
        List<Long> newest = points(tsdb);
        List<Tsdb.Row> rows = tsdb.scan(Tsdb.Key.where().metric("cpu.load"), new ScanOptions().bucketOrder(true)).toList();
        List<Integer> salts = rows.stream().map(r -> r.key().salt()).toList();
        assertEquals(salts.stream().sorted().toList(), salts, "one bucket after the other");
        assertEquals(newest, ts(rows).stream().sorted(Comparator.reverseOrder()).toList());
        Map<Integer, List<Long>> byBucket = rows.stream()
                .collect(Collectors.groupingBy(r -> r.key().salt(), Collectors.mapping(r -> r.key().ts(), Collectors.toList())));
        for (List<Long> inBucket : byBucket.values()) {
            assertEquals(inBucket.stream().sorted(Comparator.reverseOrder()).toList(), inBucket, "each bucket newest first");
        }
        List<Tsdb.Row> one = tsdb.scan(Tsdb.Key.where().metric("cpu.load"), new ScanOptions().bucketOrder(true).limit(1)).toList();
        assertEquals(List.of(salts.get(0)), one.stream().map(r -> r.key().salt()).toList());
    }

    @Test
    void aMetricPrefixAcrossEveryBucket() {
        Tsdb.Table tsdb = target.fresh(new Tsdb.Table(conn));
        List<Long> newest = points(tsdb);
        List<Tsdb.Row> cpu = tsdb.scan(Tsdb.Key.where().metricStartsWith("cpu.")).toList();
        List<String> want = new ArrayList<>(newest.stream().map(t -> "cpu.load@" + t).toList());
        want.add("cpu.loadx@" + NOW);
        assertEquals(want, cpu.stream().map(r -> r.key().metric() + "@" + r.key().ts()).toList());
        List<Tsdb.Row> filtered = tsdb.scan(new ScanOptions().filter(Tsdb.Key.where().metricStartsWith("cpu.").filter())).toList();
        assertEquals(cpu.stream().map(r -> Arrays.toString(r.rowKey())).toList(),
                filtered.stream().map(r -> Arrays.toString(r.rowKey())).toList(), "the same rows as a PrefixFilter");
    }

    /**
     * Seed 004's directories; {@code |} is the key's separator and a backslash its escape, so
     * both are escaped in the keys, and {@code /dir10} shares the text {@code /dir1} without
     * being under it.
     */
    static final List<String> PATHS = List.of("/", "/dir1", "/dir1/dir2", "/dir1/dir2/dir4", "/dir1/dir3", "/dir1/a|b", "/dir10",
            "/dir1|odd", "/dir1\\x", "/dir2");

    /** The paths starting with {@code prefix}, in key order (escaped bytes). */
    static List<String> under(String prefix) {
        return PATHS.stream().filter(p -> p.startsWith(prefix))
                .sorted((a, b) -> Arrays.compareUnsigned(new DriveDirectories.Key(a).encode(), new DriveDirectories.Key(b).encode()))
                .toList();
    }

    static List<String> paths(List<DriveDirectories.Row> rows) {
        return rows.stream().map(r -> r.key().path()).toList();
    }

    @Test
    void aSubtreeOfEscapedPaths() {
        DriveDirectories.Table dirs = target.fresh(new DriveDirectories.Table(conn));
        List<Map.Entry<DriveDirectories.Key, DriveDirectories.Values>> rows = new ArrayList<>();
        for (int i = 0; i < PATHS.size(); i++) {
            DriveDirectories.Values v = new DriveDirectories.Values().creator("tom");
            v.children().put("d_" + i, "1");
            rows.add(Map.entry(new DriveDirectories.Key(PATHS.get(i)), v));
        }
        dirs.putMany(rows);
        List<String> sub = paths(dirs.scan(DriveDirectories.Key.where().pathStartsWith("/dir1/")).toList());
        assertEquals(List.of("/dir1/a|b", "/dir1/dir2", "/dir1/dir2/dir4", "/dir1/dir3"), sub);
        assertEquals(under("/dir1/"), sub);
        for (String prefix : List.of("/dir1", "/dir1|", "/dir1\\", "/dir1/dir2", "/", "", "/nothing")) {
            assertEquals(under(prefix), paths(dirs.scan(DriveDirectories.Key.where().pathStartsWith(prefix)).toList()), prefix);
        }
        assertEquals(List.of("/dir1/dir3", "/dir1/dir2/dir4"),
                paths(dirs.scan(DriveDirectories.Key.where().pathStartsWith("/dir1/"), new ScanOptions().reversed(true).limit(2)).toList()));
        assertEquals(sub, paths(dirs.scan(new ScanOptions().filter(DriveDirectories.Key.where().pathStartsWith("/dir1/").filter())).toList()),
                "the same subtree as a server-side PrefixFilter");
        List<DriveDirectories.Row> odd = dirs.scan(DriveDirectories.Key.where().pathStartsWith("/dir1|")).toList();
        assertEquals(List.of("/dir1|odd"), paths(odd));
        assertEquals("tom", odd.get(0).values().creator());
    }
}
