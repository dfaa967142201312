package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A cluster whose clients use another zookeeper.znode.parent, as Ambari's do
 * (/hbase-unsecure), here nested under /apps: a redbase of its own (-Dnc.redbase names the
 * binary) started with --zookeeper-znode-parent, and a client configured with only the quorum,
 * the client port and that parent bootstraps through ZooKeeper, creates a table, puts and gets.
 * ZooKeeper's own client sees the parent's ancestors and nothing under /hbase.
 */
class ZnodeParentTest {
  private static final String PARENT = "/apps/hbase-unsecure";
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static Path dir;
  private static Process server;
  private static int zk;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("redbase-znode-parent");
    server = OwnRedbase.start(dir,
        ports -> List.of("--advertised-host", "127.0.0.1", "--zookeeper-znode-parent", PARENT),
        ports -> (zk = ports.zk()));
  }

  @AfterAll
  static void stop() throws Exception {
    OwnRedbase.stop(server);
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  @Test
  void aClientWithThatParentBootstrapsThroughZooKeeper() throws Exception {
    Configuration conf = ZooKeeperBootstrapTest.zooKeeperConfiguration();
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.set("hbase.zookeeper.property.clientPort", String.valueOf(zk));
    conf.set("zookeeper.znode.parent", PARENT);
    assertNull(conf.get("hbase.client.registry.impl"), "the default registry: ZooKeeper");
    TableName name = Cluster.freshName("parent");
    try (Connection c = ConnectionFactory.createConnection(conf)) {
      try (Admin admin = c.getAdmin()) {
        admin.createTable(TableDescriptorBuilder.newBuilder(name)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
        assertTrue(admin.tableExists(name));
      }
      try (Table t = c.getTable(name)) {
        t.put(new Put(Bytes.toBytes("r")).addColumn(F, Q, Bytes.toBytes("v")));
        assertArrayEquals(Bytes.toBytes("v"), t.get(new Get(Bytes.toBytes("r"))).getValue(F, Q));
      }
    }
  }

  @Test
  void zooKeepersOwnClientWalksDownToTheParent() throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper z = new ZooKeeper("127.0.0.1:" + zk, 30_000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    try {
      assertTrue(connected.await(30, TimeUnit.SECONDS), "no ZooKeeper session");
      assertEquals(List.of("hbase-unsecure"), z.getChildren("/apps", false));
      assertTrue(z.getChildren(PARENT, false).contains("meta-region-server"));
      assertNotNull(z.exists(PARENT + "/master", false));
      assertNull(z.exists("/hbase", false));
      assertNull(z.exists("/hbase/master", false));
    } finally {
      z.close();
    }
  }
}
