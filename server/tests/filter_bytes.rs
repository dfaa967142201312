//! Serialized filters (Thrift2 `filterBytes`): every filter and comparator encoded with the
//! prost types of server/proto/, decoded, and run by the real engine against the same results
//! as the equivalent filter string; the filters and comparators only this form has on their
//! own semantics; bytes HBase 2.6.1's own classes wrote (tests/oracle/filterbytes) decoded.
//! Hostile bytes through a real server are in bad_input.rs.

mod common;

use common::*;
use prost::Message;
use redbase::engine::*;
use redbase::filter::{self, proto::SerializedFilterError, wire as pb};

// ---------------------------------------------------------------------------------------------
// Encoding helpers
// ---------------------------------------------------------------------------------------------

const P: &str = "org.apache.hadoop.hbase.filter.";

fn f(class: &str, m: impl Message) -> pb::Filter {
    pb::Filter {
        name: Some(format!("{P}{class}")),
        serialized_filter: Some(m.encode_to_vec().into()),
    }
}

fn cmp(class: &str, m: impl Message) -> pb::Comparator {
    pb::Comparator {
        name: Some(format!("{P}{class}")),
        serialized_comparator: Some(m.encode_to_vec().into()),
    }
}

fn comparable(v: &[u8]) -> Option<pb::ByteArrayComparable> {
    Some(pb::ByteArrayComparable {
        value: Some(v.to_vec().into()),
    })
}

fn binary(v: &str) -> pb::Comparator {
    cmp(
        "BinaryComparator",
        pb::BinaryComparator {
            comparable: comparable(v.as_bytes()),
        },
    )
}

fn binary_prefix(v: &str) -> pb::Comparator {
    cmp(
        "BinaryPrefixComparator",
        pb::BinaryPrefixComparator {
            comparable: comparable(v.as_bytes()),
        },
    )
}

fn substring(v: &str) -> pb::Comparator {
    cmp(
        "SubstringComparator",
        pb::SubstringComparator {
            substr: Some(v.into()),
        },
    )
}

fn regex(p: &str, flags: i32) -> pb::Comparator {
    cmp(
        "RegexStringComparator",
        pb::RegexStringComparator {
            pattern: Some(p.into()),
            pattern_flags: Some(flags),
            charset: Some("UTF-8".into()),
            engine: Some("JAVA".into()),
        },
    )
}

fn bit(v: &[u8], op: pb::bit_comparator::BitwiseOp) -> pb::Comparator {
    cmp(
        "BitComparator",
        pb::BitComparator {
            comparable: comparable(v),
            bitwise_op: Some(op as i32),
        },
    )
}

fn long(v: i64) -> pb::Comparator {
    cmp(
        "LongComparator",
        pb::LongComparator {
            comparable: comparable(&v.to_be_bytes()),
        },
    )
}

fn null() -> pb::Comparator {
    cmp("NullComparator", pb::NullComparator {})
}

use pb::CompareType as Ct;

fn compare(op: Ct, c: pb::Comparator) -> Option<pb::CompareFilter> {
    Some(pb::CompareFilter {
        compare_op: Some(op as i32),
        comparator: Some(c),
    })
}

fn row_filter(op: Ct, c: pb::Comparator) -> pb::Filter {
    f(
        "RowFilter",
        pb::RowFilter {
            compare_filter: compare(op, c),
        },
    )
}

fn value_filter(op: Ct, c: pb::Comparator) -> pb::Filter {
    f(
        "ValueFilter",
        pb::ValueFilter {
            compare_filter: compare(op, c),
        },
    )
}

fn list(all: bool, filters: Vec<pb::Filter>) -> pb::Filter {
    let op = if all {
        pb::filter_list::Operator::MustPassAll
    } else {
        pb::filter_list::Operator::MustPassOne
    };
    f(
        "FilterList",
        pb::FilterList {
            operator: Some(op as i32),
            filters,
        },
    )
}

fn prefix(p: &str) -> pb::Filter {
    f(
        "PrefixFilter",
        pb::PrefixFilter {
            prefix: Some(p.as_bytes().to_vec().into()),
        },
    )
}

