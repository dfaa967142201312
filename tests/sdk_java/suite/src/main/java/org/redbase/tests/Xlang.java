package org.redbase.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.redbase.sdk.Column;
import org.redbase.sdk.Connection;
import org.redbase.sdk.GetOptions;
import org.redbase.sdk.Version;
import org.redbase.sdk.KeySpec;
import org.redbase.sdk.PatternColumn;
import org.redbase.sdk.RowScanner;

/**
 * The Java side of the cross-language test (tests/xlang/README.md), through the generated SDK
 * only: {@code write HOST PORT} (re)creates the dataset's tables and writes its rows and
 * increments; {@code dump HOST PORT} prints every table's rows as JSON in the vector forms;
 * {@code write-versions}/{@code dump-versions} put each cell at its timestamp and read every
 * version back; {@code write-batch}/{@code dump-batch} use putMany, deleteMany, incrementMany.
 */
public final class Xlang {
    private Xlang() {}

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    static JsonNode dataset() throws Exception {
        File dir = Vectors.vectorDir().getParentFile().getParentFile();
        return new ObjectMapper().readTree(new File(dir, "tests/xlang/dataset.json"));
    }

    /** The generated column constants of a table, by schema field name. */
    static Map<String, Object> columns(String table) throws Exception {
        Map<String, Object> out = new java.util.TreeMap<>();
        for (Field f : Forms.nested(table, "Columns").getFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                Object col = f.get(null);
                out.put(col instanceof Column<?> c ? c.field() : ((PatternColumn<?, ?>) col).field(), col);
            }
        }
        return out;
    }

    static Object part(PatternColumn<?, ?> col, String text) {
        return switch (col.partType()) {
            case "string" -> text;
            case "i32" -> Integer.parseInt(text);
            default -> Long.parseLong(text);
        };
    }

    static Method method(Class<?> c, String name, int params) {
        return Arrays.stream(c.getMethods())
                .filter(m -> m.getName().equals(name) && m.getParameterCount() == params)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(c.getName() + " has no " + name + "/" + params));
    }

    /** The table's generated client on {@code conn}, dropped if it exists and created again. */
    static Object recreate(Connection conn, String table) throws Exception {
        Class<?> tableClass = Forms.nested(table, "Table");
        Object t = tableClass.getConstructor(Connection.class).newInstance(conn);
        if ((Boolean) tableClass.getMethod("exists").invoke(t)) {
            tableClass.getMethod("drop").invoke(t);
        }
        tableClass.getMethod("create").invoke(t);
        return t;
    }

    /** A generated {@code Values} with the plain fields of {@code values} (vector JSON forms). */
    static Object values(String table, JsonNode values) throws Exception {
        Map<String, Object> cols = columns(table);
        Class<?> valuesClass = Forms.nested(table, "Values");
        Object out = valuesClass.getConstructor().newInstance();
        for (Iterator<Map.Entry<String, JsonNode>> f = values.fields(); f.hasNext(); ) {
            Map.Entry<String, JsonNode> e = f.next();
            Column<?> c = (Column<?>) cols.get(e.getKey());
            method(valuesClass, Forms.lowerCamel(e.getKey()), 1).invoke(out, Forms.fromJson(c.type(), e.getValue()));
        }
        return out;
    }

    /** One put per cell, each at its explicit timestamp, in the listed order. */
    static void writeVersions(Connection conn) throws Exception {
        JsonNode versions = dataset().get("versions");
        for (Iterator<String> it = versions.fieldNames(); it.hasNext(); ) {
            String table = it.next();
            Object t = recreate(conn, table);
            Method put = method(t.getClass(), "put", 3);
            for (JsonNode e : versions.get(table)) {
                Object key = Vectors.newKey(table, e.get("key"));
                for (JsonNode c : e.get("cells")) {
                    ObjectNode one = NODES.objectNode();
                    one.set(e.get("field").textValue(), c.get("value"));
                    put.invoke(t, key, values(table, one), Long.parseLong(c.get("timestamp").textValue()));
                }
            }
        }
    }

    /** Each entry's field read with {@code versions(3)}: every version, newest first. */
    @SuppressWarnings("unchecked")
    static ObjectNode dumpVersions(Connection conn) throws Exception {
        ObjectNode out = NODES.objectNode();
        JsonNode versions = dataset().get("versions");
        TreeSet<String> names = new TreeSet<>();
        versions.fieldNames().forEachRemaining(names::add);
        for (String table : names) {
            Object t = Forms.nested(table, "Table").getConstructor(Connection.class).newInstance(conn);
            Map<String, Object> cols = columns(table);
            ArrayNode entries = out.putArray(table);
            for (JsonNode e : versions.get(table)) {
                Object key = Vectors.newKey(table, e.get("key"));
                String field = e.get("field").textValue();
                Column<?> col = (Column<?>) cols.get(field);
                Optional<Record> row = (Optional<Record>) t.getClass().getMethod("get", key.getClass(), GetOptions.class)
                        .invoke(t, key, GetOptions.DEFAULT.versions(3));
                ObjectNode o = entries.addObject();
                o.put("key_hex", Forms.hex((byte[]) key.getClass().getMethod("encode").invoke(key)));
                o.put("field", field);
                ArrayNode cells = o.putArray("cells");
                if (row.isPresent()) {
                    Object typed = row.get().getClass().getMethod("versions").invoke(row.get());
                    for (Version<?> v : (List<Version<?>>) method(typed.getClass(), Forms.lowerCamel(field), 0).invoke(typed)) {
                        ObjectNode c = cells.addObject();
                        c.put("timestamp", Long.toString(v.timestamp()));
                        c.set("value", Forms.toJson(col.type(), v.value()));
                    }
                }
            }
        }
        return out;
    }

    /** Per table exactly three batch calls: putMany, deleteMany, incrementMany. */
    static void writeBatch(Connection conn) throws Exception {
        JsonNode batches = dataset().get("batches");
        for (Iterator<String> it = batches.fieldNames(); it.hasNext(); ) {
            String table = it.next();
            JsonNode data = batches.get(table);
            Object t = recreate(conn, table);
            List<Map.Entry<Object, Object>> rows = new ArrayList<>();
            for (JsonNode r : data.get("rows")) {
                rows.add(Map.entry(Vectors.newKey(table, r.get("key")), values(table, r.get("values"))));
            }
            t.getClass().getMethod("putMany", Collection.class).invoke(t, rows);
            List<Object> deletes = new ArrayList<>();
            for (JsonNode k : data.get("deletes")) {
                deletes.add(Vectors.newKey(table, k));
            }
            t.getClass().getMethod("deleteMany", Collection.class).invoke(t, deletes);
            Class<?> incClass = Forms.nested(table, "Increments");
            List<Map.Entry<Object, Object>> incs = new ArrayList<>();
            for (JsonNode inc : data.get("increments")) {
                Object amounts = incClass.getConstructor().newInstance();
                for (Iterator<Map.Entry<String, JsonNode>> f = inc.get("counters").fields(); f.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = f.next();
                    incClass.getMethod(Forms.lowerCamel(e.getKey()), long.class)
                            .invoke(amounts, Long.parseLong(e.getValue().textValue()));
                }
                incs.add(Map.entry(Vectors.newKey(table, inc.get("key")), amounts));
            }
            t.getClass().getMethod("incrementMany", List.class).invoke(t, incs);
        }
    }

    @SuppressWarnings("unchecked")
    static void write(Connection conn) throws Exception {
        JsonNode tables = dataset().get("tables");
        for (Iterator<String> it = tables.fieldNames(); it.hasNext(); ) {
            String table = it.next();
            JsonNode data = tables.get(table);
            Class<?> tableClass = Forms.nested(table, "Table");
            Object t = tableClass.getConstructor(Connection.class).newInstance(conn);
            if ((Boolean) tableClass.getMethod("exists").invoke(t)) {
                tableClass.getMethod("drop").invoke(t);
            }
            tableClass.getMethod("create").invoke(t);
            Map<String, Object> cols = columns(table);
            Class<?> valuesClass = Forms.nested(table, "Values");
            for (JsonNode row : data.path("rows")) {
                Object values = valuesClass.getConstructor().newInstance();
                for (Iterator<Map.Entry<String, JsonNode>> f = row.get("values").fields(); f.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = f.next();
                    Object col = cols.get(e.getKey());
                    String accessor = Forms.lowerCamel(e.getKey());
                    if (col instanceof Column<?> c) {
                        method(valuesClass, accessor, 1).invoke(values, Forms.fromJson(c.type(), e.getValue()));
                    } else {
                        PatternColumn<?, ?> pc = (PatternColumn<?, ?>) col;
                        Map<Object, Object> map = (Map<Object, Object>) method(valuesClass, accessor, 0).invoke(values);
                        for (Iterator<Map.Entry<String, JsonNode>> p = e.getValue().fields(); p.hasNext(); ) {
                            Map.Entry<String, JsonNode> pe = p.next();
                            map.put(part(pc, pe.getKey()), Forms.fromJson(pc.type(), pe.getValue()));
                        }
                    }
                }
                method(tableClass, "put", 2).invoke(t, Vectors.newKey(table, row.get("key")), values);
            }
            for (JsonNode inc : data.path("increments")) {
                Object key = Vectors.newKey(table, inc.get("key"));
                String field = inc.get("field").textValue();
                long amount = Long.parseLong(inc.get("amount").textValue());
                String name = "increment" + Forms.upperCamel(field);
                if (inc.has("part")) {
                    Object part = part((PatternColumn<?, ?>) cols.get(field), inc.get("part").textValue());
                    method(tableClass, name, 3).invoke(t, key, part, amount);
                } else {
                    method(tableClass, name, 2).invoke(t, key, amount);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    static ObjectNode dump(Connection conn, String section) throws Exception {
        ObjectNode out = NODES.objectNode();
        TreeSet<String> names = new TreeSet<>();
        dataset().get(section).fieldNames().forEachRemaining(names::add);
        for (String table : names) {
            KeySpec spec = Forms.keySpec(table);
            List<KeySpec.Component> kept = spec.components().stream().filter(KeySpec.Component::kept).toList();
            Map<String, Object> cols = columns(table);
            Class<?> tableClass = Forms.nested(table, "Table");
            Object t = tableClass.getConstructor(Connection.class).newInstance(conn);
            ArrayNode rows = out.putArray(table);
            try (RowScanner<Record> scan = (RowScanner<Record>) method(tableClass, "scan", 0).invoke(t)) {
                for (Record r : scan) {
                    rows.add(row(r, kept, cols));
                }
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static ObjectNode row(Record r, List<KeySpec.Component> kept, Map<String, Object> cols) throws Exception {
        Class<?> rowClass = r.getClass();
        byte[] rowKey = (byte[]) rowClass.getMethod("rowKey").invoke(r);
        Record parts = (Record) rowClass.getMethod("key").invoke(r);
        Object values = rowClass.getMethod("values").invoke(r);
        RecordComponent[] rc = parts.getClass().getRecordComponents();
        ObjectNode o = NODES.objectNode();
        o.put("key_hex", Forms.hex(rowKey));
        Object salt = rc[0].getAccessor().invoke(parts);
        o.set("salt", salt == null ? NODES.nullNode() : NODES.numberNode((Integer) salt));
        Object hash = rc[1].getAccessor().invoke(parts);
        o.set("hash", hash == null ? NODES.nullNode()
                : NODES.textNode(hash instanceof byte[] b ? Forms.hex(b) : (String) hash));
        ObjectNode key = o.putObject("key");
        for (int i = 0; i < kept.size(); i++) {
            key.set(kept.get(i).name(), Forms.toJson(kept.get(i).type(), rc[2 + i].getAccessor().invoke(parts)));
        }
        ObjectNode vals = o.putObject("values");
        for (Map.Entry<String, Object> e : cols.entrySet()) {
            Object v = method(values.getClass(), Forms.lowerCamel(e.getKey()), 0).invoke(values);
            if (e.getValue() instanceof Column<?> c) {
                if (v != null) {
                    vals.set(e.getKey(), Forms.toJson(c.type(), v));
                }
            } else {
                PatternColumn<Object, ?> pc = (PatternColumn<Object, ?>) e.getValue();
                Map<Object, Object> map = (Map<Object, Object>) v;
                if (!map.isEmpty()) {
                    ObjectNode m = vals.putObject(e.getKey());
                    for (Map.Entry<Object, Object> pe : map.entrySet()) {
                        m.set(pc.partText(pe.getKey()), Forms.toJson(pc.type(), pe.getValue()));
                    }
                }
            }
        }
        return o;
    }

    public static void main(String[] args) throws Exception {
        List<String> commands = List.of("write", "dump", "write-versions", "dump-versions", "write-batch", "dump-batch");
        if (args.length != 3 || !commands.contains(args[0])) {
            System.err.println((args.length > 0 && !commands.contains(args[0]) ? "unknown command " + args[0] + "\n" : "")
                    + "usage: xlang " + String.join("|", commands) + " HOST PORT");
            System.exit(2);
        }
        try (Connection conn = Connection.open(args[1], Integer.parseInt(args[2]))) {
            ObjectNode out = switch (args[0]) {
                case "write" -> {
                    write(conn);
                    yield null;
                }
                case "write-versions" -> {
                    writeVersions(conn);
                    yield null;
                }
                case "write-batch" -> {
                    writeBatch(conn);
                    yield null;
                }
                case "dump" -> dump(conn, "tables");
                case "dump-versions" -> dumpVersions(conn);
                default -> dump(conn, "batches");
            };
            if (out != null) {
                ObjectMapper m = new ObjectMapper()
                        .enable(SerializationFeature.INDENT_OUTPUT)
                        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
                System.out.println(m.writeValueAsString(m.treeToValue(out, Object.class)));
            }
        }
    }

}
