package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** Failures come back as HBase's own exception classes. */
class ErrorsTest {
  @Test
  void missingTable() throws Exception {
    TableName missing = Cluster.freshName("missing");
    try (Table t = Cluster.connection().getTable(missing)) {
      assertThrows(TableNotFoundException.class, () -> t.get(new Get(Bytes.toBytes("r"))));
      assertThrows(TableNotFoundException.class, () -> t.put(
          new Put(Bytes.toBytes("r")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"),
              Bytes.toBytes("v"))));
    }
    try (Admin admin = Cluster.connection().getAdmin()) {
      assertThrows(TableNotFoundException.class, () -> admin.getDescriptor(missing));
    }
  }

  @Test
  void missingFamily() throws Exception {
    TableName name = Cluster.createTable("errors", null, "f");
    try (Table t = Cluster.connection().getTable(name)) {
      assertThrows(NoSuchColumnFamilyException.class, () -> t.put(
          new Put(Bytes.toBytes("r")).addColumn(Bytes.toBytes("nope"), Bytes.toBytes("q"),
              Bytes.toBytes("v"))));
      assertThrows(NoSuchColumnFamilyException.class,
          () -> t.get(new Get(Bytes.toBytes("r")).addFamily(Bytes.toBytes("nope"))));
    }
  }

  @Test
  void disabledTable() throws Exception {
    TableName name = Cluster.createTable("disabled", null, "f");
    try (Admin admin = Cluster.connection().getAdmin()) {
      admin.disableTable(name);
    }
    try (Table t = Cluster.connection().getTable(name)) {
      assertThrows(TableNotEnabledException.class, () -> t.put(
          new Put(Bytes.toBytes("r")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"),
              Bytes.toBytes("v"))));
    }
  }
}
