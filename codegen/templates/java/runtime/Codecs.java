package org.redbase.sdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Cell value encodings, identical to Java HBase's {@code Bytes} (docs/schema.md, "Value
 * encodings"): big-endian integers and IEEE-754 bits, 0xFF/0x00 booleans, UTF-8 strings. JSON
 * is compact UTF-8 with object keys sorted, so every SDK writes the same bytes.
 */
public final class Codecs {
    private Codecs() {}

    /** The Jackson mapper JSON cells are parsed with (one value, nothing after it). */
    public static final ObjectMapper JSON_MAPPER =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    public static final Codec<String> STRING = codec(Codecs::utf8, Codecs::fromUtf8);
    public static final Codec<byte[]> BYTES = codec(v -> v.clone(), b -> b.clone());
    public static final Codec<Integer> I32 =
            codec(v -> ByteBuffer.allocate(4).putInt(v).array(), b -> ByteBuffer.wrap(width(b, 4, "i32")).getInt());
    public static final Codec<Long> I64 =
            codec(v -> ByteBuffer.allocate(8).putLong(v).array(), b -> ByteBuffer.wrap(width(b, 8, "i64")).getLong());
    public static final Codec<Float> F32 = codec(
            v -> ByteBuffer.allocate(4).putInt(Float.floatToRawIntBits(v)).array(),
            b -> Float.intBitsToFloat(ByteBuffer.wrap(width(b, 4, "f32")).getInt()));
    public static final Codec<Double> F64 = codec(
            v -> ByteBuffer.allocate(8).putLong(Double.doubleToRawLongBits(v)).array(),
            b -> Double.longBitsToDouble(ByteBuffer.wrap(width(b, 8, "f64")).getLong()));
    public static final Codec<Boolean> BOOL =
            codec(v -> new byte[] {v ? (byte) 0xff : 0}, b -> width(b, 1, "bool")[0] != 0);
    public static final Codec<JsonNode> JSON = codec(Codecs::jsonBytes, Codecs::parseJson);
    /** Milliseconds since the epoch, as a long. */
    public static final Codec<Long> TIMESTAMP_MS = I64;
    /** What HBase increments: an 8-byte long. */
    public static final Codec<Long> COUNTER = I64;

    /** The codec of a schema type name ({@code "timestamp-ms"}, ...). */
    public static Codec<?> byType(String type) {
        return switch (type) {
            case "string" -> STRING;
            case "bytes" -> BYTES;
            case "i32" -> I32;
            case "i64" -> I64;
            case "f32" -> F32;
            case "f64" -> F64;
            case "bool" -> BOOL;
            case "json" -> JSON;
            case "timestamp-ms" -> TIMESTAMP_MS;
            case "counter" -> COUNTER;
            default -> throw new IllegalArgumentException("unknown value type " + type);
        };
    }

    private interface Enc<T> {
        byte[] encode(T value);
    }

    private interface Dec<T> {
        T decode(byte[] raw);
    }

    private static <T> Codec<T> codec(Enc<T> enc, Dec<T> dec) {
        return new Codec<>() {
            @Override
            public byte[] encode(T value) {
                if (value == null) {
                    throw new ValueEncodingException("null has no encoding");
                }
                return enc.encode(value);
            }

            @Override
            public T decode(byte[] raw) {
                return dec.decode(raw);
            }
        };
    }

    private static byte[] width(byte[] b, int n, String what) {
        if (b.length != n) {
            throw new ValueEncodingException(what + " values are " + n + " bytes, got " + b.length);
        }
        return b;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Strict UTF-8: malformed bytes are an error, not replacement characters. */
    static String fromUtf8(byte[] b) {
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new ValueEncodingException("not UTF-8: " + e.getMessage());
        }
    }

    private static JsonNode parseJson(byte[] raw) {
        try {
            JsonNode node = JSON_MAPPER.readTree(fromUtf8(raw));
            if (node == null || node.isMissingNode()) {
                throw new ValueEncodingException("not JSON: empty");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new ValueEncodingException("not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ValueEncodingException("not JSON: " + e.getMessage());
        }
    }

    private static byte[] jsonBytes(JsonNode node) {
        StringBuilder out = new StringBuilder();
        writeJson(node, out);
        return utf8(out.toString());
    }

    /** Compact JSON, object keys in code-point order, non-ASCII unescaped (docs/schema.md). */
    private static void writeJson(JsonNode node, StringBuilder out) {
        if (node.isObject()) {
            List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
            node.fields().forEachRemaining(fields::add);
            fields.sort((a, b) -> compareCodePoints(a.getKey(), b.getKey()));
            out.append('{');
            for (int i = 0; i < fields.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                writeString(fields.get(i).getKey(), out);
                out.append(':');
                writeJson(fields.get(i).getValue(), out);
            }
            out.append('}');
        } else if (node.isArray()) {
            out.append('[');
            Iterator<JsonNode> it = node.elements();
            for (boolean first = true; it.hasNext(); first = false) {
                if (!first) {
                    out.append(',');
                }
                writeJson(it.next(), out);
            }
            out.append(']');
        } else if (node.isTextual()) {
            writeString(node.textValue(), out);
        } else if (node.isIntegralNumber()) {
            out.append(node.bigIntegerValue());
        } else if (node.isNumber()) {
            out.append(formatDouble(node.doubleValue()));
        } else if (node.isBoolean()) {
            out.append(node.booleanValue());
        } else if (node.isNull()) {
            out.append("null");
        } else {
            throw new ValueEncodingException("not JSON: a " + node.getNodeType() + " node");
        }
    }

    private static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** Shortest round-trip digits, laid out as the Rust reference (serde_json) does. */
    private static String formatDouble(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new ValueEncodingException("not JSON: " + d + " has no JSON form");
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0.0" : "0.0";
        }
        BigDecimal v = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
        String digits = v.unscaledValue().toString();
        int point = digits.length() - v.scale();
        String body;
        if (point >= digits.length() && point <= 16) {
            body = digits + "0".repeat(point - digits.length()) + ".0";
        } else if (point > 0 && point <= 16) {
            body = digits.substring(0, point) + "." + digits.substring(point);
        } else if (point > -5 && point <= 0) {
            body = "0." + "0".repeat(-point) + digits;
        } else {
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            body = mantissa + "e" + (point - 1);
        }
        return d < 0 ? "-" + body : body;
    }
}
