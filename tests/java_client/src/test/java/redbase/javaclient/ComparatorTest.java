package redbase.javaclient;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.BinaryPrefixComparator;
import org.apache.hadoop.hbase.filter.BitComparator;
import org.apache.hadoop.hbase.filter.ByteArrayComparable;
import org.apache.hadoop.hbase.filter.LongComparator;
import org.apache.hadoop.hbase.filter.NullComparator;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every comparator, through ValueFilter / RowFilter / QualifierFilter / SingleColumnValueFilter.
 * Data: cf:s holds strings, cf:n 8-byte longs, cf:m one byte each (for BitComparator):
 * <pre>
 * a1  cf:s=apple        cf:n=-5   cf:m=0x0f
 * a2  cf:s=Apricot      cf:n=0    cf:m=0xf0
 * a3  cf:s=banana       cf:n=7    cf:m=0x00
 * a4  cf:s=line1\nline2 cf:n=100  cf:m=0xff
 * a5  cf:s=""           (no cf:n) cf:m=0x01
 * </pre>
 */
class ComparatorTest extends ClientBase {
  static Table t;

  @BeforeAll
  static void load() throws IOException {
    t = create("cmp", 1, null, "cf");
    String[] s = {"apple", "Apricot", "banana", "line1\nline2", ""};
    Long[] n = {-5L, 0L, 7L, 100L, null};
    int[] m = {0x0f, 0xf0, 0x00, 0xff, 0x01};
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Put p = new Put(b("a" + (i + 1))).addColumn(b("cf"), b("s"), 1, b(s[i]))
          .addColumn(b("cf"), b("m"), 1, new byte[] {(byte) m[i]});
      if (n[i] != null) {
        p.addColumn(b("cf"), b("n"), 1, Bytes.toBytes(n[i]));
      }
      puts.add(p);
    }
    t.put(puts);
  }

  /** rows whose cf:<q> value passes op/comparator */
  static List<String> match(String q, CompareOperator op, ByteArrayComparable c) throws IOException {
    return rows(t, new Scan().addColumn(b("cf"), b(q)).setFilter(new ValueFilter(op, c)));
  }

  @Test
  void binary() throws IOException {
    BinaryComparator banana = new BinaryComparator(b("banana"));
    assertEquals(List.of("a3"), match("s", CompareOperator.EQUAL, banana));
    assertEquals(List.of("a1", "a2", "a4", "a5"), match("s", CompareOperator.NOT_EQUAL, banana));
    // byte order: "" < "Apricot" < "apple" < "banana" < "line1..."
    assertEquals(List.of("a1", "a2", "a5"), match("s", CompareOperator.LESS, banana));
    assertEquals(List.of("a1", "a2", "a3", "a5"), match("s", CompareOperator.LESS_OR_EQUAL, banana));
    assertEquals(List.of("a4"), match("s", CompareOperator.GREATER, banana));
    assertEquals(List.of("a3", "a4"), match("s", CompareOperator.GREATER_OR_EQUAL, banana));
    assertEquals(List.of("a5"), match("s", CompareOperator.EQUAL, new BinaryComparator(new byte[0])));
    // longs compared as bytes: -5 (0xff...) is the largest
    assertEquals(List.of("a1", "a4"),
        match("n", CompareOperator.GREATER, new BinaryComparator(Bytes.toBytes(7L))));
  }

  @Test
  void binaryPrefix() throws IOException {
    assertEquals(List.of("a1"), match("s", CompareOperator.EQUAL, new BinaryPrefixComparator(b("ap"))));
    assertEquals(List.of("a4"),
        match("s", CompareOperator.EQUAL, new BinaryPrefixComparator(b("line1\n"))));
    // a prefix compares only that many bytes: "b" vs the first byte
    assertEquals(List.of("a4"), match("s", CompareOperator.GREATER, new BinaryPrefixComparator(b("b"))));
    assertEquals(List.of("a1", "a2", "a5"),
        match("s", CompareOperator.LESS, new BinaryPrefixComparator(b("b"))));
    assertEquals(List.of("a1", "a2", "a3", "a4", "a5"),
        rows(t, new Scan().setFilter(new RowFilter(CompareOperator.EQUAL,
            new BinaryPrefixComparator(b("a"))))).stream().distinct().toList());
  }

  @Test
  void substring() throws IOException {
    // case-insensitive: the comparator lowercases both sides
    assertEquals(List.of("a1", "a2"), match("s", CompareOperator.EQUAL, new SubstringComparator("AP")));
    assertEquals(List.of("a3"), match("s", CompareOperator.EQUAL, new SubstringComparator("nan")));
    assertEquals(List.of("a3", "a4", "a5"),
        match("s", CompareOperator.NOT_EQUAL, new SubstringComparator("p")));
    assertEquals(List.of("a4"), match("s", CompareOperator.EQUAL, new SubstringComparator("1\nL")));
  }

  @Test
  void regexString() throws IOException {
    assertEquals(List.of("a1"), match("s", CompareOperator.EQUAL, new RegexStringComparator("^a.*e$")));
    // find(), not matches(): a substring match is enough
    assertEquals(List.of("a1", "a3"), match("s", CompareOperator.EQUAL, new RegexStringComparator("[np]{2}|na")));
    assertEquals(List.of("a1", "a2"), match("s", CompareOperator.EQUAL,
        new RegexStringComparator("^ap", Pattern.CASE_INSENSITIVE)));
    assertEquals(List.of("a1"), match("s", CompareOperator.EQUAL, new RegexStringComparator("^ap")));
    // "." crosses the newline only with DOTALL, which the one-argument constructor sets
    assertEquals(List.of("a4"), match("s", CompareOperator.EQUAL, new RegexStringComparator("1.l")));
    assertEquals(List.of(), match("s", CompareOperator.EQUAL, new RegexStringComparator("1.l", 0)));
    assertEquals(List.of("a4"), match("s", CompareOperator.EQUAL,
        new RegexStringComparator("1.l", Pattern.DOTALL)));
    assertEquals(List.of(), match("s", CompareOperator.EQUAL,
        new RegexStringComparator("^line2", 0)));
    // MULTILINE: ^ after the newline
    assertEquals(List.of("a4"), match("s", CompareOperator.EQUAL,
        new RegexStringComparator("^line2", Pattern.MULTILINE)));
    assertEquals(List.of("a2", "a3", "a4", "a5"),
        match("s", CompareOperator.NOT_EQUAL, new RegexStringComparator("^a")));
    // on row keys and qualifiers
    assertEquals(List.of("a2", "a4"), rows(t, new Scan().setFilter(new RowFilter(
        CompareOperator.EQUAL, new RegexStringComparator("[24]$")))));
    assertEquals(List.of("a1/cf:m=\\x0F", "a1/cf:n=\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFB"),
        scanKvs(t, new Scan().withStopRow(b("a2")).setFilter(new QualifierFilter(
            CompareOperator.EQUAL, new RegexStringComparator("^[mn]$")))));
  }

  @Test
  void nullComparator() throws IOException {
    // a stored value is never null: EQUAL matches nothing, NOT_EQUAL everything (also "")
    assertEquals(List.of(), match("s", CompareOperator.EQUAL, new NullComparator()));
    assertEquals(List.of("a1", "a2", "a3", "a4", "a5"),
        match("s", CompareOperator.NOT_EQUAL, new NullComparator()));
    // with SingleColumnValueFilter: rows lacking cf:n pass only without filterIfMissing
    SingleColumnValueFilter f = new SingleColumnValueFilter(b("cf"), b("n"),
        CompareOperator.EQUAL, new NullComparator());
    assertEquals(List.of("a5"), rows(t, new Scan().setFilter(f)));
  }

  @Test
  void bitComparator() throws IOException {
    // EQUAL passes when (value OP mask) has a bit set; values 0f, f0, 00, ff, 01
    assertEquals(List.of("a1", "a4", "a5"), match("m", CompareOperator.EQUAL,
        new BitComparator(new byte[] {0x01}, BitComparator.BitwiseOp.AND)));
    assertEquals(List.of("a2", "a3"), match("m", CompareOperator.NOT_EQUAL,
        new BitComparator(new byte[] {0x01}, BitComparator.BitwiseOp.AND)));
    assertEquals(List.of("a1", "a2", "a4", "a5"), match("m", CompareOperator.EQUAL,
        new BitComparator(new byte[] {0x00}, BitComparator.BitwiseOp.OR)));
    assertEquals(List.of("a1", "a2", "a3", "a4", "a5"), match("m", CompareOperator.EQUAL,
        new BitComparator(new byte[] {0x10}, BitComparator.BitwiseOp.OR)));
    // XOR: any bit differs from the mask
    assertEquals(List.of("a1", "a2", "a3", "a5"), match("m", CompareOperator.EQUAL,
        new BitComparator(new byte[] {(byte) 0xff}, BitComparator.BitwiseOp.XOR)));
    // a mask of another length never matches
    assertEquals(List.of(), match("m", CompareOperator.EQUAL,
        new BitComparator(new byte[] {0x01, 0x01}, BitComparator.BitwiseOp.AND)));
  }

  @Test
  void longComparator() throws IOException {
    // numeric, not byte order: -5 < 0 < 7 < 100
    assertEquals(List.of("a4"), match("n", CompareOperator.GREATER, new LongComparator(7)));
    assertEquals(List.of("a3", "a4"), match("n", CompareOperator.GREATER_OR_EQUAL, new LongComparator(7)));
    assertEquals(List.of("a1", "a2"), match("n", CompareOperator.LESS, new LongComparator(7)));
    assertEquals(List.of("a2"), match("n", CompareOperator.EQUAL, new LongComparator(0)));
    assertEquals(List.of("a1", "a3", "a4"), match("n", CompareOperator.NOT_EQUAL, new LongComparator(0)));
    SingleColumnValueFilter f = new SingleColumnValueFilter(b("cf"), b("n"),
        CompareOperator.LESS_OR_EQUAL, new LongComparator(0));
    f.setFilterIfMissing(true);
    assertEquals(List.of("a1", "a2"), rows(t, new Scan().setFilter(f)));
  }
}
