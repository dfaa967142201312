package example;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The access-logs table of the seed documents (HBase table design, table 4): one row per
 * user, system and period, keyed {md5(user)[:5]}|{system}|{period} so that rows spread over
 * 16 regions pre-split on the first hex digit, and one user's rows stay together. Plain
 * hbase-client code: nothing here knows whether HBase or redbase answers.
 */
public final class AccessLogStore {
  public static final TableName TABLE = TableName.valueOf("access-logs");
  private static final byte[] T = Bytes.toBytes("t");
  private static final byte[] HITS = Bytes.toBytes("h");
  private static final byte[] LAST_SEEN = Bytes.toBytes("l");

  private final Connection connection;

  public AccessLogStore(Connection connection) {
    this.connection = connection;
  }

  /** Creates the table with its 16 regions (split at '1' .. 'f'). */
  public static void createTable(Admin admin) throws IOException {
    byte[][] splits = new byte[15][];
    for (int i = 1; i < 16; i++) {
      splits[i - 1] = Bytes.toBytes(Integer.toHexString(i));
    }
    admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(T).setMaxVersions(3).build())
        .build(), splits);
  }

  static String userPrefix(String user) {
    try {
      byte[] md5 = MessageDigest.getInstance("MD5").digest(user.getBytes(StandardCharsets.UTF_8));
      return String.format("%032x", new BigInteger(1, md5)).substring(0, 5);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] key(String user, String system, int period) {
    return Bytes.toBytes(userPrefix(user) + "|" + system + "|" + period);
  }

  /** Counts a request: the period's hit counter goes up, last-seen is the request's time. */
  public long recordHit(String user, String system, int period, long atMillis) throws IOException {
    try (Table t = connection.getTable(TABLE)) {
      Result r = t.increment(new Increment(key(user, system, period)).addColumn(T, HITS, 1));
      t.put(new org.apache.hadoop.hbase.client.Put(key(user, system, period))
          .addColumn(T, LAST_SEEN, Bytes.toBytes(atMillis)));
      return Bytes.toLong(r.getValue(T, HITS));
    }
  }

  public long hits(String user, String system, int period) throws IOException {
    try (Table t = connection.getTable(TABLE)) {
      byte[] v = t.get(new Get(key(user, system, period)).addColumn(T, HITS)).getValue(T, HITS);
      return v == null ? 0 : Bytes.toLong(v);
    }
  }

  /** Everything one user did: system|period -> hits, one bounded scan of the user's prefix. */
  public Map<String, Long> usage(String user) throws IOException {
    Map<String, Long> out = new TreeMap<>();
    String prefix = userPrefix(user) + "|";
    try (Table t = connection.getTable(TABLE);
        ResultScanner s = t.getScanner(new Scan().setStartStopRowForPrefixScan(Bytes.toBytes(prefix))
            .addColumn(T, HITS))) {
      for (Result r : s) {
        out.put(Bytes.toString(r.getRow()).substring(prefix.length()),
            Bytes.toLong(r.getValue(T, HITS)));
      }
    }
    return out;
  }
}
