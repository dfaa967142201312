package redbase.javaclient;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ColumnCountGetFilter;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.ColumnValueFilter;
import org.apache.hadoop.hbase.filter.DependentColumnFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.InclusiveStopFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.TimestampsFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The 19 filters of HBase's filter language as Java Filter objects (sent as protobuf
 * filterBytes), on scans and gets. Data (newest versions; every cell at ts 10 unless noted):
 * <pre>
 * row1  cf:a=apple  cf:b=banana  cg:c=cherry
 * row2  cf:a=apricot (10), avocado (20)  cf:b=blueberry
 * row3  cf:a=Apple  cf:n=5L  cg:c=coconut
 * row4  cf:b=banana  cf:n=100L  cg:d=date (30)
 * row5  cf:a=apple pie  cg:c=citrus (20)
 * rx1   cf:a=x1
 * rx2   cf:b=x2
 * </pre>
 */
class FilterTest extends ClientBase {
  static Table t;

  @BeforeAll
  static void load() throws IOException {
    t = create("flt", 3, null, "cf", "cg");
    List<Put> p = new ArrayList<>();
    p.add(put("row1", "cf:a", 10, "apple").addColumn(b("cf"), b("b"), 10, b("banana"))
        .addColumn(b("cg"), b("c"), 10, b("cherry")));
    p.add(put("row2", "cf:a", 10, "apricot").addColumn(b("cf"), b("a"), 20, b("avocado"))
        .addColumn(b("cf"), b("b"), 10, b("blueberry")));
    p.add(put("row3", "cf:a", 10, "Apple").addColumn(b("cf"), b("n"), 10, org.apache.hadoop.hbase.util.Bytes.toBytes(5L))
        .addColumn(b("cg"), b("c"), 10, b("coconut")));
    p.add(put("row4", "cf:b", 10, "banana").addColumn(b("cf"), b("n"), 10, org.apache.hadoop.hbase.util.Bytes.toBytes(100L))
        .addColumn(b("cg"), b("d"), 30, b("date")));
    p.add(put("row5", "cf:a", 10, "apple pie").addColumn(b("cg"), b("c"), 20, b("citrus")));
    p.add(put("rx1", "cf:a", 10, "x1"));
    p.add(put("rx2", "cf:b", 10, "x2"));
    t.put(p);
  }

  static Put put(String row, String col, long ts, String v) {
    String[] fq = col.split(":");
    return new Put(b(row)).addColumn(b(fq[0]), b(fq[1]), ts, b(v));
  }

  static List<String> scan(Filter f) throws IOException {
    return scanKvs(t, new Scan().setFilter(f));
  }

  static List<String> scanRows(Filter f) throws IOException {
    return rows(t, new Scan().setFilter(f));
  }

  static final String N5 = "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05";
  static final String N100 = "\\x00\\x00\\x00\\x00\\x00\\x00\\x00d";

  @Test
  void keyOnly() throws IOException {
    assertEquals(List.of("row1/cf:a=", "row1/cf:b=", "row1/cg:c="),
        scanKvs(t, new Scan().setFilter(new KeyOnlyFilter()).withStartRow(b("row1")).withStopRow(b("row2"))));
    // lenAsVal: the value becomes the 4-byte length of the original value
    assertEquals(List.of("row1/cf:a=\\x00\\x00\\x00\\x05", "row1/cf:b=\\x00\\x00\\x00\\x06",
        "row1/cg:c=\\x00\\x00\\x00\\x06"), scanKvs(t, new Scan().setFilter(new KeyOnlyFilter(true))
            .withStartRow(b("row1")).withStopRow(b("row2"))));
  }

  @Test
  void firstKeyOnly() throws IOException {
    assertEquals(List.of("row1/cf:a=apple", "row2/cf:a=avocado", "row3/cf:a=Apple",
        "row4/cf:b=banana", "row5/cf:a=apple pie", "rx1/cf:a=x1", "rx2/cf:b=x2"),
        scan(new FirstKeyOnlyFilter()));
  }

  @Test
  void prefix() throws IOException {
    assertEquals(List.of("rx1", "rx2"), scanRows(new PrefixFilter(b("rx"))));
    assertEquals(List.of(), scanRows(new PrefixFilter(b("zz"))));
    // on a get: the row passes or not
    assertEquals(List.of("cf:a=x1"), kvs(t.get(new Get(b("rx1")).setFilter(new PrefixFilter(b("rx"))))));
    assertTrue(t.get(new Get(b("row1")).setFilter(new PrefixFilter(b("rx")))).isEmpty());
  }

