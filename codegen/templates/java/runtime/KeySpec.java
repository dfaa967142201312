package org.redbase.sdk;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One table's row-key design, generated from its schema: {@code [salt][hash][components]},
 * byte for byte as docs/schema.md ("Row-key encodings") defines it and every redbase SDK
 * produces it. Values are {@code String}, {@code byte[]}, {@code Integer} (i32), {@code Long}
 * (i64, timestamp-ms), {@code Float} or {@code Double}.
 */
public final class KeySpec {
    /** A key component as the schema declares it. */
    public record Component(
            String name,
            String type,
            Integer width,
            String charset,
            boolean escape,
            boolean desc,
            String reverse,
            boolean reverseTimestamp,
            boolean allowEmpty,
            boolean kept) {}

    /** An MD5 prefix of the components at {@code components}: hex characters or raw bytes. */
    public record Hash(List<Integer> components, String form, int n, boolean keep) {}

    /** A salt of {@code buckets} buckets: one byte, or one character of {@code alphabet}. */
    public record Salt(int buckets, String form, String alphabet) {}

    /** What a key's bytes hold: salt bucket (or null), hash prefix (String for hex
     *  characters, byte[] for bytes, or null) and the kept components by name. */
    public record Decoded(Integer salt, Object hash, Map<String, Object> components) {}

    private final String table;
    private final String layout;
    private final String separator;
    private final List<Component> components;
    private final Hash hash;
    private final Salt salt;

    /** {@code table} is the table id, so errors name the key they refuse a value for. */
    public KeySpec(String table, String layout, String separator, List<Component> components, Hash hash, Salt salt) {
        this.table = table;
        this.layout = layout;
        this.separator = separator == null ? "" : separator;
        this.components = List.copyOf(components);
        this.hash = hash;
        this.salt = salt;
    }

    public List<Component> components() {
        return components;
    }

    /** The number of salt buckets (1 when unsalted): how many scans a full scan fans out to. */
    public int buckets() {
        return salt == null ? 1 : salt.buckets();
    }

    private byte[] sep() {
        return separator.getBytes(StandardCharsets.US_ASCII);
    }

    /** One component's bytes in this layout. */
    public byte[] field(Component c, Object v) {
        boolean empty = (v instanceof String s && s.isEmpty()) || (v instanceof byte[] b && b.length == 0);
        if (empty && !c.allowEmpty()) {
            // An empty field is almost always a forgotten one, and a key like d41d8||201501
            // would silently stand for it: refused in the words of every redbase SDK.
            throw new KeyEncodingException("component " + c.name() + ": must not be empty in the " + table
                    + " key (the schema does not set allow_empty)");
        }
        KeyFields.check(c, v);
        return switch (layout) {
            case "binary" -> KeyFields.binary(c, v);
            case "separated" -> KeyFields.text(c, v, separator);
            default -> KeyFields.text(c, v, null);
        };
    }