fn scvf(fam: &str, q: &str, op: Ct, c: pb::Comparator) -> pb::SingleColumnValueFilter {
    pb::SingleColumnValueFilter {
        column_family: Some(fam.as_bytes().to_vec().into()),
        column_qualifier: Some(q.as_bytes().to_vec().into()),
        compare_op: Some(op as i32),
        comparator: Some(c),
        filter_if_missing: Some(false),
        latest_version_only: Some(true),
    }
}

fn range(start: &str, si: bool, stop: &str, so: bool) -> pb::RowRange {
    pb::RowRange {
        start_row: Some(start.as_bytes().to_vec().into()),
        start_row_inclusive: Some(si),
        stop_row: Some(stop.as_bytes().to_vec().into()),
        stop_row_inclusive: Some(so),
    }
}

fn multi_range(ranges: Vec<pb::RowRange>) -> pb::Filter {
    f(
        "MultiRowRangeFilter",
        pb::MultiRowRangeFilter {
            row_range_list: ranges,
        },
    )
}

fn fuzzy(pairs: &[(&[u8], &[u8])], v2: bool) -> pb::Filter {
    f(
        "FuzzyRowFilter",
        pb::FuzzyRowFilter {
            fuzzy_keys_data: pairs
                .iter()
                .map(|(k, m)| pb::BytesBytesPair {
                    first: Some(k.to_vec().into()),
                    second: Some(m.to_vec().into()),
                })
                .collect(),
            is_mask_v2: Some(v2),
        },
    )
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

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

fn decoded(pbf: &pb::Filter) -> Box<dyn Filter> {
    filter::from_serialized(&pbf.encode_to_vec()).unwrap()
}

fn run(e: &Engine, flt: Box<dyn Filter>, reversed: bool, versions: u32) -> Vec<String> {
    let mut s = Scan::new();
    s.reversed = reversed;
    s.options.filter = Some(flt);
    s.options.max_versions = versions;
    e.scan("t", s)
        .unwrap()
        .map(|r| render(&r.unwrap()))
        .collect()
}

fn scan(e: &Engine, pbf: &pb::Filter) -> Vec<String> {
    run(e, decoded(pbf), false, 1)
}

fn scan_rev(e: &Engine, pbf: &pb::Filter) -> Vec<String> {
    run(e, decoded(pbf), true, 1)
}

fn keys(rows: Vec<String>) -> Vec<String> {
    rows.into_iter()
        .map(|r| r[..r.find('[').unwrap()].to_string())
        .collect()
}

/// The serialized filter gives what the filter string gives: scans forward and reversed with
/// one and three versions, and a get of every row.
fn same(e: &Engine, pbf: pb::Filter, s: &str) {
    for reversed in [false, true] {
        for versions in [1, 3] {
            let want = run(e, filter::parse(s).unwrap(), reversed, versions);
            let got = run(e, decoded(&pbf), reversed, versions);
            assert_eq!(got, want, "{s} (reversed {reversed}, versions {versions})");
        }
    }
    for row in ["a1", "a2", "b1", "b2", "c1"] {
        let get = |flt| {
            let mut o = ReadOptions::default().versions(3);
            o.filter = Some(flt);
            e.get("t", Get::with(row.as_bytes(), o))
                .unwrap()
                .map(|r| render(&r))
        };
        assert_eq!(
            get(decoded(&pbf)),
            get(filter::parse(s).unwrap()),
            "{s}, get {row}"
        );
    }
}

/// Rows a1 a2 b1 b2 c1 in families f and g (both keep 3 versions), as filters.rs has them.
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

fn err(pbf: &pb::Filter) -> String {
    match filter::from_serialized(&pbf.encode_to_vec()) {
        Ok(_) => panic!("decoded, expected an error"),
        Err(e) => e.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// The filter language's 19 filters, lists, SKIP and WHILE: same results as the strings
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// What only the serialized form has
// ---------------------------------------------------------------------------------------------

#[test]
fn empty_lists_pass_everything_and_a_missing_prefix_drops_everything() {
    let (_d, e) = fixture();
    let all = keys(scan(&e, &list(true, vec![])));
    assert_eq!(all, ["a1", "a2", "b1", "b2", "c1"]);
    assert_eq!(keys(scan(&e, &list(false, vec![]))), all);
    let no_prefix = f("PrefixFilter", pb::PrefixFilter { prefix: None });
    assert!(scan(&e, &no_prefix).is_empty());
}

#[test]
fn no_op_drops_what_the_compare_filters_test() {
    let (_d, e) = fixture();
    assert!(scan(&e, &row_filter(Ct::NoOp, binary("a1"))).is_empty());
    assert!(scan(&e, &value_filter(Ct::NoOp, binary("1"))).is_empty());
    // Without a comparator NO_OP still decodes (HBase never consults it).
    let bare = f(
        "RowFilter",
        pb::RowFilter {
            compare_filter: Some(pb::CompareFilter {
                compare_op: Some(Ct::NoOp as i32),
                comparator: None,
            }),
        },
    );
    assert!(scan(&e, &bare).is_empty());
    // A SingleColumnValueFilter cannot test with it.
    let e2 = err(&f(
        "SingleColumnValueFilter",
        scvf("f", "a", Ct::NoOp, binary("1")),
    ));
    assert!(e2.contains("NO_OP"), "{e2}");
}

#[test]
fn column_pagination_from_a_qualifier() {
    let (_d, e) = fixture();
    let from = |limit, q: &str| {
        f(
            "ColumnPaginationFilter",
            pb::ColumnPaginationFilter {
                limit: Some(limit),
                offset: None,
                column_offset: Some(q.as_bytes().to_vec().into()),
            },
        )
    };
    // Qualifiers before the offset are skipped in every family (g:c and g:d too).
    assert_eq!(scan(&e, &from(2, "y")), ["c1[f:y@1=abd f:z@1=xyz]"]);
    // The qualifier is only compared until a column is taken: after f:b, family g's c passes.
    assert_eq!(scan(&e, &from(3, "b"))[0], "a1[f:b@1=2 g:c@1=3]");
    assert_eq!(scan(&e, &from(0, "a")), Vec::<String>::new());
}

#[test]
fn multi_row_ranges_merge_and_seek_both_ways() {
    let (_d, e) = fixture();
    let cases: Vec<(Vec<pb::RowRange>, Vec<&str>)> = vec![
        (vec![range("a2", true, "b1", true)], vec!["a2", "b1"]),
        (vec![range("a2", false, "b2", false)], vec!["b1"]),
        // Open ends: "" starts at the first row, ends after the last.
        (vec![range("", true, "a2", false)], vec!["a1"]),
        (vec![range("b2", true, "", false)], vec!["b2", "c1"]),
        // Overlapping and touching ranges merge; order does not matter.
        (
            vec![
                range("b1", true, "c", false),
                range("a1", true, "a2", false),
                range("a2", true, "b1", false),
            ],
            vec!["a1", "a2", "b1", "b2"],
        ),
        (
            vec![range("a1", true, "a1", true), range("c1", true, "c1", true)],
            vec!["a1", "c1"],
        ),
        (vec![range("x", true, "z", true)], vec![]),
    ];
    for (ranges, want) in cases {
        let flt = multi_range(ranges.clone());
        assert_eq!(keys(scan(&e, &flt)), want, "{ranges:?}");
        let mut back: Vec<&str> = want.clone();
        back.reverse();
        assert_eq!(keys(scan_rev(&e, &flt)), back, "reversed {ranges:?}");
    }
    let e1 = err(&multi_range(vec![]));
    assert!(e1.contains("no row ranges"), "{e1}");
    let e2 = err(&multi_range(vec![range("b", true, "a", false)]));
    assert!(e2.contains("invalid row range"), "{e2}");
}

#[test]
fn multi_row_ranges_seek_instead_of_reading_every_row() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    for i in 0..2000 {
        put(&e, "t", &format!("r{i:04}"), "f:q", 1, "v");
    }
    let reads = |e: &Engine| -> u64 { e.regions("t").unwrap().iter().map(|r| r.reads).sum() };
    let flt = multi_range(vec![
        range("r0100", true, "r0105", false),
        range("r1900", true, "r1902", true),
    ]);
    for reversed in [false, true] {
        let before = reads(&e);
        let rows = run(&e, decoded(&flt), reversed, 1);
        assert_eq!(rows.len(), 8);
        let read = reads(&e) - before;
        assert!(read <= 20, "read {read} rows for 8 (reversed {reversed})");
    }
}

#[test]
fn fuzzy_masks_match_in_both_forms_and_seek() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    for u in ["u1", "u2", "u3"] {
        for a in ["01", "99"] {
            for m in ["jan", "feb"] {
                put(&e, "t", &format!("{u}_{a}_{m}"), "f:q", 1, "v");
            }
        }
    }
    put(&e, "t", "u4", "f:q", 1, "short");
    // "u4" is shorter than the key and its two bytes are free: HBase matches it too.
    let want = ["u1_99_jan", "u2_99_jan", "u3_99_jan", "u4"];
    // "??_99_jan": 0 = fixed, 1 = any (and HBase's processed form: 0xFF fixed, 2 any).
    let raw: &[u8] = &[1, 1, 0, 0, 0, 0, 0, 0, 0];
    let processed: &[u8] = &[2, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF];
    for mask in [raw, processed] {
        let flt = fuzzy(&[(b"??_99_jan", mask)], true);
        assert_eq!(keys(scan(&e, &flt)), want);
        let mut back = want.to_vec();
        back.reverse();
        assert_eq!(keys(scan_rev(&e, &flt)), back);
    }
    // Two pairs; a row shorter than a key matches on the bytes it has (as HBase's does).
    let two = fuzzy(
        &[
            (b"u2_01_???", &[0, 0, 0, 0, 0, 0, 1, 1, 1]),
            (b"u4_", &[0, 0, 1]),
        ],
        true,
    );
    assert_eq!(keys(scan(&e, &two)), ["u2_01_feb", "u2_01_jan", "u4"]);
    assert_eq!(keys(scan_rev(&e, &two)), ["u4", "u2_01_jan", "u2_01_feb"]);
    // Without is_mask_v2 a mask of only 0s is HBase 1's processed form: every byte free.
    let legacy = fuzzy(&[(b"zz", &[0, 0])], false);
    assert_eq!(scan(&e, &legacy).len(), 13);
    let fixed = fuzzy(&[(b"zz", &[0, 0])], true);
    assert!(scan(&e, &fixed).is_empty());
    let e1 = err(&fuzzy(&[(b"ab", &[0])], true));
    assert!(e1.contains("same length"), "{e1}");
    let e2 = err(&fuzzy(&[(b"ab", &[0, 7])], true));
    assert!(e2.contains("mask byte"), "{e2}");
}

#[test]
fn fuzzy_rows_seek_instead_of_reading_every_row() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    for a in 0..40 {
        for b in 0..50 {
            put(&e, "t", &format!("{a:02}-{b:02}"), "f:q", 1, "v");
        }
    }
    let reads = |e: &Engine| -> u64 { e.regions("t").unwrap().iter().map(|r| r.reads).sum() };
    // "??-07": one row in every 50.
    let flt = fuzzy(&[(b"??-07", &[1, 1, 0, 0, 0])], true);
    for reversed in [false, true] {
        let before = reads(&e);
        let rows = run(&e, decoded(&flt), reversed, 1);
        assert_eq!(rows.len(), 40);
        let read = reads(&e) - before;
        assert!(read < 400, "read {read} of 2000 rows (reversed {reversed})");
    }
}

