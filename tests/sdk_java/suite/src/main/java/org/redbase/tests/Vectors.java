package org.redbase.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.redbase.sdk.Codec;
import org.redbase.sdk.Codecs;
import org.redbase.sdk.Column;
import org.redbase.sdk.Filter;
import org.redbase.sdk.KeyEncodingException;
import org.redbase.sdk.KeyRange;
import org.redbase.sdk.KeySpec;
import org.redbase.sdk.PatternColumn;
import org.redbase.sdk.RowOrder;

/**
 * The shared vectors (sdks/vectors/*.json, from the Rust reference) through the generated Java
 * code for the example schemas, byte for byte. {@code main} prints one line per file,
 * {@code VECTORS java <file> pass <n>} or {@code VECTORS java <file> FAIL <failed>/<n>}, and
 * exits 1 on any failure.
 */
public final class Vectors {
    private Vectors() {}

    /** One file's outcome: how many vectors ran, and a message per failure. */
    public record Result(String file, int total, List<String> failures) {
        public String summary() {
            return failures.isEmpty()
                    ? "VECTORS java " + file + " pass " + total
                    : "VECTORS java " + file + " FAIL " + failures.size() + "/" + total;
        }
    }

    @FunctionalInterface
    private interface Check {
        void run(JsonNode v) throws Exception;
    }

    private static void each(JsonNode list, String kind, Check check, int[] total, List<String> failures) {
        for (JsonNode v : list) {
            total[0]++;
            try {
                check.run(v);
            } catch (Exception | AssertionError e) {
                Throwable t = e instanceof InvocationTargetException ite ? ite.getCause() : e;
                failures.add(kind + " " + v + ": " + t);
            }
        }
    }

