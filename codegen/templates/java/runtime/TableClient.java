package org.redbase.sdk;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
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
import org.redbase.thrift2.TMutation;
import org.redbase.thrift2.TNamespaceDescriptor;
import org.redbase.thrift2.TPut;
import org.redbase.thrift2.TResult;
import org.redbase.thrift2.TRowMutations;
import org.redbase.thrift2.TScan;
import org.redbase.thrift2.TTableDescriptor;
import org.redbase.thrift2.TTableName;

/**
 * Row-level Thrift2 calls in bytes for one table; the generated table classes type them.
 * Failures become {@link ThriftException}s naming the call and the table. Calls on one
 * connection are serialized (a buffered writer's background flush shares it), and cells read
 * back come sorted by column, newest version first.
 */
public final class TableClient {
    /** A row read back: its key and its cells by column, newest first within a column. */
    public record RawRow(byte[] row, List<Cell> cells) {}

    @FunctionalInterface
    interface Call<T> {
        T run(THBaseService.Client client) throws TException;
    }

    /** A multi-row call: true if the server applied every row. */
    @FunctionalInterface
    interface Attempt {
        boolean run(THBaseService.Client client, ByteBuffer table) throws TException;
    }

    /** A one-row call. */
    @FunctionalInterface
    interface Step {
        void run(THBaseService.Client client, ByteBuffer table) throws TException;
    }

    private final Connection conn;
    private final TableDef table;
    private final ByteBuffer name;

    /** A client of {@code table} on {@code conn} (in the connection's namespace if it sets one). */
    public TableClient(Connection conn, TableDef table) {
        this.conn = conn;
        this.table = conn.namespace() == null ? table : table.inNamespace(conn.namespace());
        this.name = ByteBuffer.wrap(this.table.fullName());
    }

    public TableDef table() {
        return table;
    }

    Connection connection() {
        return conn;
    }

    String label() {
        return table.namespace().equals("default") ? table.name() : table.namespace() + ":" + table.name();
    }

    <T> T call(String what, Call<T> call) {
        try {
            synchronized (conn.lock()) {
                return call.run(conn.client());
            }
        } catch (TIOError e) {
            throw new ThriftException(what + " " + label() + ": TIOError: " + e.getMessage(), e);
        } catch (TIllegalArgument e) {
            throw new ThriftException(what + " " + label() + ": TIllegalArgument: " + e.getMessage(), e);
        } catch (TException e) {
            throw new ThriftException(what + " " + label() + " on " + conn.address() + ": " + e, e);
        }
    }

    /** A multi-row call; false if the server refused it (its rows are then retried one by one). */
    boolean tryCall(String what, Attempt a) {
        try {
            synchronized (conn.lock()) {
                return a.run(conn.client(), name);
            }
        } catch (TIOError | TIllegalArgument e) {
            return false;
        } catch (TException e) {
            throw new ThriftException(what + " " + label() + " on " + conn.address() + ": " + e, e);
        }
    }

