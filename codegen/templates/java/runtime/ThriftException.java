package org.redbase.sdk;

/** A Thrift2 call that failed: the server's TIOError or TIllegalArgument, or a transport
 *  failure. The message names the call and the table; the cause is the Thrift exception. */
public class ThriftException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ThriftException(String message, Throwable cause) {
        super(message, cause);
    }

    public ThriftException(String message) {
        super(message);
    }
}
