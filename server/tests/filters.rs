//! The filter language evaluated: every filter run by the real engine against small tables,
//! with versions, batch, limit and reversed scans; early stops are measured with the regions'
//! read counters. The parser's constructs and errors are in filter_parser.rs.

mod common;

use common::*;
use redbase::engine::*;
use redbase::filter;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Renders one result: `row[f:q@ts=value ...]`.
fn render(r: &RowResult) -> String {
    let cells: Vec<String> = r
        .to_cells()
        .iter()
        .map(|c| {
            format!(
                "{}:{}@{}={}",
                String::from_utf8_lossy(&c.family),
                String::from_utf8_lossy(&c.qualifier),
                c.timestamp,
                String::from_utf8_lossy(&c.value)
            )
        })
        .collect();
    format!("{}[{}]", String::from_utf8_lossy(r.row()), cells.join(" "))
}

fn run(e: &Engine, scan: Scan) -> Vec<String> {
    e.scan("t", scan)
        .unwrap()
        .map(|r| render(&r.unwrap()))
        .collect()
}

fn with(f: &str) -> Scan {
    let mut s = Scan::new();
    s.options.filter = Some(filter::parse(f).unwrap());
    s
}

fn scan(e: &Engine, f: &str) -> Vec<String> {
    run(e, with(f))
}

fn row_keys(e: &Engine, f: &str) -> Vec<String> {
    scan(e, f)
        .into_iter()
        .map(|r| r[..r.find('[').unwrap()].to_string())
        .collect()
}

fn row_keys_reversed(e: &Engine, f: &str) -> Vec<String> {
    let mut s = with(f);
    s.reversed = true;
    run(e, s)
        .into_iter()
        .map(|r| r[..r.find('[').unwrap()].to_string())
        .collect()
}

fn get(e: &Engine, row: &str, f: &str, versions: u32) -> Option<String> {
    let mut opts = ReadOptions::default().versions(versions);
    opts.filter = Some(filter::parse(f).unwrap());
    e.get("t", Get::with(row.as_bytes(), opts))
        .unwrap()
        .map(|r| render(&r))
}

fn reads(e: &Engine) -> u64 {
    e.regions("t").unwrap().iter().map(|r| r.reads).sum()
}

/// Rows a1 a2 b1 b2 c1 in families f and g (both keep 3 versions).
fn fixture() -> (tempfile::TempDir, Engine) {
    let (d, e) = engine();
    table(
        &e,
        "t",
        vec![
            FamilyDescriptor::new(b"f").max_versions(3),
            FamilyDescriptor::new(b"g").max_versions(3),
        ],
    );
    put(&e, "t", "a1", "f:a", 1, "1");
    put(&e, "t", "a1", "f:b", 1, "2");
    put(&e, "t", "a1", "g:c", 1, "3");
    put(&e, "t", "a2", "f:a", 1, "old");
    put(&e, "t", "a2", "f:a", 2, "new");
    put(&e, "t", "a2", "f:b", 1, "z");
    put(&e, "t", "b1", "f:a", 1, "1");
    put(&e, "t", "b1", "g:d", 5, "hello");
    put(&e, "t", "b2", "g:c", 3, "World");
    put(&e, "t", "c1", "f:x", 1, "abc");
    put(&e, "t", "c1", "f:y", 1, "abd");
    put(&e, "t", "c1", "f:z", 1, "xyz");
    (d, e)
}

// ---------------------------------------------------------------------------------------------
// Evaluation: each filter
// ---------------------------------------------------------------------------------------------

#[test]
fn key_only_filter_empties_values_or_gives_their_length() {
    let (_d, e) = fixture();
    assert_eq!(scan(&e, "KeyOnlyFilter()")[0], "a1[f:a@1= f:b@1= g:c@1=]");
    let r = e
        .scan("t", with("KeyOnlyFilter(true)"))
        .unwrap()
        .nth(3)
        .unwrap()
        .unwrap();
    assert_eq!(
        &r.to_cells()[0].value[..],
        &5i32.to_be_bytes(),
        "len('World')"
    );
}

