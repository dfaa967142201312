package redbase.bench;

import java.util.HashMap;
import java.util.Map;

/**
 * The Java native client benchmark (tests/oracle/native_bench.sh runs it):
 *
 * <pre>
 *   throughput --redbase HOST:PORT --hbase HOST:PORT [--rounds 3] [--warmup-rounds 1]
 *              [--secs 3] [--warmup 0.5] [--rows 100000] [--threads 1,16]
 *              [--cells get,put,put-async,scan100,batch-put100,batch-get100]
 *              [--redbase-pid P --hbase-pid P --clk-tck 100]   (server CPU per op)
 *   startup redbase|minicluster
 * </pre>
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: throughput --redbase H:P --hbase H:P [options] | startup redbase|minicluster");
      System.exit(2);
    }
    if (args[0].equals("startup")) {
      Startup.run(args.length > 1 ? args[1] : "");
    } else if (args[0].equals("throughput")) {
      Map<String, String> opts = new HashMap<>();
      for (int i = 1; i + 1 < args.length; i += 2) {
        if (!args[i].startsWith("--")) {
          throw new IllegalArgumentException("not an option: " + args[i]);
        }
        opts.put(args[i].substring(2), args[i + 1]);
      }
      Throughput.run(opts);
    } else {
      throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    // the clients' and mini cluster's non-daemon threads must not keep the JVM up
    System.exit(0);
  }
}
