package org.redbase.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * A throwaway redbase server for tests: the drop-in for {@code
 * HBaseTestingUtility.startMiniCluster()}. {@link #start()} runs {@code redbase serve} (the
 * binary from {@code REDBASE_BIN}, else {@code redbase} on the PATH) with a temporary data
 * directory on free loopback ports below 32768 and returns once it answers; {@link
 * #configuration()} is the HBase client configuration that reaches it; {@link #close()} stops
 * it and deletes its data.
 *
 * <pre>{@code
 * try (RedbaseServer server = RedbaseServer.start();
 *     Connection conn = ConnectionFactory.createConnection(server.configuration())) {
 *   ...
 * }
 * }</pre>
 */
public final class RedbaseServer implements AutoCloseable {
  /** Where {@link #start()} looks for the binary first. */
  public static final String BINARY_ENV = "REDBASE_BIN";

  private static final int LOWEST_PORT = 20000;
  private static final int PORTS_BELOW = 32768; // the kernel's ephemeral ports start here

  private final Process process;
  private final Path root;
  private final Path log;
  private final int nativePort;
  private final int httpPort;
  private final int thrift1Port;
  private final int thrift2Port;
  private final Thread reaper;
  private Connection connection;
  private boolean closed;

  private RedbaseServer(Process process, Path root, Path log, int[] ports) {
    this.process = process;
    this.root = root;
    this.log = log;
    this.nativePort = ports[0];
    this.httpPort = ports[1];
    this.thrift1Port = ports[2];
    this.thrift2Port = ports[3];
    // a test that never closes its server must not leave it running after the JVM
    this.reaper = new Thread(this::stopAndDelete, "redbase-testkit-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  /** Starts a server with the native RPC only (and its HTTP listener: REST, /readyz). */
  public static RedbaseServer start() throws IOException {
    return builder().start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Options of the server {@link Builder#start()} runs. */
  public static final class Builder {
    private Path binary;
    private boolean thrift;
    private Duration startTimeout = Duration.ofSeconds(30);
    private final List<String> extraArgs = new ArrayList<>();

    private Builder() {}

    /** The redbase binary [{@code REDBASE_BIN}, else {@code redbase} on the PATH]. */
    public Builder binary(Path binary) {
      this.binary = binary;
      return this;
    }

    /** Also open the Thrift1 and Thrift2 gateways (ports {@link #thrift1Port()}, ...). */
    public Builder withThrift() {
      this.thrift = true;
      return this;
    }

    /** How long {@link #start()} waits for the server to answer [30 s]. */
    public Builder startTimeout(Duration timeout) {
      this.startTimeout = timeout;
      return this;
    }

    /** More {@code redbase serve} flags, e.g. {@code "--region-max-size", "1048576"}. */
    public Builder args(String... args) {
      extraArgs.addAll(Arrays.asList(args));
      return this;
    }

    /** Starts the server; returns once {@code /readyz} answers 200. */
    public RedbaseServer start() throws IOException {
      Path bin = binary != null ? binary : findBinary();
      if (!Files.isExecutable(bin) || Files.isDirectory(bin)) {
        throw new IllegalStateException(bin + " is not an executable redbase binary");
      }
      Path root = Files.createTempDirectory("redbase-testkit-");
      Path log = root.resolve("server.log");
      IOException last = null;
      // A port free a moment ago may be taken before the server binds it: then the server
      // exits at once, and another set of ports is tried.
      for (int attempt = 0; attempt < 5; attempt++) {
        int[] ports = freePorts(4);
        List<String> cmd = new ArrayList<>(List.of(bin.toString(), "serve",
            "--data-dir", root.resolve("data").toString(),
            "--gateways", thrift ? "thrift1,thrift2,native" : "native",
            "--hbase-rpc-addr", "127.0.0.1:" + ports[0],
            "--http-addr", "127.0.0.1:" + ports[1],
            "--advertised-host", "127.0.0.1"));
        if (thrift) {
          cmd.addAll(List.of("--thrift1-addr", "127.0.0.1:" + ports[2],
              "--thrift2-addr", "127.0.0.1:" + ports[3]));
        } else {
          ports[2] = -1;
          ports[3] = -1;
        }
        cmd.addAll(extraArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        // the caller's REDBASE_* settings (an auth file, other ports) are not this server's
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("REDBASE_"));
        Process p = pb.start();
        try {
          if (waitReady(p, ports[1], startTimeout)) {
            return new RedbaseServer(p, root, log, ports);
          }
          last = new IOException("redbase exited with status " + p.exitValue()
              + " during start-up; last lines of " + log + ":\n" + tail(log));
        } catch (IOException | RuntimeException e) {
          p.destroyForcibly();
          deleteTree(root);
          throw e;
        }
      }
      deleteTree(root);
      throw last;
    }
  }

  /** {@code REDBASE_BIN}, else the first {@code redbase} on the PATH. */
  static Path findBinary() {
    String env = System.getenv(BINARY_ENV);
    if (env != null && !env.isEmpty()) {
      Path p = Paths.get(env);
      if (!Files.isExecutable(p)) {
        throw new IllegalStateException(BINARY_ENV + "=" + env + " is not an executable file");
      }
      return p;
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        Path p = Paths.get(dir.isEmpty() ? "." : dir, "redbase");
        if (Files.isExecutable(p) && !Files.isDirectory(p)) {
          return p;
        }
      }
    }
    throw new IllegalStateException("no redbase binary: set " + BINARY_ENV
        + " to its path or put it on the PATH (cargo build -p redbase builds target/debug/redbase)");
  }

  /** Distinct loopback ports in [20000, 32768) that nothing listens on right now. */
  static int[] freePorts(int n) throws IOException {
    int[] out = new int[n];
    int found = 0;
    for (int tries = 0; found < n && tries < 1000; tries++) {
      int p = ThreadLocalRandom.current().nextInt(LOWEST_PORT, PORTS_BELOW);
      boolean dup = false;
      for (int i = 0; i < found; i++) {
        dup |= out[i] == p;
      }
      if (dup) {
        continue;
      }
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
        out[found++] = p;
      } catch (IOException taken) {
        // in use: try another
      }
    }
    if (found < n) {
      throw new IOException("no free loopback ports below " + PORTS_BELOW);
    }
    return out;
  }

  /** True once /readyz answers 200; false if the process exited first. */
  private static boolean waitReady(Process p, int httpPort, Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    URL url = new URL("http://127.0.0.1:" + httpPort + "/readyz");
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        return false;
      }
      try {
        HttpURLConnection c = (HttpURLConnection) url.openConnection();
        c.setConnectTimeout(500);
        c.setReadTimeout(2000);
        int status = c.getResponseCode();
        c.disconnect();
        if (status == 200) {
          return true;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while redbase started", e);
      }
    }
    p.destroyForcibly();
    throw new IOException("redbase did not answer /readyz within " + timeout);
  }

  /**
   * The HBase client configuration for this server: RpcConnectionRegistry (no ZooKeeper) with
   * the native port as its bootstrap server. A fresh copy each call, to change as a test likes.
   */
  public Configuration configuration() {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", bootstrapServers());
    return conf;
  }

  /** One connection shared by the callers, closed with the server. */
  public synchronized Connection connection() throws IOException {
    if (closed) {
      throw new IllegalStateException("the server is closed");
    }
    if (connection == null) {
      connection = ConnectionFactory.createConnection(configuration());
    }
    return connection;
  }

  /** {@code 127.0.0.1:<native port>}, the value of {@code hbase.client.bootstrap.servers}. */
  public String bootstrapServers() {
    return "127.0.0.1:" + nativePort;
  }

  public int nativePort() {
    return nativePort;
  }

  /** The HTTP listener: REST, /metrics, /readyz. */
  public int httpPort() {
    return httpPort;
  }

  /** The Thrift1 gateway's port, or -1 without {@link Builder#withThrift()}. */
  public int thrift1Port() {
    return thrift1Port;
  }

  /** The Thrift2 gateway's port, or -1 without {@link Builder#withThrift()}. */
  public int thrift2Port() {
    return thrift2Port;
  }

  /** The temporary data directory (deleted by {@link #close()}). */
  public Path dataDir() {
    return root.resolve("data");
  }

  /** The server's log so far. */
  public String log() throws IOException {
    return Files.readString(log);
  }

  /** The server's process id (to watch its memory, say). */
  public long pid() {
    return process.pid();
  }

  public boolean isRunning() {
    return process.isAlive();
  }

  /** Closes the shared connection, stops the server (SIGTERM, then SIGKILL after 10 s) and
   * deletes its data. */
  @Override
  public void close() {
    stopAndDelete();
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or has run
    }
  }

  private synchronized void stopAndDelete() {
    if (closed) {
      return;
    }
    closed = true;
    if (connection != null) {
      try {
        connection.close();
      } catch (IOException ignored) {
        // the server goes away anyway
      }
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    deleteTree(root);
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(" + e + ")";
    }
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> all = Files.walk(root)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException | UncheckedIOException e) {
      // a leftover temporary directory is not worth failing a test for
    }
  }
}
