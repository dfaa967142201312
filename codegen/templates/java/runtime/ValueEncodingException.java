package org.redbase.sdk;

/** A value that does not fit its column type, or cell bytes that are not of that type. */
public class ValueEncodingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public ValueEncodingException(String message) {
        super(message);
    }
}
