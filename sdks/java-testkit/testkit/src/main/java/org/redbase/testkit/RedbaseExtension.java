package org.redbase.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5: one redbase server per test class, started before its first test and stopped (its
 * data deleted) after its last. Test constructors, {@code @BeforeAll}/{@code @BeforeEach}
 * methods and tests get it by declaring a parameter of type {@link RedbaseServer}, HBase's
 * {@link Configuration}, a {@link Connection} (one per class, shared) or an {@link Admin} (a new
 * one per parameter; close it or not, as with HBase).
 *
 * <pre>{@code
 * @ExtendWith(RedbaseExtension.class)
 * class MyDaoTest {
 *   @Test
 *   void savesAndLoads(Connection connection) throws Exception { ... }
 * }
 * }</pre>
 *
 * Nested test classes share their enclosing class's server.
 */
public final class RedbaseExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(RedbaseExtension.class);
  private static final String KEY = "server";

  /** Closes the server when JUnit closes the class's store, after its last test. */
  private static final class Holder implements ExtensionContext.Store.CloseableResource {
    final RedbaseServer server;

    Holder(RedbaseServer server) {
      this.server = server;
    }

    @Override
    public void close() {
      server.close();
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    if (find(context) == null) {
      context.getStore(NS).put(KEY, new Holder(RedbaseServer.start()));
    }
  }

  /** The server of this context or an enclosing one. */
  private static RedbaseServer find(ExtensionContext context) {
    for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
      Holder h = c.getStore(NS).get(KEY, Holder.class);
      if (h != null) {
        return h.server;
      }
    }
    return null;
  }

  /** The server for a context, e.g. from another extension or a static helper. */
  public static RedbaseServer server(ExtensionContext context) {
    RedbaseServer s = find(context);
    if (s == null) {
      throw new IllegalStateException("no redbase server: is the class annotated "
          + "@ExtendWith(RedbaseExtension.class)?");
    }
    return s;
  }

  @Override
  public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
    Class<?> t = p.getParameter().getType();
    return t == RedbaseServer.class || t == Configuration.class || t == Connection.class
        || t == Admin.class;
  }

  @Override
  public Object resolveParameter(ParameterContext p, ExtensionContext e) {
    RedbaseServer server = find(e);
    if (server == null) {
      // a constructor parameter resolves before beforeAll runs: start the server now
      try {
        beforeAll(e);
      } catch (IOException ex) {
        throw new ParameterResolutionException("redbase did not start: " + ex.getMessage(), ex);
      }
      server = server(e);
    }
    Class<?> t = p.getParameter().getType();
    try {
      if (t == RedbaseServer.class) {
        return server;
      }
      if (t == Configuration.class) {
        return server.configuration();
      }
      if (t == Connection.class) {
        return server.connection();
      }
      return server.connection().getAdmin();
    } catch (IOException ex) {
      throw new ParameterResolutionException("cannot connect to redbase", new UncheckedIOException(ex));
    }
  }
}