#[test]
fn first_key_only_filter_returns_each_rows_first_cell() {
    let (_d, e) = fixture();
    assert_eq!(
        scan(&e, "FirstKeyOnlyFilter()"),
        vec![
            "a1[f:a@1=1]",
            "a2[f:a@2=new]",
            "b1[f:a@1=1]",
            "b2[g:c@3=World]",
            "c1[f:x@1=abc]"
        ]
    );
}

#[test]
fn prefix_filter_keeps_matching_rows_and_stops_after_them() {
    let (_d, e) = fixture();
    assert_eq!(row_keys(&e, "PrefixFilter('b')"), vec!["b1", "b2"]);
    assert_eq!(row_keys(&e, "PrefixFilter('a2')"), vec!["a2"]);
    assert_eq!(row_keys(&e, "PrefixFilter('a22')"), Vec::<String>::new());
    assert_eq!(row_keys(&e, "PrefixFilter('')").len(), 5);
    let mut s = with("PrefixFilter('b')");
    s.reversed = true;
    assert_eq!(
        run(&e, s).iter().map(|r| &r[..2]).collect::<Vec<_>>(),
        vec!["b2", "b1"]
    );
}

#[test]
fn column_prefix_filters_select_qualifiers() {
    let (_d, e) = fixture();
    assert_eq!(
        scan(&e, "ColumnPrefixFilter('b')"),
        vec!["a1[f:b@1=2]", "a2[f:b@1=z]"]
    );
    // Each family is read on its own: a miss in f does not hide g.
    assert_eq!(
        scan(&e, "ColumnPrefixFilter('c')"),
        vec!["a1[g:c@1=3]", "b2[g:c@3=World]"]
    );
    assert_eq!(
        scan(&e, "MultipleColumnPrefixFilter('y', 'd', 'x')"),
        vec!["b1[g:d@5=hello]", "c1[f:x@1=abc f:y@1=abd]"]
    );
}

#[test]
fn multiple_column_prefix_filter_keeps_hbase_overlap_rule() {
    let (_d, e) = fixture();
    put(&e, "t", "d1", "f:ab", 1, "1");
    put(&e, "t", "d1", "f:ac", 1, "2");
    // HBase tests only the greatest prefix not after the qualifier: 'ac' is not returned.
    assert_eq!(
        scan(
            &e,
            "PrefixFilter('d') AND MultipleColumnPrefixFilter('a', 'ab')"
        ),
        vec!["d1[f:ab@1=1]"]
    );
}

#[test]
fn column_count_get_filter_counts_columns_and_ends_scans() {
    let (_d, e) = fixture();
    assert_eq!(
        get(&e, "c1", "ColumnCountGetFilter(2)", 3).unwrap(),
        "c1[f:x@1=abc f:y@1=abd]"
    );
    // Newest version only, even when more are asked for.
    assert_eq!(
        get(&e, "a2", "ColumnCountGetFilter(5)", 3).unwrap(),
        "a2[f:a@2=new f:b@1=z]"
    );
    // In a scan the first row with more columns than the limit is the last (HBase: "this
    // filter was written to test filters in Get").
    assert_eq!(row_keys(&e, "ColumnCountGetFilter(2)"), vec!["a1"]);
    assert_eq!(
        scan(&e, "ColumnCountGetFilter(2)")[0],
        "a1[f:a@1=1 f:b@1=2]"
    );
}

#[test]
fn page_filter_limits_rows_and_ends_the_scan() {
    let (_d, e) = fixture();
    assert_eq!(row_keys(&e, "PageFilter(2)"), vec!["a1", "a2"]);
    assert_eq!(row_keys(&e, "PageFilter(0)"), Vec::<String>::new());
    assert_eq!(row_keys(&e, "PageFilter(100)").len(), 5);
    // Rows other filters drop do not count.
    assert_eq!(
        row_keys(&e, "ValueFilter(=, 'binary:1') AND PageFilter(2)"),
        vec!["a1", "b1"]
    );
}

