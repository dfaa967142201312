package redbase.javaclient;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** DDL through ThriftAdmin: namespaces, pre-split tables, descriptors, family changes, states. */
class AdminTest extends ClientBase {

  @Test
  void namespacesCreateListDescribeDelete() throws IOException {
    String ns = PREFIX + "ns";
    admin.createNamespace(NamespaceDescriptor.create(ns).addConfiguration("owner", "jc").build());
    try {
      assertTrue(Arrays.asList(admin.listNamespaces()).contains(ns));
      assertTrue(Arrays.asList(admin.listNamespaces()).contains("default"));
      assertTrue(Arrays.asList(admin.listNamespaces()).contains("hbase"));
      NamespaceDescriptor d = admin.getNamespaceDescriptor(ns);
      assertEquals(ns, d.getName());
      assertEquals("jc", d.getConfigurationValue("owner"));

      admin.modifyNamespace(NamespaceDescriptor.create(ns).addConfiguration("owner", "other")
          .addConfiguration("extra", "1").build());
      d = admin.getNamespaceDescriptor(ns);
      assertEquals("other", d.getConfigurationValue("owner"));
      assertEquals("1", d.getConfigurationValue("extra"));

      boolean listed = false;
      for (NamespaceDescriptor nd : admin.listNamespaceDescriptors()) {
        listed |= nd.getName().equals(ns);
      }
      assertTrue(listed);

      // a table inside the namespace: listed by namespace, and the namespace cannot be dropped
      TableName t = TableName.valueOf(ns, "inner");
      created.add(t);
      admin.createTable(TableDescriptorBuilder.newBuilder(t).setColumnFamily(family("cf", 1)).build());
      assertEquals(List.of(t), Arrays.asList(admin.listTableNamesByNamespace(ns)));
      assertEquals(1, admin.listTableDescriptorsByNamespace(Bytes.toBytes(ns)).size());
      try (Table table = conn.getTable(t)) {
        table.put(new Put(b("r")).addColumn(b("cf"), b("q"), b("v")));
        assertEquals("v", s(table.get(new Get(b("r"))).getValue(b("cf"), b("q"))));
      }
      IOException e = assertThrows(IOException.class, () -> admin.deleteNamespace(ns));
      assertTIOError(e);
      admin.disableTable(t);
      admin.deleteTable(t);
    } finally {
      admin.deleteNamespace(ns);
    }
    assertFalse(Arrays.asList(admin.listNamespaces()).contains(ns));
    assertThrows(IOException.class, () -> admin.getNamespaceDescriptor(ns));
    // creating "default" again is refused
    assertThrows(IOException.class,
        () -> admin.createNamespace(NamespaceDescriptor.create("default").build()));
  }

  @Test
  void preSplitTableHoldsRowsOfEveryRegion() throws IOException {
    try (Table t = create("split", 1, hexSplits(), "cf")) {
      // the Java thrift client has no region API (getRegionLocator, getRegions are not
      // implemented; isTableAvailable(name, splits) is true for any splits on HBase): regions are
      // checked through PageFilter in FilterListTest; here, rows in every region come back sorted
      List<Put> puts = new ArrayList<>();
      List<String> want = new ArrayList<>();
      for (char c : "0123456789abcdef".toCharArray()) {
        for (String suffix : List.of("", "x")) {
          puts.add(new Put(b(c + suffix)).addColumn(b("cf"), b("q"), b("v" + c)));
          want.add(c + suffix);
        }
      }
      t.put(puts);
      assertTrue(admin.isTableAvailable(t.getName()));
      assertTrue(admin.isTableAvailable(t.getName(), hexSplits()));
      assertEquals(want, rows(t, new Scan()));
      List<String> reversed = new ArrayList<>(want);
      java.util.Collections.reverse(reversed);
      assertEquals(reversed, rows(t, new Scan().setReversed(true)));
    }
  }

