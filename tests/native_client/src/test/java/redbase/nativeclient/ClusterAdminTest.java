package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ClusterMetrics.Option;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * The Admin calls a shell or an operator makes beyond DDL, answered as a one-server cluster:
 * cluster metrics, split (with a scanner that keeps going across it), flush and compaction,
 * and the balancer, normalizer, catalog janitor and split/merge switches.
 */
class ClusterAdminTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");

  private static byte[] row(int i) {
    return Bytes.toBytes(String.format("row%03d", i));
  }

  @Test
  void clusterMetricsDescribeTheOneServer() throws Exception {
    TableName name = Cluster.createTable("metrics", new byte[][] {Bytes.toBytes("m")}, "f");
    try (Admin admin = Cluster.connection().getAdmin()) {
      ClusterMetrics m = admin.getClusterMetrics();
      assertNotNull(m.getClusterId());
      assertFalse(m.getClusterId().isEmpty());
      ServerName master = m.getMasterName();
      assertNotNull(master);
      assertEquals(1, m.getLiveServerMetrics().size());
      ServerName rs = m.getLiveServerMetrics().keySet().iterator().next();
      // One host: redbase is master and region server in one process (one address), HBase's
      // standalone mode runs them on two ports of the same host.
      assertEquals(master.getHostname(), rs.getHostname());
      assertTrue(m.getDeadServerNames().isEmpty());
      assertTrue(m.getBackupMasterNames().isEmpty());
      ServerMetrics sm = m.getLiveServerMetrics().get(rs);
      // Every region is on this server: hbase:meta's and the new table's two among them.
      assertTrue(sm.getRegionMetrics().size() >= 3, "regions: " + sm.getRegionMetrics().size());
      assertTrue(m.getRegionCount() >= 3);
      // (HBase's region servers report their regions every few seconds: wait for the report)
      long mine = 0;
      for (int i = 0; i < 100 && mine != 2; i++) {
        ServerMetrics now = admin.getClusterMetrics().getLiveServerMetrics().get(rs);
        mine = now.getRegionMetrics().values().stream()
            .filter(r -> Bytes.toString(r.getRegionName()).startsWith(name.getNameAsString() + ","))
            .count();
        if (mine != 2) {
          Thread.sleep(200);
        }
      }
      assertEquals(2, mine);
      assertEquals("2.6.1", m.getHBaseVersion());
      // The options the shell's `status` asks for, one at a time.
      ClusterMetrics live = admin.getClusterMetrics(EnumSet.of(Option.LIVE_SERVERS));
      assertEquals(1, live.getLiveServerMetrics().size());
      assertEquals(List.of(rs), new ArrayList<>(admin.getRegionServers()));
      assertEquals(m.getClusterId(),
          admin.getClusterMetrics(EnumSet.of(Option.CLUSTER_ID)).getClusterId());
      // A region server's online regions and their info (AdminService).
      List<RegionInfo> online = admin.getRegions(rs);
      assertTrue(online.stream().anyMatch(r -> r.getTable().equals(name)));
    }
  }

  @Test
  void splitThroughAdminWhileAScannerIsOpen() throws Exception {
    TableName name = Cluster.createTable("split", null, "f");
    try (Admin admin = Cluster.connection().getAdmin();
        Table t = Cluster.connection().getTable(name)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        puts.add(new Put(row(i)).addColumn(F, Q, Bytes.toBytes("v" + i)));
      }
      t.put(puts);
      assertEquals(1, admin.getRegions(name).size());
      List<String> seen = new ArrayList<>();
      try (ResultScanner s = t.getScanner(new Scan().setCaching(10))) {
        for (int i = 0; i < 50; i++) {
          seen.add(Bytes.toString(s.next().getRow()));
        }
        // Split at row100 while the scanner sits at row050 of the one region.
        admin.split(name, row(100));
        List<RegionInfo> regions = waitForRegions(admin, name, 2);
        assertArrayEquals(row(100), regions.get(1).getStartKey());
        for (Result r : s) {
          seen.add(Bytes.toString(r.getRow()));
        }
      }
      List<String> want = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        want.add(Bytes.toString(row(i)));
      }
      assertEquals(want, seen, "the scan went on across the split, every row once, in order");
      // Reads and writes on both sides of the split point.
      t.put(new Put(row(150)).addColumn(F, Q, Bytes.toBytes("after")));
      assertArrayEquals(Bytes.toBytes("after"), t.get(new Get(row(150))).getValue(F, Q));
      assertArrayEquals(Bytes.toBytes("v99"), t.get(new Get(row(99))).getValue(F, Q));
      int count = 0;
      try (ResultScanner s = t.getScanner(new Scan().setReversed(true))) {
        for (Result r : s) {
          count++;
        }
      }
      assertEquals(200, count);
    }
  }

  @Test
  void flushAndCompactLeaveTheDataAsItWas() throws Exception {
    TableName name = Cluster.createTable("flush", new byte[][] {Bytes.toBytes("row050")}, "f");
    try (Admin admin = Cluster.connection().getAdmin();
        Table t = Cluster.connection().getTable(name)) {
      for (int i = 0; i < 100; i++) {
        t.put(new Put(row(i)).addColumn(F, Q, Bytes.toBytes("v" + i)));
      }
      admin.flush(name);
      admin.compact(name);
      admin.majorCompact(name);
      for (RegionInfo r : admin.getRegions(name)) {
        admin.flushRegion(r.getRegionName());
        admin.compactRegion(r.getRegionName());
        admin.majorCompactRegion(r.getRegionName());
      }
      assertEquals(CompactionState.NONE, admin.getCompactionState(name));
      for (int i = 0; i < 100; i += 7) {
        assertArrayEquals(Bytes.toBytes("v" + i), t.get(new Get(row(i))).getValue(F, Q));
      }
    }
  }

  @Test
  void switchesAnswerAsAOneServerCluster() throws Exception {
    try (Admin admin = Cluster.connection().getAdmin()) {
      // Each switch answers its previous state and keeps the new one (the starting states are
      // the server's: a shared oracle may have had them turned).
      boolean balancer = admin.isBalancerEnabled();
      assertEquals(balancer, admin.balancerSwitch(!balancer, true));
      assertEquals(!balancer, admin.isBalancerEnabled());
      // balance() answers either way (what it returns on a one-server cluster differs between
      // HBase's versions); it leaves the switch as it was.
      admin.balance();
      assertEquals(!balancer, admin.isBalancerEnabled());
      assertEquals(!balancer, admin.balancerSwitch(true, true));
      assertTrue(admin.isBalancerEnabled());
      boolean normalizer = admin.isNormalizerEnabled();
      assertEquals(normalizer, admin.normalizerSwitch(true));
      assertTrue(admin.isNormalizerEnabled());
      assertTrue(admin.normalize());
      assertTrue(admin.normalizerSwitch(normalizer));
      assertEquals(normalizer, admin.isNormalizerEnabled());
      boolean janitor = admin.isCatalogJanitorEnabled();
      assertEquals(janitor, admin.catalogJanitorSwitch(false));
      assertFalse(admin.isCatalogJanitorEnabled());
      admin.catalogJanitorSwitch(true);
      assertTrue(admin.isCatalogJanitorEnabled());
      assertTrue(admin.runCatalogJanitor() >= 0);
      assertTrue(admin.isSplitEnabled());
      assertTrue(admin.isMergeEnabled());
    }
  }

  private static List<RegionInfo> waitForRegions(Admin admin, TableName name, int n)
      throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      List<RegionInfo> regions = admin.getRegions(name);
      if (regions.size() == n || System.currentTimeMillis() > deadline) {
        assertEquals(n, regions.size());
        return regions;
      }
      Thread.sleep(50);
    }
  }
}
