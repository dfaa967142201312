package org.redbase.sdk;

/**
 * A column by family and qualifier bytes: what reads select ({@code columns(...)}) and
 * {@code mutateRow} deletes. Typed {@link Column}s are ones; a {@link PatternColumn} names one
 * with {@code at(part)}.
 */
public interface ColumnName {
    byte[] family();

    byte[] qualifier();

    /** A column given by its bytes. */
    static ColumnName of(byte[] family, byte[] qualifier) {
        return new Of(family.clone(), qualifier.clone());
    }

    /** A plain family/qualifier pair. */
    record Of(byte[] family, byte[] qualifier) implements ColumnName {}
}
