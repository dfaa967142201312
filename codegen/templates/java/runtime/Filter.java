package org.redbase.sdk;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A server-side filter, rendered to HBase's filter language (the bytes Thrift2 sends as
 * {@code filterString}), so it runs on redbase and on HBase alike. Immutable; build one from a
 * typed column ({@code Columns.HITS.ge(5L)}), the table's key ({@code Key.prefixFilter(...)})
 * or the factories here, and combine with {@link #allOf} / {@link #anyOf}. The rendering is the
 * one every redbase SDK produces byte for byte (sdks/vectors/filters.json).
 */
public final class Filter {
    /** A comparison of a cell's value with an operand. */
    public enum Op {
        EQ("="),
        NE("!="),
        LT("<"),
        LE("<="),
        GT(">"),
        GE(">=");

        private final String symbol;

        Op(String symbol) {
            this.symbol = symbol;
        }

        /** The operator as HBase's filter language spells it. */
        public String symbol() {
            return symbol;
        }
    }

    private final byte[] text;
    private final boolean keyOnly;

    private Filter(byte[] text, boolean keyOnly) {
        this.text = text;
        this.keyOnly = keyOnly;
    }

    private static Filter of(String text) {
        return new Filter(text.getBytes(StandardCharsets.US_ASCII), false);
    }

    /** The filter string's bytes, as sent to the server. */
    public byte[] render() {
        return text.clone();
    }

    /**
     * True if the filter may strip cell values ({@link #keyOnly()} anywhere in it): typed rows
     * of such a scan carry their cells but no decoded values.
     */
    public boolean stripsValues() {
        return keyOnly;
    }

    /** A filter language literal: single-quoted, quotes inside doubled, other bytes raw. */
    static void literal(ByteArrayOutputStream out, byte[] bytes) {
        out.write('\'');
        for (byte b : bytes) {
            if (b == '\'') {
                out.write('\'');
            }
            out.write(b);
        }
        out.write('\'');
    }

    private static void ascii(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Rows whose cell in {@code column} compares to {@code operand} by {@code op}, the operand
     * encoded with the column's codec (bytes compared unsigned, as HBase's binary comparator
     * does); rows without the cell are left out.
     */
    public static <T> Filter value(Column<T> column, Op op, T operand) {
        if (operand == null) {
            throw new FilterException("column " + column.field() + ": the operand of " + op.symbol() + " must not be null");
        }
        byte[] encoded = column.encode(operand);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ascii(out, "SingleColumnValueFilter(");
        literal(out, column.family());
        ascii(out, ", ");
        literal(out, column.qualifier());
        ascii(out, ", " + op.symbol() + ", ");
        byte[] binary = "binary:".getBytes(StandardCharsets.US_ASCII);
        literal(out, KeySpec.concat(binary, encoded));
        ascii(out, ", true, true)");
        return new Filter(out.toByteArray(), false);
    }

    /** Rows whose key starts with these bytes. */
    public static Filter prefix(byte[] prefix) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ascii(out, "PrefixFilter(");
        literal(out, prefix);
        ascii(out, ")");
        return new Filter(out.toByteArray(), false);
    }

    /**
     * Rows whose key starts with a table's typed prefix ({@code KeySpec.prefixes}): one
     * PrefixFilter, or on a salted table one per bucket joined by OR, in bucket order.
     */
    public static Filter keyPrefix(List<byte[]> prefixes) {
        return anyOf(prefixes.stream().map(Filter::prefix).toList());
    }

    /** At most {@code n} rows per region (HBase's PageFilter counts per region). */
    public static Filter page(long n) {
        if (n < 0) {
            throw new FilterException("page size must not be negative, got " + n);
        }
        return of("PageFilter(" + n + ")");
    }

    /** Cells without their values. */
    public static Filter keyOnly() {
        return new Filter("KeyOnlyFilter()".getBytes(StandardCharsets.US_ASCII), true);
    }

    /** Only the first cell of each row. */
    public static Filter firstKeyOnly() {
        return of("FirstKeyOnlyFilter()");
    }

    /** Only cells with exactly one of these timestamps. */
    public static Filter timestamps(long... timestamps) {
        if (timestamps.length == 0) {
            throw new FilterException("timestamps filter needs at least one timestamp");
        }
        StringBuilder s = new StringBuilder("TimestampsFilter(");
        for (int i = 0; i < timestamps.length; i++) {
            if (timestamps[i] < 0) {
                throw new FilterException("timestamps must not be negative, got " + timestamps[i]);
            }
            s.append(i > 0 ? ", " : "").append(timestamps[i]);
        }
        return of(s.append(')').toString());
    }

    /** Only cells whose qualifier starts with these bytes. */
    public static Filter columnPrefix(byte[] prefix) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ascii(out, "ColumnPrefixFilter(");
        literal(out, prefix);
        ascii(out, ")");
        return new Filter(out.toByteArray(), false);
    }

    /** Rows every filter lets through. */
    public static Filter allOf(Filter... filters) {
        return join("AND", "all", Arrays.asList(filters));
    }

    public static Filter allOf(List<Filter> filters) {
        return join("AND", "all", filters);
    }

    /** Rows at least one filter lets through. */
    public static Filter anyOf(Filter... filters) {
        return join("OR", "any", Arrays.asList(filters));
    }

    public static Filter anyOf(List<Filter> filters) {
        return join("OR", "any", filters);
    }

    private static Filter join(String op, String what, List<Filter> filters) {
        if (filters.isEmpty()) {
            throw new FilterException(what + "-of needs at least one filter");
        }
        if (filters.size() == 1) {
            return filters.get(0);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean keyOnly = false;
        for (int i = 0; i < filters.size(); i++) {
            if (i > 0) {
                ascii(out, " " + op + " ");
            }
            out.write('(');
            out.writeBytes(filters.get(i).text);
            out.write(')');
            keyOnly |= filters.get(i).keyOnly;
        }
        return new Filter(out.toByteArray(), keyOnly);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Filter f && Arrays.equals(text, f.text);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(text);
    }

    /** The filter string (bytes outside ASCII shown as ISO-8859-1 characters). */
    @Override
    public String toString() {
        return new String(text, StandardCharsets.ISO_8859_1);
    }
}
