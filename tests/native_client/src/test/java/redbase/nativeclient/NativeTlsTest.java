package redbase.nativeclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HBase 2.6's native TLS (hbase.client.netty.tls.enabled) against a redbase of its own started
 * with --tls-cert, --tls-client-ca and --auth-file (-Dnc.redbase names the binary): the caller
 * is the user its client certificate names, so alice (a superuser in the auth file) works,
 * carol (no grants) is refused by the ACL, and a client without a certificate is refused.
 * Certificates are made with openssl in a temporary directory.
 */
class NativeTlsTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static Path dir;
  private static Process server;
  private static int port;

  private static void run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("openssl.log").toFile()).start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0,
        String.join(" ", cmd) + ": " + Files.readString(dir.resolve("openssl.log")));
  }

  /** A key and a certificate for `cn` signed by the test CA, and key+cert as one PEM file. */
  private static void leaf(String name, String cn, String ext) throws Exception {
    Files.writeString(dir.resolve(name + ".ext"), ext);
    run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + cn);
    run("openssl", "x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-out", name + ".crt", "-extfile", name + ".ext");
    Files.writeString(dir.resolve(name + ".pem"), Files.readString(dir.resolve(name + ".key"))
        + Files.readString(dir.resolve(name + ".crt")));
  }

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("redbase-native-tls");
    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
        "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=redbase test CA",
        "-days", "2", "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign");
    leaf("server", "localhost",
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    leaf("alice", "alice", "extendedKeyUsage=clientAuth\n");
    leaf("carol", "carol", "extendedKeyUsage=clientAuth\n");
    Files.writeString(dir.resolve("users.toml"), "[users.alice]\nsuperuser = true\n");
    server = OwnRedbase.start(dir, ports -> List.of("--advertised-host", "localhost",
        "--tls-cert", "server.crt", "--tls-key", "server.key", "--tls-client-ca", "ca.crt",
        "--auth-file", "users.toml"), ports -> (port = ports.rpc()));
  }

  @AfterAll
  static void stop() throws Exception {
    OwnRedbase.stop(server);
  }

  /** A client over TLS presenting `who`'s certificate (null: none). */
  private static Configuration tls(String who) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl",
        "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", "localhost:" + port);
    conf.setBoolean("hbase.client.netty.tls.enabled", true);
    conf.set("hbase.rpc.tls.truststore.location", dir.resolve("ca.crt").toString());
    conf.set("hbase.rpc.tls.truststore.type", "PEM");
    if (who != null) {
      conf.set("hbase.rpc.tls.keystore.location", dir.resolve(who + ".pem").toString());
      conf.set("hbase.rpc.tls.keystore.type", "PEM");
    }
    conf.setInt("hbase.client.retries.number", 2);
    conf.setInt("hbase.client.pause", 50);
    conf.setInt("hbase.rpc.timeout", 10_000);
    conf.setInt("hbase.client.operation.timeout", 20_000);
    conf.setInt("hbase.client.meta.operation.timeout", 20_000);
    return conf;
  }

  /** `t` and its causes, class and message each. */
  private static String chain(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c.getClass().getName()).append(": ").append(c.getMessage()).append("\n");
      for (Throwable s : c.getSuppressed()) {
        b.append("  suppressed ").append(chain(s));
      }
    }
    return b.toString();
  }

  /** Whether `t`, a cause or a suppressed exception is an AccessDeniedException. */
  private static boolean denied(Throwable t) {
    return chain(t).contains("AccessDeniedException");
  }

  @Test
  void theCertificateNamesTheCaller() throws Exception {
    TableName name = TableName.valueOf("tls_secret");
    try (Connection c = ConnectionFactory.createConnection(tls("alice"));
        Admin admin = c.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
      try (Table t = c.getTable(name)) {
        t.put(new Put(Bytes.toBytes("r")).addColumn(F, Q, Bytes.toBytes("v")));
        assertArrayEquals(Bytes.toBytes("v"), t.get(new Get(Bytes.toBytes("r"))).getValue(F, Q));
        List<String> rows = new ArrayList<>();
        try (ResultScanner s = t.getScanner(new Scan())) {
          for (Result r : s) {
            rows.add(Bytes.toString(r.getRow()));
          }
        }
        assertEquals(List.of("r"), rows);
      }
    }
    // carol's certificate gets her connected; the ACL refuses her the table.
    try (Connection c = ConnectionFactory.createConnection(tls("carol"));
        Table t = c.getTable(name)) {
      Exception e = assertThrows(IOException.class, () -> t.get(new Get(Bytes.toBytes("r"))));
      assertTrue(denied(e), chain(e));
      assertTrue(String.valueOf(e.getMessage()).contains("carol")
          || String.valueOf(e.getCause()).contains("carol"), e.toString());
    }
    // TLS without a certificate is SIMPLE authentication: refused with AccessDeniedException
    // as the answer to no call, then closed, as HBase refuses it. HBase 2.6's client surfaces
    // only a FatalConnectionException from such an answer, so it reports the connection
    // closed; the server's log says why.
    try (Connection c = ConnectionFactory.createConnection(tls(null));
        Table t = c.getTable(name)) {
      Exception e = assertThrows(IOException.class, () -> t.get(new Get(Bytes.toBytes("r"))));
      assertTrue(chain(e).contains("Connection closed"), chain(e));
    }
    String log = Files.readString(dir.resolve("server.log"));
    assertTrue(log.contains("native connection refused") && log.contains("SIMPLE authentication"),
        log);
  }

  /** alice grants carol R through AccessControlClient; carol then reads, and cannot grant. */
  @Test
  void grantsThroughTheAdminAreEnforced() throws Throwable {
    TableName name = TableName.valueOf("tls_acl");
    try (Connection a = ConnectionFactory.createConnection(tls("alice"));
        Connection c = ConnectionFactory.createConnection(tls("carol"))) {
      try (Admin admin = a.getAdmin()) {
        admin.createTable(TableDescriptorBuilder.newBuilder(name)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
      }
      try (Table t = a.getTable(name)) {
        t.put(new Put(Bytes.toBytes("r")).addColumn(F, Q, Bytes.toBytes("v")));
      }
      Permission read = Permission.newBuilder(name).withActions(Permission.Action.READ).build();
      Permission write = Permission.newBuilder(name).withActions(Permission.Action.WRITE).build();
      try (Table t = c.getTable(name)) {
        Exception e = assertThrows(IOException.class, () -> t.get(new Get(Bytes.toBytes("r"))));
        assertTrue(denied(e), chain(e));
        AccessControlClient.grant(a, name, "carol", null, null, Permission.Action.READ);
        assertArrayEquals(Bytes.toBytes("v"), t.get(new Get(Bytes.toBytes("r"))).getValue(F, Q));
        // carol asks about herself: R yes, W no
        try (Admin admin = c.getAdmin()) {
          assertEquals(List.of(true, false), admin.hasUserPermissions(List.of(read, write)));
        }
        // without A on the table she may not grant, nor list its grants
        Throwable g = assertThrows(Throwable.class,
            () -> AccessControlClient.grant(c, name, "carol", null, null,
                Permission.Action.WRITE));
        assertTrue(denied(g), chain(g));
        Throwable l = assertThrows(Throwable.class,
            () -> AccessControlClient.getUserPermissions(c, name.getNameAsString()));
        assertTrue(denied(l), chain(l));
        AccessControlClient.revoke(a, name, "carol", null, null, Permission.Action.READ);
        e = assertThrows(IOException.class, () -> t.get(new Get(Bytes.toBytes("r"))));
        assertTrue(denied(e), chain(e));
      }
    }
  }
}
