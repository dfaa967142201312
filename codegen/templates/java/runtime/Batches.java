package org.redbase.sdk;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.thrift.TException;
import org.redbase.thrift2.TColumnIncrement;
import org.redbase.thrift2.TDelete;
import org.redbase.thrift2.THBaseService;
import org.redbase.thrift2.TIOError;
import org.redbase.thrift2.TIllegalArgument;
import org.redbase.thrift2.TIncrement;
import org.redbase.thrift2.TPut;
import org.redbase.thrift2.TResult;

/**
 * Multi-row writes in calls of bounded size (rows and cell bytes): Thrift2 {@code putMultiple}
 * and {@code deleteMultiple}, one {@code increment} per row. When a call fails on the server its
 * rows are retried one by one, so the failure names exactly the rows that failed.
 */
final class Batches {
    private Batches() {}

    /** A row to put: its cells and the timestamp of the whole put ({@link Cell#LATEST}: now). */
    record PutRow(byte[] row, List<Cell> cells, long timestamp) {
        long size() {
            long n = row.length;
            for (Cell c : cells) {
                n += c.family().length + c.qualifier().length + c.value().length;
            }
            return n;
        }
    }

    /** A whole row to delete: versions up to {@code timestamp} ({@link Cell#LATEST}: all). */
    record DeleteRow(byte[] row, long timestamp) {}

    /** A row's counters to add to. */
    record IncrementRow(byte[] row, List<CounterDelta> deltas) {}

    @FunctionalInterface
    interface Multi<E> {
        /** Sends the items in one call; true if the server took them all. */
        boolean send(THBaseService.Client c, ByteBuffer table, List<E> items) throws TException;
    }

    @FunctionalInterface
    interface One<E> {
        void send(THBaseService.Client c, ByteBuffer table, E item) throws TException;
    }

    static TPut toPut(PutRow p) {
        TPut put = TableClient.toPut(p.row(), p.cells());
        if (p.timestamp() != Cell.LATEST) {
            put.setTimestamp(p.timestamp());
        }
        return put;
    }

    static TDelete toDelete(DeleteRow d) {
        TDelete del = new TDelete(ByteBuffer.wrap(d.row()));
        if (d.timestamp() != Cell.LATEST) {
            del.setTimestamp(d.timestamp());
        }
        return del;
    }

    /** The server's words for a failed row (its TIOError or TIllegalArgument message). */
    static String serverMessage(TException e) {
        if (e instanceof TIOError io) {
            return "TIOError: " + io.getMessage();
        }
        if (e instanceof TIllegalArgument ia) {
            return "TIllegalArgument: " + ia.getMessage();
        }
        return e.toString();
    }

    /**
     * Sends {@code items} (row keys {@code rows}, sizes {@code sizes}) in chunks; adds a failure
     * per row that failed, indexed from {@code base}.
     */
    static <E> void chunked(TableClient t, String what, List<E> items, List<byte[]> rows, List<Long> sizes,
            WriteOptions o, Multi<E> multi, One<E> one, int base, List<BatchException.Failure> failures) {
        int start = 0;
        while (start < items.size()) {
            int end = start;
            long bytes = 0;
            while (end < items.size() && end - start < o.maxRows()
                    && (end == start || bytes + sizes.get(end) <= o.maxBytes())) {
                bytes += sizes.get(end);
                end++;
            }
            List<E> chunk = items.subList(start, end);
            boolean ok = t.tryCall(what, (c, name) -> multi.send(c, name, chunk));
            if (!ok) {
                for (int i = start; i < end; i++) {
                    E item = items.get(i);
                    String error = t.tryOne(what, (c, name) -> one.send(c, name, item));
                    if (error != null) {
                        failures.add(new BatchException.Failure(base + i, rows.get(i), error));
                    }
                }
            }
            start = end;
        }
    }

    static void putMany(TableClient t, List<PutRow> puts, WriteOptions o, int base,
            List<BatchException.Failure> failures) {
        List<byte[]> rows = puts.stream().map(PutRow::row).toList();
        List<Long> sizes = puts.stream().map(PutRow::size).toList();
        chunked(t, "putMultiple", puts, rows, sizes, o, (c, name, chunk) -> {
            c.putMultiple(name, chunk.stream().map(Batches::toPut).toList());
            return true;
        }, (c, name, p) -> c.put(name, toPut(p)), base, failures);
    }

    static void deleteMany(TableClient t, List<DeleteRow> deletes, WriteOptions o, int base,
            List<BatchException.Failure> failures) {
        List<byte[]> rows = deletes.stream().map(DeleteRow::row).toList();
        List<Long> sizes = deletes.stream().map(d -> (long) d.row().length).toList();
        // deleteMultiple answers with the deletes it could not apply: then every row is retried
        // alone (deleting a row twice is harmless) to name the ones that fail.
        chunked(t, "deleteMultiple", deletes, rows, sizes, o,
                (c, name, chunk) -> c.deleteMultiple(name, chunk.stream().map(Batches::toDelete).toList()).isEmpty(),
                (c, name, d) -> c.deleteSingle(name, toDelete(d)), base, failures);
    }

    /** One increment call per row; the new counter cells of each row (null where it failed). */
    static List<List<Cell>> incrementMany(TableClient t, List<IncrementRow> incs, int base,
            List<BatchException.Failure> failures) {
        List<List<Cell>> out = new ArrayList<>();
        for (int i = 0; i < incs.size(); i++) {
            IncrementRow r = incs.get(i);
            List<TColumnIncrement> cols = new ArrayList<>();
            for (CounterDelta d : r.deltas()) {
                cols.add(new TColumnIncrement(ByteBuffer.wrap(d.family()), ByteBuffer.wrap(d.qualifier()))
                        .setAmount(d.amount()));
            }
            TResult[] result = new TResult[1];
            String error = cols.isEmpty() ? null
                    : t.tryOne("increment", (c, name) -> result[0] = c.increment(name, new TIncrement(ByteBuffer.wrap(r.row()), cols)));
            if (error != null) {
                failures.add(new BatchException.Failure(base + i, r.row(), error));
                out.add(null);
            } else {
                out.add(TableClient.cells(result[0]));
            }
        }
        return out;
    }
}