  @Test
  void columnPrefix() throws IOException {
    assertEquals(List.of("row1/cf:a=apple", "row2/cf:a=avocado", "row3/cf:a=Apple",
        "row5/cf:a=apple pie", "rx1/cf:a=x1"), scan(new ColumnPrefixFilter(b("a"))));
  }

  @Test
  void multipleColumnPrefix() throws IOException {
    assertEquals(List.of("row1/cf:b=banana", "row2/cf:b=blueberry", "row4/cf:b=banana",
        "row4/cg:d=date", "rx2/cf:b=x2"),
        scan(new MultipleColumnPrefixFilter(new byte[][] {b("d"), b("b")})));
  }

  @Test
  void columnCountGet() throws IOException {
    // on a get: the first n columns of the row
    assertEquals(List.of("cf:a=apple", "cf:b=banana"),
        kvs(t.get(new Get(b("row1")).setFilter(new ColumnCountGetFilter(2)))));
    assertEquals(List.of("cf:a=apple"),
        kvs(t.get(new Get(b("row1")).setFilter(new ColumnCountGetFilter(1)))));
    // on a scan, one row per call (caching 1, a fresh filter each time): 2 columns of each row
    assertEquals(List.of("row1/cf:a=apple", "row1/cf:b=banana", "row2/cf:a=avocado",
        "row2/cf:b=blueberry", "row3/cf:a=Apple", "row3/cf:n=" + N5, "row4/cf:b=banana",
        "row4/cf:n=" + N100, "row5/cf:a=apple pie", "row5/cg:c=citrus", "rx1/cf:a=x1",
        "rx2/cf:b=x2"), scanKvs(t, new Scan().setCaching(1).setFilter(new ColumnCountGetFilter(2))));
  }

  @Test
  void columnCountGetOverSeveralRowsInOneCall() throws IOException {
    // in one call over several rows HBase drops row5's cg:c: after row4's third column the
    // filter reports filterAllRemaining, and the cg store's scanner, already looking at row5,
    // ends for the rest of the scan (each family has its own store scanner). redbase counts per
    // row whatever the call size, as HBase does one row per call (the test above): a chosen
    // difference (docs/compatibility.md)
    List<String> expected = new java.util.ArrayList<>(List.of("row1/cf:a=apple",
        "row1/cf:b=banana", "row2/cf:a=avocado", "row2/cf:b=blueberry", "row3/cf:a=Apple",
        "row3/cf:n=" + N5, "row4/cf:b=banana", "row4/cf:n=" + N100, "row5/cf:a=apple pie",
        "rx1/cf:a=x1", "rx2/cf:b=x2"));
    if (!HBASE) {
      expected.add(expected.indexOf("row5/cf:a=apple pie") + 1, "row5/cg:c=citrus");
    }
    assertEquals(expected, scan(new ColumnCountGetFilter(2)));
  }

  @Test
  void page() throws IOException {
    // every getScannerResults call returns one page; ThriftTable's scanner then calls again
    // after the last row until a call returns nothing, so the client sees every row (the
    // per-region page count is checked in FilterListTest). next(n) shows the first page.
    assertEquals(List.of("row1", "row2", "row3", "row4", "row5", "rx1", "rx2"),
        scanRows(new PageFilter(2)));
    assertEquals(List.of("row3", "row4", "row5", "rx1", "rx2"),
        rows(t, new Scan().withStartRow(b("row3")).setFilter(new PageFilter(3))));
    assertEquals(7, scanRows(new PageFilter(100)).size());
    // a get with a page filter: the row
    assertEquals(3, t.get(new Get(b("row1")).setFilter(new PageFilter(1))).size());
  }

