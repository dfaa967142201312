package org.redbase.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the extension injects, and that a class's tests (and nested classes) share a server. */
@ExtendWith(RedbaseExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedbaseExtensionTest {
  private final RedbaseServer server;

  RedbaseExtensionTest(RedbaseServer server) {
    this.server = server;
  }

  @Test
  @Order(1)
  void injectsTheServerItsConfigurationAndConnection(RedbaseServer s, Configuration conf,
      Connection connection, Admin admin) throws Exception {
    assertSame(server, s);
    assertEquals(s.bootstrapServers(), conf.get("hbase.client.bootstrap.servers"));
    assertSame(s.connection(), connection);
    admin.createTable(TableDescriptorBuilder.newBuilder(TableName.valueOf("shared"))
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build());
    admin.close();
  }

  @Test
  @Order(2)
  void laterTestsOfTheClassSeeTheSameServer(Admin admin) throws Exception {
    assertTrue(admin.tableExists(TableName.valueOf("shared")));
  }

  @Nested
  class Inner {
    @Test
    void nestedClassesShareIt(RedbaseServer s) {
      assertSame(server, s);
    }
  }
}
