package org.redbase.sdk;

/** One fixed-qualifier column, its schema type ({@code "counter"}, ...) and value codec;
 *  {@code checkAndPut} takes these. */
public record Column<T>(String field, String type, byte[] family, byte[] qualifier, Codec<T> codec) {
    public byte[] encode(T value) {
        return codec.encode(value);
    }

    public T decode(byte[] raw) {
        return codec.decode(raw);
    }
}
