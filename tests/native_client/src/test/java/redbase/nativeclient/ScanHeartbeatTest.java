package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * Scan heartbeats and cursor results: a client whose calls time out after 300 ms scans
 * 300,000 rows whose filter keeps three. Reading them takes a server longer than one call may
 * run (about a second for redbase's debug build, which run.sh starts), so the scan can only
 * finish if the server stops each call at its time limit (half the call's timeout) and
 * answers a heartbeat; without heartbeats the first call times out and the scan fails. With
 * Scan.setNeedCursorResult the scanner hands out each heartbeat's cursor (the last row the
 * server read) as a Result whose isCursor() is true; cursors and rows move forward together
 * and the kept rows come once each. How many heartbeats a server sends depends on its speed,
 * so their count is printed, not asserted (`cargo test -p redbase --test native_wire
 * heartbeats` checks exact heartbeats and cursors with a zero time limit).
 */
class ScanHeartbeatTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static final int ROWS = 300_000;
  private static final int CALL_TIMEOUT_MS = 300;

  private static String row(int i) {
    return String.format("r%06d", i);
  }

  @Test
  void aLongFilteredScanAnswersHeartbeatsWithCursors() throws Exception {
    TableName name = Cluster.createTable("heartbeat", null, "f");
    List<String> kept = new ArrayList<>();
    try (BufferedMutator m = Cluster.connection().getBufferedMutator(name)) {
      for (int i = 0; i < ROWS; i++) {
        boolean keep = i % 100_000 == 99_999;
        if (keep) {
          kept.add(row(i));
        }
        m.mutate(new Put(Bytes.toBytes(row(i))).addColumn(F, Q,
            Bytes.toBytes(keep ? "keep" : "skip")));
      }
    }
    // The scanning connection's calls time out quickly; the client puts that timeout in each
    // call's header, and the server takes half of it as the call's time limit.
    Configuration conf = Cluster.configuration();
    conf.setInt("hbase.rpc.timeout", CALL_TIMEOUT_MS);
    conf.setInt("hbase.rpc.read.timeout", CALL_TIMEOUT_MS);
    conf.setInt("hbase.client.scanner.timeout.period", CALL_TIMEOUT_MS);
    Scan scan = new Scan().setNeedCursorResult(true).setFilter(
        new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(Bytes.toBytes("keep"))));
    List<String> got = new ArrayList<>();
    List<String> cursors = new ArrayList<>();
    long tookMs;
    try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(name)) {
      // The region's location cached first: only the scan's own calls are timed.
      assertTrue(t.exists(new Get(Bytes.toBytes(row(0)))));
      long began = System.nanoTime();
      String last = "";
      ResultScanner s = t.getScanner(scan);
      for (Result r : s) {
        String at = Bytes.toString(r.isCursor() ? r.getCursor().getRow() : r.getRow());
        // Cursors and rows move forward together: a cursor is past every row before it.
        assertTrue(at.compareTo(last) > 0, at + " after " + last);
        last = at;
        if (r.isCursor()) {
          cursors.add(at);
        } else {
          got.add(at);
        }
      }
      s.close();
      tookMs = (System.nanoTime() - began) / 1_000_000;
    }
    assertEquals(kept, got);
    System.out.println("ScanHeartbeatTest: " + tookMs + " ms, " + cursors.size() + " cursors");
  }
}