#[test]
fn column_pagination_filter_pages_through_columns() {
    let (_d, e) = fixture();
    assert_eq!(
        scan(&e, "ColumnPaginationFilter(1, 1)"),
        vec![
            "a1[f:b@1=2]",
            "a2[f:b@1=z]",
            "b1[g:d@5=hello]",
            "c1[f:y@1=abd]"
        ]
    );
    assert_eq!(
        scan(&e, "ColumnPaginationFilter(2, 0)")[0],
        "a1[f:a@1=1 f:b@1=2]"
    );
    assert_eq!(
        get(&e, "a1", "ColumnPaginationFilter(5, 1)", 1).unwrap(),
        "a1[f:b@1=2 g:c@1=3]",
        "columns count across families"
    );
}

#[test]
fn inclusive_stop_filter_includes_the_stop_row() {
    let (_d, e) = fixture();
    assert_eq!(
        row_keys(&e, "InclusiveStopFilter('b1')"),
        vec!["a1", "a2", "b1"]
    );
    let mut s = with("InclusiveStopFilter('b1')");
    s.reversed = true;
    assert_eq!(
        run(&e, s).iter().map(|r| &r[..2]).collect::<Vec<_>>(),
        vec!["c1", "b2", "b1"]
    );
}

#[test]
fn timestamps_filter_keeps_listed_versions() {
    let (_d, e) = fixture();
    assert_eq!(
        scan(&e, "TimestampsFilter(3, 5)"),
        vec!["b1[g:d@5=hello]", "b2[g:c@3=World]"]
    );
    // The older version is found even though a scan returns one version by default.
    assert_eq!(
        get(&e, "a2", "TimestampsFilter(1)", 1).unwrap(),
        "a2[f:a@1=old f:b@1=z]"
    );
    assert_eq!(row_keys(&e, "TimestampsFilter()"), Vec::<String>::new());
}

#[test]
fn row_filter_compares_row_keys() {
    let (_d, e) = fixture();
    assert_eq!(row_keys(&e, "RowFilter(<, 'binary:b')"), vec!["a1", "a2"]);
    assert_eq!(
        row_keys(&e, "RowFilter(<=, 'binary:b1')"),
        vec!["a1", "a2", "b1"]
    );
    assert_eq!(row_keys(&e, "RowFilter(>, 'binary:b1')"), vec!["b2", "c1"]);
    assert_eq!(
        row_keys(&e, "RowFilter(>=, 'binary:b1')"),
        vec!["b1", "b2", "c1"]
    );
    assert_eq!(row_keys(&e, "RowFilter(=, 'binary:a2')"), vec!["a2"]);
    assert_eq!(row_keys(&e, "RowFilter(!=, 'binary:a2')").len(), 4);
    assert_eq!(
        row_keys(&e, "RowFilter(=, 'binaryprefix:b')"),
        vec!["b1", "b2"]
    );
    assert_eq!(
        row_keys(&e, "RowFilter(=, 'regexstring:^.1$')"),
        vec!["a1", "b1", "c1"]
    );
    assert_eq!(
        row_keys(&e, "RowFilter(!=, 'regexstring:1')"),
        vec!["a2", "b2"]
    );
    assert_eq!(
        row_keys(&e, "RowFilter(=, 'substring:2')"),
        vec!["a2", "b2"]
    );
}

