package redbase.javaclient;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Puts and point reads: timestamps, versions, columns, families, time ranges, exists, multi-get. */
class DataTest extends ClientBase {
  static Table t;

  /** row "r": cf:a at 10, 20, 30 (a10, a20, a30); cf:b at 10; cg:c at 15 and 25 */
  @BeforeAll
  static void load() throws IOException {
    t = create("data", 5, null, "cf", "cg");
    t.put(new Put(b("r")).addColumn(b("cf"), b("a"), 10, b("a10"))
        .addColumn(b("cf"), b("a"), 20, b("a20")).addColumn(b("cf"), b("b"), 10, b("b10"))
        .addColumn(b("cg"), b("c"), 15, b("c15")));
    // a second put of the same row: versions accumulate
    t.put(new Put(b("r")).addColumn(b("cf"), b("a"), 30, b("a30"))
        .addColumn(b("cg"), b("c"), 25, b("c25")));
  }

  @Test
  void putWithoutTimestampGetsServerClock() throws IOException {
    // Put without a timestamp: the Java client sends HConstants.LATEST_TIMESTAMP
    // (Long.MAX_VALUE); HBase stamps the cell with the server's clock
    long before = System.currentTimeMillis();
    t.put(new Put(b("now")).addColumn(b("cf"), b("q"), b("v")));
    long after = System.currentTimeMillis();
    Cell c = t.get(new Get(b("now"))).getColumnLatestCell(b("cf"), b("q"));
    assertNotNull(c);
    assertNotEquals(HConstants.LATEST_TIMESTAMP, c.getTimestamp());
    // same machine: the server clock lies within a minute of the client's window
    assertTrue(c.getTimestamp() >= before - 60_000 && c.getTimestamp() <= after + 60_000,
        "timestamp " + c.getTimestamp() + " not near [" + before + ", " + after + "]");
    // a later put at an explicit old timestamp does not hide the newer server-stamped cell
    t.put(new Put(b("now")).addColumn(b("cf"), b("q"), 5, b("old")));
    assertEquals("v", s(t.get(new Get(b("now"))).getValue(b("cf"), b("q"))));
    // and a newer put without timestamp wins over the first (a later clock)
    tick();
    t.put(new Put(b("now")).addColumn(b("cf"), b("q"), b("v2")));
    Result r = t.get(new Get(b("now")).readAllVersions());
    assertEquals("v2", s(r.getValue(b("cf"), b("q"))));
    assertEquals(3, r.getColumnCells(b("cf"), b("q")).size());
    assertEquals(5, r.getColumnCells(b("cf"), b("q")).get(2).getTimestamp());
    // Put(row, ts) applies ts to every column added without one
    t.put(new Put(b("rowts"), 77).addColumn(b("cf"), b("q"), b("x")));
    assertEquals(List.of("rowts/cf:q@77=x"), cells(t.get(new Get(b("rowts")))));
  }

  @Test
  void getNewestVersionOfEveryColumnByDefault() throws IOException {
    assertEquals(List.of("r/cf:a@30=a30", "r/cf:b@10=b10", "r/cg:c@25=c25"),
        cells(t.get(new Get(b("r")))));
  }

  @Test
  void getVersions() throws IOException {
    assertEquals(List.of("r/cf:a@30=a30", "r/cf:a@20=a20", "r/cf:b@10=b10", "r/cg:c@25=c25",
        "r/cg:c@15=c15"), cells(t.get(new Get(b("r")).readVersions(2))));
    assertEquals(List.of("r/cf:a@30=a30", "r/cf:a@20=a20", "r/cf:a@10=a10", "r/cf:b@10=b10",
        "r/cg:c@25=c25", "r/cg:c@15=c15"), cells(t.get(new Get(b("r")).readAllVersions())));
  }

