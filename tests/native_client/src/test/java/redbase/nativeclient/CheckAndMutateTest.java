package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.io.TimeRange;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * checkAndMutate in its builder forms: ifEquals, ifNotExists, ifMatches with each
 * CompareOperator, a time range, a filter; a Put, Delete, Increment, Append or RowMutations
 * behind it; many at once (checkAndMutate(List), Table.batch); mutateRow with an increment.
 */
class CheckAndMutateTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static TableName name;

  @BeforeAll
  static void create() throws Exception {
    name = Cluster.freshName("cam");
    try (Admin admin = Cluster.connection().getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(5).build())
          .build(), new byte[][] {Bytes.toBytes("m")});
    }
  }

  private static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  private static Put mark(String row, String q) {
    return new Put(b(row)).addColumn(F, b(q), b("ran"));
  }

  private static boolean ran(Table t, CheckAndMutate cam) throws Exception {
    return t.checkAndMutate(cam).isSuccess();
  }

  @Test
  void everyCompareOperatorAgainstTheNewestValue() throws Exception {
    try (Table t = Cluster.connection().getTable(name)) {
      t.put(new Put(b("ops")).addColumn(F, Q, b("d")));
      // The given value on the left, the stored one ("d") on the right.
      Object[][] cases = {
        {CompareOperator.LESS, "c", true}, {CompareOperator.LESS, "d", false},
        {CompareOperator.LESS_OR_EQUAL, "d", true}, {CompareOperator.LESS_OR_EQUAL, "e", false},
        {CompareOperator.EQUAL, "d", true}, {CompareOperator.EQUAL, "b", false},
        {CompareOperator.NOT_EQUAL, "b", true}, {CompareOperator.NOT_EQUAL, "d", false},
        {CompareOperator.GREATER_OR_EQUAL, "d", true},
        {CompareOperator.GREATER_OR_EQUAL, "c", false},
        {CompareOperator.GREATER, "e", true}, {CompareOperator.GREATER, "d", false},
      };
      for (Object[] c : cases) {
        CompareOperator op = (CompareOperator) c[0];
        boolean passes = ran(t, CheckAndMutate.newBuilder(b("ops"))
            .ifMatches(F, Q, op, b((String) c[1])).build(mark("ops", "x")));
        assertEquals(c[2], passes, op + " " + c[1]);
      }
      // The older builder (Table.checkAndMutate(row, family)).
      assertTrue(t.checkAndMutate(b("ops"), F).qualifier(Q).ifEquals(b("d"))
          .thenPut(mark("ops", "old-builder")));
      assertFalse(t.checkAndMutate(b("ops"), F).qualifier(Q).ifNotExists()
          .thenPut(mark("ops", "never")));
      assertNull(t.get(new Get(b("ops"))).getValue(F, b("never")));
      // "Not exists" forms: ifNotExists, and a null value with EQUAL / NOT_EQUAL.
      assertTrue(ran(t, CheckAndMutate.newBuilder(b("ops")).ifNotExists(F, b("absent"))
          .build(mark("ops", "y"))));
      assertTrue(ran(t, CheckAndMutate.newBuilder(b("ops"))
          .ifMatches(F, b("absent"), CompareOperator.EQUAL, null).build(mark("ops", "y"))));
      assertTrue(ran(t, CheckAndMutate.newBuilder(b("ops"))
          .ifMatches(F, Q, CompareOperator.NOT_EQUAL, null).build(mark("ops", "y"))));
      assertFalse(ran(t, CheckAndMutate.newBuilder(b("ops"))
          .ifMatches(F, b("absent"), CompareOperator.NOT_EQUAL, null).build(mark("ops", "y"))));
    }
  }

  @Test
  void timeRangeAndFilterConditions() throws Exception {
    try (Table t = Cluster.connection().getTable(name)) {
      t.put(new Put(b("tr")).addColumn(F, Q, 100, b("old")).addColumn(F, Q, 200, b("new"))
          .addColumn(F, b("kind"), b("doc")));
      // The newest version inside the range is the one compared.
      assertTrue(ran(t, CheckAndMutate.newBuilder(b("tr")).ifEquals(F, Q, b("old"))
          .timeRange(TimeRange.between(0, 150)).build(mark("tr", "a"))));
      assertFalse(ran(t, CheckAndMutate.newBuilder(b("tr")).ifEquals(F, Q, b("new"))
          .timeRange(TimeRange.between(0, 150)).build(mark("tr", "b"))));
      assertTrue(ran(t, CheckAndMutate.newBuilder(b("tr")).ifEquals(F, Q, b("new"))
          .timeRange(TimeRange.from(150)).build(mark("tr", "c"))));
      // Nothing in the range: the column counts as absent.
      assertTrue(ran(t, CheckAndMutate.newBuilder(b("tr")).ifNotExists(F, Q)
          .timeRange(TimeRange.between(300, 400)).build(mark("tr", "d"))));

      // A filter: the row read with it must keep a cell.
      SingleColumnValueFilter isDoc = new SingleColumnValueFilter(F, b("kind"),
          CompareOperator.EQUAL, b("doc"));
      isDoc.setFilterIfMissing(true);
      SingleColumnValueFilter isImage = new SingleColumnValueFilter(F, b("kind"),
          CompareOperator.EQUAL, b("image"));
      isImage.setFilterIfMissing(true);
      assertTrue(ran(t, CheckAndMutate.newBuilder(b("tr")).ifMatches(isDoc)
          .build(mark("tr", "by-filter"))));
      assertFalse(ran(t, CheckAndMutate.newBuilder(b("tr")).ifMatches(isImage)
          .build(mark("tr", "never"))));
      FilterList both = new FilterList(FilterList.Operator.MUST_PASS_ALL,
          new PrefixFilter(b("t")), isDoc);
      assertTrue(ran(t, CheckAndMutate.newBuilder(b("tr")).ifMatches(both)
          .build(new Delete(b("tr")).addColumns(F, b("a")))));
      // A filter and a time range: the old version only.
      SingleColumnValueFilter isOld = new SingleColumnValueFilter(F, Q,
          CompareOperator.EQUAL, b("old"));
      isOld.setFilterIfMissing(true);
      assertTrue(ran(t, CheckAndMutate.newBuilder(b("tr")).ifMatches(isOld)
          .timeRange(TimeRange.between(0, 150)).build(mark("tr", "e"))));
      assertFalse(ran(t, CheckAndMutate.newBuilder(b("tr")).ifMatches(isOld)
          .build(mark("tr", "f"))));
      Result r = t.get(new Get(b("tr")));
      assertArrayEquals(b("ran"), r.getValue(F, b("by-filter")));
      assertArrayEquals(b("ran"), r.getValue(F, b("e")));
      assertNull(r.getValue(F, b("a")));
      assertNull(r.getValue(F, b("f")));
      assertNull(r.getValue(F, b("never")));
    }
  }

  @Test
  void rowMutationsIncrementsAndAppendsBehindAChecks() throws Exception {
    try (Table t = Cluster.connection().getTable(name)) {
      t.put(new Put(b("rm")).addColumn(F, Q, b("v1")));
      RowMutations rm = new RowMutations(b("rm"));
      rm.add(new Put(b("rm")).addColumn(F, Q, b("v2")));
      rm.add(new Delete(b("rm")).addColumns(F, b("gone")));
      CheckAndMutateResult res = t.checkAndMutate(CheckAndMutate.newBuilder(b("rm"))
          .ifEquals(F, Q, b("v1")).build(rm));
      assertTrue(res.isSuccess());
      assertArrayEquals(b("v2"), t.get(new Get(b("rm"))).getValue(F, Q));
      // The same again: v1 is gone, nothing runs.
      assertFalse(t.checkAndMutate(CheckAndMutate.newBuilder(b("rm"))
          .ifEquals(F, Q, b("v1")).build(rm)).isSuccess());

      // An increment behind a check answers its new value.
      res = t.checkAndMutate(CheckAndMutate.newBuilder(b("rm")).ifEquals(F, Q, b("v2"))
          .build(new Increment(b("rm")).addColumn(F, b("n"), 5)));
      assertTrue(res.isSuccess());
      assertEquals(5, Bytes.toLong(res.getResult().getValue(F, b("n"))));
      res = t.checkAndMutate(CheckAndMutate.newBuilder(b("rm")).ifEquals(F, Q, b("v2"))
          .build(new Append(b("rm")).addColumn(F, b("s"), b("ab"))));
      assertArrayEquals(b("ab"), res.getResult().getValue(F, b("s")));

      // RowMutations mixing a put, an increment and an append behind a check: the
      // increment's and append's new values come back together.
      RowMutations mixed = new RowMutations(b("rm"));
      mixed.add(new Put(b("rm")).addColumn(F, b("p"), b("put")));
      mixed.add(new Increment(b("rm")).addColumn(F, b("n"), 2));
      mixed.add(new Append(b("rm")).addColumn(F, b("s"), b("cd")));
      res = t.checkAndMutate(CheckAndMutate.newBuilder(b("rm")).ifEquals(F, Q, b("v2"))
          .build(mixed));
      assertTrue(res.isSuccess());
      assertEquals(7, Bytes.toLong(res.getResult().getValue(F, b("n"))));
      assertArrayEquals(b("abcd"), res.getResult().getValue(F, b("s")));

      // mutateRow (atomic, no check) with an increment returns its value too.
      RowMutations atomic = new RowMutations(b("rm"));
      atomic.add(new Put(b("rm")).addColumn(F, b("p"), b("again")));
      atomic.add(new Increment(b("rm")).addColumn(F, b("n"), 10));
      Result r = t.mutateRow(atomic);
      assertEquals(17, Bytes.toLong(r.getValue(F, b("n"))));
      assertArrayEquals(b("again"), t.get(new Get(b("rm"))).getValue(F, b("p")));
    }
  }

  @Test
  void manyChecksAtOnceAcrossRegions() throws Exception {
    try (Table t = Cluster.connection().getTable(name)) {
      t.put(List.of(new Put(b("c-a")).addColumn(F, Q, b("1")),
          new Put(b("x-a")).addColumn(F, Q, b("1"))));
      List<CheckAndMutate> checks = new ArrayList<>();
      checks.add(CheckAndMutate.newBuilder(b("c-a")).ifEquals(F, Q, b("1"))
          .build(mark("c-a", "list")));
      checks.add(CheckAndMutate.newBuilder(b("x-a")).ifEquals(F, Q, b("2"))
          .build(mark("x-a", "list")));
      checks.add(CheckAndMutate.newBuilder(b("x-b")).ifNotExists(F, Q)
          .build(new Increment(b("x-b")).addColumn(F, b("n"), 3)));
      List<CheckAndMutateResult> results = t.checkAndMutate(checks);
      assertTrue(results.get(0).isSuccess());
      assertFalse(results.get(1).isSuccess());
      assertTrue(results.get(2).isSuccess());
      assertEquals(3, Bytes.toLong(results.get(2).getResult().getValue(F, b("n"))));
      assertArrayEquals(b("ran"), t.get(new Get(b("c-a"))).getValue(F, b("list")));
      assertNull(t.get(new Get(b("x-a"))).getValue(F, b("list")));

      // Table.batch with checks among plain puts: each answer in its place.
      List<Row> actions = new ArrayList<>();
      actions.add(new Put(b("c-b")).addColumn(F, Q, b("plain")));
      actions.add(CheckAndMutate.newBuilder(b("c-a")).ifEquals(F, Q, b("1"))
          .build(mark("c-a", "batch")));
      actions.add(CheckAndMutate.newBuilder(b("x-a")).ifEquals(F, Q, b("nope"))
          .build(mark("x-a", "batch")));
      Object[] out = new Object[actions.size()];
      t.batch(actions, out);
      assertTrue(out[0] instanceof Result, String.valueOf(out[0]));
      assertTrue(((CheckAndMutateResult) out[1]).isSuccess());
      assertFalse(((CheckAndMutateResult) out[2]).isSuccess());
      assertArrayEquals(b("ran"), t.get(new Get(b("c-a"))).getValue(F, b("batch")));
      assertNull(t.get(new Get(b("x-a"))).getValue(F, b("batch")));
    }
  }
}