#[test]
fn family_qualifier_and_value_filters() {
    let (_d, e) = fixture();
    assert_eq!(
        row_keys(&e, "FamilyFilter(=, 'binary:g')"),
        vec!["a1", "b1", "b2"]
    );
    assert_eq!(scan(&e, "FamilyFilter(>, 'binary:f')")[0], "a1[g:c@1=3]");
    assert_eq!(
        scan(&e, "QualifierFilter(>=, 'binary:y')"),
        vec!["c1[f:y@1=abd f:z@1=xyz]"]
    );
    assert_eq!(
        scan(&e, "ValueFilter(=, 'binaryprefix:ab')"),
        vec!["c1[f:x@1=abc f:y@1=abd]"]
    );
    // substring is case-insensitive, regexstring is not, regexstringnocase is.
    assert_eq!(row_keys(&e, "ValueFilter(=, 'substring:WOR')"), vec!["b2"]);
    assert_eq!(
        row_keys(&e, "ValueFilter(=, 'regexstring:wor')"),
        Vec::<String>::new()
    );
    assert_eq!(
        row_keys(&e, "ValueFilter(=, 'regexstringnocase:wor')"),
        vec!["b2"]
    );
    // DOTALL: '.' matches a newline, as HBase's RegexStringComparator sets it.
    put(&e, "t", "n1", "f:a", 1, "x\ny");
    assert_eq!(
        row_keys(&e, "ValueFilter(=, 'regexstring:x.y')"),
        vec!["n1"]
    );
    assert_eq!(
        row_keys(&e, "ValueFilter(=, 'regexstring:\\Qx.\\E')"),
        Vec::<String>::new()
    );
}

#[test]
fn column_range_filter_bounds() {
    let (_d, e) = fixture();
    assert_eq!(
        scan(&e, "ColumnRangeFilter('x', true, 'z', false)"),
        vec!["c1[f:x@1=abc f:y@1=abd]"]
    );
    assert_eq!(
        scan(&e, "ColumnRangeFilter('x', false, 'z', true)"),
        vec!["c1[f:y@1=abd f:z@1=xyz]"]
    );
    assert_eq!(
        scan(&e, "ColumnRangeFilter('', true, 'a', true)"),
        vec!["a1[f:a@1=1]", "a2[f:a@2=new]", "b1[f:a@1=1]"]
    );
    assert_eq!(
        row_keys(&e, "ColumnRangeFilter('d', true, '', false)"),
        vec!["b1", "c1"]
    );
}

#[test]
fn single_column_value_filter_judges_whole_rows() {
    let (_d, e) = fixture();
    // Rows lacking f:a pass unless filterIfMissing.
    assert_eq!(
        row_keys(&e, "SingleColumnValueFilter('f', 'a', =, 'binary:1')"),
        vec!["a1", "b1", "b2", "c1"]
    );
    assert_eq!(
        row_keys(
            &e,
            "SingleColumnValueFilter('f', 'a', =, 'binary:1', true, true)"
        ),
        vec!["a1", "b1"]
    );
    assert_eq!(
        scan(
            &e,
            "SingleColumnValueFilter('f', 'a', =, 'binary:1', true, true)"
        )[0],
        "a1[f:a@1=1 f:b@1=2 g:c@1=3]",
        "the whole row"
    );
    // latestVersionOnly: only the newest version is tested unless false.
    let f = "SingleColumnValueFilter('f', 'a', =, 'binary:old', true, true)";
    assert_eq!(row_keys(&e, f), Vec::<String>::new());
    let f = "SingleColumnValueFilter('f', 'a', =, 'binary:old', true, false)";
    assert_eq!(scan(&e, f), vec!["a2[f:a@2=new f:b@1=z]"]);
    let mut s = with(f);
    s.options.max_versions = 3;
    assert_eq!(run(&e, s), vec!["a2[f:a@2=new f:a@1=old f:b@1=z]"]);
}

#[test]
fn single_column_value_exclude_filter_drops_the_tested_column() {
    let (_d, e) = fixture();
    assert_eq!(
        scan(
            &e,
            "SingleColumnValueExcludeFilter('f', 'a', =, 'binary:1', true, true)"
        ),
        vec!["a1[f:b@1=2 g:c@1=3]", "b1[g:d@5=hello]"]
    );
}

