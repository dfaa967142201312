package org.redbase.sdk;

import java.util.Arrays;

/**
 * How to scan: columns and families, a filter, a row limit (0: none), descending key order,
 * rows per round trip ({@code caching}), cells per result ({@code batchSize}, 0: whole rows),
 * versions and a time range. Immutable;
 * {@code ScanOptions.DEFAULT.columns(Columns.HITS).filter(Columns.HITS.ge(5L)).reversed(true).limit(3)}.
 */
public final class ScanOptions {
    public static final ScanOptions DEFAULT = new ScanOptions(ReadSelection.ALL, false, 0, 256, 0);

    private final ReadSelection sel;
    private final boolean reversed;
    private final int limit;
    private final int caching;
    private final int batchSize;

    private ScanOptions(ReadSelection sel, boolean reversed, int limit, int caching, int batchSize) {
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

    /** The filter, or null. */
    public Filter filter() {
        return sel.filter();
    }

    public ScanOptions reversed(boolean value) {
        return new ScanOptions(sel, value, limit, caching, batchSize);
    }

    public ScanOptions limit(int value) {
        return new ScanOptions(sel, reversed, value, caching, batchSize);
    }

    public ScanOptions caching(int value) {
        return new ScanOptions(sel, reversed, limit, value, batchSize);
    }

    public ScanOptions batchSize(int value) {
        return new ScanOptions(sel, reversed, limit, caching, value);
    }

    /** Only these columns (added to any given before). */
    public ScanOptions columns(ColumnName... columns) {
        return new ScanOptions(sel.withColumns(Arrays.asList(columns)), reversed, limit, caching, batchSize);
    }

    /** Every column of these families (added to any given before). */
    public ScanOptions families(String... families) {
        return new ScanOptions(sel.withFamilies(Arrays.asList(families)), reversed, limit, caching, batchSize);
    }

    /** Only rows and cells the filter lets through (replaces any filter given before). */
    public ScanOptions filter(Filter filter) {
        return new ScanOptions(sel.withFilter(filter), reversed, limit, caching, batchSize);
    }

    /** Up to {@code n} versions of each column, newest first. */
    public ScanOptions versions(int n) {
        return new ScanOptions(sel.withVersions(n), reversed, limit, caching, batchSize);
    }

    /** Only cells with {@code min <= timestamp < max} (ms). */
    public ScanOptions timeRange(long min, long max) {
        return new ScanOptions(sel.withTimeRange(min, max), reversed, limit, caching, batchSize);
    }

    /** Only cells written at exactly this timestamp (ms). */
    public ScanOptions at(long timestamp) {
        return new ScanOptions(sel.at(timestamp), reversed, limit, caching, batchSize);
    }
}
