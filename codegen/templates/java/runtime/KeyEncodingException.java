package org.redbase.sdk;

/** A key value the table's key design refuses (too wide, outside its charset, ...), or bytes
 *  that are not a row key of the table. */
public class KeyEncodingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public KeyEncodingException(String message) {
        super(message);
    }
}
