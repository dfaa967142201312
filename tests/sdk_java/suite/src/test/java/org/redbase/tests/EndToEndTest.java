package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redbase.sdk.Codecs;
import org.redbase.sdk.Connection;
import org.redbase.sdk.KeyEncodingException;
import org.redbase.sdk.KeyRange;
import org.redbase.sdk.KeySpec;
import org.redbase.sdk.ScanOptions;
import redbase_examples.AccessLogs;
import redbase_examples.AccessLogsByUser;
import redbase_examples.Books;
import redbase_examples.Counters;
import redbase_examples.DeviceEvents;
import redbase_examples.DriveDirectories;
import redbase_examples.DriveFiles;
import redbase_examples.Events;
import redbase_examples.Leaderboard;
import redbase_examples.Metrics;
import redbase_examples.SensorReadings;
import redbase_examples.SocialUsage;

/**
 * The generated SDK end to end against a real Thrift2 gateway: tables created from the schema
 * with their split keys, typed rows of every column type written and read back, deletes,
 * counters exact under threads, check-and-put, prefix and range scans in key order, salted
 * scans merged by the key without the salt.
 */
class EndToEndTest {
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

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static JsonNode json(String text) throws Exception {
        return Codecs.JSON_MAPPER.readTree(text);
    }

    static List<String> hex(List<byte[]> keys) {
        return keys.stream().map(HexFormat.of()::formatHex).toList();
    }

    static final Comparator<byte[]> BYTEWISE = Arrays::compareUnsigned;

    static boolean sorted(List<byte[]> keys, boolean descending) {
        for (int i = 1; i < keys.size(); i++) {
            int c = Arrays.compareUnsigned(keys.get(i - 1), keys.get(i));
            if (descending ? c <= 0 : c >= 0) {
                return false;
            }
        }
        return true;
    }

    @Test
    void tablesAreCreatedWithTheirSplitKeys() {
        List<byte[]> want = new ArrayList<>(List.of(new byte[0]));
        for (char c : "123456789abcdef".toCharArray()) {
            want.add(new byte[] {(byte) c});
        }
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        assertEquals(hex(want), hex(logs.regionStarts()), "SPLITS => ['1'..'f']");
        Events.Table events = target.fresh(new Events.Table(conn));
        assertEquals(hex(List.of(new byte[0], ascii("b"), ascii("c"), ascii("d"))), hex(events.regionStarts()));
        DeviceEvents.Table devices = target.fresh(new DeviceEvents.Table(conn));
        List<byte[]> buckets = new ArrayList<>(List.of(new byte[0]));
        for (int b = 1; b < 16; b++) {
            buckets.add(new byte[] {(byte) b});
        }
        assertEquals(hex(buckets), hex(devices.regionStarts()));
        DriveFiles.Table files = target.fresh(new DriveFiles.Table(conn));
        assertEquals(List.of("", "40", "80", "c0"), hex(files.regionStarts()), "explicit split keys");
    }

    @Test
    void hashedKeysLandInTheSeedRegions() {
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        List<byte[]> starts = logs.regionStarts();
        Map<String, Integer> regions = Map.of("dave", 1, "elton", 13, "fred", 5);
        for (Map.Entry<String, Integer> e : regions.entrySet()) {
            AccessLogs.Key key = new AccessLogs.Key(e.getKey(), "jericho", 201510);
            logs.put(key, new AccessLogs.Values().lastSeen(1_445_000_000_000L).hits(7L));
            assertEquals(e.getValue(), KeySpec.regionIndex(starts.subList(1, starts.size()), key.encode()));
            AccessLogs.Row row = logs.get(key).orElseThrow();
            assertEquals(new AccessLogs.Values().hits(7L).lastSeen(1_445_000_000_000L), row.values());
            assertEquals(new String(key.encode(), 0, 5, StandardCharsets.US_ASCII), row.key().hash());
            assertEquals("jericho", row.key().systemId());
            assertEquals(201510, row.key().period());
        }
        List<String> printed = TypedExample.run(conn);
        assertEquals("16108 jericho 10", printed.get(0));
        assertTrue(printed.contains("2000=2"), "the version at 2000 is among the newest three: " + printed);
        assertEquals(List.of("201506 6", "201507 7", "201508 8"), printed.subList(printed.size() - 3, printed.size()),
                "hits in [6, 9) of dave's anvil periods 201503..201510");
        assertEquals(13L, logs.get(new AccessLogs.Key("dave", "jericho", 201510)).orElseThrow().values().hits(),
                "10, +2 by incrementMany, +1 by the writer");
    }

