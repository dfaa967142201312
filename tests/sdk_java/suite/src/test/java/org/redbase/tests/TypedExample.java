package org.redbase.tests;

import java.util.ArrayList;
import java.util.List;
import org.redbase.sdk.Connection;
import org.redbase.sdk.ScanOptions;
import redbase_examples.AccessLogs;

/** The docs/sdks.md example ("Ten lines with the seed's access-logs table"), run by the suite. */
final class TypedExample {
    private TypedExample() {}

    /** The example's body on an open connection; returns the systems it printed. */
    static List<String> run(Connection conn) {
        List<String> systems = new ArrayList<>();
        // --- docs/sdks.md example: begin
        var logs = new AccessLogs.Table(conn);
        var key = new AccessLogs.Key("dave", "jericho", 201510);
        logs.put(key, new AccessLogs.Values().lastSeen(1_445_000_000_000L));
        logs.incrementHits(key, 3);
        var row = logs.get(key).orElseThrow();               // key decoded, typed values
        System.out.println(row.key().hash() + " " + row.key().systemId() + " " + row.values().hits());
        try (var rows = logs.scan(AccessLogs.Key.prefix("dave"), ScanOptions.DEFAULT.limit(10))) {
            for (var r : rows) {
                System.out.println(r.key().period() + " " + r.values().lastSeen());
                systems.add(r.key().systemId());
            }
        }
        // --- docs/sdks.md example: end
        return systems;
    }
}
