package org.redbase.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The kit's own promises: ports, configuration, a working server, nothing left behind. */
class RedbaseServerTest {
  @Test
  void startsServesAndLeavesNothingBehind() throws Exception {
    Path data;
    int port;
    try (RedbaseServer server = RedbaseServer.builder().withThrift().start()) {
      port = server.nativePort();
      for (int p : new int[] {port, server.httpPort(), server.thrift1Port(), server.thrift2Port()}) {
        assertTrue(p >= 20000 && p < 32768, "port " + p);
      }
      Configuration conf = server.configuration();
      assertEquals("org.apache.hadoop.hbase.client.RpcConnectionRegistry",
          conf.get("hbase.client.registry.impl"));
      assertEquals("127.0.0.1:" + port, conf.get("hbase.client.bootstrap.servers"));
      data = server.dataDir();
      assertTrue(Files.isDirectory(data));

      TableName name = TableName.valueOf("kit");
      try (Admin admin = server.connection().getAdmin()) {
        admin.createTable(TableDescriptorBuilder.newBuilder(name)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build());
      }
      try (Table t = server.connection().getTable(name)) {
        t.put(new Put(Bytes.toBytes("r")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"),
            Bytes.toBytes("v")));
        assertArrayEquals(Bytes.toBytes("v"),
            t.get(new Get(Bytes.toBytes("r"))).getValue(Bytes.toBytes("f"), Bytes.toBytes("q")));
      }
      assertTrue(server.isRunning());
      assertTrue(server.log().contains("native"), server.log());
    }
    assertFalse(Files.exists(data), data + " was not deleted");
    assertFalse(Files.exists(data.getParent()), data.getParent() + " was not deleted");
    assertThrows(java.io.IOException.class, () -> new Socket("127.0.0.1", port).close(),
        "the server still listens");
  }

  @Test
  void twoServersAtOnceAreIndependent() throws Exception {
    try (RedbaseServer a = RedbaseServer.start(); RedbaseServer b = RedbaseServer.start()) {
      assertNotEquals(a.nativePort(), b.nativePort());
      assertNotEquals(a.dataDir(), b.dataDir());
      try (Admin admin = a.connection().getAdmin()) {
        admin.createTable(TableDescriptorBuilder.newBuilder(TableName.valueOf("only_in_a"))
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build());
      }
      try (Admin admin = b.connection().getAdmin()) {
        assertFalse(admin.tableExists(TableName.valueOf("only_in_a")));
      }
    }
  }

  @Test
  void aMissingBinaryIsAClearError() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> RedbaseServer.builder().binary(Path.of("/nonexistent/redbase")).start());
    assertTrue(e.getMessage().contains("/nonexistent/redbase"), e.getMessage());
  }
}
