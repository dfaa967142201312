package org.redbase.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.redbase.sdk.KeySpec;

/**
 * The vector JSON forms of docs/schema.md ("Test vectors") as Java values and back, and the
 * names the generator gives a table's classes and fields, so the vector runner and the xlang
 * tool can reach the generated code of any example table by its schema id.
 */
final class Forms {
    private Forms() {}

    static final String PACKAGE = "redbase_examples";
    private static final HexFormat HEX = HexFormat.of();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    static String upperCamel(String snake) {
        StringBuilder out = new StringBuilder();
        for (String part : snake.split("_")) {
            if (!part.isEmpty()) {
                out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
            }
        }
        return out.toString();
    }

    static String lowerCamel(String snake) {
        String u = upperCamel(snake);
        return Character.toLowerCase(u.charAt(0)) + u.substring(1);
    }

    /** {@code redbase_examples.AccessLogs$Key} for ({@code access_logs}, {@code Key}). */
    static Class<?> nested(String table, String name) throws ClassNotFoundException {
        return Class.forName(PACKAGE + "." + upperCamel(table) + (name.isEmpty() ? "" : "$" + name));
    }

    static Object constant(String table, String name) throws ReflectiveOperationException {
        Field f = nested(table, "").getField(name);
        return f.get(null);
    }

    static KeySpec keySpec(String table) throws ReflectiveOperationException {
        return (KeySpec) constant(table, "KEY");
    }

    @SuppressWarnings("unchecked")
    static List<byte[]> splits(String table) throws ReflectiveOperationException {
        return (List<byte[]>) constant(table, "SPLITS");
    }

    /** A vector JSON value as the Java value of schema type {@code type}. */
    static Object fromJson(String type, JsonNode j) {
        return switch (type) {
            case "string" -> j.textValue();
            case "bytes" -> HEX.parseHex(j.textValue());
            case "i32" -> j.intValue();
            case "i64", "timestamp-ms", "counter" -> Long.parseLong(j.textValue());
            case "f32" -> Float.intBitsToFloat(ByteBuffer.wrap(HEX.parseHex(j.textValue())).getInt());
            case "f64" -> Double.longBitsToDouble(ByteBuffer.wrap(HEX.parseHex(j.textValue())).getLong());
            case "bool" -> j.booleanValue();
            case "json" -> j;
            default -> throw new IllegalArgumentException("unknown type " + type);
        };
    }

    /** A Java value of schema type {@code type} in its vector JSON form. */
    static JsonNode toJson(String type, Object v) {
        return switch (type) {
            case "string" -> NODES.textNode((String) v);
            case "bytes" -> NODES.textNode(HEX.formatHex((byte[]) v));
            case "i32" -> NODES.numberNode((Integer) v);
            case "i64", "timestamp-ms", "counter" -> NODES.textNode(Long.toString((Long) v));
            case "f32" -> NODES.textNode(HEX.formatHex(ByteBuffer.allocate(4).putInt(Float.floatToRawIntBits((Float) v)).array()));
            case "f64" -> NODES.textNode(HEX.formatHex(ByteBuffer.allocate(8).putLong(Double.doubleToRawLongBits((Double) v)).array()));
            case "bool" -> NODES.booleanNode((Boolean) v);
            case "json" -> (JsonNode) v;
            default -> throw new IllegalArgumentException("unknown type " + type);
        };
    }

    /** Equal as the vectors mean it: floats by their bits (any NaN equals any NaN). */
    static boolean same(String type, Object a, Object b) {
        if (a instanceof Float x && b instanceof Float y) {
            return Float.floatToRawIntBits(x) == Float.floatToRawIntBits(y) || (x.isNaN() && y.isNaN());
        }
        if (a instanceof Double x && b instanceof Double y) {
            return Double.doubleToRawLongBits(x) == Double.doubleToRawLongBits(y) || (x.isNaN() && y.isNaN());
        }
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return Arrays.equals(x, y);
        }
        return a != null && a.equals(b);
    }

    static String hex(byte[] b) {
        return HEX.formatHex(b);
    }

    static byte[] unhex(String h) {
        return HEX.parseHex(h);
    }
}
