package org.redbase.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.redbase.sdk.Connection;
import org.redbase.sdk.Filter;
import org.redbase.sdk.GetOptions;
import org.redbase.sdk.ScanOptions;
import redbase_examples.AccessLogs;

/** The docs/sdks.md example ("The seed's access-logs table"), run by the suite. */
final class TypedExample {
    private TypedExample() {}

    /** The example's body on an open connection; returns what it printed. */
    static List<String> run(Connection conn) {
        List<String> printed = new ArrayList<>();
        // --- docs/sdks.md example: begin
        var logs = new AccessLogs.Table(conn);
        var key = new AccessLogs.Key("dave", "jericho", 201510);
        logs.put(key, new AccessLogs.Values().lastSeen(1_445_000_000_000L));
        logs.incrementHits(key, 3);
        var row = logs.get(key).orElseThrow();               // key decoded, typed values
        printed.add(row.key().hash() + " " + row.key().systemId() + " " + row.values().hits());

        // Batches: one putMultiple per 1,000 rows / 4 MiB; increments one call per row.
        var year = new ArrayList<Map.Entry<AccessLogs.Key, AccessLogs.Values>>();
        for (int month = 1; month <= 12; month++) {
            year.add(Map.entry(new AccessLogs.Key("dave", "anvil", 201500 + month),
                    new AccessLogs.Values().hits((long) month)));
        }
        logs.putMany(year);
        logs.incrementMany(List.of(Map.entry(key, new AccessLogs.Increments().hits(2))));

        // A buffered writer: flushed by rows, bytes, every second, and on close.
        try (var writer = logs.writer()) {
            writer.put(new AccessLogs.Key("elton", "anvil", 201501), new AccessLogs.Values().hits(1L));
            writer.increment(key, new AccessLogs.Increments().hits(1));
        }

        // Versions: family t keeps 3; each version with its timestamp, newest first.
        logs.put(key, new AccessLogs.Values().lastSeen(1L), 1_000L);
        logs.put(key, new AccessLogs.Values().lastSeen(2L), 2_000L);
        for (var v : logs.get(key, new GetOptions().versions(3)).orElseThrow().versions().lastSeen()) {
            printed.add(v.timestamp() + "=" + v.value());
        }

        // A range by component name, a typed filter run on the server, only the hits column.
        var options = new ScanOptions()
                .columns(AccessLogs.Columns.HITS)
                .filter(Filter.allOf(AccessLogs.Columns.HITS.ge(6L), AccessLogs.Columns.HITS.lt(9L)));
        try (var rows = logs.scan(AccessLogs.Key.where().userId("dave").systemId("anvil")
                .periodBetween(201503, 201510), options)) {
            for (var r : rows) {
                printed.add(r.key().period() + " " + r.values().hits());
            }
        }
        // --- docs/sdks.md example: end
        printed.forEach(System.out::println);
        return printed;
    }
}
