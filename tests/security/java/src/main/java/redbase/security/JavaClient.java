package redbase.security;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import org.apache.hadoop.hbase.thrift2.generated.TColumnFamilyDescriptor;
import org.apache.hadoop.hbase.thrift2.generated.TColumnValue;
import org.apache.hadoop.hbase.thrift2.generated.TGet;
import org.apache.hadoop.hbase.thrift2.generated.THBaseService;
import org.apache.hadoop.hbase.thrift2.generated.TPut;
import org.apache.hadoop.hbase.thrift2.generated.TResult;
import org.apache.hadoop.hbase.thrift2.generated.TTableDescriptor;
import org.apache.hadoop.hbase.thrift2.generated.TTableName;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSSLTransportFactory;
import org.apache.thrift.transport.TSaslClientTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;

/**
 * libthrift as a client of redbase's Thrift2 port, for tests/security/test_java.py.
 *
 * <pre>
 * JavaClient tls|plain PORT TABLE [--truststore FILE PASS] [--keystore FILE PASS]
 *     [--sasl USER PASSWORD]
 * </pre>
 *
 * tls connects with {@link TSSLTransportFactory} trusting the truststore (PKCS12), offering the
 * keystore's client certificate (PKCS12) if given; plain with a {@link TSocket}. With --sasl the socket is wrapped in a {@link TSaslClientTransport} whose
 * PLAIN client comes from the JDK ({@link Sasl#createSaslClient}). Creates TABLE, puts a row,
 * gets it back and prints "OK value"; on an exception prints "ERROR class: message" and exits 2.
 */
public final class JavaClient {
  private JavaClient() {}

  public static void main(String[] args) {
    try {
      System.out.println("OK " + run(args));
    } catch (Exception e) {
      StringBuilder why = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        why.append(why.length() == 0 ? "" : " / caused by ")
            .append(t.getClass().getName())
            .append(": ")
            .append(t.getMessage());
      }
      System.out.println("ERROR " + why);
      System.exit(2);
    }
  }

  static String run(String[] args) throws Exception {
    String mode = args[0];
    int port = Integer.parseInt(args[1]);
    String table = args[2];
    String trustStore = null;
    String trustPass = null;
    String keyStore = null;
    String keyPass = null;
    String user = null;
    String password = null;
    for (int i = 3; i < args.length; i++) {
      switch (args[i]) {
        case "--truststore" -> {
          trustStore = args[++i];
          trustPass = args[++i];
        }
        case "--keystore" -> {
          keyStore = args[++i];
          keyPass = args[++i];
        }
        case "--sasl" -> {
          user = args[++i];
          password = args[++i];
        }
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    TTransport socket;
    if (mode.equals("tls")) {
      TSSLTransportFactory.TSSLTransportParameters params =
          new TSSLTransportFactory.TSSLTransportParameters();
      params.setTrustStore(trustStore, trustPass, null, "PKCS12");
      if (keyStore != null) {
        params.setKeyStore(keyStore, keyPass, null, "PKCS12");
      }
      // Opened by the factory.
      socket = TSSLTransportFactory.getClientSocket("127.0.0.1", port, 20000, params);
    } else {
      socket = new TSocket(new TConfiguration(), "127.0.0.1", port, 20000);
      socket.open();
    }
    TTransport transport = socket;
    if (user != null) {
      String name = user;
      char[] secret = password.toCharArray();
      SaslClient plain =
          Sasl.createSaslClient(
              new String[] {"PLAIN"},
              null,
              "hbase",
              "localhost",
              new HashMap<>(),
              callbacks -> {
                for (Callback c : callbacks) {
                  if (c instanceof NameCallback n) {
                    n.setName(name);
                  } else if (c instanceof PasswordCallback p) {
                    p.setPassword(secret);
                  } else {
                    throw new UnsupportedCallbackException(c);
                  }
                }
              });
      if (plain == null) {
        throw new IllegalStateException("the JDK has no SASL PLAIN client");
      }
      transport = new TSaslClientTransport(plain, socket);
      transport.open();
    }
    try {
      THBaseService.Client client = new THBaseService.Client(new TBinaryProtocol(transport));
      ByteBuffer t = bytes(table);
      TTableName name = new TTableName().setNs(bytes("default")).setQualifier(t);
      client.createTable(
          new TTableDescriptor(name).setColumns(List.of(new TColumnFamilyDescriptor(bytes("f")))),
          null);
      client.put(
          t, new TPut(bytes("r1"), List.of(new TColumnValue(bytes("f"), bytes("q"), bytes("from java")))));
      TResult got = client.get(t, new TGet(bytes("r1")));
      if (got.getColumnValuesSize() != 1) {
        throw new IllegalStateException("get returned " + got.getColumnValuesSize() + " cells");
      }
      return StandardCharsets.UTF_8.decode(got.getColumnValues().get(0).bufferForValue()).toString();
    } finally {
      transport.close();
    }
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }
}
