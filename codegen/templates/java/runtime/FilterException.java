package org.redbase.sdk;

/** A filter that cannot be built: no operands, a negative page size, a null operand, ... */
public class FilterException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public FilterException(String message) {
        super(message);
    }
}
