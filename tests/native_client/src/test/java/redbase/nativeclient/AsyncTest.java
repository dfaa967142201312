package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.ScanResultConsumer;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The asynchronous client (AsyncConnection): its own region locator and scan callers. */
class AsyncTest {
  private static final byte[] F = Bytes.toBytes("f");

  @Test
  void putsGetsAndScansAcrossRegions() throws Exception {
    byte[][] splits = {Bytes.toBytes("4"), Bytes.toBytes("8")};
    TableName name = Cluster.createTable("async", splits, "f");
    try (AsyncConnection conn =
        ConnectionFactory.createAsyncConnection(Cluster.configuration()).get()) {
      AsyncTable<ScanResultConsumer> t = conn.getTable(name, ForkJoinPool.commonPool());
      List<CompletableFuture<Void>> puts = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        puts.add(t.put(new Put(Bytes.toBytes(String.format("%02d", i)))
            .addColumn(F, Bytes.toBytes("q"), Bytes.toBytes(i))));
      }
      CompletableFuture.allOf(puts.toArray(new CompletableFuture[0])).get();
      Result r = t.get(new Get(Bytes.toBytes("42"))).get();
      assertEquals(42, Bytes.toInt(r.getValue(F, Bytes.toBytes("q"))));
      List<Result> all = t.scanAll(new Scan().setCaching(9)).get();
      assertEquals(100, all.size());
      assertArrayEquals(Bytes.toBytes("99"), all.get(99).getRow());
      List<Result> down = t.scanAll(new Scan().setReversed(true).setCaching(9)).get();
      assertEquals(100, down.size());
      assertArrayEquals(Bytes.toBytes("99"), down.get(0).getRow());

      AsyncTable<?> missing = conn.getTable(Cluster.freshName("async_missing"));
      ExecutionException e = assertThrows(
          ExecutionException.class, () -> missing.get(new Get(Bytes.toBytes("r"))).get());
      assertTrue(e.getCause() instanceof TableNotFoundException, String.valueOf(e.getCause()));
    }
  }
}
