package org.redbase.sdk;

/** A column value type's encoding to and from cell bytes (see {@link Codecs}). */
public interface Codec<T> {
    byte[] encode(T value);

    T decode(byte[] raw);
}
