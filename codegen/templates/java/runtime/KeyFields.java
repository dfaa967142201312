package org.redbase.sdk;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import org.redbase.sdk.KeySpec.Component;

/**
 * One key component's bytes in the text layouts (separated, fixed) and in the order-preserving
 * binary layout, and back: docs/schema.md, "Text fields" and "Binary fields".
 */
final class KeyFields {
    private KeyFields() {}

    static final long I64_MAX = Long.MAX_VALUE;

    /** Refuses a value of the wrong Java type, outside its charset, or a negative reverse timestamp. */
    static void check(Component c, Object v) {
        boolean ok = switch (c.type()) {
            case "string" -> v instanceof String;
            case "bytes" -> v instanceof byte[];
            case "i32" -> v instanceof Integer;
            case "f32" -> v instanceof Float;
            case "f64" -> v instanceof Double;
            default -> v instanceof Long;
        };
        if (!ok) {
            String got = v == null ? "null" : v.getClass().getSimpleName();
            throw new KeyEncodingException("component " + c.name() + ": a " + got + " is not a " + c.type());
        }
        if (c.reverseTimestamp() && ((Number) v).longValue() < 0) {
            throw new KeyEncodingException("component " + c.name() + ": a reverse timestamp must be >= 0");
        }
        if (v instanceof String s && !c.charset().equals("any")) {
            s.codePoints().filter(cp -> !inCharset(c.charset(), cp)).findFirst().ifPresent(cp -> {
                throw new KeyEncodingException("component " + c.name() + ": '" + Character.toString(cp)
                        + "' is outside charset " + c.charset());
            });
        }
    }

    static boolean inCharset(String charset, int cp) {
        boolean digit = cp >= '0' && cp <= '9';
        boolean alpha = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
        return switch (charset) {
            case "alnum" -> digit || alpha;
            case "word" -> digit || alpha || cp == '_';
            case "hex" -> digit || (cp >= 'a' && cp <= 'f');
            case "digits" -> digit;
            default -> true;
        };
    }

    static String reversed(String how, String s) {
        if (how.equals("chars")) {
            return new StringBuilder(s).reverse().toString();
        }
        List<String> segments = new ArrayList<>(Arrays.asList(s.split("\\.", -1)));
        Collections.reverse(segments);
        return String.join(".", segments);
    }

    private static long stored(Component c, Object v) {
        long n = ((Number) v).longValue();
        return c.reverseTimestamp() ? I64_MAX - n : n;
    }

    /** The text-layout field; {@code sep} is the separator, or null in the fixed layout. */
    static byte[] text(Component c, Object v, String sep) {
        if (v instanceof String s0) {
            String s = c.reverse() != null ? reversed(c.reverse(), s0) : s0;
            if (sep != null) {
                if (c.escape()) {
                    StringBuilder b = new StringBuilder();
                    s.codePoints().forEach(cp -> {
                        String ch = Character.toString(cp);
                        if (ch.equals(sep) || ch.equals("\\")) {
                            b.append('\\');
                        }
                        b.append(ch);
                    });
                    s = b.toString();
                }
                return s.getBytes(StandardCharsets.UTF_8);
            }
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            int w = c.width() == null ? 0 : c.width();
            if (b.length > w || indexOf(b, (byte) 0) >= 0) {
                throw new KeyEncodingException("component " + c.name() + ": needs at most " + w
                        + " UTF-8 bytes and no 0x00");
            }
            return Arrays.copyOf(b, w);
        }
        if (v instanceof byte[] b) {
            if (sep != null) {
                return HexFormat.of().formatHex(b).getBytes(StandardCharsets.US_ASCII);
            }
            if (c.width() == null || b.length != c.width()) {
                throw new KeyEncodingException("component " + c.name() + ": needs exactly " + c.width()
                        + " bytes, got " + b.length);
            }
            return b.clone();
        }
        if (v instanceof Float || v instanceof Double) {
            throw new KeyEncodingException("component " + c.name() + ": floats need the binary layout");
        }
        long i = stored(c, v);
        if (c.width() == null) {
            return Long.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
        BigInteger limit = BigInteger.TEN.pow(c.width());
        BigInteger n = BigInteger.valueOf(i);
        if (n.signum() < 0 || n.compareTo(limit) >= 0) {
            throw new KeyEncodingException("component " + c.name() + ": " + i + " does not fit " + c.width()
                    + " zero-padded digits");
        }
        if (c.desc()) {
            n = limit.subtract(BigInteger.ONE).subtract(n);
        }
        String t = n.toString();
        t = "0".repeat(c.width() - t.length()) + t;
        if (c.reverse() != null) {
            t = reversed(c.reverse(), t);
        }
        return t.getBytes(StandardCharsets.US_ASCII);
    }

    /** The binary-layout field: escaped and terminated strings, sign-flipped numbers. */
    static byte[] binary(Component c, Object v) {
        byte[] out;
        if (v instanceof String s) {
            out = escaped((c.reverse() != null ? reversed(c.reverse(), s) : s).getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof byte[] b) {
            out = escaped(b);
        } else if (v instanceof Float f) {
            int bits = Float.isNaN(f) ? 0x7fc00000 : Float.floatToRawIntBits(f);
            bits = bits < 0 ? ~bits : bits ^ Integer.MIN_VALUE;
            out = ByteBuffer.allocate(4).putInt(bits).array();
        } else if (v instanceof Double d) {
            long bits = Double.isNaN(d) ? 0x7ff8000000000000L : Double.doubleToRawLongBits(d);
            bits = bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
            out = ByteBuffer.allocate(8).putLong(bits).array();
        } else if (c.type().equals("i32")) {
            out = ByteBuffer.allocate(4).putInt(((Integer) v) ^ Integer.MIN_VALUE).array();
        } else {
            out = ByteBuffer.allocate(8).putLong(stored(c, v) ^ Long.MIN_VALUE).array();
        }
        if (c.desc()) {
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) ~out[i];
            }
        }
        return out;
    }

