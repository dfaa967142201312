package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * A client configured as for any HBase cluster: only hbase.zookeeper.quorum and the client
 * port, no registry setting, so HBase 2.6 bootstraps through ZooKeeper (ZKConnectionRegistry)
 * and finds the cluster id, the master and hbase:meta in redbase's ZooKeeper responder
 * (-Dnc.zookeeper=HOST:PORT).
 */
class ZooKeeperBootstrapTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");

  static Configuration zooKeeperConfiguration() {
    String zk = System.getProperty("nc.zookeeper");
    assertNotNull(zk, "-Dnc.zookeeper=HOST:PORT names the ZooKeeper responder");
    int colon = zk.lastIndexOf(':');
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", zk.substring(0, colon));
    conf.set("hbase.zookeeper.property.clientPort", zk.substring(colon + 1));
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("hbase.client.pause", 50);
    conf.setInt("hbase.rpc.timeout", 20_000);
    conf.setInt("hbase.client.operation.timeout", 60_000);
    conf.setInt("hbase.client.meta.operation.timeout", 60_000);
    // ReadOnlyZKClient retries a lost ZooKeeper connection 30 times a second apart per call by
    // default: an unreachable responder then costs minutes before the test fails
    conf.setInt("zookeeper.recovery.retry", 3);
    conf.setInt("zookeeper.recovery.retry.intervalmill", 200);
    return conf;
  }

  @Test
  void aDefaultConfiguredClientCreatesPutsGetsAndScans() throws Exception {
    Configuration conf = zooKeeperConfiguration();
    assertNull(conf.get("hbase.client.registry.impl"), "the default registry: ZooKeeper");
    TableName name = Cluster.freshName("zk");
    try (Connection c = ConnectionFactory.createConnection(conf)) {
      try (Admin admin = c.getAdmin()) {
        admin.createTable(TableDescriptorBuilder.newBuilder(name)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build(),
            new byte[][] {Bytes.toBytes("m")});
        assertTrue(admin.tableExists(name));
        assertEquals(2, admin.getRegions(name).size());
      }
      try (Table t = c.getTable(name)) {
        for (String row : new String[] {"a", "n", "z"}) {
          t.put(new Put(Bytes.toBytes(row)).addColumn(F, Q, Bytes.toBytes("v-" + row)));
        }
        Result r = t.get(new Get(Bytes.toBytes("n")));
        assertArrayEquals(Bytes.toBytes("v-n"), r.getValue(F, Q));
        assertFalse(t.exists(new Get(Bytes.toBytes("nope"))));
        List<String> rows = new ArrayList<>();
        try (ResultScanner s = t.getScanner(new Scan())) {
          for (Result x : s) {
            rows.add(Bytes.toString(x.getRow()) + "=" + Bytes.toString(x.getValue(F, Q)));
          }
        }
        assertEquals(List.of("a=v-a", "n=v-n", "z=v-z"), rows);
      }
    }
    // The asynchronous client reads the same znodes through its own registry calls.
    try (AsyncConnection c = ConnectionFactory.createAsyncConnection(conf).get()) {
      AsyncTable<?> t = c.getTable(name);
      t.put(new Put(Bytes.toBytes("b")).addColumn(F, Q, Bytes.toBytes("async"))).get();
      assertArrayEquals(Bytes.toBytes("async"),
          t.get(new Get(Bytes.toBytes("b"))).get().getValue(F, Q));
      assertEquals(4, t.scanAll(new Scan()).get().size());
    }
    // And the data is the same the RPC registry's client sees.
    try (Table t = Cluster.connection().getTable(name)) {
      assertArrayEquals(Bytes.toBytes("async"),
          t.get(new Get(Bytes.toBytes("b"))).getValue(F, Q));
    }
  }
}