#[test]
fn dependent_column_filter_keeps_cells_with_matching_timestamps() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f").max_versions(3)]);
    put(&e, "t", "r", "f:dep", 10, "yes");
    put(&e, "t", "r", "f:dep", 20, "no");
    put(&e, "t", "r", "f:x", 10, "x10");
    put(&e, "t", "r", "f:y", 20, "y20");
    put(&e, "t", "r", "f:z", 30, "z30");
    let opts = |f: &str| {
        let mut s = with(f);
        s.options.max_versions = 3;
        run(&e, s)
    };
    assert_eq!(
        opts("DependentColumnFilter('f', 'dep')"),
        vec!["r[f:dep@20=no f:dep@10=yes f:x@10=x10 f:y@20=y20]"]
    );
    assert_eq!(
        opts("DependentColumnFilter('f', 'dep', true)"),
        vec!["r[f:x@10=x10 f:y@20=y20]"]
    );
    assert_eq!(
        opts("DependentColumnFilter('f', 'dep', false, =, 'binary:yes')"),
        vec!["r[f:dep@10=yes f:x@10=x10]"]
    );
    assert_eq!(
        opts("DependentColumnFilter('f', 'missing')"),
        Vec::<String>::new()
    );
}

#[test]
fn column_value_filter_returns_only_the_matching_cell() {
    let (_d, e) = fixture();
    assert_eq!(
        scan(&e, "ColumnValueFilter('f', 'a', =, 'binary:1')"),
        vec!["a1[f:a@1=1]", "b1[f:a@1=1]"]
    );
    assert_eq!(
        scan(&e, "ColumnValueFilter('f', 'a', >, 'binary:m')"),
        vec!["a2[f:a@2=new]"]
    );
}

// ---------------------------------------------------------------------------------------------
// Evaluation: combinations
// ---------------------------------------------------------------------------------------------

#[test]
fn and_or_skip_while_combine_as_hbase_does() {
    let (_d, e) = fixture();
    assert_eq!(
        row_keys(&e, "PrefixFilter('a') AND ValueFilter(=, 'binary:z')"),
        vec!["a2"]
    );
    assert_eq!(
        row_keys(&e, "PrefixFilter('c') OR RowFilter(=, 'binary:a1')"),
        vec!["a1", "c1"]
    );
    // OR includes a cell any side includes; AND only what all include.
    assert_eq!(
        scan(
            &e,
            "QualifierFilter(=, 'binary:x') OR ValueFilter(=, 'binary:xyz')"
        ),
        vec!["c1[f:x@1=abc f:z@1=xyz]"]
    );
    // SKIP drops rows in which any cell fails.
    assert_eq!(
        row_keys(&e, "SKIP ValueFilter(!=, 'binary:1')"),
        vec!["a2", "b2", "c1"]
    );
    assert_eq!(
        row_keys(&e, "SKIP ValueFilter(=, 'regexstring:^ab')"),
        Vec::<String>::new()
    );
    // WHILE ends the scan at the first failure.
    assert_eq!(
        row_keys(&e, "WHILE RowFilter(<, 'binary:b2')"),
        vec!["a1", "a2", "b1"]
    );
    assert_eq!(row_keys(&e, "WHILE RowFilter(!=, 'binary:a2')"), vec!["a1"]);
    // A cell failing inside a row ends the scan there; cells already taken stay (HBase).
    assert_eq!(
        scan(&e, "WHILE QualifierFilter(<, 'binary:b')"),
        vec!["a1[f:a@1=1]"]
    );
    // Key-only applies to cells an AND includes.
    assert_eq!(
        scan(&e, "KeyOnlyFilter() AND PrefixFilter('b2')"),
        vec!["b2[g:c@3=]"]
    );
}

// ---------------------------------------------------------------------------------------------
// Interplay with versions, batch, limit and reversed scans
// ---------------------------------------------------------------------------------------------

