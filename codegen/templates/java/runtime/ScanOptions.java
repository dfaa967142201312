package org.redbase.sdk;

/**
 * How to scan: descending key order, a row limit (0: none) and the rows fetched per round
 * trip. Immutable; {@code ScanOptions.DEFAULT.reversed(true).limit(3)}.
 */
public final class ScanOptions {
    public static final ScanOptions DEFAULT = new ScanOptions(false, 0, 256);

    private final boolean reversed;
    private final int limit;
    private final int batch;

    private ScanOptions(boolean reversed, int limit, int batch) {
        if (limit < 0 || batch < 1) {
            throw new IllegalArgumentException("limit must be >= 0 and batch >= 1");
        }
        this.reversed = reversed;
        this.limit = limit;
        this.batch = batch;
    }

    public boolean reversed() {
        return reversed;
    }

    public int limit() {
        return limit;
    }

    public int batch() {
        return batch;
    }

    public ScanOptions reversed(boolean value) {
        return new ScanOptions(value, limit, batch);
    }

    public ScanOptions limit(int value) {
        return new ScanOptions(reversed, value, batch);
    }

    public ScanOptions batch(int value) {
        return new ScanOptions(reversed, limit, value);
    }
}
