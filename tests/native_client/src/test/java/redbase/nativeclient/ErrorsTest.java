package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.junit.jupiter.api.function.Executable;

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

/**
 * Failures come back as HBase's own exception classes, and within a second even with the
 * client's default retries (15, pauses from 100 ms): they are answered as final, not retried.
 */
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

  /** Runs `call`, expecting `type` within a second. */
  private static void fast(Class<? extends Throwable> type, Executable call) {
    long start = System.nanoTime();
    assertThrows(type, call);
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(ms < 1000, type.getSimpleName() + " took " + ms + " ms");
  }

  @Test
  void withinASecondUnderDefaultRetries() throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl",
        "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", System.getProperty("nc.bootstrap"));
    TableName name = Cluster.createTable("fast", null, "f");
    TableName disabled = Cluster.createTable("fastoff", null, "f");
    try (Admin admin = Cluster.connection().getAdmin()) {
      admin.disableTable(disabled);
    }
    byte[] r = Bytes.toBytes("r");
    Put good = new Put(r).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"), Bytes.toBytes("v"));
    try (Connection c = ConnectionFactory.createConnection(conf);
        Table t = c.getTable(name);
        Table missing = c.getTable(Cluster.freshName("nothere"));
        Table off = c.getTable(disabled)) {
      // Warm the connection (region locations, hbase:meta) so the timings are the calls'.
      t.put(good);
      fast(TableNotFoundException.class, () -> missing.get(new Get(r)));
      fast(TableNotFoundException.class, () -> missing.put(good));
      fast(NoSuchColumnFamilyException.class, () -> t.put(new Put(r)
          .addColumn(Bytes.toBytes("nope"), Bytes.toBytes("q"), Bytes.toBytes("v"))));
      fast(NoSuchColumnFamilyException.class,
          () -> t.get(new Get(r).addFamily(Bytes.toBytes("nope"))));
      fast(TableNotEnabledException.class, () -> off.put(good));
      try (Admin admin = c.getAdmin()) {
        fast(TableNotFoundException.class,
            () -> admin.getDescriptor(Cluster.freshName("nothere")));
      }
    }
  }
}
