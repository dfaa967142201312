package org.redbase.sdk;

/** One fixed-qualifier column and its value codec; {@code check-and-put} takes these. */
public record Column<T>(String field, byte[] family, byte[] qualifier, Codec<T> codec) {
    public byte[] encode(T value) {
        return codec.encode(value);
    }

    public T decode(byte[] raw) {
        return codec.decode(raw);
    }
}
