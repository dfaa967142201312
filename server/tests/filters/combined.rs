//! Filters combined (AND, OR, SKIP, WHILE), and their interplay with versions, batch, limit
//! and reversed scans.

use super::*;

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

// Interplay with versions, batch, limit and reversed scans.

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
