package redbase.javaclient;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every Delete kind of the Java API. Each test writes its own row: cf:a, cf:b and cg:c at
 * timestamps 10, 20 and 30 (value "<q><ts>"), and reads back all versions.
 */
class DeleteTest extends ClientBase {
  static Table t;

  @BeforeAll
  static void setUp() throws IOException {
    t = create("del", 5, null, "cf", "cg");
  }

  private static void load(String row) throws IOException {
    Put p = new Put(b(row));
    for (long ts : new long[] {10, 20, 30}) {
      p.addColumn(b("cf"), b("a"), ts, b("a" + ts)).addColumn(b("cf"), b("b"), ts, b("b" + ts))
          .addColumn(b("cg"), b("c"), ts, b("c" + ts));
    }
    t.put(p);
  }

  /** every version left in the row, as "family:qualifier@ts" */
  private static List<String> left(String row) throws IOException {
    List<String> out = new ArrayList<>();
    for (String c : cells(t.get(new Get(b(row)).readAllVersions()))) {
      out.add(c.substring(c.indexOf('/') + 1, c.indexOf('=')));
    }
    return out;
  }

  private static final List<String> ALL = List.of("cf:a@30", "cf:a@20", "cf:a@10", "cf:b@30",
      "cf:b@20", "cf:b@10", "cg:c@30", "cg:c@20", "cg:c@10");

  private static List<String> allBut(String... gone) {
    List<String> out = new ArrayList<>(ALL);
    out.removeAll(List.of(gone));
    return out;
  }

  @Test
  void addColumnDeletesTheNewestVersionOnly() throws IOException {
    load("c1");
    t.delete(new Delete(b("c1")).addColumn(b("cf"), b("a")));
    assertEquals(allBut("cf:a@30"), left("c1"));
    // again: now 20 is the newest
    t.delete(new Delete(b("c1")).addColumn(b("cf"), b("a")));
    assertEquals(allBut("cf:a@30", "cf:a@20"), left("c1"));
    assertEquals("a10", s(t.get(new Get(b("c1"))).getValue(b("cf"), b("a"))));
  }

  @Test
  void addColumnWithTimestampDeletesThatVersion() throws IOException {
    load("c2");
    t.delete(new Delete(b("c2")).addColumn(b("cf"), b("a"), 20));
    assertEquals(allBut("cf:a@20"), left("c2"));
    // a timestamp with no version: nothing happens
    t.delete(new Delete(b("c2")).addColumn(b("cf"), b("a"), 25));
    assertEquals(allBut("cf:a@20"), left("c2"));
  }

  @Test
  void addColumnsDeletesAllVersions() throws IOException {
    load("c3");
    t.delete(new Delete(b("c3")).addColumns(b("cf"), b("a")));
    assertEquals(allBut("cf:a@30", "cf:a@20", "cf:a@10"), left("c3"));
  }

  @Test
  void addColumnsWithTimestampDeletesUpToIt() throws IOException {
    load("c4");
    t.delete(new Delete(b("c4")).addColumns(b("cf"), b("a"), 20));
    assertEquals(allBut("cf:a@20", "cf:a@10"), left("c4"));
  }

  @Test
  void addFamily() throws IOException {
    load("f1");
    t.delete(new Delete(b("f1")).addFamily(b("cf")));
    assertEquals(List.of("cg:c@30", "cg:c@20", "cg:c@10"), left("f1"));
  }

  @Test
  void addFamilyWithTimestamp() throws IOException {
    load("f2");
    t.delete(new Delete(b("f2")).addFamily(b("cf"), 20));
    assertEquals(allBut("cf:a@20", "cf:a@10", "cf:b@20", "cf:b@10"), left("f2"));
  }

  @Test
  void addFamilyVersion() throws IOException {
    load("f3");
    t.delete(new Delete(b("f3")).addFamilyVersion(b("cf"), 20));
    assertEquals(allBut("cf:a@20", "cf:b@20"), left("f3"));
  }

  @Test
  void wholeRow() throws IOException {
    load("r1");
    t.delete(new Delete(b("r1")));
    assertEquals(List.of(), left("r1"));
    assertFalse(t.exists(new Get(b("r1"))));
  }