  @Test
  void getColumnsAndFamilies() throws IOException {
    assertEquals(List.of("r/cf:b@10=b10"),
        cells(t.get(new Get(b("r")).addColumn(b("cf"), b("b")))));
    assertEquals(List.of("r/cf:a@30=a30", "r/cf:b@10=b10"),
        cells(t.get(new Get(b("r")).addFamily(b("cf")))));
    // a family plus a column of another family
    assertEquals(List.of("r/cf:b@10=b10", "r/cg:c@25=c25"),
        cells(t.get(new Get(b("r")).addColumn(b("cf"), b("b")).addFamily(b("cg")))));
    // a column that does not exist in an existing family: empty result
    Result none = t.get(new Get(b("r")).addColumn(b("cf"), b("zz")));
    assertTrue(none.isEmpty());
    assertNull(none.getRow());
    // an unknown family is an error
    IOException e = assertThrows(IOException.class,
        () -> t.get(new Get(b("r")).addFamily(b("nofam"))));
    assertTIOError(e);
  }

  @Test
  void getTimeRangeAndTimestamp() throws IOException {
    // [min, max): 30 is outside [10, 30)
    assertEquals(List.of("r/cf:a@20=a20", "r/cf:b@10=b10", "r/cg:c@25=c25"),
        cells(t.get(new Get(b("r")).setTimeRange(10, 30))));
    assertEquals(List.of("r/cf:a@20=a20", "r/cf:a@10=a10", "r/cf:b@10=b10", "r/cg:c@25=c25",
        "r/cg:c@15=c15"), cells(t.get(new Get(b("r")).setTimeRange(0, 30).readAllVersions())));
    assertEquals(List.of("r/cf:a@20=a20"), cells(t.get(new Get(b("r")).setTimestamp(20))));
    assertEquals(List.of("r/cf:a@10=a10", "r/cf:b@10=b10"),
        cells(t.get(new Get(b("r")).setTimestamp(10))));
    assertTrue(t.get(new Get(b("r")).setTimestamp(11)).isEmpty());
    // a per-family time range is not sent for a Get (TGet has no such field): no effect
    assertEquals(List.of("r/cf:a@30=a30", "r/cf:b@10=b10", "r/cg:c@25=c25"),
        cells(t.get(new Get(b("r")).setColumnFamilyTimeRange(b("cg"), 0, 20))));
  }

  @Test
  void missingRow() throws IOException {
    Result r = t.get(new Get(b("missing")));
    assertTrue(r.isEmpty());
    assertNull(r.getRow());
    assertEquals(0, r.size());
    assertFalse(t.exists(new Get(b("missing"))));
  }

  @Test
  void existsSingleAndList() throws IOException {
    assertTrue(t.exists(new Get(b("r"))));
    assertTrue(t.exists(new Get(b("r")).addColumn(b("cf"), b("b"))));
    assertFalse(t.exists(new Get(b("r")).addColumn(b("cf"), b("zz"))));
    assertFalse(t.exists(new Get(b("r")).setTimestamp(11)));
    boolean[] got = t.exists(Arrays.asList(new Get(b("r")), new Get(b("missing")),
        new Get(b("r")).addColumn(b("cg"), b("c")), new Get(b("r")).addColumn(b("cg"), b("x"))));
    assertArrayEquals(new boolean[] {true, false, true, false}, got);
  }

