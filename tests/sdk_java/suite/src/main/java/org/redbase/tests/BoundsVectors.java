package org.redbase.tests;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.redbase.sdk.KeyEncodingException;
import org.redbase.sdk.KeyRange;
import org.redbase.sdk.KeySpec;

/**
 * One case of sdks/vectors/bounds.json through the generated {@code Key.where()} builder:
 * each given component by value ({@code x(v)}), as a range ({@code xBetween(low, high)}) or as
 * a starts-with ({@code xStartsWith(prefix)}), then {@code range()}; the start/stop pairs must equal the vector's bytes, or the refusal's
 * message must contain the vector's {@code error}. Cases by value only also go through
 * {@code Key.prefix(...)}, which must give the same pairs.
 */
final class BoundsVectors {
    private BoundsVectors() {}

    static void check(JsonNode v) throws Exception {
        String table = v.get("table").textValue();
        KeySpec spec = Forms.keySpec(table);
        Object where = Forms.nested(table, "Key").getMethod("where").invoke(null);
        String error = v.has("error") && !v.get("error").isNull() ? v.get("error").textValue() : null;
        List<Object> byValue = new ArrayList<>();
        boolean ranged = false;
        KeyRange got;
        try {
            for (JsonNode g : v.get("given")) {
                String name = g.get(0).textValue();
                JsonNode value = g.get(1);
                KeySpec.Component c = spec.components().stream().filter(x -> x.name().equals(name)).findFirst()
                        .orElseThrow(() -> new AssertionError("no component " + name));
                String field = Forms.lowerCamel(name);
                if (value.isObject() && value.has("low") && value.has("high")) {
                    ranged = true;
                    Optional<Method> m = method(where, field + "Between", 2);
                    if (m.isEmpty()) {
                        // Not generated (a hashed component): Java's types refuse the range.
                        throw new KeyEncodingException("component " + name + " is hashed in the " + table
                                + " key: the generated Where has no " + field + "Between");
                    }
                    m.get().invoke(where, Forms.fromJson(c.type(), value.get("low")), Forms.fromJson(c.type(), value.get("high")));
                } else if (value.isObject() && value.has("starts_with")) {
                    ranged = true;
                    Optional<Method> m = method(where, field + "StartsWith", 1);
                    if (m.isEmpty()) {
                        // Not generated (not a string, or hashed): Java's types refuse it.
                        throw new KeyEncodingException("component " + name + " of the " + table
                                + " key: the generated Where has no " + field + "StartsWith");
                    }
                    m.get().invoke(where, value.get("starts_with").textValue());
                } else {
                    Object x = Forms.fromJson(c.type(), value);
                    byValue.add(x);
                    method(where, field, 1).orElseThrow(() -> new AssertionError("no method " + field)).invoke(where, x);
                }
            }
            got = (KeyRange) where.getClass().getMethod("range").invoke(where);
        } catch (InvocationTargetException e) {
            if (error != null && e.getCause() instanceof KeyEncodingException refused) {
                Vectors.expect(refused.getMessage().contains(error),
                        "error " + refused.getMessage() + " does not say " + error);
                return;
            }
            throw e;
        } catch (KeyEncodingException refused) {
            if (error != null) {
                Vectors.expect(refused.getMessage().contains(error),
                        "error " + refused.getMessage() + " does not say " + error);
                return;
            }
            throw refused;
        }
        Vectors.expect(error == null, "an error saying " + error + " was expected, got " + show(got));
        List<List<String>> want = new ArrayList<>();
        for (JsonNode r : v.get("ranges")) {
            want.add(Arrays.asList(r.get(0).textValue(), r.get(1).isNull() ? null : r.get(1).textValue()));
        }
        Vectors.expect(show(got).equals(want), "where(): ranges " + show(got));
        if (!ranged) {
            int n = byValue.size();
            Method prefix = Arrays.stream(Forms.nested(table, "Key").getMethods())
                    .filter(x -> x.getName().equals("prefix") && x.getParameterCount() == n)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no prefix method with " + n + " parameters"));
            KeyRange same = (KeyRange) prefix.invoke(null, byValue.toArray());
            Vectors.expect(show(same).equals(want), "Key.prefix: ranges " + show(same));
        }
    }

    private static Optional<Method> method(Object where, String name, int params) {
        return Arrays.stream(where.getClass().getMethods())
                .filter(m -> m.getName().equals(name) && m.getParameterCount() == params)
                .findFirst();
    }

    private static List<List<String>> show(KeyRange r) {
        List<List<String>> out = new ArrayList<>();
        for (KeyRange.Bounds b : r.ranges()) {
            out.add(Arrays.asList(Forms.hex(b.start()), b.stop() == null ? null : Forms.hex(b.stop())));
        }
        return out;
    }
}
