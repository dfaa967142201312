package org.redbase.sdk;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import org.apache.thrift.TException;
import org.redbase.thrift2.TColumnIncrement;
import org.redbase.thrift2.TColumnValue;
import org.redbase.thrift2.TDelete;
import org.redbase.thrift2.TGet;
import org.redbase.thrift2.THBaseService;
import org.redbase.thrift2.THRegionLocation;
import org.redbase.thrift2.TIOError;
import org.redbase.thrift2.TIllegalArgument;
import org.redbase.thrift2.TIncrement;
import org.redbase.thrift2.TNamespaceDescriptor;
import org.redbase.thrift2.TPut;
import org.redbase.thrift2.TResult;
import org.redbase.thrift2.TScan;
import org.redbase.thrift2.TTableDescriptor;
import org.redbase.thrift2.TTableName;

/**
 * Row-level Thrift2 calls in bytes for one table; the generated table classes type them.
 * Failures become {@link ThriftException}s naming the call and the table.
 */
public final class TableClient {
    /** A row read back: its key and its cells in the server's order. */
    public record RawRow(byte[] row, List<Cell> cells) {}

    @FunctionalInterface
    private interface Call<T> {
        T run(THBaseService.Client client) throws TException;
    }

    private final Connection conn;
    private final TableDef table;
    private final ByteBuffer name;

    public TableClient(Connection conn, TableDef table) {
        this.conn = conn;
        this.table = table;
        this.name = ByteBuffer.wrap(table.fullName());
    }

    public TableDef table() {
        return table;
    }

    private String label() {
        return table.namespace().equals("default") ? table.name() : table.namespace() + ":" + table.name();
    }

    private <T> T call(String what, Call<T> call) {
        try {
            return call.run(conn.client());
        } catch (TIOError e) {
            throw new ThriftException(what + " " + label() + ": TIOError: " + e.getMessage(), e);
        } catch (TIllegalArgument e) {
            throw new ThriftException(what + " " + label() + ": TIllegalArgument: " + e.getMessage(), e);
        } catch (TException e) {
            throw new ThriftException(what + " " + label() + " on " + conn.address() + ": " + e, e);
        }
    }

    private TTableName tableName() {
        return new TTableName(ByteBuffer.wrap(table.name().getBytes(StandardCharsets.UTF_8)))
                .setNs(table.namespace().getBytes(StandardCharsets.UTF_8));
    }

    /** Creates the table with its families and split keys, and its namespace if missing. */
    public void create() {
        if (!table.namespace().equals("default")) {
            boolean known = call("listNamespaceDescriptors", c -> c.listNamespaceDescriptors())
                    .stream().anyMatch(d -> d.getName().equals(table.namespace()));
            if (!known) {
                call("createNamespace", c -> {
                    c.createNamespace(new TNamespaceDescriptor(table.namespace()));
                    return null;
                });
            }
        }
        TTableDescriptor desc = new TTableDescriptor(tableName());
        desc.setColumns(table.families().stream().map(FamilyDef::descriptor).toList());
        List<ByteBuffer> splits = table.splits().stream().map(ByteBuffer::wrap).toList();
        call("createTable", c -> {
            c.createTable(desc, splits.isEmpty() ? null : splits);
            return null;
        });
    }

    public boolean exists() {
        return call("tableExists", c -> c.tableExists(tableName()));
    }

    /** Disables (if enabled) and deletes the table. */
    public void drop() {
        call("deleteTable", c -> {
            if (c.isTableEnabled(tableName())) {
                c.disableTable(tableName());
            }
            c.deleteTable(tableName());
            return null;
        });
    }

    /** Start keys of the table's regions, ascending (the first is empty). */
    public List<byte[]> regionStarts() {
        List<THRegionLocation> locs = call("getAllRegionLocations", c -> c.getAllRegionLocations(name));
        List<byte[]> out = new ArrayList<>();
        for (THRegionLocation loc : locs) {
            byte[] start = loc.getRegionInfo().getStartKey();
            out.add(start == null ? new byte[0] : start);
        }
        out.sort(Arrays::compareUnsigned);
        return out;
    }

    /** The row's cells, or null if it has none. */
    public List<Cell> get(byte[] row) {
        TResult r = call("get", c -> c.get(name, new TGet(ByteBuffer.wrap(row))));
        List<Cell> cells = cells(r);
        return cells.isEmpty() ? null : cells;
    }

    public void put(byte[] row, List<Cell> cells) {
        if (!cells.isEmpty()) {
            call("put", c -> {
                c.put(name, toPut(row, cells));
                return null;
            });
        }
    }

    /** Deletes the whole row. */
    public void delete(byte[] row) {
        call("deleteSingle", c -> {
            c.deleteSingle(name, new TDelete(ByteBuffer.wrap(row)));
            return null;
        });
    }

    /** Atomically adds {@code amount} to a counter cell; returns the new value. */
    public long increment(byte[] row, byte[] family, byte[] qualifier, long amount) {
        TColumnIncrement col = new TColumnIncrement(ByteBuffer.wrap(family), ByteBuffer.wrap(qualifier)).setAmount(amount);
        TResult r = call("increment", c -> c.increment(name, new TIncrement(ByteBuffer.wrap(row), List.of(col))));
        for (Cell cell : cells(r)) {
            if (Arrays.equals(cell.family(), family) && Arrays.equals(cell.qualifier(), qualifier)) {
                return Codecs.COUNTER.decode(cell.value());
            }
        }
        throw new ThriftException("increment " + label() + ": the server returned no value");
    }

