// Prints, one per line, "<name>\t<hex>": the TGet/TScan.filterBytes that HBase's own Java Thrift2
// client (ThriftTable / ThriftUtilities.filterFromHBase) would send for each filter below, i.e.
// ProtobufUtil.toFilter(filter).toByteArray() from HBase's shaded ProtobufUtil: a
// FilterProtos.Filter{name = Java class name, serialized_filter = that filter's own message},
// comparators inside as ComparatorProtos.Comparator{name, serialized_comparator}. Entries named
// "malformed: ..." are deliberately broken. Run by generate.sh; the output is committed as
// filters.tsv, so nothing here runs in CI.
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.filter.*;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ComparatorProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.FilterProtos;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hbase.thirdparty.com.google.protobuf.ByteString;

public class FilterBytes {
  private static final Map<String, byte[]> OUT = new LinkedHashMap<>();

  private static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  private static byte[] pb(Filter f) throws Exception {
    return ProtobufUtil.toFilter(f).toByteArray();
  }

  private static void add(String name, Filter f) throws Exception {
    if (OUT.put(name, pb(f)) != null) {
      throw new IllegalStateException("duplicate name " + name);
    }
    // every entry must survive HBase's own decoding (what the Thrift2 server does)
    Filter back = ProtobufUtil.toFilter(FilterProtos.Filter.parseFrom(OUT.get(name)));
    if (back == null) {
      throw new IllegalStateException(name);
    }
  }

  private static void raw(String name, byte[] bytes) {
    OUT.put("malformed: " + name, bytes);
  }

  private static final CompareOperator EQ = CompareOperator.EQUAL;
  private static final CompareOperator NE = CompareOperator.NOT_EQUAL;

