package org.redbase.sdk;

import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.redbase.thrift2.THBaseService;

/**
 * One Thrift2 connection (binary protocol) to redbase or HBase's Thrift2 gateway. The typed
 * tables serialize their calls on it (a buffered writer's background flush shares it), so
 * threads may share one but then wait for each other: give each busy thread its own. Calls
 * made directly on {@link #client()} should hold {@link #lock()} if a writer is flushing in
 * the background. Closing it closes the socket.
 */
public final class Connection implements AutoCloseable {
    /** The gateway's transport: plain buffered socket (default), or framed ({@code hbase thrift2 -f}). */
    public enum Transport {
        BUFFERED,
        FRAMED
    }

    private final String address;
    private final TTransport transport;
    private final THBaseService.Client client;
    private final Object lock;
    private final String namespace;

    private Connection(String address, TTransport transport, THBaseService.Client client, Object lock, String namespace) {
        this.address = address;
        this.transport = transport;
        this.client = client;
        this.lock = lock;
        this.namespace = namespace;
    }

    private Connection(String address, TTransport transport) {
        this(address, transport, new THBaseService.Client(new TBinaryProtocol(transport)), new Object(), null);
    }

    /**
     * This connection with every table in {@code namespace} instead of the one its schema
     * names (one namespace per environment, or per test run on a shared cluster). It shares
     * the socket: closing either closes both.
     */
    public Connection withNamespace(String namespace) {
        if (namespace == null || namespace.isEmpty() || !namespace.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException("a namespace is letters, digits and _, got " + namespace);
        }
        return new Connection(address, transport, client, lock, namespace);
    }

    /** The namespace every table is used in, or null: the one each schema names. */
    public String namespace() {
        return namespace;
    }

    /** What calls on this socket synchronize on (shared with {@link #withNamespace} views). */
    public Object lock() {
        return lock;
    }

    /** A buffered connection with a 30 s socket timeout. */
    public static Connection open(String host, int port) {
        return open(host, port, Transport.BUFFERED, 30_000);
    }

    public static Connection open(String host, int port, Transport transport, int timeoutMs) {
        String address = host + ":" + port;
        try {
            TTransport socket = new TSocket(host, port, timeoutMs);
            TTransport t = transport == Transport.FRAMED ? new TFramedTransport(socket) : socket;
            t.open();
            return new Connection(address, t);
        } catch (TException e) {
            throw new ThriftException("cannot connect to " + address + ": " + e.getMessage(), e);
        }
    }

    /** The generated Thrift2 client, for calls the typed tables do not cover. */
    public THBaseService.Client client() {
        return client;
    }

    public String address() {
        return address;
    }

    @Override
    public void close() {
        transport.close();
    }

    @Override
    public String toString() {
        return "Connection(" + address + (namespace == null ? "" : ", namespace " + namespace) + ")";
    }
}
