package org.redbase.sdk;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * Typed rows of a scan, in key order: an {@link Iterator} and {@link Iterable} (once) that must
 * be closed if not read to the end, since it holds server-side scanners open. Use it in
 * try-with-resources, or {@link #toList()}.
 */
public final class RowScanner<R> implements Iterator<R>, Iterable<R>, AutoCloseable {
    private final TableClient.RawScan raw;
    private final Function<TableClient.RawRow, R> typed;

    RowScanner(TableClient.RawScan raw, Function<TableClient.RawRow, R> typed) {
        this.raw = raw;
        this.typed = typed;
    }

    /** A scanner of these raw rows typed by {@code typed} (generated tables use this). */
    public static <R> RowScanner<R> of(TableClient.RawScan raw, Function<TableClient.RawRow, R> typed) {
        return new RowScanner<>(raw, typed);
    }

    @Override
    public boolean hasNext() {
        return raw.hasNext();
    }

    @Override
    public R next() {
        if (!raw.hasNext()) {
            throw new NoSuchElementException();
        }
        return typed.apply(raw.next());
    }

    @Override
    public Iterator<R> iterator() {
        return this;
    }

    /** Reads the remaining rows and closes the scanners. */
    public List<R> toList() {
        try (this) {
            List<R> out = new ArrayList<>();
            while (hasNext()) {
                out.add(next());
            }
            return out;
        }
    }

    @Override
    public void close() {
        raw.close();
    }
}
