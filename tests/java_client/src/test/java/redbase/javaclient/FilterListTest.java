package redbase.javaclient;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.FuzzyRowFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SkipFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.util.Pair;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Filter combinations (FilterList AND/OR, nested, SkipFilter, WhileMatchFilter), the row-set
 * filters (MultiRowRangeFilter, FuzzyRowFilter) and PageFilter over a 16-region table.
 * Data: rows u01_a .. u09_c (user 01..09, kind a/b/c = user % 3), cf:v = "val<NN>",
 * cf:k = kind, cg:x = "x" on users 1..4 only.
 */
class FilterListTest extends ClientBase {
  static Table t;
  static final String[] KIND = {"c", "a", "b"};

  @BeforeAll
  static void load() throws IOException {
    t = create("fl", 1, null, "cf", "cg");
    List<Put> puts = new ArrayList<>();
    for (int u = 1; u <= 9; u++) {
      Put p = new Put(b(key(u))).addColumn(b("cf"), b("v"), 1, b(String.format("val%02d", u)))
          .addColumn(b("cf"), b("k"), 1, b(KIND[u % 3]));
      if (u <= 4) {
        p.addColumn(b("cg"), b("x"), 1, b("x"));
      }
      puts.add(p);
    }
    t.put(puts);
  }

  static String key(int u) {
    return String.format("u%02d_%s", u, KIND[u % 3]);
  }

