package org.redbase.sdk;

import java.util.Arrays;

/**
 * How to read one row: versions per column, a time range, one timestamp, columns, a filter.
 * Immutable; {@code new GetOptions().versions(3).timeRange(t0, t1).columns(Columns.HITS)}
 * ({@link #DEFAULT} is the same as {@code new GetOptions()}).
 */
public final class GetOptions {
    /** The newest version of every column. */
    public static final GetOptions DEFAULT = new GetOptions();

    private final ReadSelection sel;

    /** The newest version of every column. */
    public GetOptions() {
        this(ReadSelection.ALL);
    }

    private GetOptions(ReadSelection sel) {
        this.sel = sel;
    }

    ReadSelection selection() {
        return sel;
    }

    /** Up to {@code n} versions of each column, newest first (the family's max_versions caps it). */
    public GetOptions versions(int n) {
        return new GetOptions(sel.withVersions(n));
    }

    /** Only cells with {@code min <= timestamp < max} (ms), as HBase's time ranges. */
    public GetOptions timeRange(long min, long max) {
        return new GetOptions(sel.withTimeRange(min, max));
    }

    /** Only cells written at exactly this timestamp (ms). */
    public GetOptions at(long timestamp) {
        return new GetOptions(sel.at(timestamp));
    }

    /** Only these columns (added to any given before). */
    public GetOptions columns(ColumnName... columns) {
        return new GetOptions(sel.withColumns(Arrays.asList(columns)));
    }

    /** Every column of these families (added to any given before). */
    public GetOptions families(String... families) {
        return new GetOptions(sel.withFamilies(Arrays.asList(families)));
    }

    /** Only cells the filter lets through. */
    public GetOptions filter(Filter filter) {
        return new GetOptions(sel.withFilter(filter));
    }
}
