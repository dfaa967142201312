package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redbase.testkit.RedbaseServer;

/**
 * The plain API, shaped like a test that used HBaseTestingUtility: start in {@code @BeforeAll}
 * (was {@code startMiniCluster()}), a Connection from its configuration (was
 * {@code getConfiguration()}), close in {@code @AfterAll} (was {@code shutdownMiniCluster()}).
 */
class PlainApiTest {
  private static RedbaseServer server;
  private static Connection connection;

  @BeforeAll
  static void start() throws Exception {
    server = RedbaseServer.start();
    connection = ConnectionFactory.createConnection(server.configuration());
    try (Admin admin = connection.getAdmin()) {
      AccessLogStore.createTable(admin);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    connection.close();
    server.close();
  }

  @Test
  void recordsAndReads() throws Exception {
    AccessLogStore store = new AccessLogStore(connection);
    store.recordHit("frank", "web_01", 201510, 5);
    assertEquals(1, store.hits("frank", "web_01", 201510));
  }
}