    private byte[] join(List<byte[]> parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) {
                out.writeBytes(sep());
            }
            out.writeBytes(parts.get(i));
        }
        return out.toByteArray();
    }

    static byte[] md5(byte[] input) {
        try {
            return MessageDigest.getInstance("MD5").digest(input);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no MD5", e);
        }
    }

    private byte[] body(List<Object> leading) {
        List<byte[]> fields = new ArrayList<>();
        for (int i = 0; i < leading.size(); i++) {
            fields.add(field(components.get(i), leading.get(i)));
        }
        List<byte[]> parts = new ArrayList<>();
        if (hash != null) {
            List<byte[]> hashed = new ArrayList<>();
            for (int i : hash.components()) {
                if (i >= fields.size()) {
                    throw new KeyEncodingException("component " + components.get(i).name()
                            + ": must be given (the hash prefix is computed from it)");
                }
                hashed.add(fields.get(i));
            }
            byte[] digest = md5(join(hashed));
            parts.add(hash.form().equals("hex_chars")
                    ? HexFormat.of().formatHex(digest).substring(0, hash.n()).getBytes(StandardCharsets.US_ASCII)
                    : Arrays.copyOf(digest, hash.n()));
        }
        for (int i = 0; i < fields.size(); i++) {
            if (components.get(i).kept()) {
                parts.add(fields.get(i));
            }
        }
        byte[] out = join(parts);
        boolean more = components.subList(fields.size(), components.size()).stream().anyMatch(Component::kept);
        if (more && !parts.isEmpty()) {
            out = concat(out, sep());
        }
        return out;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * How many bytes the salt takes at the start of every key (0 unsalted): a salted scan
     * merges its buckets by the key after them.
     */
    public int saltWidth() {
        return salt == null ? 0 : saltField(0).length;
    }

    /** The salt as it starts a key: its byte or character, then the separator if any. */
    public byte[] saltField(int bucket) {
        if (salt == null) {
            return new byte[0];
        }
        byte head = salt.form().equals("byte") ? (byte) bucket : (byte) salt.alphabet().charAt(bucket);
        return concat(new byte[] {head}, sep());
    }

    /** The row key for one value per component, in declaration order. */
    public byte[] encode(Object... values) {
        if (values.length != components.size()) {
            throw new KeyEncodingException(components.size() + " components expected, got " + values.length);
        }
        byte[] body = body(Arrays.asList(values));
        return salt == null ? body : concat(saltField(saltBucket(body, salt.buckets())), body);
    }

    /** Prefixes of the keys whose leading components equal {@code leading}: one per bucket. */
    public List<byte[]> prefixes(List<Object> leading) {
        if (leading.size() > components.size()) {
            throw new KeyEncodingException("more values than components");
        }
        byte[] body = leading.isEmpty() ? new byte[0] : body(leading);
        if (salt == null) {
            return List.of(body);
        }
        List<byte[]> out = new ArrayList<>();
        for (int b = 0; b < salt.buckets(); b++) {
            out.add(concat(saltField(b), body));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * The rows whose leading components equal {@code equal} (by name) and, if {@code rangeName}
     * is not null, whose next component lies in {@code [low, high]} (both inclusive): one range
     * per bucket. Errors name the component that is missing or misplaced, and refuse a range
     * over a component whose key bytes do not sort by value.
     */
    public KeyRange bounds(Map<String, Object> equal, String rangeName, Object low, Object high) {
        int lastEq = -1;
        for (String n : equal.keySet()) {
            lastEq = Math.max(lastEq, index(n));
        }
        int leading = 0;
        while (leading < components.size() && equal.containsKey(components.get(leading).name())) {
            leading++;
        }
        int rangeAt = rangeName == null ? -1 : index(rangeName);
        if (rangeAt >= 0 && rangeAt < leading) {
            throw new KeyEncodingException("component " + rangeName + ": given both by value and as a range");
        }
        int needed = rangeAt >= 0 ? rangeAt - 1 : lastEq;
        if (needed >= leading) {
            Component missing = components.get(leading);
            String why = hash != null && hash.components().contains(leading)
                    ? "must be given (the hash prefix is computed from it)"
                    : rangeAt >= 0 ? "must be given before the range over " + rangeName
                    : "must be given: " + components.get(lastEq).name() + " comes after it in the key";
            throw new KeyEncodingException("component " + missing.name() + ": " + why);
        }
        if (rangeAt >= 0 && lastEq > rangeAt) {
            throw new KeyEncodingException("component " + components.get(lastEq).name()
                    + ": cannot follow the range over " + rangeName);
        }
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < leading; i++) {
            values.add(equal.get(components.get(i).name()));
        }
        if (rangeAt < 0) {
            return prefixRanges(values);
        }
        checkOrdered(rangeAt);
        if (low == null || high == null) {
            throw new KeyEncodingException("component " + rangeName + ": a range needs both ends");
        }
        if (compare(low, high) > 0) {
            throw new KeyEncodingException("component " + rangeName + ": the range's low " + show(low)
                    + " is above its high " + show(high));
        }
        boolean whole = endsAfter(rangeAt + 1);
        List<Object> lo = new ArrayList<>(values);
        lo.add(low);
        List<Object> hi = new ArrayList<>(values);
        hi.add(high);
        List<byte[]> los = prefixes(lo);
        List<byte[]> his = prefixes(hi);
        List<KeyRange.Bounds> out = new ArrayList<>();
        for (int b = 0; b < los.size(); b++) {
            // A descending (or reverse-timestamp) component writes low above high: the bounds
            // are the outer two.
            byte[] a = los.get(b);
            byte[] z = his.get(b);
            if (Arrays.compareUnsigned(a, z) > 0) {
                byte[] t = a;
                a = z;
                z = t;
            }
            // The key's last component stops right after the high key itself (a longer value
            // is a greater one); an inner one after every key under the high value's prefix,
            // which ends with a separator or terminator or has a fixed width.
            out.add(new KeyRange.Bounds(a, whole ? concat(z, new byte[] {0}) : KeyRange.nextPrefix(z)));
        }
        return new KeyRange(out);
    }

    /**
     * The rows whose leading components equal {@code equal} (by name) and whose string
     * component {@code name}, the next one, starts with {@code prefix}: the leading prefix, then
     * the bytes every field of such a string starts with, up to their next prefix; one range per
     * bucket. Refused, naming the component: a missing or later component, a component that is
     * not a string, hashed or reversed ({@link #checkStartsWith}).
     */
    public KeyRange startsWith(Map<String, Object> equal, String name, String prefix) {
        int at = index(name);
        int lastEq = -1;
        for (String n : equal.keySet()) {
            lastEq = Math.max(lastEq, index(n));
        }
        int leading = 0;
        while (leading < components.size() && equal.containsKey(components.get(leading).name())) {
            leading++;
        }
        if (at < leading) {
            throw new KeyEncodingException("component " + name + ": given both by value and as a starts-with");
        }
        if (at > leading) {
            Component missing = components.get(leading);
            String why = hash != null && hash.components().contains(leading)
                    ? "must be given (the hash prefix is computed from it)"
                    : "must be given before the starts-with over " + name;
            throw new KeyEncodingException("component " + missing.name() + ": " + why);
        }
        if (lastEq > at) {
            throw new KeyEncodingException("component " + components.get(lastEq).name()
                    + ": cannot follow the starts-with over " + name + " (only the last component given may be one)");
        }
        checkStartsWith(at);
        if (hash != null) {
            for (int h : hash.components()) {
                if (h >= leading) {
                    throw new KeyEncodingException("component " + components.get(h).name() + ": must be given: the "
                            + table + " key's hash prefix is computed from it");
                }
            }
        }
        if (prefix == null) {
            throw new KeyEncodingException("component " + name + ": a starts-with takes a string, not null");
        }
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < leading; i++) {
            values.add(equal.get(components.get(i).name()));
        }
        byte[] tail = KeyFields.stringPrefix(layout, layout.equals("separated") ? separator : null, components.get(at), prefix);
        List<KeyRange.Bounds> out = new ArrayList<>();
        for (byte[] head : prefixes(values)) {
            byte[] start = concat(head, tail);
            out.add(new KeyRange.Bounds(start, KeyRange.nextPrefix(start)));
        }
        return new KeyRange(out);
    }

    /**
     * Refuses a starts-with on component {@code at} unless its stored bytes start with the
     * bytes of every prefix of its value: a string, neither hashed nor reversed.
     */
    public void checkStartsWith(int at) {
        Component c = components.get(at);
        String key = "the " + table + " key";
        if (!c.type().equals("string")) {
            throw new KeyEncodingException("component " + c.name() + ": a starts-with applies to string components, and "
                    + key + " has it as " + c.type());
        }
        if (hash != null && hash.components().contains(at)) {
            throw new KeyEncodingException("component " + c.name() + " is hashed in " + key
                    + ": its hash is computed from the whole value, so it takes one value, not a starts-with");
        }
        if (c.reverse() != null) {
            throw new KeyEncodingException("component " + c.name() + ": " + key + " stores it reversed (" + c.reverse()
                    + "), so values starting alike do not share a key prefix: give it one value, not a starts-with");
        }
    }

    /** Whether a key holding the first {@code n} components ends there (no kept component follows). */
    public boolean endsAfter(int n) {
        return components.subList(Math.min(n, components.size()), components.size()).stream()
                .noneMatch(Component::kept);
    }

    /**
     * The rows whose leading components equal {@code leading}, one range per bucket. When they
     * make a whole key the stop is that key plus 0x00: in a separated key {@code ...|k} is a
     * byte prefix of {@code ...|k0}, another value.
     */
    public KeyRange prefixRanges(List<Object> leading) {
        boolean whole = !leading.isEmpty() && endsAfter(leading.size());
        List<KeyRange.Bounds> out = new ArrayList<>();
        for (byte[] p : prefixes(leading)) {
            out.add(new KeyRange.Bounds(p, whole ? concat(p, new byte[] {0}) : KeyRange.nextPrefix(p)));
        }
        return new KeyRange(out);
    }

    /**
     * Refuses a range over component {@code at} where the key's byte order is not its value
     * order: start and stop rows could then only select the wrong rows.
     */
    public void checkOrdered(int at) {
        Component c = components.get(at);
        String key = "the " + table + " key";
        if (hash != null && hash.components().contains(at)) {
            throw new KeyEncodingException("component " + c.name() + " is hashed in " + key
                    + ": rows are not in its order, so it takes one value, not a range");
        }
        if (c.reverse() != null) {
            throw new KeyEncodingException("component " + c.name() + ": " + key + " stores it reversed ("
                    + c.reverse() + "), so rows are not in its value order: give it one value, not a range");
        }
        if (!layout.equals("separated")) {
            return;
        }
        boolean text = c.type().equals("string") || c.type().equals("bytes");
        if (text && !endsAfter(at + 1)) {
            throw new KeyEncodingException("component " + c.name() + ": " + key + " is separated and more"
                    + " components follow it, so rows are not in its value order ('k0" + separator + "' sorts before"
                    + " 'k" + separator + "'): a range works on the last component or on a number with a width");
        }
        if (c.type().equals("string") && c.escape()
                && (c.charset().equals("any") || KeyFields.inCharset(c.charset(), separator.codePointAt(0)))) {
            throw new KeyEncodingException("component " + c.name() + ": " + key + " escapes '" + separator
                    + "' and '\\' in it, so rows are not in its value order ('a\\" + separator
                    + "' sorts before 'a]'): give it one value, not a range");
        }
        if (!text && c.width() == null) {
            throw new KeyEncodingException("component " + c.name() + ": " + key + " is separated and writes it"
                    + " without a width, so rows are not in its value order ('10' sorts before '9'): give it one"
                    + " value, not a range");
        }
    }

    private int index(String name) {
        for (int i = 0; i < components.size(); i++) {
            if (components.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new KeyEncodingException("the " + table + " key has no component " + name);
    }

    @SuppressWarnings("unchecked")
    private static int compare(Object a, Object b) {
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return Arrays.compareUnsigned(x, y);
        }
        if (a instanceof String x && b instanceof String y) {
            return Arrays.compare(x.codePoints().toArray(), y.codePoints().toArray());
        }
        return ((Comparable<Object>) a).compareTo(b);
    }

    private static String show(Object v) {
        return v instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(v);
    }

    /** Salt, hash prefix and kept components of a key. */
    public Decoded decode(byte[] key) {
        Reader r = new Reader(key);
        List<Component> kept = components.stream().filter(Component::kept).toList();
        Integer bucket = null;
        if (salt != null) {
            int b = r.take(1, "salt")[0] & 0xff;
            bucket = salt.form().equals("byte") ? b : salt.alphabet().indexOf((char) b);
            if (bucket < 0 || bucket >= salt.buckets()) {
                throw new KeyEncodingException("salt bucket out of range");
            }
            r.separator();
        }
        Object hashPart = null;
        if (hash != null) {
            byte[] raw = r.take(hash.n(), "hash prefix");
            hashPart = hash.form().equals("hex_chars") ? new String(raw, StandardCharsets.US_ASCII) : raw;
            if (!kept.isEmpty()) {
                r.separator();
            }
        }
        Map<String, Object> comps = new LinkedHashMap<>();
        switch (layout) {
            case "separated" -> {
                List<byte[]> fields = splitUnescaped(Arrays.copyOfRange(key, r.pos, key.length), sep()[0]);
                if (fields.size() != kept.size()) {
                    throw new KeyEncodingException(kept.size() + " fields expected after the prefixes, found "
                            + fields.size());
                }
                for (int i = 0; i < kept.size(); i++) {
                    comps.put(kept.get(i).name(), KeyFields.decodeText(kept.get(i), fields.get(i), separator));
                }
                r.pos = key.length;
            }
            case "fixed" -> {
                for (Component c : kept) {
                    comps.put(c.name(), KeyFields.decodeText(c, r.take(c.width(), c.name()), null));
                }
            }
            default -> {
                for (Component c : kept) {
                    Object[] v = KeyFields.decodeBinary(c, key, r.pos);
                    comps.put(c.name(), v[0]);
                    r.pos = (int) v[1];
                }
            }
        }
        if (r.pos != key.length) {
            throw new KeyEncodingException("trailing bytes after the last component");
        }
        return new Decoded(bucket, hashPart, Collections.unmodifiableMap(comps));
    }

    private final class Reader {
        final byte[] key;
        int pos;

        Reader(byte[] key) {
            this.key = key;
        }

        byte[] take(int n, String what) {
            if (pos + n > key.length) {
                throw new KeyEncodingException("key too short for the " + what);
            }
            pos += n;
            return Arrays.copyOfRange(key, pos - n, pos);
        }

        void separator() {
            if (!separator.isEmpty() && !Arrays.equals(take(1, "separator"), sep())) {
                throw new KeyEncodingException("separator expected");
            }
        }
    }

    private static List<byte[]> splitUnescaped(byte[] b, byte sep) {
        List<byte[]> fields = new ArrayList<>();
        int start = 0;
        int i = 0;
        while (i < b.length) {
            if (b[i] == '\\') {
                i += 2;
                continue;
            }
            if (b[i] == sep) {
                fields.add(Arrays.copyOfRange(b, start, i));
                start = i + 1;
            }
            i++;
        }
        fields.add(Arrays.copyOfRange(b, start, b.length));
        return fields;
    }

    /** The first four bytes of MD5(body) as a big-endian u32, modulo the bucket count. */
    public static int saltBucket(byte[] body, int buckets) {
        long u = ByteBuffer.wrap(md5(body)).getInt() & 0xffffffffL;
        return (int) (u % buckets);
    }

    /** The region a key falls in: how many split keys are {@code <=} it (bytewise). */
    public static int regionIndex(List<byte[]> splits, byte[] key) {
        return (int) splits.stream().filter(s -> Arrays.compareUnsigned(s, key) <= 0).count();
    }
}
