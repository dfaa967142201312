package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** 100,000 rows through BufferedMutator (batched Multi calls with cell blocks), read back. */
class BulkTest {
  private static final byte[] F = Bytes.toBytes("f");

  @Test
  void bufferedMutatorThenScanWithBatches() throws Exception {
    byte[][] splits = {Bytes.toBytes("row-02"), Bytes.toBytes("row-05"), Bytes.toBytes("row-08")};
    TableName name = Cluster.createTable("bulk", splits, "f");
    int rows = 100_000;
    try (BufferedMutator m = Cluster.connection().getBufferedMutator(name)) {
      for (int i = 0; i < rows; i++) {
        byte[] row = Bytes.toBytes(String.format("row-%06d", i));
        m.mutate(new Put(row).addColumn(F, Bytes.toBytes("a"), Bytes.toBytes(i))
            .addColumn(F, Bytes.toBytes("b"), Bytes.toBytes("x"))
            .addColumn(F, Bytes.toBytes("c"), Bytes.toBytes("y")));
      }
    }
    int count = 0;
    int cells = 0;
    try (Table t = Cluster.connection().getTable(name);
        ResultScanner s = t.getScanner(new Scan().setCaching(1000))) {
      for (Result r : s) {
        assertEquals(String.format("row-%06d", count), Bytes.toString(r.getRow()));
        assertEquals(count, Bytes.toInt(r.getValue(F, Bytes.toBytes("a"))));
        count++;
        cells += r.size();
      }
    }
    assertEquals(rows, count);
    assertEquals(3 * rows, cells);
    // With a batch of 2 cells, each row comes as two results (2 cells, then 1).
    int pieces = 0;
    try (Table t = Cluster.connection().getTable(name);
        ResultScanner s = t.getScanner(new Scan().setBatch(2).setCaching(500)
            .withStopRow(Bytes.toBytes("row-000100")))) {
      for (Result r : s) {
        assertEquals(pieces % 2 == 0 ? 2 : 1, r.size());
        pieces++;
      }
    }
    assertEquals(200, pieces);
  }
}