    static void expect(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    /** Runs one vector file ({@code keys.json}, {@code values.json}, {@code filters.json},
     *  {@code bounds.json} or {@code merge.json}) from {@code dir}. */
    public static Result run(File dir, String file) throws IOException {
        JsonNode doc = new ObjectMapper().readTree(new File(dir, file));
        int[] total = {0};
        List<String> failures = new ArrayList<>();
        if (file.equals("filters.json")) {
            each(doc.get("cases"), "filter", Vectors::filterCase, total, failures);
        } else if (file.equals("bounds.json")) {
            each(doc.get("cases"), "bounds", BoundsVectors::check, total, failures);
        } else if (file.equals("merge.json")) {
            each(doc.get("cases"), "merge", Vectors::merge, total, failures);
        } else if (file.equals("keys.json")) {
            each(doc.get("keys"), "key", Vectors::key, total, failures);
            each(doc.get("prefixes"), "prefix", Vectors::prefix, total, failures);
            each(doc.get("errors"), "error", Vectors::error, total, failures);
        } else {
            each(doc.get("values"), "value", Vectors::value, total, failures);
            each(doc.get("qualifiers"), "qualifier", Vectors::qualifier, total, failures);
        }
        return new Result(file, total[0], failures);
    }

    /** A generated {@code Key} record built from a vector's components (every one declared). */
    static Object newKey(String table, JsonNode given) throws ReflectiveOperationException {
        KeySpec spec = Forms.keySpec(table);
        Class<?> keyClass = Forms.nested(table, "Key");
        RecordComponent[] rc = keyClass.getRecordComponents();
        Object[] args = new Object[rc.length];
        Class<?>[] types = new Class<?>[rc.length];
        for (int i = 0; i < rc.length; i++) {
            KeySpec.Component c = spec.components().get(i);
            expect(rc[i].getName().equals(Forms.lowerCamel(c.name())), "record component " + rc[i].getName());
            args[i] = Forms.fromJson(c.type(), given.get(c.name()));
            types[i] = rc[i].getType();
        }
        Constructor<?> ctor = keyClass.getDeclaredConstructor(types);
        return ctor.newInstance(args);
    }

    private static void key(JsonNode v) throws Exception {
        String table = v.get("table").textValue();
        Object key = newKey(table, v.get("components"));
        byte[] raw = (byte[]) key.getClass().getMethod("encode").invoke(key);
        expect(Forms.hex(raw).equals(v.get("key_hex").textValue()), "encoded " + Forms.hex(raw));
        Object parts = key.getClass().getMethod("decode", byte[].class).invoke(null, raw);
        RecordComponent[] rc = parts.getClass().getRecordComponents();
        JsonNode want = v.get("decoded");
        Object salt = rc[0].getAccessor().invoke(parts);
        expect(want.get("salt").isNull() ? salt == null : Integer.valueOf(want.get("salt").intValue()).equals(salt), "salt " + salt);
        Object hash = rc[1].getAccessor().invoke(parts);
        Object hashForm = hash instanceof byte[] b ? Forms.hex(b) : hash;
        expect(want.get("hash").isNull() ? hash == null : want.get("hash").textValue().equals(hashForm), "hash " + hashForm);
        KeySpec spec = Forms.keySpec(table);
        List<KeySpec.Component> kept = spec.components().stream().filter(KeySpec.Component::kept).toList();
        expect(rc.length == 2 + kept.size() && want.get("components").size() == kept.size(), "kept components");
        for (int i = 0; i < kept.size(); i++) {
            KeySpec.Component c = kept.get(i);
            Object got = rc[2 + i].getAccessor().invoke(parts);
            expect(Forms.same(c.type(), got, Forms.fromJson(c.type(), want.get("components").get(c.name()))),
                    "decoded " + c.name() + " = " + got);
        }
        int region = KeySpec.regionIndex(Forms.splits(table), raw);
        expect(region == v.get("region").intValue(), "region " + region);
    }

    /** A merge.json case through {@link RowOrder#merge}, the order every scan picks its buckets'
     *  rows in, with the table's salt width. */
    private static void merge(JsonNode v) throws Exception {
        KeySpec spec = Forms.keySpec(v.get("table").textValue());
        expect(spec.saltWidth() == v.get("salt_width").intValue(), "salt width " + spec.saltWidth());
        List<List<byte[]>> buckets = new ArrayList<>();
        for (JsonNode b : v.get("buckets")) {
            List<byte[]> rows = new ArrayList<>();
            for (JsonNode h : b) {
                rows.add(Forms.unhex(h.textValue()));
            }
            buckets.add(rows);
        }
        int limit = v.get("limit").isNull() ? 0 : v.get("limit").intValue();
        List<String> got = RowOrder.merge(buckets, spec.saltWidth(), v.get("reversed").booleanValue(),
                v.get("bucket_order").booleanValue(), limit).stream().map(Forms::hex).toList();
        List<String> want = new ArrayList<>();
        v.get("rows").forEach(h -> want.add(h.textValue()));
        expect(got.equals(want), "rows " + got + ", want " + want);
    }

    private static void prefix(JsonNode v) throws Exception {
        String table = v.get("table").textValue();
        KeySpec spec = Forms.keySpec(table);
        JsonNode given = v.get("components");
        List<Object> args = new ArrayList<>();
        for (KeySpec.Component c : spec.components()) {
            if (given.has(c.name())) {
                args.add(Forms.fromJson(c.type(), given.get(c.name())));
            }
        }
        expect(args.size() == given.size(), "components are leading ones");
        Method m = Arrays.stream(Forms.nested(table, "Key").getMethods())
                .filter(x -> x.getName().equals("prefix") && x.getParameterCount() == args.size())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no prefix method with " + args.size() + " parameters"));
        boolean error = v.has("error") && v.get("error").booleanValue();
        KeyRange range;
        try {
            range = (KeyRange) m.invoke(null, args.toArray());
        } catch (InvocationTargetException e) {
            if (error && e.getCause() instanceof KeyEncodingException) {
                return;
            }
            throw e;
        }
        expect(!error, "a KeyEncodingException was expected");
        List<String> starts = range.ranges().stream().map(b -> Forms.hex(b.start())).toList();
        List<String> want = new ArrayList<>();
        v.get("prefixes_hex").forEach(p -> want.add(p.textValue()));
        expect(starts.equals(want), "prefixes " + starts);
    }

    private static void error(JsonNode v) throws Exception {
        Object key = newKey(v.get("table").textValue(), v.get("components"));
        try {
            key.getClass().getMethod("encode").invoke(key);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof KeyEncodingException refused) {
                // The error names the component the reference refused.
                JsonNode want = v.get("component");
                expect(want == null || refused.getMessage().contains("component " + want.textValue() + ":"),
                        "error " + refused.getMessage() + " does not name " + want);
                return;
            }
            throw e;
        }
        throw new AssertionError("encoding did not fail");
    }