    /** A one-row call of a batch: null if it worked, else the server's message. */
    String tryOne(String what, Step s) {
        try {
            synchronized (conn.lock()) {
                s.run(conn.client(), name);
            }
            return null;
        } catch (TIOError | TIllegalArgument e) {
            return Batches.serverMessage(e);
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

    /**
     * Makes the live table match the schema ({@link SchemaDrift}): creates it if missing, adds
     * missing families and sets differing family settings; returns what it changed. A family
     * the schema lacks, or other split points, throw one {@link SchemaDriftException}.
     */
    public List<String> ensure() {
        String shown = table.namespace() + ":" + table.name();
        if (!exists()) {
            create();
            return List.of(shown + ": created the table with its families and split keys");
        }
        TTableDescriptor desc = call("getTableDescriptor", c -> c.getTableDescriptor(tableName()));
        java.util.Map<String, org.redbase.thrift2.TColumnFamilyDescriptor> live = new java.util.TreeMap<>();
        for (org.redbase.thrift2.TColumnFamilyDescriptor c : desc.getColumns() == null ? List.<org.redbase.thrift2.TColumnFamilyDescriptor>of() : desc.getColumns()) {
            live.put(new String(c.getName(), StandardCharsets.UTF_8), c);
        }
        List<String> changed = new ArrayList<>();
        for (FamilyDef f : table.families()) {
            org.redbase.thrift2.TColumnFamilyDescriptor have = live.get(f.name());
            if (have == null) {
                call("addColumnFamily", c -> {
                    c.addColumnFamily(tableName(), f.descriptor());
                    return null;
                });
                changed.add(shown + ": added family " + f.name());
                continue;
            }
            List<SchemaDrift.Setting> diffs = SchemaDrift.familyDrift(f, have);
            if (diffs.isEmpty()) {
                continue;
            }
            call("modifyColumnFamily", c -> {
                c.modifyColumnFamily(tableName(), SchemaDrift.overlaid(f, have));
                return null;
            });
            for (SchemaDrift.Setting d : diffs) {
                changed.add(shown + ": family " + f.name() + ": " + d.name() + " was " + d.live() + ", set to " + d.schema());
            }
        }
        List<String> refused = new ArrayList<>();
        for (String n : live.keySet()) {
            if (table.families().stream().noneMatch(f -> f.name().equals(n))) {
                refused.add("extra family " + n + " (not in the schema)");
            }
        }
        List<byte[]> splits = new ArrayList<>(regionStarts().stream().filter(s -> s.length > 0).toList());
        boolean same = splits.size() == table.splits().size();
        for (int i = 0; same && i < splits.size(); i++) {
            same = Arrays.equals(splits.get(i), table.splits().get(i));
        }
        if (!same) {
            refused.add("split points are " + SchemaDrift.splitsShown(splits) + ", the schema says "
                    + SchemaDrift.splitsShown(table.splits()));
        }
        if (!refused.isEmpty()) {
            throw new SchemaDriftException(shown, refused);
        }
        return changed;
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
        return get(row, GetOptions.DEFAULT);
    }

    /** The row's cells as {@code options} select them, or null if none. */
    public List<Cell> get(byte[] row, GetOptions options) {
        ReadSelection sel = options.selection();
        TGet get = new TGet(ByteBuffer.wrap(row));
        List<org.redbase.thrift2.TColumn> cols = sel.thriftColumns();
        if (cols != null) {
            get.setColumns(cols);
        }
        if (sel.versions() > 0) {
            get.setMaxVersions(sel.versions());
        }
        if (sel.hasTimeRange()) {
            get.setTimeRange(sel.timeRange());
        }
        if (sel.filter() != null) {
            get.setFilterString(sel.filter().render());
        }
        TResult r = call("get", c -> c.get(name, get));
        List<Cell> cells = cells(r);
        return cells.isEmpty() ? null : cells;
    }

    public void put(byte[] row, List<Cell> cells) {
        put(row, cells, Cell.LATEST);
    }

    /** Writes the cells with this timestamp ({@link Cell#LATEST}: the server's clock). */
    public void put(byte[] row, List<Cell> cells, long timestamp) {
        if (!cells.isEmpty()) {
            TPut put = Batches.toPut(new Batches.PutRow(row, cells, timestamp));
            call("put", c -> {
                c.put(name, put);
                return null;
            });
        }
    }

    /** Deletes the whole row. */
    public void delete(byte[] row) {
        delete(row, Cell.LATEST);
    }

    /** Deletes every version up to {@code timestamp} of every column of the row. */
    public void delete(byte[] row, long timestamp) {
        TDelete del = Batches.toDelete(new Batches.DeleteRow(row, timestamp));
        call("deleteSingle", c -> {
            c.deleteSingle(name, del);
            return null;
        });
    }

    /** Puts many rows in calls of at most {@code options}' rows and bytes; see {@link BatchException}. */
    public void putMany(List<RawRow> rows, WriteOptions options) {
        List<Batches.PutRow> puts = rows.stream()
                .map(r -> new Batches.PutRow(r.row(), r.cells(), options.timestamp())).toList();
        List<BatchException.Failure> failures = new ArrayList<>();
        Batches.putMany(this, puts, options, 0, failures);
        if (!failures.isEmpty()) {
            throw new BatchException("putMultiple " + label(), failures);
        }
    }

    /** Deletes many whole rows (versions up to {@code options}' timestamp) in bounded calls. */
    public void deleteMany(List<byte[]> rows, WriteOptions options) {
        List<Batches.DeleteRow> deletes = rows.stream().map(r -> new Batches.DeleteRow(r, options.timestamp())).toList();
        List<BatchException.Failure> failures = new ArrayList<>();
        Batches.deleteMany(this, deletes, options, 0, failures);
        if (!failures.isEmpty()) {
            throw new BatchException("deleteMultiple " + label(), failures);
        }
    }

    /** Adds to each row's counters, one call per row; each row's new counter cells. */
    public List<List<Cell>> incrementMany(List<byte[]> rows, List<List<CounterDelta>> deltas) {
        List<Batches.IncrementRow> incs = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            incs.add(new Batches.IncrementRow(rows.get(i), deltas.get(i)));
        }
        List<BatchException.Failure> failures = new ArrayList<>();
        List<List<Cell>> out = Batches.incrementMany(this, incs, 0, failures);
        if (!failures.isEmpty()) {
            throw new BatchException("increment " + label(), failures);
        }
        return out;
    }

    /** Atomically deletes {@code delete}'s columns (every version) and puts {@code put} in one row. */
    public void mutateRow(byte[] row, List<Cell> put, List<? extends ColumnName> delete) {
        List<TMutation> mutations = new ArrayList<>();
        if (!delete.isEmpty()) {
            List<org.redbase.thrift2.TColumn> cols = new ArrayList<>();
            for (ColumnName c : delete) {
                cols.add(new org.redbase.thrift2.TColumn(ByteBuffer.wrap(c.family())).setQualifier(c.qualifier()));
            }
            mutations.add(TMutation.deleteSingle(new TDelete(ByteBuffer.wrap(row)).setColumns(cols)));
        }
        if (!put.isEmpty()) {
            mutations.add(TMutation.put(toPut(row, put)));
        }
        if (!mutations.isEmpty()) {
            TRowMutations rm = new TRowMutations(ByteBuffer.wrap(row), mutations);
            call("mutateRow", c -> {
                c.mutateRow(name, rm);
                return null;
            });
        }
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

    /**
     * Rows in {@code keys}: one scanner per range (per salt bucket), merged by the key without
     * its salt (descending if reversed), or one bucket after the other ({@link RowOrder}).
     */
    public RawScan scan(KeyRange keys, ScanOptions options) {
        return new RawScan(keys, options);
    }

    static TPut toPut(byte[] row, List<Cell> cells) {
        List<TColumnValue> values = new ArrayList<>();
        for (Cell c : cells) {
            TColumnValue v = new TColumnValue(ByteBuffer.wrap(c.family()), ByteBuffer.wrap(c.qualifier()), ByteBuffer.wrap(c.value()));
            if (c.timestamp() != Cell.LATEST) {
                v.setTimestamp(c.timestamp());
            }
            values.add(v);
        }
        return new TPut(ByteBuffer.wrap(row), values);
    }

    /** A result's cells by column, newest first within a column, whatever the server's order. */
    static List<Cell> cells(TResult r) {
        List<Cell> out = new ArrayList<>();
        if (r != null && r.getColumnValues() != null) {
            for (TColumnValue v : r.getColumnValues()) {
                out.add(new Cell(v.getFamily(), v.getQualifier(), v.getValue(), v.isSetTimestamp() ? v.getTimestamp() : Cell.LATEST));
            }
        }
        out.sort(Cell.COLUMN_ORDER);
        return out;
    }

    /** One range's scanner, opened on first use and read in batches. */
    private final class Bucket {
        final byte[] start;
        final byte[] stop;
        final ScanOptions options;
        final boolean reversed;
        final int batch;
        final Deque<RawRow> buffer = new ArrayDeque<>();
        Integer scanner;
        boolean done;

        Bucket(KeyRange.Bounds b, ScanOptions options, int batch) {
            this.start = b.start();
            this.stop = b.stop();
            this.options = options;
            this.reversed = options.reversed();
            this.batch = batch;
        }

        /** The next row in range, or null at the end (the scanner is then closed). A row the
         *  server split into parts ({@code batchSize}) comes back whole. */
        RawRow next() {
            RawRow first = poll();
            if (first == null || options.batchSize() == 0) {
                return first;
            }
            List<Cell> cells = new ArrayList<>(first.cells());
            while (true) {
                RawRow more = peek();
                if (more == null || !Arrays.equals(more.row(), first.row())) {
                    break;
                }
                cells.addAll(poll().cells());
            }
            cells.sort(Cell.COLUMN_ORDER);
            return new RawRow(first.row(), cells);
        }

        private RawRow poll() {
            while (buffer.isEmpty() && !done) {
                fill();
            }
            return buffer.poll();
        }

        private RawRow peek() {
            while (buffer.isEmpty() && !done) {
                fill();
            }
            return buffer.peek();
        }

        private TScan newScan() {
            ReadSelection sel = options.selection();
            TScan scan = new TScan().setCaching(batch);
            List<org.redbase.thrift2.TColumn> cols = sel.thriftColumns();
            if (cols != null) {
                scan.setColumns(cols);
            }
            if (sel.versions() > 0) {
                scan.setMaxVersions(sel.versions());
            }
            if (sel.hasTimeRange()) {
                scan.setTimeRange(sel.timeRange());
            }
            if (sel.filter() != null) {
                scan.setFilterString(sel.filter().render());
            }
            if (options.batchSize() > 0) {
                scan.setBatchSize(options.batchSize());
            }
            return scan;
        }

        private void fill() {
            if (scanner == null) {
                TScan scan = newScan();
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
     * Raw rows of a scan: one scanner per range (per salt bucket), in {@link RowOrder}, at most
     * {@code limit}. Closing it closes the scanners still open.
     */
    public final class RawScan implements Iterator<RawRow>, AutoCloseable {
        private final List<Bucket> buckets = new ArrayList<>();
        private final RawRow[] heads;
        private final boolean[] fetched;
        private final RowOrder order;
        private final int limit;
        private int returned;

        RawScan(KeyRange keys, ScanOptions options) {
            int batch = options.limit() > 0 && options.batchSize() == 0
                    ? Math.min(options.caching(), options.limit()) : options.caching();
            for (KeyRange.Bounds b : keys.ranges()) {
                buckets.add(new Bucket(b, options, batch));
            }
            heads = new RawRow[buckets.size()];
            fetched = new boolean[buckets.size()];
            order = new RowOrder(table.key() == null ? 0 : table.key().saltWidth(), options.reversed(), options.bucketOrder());
            limit = options.limit();
        }

        /** Bucket i's next row (fetched on first need; the scanner opens then), null when done. */
        private byte[] head(int i) {
            if (!fetched[i]) {
                heads[i] = buckets.get(i).next();
                fetched[i] = true;
            }
            return heads[i] == null ? null : heads[i].row();
        }

        private int pick() {
            return order.pick(buckets.size(), this::head);
        }

        @Override
        public boolean hasNext() {
            if (limit > 0 && returned >= limit) {
                close();
                return false;
            }
            return pick() >= 0;
        }

        @Override
        public RawRow next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            int i = pick();
            RawRow r = heads[i];
            heads[i] = null;
            fetched[i] = false;
            returned++;
            return r;
        }

        @Override
        public void close() {
            for (Bucket b : buckets) {
                b.close();
            }
        }
    }
}
