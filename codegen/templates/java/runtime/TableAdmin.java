package org.redbase.sdk;

import java.util.List;

/** What every generated table client offers besides its typed rows: its definition and the
 *  table's life cycle, so tools can manage tables without knowing their row types. */
public interface TableAdmin {
    TableDef definition();

    /** Creates the table with its families and split keys (and its namespace if missing). */
    void create();

    boolean exists();

    /** Disables and deletes the table. */
    void drop();

    /** Start keys of the table's regions, ascending (the first is empty). */
    List<byte[]> regionStarts();
}