  @Test
  void descriptorRoundTrip() throws IOException {
    TableName t = name("desc");
    ColumnFamilyDescriptor a = ColumnFamilyDescriptorBuilder.newBuilder(b("a"))
        .setMaxVersions(7).setTimeToLive(3600).setMinVersions(1)
        .setConfiguration("hbase.hstore.blockingStoreFiles", "42").build();
    ColumnFamilyDescriptor bf = ColumnFamilyDescriptorBuilder.newBuilder(b("b"))
        .setInMemory(true).setBlocksize(32768).build();
    admin.createTable(TableDescriptorBuilder.newBuilder(t).setColumnFamily(a).setColumnFamily(bf)
        .setValue("jc.table.key", "tv").build());
    TableDescriptor d = admin.getDescriptor(t);
    assertEquals(t, d.getTableName());
    assertEquals(2, d.getColumnFamilyCount());
    ColumnFamilyDescriptor ga = d.getColumnFamily(b("a"));
    assertEquals(7, ga.getMaxVersions());
    assertEquals(3600, ga.getTimeToLive());
    assertEquals(1, ga.getMinVersions());
    // the family's values map, as HBase stores it: names and values as strings
    assertEquals("7", ga.getValue(b("VERSIONS")) == null ? null : s(ga.getValue(b("VERSIONS"))));
    assertEquals("3600", s(ga.getValue(b("TTL"))));
    assertEquals("1", s(ga.getValue(b("MIN_VERSIONS"))));
    assertEquals("ROW", s(ga.getValue(b("BLOOMFILTER"))));
    assertEquals("42", ga.getConfigurationValue("hbase.hstore.blockingStoreFiles"));
    assertEquals(Map.of("hbase.hstore.blockingStoreFiles", "42"), new TreeMap<>(ga.getConfiguration()));
    ColumnFamilyDescriptor gb = d.getColumnFamily(b("b"));
    assertTrue(gb.isInMemory());
    assertEquals(32768, gb.getBlocksize());
    assertEquals("true", s(gb.getValue(b("IN_MEMORY"))));
    assertEquals(1, gb.getMaxVersions()); // HBase's default
    assertEquals(Integer.MAX_VALUE, gb.getTimeToLive()); // FOREVER
    if (tableAttributesReadable()) {
      assertEquals("tv", d.getValue("jc.table.key"));
    } else {
      assertNull(d.getValue("jc.table.key")); // the key arrives mangled (ClientBase)
    }
    // the same through Table.getDescriptor
    try (Table table = conn.getTable(t)) {
      assertEquals(7, table.getDescriptor().getColumnFamily(b("a")).getMaxVersions());
    }
  }

  @Test
  void listTablesByPattern() throws IOException {
    TableName t1 = name("pat");
    TableName t2 = name("pat");
    admin.createTable(TableDescriptorBuilder.newBuilder(t1).setColumnFamily(family("a", 7)).build());
    admin.createTable(TableDescriptorBuilder.newBuilder(t2).setColumnFamily(family("a", 2)).build());
    // a plain regex (the server matches the whole name)
    Pattern both = Pattern.compile(PREFIX + "pat_[0-9]+");
    assertEquals(List.of(t1, t2), Arrays.asList(admin.listTableNames(both)));
    assertEquals(2, admin.listTableDescriptors(both).size());
    assertEquals(List.of(), Arrays.asList(admin.listTableNames(Pattern.compile(PREFIX + "pat"))));
    // Pattern.quote, as Java code writes it: \Q...\E (HBase matches with java.util.regex)
    Pattern p = Pattern.compile(Pattern.quote(t1.getNameAsString()));
    assertEquals(List.of(t1), Arrays.asList(admin.listTableNames(p)));
    List<TableDescriptor> ds = admin.listTableDescriptors(p);
    assertEquals(1, ds.size());
    assertEquals(7, ds.get(0).getColumnFamily(b("a")).getMaxVersions());
  }

