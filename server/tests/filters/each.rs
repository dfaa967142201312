//! Each filter evaluated on its own against the fixture table.

use super::*;

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
