package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.GetUserPermissionsRequest;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.Permission.Action;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Grants through MasterService (HBase 2.6's Admin.grant, revoke, getUserPermissions,
 * hasUserPermissions, and AccessControlClient on top of them) on the shared server, which runs
 * without --auth-file: the grants are kept and listed as they would be with authentication on
 * (NativeTlsTest shows them enforced). The oracle's HBase has no AccessController loaded, so
 * it answers every one of these "AccessController is not loaded": skipped there
 * (-Dnc.hbase=true). Merges are refused by redbase (its regions never merge).
 */
class AccessControlTest {
  @BeforeAll
  static void onlyRedbase() {
    Assumptions.assumeFalse(Boolean.getBoolean("nc.hbase"),
        "HBase standalone runs without the AccessController coprocessor");
  }

  private static Set<Action> actions(UserPermission p) {
    return Set.of(p.getPermission().getActions());
  }

  @Test
  void tableGrantsAreKeptListedAndRevoked() throws Throwable {
    TableName name = Cluster.createTable("acl", null, "f");
    String user = "nc_erin_" + ProcessHandle.current().pid();
    AccessControlClient.grant(Cluster.connection(), name, user, null, null, Action.READ);
    try (Admin admin = Cluster.connection().getAdmin()) {
      // merged into what the user holds (Admin.grant's second argument)
      admin.grant(new UserPermission(user,
          Permission.newBuilder(name).withActions(Action.WRITE).build()), true);
      List<UserPermission> listed =
          AccessControlClient.getUserPermissions(Cluster.connection(), name.getNameAsString());
      List<UserPermission> hers = listed.stream().filter(p -> p.getUser().equals(user))
          .collect(Collectors.toList());
      assertEquals(1, hers.size(), listed.toString());
      assertEquals(Set.of(Action.READ, Action.WRITE), actions(hers.get(0)));
      // without merging the grant replaces what was held
      admin.grant(new UserPermission(user,
          Permission.newBuilder(name).withActions(Action.ADMIN).build()), false);
      List<UserPermission> now = admin.getUserPermissions(
          GetUserPermissionsRequest.newBuilder(name).withUserName(user).build());
      assertEquals(1, now.size(), now.toString());
      assertEquals(Set.of(Action.ADMIN), actions(now.get(0)));
      // without authentication everyone holds everything
      List<Boolean> has = admin.hasUserPermissions(user,
          List.of(Permission.newBuilder(name).withActions(Action.READ).build()));
      assertEquals(List.of(true), has);
      AccessControlClient.revoke(Cluster.connection(), name, user, null, null, Action.ADMIN);
      assertTrue(admin.getUserPermissions(
          GetUserPermissionsRequest.newBuilder(name).withUserName(user).build()).isEmpty());
      // a column-level grant is refused naming why, not widened to the table
      Exception e = assertThrows(DoNotRetryIOException.class, () -> admin.grant(
          new UserPermission(user, Permission.newBuilder(name).withFamily(Bytes.toBytes("f"))
              .withActions(Action.READ).build()), false));
      assertTrue(e.getMessage().contains("column family or qualifier"), e.getMessage());
      admin.disableTable(name);
      admin.deleteTable(name);
    }
  }

  @Test
  void namespaceGrantsAreListedAtTheirScope() throws Throwable {
    String user = "nc_frank_" + ProcessHandle.current().pid();
    AccessControlClient.grant(Cluster.connection(), "default", user, Action.READ, Action.CREATE);
    try (Admin admin = Cluster.connection().getAdmin()) {
      List<UserPermission> listed = admin.getUserPermissions(
          GetUserPermissionsRequest.newBuilder("default").withUserName(user).build());
      assertEquals(1, listed.size(), listed.toString());
      assertEquals(Set.of(Action.READ, Action.CREATE), actions(listed.get(0)));
      AccessControlClient.revoke(Cluster.connection(), "default", user, Action.READ,
          Action.CREATE);
      assertTrue(admin.getUserPermissions(
          GetUserPermissionsRequest.newBuilder("default").withUserName(user).build()).isEmpty());
    }
  }

  @Test
  void mergesAreRefusedNamingTheMethod() throws Exception {
    TableName name = Cluster.createTable("merge", new byte[][] {Bytes.toBytes("m")}, "f");
    try (Admin admin = Cluster.connection().getAdmin()) {
      List<RegionInfo> regions = admin.getRegions(name);
      assertEquals(2, regions.size());
      Exception e = assertThrows(Exception.class, () -> admin.mergeRegionsAsync(
          new byte[][] {regions.get(0).getRegionName(), regions.get(1).getRegionName()}, false)
          .get());
      String chain = "";
      for (Throwable c = e; c != null; c = c.getCause()) {
        chain += c + "\n";
      }
      assertTrue(chain.contains("MergeTableRegions"), chain);
      assertEquals(2, admin.getRegions(name).size());
      admin.disableTable(name);
      admin.deleteTable(name);
    }
  }
}
