package org.redbase.sdk;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Puts, deletes and increments buffered and sent in batches: when the buffer holds
 * {@code maxRows} rows or {@code maxBytes} of cell data, when its oldest write has waited
 * {@code flushInterval} (a background thread checks, even if no further call comes), on
 * {@link #flush()} and on {@link #close()}. Writes go out in the order they were made (runs of
 * puts, deletes and increments, each run batched), so a put then a delete of one row keep their
 * order. Increments of one counter buffered together are summed into one. A put or increment
 * of a row whose delete (at the server's clock) was acknowledged less than
 * {@link #DELETE_SETTLE_NANOS} before waits out the rest of it. A failure of a
 * background flush is thrown by the next call (which then buffers nothing) or by
 * {@code close()}: a {@link BatchException}
 * whose indices count the writes of that flush, in call order (failed writes are not retried
 * again; the others were sent). Thread-safe; the generated tables' {@code Writer} classes type
 * it. Close it: until then a daemon thread checks the interval.
 */
public final class BufferedWriter implements AutoCloseable {
    /**
     * How long the writer lets pass after the server acknowledged a row's delete before it
     * sends a put or increment of that row. The server stamps both with its clock's millisecond
     * and a delete marker hides every cell at or before its own stamp (HBase's rule), so a put
     * landing in the delete's millisecond would vanish. One millisecond suffices on a steady
     * clock; two leave room for a clock being slewed.
     */
    public static final long DELETE_SETTLE_NANOS = 2_000_000L;

    /** The bounds of the buffer: rows, bytes of cell data, and the longest a write waits. */
    public record Options(int maxRows, long maxBytes, Duration flushInterval) {
        public static final Options DEFAULT = new Options();

        /** 1,000 rows, 4 MiB of cell data, flushed every second. */
        public Options() {
            this(WriteOptions.DEFAULT_MAX_ROWS, WriteOptions.DEFAULT_MAX_BYTES, Duration.ofSeconds(1));
        }

        public Options {
            if (maxRows < 1 || maxBytes < 1) {
                throw new IllegalArgumentException("maxRows and maxBytes must be >= 1");
            }
            if (flushInterval == null || flushInterval.isNegative() || flushInterval.isZero()) {
                throw new IllegalArgumentException("flushInterval must be positive");
            }
        }

        public Options maxRows(int n) {
            return new Options(n, maxBytes, flushInterval);
        }

        public Options maxBytes(long n) {
            return new Options(maxRows, n, flushInterval);
        }

        public Options flushInterval(Duration d) {
            return new Options(maxRows, maxBytes, d);
        }
    }

    private enum Kind { PUT, DELETE, INCREMENT }

    /** One buffered write; an increment's deltas are summed per counter. */
    private static final class Op {
        final Kind kind;
        final byte[] row;
        final List<Cell> cells;
        final long timestamp;
        final Map<ByteBuffer, CounterDelta> deltas = new LinkedHashMap<>();

        Op(Kind kind, byte[] row, List<Cell> cells, long timestamp) {
            this.kind = kind;
            this.row = row;
            this.cells = cells;
            this.timestamp = timestamp;
        }
    }

    private final TableClient table;
    private final Options options;
    private final WriteOptions chunks;
    private final List<Op> ops = new ArrayList<>();
    /** Per row, the last buffered op touching it: an increment merges into it if it is one. */
    private final Map<ByteBuffer, Op> lastByRow = new HashMap<>();
    /** Rows of recent deletes stamped by the server: when they were acknowledged (nanoTime). */
    private final Map<ByteBuffer, Long> deleted = new HashMap<>();
    private final ScheduledExecutorService timer;
    private long bytes;
    private long oldestNanos;
    private RuntimeException pending;
    private boolean closed;

    public BufferedWriter(TableClient table, Options options) {
        this.table = table;
        this.options = options;
        this.chunks = WriteOptions.DEFAULT.maxRows(options.maxRows()).maxBytes(options.maxBytes());
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "redbase-writer " + table.label());
            t.setDaemon(true);
            return t;
        });
        long tick = Math.max(5, options.flushInterval().toMillis() / 4);
        timer.scheduleWithFixedDelay(this::tick, tick, tick, TimeUnit.MILLISECONDS);
    }

    private synchronized void tick() {
        if (!ops.isEmpty() && System.nanoTime() - oldestNanos >= options.flushInterval().toNanos()) {
            try {
                send();
            } catch (RuntimeException e) {
                pending = pending == null ? e : pending;
            }
        }
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("the writer is closed");
        }
        RuntimeException e = pending;
        if (e != null) {
            pending = null;
            throw e;
        }
    }

    private void add(Op op, long size) {
        if (ops.isEmpty()) {
            oldestNanos = System.nanoTime();
        }
        ops.add(op);
        lastByRow.put(ByteBuffer.wrap(op.row), op);
        bytes += size;
        if (ops.size() >= options.maxRows() || bytes >= options.maxBytes()) {
            send();
        }
    }

    /** Buffers a put of these cells ({@code timestamp}: {@link Cell#LATEST} for the server's clock). */
    public synchronized void put(byte[] row, List<Cell> cells, long timestamp) {
        check();
        if (cells.isEmpty()) {
            return;
        }
        Batches.PutRow p = new Batches.PutRow(row, cells, timestamp);
        add(new Op(Kind.PUT, row, List.copyOf(cells), timestamp), p.size());
    }

    /** Buffers a delete of the whole row (versions up to {@code timestamp}). */
    public synchronized void delete(byte[] row, long timestamp) {
        check();
        add(new Op(Kind.DELETE, row, null, timestamp), row.length);
    }

    /** Buffers increments, summed with those of the same counters buffered since the row's last put or delete. */
    public synchronized void increment(byte[] row, List<CounterDelta> deltas) {
        check();
        if (deltas.isEmpty()) {
            return;
        }
        Op last = lastByRow.get(ByteBuffer.wrap(row));
        Op op = last != null && last.kind == Kind.INCREMENT ? last : new Op(Kind.INCREMENT, row, null, Cell.LATEST);
        long size = 0;
        for (CounterDelta d : deltas) {
            ByteBuffer col = ByteBuffer.wrap(KeySpec.concat(KeySpec.concat(d.family(), new byte[] {':'}), d.qualifier()));
            CounterDelta before = op.deltas.get(col);
            if (before == null) {
                size += d.family().length + d.qualifier().length + 8;
            }
            op.deltas.put(col, new CounterDelta(d.family(), d.qualifier(), (before == null ? 0 : before.amount()) + d.amount()));
        }
        if (op == last) {
            bytes += size;
            if (bytes >= options.maxBytes()) {
                send();
            }
        } else {
            add(op, row.length + size);
        }
    }

    /** Sends everything buffered; throws a pending background failure or this flush's. */
    public synchronized void flush() {
        check();
        send();
    }

    /** Writes buffered now; failed rows are dropped from the buffer and reported. */
    private void send() {
        List<Op> batch = new ArrayList<>(ops);
        ops.clear();
        lastByRow.clear();
        bytes = 0;
        List<BatchException.Failure> failures = new ArrayList<>();
        int i = 0;
        while (i < batch.size()) {
            Kind kind = batch.get(i).kind;
            int j = i;
            while (j < batch.size() && batch.get(j).kind == kind) {
                j++;
            }
            List<Op> run = batch.subList(i, j);
            if (kind != Kind.DELETE) {
                settle(run);
            }
            switch (kind) {
                case PUT -> Batches.putMany(table, run.stream().map(o -> new Batches.PutRow(o.row, o.cells, o.timestamp)).toList(),
                        chunks, i, failures);
                case DELETE -> {
                    try {
                        Batches.deleteMany(table, run.stream().map(o -> new Batches.DeleteRow(o.row, o.timestamp)).toList(),
                                chunks, i, failures);
                    } finally {
                        long acked = System.nanoTime();
                        for (Op o : run) {
                            if (o.timestamp == Cell.LATEST) {
                                deleted.put(ByteBuffer.wrap(o.row), acked);
                            }
                        }
                    }
                }
                default -> Batches.incrementMany(table, run.stream()
                        .map(o -> new Batches.IncrementRow(o.row, List.copyOf(o.deltas.values()))).toList(), i, failures);
            }
            i = j;
        }
        if (!failures.isEmpty()) {
            throw new BatchException("buffered writes to " + table.label(), failures);
        }
    }

    /** Waits until {@link #DELETE_SETTLE_NANOS} has passed since any row of {@code run} was deleted. */
    private void settle(List<Op> run) {
        long now = System.nanoTime();
        deleted.values().removeIf(at -> now - at >= DELETE_SETTLE_NANOS);
        if (deleted.isEmpty()) {
            return;
        }
        long until = now;
        for (Op o : run) {
            Long at = deleted.get(ByteBuffer.wrap(o.row));
            if (at != null && at + DELETE_SETTLE_NANOS - until > 0) {
                until = at + DELETE_SETTLE_NANOS;
            }
        }
        for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** How many writes are buffered. */
    public synchronized int buffered() {
        return ops.size();
    }

    /** Flushes, stops the background thread; throws a pending failure or the last flush's. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        timer.shutdown();   // a flush under way finishes (it holds the lock taken below)
        synchronized (this) {
            RuntimeException e = pending;
            pending = null;
            try {
                send();
            } catch (RuntimeException flush) {
                if (e == null) {
                    throw flush;
                }
                e.addSuppressed(flush);
            }
            if (e != null) {
                throw e;
            }
        }
    }
}