  @Test
  void multiGetKeepsOrderAndEmptyResults() throws IOException {
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      puts.add(new Put(b("m" + i)).addColumn(b("cf"), b("q"), 1, b("v" + i)));
    }
    t.put(puts);
    Result[] rs = t.get(Arrays.asList(new Get(b("m3")), new Get(b("nope")), new Get(b("m0")),
        new Get(b("r")).addColumn(b("cf"), b("a")).readVersions(2)));
    assertEquals(4, rs.length);
    assertEquals(List.of("m3/cf:q@1=v3"), cells(rs[0]));
    assertTrue(rs[1].isEmpty());
    assertEquals(List.of("m0/cf:q@1=v0"), cells(rs[2]));
    assertEquals(List.of("r/cf:a@30=a30", "r/cf:a@20=a20"), cells(rs[3]));
    assertEquals(0, t.get(new ArrayList<Get>()).length);
  }

  @Test
  void maxVersionsCapsStoredVersions() throws IOException {
    try (Table two = create("cap", 2, null, "cf")) {
      for (long ts = 1; ts <= 4; ts++) {
        two.put(new Put(b("r")).addColumn(b("cf"), b("q"), ts, b("v" + ts)));
      }
      assertEquals(List.of("r/cf:q@4=v4", "r/cf:q@3=v3"),
          cells(two.get(new Get(b("r")).readAllVersions())));
      // the same timestamp twice: the later write replaces the value
      two.put(new Put(b("r")).addColumn(b("cf"), b("q"), 4, b("again")));
      assertEquals(List.of("r/cf:q@4=again", "r/cf:q@3=v3"),
          cells(two.get(new Get(b("r")).readAllVersions())));
    }
  }

  @Test
  void familyTtlHidesOldCells() throws IOException {
    TableName n = name("ttl");
    admin.createTable(TableDescriptorBuilder.newBuilder(n)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b("cf")).setTimeToLive(60).build())
        .setColumnFamily(family("keep", 3)).build());
    try (Table tt = conn.getTable(n)) {
      long now = System.currentTimeMillis();
      // a cell stamped two minutes ago is already past the family's 60 s TTL
      tt.put(new Put(b("r")).addColumn(b("cf"), b("old"), now - 120_000, b("o"))
          .addColumn(b("cf"), b("new"), now, b("n"))
          .addColumn(b("keep"), b("old"), now - 120_000, b("k")));
      assertEquals(List.of("cf:new=n", "keep:old=k"), kvs(tt.get(new Get(b("r")))));
      assertEquals(List.of("r/cf:new=n", "r/keep:old=k"), scanKvs(tt, new Scan()));
      assertFalse(tt.exists(new Get(b("r")).addColumn(b("cf"), b("old"))));
      // a per-cell TTL (Put.setTTL, sent as the "_ttl" attribute) of 1 ms
      tt.put(new Put(b("c")).addColumn(b("keep"), b("q"), b("short")).setTTL(1));
      tt.put(new Put(b("c")).addColumn(b("keep"), b("p"), b("long")));
      sleep(300);
      assertEquals(List.of("keep:p=long"), kvs(tt.get(new Get(b("c")))));
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void perFamilyLimitAndOffsetOnGet() throws IOException {
    t.put(new Put(b("wide")).addColumn(b("cf"), b("a"), 1, b("1")).addColumn(b("cf"), b("b"), 1, b("2"))
        .addColumn(b("cf"), b("c"), 1, b("3")).addColumn(b("cg"), b("x"), 1, b("4"))
        .addColumn(b("cg"), b("y"), 1, b("5")));
    // sent as TGet storeLimit / storeOffset
    assertEquals(List.of("cf:a=1", "cg:x=4"),
        kvs(t.get(new Get(b("wide")).setMaxResultsPerColumnFamily(1))));
    assertEquals(List.of("cf:b=2", "cf:c=3", "cg:y=5"),
        kvs(t.get(new Get(b("wide")).setRowOffsetPerColumnFamily(1))));
    assertEquals(List.of("cf:b=2", "cg:y=5"), kvs(t.get(new Get(b("wide"))
        .setRowOffsetPerColumnFamily(1).setMaxResultsPerColumnFamily(1))));
  }

  @Test
  void binaryAndEmptyValues() throws IOException {
    byte[] row = {0, (byte) 0xff, 10, 13};
    byte[] val = {0, 1, 2, (byte) 0x80, (byte) 0xff};
    t.put(new Put(row).addColumn(b("cf"), new byte[0], 3, val)
        .addColumn(b("cf"), b("empty"), 3, new byte[0]));
    Result r = t.get(new Get(row));
    assertArrayEquals(row, r.getRow());
    assertArrayEquals(val, r.getValue(b("cf"), new byte[0]));
    assertArrayEquals(new byte[0], r.getValue(b("cf"), b("empty")));
    assertEquals(2, r.size());
  }

  @Test
  void putErrors() {
    IOException e = assertThrows(IOException.class,
        () -> t.put(new Put(b("x")).addColumn(b("nofam"), b("q"), b("v"))));
    assertTIOError(e);
    // a put into a missing table
    IOException e2 = assertThrows(IOException.class, () -> {
      try (Table missing = conn.getTable(org.apache.hadoop.hbase.TableName.valueOf(PREFIX + "missing"))) {
        missing.put(new Put(b("x")).addColumn(b("cf"), b("q"), b("v")));
      }
    });
    assertTIOError(e2);
  }
}