#[test]
fn versions_are_counted_after_the_filter() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f").max_versions(3)]);
    for (ts, v) in [(1, "a"), (2, "b"), (3, "a"), (4, "c")] {
        put(&e, "t", "r", "f:q", ts, v);
    }
    // The family keeps 3 versions: the one at ts 1 is invisible to filters too.
    assert_eq!(
        get(&e, "r", "ValueFilter(=, 'binary:a')", 1).unwrap(),
        "r[f:q@3=a]"
    );
    assert_eq!(
        get(&e, "r", "ValueFilter(=, 'binary:a')", 5).unwrap(),
        "r[f:q@3=a]"
    );
    assert_eq!(
        get(&e, "r", "ValueFilter(!=, 'binary:c')", 2).unwrap(),
        "r[f:q@3=a f:q@2=b]"
    );
}

#[test]
fn batches_cut_rows_except_for_whole_row_filters() {
    let (_d, e) = fixture();
    let mut s = with("PrefixFilter('c')");
    s.batch = 2;
    assert_eq!(run(&e, s), vec!["c1[f:x@1=abc f:y@1=abd]", "c1[f:z@1=xyz]"]);
    // A filter that needs whole rows cannot see pieces: HBase's IncompatibleFilterException.
    let mut s = with("SingleColumnValueFilter('f', 'x', =, 'binary:abc')");
    s.batch = 2;
    let out: Vec<_> = e.scan("t", s).unwrap().collect();
    let err = out.iter().find_map(|r| r.as_ref().err()).expect("an error");
    assert!(matches!(err, ReadError::IncompatibleFilter(_)), "{err}");
    // Rows that fit in one batch are fine.
    let mut s = with("PageFilter(2)");
    s.batch = 5;
    assert_eq!(run(&e, s).len(), 2);
}

#[test]
fn limits_apply_to_rows_the_filter_passes() {
    let (_d, e) = fixture();
    let mut s = with("RowFilter(!=, 'binary:a1')");
    s.limit = 2;
    assert_eq!(run(&e, s).len(), 2);
    let mut s = with("RowFilter(!=, 'binary:a1')");
    s.limit = 2;
    s.reversed = true;
    assert_eq!(
        run(&e, s).iter().map(|r| &r[..2]).collect::<Vec<_>>(),
        vec!["c1", "b2"]
    );
}

#[test]
fn reversed_scans_filter_the_same_rows() {
    let (_d, e) = fixture();
    for f in [
        "RowFilter(>=, 'binary:b')",
        "ValueFilter(=, 'binary:1')",
        "FamilyFilter(=, 'binary:g')",
        "PageFilter(3)",
    ] {
        let mut fwd = row_keys(&e, f);
        let mut s = with(f);
        s.reversed = true;
        let rev: Vec<String> = run(&e, s).iter().map(|r| r[..2].to_string()).collect();
        if f.starts_with("PageFilter") {
            assert_eq!(rev, vec!["c1", "b2", "b1"]);
            continue;
        }
        fwd.reverse();
        assert_eq!(rev, fwd, "{f}");
    }
}

#[test]
fn pathological_regex_runs_in_linear_time() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    let evil = format!("{}!", "a".repeat(20_000));
    put(&e, "t", "r", "f:q", 1, &evil);
    let t = std::time::Instant::now();
    // Catastrophic in a backtracking engine (Java's); linear here.
    assert_eq!(
        scan(&e, "ValueFilter(=, 'regexstring:^(a+)+$')"),
        Vec::<String>::new()
    );
    assert!(
        t.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        t.elapsed()
    );
}

// ---------------------------------------------------------------------------------------------
// Early stop, measured
// ---------------------------------------------------------------------------------------------

