package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The milestone: connect, create a table, put, get and scan. */
class SmokeTest {
  @Test
  void connectCreatePutGetScan() throws Exception {
    TableName name = Cluster.createTable("smoke", null, "f");
    try (Admin admin = Cluster.connection().getAdmin()) {
      assertTrue(admin.tableExists(name));
    }
    try (Table t = Cluster.connection().getTable(name)) {
      t.put(new Put(Bytes.toBytes("r1")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"),
          Bytes.toBytes("v1")));
      Result r = t.get(new Get(Bytes.toBytes("r1")));
      assertArrayEquals(Bytes.toBytes("v1"), r.getValue(Bytes.toBytes("f"), Bytes.toBytes("q")));
      assertFalse(t.exists(new Get(Bytes.toBytes("nope"))));
      List<String> rows = new ArrayList<>();
      try (ResultScanner s = t.getScanner(new Scan())) {
        for (Result x : s) {
          rows.add(Bytes.toString(x.getRow()));
        }
      }
      assertEquals(List.of("r1"), rows);
    }
  }
}
