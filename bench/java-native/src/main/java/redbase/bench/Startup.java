package redbase.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.redbase.testkit.RedbaseServer;

/**
 * What a test suite waits for before its first test: from "start a server" to the first
 * acknowledged put (connection, create table, put), with redbase-testkit or with HBase's own
 * HBaseTestingUtility.startMiniCluster(), each in a fresh JVM (the script starts one per
 * run, with the same flags and classpath). Prints one line: the time to the first put, the
 * time to stop, and the peak resident memory of the JVM and (redbase) of the server process.
 */
final class Startup {
  private Startup() {}

  static long firstPut(Connection c) throws IOException {
    TableName name = TableName.valueOf("startup");
    mark("connected");
    try (Admin admin = c.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build());
    }
    mark("table created");
    try (Table t = c.getTable(name)) {
      t.put(new Put(Bytes.toBytes("r")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"),
          Bytes.toBytes("v")));
    }
    return System.nanoTime();
  }

  static final long T0 = System.nanoTime();

  /** With -Dbench.trace=true: how long after start each step ended. */
  static void mark(String what) {
    if (Boolean.getBoolean("bench.trace")) {
      System.out.printf(Locale.ROOT, "  %7.0f ms  %s%n", (System.nanoTime() - T0) / 1e6, what);
    }
  }

  /** VmHWM (peak resident set) of a process, in MiB, or -1. */
  static long peakRssMiB(long pid) {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (l.startsWith("VmHWM:")) {
          return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux, or gone
    }
    return -1;
  }

  static void run(String kind) throws Exception {
    long self = ProcessHandle.current().pid();
    long t0 = System.nanoTime();
    long put;
    long stop0;
    long serverRss = -1;
    if (kind.equals("redbase")) {
      RedbaseServer server = RedbaseServer.start();
      mark("server ready");
      try (Connection c = ConnectionFactory.createConnection(server.configuration())) {
        put = firstPut(c);
        serverRss = peakRssMiB(server.pid());
      }
      stop0 = System.nanoTime();
      server.close();
    } else if (kind.equals("minicluster")) {
      HBaseTestingUtility util = new HBaseTestingUtility();
      util.startMiniCluster();
      mark("mini cluster ready");
      put = firstPut(util.getConnection());
      stop0 = System.nanoTime();
      util.shutdownMiniCluster();
    } else {
      throw new IllegalArgumentException("startup redbase|minicluster");
    }
    long stopped = System.nanoTime();
    System.out.printf(Locale.ROOT,
        "startup %s first_put_ms=%.0f stop_ms=%.0f jvm_peak_rss_mib=%d server_peak_rss_mib=%d%n",
        kind, (put - t0) / 1e6, (stopped - stop0) / 1e6, peakRssMiB(self), serverRss);
  }
}
