package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redbase.sdk.BatchException;
import org.redbase.sdk.BufferedWriter;
import org.redbase.sdk.Cell;
import org.redbase.sdk.Connection;
import org.redbase.sdk.KeyEncodingException;
import org.redbase.sdk.TableClient;
import org.redbase.sdk.WriteOptions;
import redbase_examples.AccessLogs;
import redbase_examples.SocialUsage;

/**
 * Batch writes end to end: putMany/deleteMany in bounded chunks, increments per row, atomic
 * mutateRow, per-row failures, and the buffered writer's flushes by size, time, flush and close.
 */
class BatchesTest {
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

    static AccessLogs.Key key(int i) {
        return new AccessLogs.Key("user" + i, "sys" + (i % 3), 201501 + i % 12);
    }

    static List<Map.Entry<AccessLogs.Key, AccessLogs.Values>> rows(int n) {
        List<Map.Entry<AccessLogs.Key, AccessLogs.Values>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Map.entry(key(i), new AccessLogs.Values().hits((long) i).lastSeen(1_000L + i)));
        }
        return out;
    }

    static int count(AccessLogs.Table t) {
        return t.scan().toList().size();
    }

    @Test
    void putManyWritesEveryRowInChunks() {
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        var rows = rows(2_345);
        logs.putMany(rows);
        assertEquals(2_345, count(logs));
        for (int i : List.of(0, 999, 1_000, 2_344)) {
            assertEquals(rows.get(i).getValue(), logs.get(key(i)).orElseThrow().values());
        }
        // Small chunks by rows and by bytes: same rows, more calls.
        logs.putMany(rows(50), WriteOptions.DEFAULT.maxRows(7));
        logs.putMany(rows(50), WriteOptions.DEFAULT.maxBytes(100));
        assertEquals(2_345, count(logs));
        logs.deleteMany(rows.subList(0, 1_500).stream().map(Map.Entry::getKey).toList(), WriteOptions.DEFAULT.maxRows(400));
        assertEquals(845, count(logs));
        assertTrue(logs.get(key(10)).isEmpty());
        assertTrue(logs.get(key(1_500)).isPresent());
    }

    @Test
    void keyErrorsComeBeforeAnythingIsSent() {
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        var rows = new ArrayList<>(rows(5));
        rows.add(Map.entry(new AccessLogs.Key("bad user", "s", 201501), new AccessLogs.Values().hits(1L)));
        KeyEncodingException e = assertThrows(KeyEncodingException.class, () -> logs.putMany(rows));
        assertTrue(e.getMessage().startsWith("component user_id:"), e.getMessage());
        assertEquals(0, count(logs));
    }

    @Test
    void perRowFailuresNameTheRowsAndTheOthersAreWritten() {
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        TableClient raw = new TableClient(conn, AccessLogs.DEFINITION);
        byte[] t = {'t'};
        byte[] h = {'h'};
        List<TableClient.RawRow> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            byte[] family = i == 3 || i == 7 ? "nope".getBytes(StandardCharsets.US_ASCII) : t;
            rows.add(new TableClient.RawRow(key(i).encode(), List.of(new Cell(family, h, AccessLogs.Columns.HITS.encode((long) i)))));
        }
        BatchException e = assertThrows(BatchException.class, () -> raw.putMany(rows, WriteOptions.DEFAULT.maxRows(4)));
        assertEquals(List.of(3, 7), e.failures().stream().map(BatchException.Failure::index).toList());
        assertEquals(HexFormat.of().formatHex(key(3).encode()), HexFormat.of().formatHex(e.failures().get(0).row()));
        assertTrue(e.failures().get(0).message().contains("nope"), e.failures().get(0).message());
        assertTrue(e.getMessage().startsWith("putMultiple " + target.label("access-logs") + ": 2 rows failed: #3 "), e.getMessage());
        assertEquals(8, count(logs), "the other rows are written");
    }

    @Test
    void incrementManyOneCallPerRowWithAllItsCounters() {
        SocialUsage.Table social = target.fresh(new SocialUsage.Table(conn));
        SocialUsage.Key ann = new SocialUsage.Key("ann");
        SocialUsage.Key bob = new SocialUsage.Key("bob");
        List<SocialUsage.Values> out = social.incrementMany(List.of(
                Map.entry(ann, new SocialUsage.Increments().fbTotal(2).fbUsage(201510, 2).twUsage(201510, 1)),
                Map.entry(bob, new SocialUsage.Increments().fbTotal(5)),
                Map.entry(ann, new SocialUsage.Increments().fbTotal(1))));
        assertEquals(3, out.size());
        assertEquals(2L, out.get(0).fbTotal());
        assertEquals(Map.of(201510, 2L), out.get(0).fbUsage());
        assertEquals(Map.of(201510, 1L), out.get(0).twUsage());
        assertEquals(5L, out.get(1).fbTotal());
        assertEquals(3L, out.get(2).fbTotal());
        assertEquals(3L, social.get(ann).orElseThrow().values().fbTotal());
        assertEquals(6L, social.increment(bob, new SocialUsage.Increments().fbTotal(1)).fbTotal());
    }

    @Test
    void mutateRowPutsAndDeletesAtomically() {
        SocialUsage.Table social = target.fresh(new SocialUsage.Table(conn));
        SocialUsage.Key k = new SocialUsage.Key("cy");
        social.put(k, new SocialUsage.Values().fbId("f1").twId("t1").fbUsage(201510, 4L));
        social.mutateRow(k, new SocialUsage.Values().fbId("f2"), SocialUsage.Columns.TW_ID, SocialUsage.Columns.FB_USAGE.at(201510));
        SocialUsage.Values v = social.get(k).orElseThrow().values();
        assertEquals("f2", v.fbId());
        assertNull(v.twId());
        assertEquals(Map.of(), v.fbUsage());
    }

    @Test
    void writerFlushesBySizeAndOnClose() {
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        AccessLogs.Table reader = new AccessLogs.Table(target.connect());
        try (AccessLogs.Writer w = logs.writer(BufferedWriter.Options.DEFAULT.maxRows(10).flushInterval(Duration.ofMinutes(5)))) {
            for (int i = 0; i < 25; i++) {
                w.put(key(i), new AccessLogs.Values().hits((long) i));
            }
            assertEquals(5, w.buffered());
            assertEquals(20, count(reader), "two flushes of 10 rows");
            w.flush();
            assertEquals(25, count(reader));
            w.put(key(100), new AccessLogs.Values().hits(1L));
            assertEquals(25, count(reader));
        }
        assertEquals(26, count(reader), "close flushes");
        try (AccessLogs.Writer w = logs.writer(BufferedWriter.Options.DEFAULT.maxBytes(200).flushInterval(Duration.ofMinutes(5)))) {
            for (int i = 200; i < 230; i++) {
                w.put(key(i), new AccessLogs.Values().hits((long) i));
            }
            assertTrue(w.buffered() < 30, "flushed by bytes");
        }
        assertEquals(56, count(reader));
    }

    @Test
    void writerFlushesByTimeWithoutAnotherCall() throws Exception {
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        AccessLogs.Table reader = new AccessLogs.Table(target.connect());
        try (AccessLogs.Writer w = logs.writer(BufferedWriter.Options.DEFAULT.flushInterval(Duration.ofMillis(200)))) {
            w.put(key(1), new AccessLogs.Values().hits(1L));
            assertEquals(0, count(reader));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (count(reader) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(1, count(reader), "flushed by the interval");
            assertEquals(0, w.buffered());
        }
    }

    @Test
    void writerKeepsOrderAndSumsIncrements() {
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        try (AccessLogs.Writer w = logs.writer()) {
            w.put(key(1), new AccessLogs.Values().lastSeen(5L));
            w.delete(key(1));
            w.delete(key(2), 1_000L);   // an older delete marker: the put at the server's clock stays
            w.put(key(2), new AccessLogs.Values().lastSeen(6L));
            w.increment(key(3), new AccessLogs.Increments().hits(1));
            w.increment(key(3), new AccessLogs.Increments().hits(2));
            w.increment(key(4), new AccessLogs.Increments().hits(10));
            w.increment(key(3), new AccessLogs.Increments().hits(4));
            assertEquals(4 + 2, w.buffered(), "increments of one row buffered together are one write");
        }
        assertTrue(logs.get(key(1)).isEmpty(), "put then delete: deleted");
        assertEquals(6L, logs.get(key(2)).orElseThrow().values().lastSeen(), "delete then put: written");
        assertEquals(7L, logs.get(key(3)).orElseThrow().values().hits());
        assertEquals(10L, logs.get(key(4)).orElseThrow().values().hits());
    }

    /**
     * A delete marker hides cells at or before its millisecond: on a fast server, a put or
     * increment sent right after the row's delete lands in that millisecond unless the writer
     * waits. Repeated, since one round passes by luck as often as not.
     */
    @Test
    void aWriteAfterADeleteOfItsRowSurvivesTheDeletesMillisecond() {
        AccessLogs.Table logs = target.fresh(new AccessLogs.Table(conn));
        for (int i = 0; i < 40; i++) {
            AccessLogs.Key k = key(100 + i);
            try (AccessLogs.Writer w = logs.writer()) {
                w.put(k, new AccessLogs.Values().hits(1L));
                w.flush();
                w.delete(k);
                w.put(k, new AccessLogs.Values().lastSeen((long) i));
                w.flush();   // the delete, then the put, in one flush
                w.delete(k);
                w.increment(k, new AccessLogs.Increments().hits(5));
            }
            AccessLogs.Values v = logs.get(k).orElseThrow(() -> new AssertionError("the row is gone")).values();
            assertEquals(5L, v.hits());
            assertEquals(null, v.lastSeen());
        }
    }

    @Test
    void aBackgroundFailureIsThrownByTheNextCallAndClose() throws Exception {
        target.fresh(new AccessLogs.Table(conn));
        TableClient raw = new TableClient(conn, AccessLogs.DEFINITION);
        byte[] bad = "nope".getBytes(StandardCharsets.US_ASCII);
        BufferedWriter w = new BufferedWriter(raw, BufferedWriter.Options.DEFAULT.flushInterval(Duration.ofMillis(100)));
        w.put(key(1).encode(), List.of(new Cell(bad, new byte[] {'h'}, new byte[] {1})), Cell.LATEST);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (w.buffered() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        BatchException e = assertThrows(BatchException.class, () -> w.put(key(2).encode(), List.of(), Cell.LATEST));
        assertEquals(1, e.failures().size());
        assertTrue(e.getMessage().startsWith("buffered writes to " + target.label("access-logs") + ": 1 row failed"), e.getMessage());
        w.put(key(3).encode(), List.of(new Cell(bad, new byte[] {'h'}, new byte[] {1})), Cell.LATEST);
        assertThrows(BatchException.class, w::close);
        assertThrows(IllegalStateException.class, () -> w.delete(key(1).encode(), Cell.LATEST));
    }
}
