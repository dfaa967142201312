package org.redbase.sdk;

import java.util.Arrays;

/**
 * How to scan: columns and families, a filter, a row limit (0: none), descending key order,
 * rows per round trip ({@code caching}), cells per result ({@code batchSize}, 0: whole rows),
 * versions, a time range, and for salted tables bucket order instead of merged. Immutable,
 * built like every SDK's scan options:
 * {@code new ScanOptions().columns(Columns.HITS).filter(Columns.HITS.ge(5L)).reversed(true).limit(3)}
 * ({@link #DEFAULT} is the same as {@code new ScanOptions()}).
 */
public final class ScanOptions {
    public static final ScanOptions DEFAULT = new ScanOptions();

    private final ReadSelection sel;
    private final boolean reversed;
    private final int limit;
    private final int caching;
    private final int batchSize;
    private final boolean bucketOrder;

    /** Every column's newest version of every row, in key order, 256 rows per round trip. */
    public ScanOptions() {
        this(ReadSelection.ALL, false, 0, 256, 0, false);
    }

    private ScanOptions(ReadSelection sel, boolean reversed, int limit, int caching, int batchSize, boolean bucketOrder) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0 (0: no limit), got " + limit);
        }
        if (caching < 1) {
            throw new IllegalArgumentException("caching must be >= 1, got " + caching);
        }
        if (batchSize < 0) {
            throw new IllegalArgumentException("batchSize must be >= 0 (0: whole rows), got " + batchSize);
        }
        this.sel = sel;
        this.reversed = reversed;
        this.limit = limit;
        this.caching = caching;
        this.batchSize = batchSize;
        this.bucketOrder = bucketOrder;
    }

    ReadSelection selection() {
        return sel;
    }

    public boolean reversed() {
        return reversed;
    }

    public int limit() {
        return limit;
    }

    /** Rows fetched per round trip (TScan.caching). */
    public int caching() {
        return caching;
    }

    /** Cells per partial result (TScan.batchSize; the SDK joins a row's parts again). */
    public int batchSize() {
        return batchSize;
    }

    /** Whether a salted table is read one bucket after the other instead of merged. */
    public boolean bucketOrder() {
        return bucketOrder;
    }

    /** The filter, or null. */
    public Filter filter() {
        return sel.filter();
    }

    public ScanOptions reversed(boolean value) {
        return new ScanOptions(sel, value, limit, caching, batchSize, bucketOrder);
    }

    public ScanOptions limit(int value) {
        return new ScanOptions(sel, reversed, value, caching, batchSize, bucketOrder);
    }

    public ScanOptions caching(int value) {
        return new ScanOptions(sel, reversed, limit, value, batchSize, bucketOrder);
    }

    public ScanOptions batchSize(int value) {
        return new ScanOptions(sel, reversed, limit, caching, value, bucketOrder);
    }

    /**
     * Salted tables: read one bucket after the other (the last first when reversed), each in
     * key order, instead of merging the buckets by the key without its salt. One scanner is
     * open at a time; rows are not in the unsalted design's order.
     */
    public ScanOptions bucketOrder(boolean value) {
        return new ScanOptions(sel, reversed, limit, caching, batchSize, value);
    }

    /** Only these columns (added to any given before). */
    public ScanOptions columns(ColumnName... columns) {
        return new ScanOptions(sel.withColumns(Arrays.asList(columns)), reversed, limit, caching, batchSize, bucketOrder);
    }

    /** Every column of these families (added to any given before). */
    public ScanOptions families(String... families) {
        return new ScanOptions(sel.withFamilies(Arrays.asList(families)), reversed, limit, caching, batchSize, bucketOrder);
    }

    /** Only rows and cells the filter lets through (replaces any filter given before). */
    public ScanOptions filter(Filter filter) {
        return new ScanOptions(sel.withFilter(filter), reversed, limit, caching, batchSize, bucketOrder);
    }

    /** Up to {@code n} versions of each column, newest first. */
    public ScanOptions versions(int n) {
        return new ScanOptions(sel.withVersions(n), reversed, limit, caching, batchSize, bucketOrder);
    }

    /** Only cells with {@code min <= timestamp < max} (ms). */
    public ScanOptions timeRange(long min, long max) {
        return new ScanOptions(sel.withTimeRange(min, max), reversed, limit, caching, batchSize, bucketOrder);
    }

    /** Only cells written at exactly this timestamp (ms). */
    public ScanOptions at(long timestamp) {
        return new ScanOptions(sel.at(timestamp), reversed, limit, caching, batchSize, bucketOrder);
    }
}
