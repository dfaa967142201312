package redbase.nativeclient;

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
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Scans across 16 pre-split regions: forward, reversed, bounded, filtered, limited. */
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
          Bytes.toBytes(i % 2 == 0 ? "even" : "odd")));
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
}
