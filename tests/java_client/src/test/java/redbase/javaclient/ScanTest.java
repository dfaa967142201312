package redbase.javaclient;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Scans: row ranges, reversed, limits, time ranges, versions, caching, batch, columns. */
class ScanTest extends ClientBase {
  static Table t;
  static Table split;
  static final List<String> ROWS = new ArrayList<>();

  /** rows k00..k19: cf:a at 10 and 20 ("aNN-10", "aNN-20"), cf:b at 30, cg:c at 40 on even rows */
  @BeforeAll
  static void load() throws IOException {
    t = create("scan", 3, null, "cf", "cg");
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String k = String.format("k%02d", i);
      ROWS.add(k);
      Put p = new Put(b(k)).addColumn(b("cf"), b("a"), 10, b("a" + i + "-10"))
          .addColumn(b("cf"), b("a"), 20, b("a" + i + "-20"))
          .addColumn(b("cf"), b("b"), 30, b("b" + i));
      if (i % 2 == 0) {
        p.addColumn(b("cg"), b("c"), 40, b("c" + i));
      }
      puts.add(p);
    }
    t.put(puts);
    // 16 regions, 3 rows in each: "<h>0", "<h>5", "<h>9"
    split = create("scansplit", 1, hexSplits(), "cf");
    List<Put> sp = new ArrayList<>();
    for (char c : "0123456789abcdef".toCharArray()) {
      for (String d : List.of("0", "5", "9")) {
        sp.add(new Put(b(c + d)).addColumn(b("cf"), b("q"), b("v")));
      }
    }
    split.put(sp);
  }

  @Test
  void fullScanInOrder() throws IOException {
    assertEquals(ROWS, rows(t, new Scan()));
    Result first = scanAll(t, new Scan()).get(0);
    assertEquals(List.of("k00/cf:a@20=a0-20", "k00/cf:b@30=b0", "k00/cg:c@40=c0"), cells(first));
  }

  @Test
  void startAndStopRows() throws IOException {
    assertEquals(ROWS.subList(5, 9), rows(t, new Scan().withStartRow(b("k05")).withStopRow(b("k09"))));
    // a start row between keys, no stop row
    assertEquals(ROWS.subList(18, 20), rows(t, new Scan().withStartRow(b("k175"))));
    assertEquals(ROWS.subList(0, 3), rows(t, new Scan().withStopRow(b("k03"))));
    // an inclusive stop row is not carried by TScan: the stop row stays exclusive
    assertEquals(ROWS.subList(5, 9),
        rows(t, new Scan().withStartRow(b("k05")).withStopRow(b("k09"), true)));
    // stop before start: nothing
    assertEquals(List.of(), rows(t, new Scan().withStartRow(b("k10")).withStopRow(b("k05"))));
    assertEquals(List.of(), rows(t, new Scan().withStartRow(b("z"))));
    // row prefix
    assertEquals(ROWS.subList(10, 20), rows(t, new Scan().setRowPrefixFilter(b("k1"))));
  }

  @Test
  void startEqualToStopReadsThatRow() throws IOException {
    // start == stop: HBase treats the scan as a get of that row
    assertEquals(List.of("k10"), rows(t, new Scan().withStartRow(b("k10")).withStopRow(b("k10"))));
    assertEquals(List.of(), rows(t, new Scan().withStartRow(b("k105")).withStopRow(b("k105"))));
  }

  @Test
  void reversed() throws IOException {
    List<String> rev = new ArrayList<>(ROWS);
    Collections.reverse(rev);
    assertEquals(rev, rows(t, new Scan().setReversed(true)));
    // reversed: start is the upper (inclusive) bound, stop the lower (exclusive) one
    assertEquals(List.of("k09", "k08", "k07", "k06"),
        rows(t, new Scan().setReversed(true).withStartRow(b("k09")).withStopRow(b("k05"))));
    // caching 1 on a reversed scan (the client bumps it to 2 and skips the repeated row)
    assertEquals(rev, rows(t, new Scan().setReversed(true).setCaching(1)));
    // the limit applies to each getScannerResults call, and the client goes on calling (see
    // limits()): every row comes back
    assertEquals(rev, rows(t, new Scan().setReversed(true).setLimit(4)));
    // a filter on a reversed scan
    assertEquals(rev.subList(0, 10), rows(t, new Scan().setReversed(true)
        .setFilter(new org.apache.hadoop.hbase.filter.PrefixFilter(b("k1")))));
    assertEquals(List.of("k13", "k12", "k11", "k10"), rows(t, new Scan().setReversed(true)
        .withStartRow(b("k13")).setFilter(new org.apache.hadoop.hbase.filter.PrefixFilter(b("k1")))));
  }

  @Test
  void limitsApplyPerCallSoTheClientReadsOn() throws IOException {
    // ThriftTable's scanner sends the Scan (limit included) with every getScannerResults call
    // and calls again after the last row it got until a call returns nothing: HBase returns
    // `limit` rows per call, and the client ends up with every row
    assertEquals(ROWS, rows(t, new Scan().setLimit(7)));
    assertEquals(ROWS.subList(3, 20), rows(t, new Scan().withStartRow(b("k03")).setLimit(2)));
    assertEquals(ROWS, rows(t, new Scan().setLimit(5).setCaching(2)));
    // one call's worth is visible through next(n) on a fresh scanner
    try (ResultScanner rs = t.getScanner(new Scan().setLimit(3).setCaching(10))) {
      assertEquals(3, rs.next(3).length);
      assertEquals("k03", s(rs.next().getRow()));
    }
  }

  @Test
  void cachingDoesNotChangeResults() throws IOException {
    for (int caching : new int[] {1, 2, 3, 7, 19, 20, 21, 1000}) {
      assertEquals(ROWS, rows(t, new Scan().setCaching(caching)), "caching " + caching);
      assertEquals(ROWS.subList(4, 15), rows(t,
          new Scan().withStartRow(b("k04")).withStopRow(b("k15")).setCaching(caching)));
    }
  }

  @Test
  void batchIsRefusedByTheThriftClient() {
    // ThriftTable's scanner rejects Scan.setBatch before calling the server
    IOException e = assertThrows(IOException.class, () -> t.getScanner(new Scan().setBatch(1)));
    assertTrue(e.getMessage().contains("Batch is not supported"), e.getMessage());
  }

  @Test
  void timeRangesAndVersions() throws IOException {
    Scan s = new Scan().withStartRow(b("k00")).withStopRow(b("k01"));
    assertEquals(List.of("k00/cf:a@10=a0-10"),
        cells(scanAll(t, new Scan(s).setTimeRange(0, 20)).get(0)));
    assertEquals(List.of("k00/cf:a@20=a0-20", "k00/cf:b@30=b0"),
        cells(scanAll(t, new Scan(s).setTimeRange(11, 40)).get(0)));
    assertEquals(List.of("k00/cf:b@30=b0"),
        cells(scanAll(t, new Scan(s).setTimestamp(30)).get(0)));
    assertEquals(List.of("k00/cf:a@20=a0-20", "k00/cf:a@10=a0-10", "k00/cf:b@30=b0",
        "k00/cg:c@40=c0"), cells(scanAll(t, new Scan(s).readVersions(2)).get(0)));
    assertEquals(List.of("k00/cf:a@20=a0-20", "k00/cf:a@10=a0-10", "k00/cf:b@30=b0",
        "k00/cg:c@40=c0"), cells(scanAll(t, new Scan(s).readAllVersions()).get(0)));
    // rows with no cell in the range are left out
    assertEquals(List.of("k00", "k02", "k04"),
        rows(t, new Scan().setTimeRange(35, 50).withStopRow(b("k05"))));
    // per-family time range
    List<String> perFamily =
        cells(scanAll(t, new Scan(s).setColumnFamilyTimeRange(b("cf"), 0, 15)).get(0));
    if (HBASE_FRAMED_GATEWAY) {
      // HBase's framed gateway reads the map key from the start of the frame buffer
      // (Bytes.toBytes(ByteBuffer) copies from index 0): no such family, the range is ignored
      assertEquals(List.of("k00/cf:a@20=a0-20", "k00/cf:b@30=b0", "k00/cg:c@40=c0"), perFamily);
    } else {
      assertEquals(List.of("k00/cf:a@10=a0-10", "k00/cg:c@40=c0"), perFamily);
    }
  }

  @Test
  void familiesAndColumns() throws IOException {
    assertEquals(List.of("k00", "k02", "k04"),
        rows(t, new Scan().addFamily(b("cg")).withStopRow(b("k05"))));
    assertEquals(List.of("k01/cf:b=b1", "k02/cf:b=b2"),
        scanKvs(t, new Scan().addColumn(b("cf"), b("b")).withStartRow(b("k01")).withStopRow(b("k03"))));
    assertEquals(List.of("k02/cf:a=a2-20", "k02/cg:c=c2", "k03/cf:a=a3-20"),
        scanKvs(t, new Scan().addColumn(b("cf"), b("a")).addFamily(b("cg"))
            .withStartRow(b("k02")).withStopRow(b("k04"))));
    // a column that no row has
    assertEquals(List.of(), rows(t, new Scan().addColumn(b("cf"), b("nope"))));
    // an unknown family is an error (at the first next(): the scanner opens lazily)
    IOException e = assertThrows(IOException.class,
        () -> t.getScanner(new Scan().addFamily(b("nofam"))).next());
    assertTIOError(e);
  }

  @Test
  void scannerNextN() throws IOException {
    try (ResultScanner rs = t.getScanner(new Scan().setCaching(3))) {
      Result[] five = rs.next(5);
      assertEquals(5, five.length);
      assertEquals("k04", s(five[4].getRow()));
      assertEquals("k05", s(rs.next().getRow()));
      int rest = 0;
      while (rs.next() != null) {
        rest++;
      }
      assertEquals(14, rest);
      assertNull(rs.next());
    }
  }

  @Test
  void acrossSixteenRegions() throws IOException {
    List<String> all = rows(split, new Scan());
    assertEquals(48, all.size());
    assertEquals("00", all.get(0));
    assertEquals("f9", all.get(47));
    // ranges crossing region boundaries, forward and reversed, with limits and small caching
    assertEquals(List.of("39", "40", "45", "49", "50"),
        rows(split, new Scan().withStartRow(b("39")).withStopRow(b("51"))));
    assertEquals(List.of("50", "49", "45", "40", "39"),
        rows(split, new Scan().setReversed(true).withStartRow(b("50")).withStopRow(b("35"))));
    // limits apply per call (see limitsApplyPerCallSoTheClientReadsOn)
    assertEquals(List.of("a9", "b0", "b5", "b9", "c0", "c5", "c9", "d0", "d5", "d9", "e0", "e5",
        "e9", "f0", "f5", "f9"), rows(split, new Scan().withStartRow(b("a6")).setLimit(7).setCaching(2)));
    assertEquals(List.of("10", "09", "05", "00"),
        rows(split, new Scan().setReversed(true).withStartRow(b("10")).setLimit(3)));
    List<String> rev = rows(split, new Scan().setReversed(true).setCaching(5));
    assertEquals(48, rev.size());
    assertEquals("f9", rev.get(0));
    assertEquals("00", rev.get(47));
  }
}
