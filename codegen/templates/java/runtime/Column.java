package org.redbase.sdk;

/** One fixed-qualifier column, its schema type ({@code "counter"}, ...) and value codec;
 *  {@code checkAndPut} takes these. */
public record Column<T>(String field, String type, byte[] family, byte[] qualifier, Codec<T> codec) {
    public byte[] encode(T value) {
        try {
            return codec.encode(value);
        } catch (ValueEncodingException e) {
            throw new ValueEncodingException("column " + field + ": " + e.getMessage());
        }
    }

    /** The cell's value; a {@link ValueEncodingException} names this column. */
    public T decode(byte[] raw) {
        try {
            return codec.decode(raw);
        } catch (ValueEncodingException e) {
            throw new ValueEncodingException("column " + field + ": " + e.getMessage());
        }
    }
}
