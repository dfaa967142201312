package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.junit.jupiter.api.Test;

/**
 * The client version the suite runs on, and the registries without ZooKeeper: the suite's
 * connection uses RpcConnectionRegistry; MasterRegistry (2.3+, deprecated in 2.6 but still the
 * choice of many 2.4/2.5 deployments) asks the same ClientMetaService on `hbase.masters`.
 */
class BootstrapTest {
  private static final byte[] F = Bytes.toBytes("f");

  @Test
  void runsOnTheClientVersionMavenChose() {
    // pom.xml runs the suite on 2.6.1 and again on 2.5.x: this shows the classpath swap worked
    assertEquals(System.getProperty("nc.client.version"), VersionInfo.getVersion());
  }

  @Test
  void masterRegistryFindsTheClusterAndItsData() throws Exception {
    TableName name = Cluster.createTable("masterreg", new byte[][] {Bytes.toBytes("m")}, "f");
    try (Table t = Cluster.connection().getTable(name)) {
      t.put(new Put(Bytes.toBytes("z")).addColumn(F, Bytes.toBytes("q"), Bytes.toBytes("v")));
    }
    Configuration conf = Cluster.configuration();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.MasterRegistry");
    conf.set("hbase.masters", System.getProperty("nc.bootstrap"));
    try (Connection c = ConnectionFactory.createConnection(conf);
        Admin admin = c.getAdmin();
        Table t = c.getTable(name)) {
      assertTrue(Arrays.asList(admin.listTableNames()).contains(name));
      assertEquals(2, admin.getRegions(name).size());
      assertArrayEquals(Bytes.toBytes("v"),
          t.get(new Get(Bytes.toBytes("z"))).getValue(F, Bytes.toBytes("q")));
      t.put(new Put(Bytes.toBytes("a")).addColumn(F, Bytes.toBytes("q"), Bytes.toBytes("w")));
    }
    try (Table t = Cluster.connection().getTable(name)) {
      assertArrayEquals(Bytes.toBytes("w"),
          t.get(new Get(Bytes.toBytes("a"))).getValue(F, Bytes.toBytes("q")));
    }
  }
}
