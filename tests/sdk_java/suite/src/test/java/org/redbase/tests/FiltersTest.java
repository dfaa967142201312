package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redbase.sdk.Filter;
import org.redbase.sdk.FilterException;
import org.redbase.sdk.KeyEncodingException;
import org.redbase.sdk.KeyRange;
import redbase_examples.AccessLogs;
import redbase_examples.AccessLogsByPeriod;
import redbase_examples.Books;
import redbase_examples.Events;
import redbase_examples.FixedOrders;
import redbase_examples.Leaderboard;
import redbase_examples.WebPages;

/**
 * The filter builder's rendering in HBase's filter language and the named key bounds, without a
 * server (the shared vectors check the rendering byte for byte too; see {@link Vectors}).
 */
class FiltersTest {
    static String text(Filter f) {
        return new String(f.render(), StandardCharsets.ISO_8859_1);
    }

    @Test
    void valueComparisonsEncodeTheOperandWithTheColumnCodec() {
        assertEquals("SingleColumnValueFilter('t', 'h', >=, 'binary:\0\0\0\0\0\0\0\5', true, true)",
                text(AccessLogs.Columns.HITS.ge(5L)));
        assertEquals("SingleColumnValueFilter('b', 't', =, 'binary:it''s', true, true)",
                text(Books.Columns.TITLE.eq("it's")), "a quote inside a literal is doubled");
        assertEquals("SingleColumnValueFilter('b', 'p', !=, 'binary:\u00ff\u00ff\u00ff\u00ff', true, true)",
                text(Books.Columns.PAGES.ne(-1)), "raw bytes, any value");
        assertEquals("SingleColumnValueFilter('b', 'ip', <, 'binary:\u00ff', true, true)",
                text(Books.Columns.IN_PRINT.lt(true)));
        assertEquals("<= >", Filter.Op.LE.symbol() + " " + Filter.Op.GT.symbol());
        assertThrows(FilterException.class, () -> Books.Columns.TITLE.eq(null));
    }

    @Test
    void simpleFilters() {
        assertEquals("PageFilter(10)", text(Filter.page(10)));
        assertEquals("KeyOnlyFilter()", text(Filter.keyOnly()));
        assertEquals("FirstKeyOnlyFilter()", text(Filter.firstKeyOnly()));
        assertEquals("TimestampsFilter(1, 20, 300)", text(Filter.timestamps(1, 20, 300)));
        assertEquals("ColumnPrefixFilter('a''b')", text(Filter.columnPrefix("a'b".getBytes(StandardCharsets.US_ASCII))));
        assertThrows(FilterException.class, () -> Filter.page(-1));
        assertTrue(Filter.keyOnly().stripsValues());
        assertTrue(Filter.allOf(Filter.page(1), Filter.keyOnly()).stripsValues());
    }

    @Test
    void keyPrefixesAreTheTypedPrefix() {
        byte[] dave = AccessLogs.Key.prefix("dave").ranges().get(0).start();
        assertEquals("16108|", new String(dave, StandardCharsets.US_ASCII));
        assertEquals("PrefixFilter('16108|')", text(AccessLogs.Key.prefixFilter("dave")));
        assertEquals("PrefixFilter('16108|jericho|')", text(AccessLogs.Key.where().userId("dave").systemId("jericho").filter()));
        String salted = text(Events.Key.prefixFilter("foo"));
        assertEquals("(PrefixFilter('a-foo')) OR (PrefixFilter('b-foo')) OR (PrefixFilter('c-foo')) OR (PrefixFilter('d-foo'))",
                salted, "a salted key: one prefix per bucket");
        assertThrows(FilterException.class, () -> AccessLogs.Key.where().userId("dave").systemId("a").periodBetween(1, 2).filter());
    }

    @Test
    void allOfAndAnyOfParenthesizeEveryOperand() {
        Filter a = Filter.page(1);
        Filter b = Filter.keyOnly();
        Filter c = Filter.firstKeyOnly();
        assertEquals("(PageFilter(1)) AND (KeyOnlyFilter())", text(Filter.allOf(a, b)));
        assertEquals("(PageFilter(1)) OR ((KeyOnlyFilter()) AND (FirstKeyOnlyFilter()))",
                text(Filter.anyOf(a, Filter.allOf(b, c))));
        assertEquals("PageFilter(1)", text(Filter.allOf(a)), "one operand renders bare");
        assertEquals("PageFilter(1)", text(Filter.anyOf(List.of(a))));
        assertThrows(FilterException.class, () -> Filter.allOf());
        assertThrows(FilterException.class, () -> Filter.anyOf(List.of()));
    }

