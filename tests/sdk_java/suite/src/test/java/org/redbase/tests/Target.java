package org.redbase.tests;

import java.util.ArrayList;
import java.util.List;
import org.redbase.sdk.Connection;
import org.redbase.sdk.TableAdmin;

/**
 * The Thrift2 gateway under test: {@code REDBASE_SDK_TARGET=host:port} (or
 * {@code -Dredbase.target}), which run.sh sets to the `redbase serve` it started. Without it the
 * end-to-end tests fail rather than skip. With {@code REDBASE_SDK_NAMESPACE} every table lives
 * in that namespace (drive.py sets {@code sdk_java} on a shared external gateway, so suites of
 * other languages running there at the same time keep to their own tables).
 */
final class Target implements AutoCloseable {
    final String host;
    final int port;
    final String namespace = System.getenv("REDBASE_SDK_NAMESPACE");
    private final List<Connection> opened = new ArrayList<>();
    private final List<TableAdmin> made = new ArrayList<>();

    Target() {
        String t = System.getProperty("redbase.target", System.getenv("REDBASE_SDK_TARGET"));
        if (t == null || t.isEmpty()) {
            throw new IllegalStateException(
                    "no Thrift2 gateway: set REDBASE_SDK_TARGET=host:port (tests/sdk_java/run.sh starts redbase)");
        }
        int colon = t.lastIndexOf(':');
        host = t.substring(0, colon);
        port = Integer.parseInt(t.substring(colon + 1));
    }

    /** A new connection, closed with the target (one per thread: connections are not thread-safe). */
    synchronized Connection connect() {
        String transport = System.getenv().getOrDefault("REDBASE_SDK_TRANSPORT", "buffered");
        Connection c = Connection.open(host, port,
                transport.equals("framed") ? Connection.Transport.FRAMED : Connection.Transport.BUFFERED, 30_000);
        opened.add(c);
        return scoped(c);
    }

    /** {@code c} in the suite's namespace, if one is set. */
    Connection scoped(Connection c) {
        return namespace == null || namespace.isEmpty() ? c : c.withNamespace(namespace);
    }

    /** How errors name a table of the default namespace: with the suite's namespace if set. */
    String label(String table) {
        return namespace == null || namespace.isEmpty() ? table : namespace + ":" + table;
    }

    /** The table dropped if it exists and created from its schema; dropped again at close. */
    <T extends TableAdmin> T fresh(T table) {
        if (table.exists()) {
            table.drop();
        }
        table.create();
        made.add(table);
        return table;
    }

    @Override
    public void close() {
        for (TableAdmin t : made) {
            t.drop();
        }
        for (Connection c : opened) {
            c.close();
        }
    }
}
