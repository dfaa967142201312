package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * A redbase process of a test's own, for settings the suite's shared server was not started
 * with (TLS, another znode parent); -Dnc.redbase names the binary. Ports come from binding
 * port 0 and may be taken again before the server binds them, so a start tries a few times.
 */
final class OwnRedbase {
  private OwnRedbase() {}

  /** The ports of one attempt: native RPC, ZooKeeper responder, HTTP. */
  record Ports(int rpc, int zk, int http) {}

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /**
   * Runs `redbase serve` in `dir` (its working directory; data in dir/data, output in
   * dir/server.log) with the native gateway on an attempt's ports plus `extra` of them, and
   * returns once the port `ready` names accepts connections; fails with the server's log.
   */
  static Process start(Path dir, Function<Ports, List<String>> extra, ToIntFunction<Ports> ready)
      throws Exception {
    String bin = System.getProperty("nc.redbase");
    assertNotNull(bin, "-Dnc.redbase names the redbase binary");
    for (int attempt = 0; attempt < 5; attempt++) {
      Ports ports = new Ports(freePort(), freePort(), freePort());
      List<String> cmd = new ArrayList<>(List.of(bin, "serve", "--data-dir",
          dir.resolve("data").toString(), "--gateways", "native",
          "--hbase-rpc-addr", "127.0.0.1:" + ports.rpc(),
          "--zookeeper-addr", "127.0.0.1:" + ports.zk(),
          "--http-addr", "127.0.0.1:" + ports.http()));
      cmd.addAll(extra.apply(ports));
      Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(dir.resolve("server.log").toFile()).start();
      long deadline = System.currentTimeMillis() + 30_000;
      while (p.isAlive() && System.currentTimeMillis() < deadline) {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", ready.applyAsInt(ports)), 200);
          return p;
        } catch (IOException notYet) {
          Thread.sleep(50);
        }
      }
      p.destroy();
      p.waitFor(30, TimeUnit.SECONDS);
    }
    throw new AssertionError("redbase did not start: " + Files.readString(dir.resolve("server.log")));
  }

  static void stop(Process server) throws InterruptedException {
    if (server != null) {
      server.destroy();
      server.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
