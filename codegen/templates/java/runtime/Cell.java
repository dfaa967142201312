package org.redbase.sdk;

import java.util.Arrays;
import java.util.Comparator;

/**
 * One cell to write or read back: family, qualifier, value bytes and timestamp (ms). A cell to
 * write made without a timestamp carries {@link #LATEST}: the server stamps it with its clock.
 */
public record Cell(byte[] family, byte[] qualifier, byte[] value, long timestamp) {
    /** HBase's LATEST_TIMESTAMP: "now", as the server's clock reads it when the write arrives. */
    public static final long LATEST = Long.MAX_VALUE;

    /** Cells by column (family, qualifier bytewise), newest first within a column. */
    public static final Comparator<Cell> COLUMN_ORDER = (a, b) -> {
        int c = Arrays.compareUnsigned(a.family, b.family);
        if (c == 0) {
            c = Arrays.compareUnsigned(a.qualifier, b.qualifier);
        }
        return c != 0 ? c : Long.compare(b.timestamp, a.timestamp);
    };

    /** A cell to write at the server's time. */
    public Cell(byte[] family, byte[] qualifier, byte[] value) {
        this(family, qualifier, value, LATEST);
    }

    /** True if both cells are of the same column. */
    public boolean sameColumn(Cell other) {
        return Arrays.equals(family, other.family) && Arrays.equals(qualifier, other.qualifier);
    }
}