  public static void main(String[] args) throws Exception {
    // filters without arguments or with plain ones
    add("KeyOnlyFilter", new KeyOnlyFilter());
    add("KeyOnlyFilter(lenAsVal)", new KeyOnlyFilter(true));
    add("FirstKeyOnlyFilter", new FirstKeyOnlyFilter());
    add("PrefixFilter(k_ab)", new PrefixFilter(b("k_ab")));
    add("PrefixFilter(empty)", new PrefixFilter(new byte[0]));
    add("ColumnPrefixFilter(q)", new ColumnPrefixFilter(b("q")));
    add("MultipleColumnPrefixFilter(a, q)", new MultipleColumnPrefixFilter(new byte[][] {b("q"), b("a")}));
    add("ColumnCountGetFilter(2)", new ColumnCountGetFilter(2));
    add("PageFilter(2)", new PageFilter(2));
    add("ColumnPaginationFilter(limit 2, offset 1)", new ColumnPaginationFilter(2, 1));
    add("ColumnPaginationFilter(limit 2, column offset b)", new ColumnPaginationFilter(2, b("b")));
    add("InclusiveStopFilter(r02)", new InclusiveStopFilter(b("r02")));
    add("TimestampsFilter(5, 20)", new TimestampsFilter(Arrays.asList(20L, 5L)));
    add("TimestampsFilter(10, canHint)", new TimestampsFilter(Arrays.asList(10L), true));
    add("TimestampsFilter(none)", new TimestampsFilter(new ArrayList<>()));
    // compare filters, one per compare operator, and every comparator
    add("RowFilter(=, binary r02)", new RowFilter(EQ, new BinaryComparator(b("r02"))));
    add("RowFilter(<, binary r02)", new RowFilter(CompareOperator.LESS, new BinaryComparator(b("r02"))));
    add("RowFilter(<=, binaryprefix k_a)", new RowFilter(CompareOperator.LESS_OR_EQUAL, new BinaryPrefixComparator(b("k_a"))));
    add("RowFilter(>, binaryprefix k_a)", new RowFilter(CompareOperator.GREATER, new BinaryPrefixComparator(b("k_a"))));
    add("RowFilter(NO_OP, binary r02)", new RowFilter(CompareOperator.NO_OP, new BinaryComparator(b("r02"))));
    add("FamilyFilter(=, binary cg)", new FamilyFilter(EQ, new BinaryComparator(b("cg"))));
    add("FamilyFilter(!=, binary cg)", new FamilyFilter(NE, new BinaryComparator(b("cg"))));
    add("QualifierFilter(>=, binary c)", new QualifierFilter(CompareOperator.GREATER_OR_EQUAL, new BinaryComparator(b("c"))));
    add("QualifierFilter(=, binaryprefix q)", new QualifierFilter(EQ, new BinaryPrefixComparator(b("q"))));
    add("ValueFilter(=, substring AN)", new ValueFilter(EQ, new SubstringComparator("AN")));
    add("ValueFilter(!=, substring an)", new ValueFilter(NE, new SubstringComparator("an")));
    add("ValueFilter(=, regex ^a.*e$)", new ValueFilter(EQ, new RegexStringComparator("^a.*e$")));
    add("ValueFilter(=, regex ^avo CASE_INSENSITIVE)", new ValueFilter(EQ, new RegexStringComparator("^avo", Pattern.CASE_INSENSITIVE)));
    add("ValueFilter(=, regex ^avo case-sensitive)", new ValueFilter(EQ, new RegexStringComparator("^avo")));
    add("ValueFilter(=, regex dog.line2 DOTALL|CASE_INSENSITIVE)", new ValueFilter(EQ, new RegexStringComparator("dog.line2", Pattern.DOTALL | Pattern.CASE_INSENSITIVE)));
    add("ValueFilter(=, regex dog.line2 without DOTALL)", new ValueFilter(EQ, new RegexStringComparator("dog.line2", Pattern.CASE_INSENSITIVE)));
    add("ValueFilter(=, regex ^LINE2$ MULTILINE)", new ValueFilter(EQ, new RegexStringComparator("^LINE2$", Pattern.MULTILINE)));
    add("ValueFilter(=, regex ^LINE2$ without MULTILINE)", new ValueFilter(EQ, new RegexStringComparator("^LINE2$")));
    add("ValueFilter(!=, regex ^b JONI)", new ValueFilter(NE, new RegexStringComparator("^b", RegexStringComparator.EngineType.JONI)));
    add("ValueFilter(=, regex k.* JONI CASE_INSENSITIVE)", new ValueFilter(EQ, new RegexStringComparator("K.*", Pattern.CASE_INSENSITIVE, RegexStringComparator.EngineType.JONI)));
    add("ValueFilter(=, NullComparator)", new ValueFilter(EQ, new NullComparator()));
    add("ValueFilter(!=, NullComparator)", new ValueFilter(NE, new NullComparator()));
    add("ValueFilter(=, BitComparator AND 0f)", new ValueFilter(EQ, new BitComparator(new byte[] {0x0f}, BitComparator.BitwiseOp.AND)));
    add("ValueFilter(=, BitComparator OR 0f)", new ValueFilter(EQ, new BitComparator(new byte[] {0x0f}, BitComparator.BitwiseOp.OR)));
    add("ValueFilter(=, BitComparator XOR 0f)", new ValueFilter(EQ, new BitComparator(new byte[] {0x0f}, BitComparator.BitwiseOp.XOR)));
    add("ValueFilter(!=, BitComparator AND 0f)", new ValueFilter(NE, new BitComparator(new byte[] {0x0f}, BitComparator.BitwiseOp.AND)));
    add("ValueFilter(<, binary b)", new ValueFilter(CompareOperator.LESS, new BinaryComparator(b("b"))));
    add("SingleColumnValueFilter(cf:c > LongComparator 5)", new SingleColumnValueFilter(b("cf"), b("c"), CompareOperator.GREATER, new LongComparator(5L)));
    add("SingleColumnValueFilter(cf:c <= LongComparator 5, filterIfMissing)", scvf(new SingleColumnValueFilter(b("cf"), b("c"), CompareOperator.LESS_OR_EQUAL, new LongComparator(5L)), true, true));
    add("ValueFilter(=, LongComparator 42) on values of any length", new ValueFilter(EQ, new LongComparator(42L)));
    add("FilterList(MUST_PASS_ALL: QualifierFilter = c, ValueFilter >= LongComparator 5)", new FilterList(FilterList.Operator.MUST_PASS_ALL,
        new QualifierFilter(EQ, new BinaryComparator(b("c"))), new ValueFilter(CompareOperator.GREATER_OR_EQUAL, new LongComparator(5L))));
    // BigDecimalComparator on cf:n, which holds Bytes.toBytes(BigDecimal) values (make_scenario.py).
    // A cell too short to be a decimal fails HBase's scan, so these read cf:n only: through
    // SingleColumnValueFilter / ColumnValueFilter, or (names ending "on cf:n") scans of that column.
    add("SingleColumnValueFilter(cf:n = BigDecimalComparator 1.5, filterIfMissing)", scvf(new SingleColumnValueFilter(b("cf"), b("n"), EQ, new BigDecimalComparator(new BigDecimal("1.5"))), true, true));
    add("SingleColumnValueFilter(cf:n < BigDecimalComparator 1.5, filterIfMissing)", scvf(new SingleColumnValueFilter(b("cf"), b("n"), CompareOperator.LESS, new BigDecimalComparator(new BigDecimal("1.5"))), true, true));
    add("SingleColumnValueFilter(cf:n > BigDecimalComparator 1.5, filterIfMissing)", scvf(new SingleColumnValueFilter(b("cf"), b("n"), CompareOperator.GREATER, new BigDecimalComparator(new BigDecimal("1.5"))), true, true));
    add("ColumnValueFilter(cf:n <= BigDecimalComparator 0.0)", new ColumnValueFilter(b("cf"), b("n"), CompareOperator.LESS_OR_EQUAL, new BigDecimalComparator(new BigDecimal("0.0"))));
    add("ValueFilter(=, BigDecimalComparator 1.50) on cf:n", new ValueFilter(EQ, new BigDecimalComparator(new BigDecimal("1.50"))));
    add("ValueFilter(>, BigDecimalComparator -3.0) on cf:n", new ValueFilter(CompareOperator.GREATER, new BigDecimalComparator(new BigDecimal("-3.0"))));
    add("ValueFilter(!=, BigDecimalComparator 1E+3) on cf:n", new ValueFilter(NE, new BigDecimalComparator(new BigDecimal("1E+3"))));
    // BinaryComponentComparator: bytes at an offset. A component that runs past a shorter cell
    // fails HBase's scan, so every row key or cf:a value compared here differs before its end.
    add("RowFilter(=, BinaryComponentComparator ab at 2)", new RowFilter(EQ, new BinaryComponentComparator(b("ab"), 2)));
    add("RowFilter(<, BinaryComponentComparator ab at 2)", new RowFilter(CompareOperator.LESS, new BinaryComponentComparator(b("ab"), 2)));
    add("RowFilter(>, BinaryComponentComparator 0 at 1)", new RowFilter(CompareOperator.GREATER, new BinaryComponentComparator(b("0"), 1)));
    add("RowFilter(=, BinaryComponentComparator empty at 9)", new RowFilter(EQ, new BinaryComponentComparator(new byte[0], 9)));
    add("SingleColumnValueFilter(cf:a = BinaryComponentComparator ki at 0, filterIfMissing)", scvf(new SingleColumnValueFilter(b("cf"), b("a"), EQ, new BinaryComponentComparator(b("ki"), 0)), true, true));
    add("ValueFilter(=, BinaryComponentComparator p at 1) on cf:a", new ValueFilter(EQ, new BinaryComponentComparator(b("p"), 1)));
    add("ValueFilter(!=, BinaryComponentComparator pp at 1) on cf:a", new ValueFilter(NE, new BinaryComponentComparator(b("pp"), 1)));
    // column filters
    add("ColumnRangeFilter([b, d))", new ColumnRangeFilter(b("b"), true, b("d"), false));
    add("ColumnRangeFilter((b, d])", new ColumnRangeFilter(b("b"), false, b("d"), true));
    add("ColumnRangeFilter(open min, c])", new ColumnRangeFilter(null, true, b("c"), true));
    add("ColumnRangeFilter([q2, open max)", new ColumnRangeFilter(b("q2"), true, null, false));
    // SingleColumnValue(Exclude)Filter
    add("SingleColumnValueFilter(cf:a = apple)", new SingleColumnValueFilter(b("cf"), b("a"), EQ, b("apple")));
    add("SingleColumnValueFilter(cf:a = apple, filterIfMissing)", scvf(new SingleColumnValueFilter(b("cf"), b("a"), EQ, b("apple")), true, true));
    add("SingleColumnValueFilter(cf:a = apricot, latestVersionOnly)", scvf(new SingleColumnValueFilter(b("cf"), b("a"), EQ, b("apricot")), true, true));
    add("SingleColumnValueFilter(cf:a = apricot, all versions)", scvf(new SingleColumnValueFilter(b("cf"), b("a"), EQ, b("apricot")), true, false));
    add("SingleColumnValueFilter(cf:a != regex ^a, all versions, keep missing)", scvf(new SingleColumnValueFilter(b("cf"), b("a"), NE, new RegexStringComparator("^a")), false, false));
    add("SingleColumnValueExcludeFilter(cf:a = apple)", new SingleColumnValueExcludeFilter(b("cf"), b("a"), EQ, b("apple")));
    add("SingleColumnValueExcludeFilter(cf:a >= binaryprefix b, filterIfMissing)", scvf(new SingleColumnValueExcludeFilter(b("cf"), b("a"), CompareOperator.GREATER_OR_EQUAL, new BinaryPrefixComparator(b("b"))), true, true));
    // DependentColumnFilter, every constructor
    add("DependentColumnFilter(cf:a)", new DependentColumnFilter(b("cf"), b("a")));
    add("DependentColumnFilter(cf:a, drop)", new DependentColumnFilter(b("cf"), b("a"), true));
    add("DependentColumnFilter(cf:a, keep, = apple)", new DependentColumnFilter(b("cf"), b("a"), false, EQ, new BinaryComparator(b("apple"))));
    add("DependentColumnFilter(cf:a, drop, != substring an)", new DependentColumnFilter(b("cf"), b("a"), true, NE, new SubstringComparator("an")));
    // ColumnValueFilter
    add("ColumnValueFilter(cf:b = banana)", new ColumnValueFilter(b("cf"), b("b"), EQ, b("banana")));
    add("ColumnValueFilter(cf:a >= binaryprefix b)", new ColumnValueFilter(b("cf"), b("a"), CompareOperator.GREATER_OR_EQUAL, new BinaryPrefixComparator(b("b"))));
    // wrappers and lists
    add("FilterList(MUST_PASS_ALL: PrefixFilter r, QualifierFilter = a)", new FilterList(FilterList.Operator.MUST_PASS_ALL,
        new PrefixFilter(b("r")), new QualifierFilter(EQ, new BinaryComparator(b("a")))));
    add("FilterList(MUST_PASS_ONE: RowFilter = r02, FamilyFilter = cg)", new FilterList(FilterList.Operator.MUST_PASS_ONE,
        new RowFilter(EQ, new BinaryComparator(b("r02"))), new FamilyFilter(EQ, new BinaryComparator(b("cg")))));
    add("FilterList(nested: ALL(ONE(RowFilter = r01, RowFilter = r03), KeyOnlyFilter, ColumnPrefixFilter q))", new FilterList(FilterList.Operator.MUST_PASS_ALL,
        new FilterList(FilterList.Operator.MUST_PASS_ONE, new RowFilter(EQ, new BinaryComparator(b("r01"))), new RowFilter(EQ, new BinaryComparator(b("r03")))),
        new KeyOnlyFilter(), new FilterList(FilterList.Operator.MUST_PASS_ONE, new ColumnPrefixFilter(b("q")), new FamilyFilter(EQ, new BinaryComparator(b("cg"))))));
    add("FilterList(MUST_PASS_ALL, empty)", new FilterList(FilterList.Operator.MUST_PASS_ALL));
    add("FilterList(MUST_PASS_ONE: FirstKeyOnlyFilter, ColumnCountGetFilter 1)", new FilterList(FilterList.Operator.MUST_PASS_ONE, new FirstKeyOnlyFilter(), new ColumnCountGetFilter(1)));
    add("SkipFilter(ValueFilter != banana)", new SkipFilter(new ValueFilter(NE, new BinaryComparator(b("banana")))));
    add("WhileMatchFilter(RowFilter < r02)", new WhileMatchFilter(new RowFilter(CompareOperator.LESS, new BinaryComparator(b("r02")))));
    add("WhileMatchFilter(ValueFilter != banana)", new WhileMatchFilter(new ValueFilter(NE, new BinaryComparator(b("banana")))));
    add("MultiRowRangeFilter([k_, k_b), [r02, r03])", new MultiRowRangeFilter(Arrays.asList(
        new MultiRowRangeFilter.RowRange(b("r02"), true, b("r03"), true), new MultiRowRangeFilter.RowRange(b("k_"), true, b("k_b"), false))));
    add("MultiRowRangeFilter((k_abc, open end))", new MultiRowRangeFilter(Arrays.asList(
        new MultiRowRangeFilter.RowRange(b("k_abc"), false, new byte[0], false))));
    List<Pair<byte[], byte[]>> fuzzy = new ArrayList<>();
    fuzzy.add(new Pair<>(b("k_?bc"), new byte[] {0, 0, 1, 0, 0}));
    add("FuzzyRowFilter(k_?bc)", new FuzzyRowFilter(fuzzy));
    List<Pair<byte[], byte[]>> fuzzy2 = new ArrayList<>();
    fuzzy2.add(new Pair<>(b("r0?"), new byte[] {0, 0, 1}));
    fuzzy2.add(new Pair<>(b("k_ab?"), new byte[] {0, 0, 0, 0, 1}));
    add("FuzzyRowFilter(r0?, k_ab?)", new FuzzyRowFilter(fuzzy2));
    // RandomRowFilter only at the chances whose answer is certain.
    add("RandomRowFilter(0.0)", new RandomRowFilter(0.0f));
    add("RandomRowFilter(1.0)", new RandomRowFilter(1.0f));
    add("FilterList(MUST_PASS_ALL: RandomRowFilter 1.0, PrefixFilter r)", new FilterList(FilterList.Operator.MUST_PASS_ALL,
        new RandomRowFilter(1.0f), new PrefixFilter(b("r"))));
    add("FilterList(MUST_PASS_ONE: RandomRowFilter 0.0, PrefixFilter k_a)", new FilterList(FilterList.Operator.MUST_PASS_ONE,
        new RandomRowFilter(0.0f), new PrefixFilter(b("k_a"))));

    // malformed filterBytes: what does the server answer?
    byte[] prefix = pb(new PrefixFilter(b("k_ab")));
    raw("truncated", Arrays.copyOf(prefix, prefix.length - 3));
    raw("empty", new byte[0]);
    raw("not protobuf", new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
    raw("unknown filter class", FilterProtos.Filter.newBuilder()
        .setName("org.apache.hadoop.hbase.filter.NoSuchFilter")
        .setSerializedFilter(FilterProtos.Filter.parseFrom(prefix).getSerializedFilter()).build().toByteArray());
    raw("not a filter class", FilterProtos.Filter.newBuilder()
        .setName("java.lang.String").setSerializedFilter(ByteString.EMPTY).build().toByteArray());
    raw("garbage inner message", FilterProtos.Filter.newBuilder()
        .setName("org.apache.hadoop.hbase.filter.PrefixFilter")
        .setSerializedFilter(ByteString.copyFrom(new byte[] {(byte) 0xff, (byte) 0xff})).build().toByteArray());
    FilterProtos.RowFilter rf = FilterProtos.RowFilter.parseFrom(FilterProtos.Filter.parseFrom(
        pb(new RowFilter(EQ, new BinaryComparator(b("r02"))))).getSerializedFilter());
    FilterProtos.RowFilter bad = rf.toBuilder().setCompareFilter(rf.getCompareFilter().toBuilder()
        .setComparator(ComparatorProtos.Comparator.newBuilder()
            .setName("org.apache.hadoop.hbase.filter.NoSuchComparator")
            .setSerializedComparator(rf.getCompareFilter().getComparator().getSerializedComparator()))).build();
    raw("unknown comparator class", FilterProtos.Filter.newBuilder()
        .setName("org.apache.hadoop.hbase.filter.RowFilter").setSerializedFilter(bad.toByteString()).build().toByteArray());

    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, byte[]> e : OUT.entrySet()) {
      sb.append(e.getKey()).append('\t').append(Bytes.toHex(e.getValue())).append('\n');
    }
    System.out.print(sb);
  }

  private static SingleColumnValueFilter scvf(SingleColumnValueFilter f, boolean filterIfMissing, boolean latestVersionOnly) {
    f.setFilterIfMissing(filterIfMissing);
    f.setLatestVersionOnly(latestVersionOnly);
    return f;
  }
}
