package org.redbase.sdk;

/**
 * One fixed-qualifier column, its schema type ({@code "counter"}, ...) and value codec; reads
 * select it, {@code checkAndPut} tests it and its comparisons ({@code HITS.ge(5L)}) filter scans
 * on its value, the operand encoded with its codec.
 */
public record Column<T>(String field, String type, byte[] family, byte[] qualifier, Codec<T> codec) implements ColumnName {
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

    /** This column's versions among {@code cells} (sorted by column, newest first), decoded. */
    public java.util.List<Version<T>> versions(java.util.List<Cell> cells) {
        java.util.List<Version<T>> out = new java.util.ArrayList<>();
        for (Cell c : cells) {
            if (java.util.Arrays.equals(c.family(), family) && java.util.Arrays.equals(c.qualifier(), qualifier)) {
                out.add(new Version<>(c.timestamp(), decode(c.value())));
            }
        }
        return java.util.List.copyOf(out);
    }

    /** Rows whose cell in this column compares to {@code operand} by {@code op}. */
    public Filter compare(Filter.Op op, T operand) {
        return Filter.value(this, op, operand);
    }

    public Filter eq(T operand) {
        return compare(Filter.Op.EQ, operand);
    }

    public Filter ne(T operand) {
        return compare(Filter.Op.NE, operand);
    }

    public Filter lt(T operand) {
        return compare(Filter.Op.LT, operand);
    }

    public Filter le(T operand) {
        return compare(Filter.Op.LE, operand);
    }

    public Filter gt(T operand) {
        return compare(Filter.Op.GT, operand);
    }

    public Filter ge(T operand) {
        return compare(Filter.Op.GE, operand);
    }
}