    /**
     * The bytes that start the field of every string starting with {@code p} (a typed
     * starts-with): the field's encoding without what ends it. Escaping maps each character
     * (separated: the separator and {@code \\}) or byte (binary: 0x00) on its own, so encoding
     * {@code p} whole never cuts an escape in half. {@code sep} is null outside the separated
     * layout.
     */
    static byte[] stringPrefix(String layout, String sep, Component c, String p) {
        check(c, p);
        if (layout.equals("separated")) {
            return text(c, p, sep);
        }
        byte[] b = p.getBytes(StandardCharsets.UTF_8);
        if (layout.equals("fixed")) {
            int w = c.width() == null ? 0 : c.width();
            if (b.length > w || indexOf(b, (byte) 0) >= 0) {
                throw new KeyEncodingException("component " + c.name() + ": needs at most " + w
                        + " UTF-8 bytes and no 0x00");
            }
            return b;
        }
        byte[] e = escaped(b);
        byte[] out = Arrays.copyOf(e, e.length - 2);
        if (c.desc()) {
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) ~out[i];
            }
        }
        return out;
    }

    private static byte[] escaped(byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(b.length + 2);
        for (byte x : b) {
            out.write(x);
            if (x == 0) {
                out.write(0xff);
            }
        }
        out.write(0);
        out.write(0);
        return out.toByteArray();
    }

    static int indexOf(byte[] b, byte x) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == x) {
                return i;
            }
        }
        return -1;
    }

    private static long unreverseTimestamp(Component c, long stored) {
        if (stored < 0) {
            throw new KeyEncodingException("component " + c.name() + ": not a reverse timestamp");
        }
        return I64_MAX - stored;
    }

    /** A text-layout field back to its value ({@code sep} null in the fixed layout). */
    static Object decodeText(Component c, byte[] b, String sep) {
        if (c.type().equals("bytes")) {
            if (sep == null) {
                return b.clone();
            }
            try {
                return HexFormat.of().parseHex(new String(b, StandardCharsets.US_ASCII));
            } catch (IllegalArgumentException e) {
                throw new KeyEncodingException("component " + c.name() + ": not hex");
            }
        }
        String s;
        try {
            s = Codecs.fromUtf8(sep != null ? b : stripZeros(b));
        } catch (ValueEncodingException e) {
            throw new KeyEncodingException("component " + c.name() + ": not UTF-8");
        }
        if (c.type().equals("string")) {
            if (c.escape()) {
                StringBuilder out = new StringBuilder();
                for (int i = 0; i < s.length(); i++) {
                    if (s.charAt(i) == '\\') {
                        i++;
                        if (i == s.length()) {
                            throw new KeyEncodingException("component " + c.name() + ": dangling escape");
                        }
                    }
                    out.append(s.charAt(i));
                }
                s = out.toString();
            }
            return c.reverse() != null ? reversed(c.reverse(), s) : s;
        }
        if (c.reverse() != null) {
            s = reversed(c.reverse(), s);
        }
        String digits = s.startsWith("-") ? s.substring(1) : s;
        if (digits.isEmpty() || !digits.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            throw new KeyEncodingException("component " + c.name() + ": not a number");
        }
        if (c.width() != null && (s.length() != c.width() || s.startsWith("-"))) {
            throw new KeyEncodingException("component " + c.name() + ": not " + c.width() + " digits");
        }
        BigInteger n = new BigInteger(s);
        if (c.desc() && c.width() != null) {
            n = BigInteger.TEN.pow(c.width()).subtract(BigInteger.ONE).subtract(n);
        }
        if (n.bitLength() > 63) {
            throw new KeyEncodingException("component " + c.name() + ": out of " + c.type() + " range");
        }
        long v = c.reverseTimestamp() ? unreverseTimestamp(c, n.longValue()) : n.longValue();
        if (c.type().equals("i32")) {
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                throw new KeyEncodingException("component " + c.name() + ": out of i32 range");
            }
            return (int) v;
        }
        return v;
    }

    private static byte[] stripZeros(byte[] b) {
        int n = b.length;
        while (n > 0 && b[n - 1] == 0) {
            n--;
        }
        return Arrays.copyOf(b, n);
    }

    /** A binary field starting at {@code pos}: the value and the position after it. */
    static Object[] decodeBinary(Component c, byte[] key, int pos) {
        int mask = c.desc() ? 0xff : 0;
        if (c.type().equals("string") || c.type().equals("bytes")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int i = pos;
            while (true) {
                if (i >= key.length) {
                    throw new KeyEncodingException("key too short for component " + c.name());
                }
                int x = (key[i] & 0xff) ^ mask;
                if (x == 0) {
                    if (i + 1 >= key.length) {
                        throw new KeyEncodingException("key too short for component " + c.name());
                    }
                    int y = (key[i + 1] & 0xff) ^ mask;
                    if (y == 0) {
                        break;
                    }
                    if (y != 0xff) {
                        throw new KeyEncodingException("bad escape in component " + c.name());
                    }
                    out.write(0);
                    i += 2;
                } else {
                    out.write(x);
                    i++;
                }
            }
            byte[] raw = out.toByteArray();
            if (c.type().equals("bytes")) {
                return new Object[] {raw, i + 2};
            }
            String s;
            try {
                s = Codecs.fromUtf8(raw);
            } catch (ValueEncodingException e) {
                throw new KeyEncodingException("component " + c.name() + " is not UTF-8");
            }
            return new Object[] {c.reverse() != null ? reversed(c.reverse(), s) : s, i + 2};
        }
        int n = c.type().equals("i32") || c.type().equals("f32") ? 4 : 8;
        if (pos + n > key.length) {
            throw new KeyEncodingException("key too short for component " + c.name());
        }
        byte[] chunk = Arrays.copyOfRange(key, pos, pos + n);
        for (int i = 0; i < n; i++) {
            chunk[i] = (byte) (chunk[i] ^ mask);
        }
        ByteBuffer buf = ByteBuffer.wrap(chunk);
        Object value = switch (c.type()) {
            case "i32" -> buf.getInt() ^ Integer.MIN_VALUE;
            case "f32" -> {
                int u = buf.getInt();
                yield Float.intBitsToFloat(u < 0 ? u ^ Integer.MIN_VALUE : ~u);
            }
            case "f64" -> {
                long u = buf.getLong();
                yield Double.longBitsToDouble(u < 0 ? u ^ Long.MIN_VALUE : ~u);
            }
            default -> {
                long i = buf.getLong() ^ Long.MIN_VALUE;
                yield c.reverseTimestamp() ? unreverseTimestamp(c, i) : i;
            }
        };
        return new Object[] {value, pos + n};
    }
}