  @Test
  void wholeRowWithTimestamp() throws IOException {
    load("r2");
    t.delete(new Delete(b("r2"), 20));
    assertEquals(List.of("cf:a@30", "cf:b@30", "cg:c@30"), left("r2"));
  }

  @Test
  void severalColumnsInOneDelete() throws IOException {
    load("m1");
    // one TDelete carries one delete type. The Java client also builds one TColumn per family,
    // which keeps only the last qualifier/timestamp added for that family: here cf:b <= 20 (not
    // cf:a <= 10) and all of cg:c are deleted
    t.delete(new Delete(b("m1")).addColumns(b("cf"), b("a"), 10).addColumns(b("cf"), b("b"), 20)
        .addColumns(b("cg"), b("c")));
    assertEquals(List.of("cf:a@30", "cf:a@20", "cf:a@10", "cf:b@30"), left("m1"));
    load("m2");
    t.delete(new Delete(b("m2")).addColumn(b("cf"), b("a"), 10).addColumn(b("cg"), b("c")));
    assertEquals(allBut("cf:a@10", "cg:c@30"), left("m2"));
    // mixing kinds is refused by the Java client before any call
    RuntimeException e = assertThrows(RuntimeException.class, () -> t.delete(new Delete(b("m2"))
        .addColumn(b("cf"), b("a")).addColumns(b("cf"), b("b"))));
    assertTrue(e.getMessage().contains("Only the same delete type is supported"), e.getMessage());
  }

  @Test
  void deleteListAndMissingThings() throws IOException {
    load("l1");
    load("l2");
    t.delete(new ArrayList<>(List.of(new Delete(b("l1")).addColumns(b("cg"), b("c")),
        new Delete(b("l2"), 10))));
    assertEquals(allBut("cg:c@30", "cg:c@20", "cg:c@10"), left("l1"));
    assertEquals(List.of("cf:a@30", "cf:a@20", "cf:b@30", "cf:b@20", "cg:c@30", "cg:c@20"),
        left("l2"));
    // deleting a missing row or column is no error
    t.delete(new Delete(b("nothing-here")));
    t.delete(new Delete(b("l1")).addColumns(b("cf"), b("zz")));
    assertEquals(allBut("cg:c@30", "cg:c@20", "cg:c@10"), left("l1"));
    // an unknown family is
    IOException e = assertThrows(IOException.class,
        () -> t.delete(new Delete(b("l1")).addFamily(b("nofam"))));
    assertTIOError(e);
  }

  @Test
  void deleteMarkersMaskOlderPutsWrittenLater() throws IOException {
    load("k1");
    // a column tombstone at 20 hides versions <= 20, also those written after it
    t.delete(new Delete(b("k1")).addColumns(b("cf"), b("a"), 20));
    t.put(new Put(b("k1")).addColumn(b("cf"), b("a"), 15, b("late15")));
    t.put(new Put(b("k1")).addColumn(b("cf"), b("a"), 25, b("late25")));
    assertEquals(List.of("cf:a@30", "cf:a@25"),
        left("k1").stream().filter(c -> c.startsWith("cf:a")).toList());
    // a row delete without timestamp uses the server clock: older explicit puts stay hidden
    t.delete(new Delete(b("k1")));
    t.put(new Put(b("k1")).addColumn(b("cf"), b("a"), 40, b("late40")));
    assertEquals(List.of(), left("k1"));
    // a put without timestamp after the delete is visible again (once the clock moved on)
    tick();
    t.put(new Put(b("k1")).addColumn(b("cf"), b("a"), b("now")));
    assertEquals("now", s(t.get(new Get(b("k1"))).getValue(b("cf"), b("a"))));
  }

  @Test
  void scansSeeDeletes() throws IOException {
    load("s1");
    load("s2");
    load("s3");
    t.delete(new Delete(b("s2")));
    t.delete(new Delete(b("s3")).addFamily(b("cf")));
    assertEquals(List.of("s1", "s3"),
        rows(t, new Scan().withStartRow(b("s")).withStopRow(b("t"))));
    assertEquals(List.of("s1"),
        rows(t, new Scan().addFamily(b("cf")).withStartRow(b("s")).withStopRow(b("t"))));
  }
}
