package org.redbase.sdk;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.redbase.thrift2.TColumn;
import org.redbase.thrift2.TTimeRange;

/**
 * What a get or scan reads, shared by {@link GetOptions} and {@link ScanOptions}: columns
 * and whole families, versions per column, a time range {@code [min, max)} in ms, a filter.
 */
record ReadSelection(List<ColumnName> columns, List<String> families, int versions, long minTime, long maxTime,
        Filter filter) {
    static final ReadSelection ALL = new ReadSelection(List.of(), List.of(), 0, 0, Long.MAX_VALUE, null);

    ReadSelection {
        columns = List.copyOf(columns);
        families = List.copyOf(families);
    }

    ReadSelection withColumns(List<? extends ColumnName> more) {
        List<ColumnName> all = new ArrayList<>(columns);
        for (ColumnName c : more) {
            all.add(ColumnName.of(c.family(), c.qualifier()));
        }
        return new ReadSelection(all, families, versions, minTime, maxTime, filter);
    }

    ReadSelection withFamilies(List<String> more) {
        List<String> all = new ArrayList<>(families);
        for (String f : more) {
            if (f == null || f.isEmpty()) {
                throw new IllegalArgumentException("a family name must not be empty");
            }
            all.add(f);
        }
        return new ReadSelection(columns, all, versions, minTime, maxTime, filter);
    }

    ReadSelection withVersions(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("versions must be >= 1, got " + n);
        }
        return new ReadSelection(columns, families, n, minTime, maxTime, filter);
    }

    ReadSelection withTimeRange(long min, long max) {
        if (min < 0 || max < min) {
            throw new IllegalArgumentException("time range [" + min + ", " + max + ") needs 0 <= min <= max");
        }
        return new ReadSelection(columns, families, versions, min, max, filter);
    }

    ReadSelection at(long timestamp) {
        if (timestamp < 0 || timestamp == Long.MAX_VALUE) {
            throw new IllegalArgumentException("timestamp must be in [0, 2^63-1), got " + timestamp);
        }
        return withTimeRange(timestamp, timestamp + 1);
    }

    ReadSelection withFilter(Filter f) {
        return new ReadSelection(columns, families, versions, minTime, maxTime, f);
    }

    boolean hasTimeRange() {
        return minTime != 0 || maxTime != Long.MAX_VALUE;
    }

    TTimeRange timeRange() {
        return new TTimeRange(minTime, maxTime);
    }

    /** The Thrift columns: each whole family, then each column whose family is not whole. */
    List<TColumn> thriftColumns() {
        if (columns.isEmpty() && families.isEmpty()) {
            return null;
        }
        List<TColumn> out = new ArrayList<>();
        for (String f : families) {
            out.add(new TColumn(java.nio.ByteBuffer.wrap(f.getBytes(StandardCharsets.UTF_8))));
        }
        for (ColumnName c : columns) {
            String f = new String(c.family(), StandardCharsets.UTF_8);
            if (!families.contains(f)) {
                out.add(new TColumn(java.nio.ByteBuffer.wrap(c.family())).setQualifier(c.qualifier()));
            }
        }
        return out;
    }
}
