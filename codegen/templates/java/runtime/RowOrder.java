package org.redbase.sdk;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The order a scan yields the rows of its per-bucket scanners (docs/schema.md, "Salted scans").
 * Merged: the smallest key after its first {@code saltWidth} bytes (the salt) comes next, ties
 * to the lower bucket; reversed, the largest, ties to the higher bucket (exactly the reverse
 * order). So a salted table reads in the order of its unsalted design and {@code limit} and
 * ranges mean what they mean there. Bucket order: the current bucket until it is done, then the
 * next (the last first when reversed), so only one bucket's scanner is ever open.
 */
public final class RowOrder {
    private final int saltWidth;
    private final boolean reversed;
    private final boolean bucketOrder;
    private int current;

    public RowOrder(int saltWidth, boolean reversed, boolean bucketOrder) {
        this.saltWidth = saltWidth;
        this.reversed = reversed;
        this.bucketOrder = bucketOrder;
    }

    /**
     * The bucket to take the next row from (-1: every bucket is done); {@code head.apply(i)} is
     * bucket i's next row key, fetched when needed, or null when the bucket is done.
     */
    public int pick(int buckets, IntFunction<byte[]> head) {
        if (bucketOrder) {
            for (; current < buckets; current++) {
                int i = reversed ? buckets - 1 - current : current;
                if (head.apply(i) != null) {
                    return i;
                }
            }
            return -1;
        }
        int best = -1;
        byte[] bestRow = null;
        for (int i = 0; i < buckets; i++) {
            byte[] row = head.apply(i);
            if (row == null) {
                continue;
            }
            if (best >= 0) {
                int c = compareUnsalted(row, bestRow);
                if (reversed ? c < 0 : c >= 0) {
                    continue;
                }
            }
            best = i;
            bestRow = row;
        }
        return best;
    }

    private int compareUnsalted(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, Math.min(saltWidth, a.length), a.length, b, Math.min(saltWidth, b.length), b.length);
    }

    /**
     * The order over rows already read: {@code buckets.get(i)} holds bucket i's rows as its
     * scanner returns them (ascending, or descending when reversed); {@code limit} 0 is none.
     * Scans pick the same way; the shared vectors (sdks/vectors/merge.json) check it.
     */
    public static List<byte[]> merge(List<List<byte[]>> buckets, int saltWidth, boolean reversed, boolean bucketOrder, int limit) {
        RowOrder order = new RowOrder(saltWidth, reversed, bucketOrder);
        int[] pos = new int[buckets.size()];
        List<byte[]> out = new ArrayList<>();
        while (limit <= 0 || out.size() < limit) {
            int i = order.pick(buckets.size(), j -> pos[j] < buckets.get(j).size() ? buckets.get(j).get(pos[j]) : null);
            if (i < 0) {
                break;
            }
            out.add(buckets.get(i).get(pos[i]++));
        }
        return out;
    }
}