    @Test
    void putGetDeleteEveryValueType() throws Exception {
        Books.Table books = target.fresh(new Books.Table(conn));
        Books.Key key = new Books.Key("978-0-13-468599-1");
        byte[] file = new byte[256];
        for (int i = 0; i < 256; i++) {
            file[i] = (byte) i;
        }
        Books.Values values = new Books.Values()
                .title("HBase 实战")
                .author("Dimiduk")
                .date(1_356_998_400L)
                .cover(new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, (byte) 0xff})
                .file(file)
                .pages(-1)
                .rating(4.5f)
                .price(39.99)
                .inPrint(true)
                .tags(json("{\"topics\": [\"hbase\", \"nosql\"], \"level\": 2, \"ok\": null}"))
                .added(-5L);
        books.put(key, values);
        Books.Row row = books.get(key).orElseThrow();
        assertEquals(values, row.values());
        assertEquals("978-0-13-468599-1", row.key().isbn());
        books.put(key, new Books.Values().inPrint(false));
        Books.Values got = books.get(key).orElseThrow().values();
        assertEquals(false, got.inPrint());
        assertEquals("HBase 实战", got.title());
        books.delete(key);
        assertTrue(books.get(key).isEmpty());
    }

    @Test
    void checkAndPut() {
        Books.Table books = target.fresh(new Books.Table(conn));
        Books.Key key = new Books.Key("b1");
        assertTrue(books.checkAndPut(key, Books.Columns.TITLE, null, new Books.Values().title("first")));
        assertFalse(books.checkAndPut(key, Books.Columns.TITLE, null, new Books.Values().title("again")));
        assertFalse(books.checkAndPut(key, Books.Columns.TITLE, "nope", new Books.Values().title("x")));
        assertTrue(books.checkAndPut(key, Books.Columns.TITLE, "first", new Books.Values().title("second").pages(3)));
        Books.Values v = books.get(key).orElseThrow().values();
        assertEquals("second", v.title());
        assertEquals(3, v.pages());
    }

    @Test
    void countersAreExactUnderThreads() throws Exception {
        target.fresh(new Counters.Table(conn));
        Counters.Key key = new Counters.Key("rk1");
        int threads = 8;
        int per = 50;
        List<Thread> workers = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Counters.Table t = new Counters.Table(target.connect());
            Thread th = new Thread(() -> {
                for (int n = 0; n < per; n++) {
                    t.incrementSlots(key, 1);
                    t.incrementSlots(key, 2, 100);
                }
            });
            th.setUncaughtExceptionHandler((x, e) -> {
                synchronized (errors) {
                    errors.add(e);
                }
            });
            workers.add(th);
            th.start();
        }
        for (Thread th : workers) {
            th.join();
        }
        assertEquals(List.of(), errors);
        Counters.Table table = new Counters.Table(conn);
        Counters.Row row = table.get(key).orElseThrow();
        assertEquals(Map.of(1, (long) threads * per, 2, (long) threads * per * 100), row.values().slots());
        assertEquals((long) threads * per, table.incrementSlots(key, 1, 0));
    }

    @Test
    void socialUsagePeriodCounters() {
        SocialUsage.Table social = target.fresh(new SocialUsage.Table(conn));
        SocialUsage.Key key = new SocialUsage.Key("jericho_user");
        social.put(key, new SocialUsage.Values().fbId("fb123").twId("@tw"));
        for (int[] pn : new int[][] {{201510, 3}, {201511, 5}}) {
            for (int i = 0; i < pn[1]; i++) {
                social.incrementFbUsage(key, pn[0]);
                social.incrementFbTotal(key);
            }
        }
        assertEquals(9, social.incrementTwUsage(key, 201510, 9));
        SocialUsage.Values v = social.get(key).orElseThrow().values();
        assertEquals("fb123", v.fbId());
        assertEquals("@tw", v.twId());
        assertEquals(Map.of(201510, 3L, 201511, 5L), v.fbUsage());
        assertEquals(8L, v.fbTotal());
        assertEquals(Map.of(201510, 9L), v.twUsage());
        assertEquals(null, v.twTotal());
    }

    record UserRow(String user, String system, int period) {}

    @Test
    void prefixScansInKeyOrder() {
        AccessLogsByUser.Table logs = target.fresh(new AccessLogsByUser.Table(conn));
        List<UserRow> rows = new ArrayList<>();
        for (String u : List.of("dave", "elton", "fred", "dav")) {
            for (String s : List.of("jericho", "anvil", "zeus")) {
                for (int p : List.of(201512, 201510, 201511)) {
                    rows.add(new UserRow(u, s, p));
                }
            }
        }
        for (int i = 0; i < rows.size(); i++) {
            UserRow r = rows.get(i);
            logs.put(new AccessLogsByUser.Key(r.user(), r.system(), r.period()), new AccessLogsByUser.Values().hits((long) i));
        }
        Comparator<UserRow> order = Comparator.comparing(UserRow::user)
                .thenComparing(UserRow::system).thenComparingInt(UserRow::period);
        List<UserRow> got = logs.scan(AccessLogsByUser.Key.prefix("dave")).toList().stream()
                .map(r -> new UserRow(r.key().userId(), r.key().systemId(), r.key().period())).toList();
        assertEquals(rows.stream().filter(r -> r.user().equals("dave")).sorted(order).toList(), got,
                "a prefix is a whole component: no 'dav'");
        List<Integer> periods = logs.scan(AccessLogsByUser.Key.prefix("elton", "zeus")).toList().stream()
                .map(r -> r.key().period()).toList();
        assertEquals(List.of(201510, 201511, 201512), periods);
        List<byte[]> everything = logs.scan().toList().stream().map(AccessLogsByUser.Row::rowKey).toList();
        assertEquals(rows.size(), everything.size());
        assertTrue(sorted(everything, false));
    }

    @Test
    void rangeScansReversedWithLimit() {
        AccessLogsByUser.Table logs = target.fresh(new AccessLogsByUser.Table(conn));
        for (String u : List.of("a", "b", "c", "d", "e")) {
            for (int p : List.of(201510, 201511)) {
                logs.put(new AccessLogsByUser.Key(u, "s", p), new AccessLogsByUser.Values().hits(1L));
            }
        }
        KeyRange rng = AccessLogsByUser.Key.range(AccessLogsByUser.Key.prefix("b"), AccessLogsByUser.Key.prefix("d"));
        List<String> fwd = names(logs.scan(rng).toList());
        assertEquals(List.of("b201510", "b201511", "c201510", "c201511"), fwd);
        List<String> back = names(logs.scan(rng, ScanOptions.DEFAULT.reversed(true)).toList());
        List<String> want = new ArrayList<>(fwd);
        java.util.Collections.reverse(want);
        assertEquals(want, back);
        assertEquals(want.subList(0, 3), names(logs.scan(rng, ScanOptions.DEFAULT.reversed(true).limit(3)).toList()));
        assertEquals(List.of("a201510", "a201511"), names(logs.scan(ScanOptions.DEFAULT.limit(2)).toList()));
        assertEquals(List.of("e201511", "e201510"),
                names(logs.scan(AccessLogsByUser.Key.prefix("e"), ScanOptions.DEFAULT.reversed(true)).toList()));
        assertEquals(List.of(), logs.scan(AccessLogsByUser.Key.prefix("zz")).toList());
    }

    static List<String> names(List<AccessLogsByUser.Row> rows) {
        return rows.stream().map(r -> r.key().userId() + r.key().period()).toList();
    }

    @Test
    void saltedScansMergeTheBucketsByTheKeyWithoutTheSalt() throws Exception {
        Events.Table events = target.fresh(new Events.Table(conn));
        List<String> names = new ArrayList<>();
        for (int n = 1; n <= 40; n++) {
            names.add(String.format("foo%04d", n));
        }
        for (int i = 0; i < names.size(); i++) {
            events.put(new Events.Key(names.get(i)), new Events.Values().payload(json("{\"n\": " + i + "}")).at((long) i));
        }
        List<Events.Row> rows = events.scan().toList();
        List<byte[]> keys = rows.stream().map(Events.Row::rowKey).toList();
        assertEquals(names, events(rows), "the unsalted design's order, across every bucket");
        assertEquals(Set.of(0, 1, 2, 3), rows.stream().map(r -> r.key().salt()).collect(Collectors.toSet()));
        for (Events.Row r : rows) {
            assertEquals("abcd".charAt(r.key().salt()), (char) r.rowKey()[0]);
        }
        List<String> backward = new ArrayList<>(names);
        java.util.Collections.reverse(backward);
        assertEquals(backward, events(events.scan(new ScanOptions().reversed(true)).toList()));
        assertEquals(names.subList(0, 5), events(events.scan(new ScanOptions().limit(5)).toList()));
        assertEquals(backward.subList(0, 3), events(events.scan(new ScanOptions().reversed(true).limit(3)).toList()));
        assertEquals(names.subList(6, 12), events(events.scan(Events.Key.where().eventBetween("foo0007", "foo0012")).toList()));
        List<byte[]> byBucket = events.scan(new ScanOptions().bucketOrder(true)).toList().stream().map(Events.Row::rowKey).toList();
        assertEquals(hex(keys.stream().sorted(BYTEWISE).toList()), hex(byBucket), "bucket order: bucket a's rows, then b's, ...");
        List<byte[]> byBucketBack = events.scan(new ScanOptions().bucketOrder(true).reversed(true)).toList().stream().map(Events.Row::rowKey).toList();
        assertEquals(hex(keys.stream().sorted(BYTEWISE.reversed()).toList()), hex(byBucketBack));
        List<Events.Row> one = events.scan(Events.Key.prefix("foo0003")).toList();
        assertEquals(1, one.size());
        assertEquals("foo0003", one.get(0).key().event());
        assertEquals(json("{\"n\": 2}"), one.get(0).values().payload());
        List<byte[]> starts = events.regionStarts();
        for (Events.Row r : rows) {
            assertEquals(r.key().salt(), KeySpec.regionIndex(starts.subList(1, starts.size()), r.rowKey()));
        }
    }

    static List<String> events(List<Events.Row> rows) {
        return rows.stream().map(r -> r.key().event()).toList();
    }

    @Test
    void binarySaltedKeysScanByDevice() {
        DeviceEvents.Table t = target.fresh(new DeviceEvents.Table(conn));
        for (String dev : List.of("d1", "d2", "d1x")) {
            for (long seq : List.of(3L, -1L, 1L << 40, 0L)) {
                DeviceEvents.Key k = new DeviceEvents.Key(dev, seq);
                t.put(k, new DeviceEvents.Values().kind(dev + ":" + seq));
                t.incrementCount(k, seq % 7);
            }
        }
        List<DeviceEvents.Row> got = t.scan(DeviceEvents.Key.prefix("d1")).toList();
        assertEquals(List.of(-1L, 0L, 3L, 1L << 40), got.stream().map(r -> r.key().seq()).toList(), "in seq order across the 16 buckets");
        assertTrue(got.stream().allMatch(r -> r.key().device().equals("d1")));
        for (DeviceEvents.Row r : got) {
            assertEquals(r.key().seq() % 7, r.values().count());
        }
    }

    @Test
    void reverseTimestampsReadNewestFirst() {
        Metrics.Table metrics = target.fresh(new Metrics.Table(conn));
        for (long ts : List.of(1000L, 3000L, 2000L)) {
            metrics.put(new Metrics.Key("cpu", "host|1", ts), new Metrics.Values().value(ts / 10.0).unit("%"));
        }
        metrics.put(new Metrics.Key("cpu", "host|2", 5000), new Metrics.Values().value(1.0));
        assertEquals(List.of(3000L, 2000L, 1000L),
                metrics.scan(Metrics.Key.prefix("cpu", "host|1")).toList().stream().map(r -> r.key().ts()).toList());
        SensorReadings.Table sensors = target.fresh(new SensorReadings.Table(conn));
        for (long ts : List.of(10L, 30L, 20L)) {
            sensors.put(new SensorReadings.Key(-7, ts), new SensorReadings.Values().celsius(ts + 0.5f).ok(ts != 20));
        }
        List<SensorReadings.Row> rows = sensors.scan(SensorReadings.Key.prefix(-7L), ScanOptions.DEFAULT.limit(2)).toList();
        assertEquals(List.of("30 30.5 true", "20 20.5 false"), rows.stream()
                .map(r -> r.key().ts() + " " + r.values().celsius() + " " + r.values().ok()).toList());
    }

    @Test
    void descComponentsSortHighestFirst() throws Exception {
        Leaderboard.Table board = target.fresh(new Leaderboard.Table(conn));
        Map<String, Long> scores = Map.of("ann", 10L, "bob", 300L, "cy", -5L, "dee", 300L);
        for (Map.Entry<String, Long> e : new java.util.TreeMap<>(scores).entrySet()) {
            board.put(new Leaderboard.Key("chess", e.getValue(), e.getKey()),
                    new Leaderboard.Values().player(json("{\"name\": \"" + e.getKey() + "\"}")));
        }
        board.put(new Leaderboard.Key("go", 1, "zed"), new Leaderboard.Values().player(json("null")));
        List<String> got = board.scan(Leaderboard.Key.prefix("chess")).toList().stream()
                .map(r -> r.key().score() + " " + r.key().name()).toList();
        assertEquals(List.of("300 bob", "300 dee", "10 ann", "-5 cy"), got);
        Leaderboard.Row zed = board.get(new Leaderboard.Key("go", 1, "zed")).orElseThrow();
        assertTrue(zed.values().player().isNull(), "JSON null is a value, not an absent cell");
    }

    @Test
    void cloudDriveDirectoriesAndFiles() {
        DriveDirectories.Table dirs = target.fresh(new DriveDirectories.Table(conn));
        DriveFiles.Table files = target.fresh(new DriveFiles.Table(conn));
        byte[] fid = HexFormat.of().parseHex("9f1c2a7e00ff4b1d8a6b0c3d4e5f6071");
        files.put(new DriveFiles.Key(fid),
                new DriveFiles.Values().content(ascii("%PDF")).creator("alice").size(4L).fileType("pdf"));
        dirs.put(new DriveDirectories.Key("/home/alice"), new DriveDirectories.Values()
                .children("d_photos", "").children("f_cv.pdf", HexFormat.of().formatHex(fid)).creator("alice"));
        dirs.put(new DriveDirectories.Key("/home/alice|odd"), new DriveDirectories.Values().creator("alice"));
        DriveDirectories.Row row = dirs.get(new DriveDirectories.Key("/home/alice")).orElseThrow();
        assertEquals(Map.of("d_photos", "", "f_cv.pdf", HexFormat.of().formatHex(fid)), row.values().children());
        DriveFiles.Row f = files.get(new DriveFiles.Key(HexFormat.of().parseHex(row.values().children().get("f_cv.pdf"))))
                .orElseThrow();
        assertEquals(4L, f.values().size());
        assertArrayEquals(fid, f.key().fileId());
        assertEquals(List.of("/home/alice", "/home/alice|odd"),
                dirs.scan().toList().stream().map(r -> r.key().path()).toList());
        assertThrows(KeyEncodingException.class, () -> new DriveFiles.Key(ascii("short")).encode());
    }

    @Test
    void errorsSayWhatFailed() {
        Books.Table missing = new Books.Table(conn);
        if (missing.exists()) {
            missing.drop();
        }
        org.redbase.sdk.ThriftException e =
                assertThrows(org.redbase.sdk.ThriftException.class, () -> missing.get(new Books.Key("x")));
        assertTrue(e.getMessage().startsWith("get " + target.label("books") + ": "), e.getMessage());
        KeyEncodingException k = assertThrows(KeyEncodingException.class,
                () -> new AccessLogs.Key("dave", "jericho", -1).encode());
        assertTrue(k.getMessage().contains("period"), k.getMessage());
        assertThrows(KeyEncodingException.class, () -> new AccessLogs.Key("da ve", "jericho", 1).encode());
    }
}