#[test]
fn comparators_only_serialized_filters_have() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    let put_bytes = |row: &str, v: &[u8]| {
        e.mutate_row(
            "t",
            RowMutation::new(row.as_bytes()).with(Op::put_at(b"f", b"q", 1, v)),
        )
        .unwrap();
    };
    put_bytes("empty", b"");
    put_bytes("l-1", &(-1i64).to_be_bytes());
    put_bytes("l42", &42i64.to_be_bytes());
    put_bytes("l7", &7i64.to_be_bytes());
    put_bytes("l9tail", &[&9i64.to_be_bytes()[..], b"tail"].concat());
    put_bytes("m0f", &[0x0f]);
    put_bytes("mf0", &[0xf0]);
    put_bytes("mff00", &[0xff, 0x00]);
    put_bytes("text", b"Hello\nWorld");
    use pb::bit_comparator::BitwiseOp;
    let rows = |flt: pb::Filter| keys(scan(&e, &flt));
    // Null: a cell is never null, so = matches nothing and != everything (even empty values).
    assert!(rows(value_filter(Ct::Equal, null())).is_empty());
    assert_eq!(rows(value_filter(Ct::NotEqual, null())).len(), 9);
    // Bit: "equal" when the lengths agree and the operation leaves a bit set.
    assert_eq!(
        rows(value_filter(Ct::Equal, bit(&[0x0f], BitwiseOp::And))),
        ["m0f"]
    );
    assert_eq!(
        rows(value_filter(Ct::Equal, bit(&[0x0f], BitwiseOp::Xor))),
        ["mf0"]
    );
    assert_eq!(
        rows(value_filter(Ct::Equal, bit(&[0x00], BitwiseOp::Or))),
        ["m0f", "mf0"]
    );
    assert_eq!(
        rows(value_filter(Ct::NotEqual, bit(&[0x0f], BitwiseOp::And))),
        ["empty", "l-1", "l42", "l7", "l9tail", "mf0", "mff00", "text"]
    );
    assert_eq!(
        rows(value_filter(Ct::Equal, bit(&[0x00, 0x01], BitwiseOp::Xor))),
        ["mff00"]
    );
    // Long: signed 8-byte values (the first 8 bytes of a longer one); shorter cells pass no
    // operator.
    assert_eq!(
        rows(value_filter(Ct::Greater, long(7))),
        ["l42", "l9tail", "text"]
    );
    assert_eq!(rows(value_filter(Ct::Less, long(7))), ["l-1"]);
    assert_eq!(
        rows(value_filter(Ct::NotEqual, long(7))),
        ["l-1", "l42", "l9tail", "text"]
    );
    // Regex flags: MULTILINE, DOTALL, CASE_INSENSITIVE, LITERAL; misses compare as less.
    assert_eq!(
        rows(value_filter(Ct::Equal, regex("^World$", 0x08))),
        ["text"]
    );
    assert!(rows(value_filter(Ct::Equal, regex("^World$", 0))).is_empty());
    assert!(rows(value_filter(Ct::Equal, regex("o.W", 0))).is_empty());
    assert_eq!(rows(value_filter(Ct::Equal, regex("o.W", 0x20))), ["text"]);
    assert_eq!(
        rows(value_filter(Ct::Equal, regex("HELLO", 0x02))),
        ["text"]
    );
    assert!(rows(value_filter(Ct::Equal, regex("l.o", 0x10))).is_empty());
    assert_eq!(rows(value_filter(Ct::Less, regex("Hello", 0))).len(), 8);
    // ISO-8859-1 reads each byte as one character.
    let latin1 = cmp(
        "RegexStringComparator",
        pb::RegexStringComparator {
            pattern: Some("^\u{f0}$".into()),
            pattern_flags: Some(0),
            charset: Some("ISO-8859-1".into()),
            engine: None,
        },
    );
    assert_eq!(rows(value_filter(Ct::Equal, latin1)), ["mf0"]);
    // Refused: CANON_EQ, unknown engines and charsets, a short long.
    let e1 = err(&value_filter(Ct::Equal, regex("a", 0x80)));
    assert!(e1.contains("CANON_EQ"), "{e1}");
    let bad = |engine: &str, charset: &str| {
        value_filter(
            Ct::Equal,
            cmp(
                "RegexStringComparator",
                pb::RegexStringComparator {
                    pattern: Some("a".into()),
                    pattern_flags: Some(0),
                    charset: Some(charset.into()),
                    engine: Some(engine.into()),
                },
            ),
        )
    };
    assert!(err(&bad("PCRE", "UTF-8")).contains("unknown engine"));
    assert!(err(&bad("JAVA", "UTF-16")).contains("not supported"));
    let short = value_filter(
        Ct::Equal,
        cmp(
            "LongComparator",
            pb::LongComparator {
                comparable: comparable(&[0, 1]),
            },
        ),
    );
    assert!(err(&short).contains("8"));
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_filters_are_named_errors() {
    let unknown = pb::Filter {
        name: Some("com.example.MyFilter".into()),
        serialized_filter: None,
    };
    let m = err(&unknown);
    assert!(
        m.contains("com.example.MyFilter") && m.contains("PrefixFilter"),
        "{m}"
    );
    let m = err(&value_filter(
        Ct::Equal,
        pb::Comparator {
            name: Some(format!("{P}PrefixFilter")),
            serialized_comparator: None,
        },
    ));
    assert!(m.contains("unknown comparator class"), "{m}");
    let m = err(&f(
        "PageFilter",
        pb::PageFilter {
            page_size: Some(-1),
        },
    ));
    assert!(m.contains("must not be negative"), "{m}");
    let m = err(&f("PageFilter", pb::PageFilter { page_size: None }));
    assert!(m.contains("page_size"), "{m}");
    let m = err(&f(
        "MultipleColumnPrefixFilter",
        pb::MultipleColumnPrefixFilter {
            sorted_prefixes: vec![],
        },
    ));
    assert!(m.contains("no prefixes"), "{m}");
    let m = err(&value_filter(Ct::Equal, binary("x"))
        .clone()
        .tap_bytes(b"\xff\xff"));
    assert!(m.contains("cannot decode"), "{m}");
    // Bad UTF-8 in a class name.
    let mut raw = pb::Filter {
        name: Some("x".into()),
        serialized_filter: None,
    }
    .encode_to_vec();
    raw[2] = 0xff;
    let m = filter::from_serialized(&raw).err().unwrap();
    assert!(m.can_retry(), "{m}");
    // Nesting: 100 levels decode, 101 do not, 10,000 fail fast.
    let deep = |n| {
        let mut flt = prefix("a");
        for _ in 1..n {
            flt = list(true, vec![flt]);
        }
        flt.encode_to_vec()
    };
    assert!(filter::from_serialized(&deep(100)).is_ok());
    assert!(matches!(
        filter::from_serialized(&deep(101)),
        Err(SerializedFilterError::TooDeep { limit: 100 })
    ));
    let started = std::time::Instant::now();
    assert!(filter::from_serialized(&deep(10_000)).is_err());
    assert!(started.elapsed().as_secs() < 5);
}

