package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The seed documents' tables (access-logs with MD5-prefixed keys over 16 regions,
 * social-usage, counters, the cloud-drive tables) across gateways. run.sh runs
 * seed_gateways.py around the suite: before it, the tables written through Thrift2 and REST,
 * which this test reads natively; after it, the tables this test writes natively, which the
 * script reads through Thrift1, Thrift2, REST and `redbase shell`. Both sides compare every
 * version of every cell, timestamps included. Cells files: one cell a line, tab-separated
 * table, row hex, family, qualifier hex, timestamp, value hex.
 */
class SeedTablesTest {
  private static final String[] SYSTEMS = {"jericho", "web_01", "mobile", "api"};

  private static Path seedDir() {
    String dir = System.getProperty("nc.seed.dir", "");
    Assumptions.assumeFalse(dir.isEmpty(), "run.sh passes -Dnc.seed.dir with the gateways' cells");
    return Path.of(dir);
  }

  static String line(String table, Cell c) {
    return String.join("\t", table, hex(CellUtil.cloneRow(c)),
        Bytes.toString(CellUtil.cloneFamily(c)), hex(CellUtil.cloneQualifier(c)),
        Long.toString(c.getTimestamp()), hex(CellUtil.cloneValue(c)));
  }

  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder(b.length * 2);
    for (byte x : b) {
      s.append(String.format("%02x", x & 0xff));
    }
    return s.toString();
  }

  /** Fails naming the first few cells missing and extra, not with thousands of lines. */
  static void assertSameCells(List<String> want, List<String> got, String what) {
    if (want.equals(got)) {
      return;
    }
    java.util.TreeSet<String> missing = new java.util.TreeSet<>(want);
    missing.removeAll(got);
    java.util.TreeSet<String> extra = new java.util.TreeSet<>(got);
    extra.removeAll(want);
    org.junit.jupiter.api.Assertions.fail(what + ": " + want.size() + " cells expected, "
        + got.size() + " read; missing " + missing.size() + " " + missing.stream().limit(5).toList()
        + ", extra " + extra.size() + " " + extra.stream().limit(5).toList());
  }

  /** Every version of every cell of a table, as sorted cells-file lines. */
  static List<String> readAll(TableName name) throws IOException {
    List<String> out = new ArrayList<>();
    try (Table t = Cluster.connection().getTable(name);
        ResultScanner s = t.getScanner(new Scan().readAllVersions().setCaching(200))) {
      for (Result r : s) {
        for (Cell c : r.rawCells()) {
          out.add(line(name.getNameAsString(), c));
        }
      }
    }
    out.sort(null);
    return out;
  }

  @Test
  void gatewayWrittenTablesReadNatively() throws Exception {
    Path file = seedDir().resolve("gateway.cells");
    Map<String, List<String>> byTable = new TreeMap<>();
    for (String l : Files.readAllLines(file)) {
      byTable.computeIfAbsent(l.substring(0, l.indexOf('\t')), k -> new ArrayList<>()).add(l);
    }
    assertEquals(5, byTable.size(), "tables in " + file);
    for (Map.Entry<String, List<String>> e : byTable.entrySet()) {
      List<String> want = new ArrayList<>(e.getValue());
      want.sort(null);
      assertSameCells(want, readAll(TableName.valueOf(e.getKey())), e.getKey());
    }
    String ns = Files.readString(seedDir().resolve("gateway.namespace")).trim();
    try (Admin admin = Cluster.connection().getAdmin()) {
      // created through Thrift2 with split keys: the native client sees the same regions
      assertEquals(16, admin.getRegions(TableName.valueOf(ns, "access-logs")).size());
      assertEquals(4, admin.getRegions(TableName.valueOf(ns, "drive-file")).size());
    }
    try (Table t = Cluster.connection().getTable(TableName.valueOf(ns, "counters"))) {
      // Thrift2's increments are 8-byte big-endian longs, as the native client reads them
      for (int r = 0; r < 20; r++) {
        Result res = t.get(new org.apache.hadoop.hbase.client.Get(Bytes.toBytes("rk" + r)));
        assertEquals(2L, Bytes.toLong(res.getValue(Bytes.toBytes("c"), Bytes.toBytes("1"))));
        assertEquals(100L + r, Bytes.toLong(res.getValue(Bytes.toBytes("c"), Bytes.toBytes("2"))));
      }
    }
  }

  /** What a table should hold: cells with chosen timestamps, and server-stamped values. */
  static final class Expected {
    final TableName name;
    final List<String> exact = new ArrayList<>();
    final Map<String, byte[]> stamped = new TreeMap<>();

    Expected(TableName name) {
      this.name = name;
    }

    void cell(byte[] row, String fam, byte[] q, long ts, byte[] v) {
      exact.add(String.join("\t", name.getNameAsString(), hex(row), fam, hex(q),
          Long.toString(ts), hex(v)));
    }

    void stamped(byte[] row, String fam, byte[] q, byte[] v) {
      stamped.put(String.join("\t", name.getNameAsString(), hex(row), fam, hex(q)), v);
    }

    void remove(byte[] row, String fam, byte[] q) {
      String prefix = String.join("\t", name.getNameAsString(), hex(row), fam, hex(q)) + "\t";
      exact.removeIf(l -> l.startsWith(prefix));
    }

    /** Reads the table natively, checks it, and returns its lines for the cells file. */
    List<String> verify(long since) throws IOException {
      List<String> got = readAll(name);
      List<String> exactGot = new ArrayList<>();
      Map<String, byte[]> stampedGot = new TreeMap<>();
      for (String l : got) {
        String[] f = l.split("\t");
        String key = String.join("\t", f[0], f[1], f[2], f[3]);
        if (stamped.containsKey(key)) {
          long ts = Long.parseLong(f[4]);
          assertTrue(ts >= since && ts <= System.currentTimeMillis() + 60_000, l);
          assertTrue(stampedGot.put(key, Bytes.fromHex(f[5])) == null, "one version: " + l);
        } else {
          exactGot.add(l);
        }
      }
      List<String> want = new ArrayList<>(exact);
      want.sort(null);
      assertSameCells(want, exactGot, name.getNameAsString());
      assertEquals(stamped.keySet(), stampedGot.keySet(), name.getNameAsString());
      for (Map.Entry<String, byte[]> e : stamped.entrySet()) {
        assertEquals(hex(e.getValue()), hex(stampedGot.get(e.getKey())), e.getKey());
      }
      return got;
    }
  }

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  static String md5Prefix(String user) throws Exception {
    return hex(MessageDigest.getInstance("MD5").digest(user.getBytes(StandardCharsets.UTF_8)))
        .substring(0, 5);
  }

  static TableName create(String ns, String name, byte[][] splits, Object... famVersions)
      throws IOException {
    TableName tn = TableName.valueOf(ns, name);
    TableDescriptorBuilder d = TableDescriptorBuilder.newBuilder(tn);
    for (int i = 0; i < famVersions.length; i += 2) {
      d.setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b((String) famVersions[i]))
          .setMaxVersions((Integer) famVersions[i + 1]).build());
    }
    try (Admin admin = Cluster.connection().getAdmin()) {
      admin.createTable(d.build(), splits);
    }
    return tn;
  }

  @Test
  void nativeWrittenTablesForTheGateways() throws Exception {
    Path dir = seedDir();
    long since = System.currentTimeMillis() - 60_000;
    String ns = "nc_" + ProcessHandle.current().pid();
    try (Admin admin = Cluster.connection().getAdmin()) {
      admin.createNamespace(NamespaceDescriptor.create(ns).build());
    }
    Random rng = new Random(39);
    List<Expected> tables = new ArrayList<>();

    // access-logs (seed 000, table 4): {md5(user)[:5]}|{system}|{period} over 16 regions,
    // two versions of each cell; the first version through BufferedMutator, the second in a
    // batch of puts; then one version deleted
    byte[][] splits16 = new byte[15][];
    for (int i = 1; i < 16; i++) {
      splits16[i - 1] = b(Integer.toHexString(i));
    }
    Expected logs = new Expected(create(ns, "access-logs", splits16, "t", 3));
    tables.add(logs);
    long[] stamps = {1_700_000_000_000L, 1_700_000_500_000L};
    for (int version = 1; version <= 2; version++) {
      long ts0 = stamps[version - 1];
      List<Put> puts = new ArrayList<>();
      for (int u = 0; u < 60; u++) {
        for (int s = 0; s <= u % 4; s++) {
          for (int period : new int[] {201510, 201511}) {
            byte[] row = b(md5Prefix("user" + u) + "|" + SYSTEMS[s] + "|" + period);
            byte[] hits = Bytes.toBytes((long) (1 + rng.nextInt(9_999)) * version);
            byte[] seen = Bytes.toBytes(ts0 - u);
            puts.add(new Put(row).addColumn(b("t"), b("h"), ts0 + u, hits)
                .addColumn(b("t"), b("l"), ts0 + u, seen));
            logs.cell(row, "t", b("h"), ts0 + u, hits);
            logs.cell(row, "t", b("l"), ts0 + u, seen);
          }
        }
      }
      if (version == 1) {
        try (BufferedMutator m = Cluster.connection().getBufferedMutator(logs.name)) {
          m.mutate(puts);
        }
      } else {
        try (Table t = Cluster.connection().getTable(logs.name)) {
          t.put(puts);
        }
      }
    }
    byte[] user7 = b(md5Prefix("user7") + "|jericho|201510");
    try (Table t = Cluster.connection().getTable(logs.name)) {
      t.delete(new Delete(user7).addColumn(b("t"), b("h"), stamps[1] + 7));
    }
    String deleted = String.join("\t", logs.name.getNameAsString(), hex(user7), "t", hex(b("h")),
        Long.toString(stamps[1] + 7)) + "\t";
    assertTrue(logs.exact.removeIf(l -> l.startsWith(deleted)));

    // social-usage (seed 000): ids put, per-period counters and totals incremented, the
    // Twitter id appended in two steps; timestamps from the server's clock
    Expected social = new Expected(create(ns, "social-usage", null, "fb", 1, "tw", 1));
    tables.add(social);
    try (Table t = Cluster.connection().getTable(social.name)) {
      for (int u = 0; u < 30; u++) {
        byte[] row = b("user" + u);
        long ts = 1_600_000_000_000L + u;
        t.put(new Put(row).addColumn(b("fb"), b("id"), ts, b("fb" + u)));
        social.cell(row, "fb", b("id"), ts, b("fb" + u));
        t.append(new Append(row).addColumn(b("tw"), b("id"), b("@u")));
        t.append(new Append(row).addColumn(b("tw"), b("id"), b(Integer.toString(u))));
        social.stamped(row, "tw", b("id"), b("@u" + u));
        long total = 0;
        for (int m = 1; m <= u % 6; m++) {
          long n = 1 + rng.nextInt(499);
          total += n;
          byte[] q = b(String.format("2015%02d", m));
          t.increment(new Increment(row).addColumn(b("fb"), q, n).addColumn(b("fb"), b("t"), n));
          social.stamped(row, "fb", q, Bytes.toBytes(n));
        }
        if (total > 0) { // (users without periods have no totals)
          social.stamped(row, "fb", b("t"), Bytes.toBytes(total));
          t.incrementColumnValue(row, b("tw"), b("t"), total * 2);
          social.stamped(row, "tw", b("t"), Bytes.toBytes(total * 2));
        }
      }
    }

    // counters (seed 000): incr 'counters', 'rkN', 'c:1' (twice) and 'c:2', 100 + N
    Expected counters = new Expected(create(ns, "counters", null, "c", 1));
    tables.add(counters);
    try (Table t = Cluster.connection().getTable(counters.name)) {
      for (int r = 0; r < 20; r++) {
        byte[] row = b("rk" + r);
        t.incrementColumnValue(row, b("c"), b("1"), 1);
        t.incrementColumnValue(row, b("c"), b("2"), 100 + r);
        assertEquals(2L, t.incrementColumnValue(row, b("c"), b("1"), 1));
        counters.stamped(row, "c", b("1"), Bytes.toBytes(2L));
        counters.stamped(row, "c", b("2"), Bytes.toBytes(100L + r));
      }
    }

    // drive-directory (seed 004): a row per path, children in sub (d_ dirs, f_ files with
    // their file id), the creator in cf; a file added if absent, one removed, one renamed
    // atomically
    Expected dirs = new Expected(create(ns, "drive-directory", null, "sub", 1, "cf", 1));
    tables.add(dirs);
    Map<String, List<String>> tree = new TreeMap<>();
    tree.put("/", List.of("d_home"));
    tree.put("/home", List.of("d_alice", "d_bob"));
    tree.put("/home/alice", List.of("d_photos", "f_notes.txt"));
    List<String> photos = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      photos.add("f_img" + i + ".png");
    }
    tree.put("/home/alice/photos", photos);
    tree.put("/home/bob", List.of("f_todo"));
    try (Table t = Cluster.connection().getTable(dirs.name)) {
      int i = 0;
      List<Row> batch = new ArrayList<>();
      for (Map.Entry<String, List<String>> e : tree.entrySet()) {
        long ts = 1_640_000_000_000L + i;
        byte[] row = b(e.getKey());
        byte[] creator = b(e.getKey().contains("bob") ? "bob" : "alice");
        Put p = new Put(row).addColumn(b("cf"), b("creator"), ts, creator);
        dirs.cell(row, "cf", b("creator"), ts, creator);
        for (String child : e.getValue()) {
          byte[] v = b(child.startsWith("f_") ? "uuid-" + i + "-" + child : "");
          p.addColumn(b("sub"), b(child), ts, v);
          dirs.cell(row, "sub", b(child), ts, v);
        }
        batch.add(p);
        i++;
      }
      t.batch(batch, new Object[batch.size()]);
      byte[] alice = b("/home/alice");
      Put added = new Put(alice).addColumn(b("sub"), b("f_new.txt"), 1_640_000_000_100L, b("uuid-new"));
      assertTrue(t.checkAndMutate(CheckAndMutate.newBuilder(alice)
          .ifNotExists(b("sub"), b("f_new.txt")).build(added)).isSuccess());
      assertTrue(!t.checkAndMutate(CheckAndMutate.newBuilder(alice)
          .ifNotExists(b("sub"), b("f_new.txt")).build(added)).isSuccess());
      dirs.cell(alice, "sub", b("f_new.txt"), 1_640_000_000_100L, b("uuid-new"));
      byte[] photosRow = b("/home/alice/photos");
      t.delete(new Delete(photosRow).addColumns(b("sub"), b("f_img3.png")));
      dirs.remove(photosRow, "sub", b("f_img3.png"));
      byte[] bob = b("/home/bob");
      RowMutations rename = new RowMutations(bob);
      rename.add(new Delete(bob).addColumns(b("sub"), b("f_todo")));
      rename.add(new Put(bob).addColumn(b("sub"), b("f_todo.md"), 1_640_000_000_200L, b("uuid-4-f_todo")));
      t.mutateRow(rename);
      dirs.remove(bob, "sub", b("f_todo"));
      dirs.cell(bob, "sub", b("f_todo.md"), 1_640_000_000_200L, b("uuid-4-f_todo"));
    }

    // drive-file (seed 004): random 16-byte UUID keys over 4 regions, content bytes in c,
    // creator, size (a long) and type in cf
    Expected files = new Expected(create(ns, "drive-file",
        new byte[][] {{0x40}, {(byte) 0x80}, {(byte) 0xc0}}, "c", 1, "cf", 1));
    tables.add(files);
    try (Table t = Cluster.connection().getTable(files.name)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        byte[] row = new byte[16];
        rng.nextBytes(row);
        long ts = 1_650_000_000_000L + i;
        byte[] content = new byte[100 + rng.nextInt(2900)];
        rng.nextBytes(content);
        Put p = new Put(row).addColumn(b("c"), b("c"), ts, content)
            .addColumn(b("cf"), b("creator"), ts, b("user" + i % 5))
            .addColumn(b("cf"), b("size"), ts, Bytes.toBytes((long) content.length))
            .addColumn(b("cf"), b("type"), ts, b("image/png"));
        puts.add(p);
        files.cell(row, "c", b("c"), ts, content);
        files.cell(row, "cf", b("creator"), ts, b("user" + i % 5));
        files.cell(row, "cf", b("size"), ts, Bytes.toBytes((long) content.length));
        files.cell(row, "cf", b("type"), ts, b("image/png"));
      }
      t.put(puts);
    }

    List<String> all = new ArrayList<>();
    for (Expected e : tables) {
      all.addAll(e.verify(since));
    }
    Files.write(dir.resolve("native-" + VersionInfo.getVersion() + ".cells"), all);
  }
}
