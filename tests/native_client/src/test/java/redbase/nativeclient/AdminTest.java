package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** Admin over MasterService and hbase:meta: DDL with split keys, descriptors, namespaces. */
class AdminTest {
  private static final byte[][] SPLITS = {
    Bytes.toBytes("d"), Bytes.toBytes("h"), Bytes.toBytes("m"), Bytes.toBytes("t")
  };

  @Test
  void createWithSplitKeysListDescribeDisableEnableDelete() throws Exception {
    TableName name = Cluster.freshName("admin");
    TableDescriptor desc = TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("f"))
            .setMaxVersions(3).setTimeToLive(86_400).build())
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of("g"))
        .build();
    try (Admin admin = Cluster.connection().getAdmin()) {
      admin.createTable(desc, SPLITS);
      assertTrue(admin.tableExists(name));
      assertTrue(admin.isTableEnabled(name));
      assertTrue(admin.isTableAvailable(name));

      List<RegionInfo> regions = admin.getRegions(name);
      assertEquals(5, regions.size());
      assertEquals(0, regions.get(0).getStartKey().length);
      assertEquals("d", Bytes.toString(regions.get(1).getStartKey()));
      assertEquals("t", Bytes.toString(regions.get(4).getStartKey()));
      assertEquals(0, regions.get(4).getEndKey().length);

      assertTrue(Arrays.asList(admin.listTableNames()).contains(name));
      TableDescriptor back = admin.getDescriptor(name);
      ColumnFamilyDescriptor f = back.getColumnFamily(Bytes.toBytes("f"));
      assertEquals(3, f.getMaxVersions());
      assertEquals(86_400, f.getTimeToLive());
      assertEquals(List.of("f", "g"), Arrays.stream(back.getColumnFamilies())
          .map(ColumnFamilyDescriptor::getNameAsString).collect(Collectors.toList()));

      assertThrows(TableExistsException.class, () -> admin.createTable(desc));

      admin.disableTable(name);
      assertTrue(admin.isTableDisabled(name));
      admin.enableTable(name);
      assertTrue(admin.isTableEnabled(name));
      admin.disableTable(name);
      admin.deleteTable(name);
      assertFalse(admin.tableExists(name));
    }
  }

  @Test
  void familiesChangeAndTruncateKeepsSplits() throws Exception {
    TableName name = Cluster.createTable("alter", SPLITS, "f");
    try (Admin admin = Cluster.connection().getAdmin();
        Table t = Cluster.connection().getTable(name)) {
      admin.addColumnFamily(name, ColumnFamilyDescriptorBuilder.of("extra"));
      assertTrue(admin.getDescriptor(name).hasColumnFamily(Bytes.toBytes("extra")));
      admin.modifyColumnFamily(name, ColumnFamilyDescriptorBuilder
          .newBuilder(Bytes.toBytes("extra")).setMaxVersions(7).build());
      assertEquals(7, admin.getDescriptor(name).getColumnFamily(Bytes.toBytes("extra"))
          .getMaxVersions());
      t.put(new Put(Bytes.toBytes("k")).addColumn(Bytes.toBytes("extra"), Bytes.toBytes("q"),
          Bytes.toBytes("v")));
      admin.deleteColumnFamily(name, Bytes.toBytes("extra"));
      assertFalse(admin.getDescriptor(name).hasColumnFamily(Bytes.toBytes("extra")));

      t.put(new Put(Bytes.toBytes("k")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"),
          Bytes.toBytes("v")));
      admin.disableTable(name);
      admin.truncateTable(name, true);
      assertTrue(admin.isTableEnabled(name));
      assertEquals(5, admin.getRegions(name).size());
      assertTrue(t.get(new Get(Bytes.toBytes("k"))).isEmpty());
    }
  }

  @Test
  void namespacesAndTablesInThem() throws Exception {
    String ns = "nc_ns_" + ProcessHandle.current().pid();
    try (Admin admin = Cluster.connection().getAdmin()) {
      admin.createNamespace(NamespaceDescriptor.create(ns).addConfiguration("k", "v").build());
      assertTrue(Arrays.stream(admin.listNamespaceDescriptors())
          .anyMatch(d -> d.getName().equals(ns)));
      assertEquals("v", admin.getNamespaceDescriptor(ns).getConfigurationValue("k"));
      TableName t = TableName.valueOf(ns, "inner");
      admin.createTable(TableDescriptorBuilder.newBuilder(t)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build());
      assertTrue(admin.tableExists(t));
      assertEquals(List.of(t), Arrays.asList(admin.listTableNamesByNamespace(ns)));
      admin.disableTable(t);
      admin.deleteTable(t);
      admin.deleteNamespace(ns);
      assertFalse(Arrays.stream(admin.listNamespaceDescriptors())
          .anyMatch(d -> d.getName().equals(ns)));
    }
  }
}
