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
 * made directly on {@link #client()} should hold the connection's lock
 * ({@code synchronized (conn)}) if a writer is flushing in the background. Closing it closes
 * the socket.
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

    private Connection(String address, TTransport transport) {
        this.address = address;
        this.transport = transport;
        this.client = new THBaseService.Client(new TBinaryProtocol(transport));
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
        return "Connection(" + address + ")";
    }
}
