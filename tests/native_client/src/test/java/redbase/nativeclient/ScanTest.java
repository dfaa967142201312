package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.InclusiveStopFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scans across 16 pre-split regions: forward, reversed, bounded, filtered, limited; filters
 * that are done end the scan without visiting the remaining regions; scan metrics.
 */
class ScanTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static TableName name;
  private static final List<String> ROWS = new ArrayList<>();

  @BeforeAll
  static void load() throws Exception {
    byte[][] splits = new byte[15][];
    for (int i = 1; i < 16; i++) {
      splits[i - 1] = Bytes.toBytes(String.format("%x", i));
    }
    name = Cluster.createTable("scan", splits, "f");
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < 256; i++) {
      String row = String.format("%02x", i);
      ROWS.add(row);
      puts.add(new Put(Bytes.toBytes(row)).addColumn(F, Bytes.toBytes("q"),
          Bytes.toBytes(i % 2 == 0 ? "even" : "odd")).addColumn(F, Bytes.toBytes("n"),
          Bytes.toBytes(i)));
    }
    try (Table t = Cluster.connection().getTable(name)) {
      t.put(puts);
    }
  }

  private static List<String> rows(Scan scan) throws Exception {
    List<String> out = new ArrayList<>();
    try (Table t = Cluster.connection().getTable(name); ResultScanner s = t.getScanner(scan)) {
      for (Result r : s) {
        out.add(Bytes.toString(r.getRow()));
      }
    }
    return out;
  }

  @Test
  void forwardAndReversedOverEveryRegion() throws Exception {
    assertEquals(ROWS, rows(new Scan()));
    assertEquals(ROWS, rows(new Scan().setCaching(7)));
    List<String> reversed = new ArrayList<>(ROWS);
    Collections.reverse(reversed);
    assertEquals(reversed, rows(new Scan().setReversed(true)));
    assertEquals(reversed, rows(new Scan().setReversed(true).setCaching(5)));
  }

  @Test
  void boundsInBothDirections() throws Exception {
    assertEquals(ROWS.subList(0x1e, 0x42),
        rows(new Scan().withStartRow(Bytes.toBytes("1e")).withStopRow(Bytes.toBytes("42"))));
    assertEquals(ROWS.subList(0x1f, 0x43), rows(new Scan()
        .withStartRow(Bytes.toBytes("1e"), false).withStopRow(Bytes.toBytes("42"), true)));
    List<String> down = new ArrayList<>(ROWS.subList(0x21, 0x51));
    Collections.reverse(down);
    assertEquals(down, rows(new Scan().setReversed(true)
        .withStartRow(Bytes.toBytes("50")).withStopRow(Bytes.toBytes("20"))));
    assertEquals(ROWS.subList(0, 10), rows(new Scan().setLimit(10)));
  }

  @Test
  void filters() throws Exception {
    assertEquals(ROWS.subList(0xa0, 0xb0), rows(new Scan().setFilter(
        new PrefixFilter(Bytes.toBytes("a")))));
    List<String> even = new ArrayList<>();
    for (int i = 0; i < 256; i += 2) {
      even.add(ROWS.get(i));
    }
    assertEquals(even, rows(new Scan().setFilter(new SingleColumnValueFilter(F,
        Bytes.toBytes("q"), CompareOperator.EQUAL, Bytes.toBytes("even")))));
  }

  private static List<String> reversed(List<String> rows) {
    List<String> out = new ArrayList<>(rows);
    Collections.reverse(out);
    return out;
  }

  private static SingleColumnValueFilter isEven() {
    return new SingleColumnValueFilter(F, Bytes.toBytes("q"), CompareOperator.EQUAL,
        Bytes.toBytes("even"));
  }

  /** Every result of the scan, forward and reversed both checked against `expected`. */
  private static void bothWays(List<String> expected, Filter forward, Filter backward)
      throws Exception {
    assertEquals(expected, rows(new Scan().setFilter(forward)));
    assertEquals(reversed(expected), rows(new Scan().setReversed(true).setFilter(backward)));
  }

  @Test
  void moreFiltersBothWays() throws Exception {
    bothWays(ROWS.subList(0xa0, 0xb0), new PrefixFilter(Bytes.toBytes("a")),
        new PrefixFilter(Bytes.toBytes("a")));
    bothWays(ROWS.subList(0xa0, 0xc0),
        new FilterList(FilterList.Operator.MUST_PASS_ONE, new PrefixFilter(Bytes.toBytes("a")),
            new PrefixFilter(Bytes.toBytes("b"))),
        new FilterList(FilterList.Operator.MUST_PASS_ONE, new PrefixFilter(Bytes.toBytes("a")),
            new PrefixFilter(Bytes.toBytes("b"))));
    List<String> evenA = new ArrayList<>();
    for (int i = 0xa0; i < 0xb0; i += 2) {
      evenA.add(ROWS.get(i));
    }
    bothWays(evenA,
        new FilterList(FilterList.Operator.MUST_PASS_ALL, new PrefixFilter(Bytes.toBytes("a")),
            isEven()),
        new FilterList(FilterList.Operator.MUST_PASS_ALL, new PrefixFilter(Bytes.toBytes("a")),
            isEven()));
    // Column filters keep every row with the chosen cells; KeyOnly empties the values.
    try (Table t = Cluster.connection().getTable(name)) {
      Filter[] columnFilters = {
        new ColumnPrefixFilter(Bytes.toBytes("n")),
        new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(Bytes.toBytes("n"))),
      };
      for (Filter f : columnFilters) {
        for (boolean rev : new boolean[] {false, true}) {
          int count = 0;
          try (ResultScanner s = t.getScanner(new Scan().setReversed(rev).setFilter(f))) {
            for (Result r : s) {
              int i = rev ? 255 - count : count;
              assertEquals(1, r.size());
              assertEquals(i, Bytes.toInt(r.getValue(F, Bytes.toBytes("n"))));
              count++;
            }
          }
          assertEquals(256, count, f + " reversed=" + rev);
        }
      }
      int count = 0;
      try (ResultScanner s = t.getScanner(new Scan().setFilter(new KeyOnlyFilter()))) {
        for (Result r : s) {
          assertEquals(2, r.size());
          assertArrayEquals(new byte[0], r.getValue(F, Bytes.toBytes("q")));
          count++;
        }
      }
      assertEquals(256, count);
    }
  }

  /** The rows of a scan with metrics on, and how many regions the client opened. */
  private static int regionsOpened(Scan scan, List<String> out) throws Exception {
    scan.setScanMetricsEnabled(true);
    try (Table t = Cluster.connection().getTable(name); ResultScanner s = t.getScanner(scan)) {
      for (Result r : s) {
        out.add(Bytes.toString(r.getRow()));
      }
      return (int) s.getScanMetrics().countOfRegions.get();
    }
  }

  @Test
  void aDoneFilterEndsTheScan() throws Exception {
    // The first region's rows, then the second region's first row ends the filter with no
    // rows in that round trip: the server says the scan is over and no third region opens.
    List<String> got = new ArrayList<>();
    int regions = regionsOpened(new Scan().setFilter(
        new WhileMatchFilter(new PrefixFilter(Bytes.toBytes("0")))), got);
    assertEquals(ROWS.subList(0, 16), got);
    assertEquals(2, regions);
    got.clear();
    regions = regionsOpened(new Scan().setFilter(new InclusiveStopFilter(Bytes.toBytes("05"))),
        got);
    assertEquals(ROWS.subList(0, 6), got);
    assertEquals(2, regions);
    got.clear();
    regions = regionsOpened(new Scan().setReversed(true).setFilter(
        new WhileMatchFilter(new PrefixFilter(Bytes.toBytes("f")))), got);
    assertEquals(reversed(ROWS.subList(0xf0, 0x100)), got);
    assertEquals(2, regions);
    // A PageFilter is done per region: each region's fresh filter gives its first 10 rows.
    got.clear();
    regions = regionsOpened(new Scan().setFilter(new PageFilter(10)), got);
    List<String> pages = new ArrayList<>();
    for (int region = 0; region < 16; region++) {
      pages.addAll(ROWS.subList(region * 16, region * 16 + 10));
    }
    assertEquals(pages, got);
    assertEquals(16, regions);
  }

  @Test
  void scanMetricsCountRowsScannedAndFiltered() throws Exception {
    Scan scan = new Scan().setFilter(isEven()).setScanMetricsEnabled(true).setCaching(20);
    int count = 0;
    ScanMetrics m;
    try (Table t = Cluster.connection().getTable(name); ResultScanner s = t.getScanner(scan)) {
      for (Result r : s) {
        count++;
      }
      m = s.getScanMetrics();
    }
    assertEquals(128, count);
    assertEquals(256, m.countOfRowsScanned.get());
    assertEquals(128, m.countOfRowsFiltered.get());
    assertEquals(16, m.countOfRegions.get());
    assertEquals(true, m.countOfBytesInResults.get() > 0);
  }
}