/// Replaces a filter's serialized message with other bytes.
trait TapBytes {
    fn tap_bytes(self, b: &[u8]) -> Self;
}

impl TapBytes for pb::Filter {
    fn tap_bytes(mut self, b: &[u8]) -> Self {
        self.serialized_filter = Some(b.to_vec().into());
        self
    }
}

// ---------------------------------------------------------------------------------------------
// Bytes written by HBase 2.6.1's own classes (tests/oracle/filterbytes/filters.tsv)
// ---------------------------------------------------------------------------------------------

/// (what HBase's FilterBytes.java built, its toByteArray as hex).
const HBASE_BYTES: [(&str, &str); 8] = [
    (
        "PrefixFilter(k_ab)",
        "0a2b6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e50726566697846696c74657212060a046b5f6162",
    ),
    (
        "ColumnPaginationFilter(limit 2, column offset b)",
        "0a356f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e436f6c756d6e506167696e6174696f6e46696c746572120508021a0162",
    ),
    (
        "TimestampsFilter(5, 20)",
        "0a2f6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e54696d657374616d707346696c74657212060a0205141000",
    ),
    (
        "ValueFilter(=, regex dog.line2 DOTALL|CASE_INSENSITIVE)",
        "0a2a6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e56616c756546696c74657212580a56080212520a346f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e5265676578537472696e67436f6d70617261746f72121a0a09646f672e6c696e653210221a055554462d3822044a415641",
    ),
    (
        "ValueFilter(=, BitComparator XOR 0f)",
        "0a2a6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e56616c756546696c746572123d0a3b080212370a2c6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e426974436f6d70617261746f7212070a030a010f1003",
    ),
    (
        "SingleColumnValueFilter(cf:c > LongComparator 5)",
        "0a366f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e53696e676c65436f6c756d6e56616c756546696c746572124c0a0263661201631805223d0a2d6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e4c6f6e67436f6d70617261746f72120c0a0a0a08000000000000000528003001",
    ),
    (
        "MultiRowRangeFilter([k_, k_b), [r02, r03])",
        "0a326f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e4d756c7469526f7752616e676546696c746572121f0a0d0a026b5f10011a036b5f6220000a0e0a0372303210011a037230332001",
    ),
    (
        "FuzzyRowFilter(r0?, k_ab?)",
        "0a2d6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e46757a7a79526f7746696c746572121e0a0a0a0372303f12030000010a0e0a056b5f61623f120500000000011001",
    ),
];

