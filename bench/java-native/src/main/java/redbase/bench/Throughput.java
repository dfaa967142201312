package redbase.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * HBase's Java client (one Connection per server, a Table per thread, as applications use
 * it) against redbase and against HBase, side by side: the same table preloaded into both,
 * then for each round every cell (operation x threads) once against each server, alternating
 * which goes first. Prints each measurement, then a markdown table of medians and the ratio
 * redbase/HBase of every round.
 */
final class Throughput {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");

  private Throughput() {}

  /** One operation of a cell, on a thread's own Table; returns nothing, throws on failure. */
  interface Op {
    void run(Table t, ThreadLocalRandom rng, long[] seq, int tid) throws IOException;
  }

  static Map<String, Op> cells(int rows, byte[] value) {
    Map<String, Op> m = new LinkedHashMap<>();
    m.put("get", (t, rng, seq, tid) -> {
      Result r = t.get(new Get(row(rng.nextInt(rows))));
      if (r.isEmpty()) {
        throw new IOException("a preloaded row is missing");
      }
    });
    m.put("put", (t, rng, seq, tid) ->
        t.put(new Put(Bytes.toBytes("p" + tid + "-" + seq[0]++)).addColumn(F, Q, value)));
    m.put("put-async", (t, rng, seq, tid) ->
        t.put(new Put(Bytes.toBytes("a" + tid + "-" + seq[0]++)).addColumn(F, Q, value)
            .setDurability(Durability.ASYNC_WAL)));
    m.put("scan100", (t, rng, seq, tid) -> {
      int n = 0;
      try (ResultScanner s = t.getScanner(new Scan().withStartRow(row(rng.nextInt(rows - 100)))
          .setLimit(100).setCaching(100))) {
        for (Result r : s) {
          n++;
        }
      }
      if (n != 100) {
        throw new IOException("a 100-row scan returned " + n);
      }
    });
    m.put("batch-put100", (t, rng, seq, tid) -> {
      List<Put> puts = new ArrayList<>(100);
      for (int i = 0; i < 100; i++) {
        puts.add(new Put(Bytes.toBytes("b" + tid + "-" + seq[0]++)).addColumn(F, Q, value));
      }
      t.put(puts);
    });
    m.put("batch-get100", (t, rng, seq, tid) -> {
      List<Get> gets = new ArrayList<>(100);
      for (int i = 0; i < 100; i++) {
        gets.add(new Get(row(rng.nextInt(rows))));
      }
      Result[] rs = t.get(gets);
      if (rs.length != 100 || rs[99].isEmpty()) {
        throw new IOException("a 100-get batch came back short");
      }
    });
    return m;
  }

  static byte[] row(int i) {
    return Bytes.toBytes(String.format("row%08d", i));
  }

  static Connection connect(String bootstrap) throws IOException {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", bootstrap);
    return ConnectionFactory.createConnection(conf);
  }

  static void preload(Connection c, TableName name, int rows, byte[] value) throws IOException {
    try (Admin admin = c.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
    }
    try (BufferedMutator m = c.getBufferedMutator(name)) {
      for (int i = 0; i < rows; i++) {
        m.mutate(new Put(row(i)).addColumn(F, Q, value));
      }
    }
  }

