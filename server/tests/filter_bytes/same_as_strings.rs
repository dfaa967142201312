//! The filter language's 19 filters, lists, SKIP and WHILE, serialized: the same results as
//! their filter strings.

use super::*;

#[test]
fn row_and_key_filters_match_their_strings() {
    let (_d, e) = fixture();
    for len in [false, true] {
        let s = format!("KeyOnlyFilter({len})");
        let m = pb::KeyOnlyFilter {
            len_as_val: Some(len),
        };
        same(&e, f("KeyOnlyFilter", m), &s);
    }
    same(
        &e,
        f("FirstKeyOnlyFilter", pb::FirstKeyOnlyFilter {}),
        "FirstKeyOnlyFilter()",
    );
    same(&e, prefix("a"), "PrefixFilter('a')");
    same(&e, prefix("b2"), "PrefixFilter('b2')");
    same(&e, prefix(""), "PrefixFilter('')");
    let stop = |r: &str| {
        f(
            "InclusiveStopFilter",
            pb::InclusiveStopFilter {
                stop_row_key: Some(r.as_bytes().to_vec().into()),
            },
        )
    };
    same(&e, stop("b1"), "InclusiveStopFilter('b1')");
    let page = |n| f("PageFilter", pb::PageFilter { page_size: Some(n) });
    same(&e, page(2), "PageFilter(2)");
    same(&e, page(0), "PageFilter(0)");
    for (op, sym) in [
        (Ct::Less, "<"),
        (Ct::LessOrEqual, "<="),
        (Ct::Equal, "="),
        (Ct::NotEqual, "!="),
        (Ct::GreaterOrEqual, ">="),
        (Ct::Greater, ">"),
    ] {
        same(
            &e,
            row_filter(op, binary("b1")),
            &format!("RowFilter({sym}, 'binary:b1')"),
        );
        same(
            &e,
            row_filter(op, binary_prefix("a")),
            &format!("RowFilter({sym}, 'binaryprefix:a')"),
        );
    }
    same(
        &e,
        row_filter(Ct::Equal, regex("^.1$", 0x20)),
        "RowFilter(=, 'regexstring:^.1$')",
    );
    same(
        &e,
        row_filter(Ct::NotEqual, substring("B")),
        "RowFilter(!=, 'substring:b')",
    );
}

#[test]
fn column_filters_match_their_strings() {
    let (_d, e) = fixture();
    let col_prefix = |p: &str| {
        f(
            "ColumnPrefixFilter",
            pb::ColumnPrefixFilter {
                prefix: Some(p.as_bytes().to_vec().into()),
            },
        )
    };
    same(&e, col_prefix("b"), "ColumnPrefixFilter('b')");
    let multi = f(
        "MultipleColumnPrefixFilter",
        pb::MultipleColumnPrefixFilter {
            sorted_prefixes: vec![b"a".to_vec().into(), b"x".to_vec().into()],
        },
    );
    same(&e, multi, "MultipleColumnPrefixFilter('a', 'x')");
    let count = f(
        "ColumnCountGetFilter",
        pb::ColumnCountGetFilter { limit: Some(2) },
    );
    same(&e, count, "ColumnCountGetFilter(2)");
    let paging = f(
        "ColumnPaginationFilter",
        pb::ColumnPaginationFilter {
            limit: Some(1),
            offset: Some(1),
            column_offset: None,
        },
    );
    same(&e, paging, "ColumnPaginationFilter(1, 1)");
    let stamps = |ts: Vec<i64>, hint| {
        f(
            "TimestampsFilter",
            pb::TimestampsFilter {
                timestamps: ts,
                can_hint: Some(hint),
            },
        )
    };
    for hint in [false, true] {
        same(&e, stamps(vec![1, 5], hint), "TimestampsFilter(1, 5)");
        same(&e, stamps(vec![2], hint), "TimestampsFilter(2)");
        same(&e, stamps(vec![], hint), "TimestampsFilter()");
    }
    let ranges = |min: Option<&str>, mi, max: Option<&str>, ma| {
        f(
            "ColumnRangeFilter",
            pb::ColumnRangeFilter {
                min_column: min.map(|m| m.as_bytes().to_vec().into()),
                min_column_inclusive: Some(mi),
                max_column: max.map(|m| m.as_bytes().to_vec().into()),
                max_column_inclusive: Some(ma),
            },
        )
    };
    same(
        &e,
        ranges(Some("b"), true, Some("y"), false),
        "ColumnRangeFilter('b', true, 'y', false)",
    );
    same(
        &e,
        ranges(Some("a"), false, Some("y"), true),
        "ColumnRangeFilter('a', false, 'y', true)",
    );
    same(
        &e,
        ranges(None, true, Some("b"), true),
        "ColumnRangeFilter('', true, 'b', true)",
    );
    same(
        &e,
        ranges(Some("x"), true, None, false),
        "ColumnRangeFilter('x', true, '', false)",
    );
    let fam = |op, c| {
        f(
            "FamilyFilter",
            pb::FamilyFilter {
                compare_filter: compare(op, c),
            },
        )
    };
    same(
        &e,
        fam(Ct::Equal, binary("g")),
        "FamilyFilter(=, 'binary:g')",
    );
    same(
        &e,
        fam(Ct::Less, binary("g")),
        "FamilyFilter(<, 'binary:g')",
    );
    let qual = |op, c| {
        f(
            "QualifierFilter",
            pb::QualifierFilter {
                compare_filter: compare(op, c),
            },
        )
    };
    same(
        &e,
        qual(Ct::GreaterOrEqual, binary("c")),
        "QualifierFilter(>=, 'binary:c')",
    );
    same(
        &e,
        qual(Ct::Equal, regex("[ab]", 0x20)),
        "QualifierFilter(=, 'regexstring:[ab]')",
    );
    same(
        &e,
        value_filter(Ct::Equal, substring("WOR")),
        "ValueFilter(=, 'substring:wor')",
    );
    same(
        &e,
        value_filter(Ct::Equal, regex("wor", 0x20 | 0x02)),
        "ValueFilter(=, 'regexstringnocase:wor')",
    );
    same(
        &e,
        value_filter(Ct::Greater, binary("abc")),
        "ValueFilter(>, 'binary:abc')",
    );
    same(
        &e,
        value_filter(Ct::Equal, binary("old")),
        "ValueFilter(=, 'binary:old')",
    );
}