    @Test
    void namedBoundsAreInclusiveAndNameWhatIsMissing() {
        KeyRange r = AccessLogsByPeriod.Key.where().periodBetween(201501, 201512).range();
        assertEquals(1, r.ranges().size());
        assertEquals("201501|", new String(r.ranges().get(0).start(), StandardCharsets.US_ASCII));
        assertEquals("201512}", new String(r.ranges().get(0).stop(), StandardCharsets.US_ASCII), "201512 included");
        KeyRange same = AccessLogs.Key.where().userId("dave").range();
        assertArrayEquals(AccessLogs.Key.prefix("dave").ranges().get(0).start(), same.ranges().get(0).start());
        KeyRange dave = AccessLogs.Key.where().userId("dave").systemId("jericho").periodBetween(201501, 201512).range();
        assertEquals("16108|jericho|201501", new String(dave.ranges().get(0).start(), StandardCharsets.US_ASCII));
        assertEquals("16108|jericho|201512\0", new String(dave.ranges().get(0).stop(), StandardCharsets.US_ASCII),
                "the last component stops right after the high key");

        KeyEncodingException e = assertThrows(KeyEncodingException.class,
                () -> AccessLogs.Key.where().systemId("jericho").periodBetween(201501, 201512).range());
        assertEquals("component user_id: must be given (the hash prefix is computed from it)", e.getMessage());
        e = assertThrows(KeyEncodingException.class,
                () -> AccessLogs.Key.where().userId("dave").periodBetween(201501, 201512).range());
        assertEquals("component system_id: must be given before the range over period", e.getMessage());
        e = assertThrows(KeyEncodingException.class, () -> AccessLogs.Key.where().userId("dave").period(201501).range());
        assertEquals("component system_id: must be given: period comes after it in the key", e.getMessage());
        e = assertThrows(KeyEncodingException.class,
                () -> AccessLogs.Key.where().userId("dave").systemIdBetween("a", "b").period(201501).range());
        assertEquals("component period: cannot follow the range over system_id", e.getMessage());
        e = assertThrows(KeyEncodingException.class, () -> AccessLogs.Key.where().userId("dave").systemIdBetween("a", "b").range());
        assertTrue(e.getMessage().startsWith("component system_id: the access_logs key is separated and more components"
                + " follow it, so rows are not in its value order"), e.getMessage());
        e = assertThrows(KeyEncodingException.class, () -> WebPages.Key.where().domainBetween("a.com", "b.com").range());
        assertTrue(e.getMessage().startsWith("component domain: the web_pages key stores it reversed"), e.getMessage());
        e = assertThrows(KeyEncodingException.class, () -> FixedOrders.Key.where().region("eu").orderNoBetween(1, 9).range());
        assertEquals("component account: must be given (the hash prefix is computed from it)", e.getMessage());
        e = assertThrows(KeyEncodingException.class,
                () -> AccessLogsByPeriod.Key.where().periodBetween(201512, 201501).range());
        assertEquals("component period: the range's low 201512 is above its high 201501", e.getMessage());
        e = assertThrows(KeyEncodingException.class,
                () -> AccessLogsByPeriod.Key.where().periodBetween(201501, 201502).systemIdBetween("a", "b"));
        assertTrue(e.getMessage().contains("only one component can be a range"), e.getMessage());
    }

    @Test
    void descendingComponentsKeepTheirOuterBounds() {
        // score is a descending i64: a higher score sorts first, so the low end is the stop side.
        KeyRange r = Leaderboard.Key.where().game("chess").scoreBetween(10, 300).range();
        byte[] start = r.ranges().get(0).start();
        byte[] stop = r.ranges().get(0).stop();
        byte[] high = Leaderboard.Key.prefix("chess", 300).ranges().get(0).start();
        byte[] low = Leaderboard.Key.prefix("chess", 10).ranges().get(0).start();
        assertArrayEquals(high, start);
        assertArrayEquals(KeyRange.nextPrefix(low), stop);
    }
}