#[test]
fn hbase_bytes_are_what_our_types_write() {
    let ours: [pb::Filter; 8] = [
        prefix("k_ab"),
        f(
            "ColumnPaginationFilter",
            pb::ColumnPaginationFilter {
                limit: Some(2),
                offset: None,
                column_offset: Some(b"b".to_vec().into()),
            },
        ),
        f(
            "TimestampsFilter",
            pb::TimestampsFilter {
                timestamps: vec![5, 20],
                can_hint: Some(false),
            },
        ),
        value_filter(Ct::Equal, regex("dog.line2", 0x22)),
        value_filter(Ct::Equal, bit(&[0x0f], pb::bit_comparator::BitwiseOp::Xor)),
        f("SingleColumnValueFilter", {
            let mut m = scvf("cf", "c", Ct::Greater, long(5));
            m.filter_if_missing = Some(false);
            m.latest_version_only = Some(true);
            m
        }),
        multi_range(vec![
            range("k_", true, "k_b", false),
            range("r02", true, "r03", true),
        ]),
        fuzzy(&[(b"r0?", &[0, 0, 1]), (b"k_ab?", &[0, 0, 0, 0, 1])], true),
    ];
    for ((what, h), mine) in HBASE_BYTES.iter().zip(ours) {
        assert_eq!(hex_of(&mine.encode_to_vec()), *h, "{what}");
        assert!(filter::from_serialized(&hex(h)).is_ok(), "{what}");
    }
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every line of the oracle's table decodes, except the ones it marks malformed, when the
/// table is there (it belongs to the HBase oracle suite).
#[test]
fn every_hbase_written_filter_decodes() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/oracle/filterbytes/filters.tsv"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (what, h) = line.split_once('\t').unwrap();
        let r = filter::from_serialized(&hex(h.trim()));
        if what.starts_with("malformed") {
            assert!(r.is_err(), "{what} decoded");
        } else {
            assert!(r.is_ok(), "{what}: {}", r.err().unwrap());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Fuzzing: any bytes decode or fail, and whatever decodes runs
// ---------------------------------------------------------------------------------------------

/// Valid encodings to mutate: one of each kind of filter and comparator.
fn corpus() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = HBASE_BYTES.iter().map(|(_, h)| hex(h)).collect();
    for flt in [
        list(
            false,
            vec![
                prefix("a"),
                value_filter(Ct::Less, long(3)),
                value_filter(Ct::Equal, null()),
            ],
        ),
        f(
            "SkipFilter",
            pb::SkipFilter {
                filter: Some(value_filter(Ct::NotEqual, substring("x"))),
            },
        ),
        fuzzy(&[(b"a?", &[0, 1])], true),
        multi_range(vec![range("a", true, "b", false)]),
        row_filter(Ct::Greater, regex("^b", 0x22)),
    ] {
        out.push(flt.encode_to_vec());
    }
    out
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    fn check(e: &Engine, bytes: &[u8]) {
        if let Ok(flt) = filter::from_serialized(bytes) {
            let mut s = Scan::new();
            s.options.filter = Some(flt);
            let _ = e.scan("t", s).unwrap().count();
        }
    }

    fn runner() -> TestRunner {
        TestRunner::new(Config {
            cases: 1000,
            ..Config::default()
        })
    }

    #[test]
    fn any_bytes_decode_or_fail() {
        let (_d, e) = fixture();
        let bytes = proptest::collection::vec(any::<u8>(), 0..200);
        runner()
            .run(&bytes, |b| {
                check(&e, &b);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn mutated_encodings_decode_or_fail_and_run() {
        let (_d, e) = fixture();
        let all = corpus();
        let edits = proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6);
        let input = (
            any::<prop::sample::Index>(),
            edits,
            any::<prop::sample::Index>(),
        );
        runner()
            .run(&input, |(pick, edits, cut)| {
                let mut bytes = all[pick.index(all.len())].clone();
                for (at, v) in edits {
                    let i = at.index(bytes.len());
                    bytes[i] = v;
                }
                check(&e, &bytes);
                check(&e, &bytes[..cut.index(bytes.len() + 1)]);
                Ok(())
            })
            .unwrap();
    }
}