  @Test
  void mustPassAll() throws IOException {
    FilterList and = new FilterList(FilterList.Operator.MUST_PASS_ALL,
        new PrefixFilter(b("u0")),
        new RowFilter(CompareOperator.GREATER_OR_EQUAL, new BinaryComparator(b("u05"))),
        new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(b("v"))));
    assertEquals(List.of("u05_b/cf:v=val05", "u06_c/cf:v=val06", "u07_a/cf:v=val07",
        "u08_b/cf:v=val08", "u09_c/cf:v=val09"), scanKvs(t, new Scan().setFilter(and)));
  }

  @Test
  void mustPassOne() throws IOException {
    FilterList or = new FilterList(FilterList.Operator.MUST_PASS_ONE,
        new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("val02"))),
        new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(b("cg"))));
    assertEquals(List.of("u01_a/cg:x=x", "u02_b/cf:v=val02", "u02_b/cg:x=x", "u03_c/cg:x=x",
        "u04_a/cg:x=x"), scanKvs(t, new Scan().setFilter(or)));
    // an empty list passes everything
    assertEquals(9, rows(t, new Scan().setFilter(new FilterList())).size());
  }

  @Test
  void nestedLists() throws IOException {
    // kind a rows, or (kind b and user >= 5): (k == a) OR (k == b AND row >= u05), whole rows
    SingleColumnValueFilter kindA =
        new SingleColumnValueFilter(b("cf"), b("k"), CompareOperator.EQUAL, b("a"));
    SingleColumnValueFilter kindB =
        new SingleColumnValueFilter(b("cf"), b("k"), CompareOperator.EQUAL, b("b"));
    FilterList inner = new FilterList(FilterList.Operator.MUST_PASS_ALL, kindB,
        new RowFilter(CompareOperator.GREATER_OR_EQUAL, new BinaryComparator(b("u05"))));
    FilterList outer = new FilterList(FilterList.Operator.MUST_PASS_ONE, kindA, inner);
    assertEquals(List.of("u01_a", "u04_a", "u05_b", "u07_a", "u08_b"),
        rows(t, new Scan().setFilter(outer)));
    // AND of an OR list and a key-only filter
    FilterList keys = new FilterList(FilterList.Operator.MUST_PASS_ALL,
        new FilterList(FilterList.Operator.MUST_PASS_ONE, new PrefixFilter(b("u02")),
            new PrefixFilter(b("u08"))),
        new ColumnPrefixFilter(b("k")), new KeyOnlyFilter());
    assertEquals(List.of("u02_b/cf:k=", "u08_b/cf:k="), scanKvs(t, new Scan().setFilter(keys)));
    // the same through a get
    assertEquals(List.of("cf:k="), kvs(t.get(new Get(b("u02_b")).setFilter(keys))));
  }

  @Test
  void skipFilterDropsWholeRows() throws IOException {
    // rows where every cell passes "value != a": rows of kind a are skipped entirely
    SkipFilter skip = new SkipFilter(
        new ValueFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(b("a"))));
    assertEquals(List.of("u02_b", "u03_c", "u05_b", "u06_c", "u08_b", "u09_c"),
        rows(t, new Scan().setFilter(skip)));
    // whole rows come back, all families
    assertEquals(List.of("cf:k=b", "cf:v=val02", "cg:x=x"),
        kvs(scanAll(t, new Scan().withStartRow(b("u02")).setFilter(skip)).get(0)));
  }

  @Test
  void whileMatchEndsTheScan() throws IOException {
    WhileMatchFilter w = new WhileMatchFilter(
        new RowFilter(CompareOperator.LESS, new BinaryComparator(b("u04"))));
    assertEquals(List.of("u01_a", "u02_b", "u03_c"), rows(t, new Scan().setFilter(w)));
    // unlike a plain filter, the first miss ends it: u05.. would pass "kind != a" again
    WhileMatchFilter w2 = new WhileMatchFilter(new SingleColumnValueFilter(b("cf"), b("k"),
        CompareOperator.NOT_EQUAL, b("c")));
    assertEquals(List.of("u01_a", "u02_b"), rows(t, new Scan().setFilter(w2).setCaching(100)));
  }

  @Test
  void multiRowRange() throws IOException {
    List<RowRange> ranges = new ArrayList<>();
    ranges.add(new RowRange(b("u02"), true, b("u04"), false));
    ranges.add(new RowRange(b("u07_a"), true, b("u08_b"), true));
    // overlapping ranges are merged
    ranges.add(new RowRange(b("u03"), true, b("u03_z"), false));
    assertEquals(List.of("u02_b", "u03_c", "u07_a", "u08_b"),
        rows(t, new Scan().setFilter(new MultiRowRangeFilter(ranges))));
    // exclusive start
    List<RowRange> excl = new ArrayList<>();
    excl.add(new RowRange(b("u05_b"), false, b("u07_a"), true));
    assertEquals(List.of("u06_c", "u07_a"),
        rows(t, new Scan().setFilter(new MultiRowRangeFilter(excl))));
  }

  @Test
  void fuzzyRow() throws IOException {
    // "u??_a": mask 0 = this byte must match, 1 = any byte
    FuzzyRowFilter kindA = new FuzzyRowFilter(List.of(
        new Pair<>(b("u00_a"), new byte[] {0, 1, 1, 0, 0})));
    assertEquals(List.of("u01_a", "u04_a", "u07_a"), rows(t, new Scan().setFilter(kindA)));
    // two patterns: any user of kind c, or user 0? of any kind with second digit 2
    FuzzyRowFilter two = new FuzzyRowFilter(List.of(
        new Pair<>(b("u00_c"), new byte[] {0, 1, 1, 0, 0}),
        new Pair<>(b("u02_x"), new byte[] {0, 0, 0, 0, 1})));
    assertEquals(List.of("u02_b", "u03_c", "u06_c", "u09_c"), rows(t, new Scan().setFilter(two)));
  }

  @Test
  void pageFilterCountsPerRegion() throws IOException {
    // 16 regions (splits "1".."f"): 4 rows in region [, "1"), 2 in each other region
    try (Table split = create("page", 1, hexSplits(), "cf")) {
      List<Put> puts = new ArrayList<>();
      List<String> all = new ArrayList<>();
      for (char c : "0123456789abcdef".toCharArray()) {
        for (String r : c == '0' ? List.of("a", "b", "c", "d") : List.of("a", "b")) {
          puts.add(new Put(b(c + r)).addColumn(b("cf"), b("q"), b("v")));
          all.add(c + r);
        }
      }
      split.put(puts);
      assertEquals(34, rows(split, new Scan()).size());
      // HBase evaluates PageFilter in each region separately: one getScannerResults call
      // returns 3 rows of the first region ("0a".."0c") and 2 of each other one, 33 rows. The
      // client then asks again after the last row it got ("fb"): nothing. Row "0d" is never
      // returned. (A page counted over the whole scan would return 3 rows per call, and the
      // client would read on until it has all 34.)
      List<String> want = new ArrayList<>(all);
      want.remove("0d");
      assertEquals(want, rows(split, new Scan().setFilter(new PageFilter(3)).setCaching(100)));
      // the same with the default caching (20 rows per call)
      assertEquals(want, rows(split, new Scan().setFilter(new PageFilter(3))));
      // the first call alone
      try (ResultScanner rs = split.getScanner(new Scan().setFilter(new PageFilter(3)).setCaching(1000))) {
        assertEquals(33, rs.next(1000).length);
      }
      // a page of 1: the first row of each region (16), then the call after "fa" finds "fb"
      assertEquals(17, rows(split, new Scan().setFilter(new PageFilter(1)).setCaching(100)).size());
      // with FirstKeyOnlyFilter in an AND list: the same per-region page
      assertEquals(want, rows(split, new Scan().setCaching(100).setFilter(new FilterList(
          new PageFilter(3), new FirstKeyOnlyFilter()))));
      // PageFilter after a row filter in a list: the page counts rows that passed the list
      // (keys without an "a": region 0 has 3 of them, region a none)
      assertEquals(List.of("0b", "0c", "0d", "1b", "2b", "3b", "4b", "5b", "6b", "7b", "8b",
          "9b", "bb", "cb", "db", "eb", "fb"), rows(split, new Scan().setCaching(100)
              .setFilter(new FilterList(new RowFilter(CompareOperator.NOT_EQUAL,
                  new SubstringComparator("a")), new PageFilter(3)))));
      // the layout with the 4 rows in the last region: the first call returns 3 + 15 x 2 = 33
      // rows, and the call after "fc" brings "fd", so the client gets all 34
      split.delete(new ArrayList<>(List.of(new Delete(b("0c")), new Delete(b("0d")))));
      split.put(List.of(new Put(b("fc")).addColumn(b("cf"), b("q"), b("v")),
          new Put(b("fd")).addColumn(b("cf"), b("q"), b("v"))));
      try (ResultScanner rs = split.getScanner(new Scan().setFilter(new PageFilter(3)).setCaching(1000))) {
        Result[] first = rs.next(33);
        assertEquals(33, first.length);
        assertEquals("fc", s(first[32].getRow()));
        assertEquals("fd", s(rs.next().getRow()));
        assertNull(rs.next());
      }
      assertEquals(34, rows(split, new Scan().setFilter(new PageFilter(3)).setCaching(100)).size());
    }
  }
}