#[test]
fn value_filters_match_their_strings() {
    let (_d, e) = fixture();
    let single = |m: pb::SingleColumnValueFilter| f("SingleColumnValueFilter", m);
    same(
        &e,
        single(scvf("f", "a", Ct::Equal, binary("1"))),
        "SingleColumnValueFilter('f', 'a', =, 'binary:1')",
    );
    let mut m = scvf("f", "a", Ct::Equal, binary("old"));
    m.latest_version_only = Some(false);
    m.filter_if_missing = Some(true);
    same(
        &e,
        single(m),
        "SingleColumnValueFilter('f', 'a', =, 'binary:old', true, false)",
    );
    let exclude = f(
        "SingleColumnValueExcludeFilter",
        pb::SingleColumnValueExcludeFilter {
            single_column_value_filter: Some(scvf("f", "a", Ct::NotEqual, binary("1"))),
        },
    );
    same(
        &e,
        exclude,
        "SingleColumnValueExcludeFilter('f', 'a', !=, 'binary:1', false, true)",
    );
    let dep = |drop, test: Option<(Ct, pb::Comparator)>| {
        let (op, c) = match test {
            Some((op, c)) => (op, Some(c)),
            None => (Ct::NoOp, None),
        };
        f(
            "DependentColumnFilter",
            pb::DependentColumnFilter {
                compare_filter: Some(pb::CompareFilter {
                    compare_op: Some(op as i32),
                    comparator: c,
                }),
                column_family: Some(b"f".to_vec().into()),
                column_qualifier: Some(b"a".to_vec().into()),
                drop_dependent_column: Some(drop),
            },
        )
    };
    same(&e, dep(false, None), "DependentColumnFilter('f', 'a')");
    same(&e, dep(true, None), "DependentColumnFilter('f', 'a', true)");
    same(
        &e,
        dep(false, Some((Ct::Equal, binary("new")))),
        "DependentColumnFilter('f', 'a', false, =, 'binary:new')",
    );
    let cvf = f(
        "ColumnValueFilter",
        pb::ColumnValueFilter {
            family: Some(b"f".to_vec().into()),
            qualifier: Some(b"a".to_vec().into()),
            compare_op: Some(Ct::GreaterOrEqual as i32),
            comparator: Some(binary("new")),
        },
    );
    same(&e, cvf, "ColumnValueFilter('f', 'a', >=, 'binary:new')");
}

#[test]
fn lists_skip_and_while_match_their_strings() {
    let (_d, e) = fixture();
    same(
        &e,
        list(
            true,
            vec![prefix("a"), value_filter(Ct::NotEqual, binary("z"))],
        ),
        "PrefixFilter('a') AND ValueFilter(!=, 'binary:z')",
    );
    same(
        &e,
        list(
            false,
            vec![
                row_filter(Ct::Equal, binary("c1")),
                f(
                    "FamilyFilter",
                    pb::FamilyFilter {
                        compare_filter: compare(Ct::Equal, binary("g")),
                    },
                ),
            ],
        ),
        "RowFilter(=, 'binary:c1') OR FamilyFilter(=, 'binary:g')",
    );
    // Nested: ALL(ONE(row = a1, row = c1), KeyOnly).
    let nested = list(
        true,
        vec![
            list(
                false,
                vec![
                    row_filter(Ct::Equal, binary("a1")),
                    row_filter(Ct::Equal, binary("c1")),
                ],
            ),
            f(
                "KeyOnlyFilter",
                pb::KeyOnlyFilter {
                    len_as_val: Some(false),
                },
            ),
        ],
    );
    same(
        &e,
        nested,
        "(RowFilter(=, 'binary:a1') OR RowFilter(=, 'binary:c1')) AND KeyOnlyFilter()",
    );
    let skip = f(
        "SkipFilter",
        pb::SkipFilter {
            filter: Some(value_filter(Ct::NotEqual, binary("z"))),
        },
    );
    same(&e, skip, "SKIP ValueFilter(!=, 'binary:z')");
    let wh = f(
        "WhileMatchFilter",
        pb::WhileMatchFilter {
            filter: Some(row_filter(Ct::Less, binary("b"))),
        },
    );
    same(&e, wh, "WHILE RowFilter(<, 'binary:b')");
    let wrapped = f(
        "FilterWrapper",
        pb::FilterWrapper {
            filter: Some(prefix("b")),
        },
    );
    same(&e, wrapped, "PrefixFilter('b')");
}
