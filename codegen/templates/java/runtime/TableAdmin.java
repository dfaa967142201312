package org.redbase.sdk;

import java.util.List;

/** What every generated table client offers besides its typed rows: its definition and the
 *  table's life cycle, so tools can manage tables without knowing their row types. */
public interface TableAdmin {
    TableDef definition();

    /** Creates the table with its families and split keys (and its namespace if missing). */
    void create();

    /**
     * At start-up: creates the table if missing, adds missing families and sets differing
     * family settings as the schema says (the rules of {@code redbase schema diff}); returns
     * what it changed. A live family the schema lacks, or other split points, throw a
     * {@link SchemaDriftException} (it never deletes data or re-splits).
     */
    List<String> ensure();

    boolean exists();

    /** Disables and deletes the table. */
    void drop();

    /** Start keys of the table's regions, ascending (the first is empty). */
    List<byte[]> regionStarts();
}