  @Test
  void columnPagination() throws IOException {
    // limit 1, offset 1: the second column of each row
    assertEquals(List.of("row1/cf:b=banana", "row2/cf:b=blueberry", "row3/cf:n=" + N5,
        "row4/cf:n=" + N100, "row5/cg:c=citrus"), scan(new ColumnPaginationFilter(1, 1)));
    // limit 2 from the column named "b" on
    assertEquals(List.of("row1/cf:b=banana", "row1/cg:c=cherry", "row2/cf:b=blueberry",
        "row3/cf:n=" + N5, "row3/cg:c=coconut", "row4/cf:b=banana", "row4/cf:n=" + N100,
        "row5/cg:c=citrus", "rx2/cf:b=x2"), scan(new ColumnPaginationFilter(2, b("b"))));
    assertEquals(List.of("cf:b=banana", "cg:c=cherry"),
        kvs(t.get(new Get(b("row1")).setFilter(new ColumnPaginationFilter(5, 1)))));
  }

  @Test
  void inclusiveStop() throws IOException {
    assertEquals(List.of("row1", "row2", "row3"), scanRows(new InclusiveStopFilter(b("row3"))));
    assertEquals(List.of("row2"),
        rows(t, new Scan().withStartRow(b("row2")).setFilter(new InclusiveStopFilter(b("row2")))));
  }

  @Test
  void timestamps() throws IOException {
    // only cells at the listed timestamps; with all versions, row2's older cf:a shows
    assertEquals(List.of("row2/cf:a=avocado", "row4/cg:d=date", "row5/cg:c=citrus"),
        scan(new TimestampsFilter(List.of(20L, 30L))));
    assertEquals(List.of("row2/cf:a=apricot", "row2/cf:b=blueberry"), scanKvs(t, new Scan()
        .readAllVersions().withStartRow(b("row2")).withStopRow(b("row3"))
        .setFilter(new TimestampsFilter(List.of(10L)))));
    assertEquals(List.of(), scan(new TimestampsFilter(List.of(11L))));
  }