    @SuppressWarnings("unchecked")
    private static void value(JsonNode v) {
        String type = v.get("type").textValue();
        Codec<Object> codec = (Codec<Object>) Codecs.byType(type);
        Object value = Forms.fromJson(type, v.get("value"));
        String hex = Forms.hex(codec.encode(value));
        expect(hex.equals(v.get("hex").textValue()), "encoded " + hex);
        Object back = codec.decode(java.util.HexFormat.of().parseHex(v.get("hex").textValue()));
        expect(Forms.same(type, back, value), "decoded " + back);
    }

    @SuppressWarnings("unchecked")
    private static void qualifier(JsonNode v) throws Exception {
        String table = v.get("table").textValue();
        String field = v.get("field").textValue();
        Object col = Forms.nested(table, "Columns").getField(field.toUpperCase()).get(null);
        PatternColumn<Object, ?> pc = (PatternColumn<Object, ?>) col;
        Object part = switch (pc.partType()) {
            case "string" -> v.get("part").textValue();
            case "i32" -> v.get("part").intValue();
            default -> v.get("part").longValue();
        };
        byte[] q = pc.qualifier(part);
        expect(Forms.hex(q).equals(v.get("qualifier_hex").textValue()), "qualifier " + Forms.hex(q));
        expect(part.equals(pc.parse(q)), "parsed back " + pc.parse(q));
    }

    /**
     * A vector filter {@code F} through the builder: value comparisons on the generated column
     * constants, key prefixes through the generated {@code Key.where()}, the rest through
     * {@link Filter}'s factories.
     */
    @SuppressWarnings("unchecked")
    static Filter filter(String table, JsonNode f) throws Exception {
        String kind = f.fieldNames().next();
        JsonNode arg = f.get(kind);
        switch (kind) {
            case "value" -> {
                String field = arg.get("column").textValue();
                Object col = Xlang.columns(table).get(field);
                if (!(col instanceof Column<?>)) {
                    // A PatternColumn has no comparison methods: Java's types refuse this.
                    throw new org.redbase.sdk.FilterException("column " + field
                            + " is a pattern column: value comparisons take plain columns only");
                }
                Column<Object> c = (Column<Object>) col;
                Filter.Op op = Filter.Op.valueOf(arg.get("op").textValue().toUpperCase());
                return c.compare(op, operand(c, arg.get("operand")));
            }
            case "prefix" -> {
                Object where = Forms.nested(table, "Key").getMethod("where").invoke(null);
                KeySpec spec = Forms.keySpec(table);
                for (KeySpec.Component c : spec.components()) {
                    if (arg.has(c.name()) && arg.get(c.name()).has("starts_with")) {
                        String field = Forms.lowerCamel(c.name()) + "StartsWith";
                        Method m = Arrays.stream(where.getClass().getMethods())
                                .filter(x -> x.getName().equals(field) && x.getParameterCount() == 1)
                                .findFirst().orElseThrow(() -> new KeyEncodingException("component " + c.name()
                                        + ": the generated Where has no " + field));
                        m.invoke(where, arg.get(c.name()).get("starts_with").textValue());
                    } else if (arg.has(c.name())) {
                        Object v = Forms.fromJson(c.type(), arg.get(c.name()));
                        Method m = Arrays.stream(where.getClass().getMethods())
                                .filter(x -> x.getName().equals(Forms.lowerCamel(c.name())) && x.getParameterCount() == 1)
                                .findFirst().orElseThrow();
                        m.invoke(where, v);
                    }
                }
                return (Filter) where.getClass().getMethod("filter").invoke(where);
            }
            case "page" -> {
                return Filter.page(arg.longValue());
            }
            case "key_only" -> {
                return Filter.keyOnly();
            }
            case "first_key_only" -> {
                return Filter.firstKeyOnly();
            }
            case "timestamps" -> {
                long[] ts = new long[arg.size()];
                for (int i = 0; i < ts.length; i++) {
                    ts[i] = arg.get(i).isTextual() ? Long.parseLong(arg.get(i).textValue()) : arg.get(i).longValue();
                }
                return Filter.timestamps(ts);
            }
            case "column_prefix" -> {
                return Filter.columnPrefix(java.util.HexFormat.of().parseHex(arg.textValue()));
            }
            case "all", "any" -> {
                List<Filter> parts = new ArrayList<>();
                for (JsonNode x : arg) {
                    parts.add(filter(table, x));
                }
                return kind.equals("all") ? Filter.allOf(parts) : Filter.anyOf(parts);
            }
            default -> throw new AssertionError("unknown filter kind " + kind);
        }
    }

