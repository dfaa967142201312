package org.redbase.sdk;

import java.util.List;

/**
 * The live table differs from its schema in a way {@code ensure()} will not fix: a family the
 * schema lacks (deleting it would delete data) or other split points (a gateway cannot re-split
 * a table). {@link #drifts()} lists each, in the words of {@code redbase schema diff}.
 */
public final class SchemaDriftException extends RuntimeException {
    private final List<String> drifts;

    public SchemaDriftException(String table, List<String> drifts) {
        super(table + " differs from its schema: " + String.join("; ", drifts)
                + " (redbase schema apply --allow-drop deletes extra families; split points are fixed when a table is created)");
        this.drifts = List.copyOf(drifts);
    }

    public List<String> drifts() {
        return drifts;
    }
}
