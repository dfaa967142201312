package org.redbase.sdk;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Cells whose qualifier is {@code prefix + part + suffix} (a schema qualifier such as
 * {@code {period}}), read as a map from the typed part to the value. {@code type} is the
 * value's schema type, {@code partType} the part's.
 */
public record PatternColumn<P, T>(
        String field,
        String type,
        String partType,
        byte[] family,
        byte[] prefix,
        byte[] suffix,
        Part<P> part,
        Codec<T> codec) {

    /** How a part is spelt in a qualifier. */
    public interface Part<P> {
        String text(P part);

        /** The part a qualifier's middle spells, or null if it is not one. */
        P parse(String text);
    }

    public static final Part<String> STRING_PART = new Part<>() {
        @Override
        public String text(String part) {
            return part;
        }

        @Override
        public String parse(String text) {
            return text;
        }
    };

    /** i32 parts: decimal, zero-padded to {@code width} (then non-negative) when given. */
    public static Part<Integer> intPart(Integer width) {
        Part<Long> p = longPart(width, Integer.MIN_VALUE, Integer.MAX_VALUE);
        return new Part<>() {
            @Override
            public String text(Integer part) {
                return p.text(part.longValue());
            }

            @Override
            public Integer parse(String text) {
                Long n = p.parse(text);
                return n == null ? null : n.intValue();
            }
        };
    }

    /** i64 parts: decimal, zero-padded to {@code width} (then non-negative) when given. */
    public static Part<Long> longPart(Integer width) {
        return longPart(width, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    private static Part<Long> longPart(Integer width, long min, long max) {
        return new Part<>() {
            @Override
            public String text(Long part) {
                String t = Long.toString(part);
                if (width == null) {
                    return t;
                }
                if (part < 0 || t.length() > width) {
                    throw new ValueEncodingException(part + " does not fit " + width + " zero-padded digits");
                }
                return "0".repeat(width - t.length()) + t;
            }

            @Override
            public Long parse(String text) {
                String digits = width == null && text.startsWith("-") ? text.substring(1) : text;
                if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    return null;
                }
                if (width != null && text.length() != width) {
                    return null;
                }
                try {
                    long n = Long.parseLong(text);
                    return n >= min && n <= max ? n : null;
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        };
    }

    /** The part as the qualifier spells it ({@code 201510}, zero-padded to the width). */
    public String partText(P part) {
        return this.part.text(part);
    }

    public byte[] qualifier(P part) {
        byte[] middle;
        try {
            middle = this.part.text(part).getBytes(StandardCharsets.UTF_8);
        } catch (ValueEncodingException e) {
            throw new ValueEncodingException("column " + field + ": " + e.getMessage());
        }
        byte[] out = new byte[prefix.length + middle.length + suffix.length];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(middle, 0, out, prefix.length, middle.length);
        System.arraycopy(suffix, 0, out, prefix.length + middle.length, suffix.length);
        return out;
    }

    /** The column of one part ({@code FB_USAGE.at(201510)}), to select it or delete it. */
    public ColumnName at(P part) {
        return ColumnName.of(family, qualifier(part));
    }

    /** Each part's versions among {@code cells} (sorted by column, newest first), decoded. */
    public java.util.Map<P, java.util.List<Version<T>>> versions(java.util.List<Cell> cells) {
        java.util.Map<P, java.util.List<Version<T>>> out = new java.util.TreeMap<>();
        for (Cell c : cells) {
            if (Arrays.equals(c.family(), family)) {
                P p = parse(c.qualifier());
                if (p != null) {
                    out.computeIfAbsent(p, x -> new java.util.ArrayList<>()).add(new Version<>(c.timestamp(), decode(c.value())));
                }
            }
        }
        return out;
    }

    /** The part of a qualifier of this pattern, or null if it is not one. */
    public P parse(byte[] qualifier) {
        int n = qualifier.length;
        if (n < prefix.length + suffix.length
                || !Arrays.equals(qualifier, 0, prefix.length, prefix, 0, prefix.length)
                || !Arrays.equals(qualifier, n - suffix.length, n, suffix, 0, suffix.length)) {
            return null;
        }
        byte[] middle = Arrays.copyOfRange(qualifier, prefix.length, n - suffix.length);
        try {
            return part.parse(Codecs.fromUtf8(middle));
        } catch (ValueEncodingException e) {
            return null;
        }
    }

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