    /** Puts {@code cells} if the cell holds {@code expected} (null: is absent); true if it did. */
    public boolean checkAndPut(byte[] row, byte[] family, byte[] qualifier, byte[] expected, List<Cell> cells) {
        return call("checkAndPut", c -> c.checkAndPut(name, ByteBuffer.wrap(row), ByteBuffer.wrap(family),
                ByteBuffer.wrap(qualifier), expected == null ? null : ByteBuffer.wrap(expected), toPut(row, cells)));
    }

    /** Rows in {@code keys} in key order (descending if reversed): one scanner per range, merged. */
    public RawScan scan(KeyRange keys, ScanOptions options) {
        return new RawScan(keys, options);
    }

    private static TPut toPut(byte[] row, List<Cell> cells) {
        List<TColumnValue> values = new ArrayList<>();
        for (Cell c : cells) {
            values.add(new TColumnValue(ByteBuffer.wrap(c.family()), ByteBuffer.wrap(c.qualifier()), ByteBuffer.wrap(c.value())));
        }
        return new TPut(ByteBuffer.wrap(row), values);
    }

    private static List<Cell> cells(TResult r) {
        List<Cell> out = new ArrayList<>();
        if (r != null && r.getColumnValues() != null) {
            for (TColumnValue v : r.getColumnValues()) {
                out.add(new Cell(v.getFamily(), v.getQualifier(), v.getValue()));
            }
        }
        return out;
    }

    /** One range's scanner, opened on first use and read in batches. */
    private final class Bucket {
        final byte[] start;
        final byte[] stop;
        final boolean reversed;
        final int batch;
        final Deque<RawRow> buffer = new ArrayDeque<>();
        Integer scanner;
        boolean done;

        Bucket(KeyRange.Bounds b, boolean reversed, int batch) {
            this.start = b.start();
            this.stop = b.stop();
            this.reversed = reversed;
            this.batch = batch;
        }

        /** The next row in range, or null at the end (the scanner is then closed). */
        RawRow next() {
            while (buffer.isEmpty() && !done) {
                fill();
            }
            return buffer.poll();
        }

        private void fill() {
            if (scanner == null) {
                TScan scan = new TScan().setCaching(batch);
                if (reversed) {
                    // A reversed scanner starts at its upper bound (inclusive) and stops before
                    // its lower bound; rows outside [start, stop) are trimmed below.
                    scan.setReversed(true);
                    if (stop != null) {
                        scan.setStartRow(stop);
                    }
                    if (start.length > 0) {
                        scan.setStopRow(Arrays.copyOf(start, start.length - 1));
                    }
                } else {
                    if (start.length > 0) {
                        scan.setStartRow(start);
                    }
                    if (stop != null) {
                        scan.setStopRow(stop);
                    }
                }
                scanner = call("openScanner", c -> c.openScanner(name, scan));
            }
            int id = scanner;
            List<TResult> rows = call("getScannerRows", c -> c.getScannerRows(id, batch));
            if (rows.isEmpty()) {
                close();
                return;
            }
            for (TResult r : rows) {
                byte[] row = r.getRow();
                if (stop != null && Arrays.compareUnsigned(row, stop) >= 0) {
                    continue;
                }
                if (Arrays.compareUnsigned(row, start) < 0) {
                    if (reversed) {
                        close();
                        return;
                    }
                    continue;
                }
                buffer.add(new RawRow(row, cells(r)));
            }
        }

        void close() {
            done = true;
            if (scanner != null) {
                int id = scanner;
                scanner = null;
                call("closeScanner", c -> {
                    c.closeScanner(id);
                    return null;
                });
            }
        }
    }

    /**
     * Raw rows of a scan: one scanner per range (per salt bucket), merged in key order, at most
     * {@code limit}. Closing it closes the scanners still open.
     */
    public final class RawScan implements Iterator<RawRow>, AutoCloseable {
        private record Head(RawRow row, Bucket from) {}

        private final List<Bucket> buckets = new ArrayList<>();
        private final PriorityQueue<Head> heads;
        private final int limit;
        private int returned;
        private boolean started;

        RawScan(KeyRange keys, ScanOptions options) {
            int batch = options.limit() > 0 ? Math.min(options.batch(), options.limit()) : options.batch();
            for (KeyRange.Bounds b : keys.ranges()) {
                buckets.add(new Bucket(b, options.reversed(), batch));
            }
            Comparator<Head> order = (a, b) -> Arrays.compareUnsigned(a.row.row(), b.row.row());
            heads = new PriorityQueue<>(Math.max(1, buckets.size()), options.reversed() ? order.reversed() : order);
            limit = options.limit();
        }

        private void start() {
            if (!started) {
                started = true;
                for (Bucket b : buckets) {
                    advance(b);
                }
            }
        }

        private void advance(Bucket b) {
            RawRow r = b.next();
            if (r != null) {
                heads.add(new Head(r, b));
            }
        }

        @Override
        public boolean hasNext() {
            if (limit > 0 && returned >= limit) {
                close();
                return false;
            }
            start();
            return !heads.isEmpty();
        }

        @Override
        public RawRow next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Head h = heads.poll();
            returned++;
            advance(h.from);
            return h.row;
        }

        @Override
        public void close() {
            heads.clear();
            for (Bucket b : buckets) {
                b.close();
            }
        }
    }
}
