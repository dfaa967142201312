package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redbase.testkit.RedbaseExtension;

/** The JUnit 5 way: the extension starts redbase for this class and injects the Connection. */
@ExtendWith(RedbaseExtension.class)
class AccessLogStoreTest {
  @BeforeAll
  static void schema(Admin admin) throws Exception {
    AccessLogStore.createTable(admin);
    assertEquals(16, admin.getRegions(AccessLogStore.TABLE).size());
  }

  @Test
  void countsHitsPerUserSystemAndPeriod(Connection connection) throws Exception {
    AccessLogStore store = new AccessLogStore(connection);
    assertEquals(1, store.recordHit("dave", "jericho", 201510, 1_000));
    assertEquals(2, store.recordHit("dave", "jericho", 201510, 2_000));
    assertEquals(1, store.recordHit("dave", "web_01", 201511, 3_000));
    assertEquals(2, store.hits("dave", "jericho", 201510));
    assertEquals(0, store.hits("dave", "jericho", 201512));
  }

  @Test
  void oneUsersUsageIsOneScan(Connection connection) throws Exception {
    AccessLogStore store = new AccessLogStore(connection);
    for (int u = 0; u < 50; u++) {
      store.recordHit("user" + u, "mobile", 201510, u);
    }
    store.recordHit("erin", "api", 201510, 1);
    store.recordHit("erin", "api", 201511, 2);
    store.recordHit("erin", "api", 201511, 3);
    Map<String, Long> usage = store.usage("erin");
    assertEquals(Map.of("api|201510", 1L, "api|201511", 2L), usage);
    assertTrue(store.usage("nobody").isEmpty());
  }
}
