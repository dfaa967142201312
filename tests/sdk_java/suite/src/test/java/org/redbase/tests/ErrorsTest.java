package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.redbase.sdk.BufferedWriter;
import org.redbase.sdk.Cell;
import org.redbase.sdk.GetOptions;
import org.redbase.sdk.KeyEncodingException;
import org.redbase.sdk.ScanOptions;
import org.redbase.sdk.WriteOptions;
import org.redbase.sdk.ValueEncodingException;
import redbase_examples.AccessLogs;
import redbase_examples.Books;
import redbase_examples.Events;
import redbase_examples.SocialUsage;

/** Errors name what failed: the key component, the column, the rule. No server needed. */
class ErrorsTest {
    @Test
    void keyErrorsNameTheComponentAndTheRule() {
        assertEquals("component period: -1 does not fit 6 zero-padded digits",
                assertThrows(KeyEncodingException.class, () -> new AccessLogs.Key("dave", "jericho", -1).encode()).getMessage());
        assertEquals("component user_id: ' ' is outside charset word",
                assertThrows(KeyEncodingException.class, () -> new AccessLogs.Key("da ve", "jericho", 1).encode()).getMessage());
        assertEquals("component user_id: a null is not a string",
                assertThrows(KeyEncodingException.class, () -> AccessLogs.Key.prefix(null)).getMessage());
        assertThrows(KeyEncodingException.class, () -> Events.Key.decode(new byte[] {'z', '-', 'x'}));
    }

    @Test
    void valueErrorsNameTheColumn() {
        byte[] b = {'b'};
        ValueEncodingException e = assertThrows(ValueEncodingException.class,
                () -> Books.Values.fromCells(List.of(new Cell(b, new byte[] {'d'}, new byte[3]))));
        assertEquals("column date: i64 values are 8 bytes, got 3", e.getMessage());
        e = assertThrows(ValueEncodingException.class,
                () -> Books.Values.fromCells(List.of(new Cell(b, "tags".getBytes(), "{nope".getBytes()))));
        assertEquals(true, e.getMessage().startsWith("column tags: not JSON: "), e.getMessage());
        e = assertThrows(ValueEncodingException.class,
                () -> new SocialUsage.Values().fbUsage(-3, 1L).cells());
        assertEquals("column fb_usage: -3 does not fit 6 zero-padded digits", e.getMessage());
    }

    /** Options are built with a constructor, as in every other SDK; the DEFAULT constants are
     *  the same values, and the builders validate as before. */
    @Test
    void optionsHaveConstructorsLikeEveryOtherSdk() {
        ScanOptions scan = new ScanOptions().limit(3).reversed(true).bucketOrder(true);
        assertEquals(List.of(3, true, true, 256, 0), List.of(scan.limit(), scan.reversed(), scan.bucketOrder(), scan.caching(), scan.batchSize()));
        assertEquals(List.of(0, false, false, 256), List.of(new ScanOptions().limit(), new ScanOptions().reversed(),
                new ScanOptions().bucketOrder(), ScanOptions.DEFAULT.caching()));
        assertThrows(IllegalArgumentException.class, () -> new ScanOptions().limit(-1));
        assertThrows(IllegalArgumentException.class, () -> new GetOptions().versions(0));
        assertEquals(WriteOptions.DEFAULT, new WriteOptions());
        assertEquals(new WriteOptions(5L, 1_000, 4L << 20), new WriteOptions().timestamp(5L));
        assertEquals(BufferedWriter.Options.DEFAULT, new BufferedWriter.Options());
    }
}
