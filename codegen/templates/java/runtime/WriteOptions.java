package org.redbase.sdk;

/**
 * How to write a batch: an explicit timestamp for every cell (default: the server's clock) and
 * the bounds of one call (default 1,000 rows and 4 MiB of cell data). Immutable;
 * {@code new WriteOptions().timestamp(ts).maxRows(500)} ({@link #DEFAULT} is the same as
 * {@code new WriteOptions()}).
 */
public record WriteOptions(long timestamp, int maxRows, long maxBytes) {
    public static final int DEFAULT_MAX_ROWS = 1_000;
    public static final long DEFAULT_MAX_BYTES = 4L << 20;
    public static final WriteOptions DEFAULT = new WriteOptions(Cell.LATEST, DEFAULT_MAX_ROWS, DEFAULT_MAX_BYTES);

    /** The server's clock, 1,000 rows and 4 MiB of cell data per call. */
    public WriteOptions() {
        this(Cell.LATEST, DEFAULT_MAX_ROWS, DEFAULT_MAX_BYTES);
    }

    public WriteOptions {
        if (timestamp < 0) {
            throw new IllegalArgumentException("timestamp must be >= 0, got " + timestamp);
        }
        if (maxRows < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("maxRows and maxBytes must be >= 1");
        }
    }

    public WriteOptions timestamp(long ts) {
        return new WriteOptions(ts, maxRows, maxBytes);
    }

    public WriteOptions maxRows(int n) {
        return new WriteOptions(timestamp, n, maxBytes);
    }

    public WriteOptions maxBytes(long n) {
        return new WriteOptions(timestamp, maxRows, n);
    }
}
