package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Delete kinds with timestamps: one version (deleteColumn), a column up to a time
 * (deleteColumns), a family up to a time (deleteFamily), one time across a family
 * (deleteFamilyVersion); every remaining version read back.
 */
class DeleteKindsTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] A = Bytes.toBytes("a");
  private static final byte[] B = Bytes.toBytes("b");
  private static TableName name;

  @BeforeAll
  static void create() throws Exception {
    name = Cluster.freshName("deletes");
    try (Admin admin = Cluster.connection().getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(10).build())
          .build());
    }
  }

  /** Columns a and b of `row`, each with versions at 1, 2 and 3. */
  private static void seed(Table t, String row) throws Exception {
    Put p = new Put(Bytes.toBytes(row));
    for (long ts = 1; ts <= 3; ts++) {
      p.addColumn(F, A, ts, Bytes.toBytes("a" + ts)).addColumn(F, B, ts, Bytes.toBytes("b" + ts));
    }
    t.put(p);
  }

  /** Every version left, as "qualifier@ts". */
  private static List<String> left(Table t, String row) throws Exception {
    List<String> out = new ArrayList<>();
    for (Cell c : t.get(new Get(Bytes.toBytes(row)).readAllVersions()).rawCells()) {
      out.add(Bytes.toString(CellUtil.cloneQualifier(c)) + "@" + c.getTimestamp());
    }
    return out;
  }

  @Test
  void eachKindWithATimestamp() throws Exception {
    try (Table t = Cluster.connection().getTable(name)) {
      seed(t, "version");
      t.delete(new Delete(Bytes.toBytes("version")).addColumn(F, A, 2));
      assertEquals(List.of("a@3", "a@1", "b@3", "b@2", "b@1"), left(t, "version"));

      seed(t, "columns");
      t.delete(new Delete(Bytes.toBytes("columns")).addColumns(F, A, 2));
      assertEquals(List.of("a@3", "b@3", "b@2", "b@1"), left(t, "columns"));

      seed(t, "family");
      t.delete(new Delete(Bytes.toBytes("family")).addFamily(F, 2));
      assertEquals(List.of("a@3", "b@3"), left(t, "family"));

      seed(t, "familyVersion");
      t.delete(new Delete(Bytes.toBytes("familyVersion")).addFamilyVersion(F, 2));
      assertEquals(List.of("a@3", "a@1", "b@3", "b@1"), left(t, "familyVersion"));

      // A row delete at a time keeps what is newer.
      seed(t, "row");
      t.delete(new Delete(Bytes.toBytes("row"), 1));
      assertEquals(List.of("a@3", "a@2", "b@3", "b@2"), left(t, "row"));

      // deleteColumn without a timestamp removes the newest version only.
      seed(t, "newest");
      t.delete(new Delete(Bytes.toBytes("newest")).addColumn(F, A));
      assertEquals(List.of("a@2", "a@1", "b@3", "b@2", "b@1"), left(t, "newest"));

      // A put at a deleted time stays hidden until the marker is gone (HBase keeps it).
      t.put(new Put(Bytes.toBytes("columns")).addColumn(F, A, 1, Bytes.toBytes("again")));
      assertEquals(List.of("a@3", "b@3", "b@2", "b@1"), left(t, "columns"));
    }
  }
}
