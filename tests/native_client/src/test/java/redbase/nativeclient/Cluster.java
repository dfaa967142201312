package redbase.nativeclient;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;

/** One shared connection to the server under test, bootstrapped without ZooKeeper. */
final class Cluster {
  private static Connection connection;
  private static final AtomicInteger TABLES = new AtomicInteger();

  private Cluster() {}

  /** The client configuration: the RPC registry at -Dnc.bootstrap, few retries. */
  static Configuration configuration() {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl",
        "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", System.getProperty("nc.bootstrap"));
    // Failures must come back as exceptions quickly, not after minutes of retries.
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("hbase.client.pause", 50);
    conf.setInt("hbase.rpc.timeout", 20_000);
    conf.setInt("hbase.client.operation.timeout", 60_000);
    conf.setInt("hbase.client.meta.operation.timeout", 60_000);
    return conf;
  }

  static synchronized Connection connection() throws IOException {
    if (connection == null) {
      connection = ConnectionFactory.createConnection(configuration());
    }
    return connection;
  }

  /**
   * A table name no other test uses: nc_{prefix}_{pid}_{n}. The nc_ lets run.sh drop the
   * suite's tables from a shared server (seed_gateways.py drop) without touching others'.
   */
  static TableName freshName(String prefix) {
    return TableName.valueOf("nc_" + prefix + "_" + ProcessHandle.current().pid() + "_"
        + TABLES.incrementAndGet());
  }

  /** Creates a table with the given families and split keys. */
  static TableName createTable(String prefix, byte[][] splits, String... families)
      throws IOException {
    TableName name = freshName(prefix);
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(name);
    for (String f : families) {
      b.setColumnFamily(ColumnFamilyDescriptorBuilder.of(f));
    }
    try (Admin admin = connection().getAdmin()) {
      if (splits == null) {
        admin.createTable(b.build());
      } else {
        admin.createTable(b.build(), splits);
      }
    }
    return name;
  }
}
