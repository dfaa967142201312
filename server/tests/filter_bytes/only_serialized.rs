//! What only the serialized form has: MultiRowRangeFilter, FuzzyRowFilter, column-offset
//! pagination, NO_OP, empty lists, and the Null, Bit, Long and flagged regex comparators.

use super::*;

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

/// Every row over a small alphabet with edge bytes (0x00, 0x7F, 0x80, 0xFF), one to three long.
fn edge_rows() -> (tempfile::TempDir, Engine, Vec<Vec<u8>>) {
    let (d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    let alphabet = [0x00u8, 0x01, 0x7f, 0x80, 0xfe, 0xff];
    let mut rows: Vec<Vec<u8>> = Vec::new();
    let mut frontier: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..3 {
        frontier = frontier
            .iter()
            .flat_map(|p| alphabet.iter().map(move |b| [p.as_slice(), &[*b]].concat()))
            .collect();
        rows.extend(frontier.iter().cloned());
    }
    rows.sort();
    let muts = rows
        .iter()
        .map(|r| RowMutation::new(r).with(Op::put_at(b"f", b"q", 1, b"v")))
        .collect();
    for r in e.mutate_rows("t", muts) {
        r.unwrap();
    }
    (d, e, rows)
}

fn raw_keys(e: &Engine, pbf: &pb::Filter, reversed: bool) -> Vec<Vec<u8>> {
    let mut s = Scan::new();
    s.reversed = reversed;
    s.options.filter = Some(decoded(pbf));
    e.scan("t", s)
        .unwrap()
        .map(|r| r.unwrap().row().to_vec())
        .collect()
}

/// The scan, with its seek hints, returns exactly the rows a plain check of every row keeps,
/// in both directions, among rows at least `min_len` long.
fn matches_model(
    e: &Engine,
    rows: &[Vec<u8>],
    pbf: &pb::Filter,
    min_len: usize,
    keep: impl Fn(&[u8]) -> bool,
) {
    let long = |r: &Vec<u8>| r.len() >= min_len;
    let want: Vec<Vec<u8>> = rows
        .iter()
        .filter(|r| long(r) && keep(r))
        .cloned()
        .collect();
    let got = |reversed| -> Vec<Vec<u8>> {
        raw_keys(e, pbf, reversed)
            .into_iter()
            .filter(long)
            .collect()
    };
    assert_eq!(got(false), want, "forward");
    let mut back = want;
    back.reverse();
    assert_eq!(got(true), back, "reversed");
}

#[test]
fn fuzzy_and_multi_range_hints_never_skip_a_matching_row() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let (_d, e, rows) = edge_rows();
    let byte = prop::sample::select(vec![0x00u8, 0x01, 0x7f, 0x80, 0xfe, 0xff]);
    let key = proptest::collection::vec((byte.clone(), any::<bool>()), 1..4);
    let mut runner = TestRunner::new(Config {
        cases: 200,
        ..Config::default()
    });
    runner
        .run(&proptest::collection::vec(key, 1..3), |pairs| {
            let data: Vec<(Vec<u8>, Vec<u8>)> = pairs
                .iter()
                .map(|p| {
                    let k = p.iter().map(|(b, _)| *b).collect();
                    let m = p.iter().map(|(_, free)| u8::from(*free)).collect();
                    (k, m)
                })
                .collect();
            let refs: Vec<(&[u8], &[u8])> = data
                .iter()
                .map(|(k, m)| (k.as_slice(), m.as_slice()))
                .collect();
            let flt = fuzzy(&refs, true);
            // A row shorter than a key matches on the bytes it has only when the scan reaches
            // it: HBase's hints (followed here) may jump over it. Longer rows must all be found.
            let longest = data.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
            matches_model(&e, &rows, &flt, longest, |row| {
                data.iter().any(|(k, m)| {
                    row.iter()
                        .zip(k.iter().zip(m))
                        .all(|(r, (k, m))| *m == 1 || r == k)
                })
            });
            Ok(())
        })
        .unwrap();
    let bound = (
        prop::option::of(proptest::collection::vec(byte, 1..3)),
        any::<bool>(),
    );
    let ranges = proptest::collection::vec((bound.clone(), bound), 1..4);
    runner
        .run(&ranges, |ranges| {
            let valid: Vec<_> = ranges
                .into_iter()
                .filter(|((s, _), (t, ti))| match (s, t) {
                    (Some(s), Some(t)) => s < t || (s == t && *ti),
                    _ => true,
                })
                .collect();
            if valid.is_empty() {
                return Ok(());
            }
            let pb_ranges = valid
                .iter()
                .map(|((s, si), (t, ti))| pb::RowRange {
                    start_row: s.clone().map(Into::into),
                    start_row_inclusive: Some(*si),
                    stop_row: t.clone().map(Into::into),
                    stop_row_inclusive: Some(*ti),
                })
                .collect();
            let flt = multi_range(pb_ranges);
            matches_model(&e, &rows, &flt, 0, |row| {
                valid.iter().any(|((s, si), (t, ti))| {
                    let after = match s {
                        None => true,
                        Some(s) => row > s.as_slice() || (*si && row == s.as_slice()),
                    };
                    let before = match t {
                        None => true,
                        Some(t) => row < t.as_slice() || (*ti && row == t.as_slice()),
                    };
                    after && before
                })
            });
            Ok(())
        })
        .unwrap();
}