fn big_table(rows: usize) -> (tempfile::TempDir, Engine) {
    let (d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    let muts: Vec<RowMutation> = (0..rows)
        .map(|i| {
            RowMutation::new(format!("r{i:05}").as_bytes())
                .with(Op::put_at(b"f", b"a", 1, b"some value"))
                .with(Op::put_at(b"f", b"b", 1, b"another value"))
        })
        .collect();
    for r in e.mutate_rows("t", muts) {
        r.unwrap();
    }
    (d, e)
}

/// Rows returned and rows the engine assembled for a scan with this filter.
fn measure(e: &Engine, f: Option<&str>, reversed: bool) -> (usize, u64, std::time::Duration) {
    let before = reads(e);
    let mut s = match f {
        Some(f) => with(f),
        None => Scan::new(),
    };
    s.reversed = reversed;
    let t = std::time::Instant::now();
    let n = e.scan("t", s).unwrap().count();
    (n, reads(e) - before, t.elapsed())
}

#[test]
fn early_stops_are_measured() {
    const ROWS: usize = 5000;
    let (_d, e) = big_table(ROWS);
    let (n, full_reads, full_time) = measure(&e, None, false);
    assert_eq!(n, ROWS);
    assert_eq!(full_reads, ROWS as u64);
    let cases: [(&str, bool, usize, u64); 7] = [
        // (filter, reversed, rows returned, at most rows assembled)
        ("PrefixFilter('r0010')", false, 10, 10),
        ("PrefixFilter('r0010')", true, 10, 10),
        ("InclusiveStopFilter('r00009')", false, 10, 10),
        ("PageFilter(10)", false, 10, 10),
        ("WHILE RowFilter(<, 'binary:r00010')", false, 10, 10),
        // Row-key filters skip rows without assembling them.
        ("RowFilter(=, 'binary:r02500')", false, 1, 1),
        ("PrefixFilter('r0499')", false, 10, 10),
    ];
    for (f, reversed, rows, max_reads) in cases {
        let (n, r, t) = measure(&e, Some(f), reversed);
        eprintln!(
            "early-stop: {f:<40} reversed={reversed:<5} rows={n:<3} assembled={r:<4} \
             time={t:?} (unfiltered: {full_reads} rows, {full_time:?})"
        );
        assert_eq!(n, rows, "{f}");
        assert!(r <= max_reads, "{f}: {r} rows assembled");
    }
    // A value filter must read every row: the contrast.
    let (n, r, t) = measure(&e, Some("ValueFilter(=, 'binary:nothing')"), false);
    eprintln!("early-stop: ValueFilter (reads all)  rows={n} assembled={r} time={t:?}");
    assert_eq!((n, r), (0, ROWS as u64));
}

#[test]
fn filters_work_across_regions() {
    let (_d, e) = engine();
    let mut d = TableDescriptor::new(TableName::parse("t").unwrap());
    d = d.with_family(FamilyDescriptor::new(b"f"));
    e.create_table(d, &[b"r10".to_vec(), b"r20".to_vec()])
        .unwrap();
    for i in 0..30 {
        put(&e, "t", &format!("r{i:02}"), "f:a", 1, &format!("{i}"));
    }
    assert_eq!(e.regions("t").unwrap().len(), 3);
    assert_eq!(row_keys(&e, "PrefixFilter('r1')").len(), 10);
    assert_eq!(
        row_keys(&e, "InclusiveStopFilter('r21')").last().unwrap(),
        "r21"
    );
    // HBase gives each region a fresh copy of the filter: a page fills per region, and a WHILE
    // that ended in one region starts over in the next.
    assert_eq!(row_keys(&e, "PageFilter(15)").len(), 30);
    let before = reads(&e);
    let page: Vec<String> = row_keys(&e, "PageFilter(3)");
    assert_eq!(
        page,
        ["r00", "r01", "r02", "r10", "r11", "r12", "r20", "r21", "r22"]
    );
    assert!(reads(&e) - before <= 9);
    let rev = row_keys_reversed(&e, "PageFilter(2)");
    assert_eq!(rev, ["r29", "r28", "r19", "r18", "r09", "r08"]);
    let w = row_keys(&e, "WHILE RowFilter(!=, 'binary:r05')");
    assert_eq!(w.len(), 25);
    assert_eq!(w[4..6], ["r04".to_string(), "r10".to_string()]);
    // HBase ends the whole scan when a region's filter is done before the current round trip
    // (Scan.caching rows) returned anything: with one row per round trip, r05 ends it all.
    let one_per_trip = |f: &str| {
        let mut s = with(f);
        s.caching = 1;
        run(&e, s).len()
    };
    assert_eq!(one_per_trip("WHILE RowFilter(!=, 'binary:r05')"), 5);
    assert_eq!(one_per_trip("PageFilter(3)"), 9);
    // A WHILE that fails on a region's first row ends the scan whatever the caching.
    assert_eq!(row_keys(&e, "WHILE RowFilter(!=, 'binary:r10')").len(), 10);
    assert_eq!(row_keys(&e, "PageFilter(0)").len(), 0);
}

#[test]
fn gets_apply_filters_to_one_row() {
    let (_d, e) = fixture();
    assert_eq!(get(&e, "a1", "RowFilter(=, 'binary:a2')", 1), None);
    assert_eq!(
        get(&e, "a1", "PrefixFilter('a')", 1).unwrap(),
        "a1[f:a@1=1 f:b@1=2 g:c@1=3]"
    );
    assert_eq!(
        get(&e, "a1", "QualifierFilter(=, 'binary:c')", 1).unwrap(),
        "a1[g:c@1=3]"
    );
    assert_eq!(
        get(&e, "a1", "KeyOnlyFilter()", 1).unwrap(),
        "a1[f:a@1= f:b@1= g:c@1=]"
    );
}

#[test]
fn prefix_hints_jump_but_never_over_rows_a_while_must_see() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    for r in ["a", "c", "m1", "m2", "z"] {
        put(&e, "t", r, "f:q", 1, r);
    }
    let rev = |f: &str| -> Vec<String> {
        let mut s = with(f);
        s.reversed = true;
        run(&e, s)
            .into_iter()
            .map(|r| r[..r.find('[').unwrap()].to_string())
            .collect()
    };
    assert_eq!(
        row_keys(&e, "PrefixFilter('m') AND RowFilter(!=, 'binary:m2')"),
        vec!["m1"]
    );
    // WHILE must see row c (and ends the scan there), as it would without the jump.
    assert_eq!(
        row_keys(&e, "PrefixFilter('m') AND WHILE RowFilter(!=, 'binary:c')"),
        Vec::<String>::new()
    );
    assert_eq!(
        row_keys(&e, "PrefixFilter('m') OR PrefixFilter('c')"),
        vec!["c", "m1", "m2"]
    );
    assert_eq!(rev("PrefixFilter('c')"), vec!["c"]);
    assert_eq!(
        rev("PrefixFilter('m') OR PrefixFilter('c')"),
        vec!["m2", "m1", "c"]
    );
    assert_eq!(
        rev("PrefixFilter('m') AND SKIP ValueFilter(!=, 'binary:m2')"),
        vec!["m1"]
    );
}

#[test]
fn an_empty_qualifier_is_compared_like_any_other() {
    // HBase 2.6.1's QualifierFilter has no exemption for the empty qualifier.
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    for q in ["", "x", "y"] {
        put(&e, "t", "r", &format!("f:{q}"), 5, "v");
    }
    let quals = |f: &str| -> Vec<String> {
        get(&e, "r", f, 1)
            .map(|r| r.matches("f:").count().to_string())
            .into_iter()
            .collect()
    };
    assert_eq!(
        get(&e, "r", "QualifierFilter(=, 'binary:x')", 1).unwrap(),
        "r[f:x@5=v]"
    );
    assert_eq!(
        get(&e, "r", "QualifierFilter(>, 'binary:a')", 1).unwrap(),
        "r[f:x@5=v f:y@5=v]"
    );
    assert_eq!(
        get(&e, "r", "QualifierFilter(!=, 'binary:x')", 1).unwrap(),
        "r[f:@5=v f:y@5=v]"
    );
    assert_eq!(quals("QualifierFilter(=, 'substring:x')"), ["1"]);
}
