package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
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
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Table's data calls over ClientService: gets, puts, deletes, counters, batches. */
class TableTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static TableName name;

  @BeforeAll
  static void create() throws Exception {
    name = Cluster.freshName("table");
    try (Admin admin = Cluster.connection().getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(5).build())
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("g")).build(),
          new byte[][] {Bytes.toBytes("m")});
    }
  }

  private static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  @Test
  void putGetVersionsAndColumns() throws Exception {
    try (Table t = Cluster.connection().getTable(name)) {
      t.put(new Put(b("a1")).addColumn(F, Q, 100, b("old")));
      t.put(new Put(b("a1")).addColumn(F, Q, 200, b("new")).addColumn(F, b("q2"), b("x"))
          .addColumn(b("g"), Q, b("gv")));
      Result r = t.get(new Get(b("a1")));
      assertArrayEquals(b("new"), r.getValue(F, Q));
      assertEquals(3, r.size());
      Result versions = t.get(new Get(b("a1")).addColumn(F, Q).readVersions(5));
      assertEquals(2, versions.getColumnCells(F, Q).size());
      assertEquals(200, versions.getColumnLatestCell(F, Q).getTimestamp());
      Result old = t.get(new Get(b("a1")).addColumn(F, Q).setTimeRange(0, 150));
      assertArrayEquals(b("old"), old.getValue(F, Q));
      Result fam = t.get(new Get(b("a1")).addFamily(b("g")));
      assertEquals(1, fam.size());
      assertTrue(t.exists(new Get(b("a1"))));
      assertTrue(t.get(new Get(b("missing"))).isEmpty());
    }
  }

  @Test
  void deletesOfEveryKind() throws Exception {
    try (Table t = Cluster.connection().getTable(name)) {
      t.put(new Put(b("d1")).addColumn(F, Q, 1, b("v1")).addColumn(F, Q, 2, b("v2"))
          .addColumn(F, b("other"), b("o")).addColumn(b("g"), Q, b("g")));
      t.delete(new Delete(b("d1")).addColumn(F, Q));
      assertArrayEquals(b("v1"), t.get(new Get(b("d1"))).getValue(F, Q));
      t.delete(new Delete(b("d1")).addColumns(F, Q));
      assertNull(t.get(new Get(b("d1"))).getValue(F, Q));
      t.delete(new Delete(b("d1")).addFamily(F));
      Result r = t.get(new Get(b("d1")));
      assertEquals(1, r.size());
      t.delete(new Delete(b("d1")));
      assertTrue(t.get(new Get(b("d1"))).isEmpty());
    }
  }

  @Test
  void incrementAppendAndCheckAndMutate() throws Exception {
    try (Table t = Cluster.connection().getTable(name)) {
      assertEquals(5, t.incrementColumnValue(b("c1"), F, b("n"), 5));
      Result r = t.increment(new Increment(b("c1")).addColumn(F, b("n"), 10));
      assertEquals(15, Bytes.toLong(r.getValue(F, b("n"))));
      Result a = t.append(new Append(b("c1")).addColumn(F, b("s"), b("ab")));
      assertArrayEquals(b("ab"), a.getValue(F, b("s")));
      a = t.append(new Append(b("c1")).addColumn(F, b("s"), b("cd")));
      assertArrayEquals(b("abcd"), a.getValue(F, b("s")));

      boolean done = t.checkAndMutate(CheckAndMutate.newBuilder(b("c1"))
          .ifNotExists(F, b("lock")).build(new Put(b("c1")).addColumn(F, b("lock"), b("1"))))
          .isSuccess();
      assertTrue(done);
      done = t.checkAndMutate(CheckAndMutate.newBuilder(b("c1"))
          .ifNotExists(F, b("lock")).build(new Put(b("c1")).addColumn(F, b("lock"), b("2"))))
          .isSuccess();
      assertFalse(done);
      done = t.checkAndMutate(CheckAndMutate.newBuilder(b("c1"))
          .ifMatches(F, b("lock"), CompareOperator.EQUAL, b("1"))
          .build(new Delete(b("c1")).addColumns(F, b("lock")))).isSuccess();
      assertTrue(done);
      assertNull(t.get(new Get(b("c1"))).getValue(F, b("lock")));
    }
  }

  @Test
  void batchesAcrossRegionsAndAtomicRowMutations() throws Exception {
    try (Table t = Cluster.connection().getTable(name)) {
      List<Row> actions = new ArrayList<>();
      for (String row : new String[] {"b1", "b2", "x1", "x2"}) {
        actions.add(new Put(b(row)).addColumn(F, Q, b("v-" + row)));
      }
      Object[] results = new Object[actions.size()];
      t.batch(actions, results);
      for (Object o : results) {
        assertTrue(o instanceof Result, String.valueOf(o));
      }
      List<Get> gets = new ArrayList<>();
      for (String row : new String[] {"b1", "x2", "nope"}) {
        gets.add(new Get(b(row)));
      }
      Result[] got = t.get(gets);
      assertArrayEquals(b("v-b1"), got[0].getValue(F, Q));
      assertArrayEquals(b("v-x2"), got[1].getValue(F, Q));
      assertTrue(got[2].isEmpty());

      // HTable.delete(List) takes the done deletes out of the list: a mutable one.
      t.delete(new ArrayList<>(List.of(new Delete(b("b1")), new Delete(b("x1")))));
      assertFalse(t.exists(new Get(b("b1"))));
      assertFalse(t.exists(new Get(b("x1"))));

      RowMutations rm = new RowMutations(b("r1"));
      rm.add(new Put(b("r1")).addColumn(F, b("a"), b("1")));
      rm.add(new Put(b("r1")).addColumn(F, b("b"), b("2")));
      t.mutateRow(rm);
      Result r = t.get(new Get(b("r1")));
      List<Cell> cells = r.listCells();
      assertEquals(2, cells.size());
    }
  }
}