  @Test
  void rowFilter() throws IOException {
    assertEquals(List.of("row2"),
        scanRows(new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("row2")))));
    assertEquals(List.of("row5", "rx1", "rx2"),
        scanRows(new RowFilter(CompareOperator.GREATER, new BinaryComparator(b("row4")))));
    assertEquals(List.of("row1", "row2"),
        scanRows(new RowFilter(CompareOperator.LESS_OR_EQUAL, new BinaryComparator(b("row2")))));
    assertEquals(List.of("rx1", "rx2"),
        scanRows(new RowFilter(CompareOperator.EQUAL, new SubstringComparator("x"))));
  }

  @Test
  void familyFilter() throws IOException {
    assertEquals(List.of("row1/cg:c=cherry", "row3/cg:c=coconut", "row4/cg:d=date",
        "row5/cg:c=citrus"), scan(new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(b("cg")))));
    assertEquals(List.of("rx1", "rx2"), rows(t, new Scan().withStartRow(b("rx"))
        .setFilter(new FamilyFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(b("cg"))))));
  }

  @Test
  void qualifierFilter() throws IOException {
    assertEquals(List.of("row3/cf:n=" + N5, "row4/cf:n=" + N100),
        scan(new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(b("n")))));
    assertEquals(List.of("row3/cf:n=" + N5, "row4/cf:n=" + N100, "row4/cg:d=date"),
        scan(new QualifierFilter(CompareOperator.GREATER, new BinaryComparator(b("c")))));
  }

  @Test
  void valueFilter() throws IOException {
    assertEquals(List.of("row1/cf:b=banana", "row4/cf:b=banana"),
        scan(new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("banana")))));
    assertEquals(List.of("row1/cf:b=banana", "row4/cf:b=banana"),
        scan(new ValueFilter(CompareOperator.EQUAL, new SubstringComparator("nan"))));
    // on a get
    assertEquals(List.of("cg:c=cherry"), kvs(t.get(new Get(b("row1"))
        .setFilter(new ValueFilter(CompareOperator.GREATER, new BinaryComparator(b("banana")))))));
  }

  @Test
  void columnRange() throws IOException {
    assertEquals(List.of("row1/cf:a=apple", "row1/cf:b=banana"), scanKvs(t, new Scan()
        .withStopRow(b("row2")).setFilter(new ColumnRangeFilter(b("a"), true, b("b"), true))));
    assertEquals(List.of("row1/cf:b=banana"), scanKvs(t, new Scan()
        .withStopRow(b("row2")).setFilter(new ColumnRangeFilter(b("a"), false, b("c"), false))));
    // open ends: from "c" on, in both families
    assertEquals(List.of("row3/cf:n=" + N5, "row3/cg:c=coconut"), scanKvs(t, new Scan()
        .withStartRow(b("row3")).withStopRow(b("row4"))
        .setFilter(new ColumnRangeFilter(b("c"), true, null, false))));
  }

  @Test
  void singleColumnValue() throws IOException {
    SingleColumnValueFilter f =
        new SingleColumnValueFilter(b("cf"), b("a"), CompareOperator.EQUAL, b("apple"));
    // rows without cf:a pass unless filterIfMissing
    assertEquals(List.of("row1", "row4", "rx2"), scanRows(f));
    f.setFilterIfMissing(true);
    assertEquals(List.of("row1"), scanRows(f));
    // the whole row comes back, not just the tested column
    assertEquals(List.of("row1/cf:a=apple", "row1/cf:b=banana", "row1/cg:c=cherry"), scan(f));

    // row2's cf:a is avocado (20) over apricot (10)
    SingleColumnValueFilter old =
        new SingleColumnValueFilter(b("cf"), b("a"), CompareOperator.EQUAL, b("apricot"));
    old.setFilterIfMissing(true);
    assertEquals(List.of(), rows(t, new Scan().readAllVersions().setFilter(old)));
    old.setLatestVersionOnly(false);
    assertEquals(List.of("row2"), rows(t, new Scan().readAllVersions().setFilter(old)));

    SingleColumnValueFilter gt =
        new SingleColumnValueFilter(b("cf"), b("n"), CompareOperator.GREATER, b("\u0000"));
    gt.setFilterIfMissing(true);
    assertEquals(List.of("row3", "row4"), scanRows(gt));
  }

  @Test
  void singleColumnValueExclude() throws IOException {
    SingleColumnValueExcludeFilter f =
        new SingleColumnValueExcludeFilter(b("cf"), b("a"), CompareOperator.EQUAL, b("apple"));
    f.setFilterIfMissing(true);
    // the tested column itself is left out
    assertEquals(List.of("row1/cf:b=banana", "row1/cg:c=cherry"), scan(f));
  }

  @Test
  void dependentColumn() throws IOException {
    // keeps the cells whose timestamp equals that of a cf:a cell in the same row; rows without
    // cf:a go. Every version of cf:a counts, not only the returned one: row2's cf:b (10)
    // matches the older cf:a (10)
    assertEquals(List.of("row1/cf:a=apple", "row1/cf:b=banana", "row1/cg:c=cherry",
        "row2/cf:a=avocado", "row2/cf:b=blueberry", "row3/cf:a=Apple", "row3/cf:n=" + N5, "row3/cg:c=coconut",
        "row5/cf:a=apple pie", "rx1/cf:a=x1"), scan(new DependentColumnFilter(b("cf"), b("a"))));
    // dropDependentColumn: the cf:a cells themselves are left out
    assertEquals(List.of("row1/cf:b=banana", "row1/cg:c=cherry", "row2/cf:b=blueberry",
        "row3/cf:n=" + N5, "row3/cg:c=coconut"),
        scan(new DependentColumnFilter(b("cf"), b("a"), true)));
    // a value condition applies to the dependent column's own cells: only cf:a == apple counts
    assertEquals(List.of("row1/cf:b=banana", "row1/cg:c=cherry"), scan(new DependentColumnFilter(
        b("cf"), b("a"), true, CompareOperator.EQUAL, new BinaryComparator(b("apple")))));
    assertEquals(List.of(), scan(new DependentColumnFilter(b("cf"), b("a"), true,
        CompareOperator.EQUAL, new BinaryComparator(b("banana")))));
  }

  @Test
  void columnValue() throws IOException {
    // only the matching cell, not the row
    assertEquals(List.of("row1/cf:a=apple"),
        scan(new ColumnValueFilter(b("cf"), b("a"), CompareOperator.EQUAL, b("apple"))));
    // cell value > "a" ("Apple" sorts before "a")
    assertEquals(List.of("row1/cf:a=apple", "row2/cf:a=avocado", "row5/cf:a=apple pie",
        "rx1/cf:a=x1"), scan(new ColumnValueFilter(b("cf"), b("a"), CompareOperator.GREATER, b("a"))));
    assertEquals(List.of("row1/cf:b=banana", "row4/cf:b=banana"),
        scan(new ColumnValueFilter(b("cf"), b("b"), CompareOperator.EQUAL,
            new SubstringComparator("nana"))));
  }
}
