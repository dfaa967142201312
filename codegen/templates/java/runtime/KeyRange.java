package org.redbase.sdk;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Row ranges to scan, one per salt bucket (one for unsalted tables): start inclusive, stop
 * exclusive (null: to the end of the table). Built by the generated keys' {@code prefix},
 * {@code where()...range()} and {@code range} methods (through {@link KeySpec#bounds}).
 */
public record KeyRange(List<Bounds> ranges) {
    /** One scanner's rows: {@code [start, stop)}. */
    public record Bounds(byte[] start, byte[] stop) {
        @Override
        public String toString() {
            return "[" + Arrays.toString(start) + ", " + (stop == null ? "end" : Arrays.toString(stop)) + ")";
        }
    }

    public KeyRange {
        ranges = List.copyOf(ranges);
    }

    /** Every key starting with one of {@code prefixes} (one per bucket), bytewise: for a whole
     *  key that includes longer keys it is a byte prefix of ({@link KeySpec#prefixRanges} does not). */
    public static KeyRange ofPrefixes(List<byte[]> prefixes) {
        List<Bounds> out = new ArrayList<>();
        for (byte[] p : prefixes) {
            out.add(new Bounds(p, nextPrefix(p)));
        }
        return new KeyRange(out);
    }

    /** From {@code start}'s first key (inclusive) up to {@code stop}'s first key (exclusive). */
    public static KeyRange between(KeyRange start, KeyRange stop) {
        if (start.ranges.size() != stop.ranges.size()) {
            throw new IllegalArgumentException("ranges of different tables");
        }
        List<Bounds> out = new ArrayList<>();
        for (int i = 0; i < start.ranges.size(); i++) {
            out.add(new Bounds(start.ranges.get(i).start(), stop.ranges.get(i).start()));
        }
        return new KeyRange(out);
    }

    /** The smallest key after every key starting with {@code prefix} (null: no such key). */
    public static byte[] nextPrefix(byte[] prefix) {
        int n = prefix.length;
        while (n > 0 && prefix[n - 1] == (byte) 0xff) {
            n--;
        }
        if (n == 0) {
            return null;
        }
        byte[] out = Arrays.copyOf(prefix, n);
        out[n - 1]++;
        return out;
    }
}