  /** CPU time (user + system) of a process so far, in clock ticks; -1 if unknown. */
  static long cpuTicks(long pid) {
    if (pid <= 0) {
      return -1;
    }
    try {
      String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * ops/s of one cell: threads run the op for warmup + secs, counted only during secs; and
   * the server's CPU microseconds per op over the same interval ({@code out[1]}, -1 unknown).
   */
  static double[] measure(Connection c, TableName name, Op op, int threads, double secs,
      double warmup, long serverPid, long ticksPerSec) throws Exception {
    LongAdder done = new LongAdder();
    AtomicBoolean counting = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    Throwable[] failure = new Throwable[1];
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      final int tid = i;
      Thread t = new Thread(() -> {
        long[] seq = {System.nanoTime()};
        ThreadLocalRandom rng = ThreadLocalRandom.current();
        try (Table table = c.getTable(name)) {
          while (!stop.get()) {
            op.run(table, rng, seq, tid);
            if (counting.get()) {
              done.increment();
            }
          }
        } catch (Throwable e) {
          synchronized (failure) {
            failure[0] = e;
          }
          stop.set(true);
        }
      });
      t.start();
      ts.add(t);
    }
    Thread.sleep((long) (warmup * 1000));
    long cpu0 = cpuTicks(serverPid);
    counting.set(true);
    long t0 = System.nanoTime();
    Thread.sleep((long) (secs * 1000));
    counting.set(false);
    long t1 = System.nanoTime();
    long cpu1 = cpuTicks(serverPid);
    stop.set(true);
    for (Thread t : ts) {
      t.join();
    }
    if (failure[0] != null) {
      throw new IOException("cell failed", failure[0]);
    }
    double ops = done.sum();
    double cpuPerOp = cpu0 < 0 || cpu1 < 0 || ops == 0 ? -1
        : (cpu1 - cpu0) * 1e6 / ticksPerSec / ops;
    return new double[] {ops / ((t1 - t0) / 1e9), cpuPerOp};
  }

  static void run(Map<String, String> opts) throws Exception {
    int rounds = Integer.parseInt(opts.getOrDefault("rounds", "3"));
    int warmupRounds = Integer.parseInt(opts.getOrDefault("warmup-rounds", "1"));
    double secs = Double.parseDouble(opts.getOrDefault("secs", "3"));
    double warmup = Double.parseDouble(opts.getOrDefault("warmup", "0.5"));
    int rows = Integer.parseInt(opts.getOrDefault("rows", "100000"));
    int[] threadCounts = Arrays.stream(opts.getOrDefault("threads", "1,16").split(","))
        .mapToInt(Integer::parseInt).toArray();
    List<String> cellNames = Arrays.asList(
        opts.getOrDefault("cells", "get,put,put-async,scan100,batch-put100,batch-get100")
            .split(","));
    String[] servers = {"redbase", "hbase"};
    long[] pids = {Long.parseLong(opts.getOrDefault("redbase-pid", "0")),
        Long.parseLong(opts.getOrDefault("hbase-pid", "0"))};
    long ticks = Long.parseLong(opts.getOrDefault("clk-tck", "100"));
    String[] addrs = {opts.get("redbase"), opts.get("hbase")};
    if (addrs[0] == null || addrs[1] == null) {
      throw new IllegalArgumentException("--redbase HOST:PORT and --hbase HOST:PORT are needed");
    }
    byte[] value = new byte[100];
    ThreadLocalRandom.current().nextBytes(value);
    Map<String, Op> ops = cells(rows, value);
    TableName name = TableName.valueOf("nbench_" + ProcessHandle.current().pid());
    Connection[] conns = new Connection[2];
    for (int s = 0; s < 2; s++) {
      conns[s] = connect(addrs[s]);
      long t0 = System.nanoTime();
      preload(conns[s], name, rows, value);
      System.out.printf(Locale.ROOT, "preload %s (%s): %d rows of 100 bytes in %.1f s%n",
          servers[s], addrs[s], rows, (System.nanoTime() - t0) / 1e9);
    }
    // results[cell x threads] -> per round {redbase ops/s, hbase ops/s, redbase CPU µs/op,
    // hbase CPU µs/op}
    Map<String, List<double[]>> results = new LinkedHashMap<>();
    for (int round = -warmupRounds; round < rounds; round++) {
      for (String cell : cellNames) {
        for (int threads : threadCounts) {
          double[] r = new double[4];
          // alternate which server goes first, so neither always runs on a warmer machine
          int first = Math.floorMod(round, 2);
          for (int k = 0; k < 2; k++) {
            int s = (first + k) % 2;
            double[] m = measure(conns[s], name, ops.get(cell), threads, secs, warmup, pids[s],
                ticks);
            r[s] = m[0];
            r[2 + s] = m[1];
          }
          String key = cell + "\t" + threads;
          System.out.printf(Locale.ROOT, "%s %s threads=%d redbase=%.0f hbase=%.0f ratio=%.2f "
              + "cpu_us_per_op redbase=%.0f hbase=%.0f%n", round < 0 ? "warmup" : "round " + round,
              cell, threads, r[0], r[1], r[0] / r[1], r[2], r[3]);
          if (round >= 0) {
            results.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
          }
        }
      }
    }
    for (Connection c : conns) {
      try (Admin admin = c.getAdmin()) {
        admin.disableTable(name);
        admin.deleteTable(name);
      }
      c.close();
    }
    System.out.println();
    System.out.println("| cell | threads | redbase ops/s (median) | HBase ops/s (median) "
        + "| ratio redbase/HBase: median (min–max) | ratio per round "
        + "| server CPU µs/op redbase / HBase (median) |");
    System.out.println("|---|---:|---:|---:|---|---|---:|");
    for (Map.Entry<String, List<double[]>> e : results.entrySet()) {
      String[] k = e.getKey().split("\t");
      List<double[]> rs = e.getValue();
      double[] ratios = rs.stream().mapToDouble(x -> x[0] / x[1]).toArray();
      StringBuilder per = new StringBuilder();
      for (double x : ratios) {
        per.append(per.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", x));
      }
      double[] sorted = ratios.clone();
      Arrays.sort(sorted);
      System.out.printf(Locale.ROOT, "| %s | %s | %.0f | %.0f | %.2f (%.2f–%.2f) | %s | %.0f / %.0f |%n",
          label(k[0]), k[1], median(rs.stream().mapToDouble(x -> x[0]).toArray()),
          median(rs.stream().mapToDouble(x -> x[1]).toArray()), median(ratios), sorted[0],
          sorted[sorted.length - 1], per, median(rs.stream().mapToDouble(x -> x[2]).toArray()),
          median(rs.stream().mapToDouble(x -> x[3]).toArray()));
    }
  }

  static String label(String cell) {
    switch (cell) {
      case "get": return "get";
      case "put": return "put (durability unset: redbase syncs, the oracle's WAL does not)";
      case "put-async": return "put `ASYNC_WAL`";
      case "scan100": return "scan of 100 rows";
      case "batch-put100": return "batch of 100 puts (`Table.put(List)`)";
      case "batch-get100": return "batch of 100 gets (`Table.get(List)`)";
      default: return cell;
    }
  }

  static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }
}