    /**
     * A vector operand as the Java value of the column's type. An operand of another type is
     * what Java's static types refuse (a {@code Column<Long>} takes no String, an {@code int}
     * no 3000000000): the runner reports it as the column's error.
     */
    static Object operand(Column<?> c, JsonNode j) {
        boolean ok = switch (c.type()) {
            case "string" -> j.isTextual();
            case "bytes", "f32", "f64" -> j.isTextual() && j.textValue().matches("([0-9a-f]{2})*");
            case "i32" -> j.isIntegralNumber() && j.canConvertToInt();
            case "i64", "timestamp-ms", "counter" -> j.isTextual() && j.textValue().matches("-?[0-9]+");
            case "bool" -> j.isBoolean();
            default -> true;
        };
        if (!ok) {
            throw new org.redbase.sdk.ValueEncodingException("column " + c.field() + ": " + j + " is not a " + c.type() + " value");
        }
        return Forms.fromJson(c.type(), j);
    }

    private static void filterCase(JsonNode v) throws Exception {
        String table = v.get("table").textValue();
        Filter f;
        try {
            f = filter(table, v.get("filter"));
        } catch (InvocationTargetException e) {
            if (v.has("error") && e.getCause() instanceof IllegalArgumentException refused) {
                expect(refused.getMessage().contains(v.get("error").textValue()),
                        "error " + refused.getMessage() + " does not say " + v.get("error"));
                return;
            }
            throw e;
        } catch (IllegalArgumentException refused) {
            if (v.has("error")) {
                expect(refused.getMessage().contains(v.get("error").textValue()),
                        "error " + refused.getMessage() + " does not say " + v.get("error"));
                return;
            }
            throw refused;
        }
        expect(!v.has("error"), "an error saying " + v.get("error") + " was expected, got " + f);
        String hex = Forms.hex(f.render());
        expect(hex.equals(v.get("bytes").textValue()), "rendered " + f + " (" + hex + ")");
    }

    /** The vector files this runner knows, those present in {@code dir}. */
    public static List<String> files(File dir) {
        return List.of("keys.json", "values.json", "filters.json", "bounds.json", "merge.json").stream()
                .filter(f -> new File(dir, f).exists()).toList();
    }

    /** The vector directory: {@code -Dredbase.vectors=DIR}, else sdks/vectors from the repo root. */
    public static File vectorDir() {
        String given = System.getProperty("redbase.vectors");
        if (given != null) {
            return new File(given);
        }
        File d = new File(".").getAbsoluteFile();
        while (d != null && !new File(d, "sdks/vectors/keys.json").exists()) {
            d = d.getParentFile();
        }
        if (d == null) {
            throw new IllegalStateException("sdks/vectors not found above " + new File(".").getAbsolutePath());
        }
        return new File(d, "sdks/vectors");
    }

    public static void main(String[] args) throws IOException {
        File dir = args.length > 0 ? new File(args[0]) : vectorDir();
        boolean ok = true;
        for (String file : files(dir)) {
            Result r = run(dir, file);
            for (Iterator<String> it = r.failures().iterator(); it.hasNext(); ) {
                System.err.println("  " + it.next());
            }
            System.out.println(r.summary());
            ok &= r.failures().isEmpty();
        }
        System.exit(ok ? 0 : 1);
    }

}