  @Test
  void familyChangesAndModifyTable() throws IOException {
    try (Table t = create("fam", 3, null, "a", "b")) {
      TableName n = t.getName();
      admin.modifyColumnFamily(n, ColumnFamilyDescriptorBuilder.newBuilder(b("a"))
          .setMaxVersions(9).setTimeToLive(86400).build());
      ColumnFamilyDescriptor a = admin.getDescriptor(n).getColumnFamily(b("a"));
      assertEquals(9, a.getMaxVersions());
      assertEquals(86400, a.getTimeToLive());

      admin.addColumnFamily(n, family("c", 2));
      assertEquals(List.of("a", "b", "c"), familyNames(n));
      assertEquals(2, admin.getDescriptor(n).getColumnFamily(b("c")).getMaxVersions());
      t.put(new Put(b("r")).addColumn(b("c"), b("q"), b("in c")));
      assertEquals("in c", s(t.get(new Get(b("r"))).getValue(b("c"), b("q"))));

      admin.deleteColumnFamily(n, b("b"));
      assertEquals(List.of("a", "c"), familyNames(n));
      IOException e = assertThrows(IOException.class,
          () -> t.put(new Put(b("r")).addColumn(b("b"), b("q"), b("v"))));
      assertTIOError(e);

      // modifyTable: a new family set (d added, a changed) and a table attribute
      TableDescriptor cur = admin.getDescriptor(n);
      admin.modifyTable(TableDescriptorBuilder.newBuilder(cur)
          .modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(cur.getColumnFamily(b("a")))
              .setMaxVersions(4).build())
          .setColumnFamily(family("d", 6))
          .setValue("jc.note", "modified").build());
      TableDescriptor after = admin.getDescriptor(n);
      assertEquals(List.of("a", "c", "d"), familyNames(n));
      assertEquals(4, after.getColumnFamily(b("a")).getMaxVersions());
      assertEquals(86400, after.getColumnFamily(b("a")).getTimeToLive());
      assertEquals(6, after.getColumnFamily(b("d")).getMaxVersions());
      if (tableAttributesReadable()) {
        assertEquals("modified", after.getValue("jc.note"));
      }
      // data of the kept family survives
      assertEquals("in c", s(t.get(new Get(b("r"))).getValue(b("c"), b("q"))));
    }
  }

  private static List<String> familyNames(TableName n) throws IOException {
    List<String> out = new ArrayList<>();
    for (ColumnFamilyDescriptor f : admin.getDescriptor(n).getColumnFamilies()) {
      out.add(f.getNameAsString());
    }
    return out;
  }

  @Test
  void truncatePreservingSplits() throws IOException {
    try (Table t = create("trunc", 1, hexSplits(), "cf")) {
      for (String r : List.of("0", "5", "a", "f")) {
        t.put(new Put(b(r)).addColumn(b("cf"), b("q"), b(r)));
      }
      assertEquals(4, rows(t, new Scan()).size());
      // HBase truncates only a disabled table, and leaves it enabled
      IOException e = assertThrows(IOException.class, () -> admin.truncateTable(t.getName(), true));
      assertTIOError(e);
      admin.disableTable(t.getName());
      admin.truncateTable(t.getName(), true);
      assertTrue(admin.isTableEnabled(t.getName()));
      assertEquals(List.of(), rows(t, new Scan()));
      assertEquals(1, admin.getDescriptor(t.getName()).getColumnFamily(b("cf")).getMaxVersions());
      t.put(new Put(b("7")).addColumn(b("cf"), b("q"), b("after")));
      assertEquals(List.of("7"), rows(t, new Scan()));

      admin.disableTable(t.getName());
      admin.truncateTable(t.getName(), false);
      assertTrue(admin.isTableEnabled(t.getName()));
      assertEquals(List.of(), rows(t, new Scan()));
    }
  }

  @Test
  void disableEnableExistsDelete() throws IOException {
    TableName n;
    try (Table t = create("state", "cf")) {
      n = t.getName();
      assertTrue(admin.tableExists(n));
      assertTrue(admin.isTableEnabled(n));
      assertFalse(admin.isTableDisabled(n));

      admin.disableTable(n);
      assertFalse(admin.isTableEnabled(n));
      assertTrue(admin.isTableDisabled(n));
      assertTrue(admin.tableExists(n));
      IOException e = assertThrows(IOException.class, () -> t.get(new Get(b("r"))));
      assertTIOError(e);
      e = assertThrows(IOException.class, () -> admin.disableTable(n));
      assertTIOError(e);

      admin.enableTable(n);
      assertTrue(admin.isTableEnabled(n));
      e = assertThrows(IOException.class, () -> admin.enableTable(n));
      assertTIOError(e);
      e = assertThrows(IOException.class, () -> admin.deleteTable(n));
      assertTIOError(e);
      e = assertThrows(IOException.class,
          () -> admin.createTable(TableDescriptorBuilder.newBuilder(n).setColumnFamily(family("cf", 1)).build()));
      assertTIOError(e);

      admin.disableTable(n);
      admin.deleteTable(n);
    }
    assertFalse(admin.tableExists(n));
    assertFalse(Arrays.asList(admin.listTableNames()).contains(n));
    IOException e = assertThrows(IOException.class, () -> admin.deleteTable(n));
    assertTIOError(e);
    e = assertThrows(IOException.class, () -> admin.getDescriptor(n));
    assertTIOError(e);
    // a table needs at least one family (HBase fails this one with an internal error: the
    // Java client sends no family list at all)
    TableName empty = name("nofam");
    assertThrows(IOException.class,
        () -> admin.createTable(TableDescriptorBuilder.newBuilder(empty).build()));
    assertFalse(admin.tableExists(empty));
  }
}
