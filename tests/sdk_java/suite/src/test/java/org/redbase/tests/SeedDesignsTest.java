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
import redbase_examples.Tsdb;

/**
 * The seeds' key designs end to end against a real Thrift2 gateway: seed 003's OpenTSDB-style
 * {@code [salt][metric][Long.MAX_VALUE - ts][host]} (sdks/schemas/opentsdb.toml), read newest
 * first across its 8 salt buckets.
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
}
