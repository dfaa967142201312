//! RandomRowFilter, BigDecimalComparator and BinaryComponentComparator: the last classes HBase's
//! Java client can send, run through the engine.

use super::*;

fn random_row(chance: f32) -> pb::Filter {
    f(
        "RandomRowFilter",
        pb::RandomRowFilter {
            chance: Some(chance),
        },
    )
}

/// HBase's `Bytes.toBytes(BigDecimal)` of a decimal literal such as "-12.50" or "1E+3": the
/// scale (4 bytes, big-endian), then the unscaled value's shortest two's-complement bytes.
fn decimal(s: &str) -> Vec<u8> {
    let (mantissa, exp) = match s.split_once(['E', 'e']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap()),
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let unscaled: i128 = format!("{int}{frac}").parse().unwrap();
    let scale = frac.len() as i32 - exp;
    scaled(unscaled, scale)
}

/// HBase's encoding of `unscaled * 10^-scale`.
fn scaled(unscaled: i128, scale: i32) -> Vec<u8> {
    let full = unscaled.to_be_bytes();
    // Drop leading bytes that only repeat the sign (BigInteger.toByteArray keeps one).
    let mut at = 0;
    while at < 15 {
        let (b, next) = (full[at], full[at + 1]);
        if (b == 0x00 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0) {
            at += 1;
        } else {
            break;
        }
    }
    [&scale.to_be_bytes()[..], &full[at..]].concat()
}

fn big_decimal(v: &[u8]) -> pb::Comparator {
    cmp(
        "BigDecimalComparator",
        pb::BigDecimalComparator {
            comparable: comparable(v),
        },
    )
}

fn component(v: &[u8], offset: u32) -> pb::Comparator {
    cmp(
        "BinaryComponentComparator",
        pb::BinaryComponentComparator {
            value: Some(v.to_vec().into()),
            offset: Some(offset),
        },
    )
}

#[test]
fn decimal_encoding_is_hbases() {
    // Bytes.toHex(Bytes.toBytes(new BigDecimal(...))) from HBase 2.6.1.
    assert_eq!(decimal("1.00"), hex("0000000264"));
    assert_eq!(decimal("-12.5"), hex("0000000183"));
    assert_eq!(decimal("1E+3"), hex("fffffffd01"));
    assert_eq!(decimal("1.0"), hex("000000010a"));
    assert_eq!(decimal("128"), hex("000000000080"));
    assert_eq!(decimal("-128"), hex("0000000080"));
}

#[test]
fn random_rows_at_the_edges_are_all_or_nothing() {
    let (_d, e) = fixture();
    let all = ["a1", "a2", "b1", "b2", "c1"];
    for _ in 0..20 {
        assert!(scan(&e, &random_row(0.0)).is_empty());
        assert_eq!(keys(scan(&e, &random_row(1.0))), all);
        assert_eq!(keys(scan_rev(&e, &random_row(1.0))).len(), 5);
        // Below 0 drops every row, above 1 keeps every row, NaN drops every row.
        assert!(scan(&e, &random_row(-0.5)).is_empty());
        assert_eq!(keys(scan(&e, &random_row(7.0))), all);
        assert!(scan(&e, &random_row(f32::NAN)).is_empty());
    }
    // A kept row keeps all its cells and versions.
    assert_eq!(
        run(&e, decoded(&random_row(1.0)), false, 3),
        run(&e, decoded(&list(true, vec![])), false, 3)
    );
    // Gets too.
    let get = |chance| {
        let o = ReadOptions::default().filter(decoded(&random_row(chance)));
        e.get("t", Get::with(b"a1", o)).unwrap()
    };
    assert!(get(0.0).is_none());
    assert_eq!(
        get(1.0).map(|r| render(&r)),
        Some("a1[f:a@1=1 f:b@1=2 g:c@1=3]".into())
    );
    // In a list: dropped rows stay dropped whatever the other filter says.
    assert!(scan(&e, &list(false, vec![random_row(0.0), prefix("zz")])).is_empty());
    assert_eq!(
        keys(scan(&e, &list(false, vec![random_row(0.0), prefix("b")]))),
        ["b1", "b2"]
    );
    assert_eq!(
        keys(scan(&e, &list(true, vec![random_row(1.0), prefix("b")]))),
        ["b1", "b2"]
    );
    // The chance is required, as in HBase.
    let m = err(&f("RandomRowFilter", pb::RandomRowFilter { chance: None }));
    assert!(m.contains("chance"), "{m}");
}

#[test]
fn random_rows_at_one_half_keep_about_half() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    let muts = (0..2000)
        .map(|i| {
            RowMutation::new(format!("r{i:04}").as_bytes()).with(Op::put_at(b"f", b"q", 1, b"v"))
        })
        .collect();
    for r in e.mutate_rows("t", muts) {
        r.unwrap();
    }
    let flt = random_row(0.5);
    let first = keys(scan(&e, &flt));
    // 1000 expected, standard deviation about 22: 800..1200 is a 9-sigma band.
    assert!((800..=1200).contains(&first.len()), "{}", first.len());
    // Each scan draws afresh: two samples of about 1000 rows are not the same.
    let second = keys(scan(&e, &flt));
    assert!((800..=1200).contains(&second.len()), "{}", second.len());
    assert_ne!(first, second);
    let quarter = scan(&e, &random_row(0.25)).len();
    assert!((350..=650).contains(&quarter), "{quarter}");
}

#[test]
fn random_rows_need_whole_rows() {
    let (_d, e) = fixture();
    let mut s = Scan::new();
    s.batch = 1;
    s.options.filter = Some(decoded(&random_row(1.0)));
    let out: Vec<_> = e.scan("t", s).unwrap().collect();
    let err = out.iter().find_map(|r| r.as_ref().err()).expect("an error");
    assert!(matches!(err, ReadError::IncompatibleFilter(_)), "{err}");
}

/// One value per row in f:q, written as raw bytes.
fn values(vals: &[(&str, Vec<u8>)]) -> (tempfile::TempDir, Engine) {
    let (d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    for (row, v) in vals {
        e.mutate_row(
            "t",
            RowMutation::new(row.as_bytes()).with(Op::put_at(b"f", b"q", 1, v)),
        )
        .unwrap();
    }
    (d, e)
}

#[test]
fn big_decimals_compare_by_numeric_value() {
    let (_d, e) = values(&[
        ("d-huge", decimal("-1E+40")),
        ("d-neg", decimal("-12.5")),
        ("d0", decimal("0")),
        ("d0scaled", decimal("0.000")),
        ("d1", decimal("1")),
        ("d1.0", decimal("1.0")),
        ("d1.00", decimal("1.00")),
        ("d1.001", decimal("1.001")),
        ("d2", decimal("2")),
        ("d999", decimal("999.99")),
        ("d1e3", decimal("1E+3")),
        ("short", b"abcd".to_vec()),
        ("x-empty", Vec::new()),
    ]);
    let rows = |op, v: &str| keys(scan(&e, &value_filter(op, big_decimal(&decimal(v)))));
    assert_eq!(rows(Ct::Equal, "1"), ["d1", "d1.0", "d1.00"]);
    assert_eq!(rows(Ct::Equal, "1.0000"), ["d1", "d1.0", "d1.00"]);
    assert_eq!(rows(Ct::Equal, "0E+7"), ["d0", "d0scaled"]);
    assert_eq!(rows(Ct::Less, "1.0"), ["d-huge", "d-neg", "d0", "d0scaled"]);
    assert_eq!(
        rows(Ct::LessOrEqual, "1"),
        ["d-huge", "d-neg", "d0", "d0scaled", "d1", "d1.0", "d1.00"]
    );
    assert_eq!(rows(Ct::Greater, "1"), ["d1.001", "d1e3", "d2", "d999"]);
    assert_eq!(rows(Ct::GreaterOrEqual, "999.990"), ["d1e3", "d999"]);
    assert_eq!(
        rows(Ct::Greater, "-12.51"),
        rows(Ct::GreaterOrEqual, "-12.5")
    );
    assert_eq!(rows(Ct::Less, "-1E+39"), ["d-huge"]);
    // Cells of fewer than 5 bytes are no decimal: HBase's scan fails on them; here they pass
    // no operator, not even !=.
    let ne = rows(Ct::NotEqual, "1");
    assert_eq!(ne.len(), 8, "{ne:?}");
    assert!(!ne.iter().any(|r| r == "short" || r == "x-empty"), "{ne:?}");
    // In a SingleColumnValueFilter and reversed.
    let scvf_rows = |op, v: &str| {
        keys(scan_rev(
            &e,
            &f("SingleColumnValueFilter", {
                let mut m = scvf("f", "q", op, big_decimal(&decimal(v)));
                m.filter_if_missing = Some(true);
                m
            }),
        ))
    };
    assert_eq!(scvf_rows(Ct::Greater, "2"), ["d999", "d1e3"]);
}

#[test]
fn big_decimal_scales_at_the_ends_of_the_int_range() {
    // Scales near ±2^31: 10^±2147483647 cannot be materialised, and is not needed.
    let (_d, e) = values(&[
        ("tiny", scaled(1, i32::MAX)),
        ("tiny-neg", scaled(-1, i32::MAX)),
        ("vast", scaled(1, i32::MIN)),
        ("vast-neg", scaled(-1, i32::MIN)),
        ("one", decimal("1")),
        ("ten-tiny", scaled(10, i32::MAX)),
    ]);
    let rows = |op, v: Vec<u8>| keys(scan(&e, &value_filter(op, big_decimal(&v))));
    let started = std::time::Instant::now();
    assert_eq!(
        rows(Ct::Greater, decimal("0")),
        ["one", "ten-tiny", "tiny", "vast"]
    );
    assert_eq!(rows(Ct::Less, decimal("-1E+100")), ["vast-neg"]);
    assert_eq!(
        rows(Ct::Less, scaled(2, i32::MAX)),
        ["tiny", "tiny-neg", "vast-neg"]
    );
    assert_eq!(rows(Ct::Equal, scaled(100, i32::MAX)), Vec::<String>::new());
    assert_eq!(rows(Ct::Equal, scaled(1, i32::MIN)), ["vast"]);
    // 10 * 10^-(2^31-1) is 1 * 10^-(2^31-2): equal, with the scales one apart.
    assert_eq!(rows(Ct::Equal, scaled(1, i32::MAX - 1)), ["ten-tiny"]);
    assert!(started.elapsed().as_secs() < 5);
}

#[test]
fn a_big_decimal_comparator_needs_a_decimal() {
    for bad in [&b""[..], b"\x00\x00\x00\x01"] {
        let m = err(&value_filter(Ct::Equal, big_decimal(bad)));
        assert!(m.contains("BigDecimal needs at least 5"), "{m}");
    }
    let missing = cmp(
        "BigDecimalComparator",
        pb::BigDecimalComparator { comparable: None },
    );
    let m = err(&value_filter(Ct::Equal, missing));
    assert!(m.contains("comparable"), "{m}");
}

#[test]
fn binary_components_compare_bytes_at_an_offset() {
    let (_d, e) = fixture();
    let rows = |op, v: &str, at| keys(scan(&e, &row_filter(op, component(v.as_bytes(), at))));
    // Row keys a1 a2 b1 b2 c1.
    assert_eq!(rows(Ct::Equal, "1", 1), ["a1", "b1", "c1"]);
    assert_eq!(rows(Ct::Equal, "b2", 0), ["b2"]);
    assert_eq!(rows(Ct::Greater, "b", 0), ["c1"]);
    assert_eq!(rows(Ct::LessOrEqual, "1", 1), ["a1", "b1", "c1"]);
    assert_eq!(rows(Ct::NotEqual, "2", 1), ["a1", "b1", "c1"]);
    // Only the component counts, not what follows it (unlike BinaryComparator).
    assert_eq!(rows(Ct::Equal, "a", 0), ["a1", "a2"]);
    // An empty component is equal to any row, at any offset.
    assert_eq!(rows(Ct::Equal, "", 9).len(), 5);
    // A component that runs past the row's end with no differing byte before it passes no
    // operator (HBase's scan fails there): a1, b1 and c1 match "1" and then end. A byte that
    // differs before the end decides, as in HBase (a2 and b2 differ at once).
    assert!(rows(Ct::Equal, "1x", 1).is_empty());
    assert_eq!(rows(Ct::NotEqual, "1x", 1), ["a2", "b2"]);
    assert!(rows(Ct::NotEqual, "x", 2).is_empty());
    assert_eq!(rows(Ct::Less, "2x", 1), ["a1", "b1", "c1"]);
    assert_eq!(rows(Ct::NotEqual, "b1x", 0), ["a1", "a2", "b2", "c1"]);
    // Offsets above 2^31 - 1 are negative ints in Java: nothing passes.
    assert!(rows(Ct::NotEqual, "a", u32::MAX).is_empty());
    assert_eq!(rows(Ct::Equal, "", u32::MAX).len(), 5);
    // Reversed, and on values.
    assert_eq!(
        keys(scan_rev(&e, &row_filter(Ct::Equal, component(b"1", 1)))),
        ["c1", "b1", "a1"]
    );
    assert_eq!(
        keys(scan(&e, &value_filter(Ct::Equal, component(b"b", 1)))),
        ["c1"]
    );
    assert_eq!(
        scan(&e, &value_filter(Ct::Equal, component(b"l", 3))),
        ["b1[g:d@5=hello]", "b2[g:c@3=World]"]
    );
    // Both fields are required, as in HBase.
    let m = err(&value_filter(
        Ct::Equal,
        cmp(
            "BinaryComponentComparator",
            pb::BinaryComponentComparator {
                value: Some(b"a".to_vec().into()),
                offset: None,
            },
        ),
    ));
    assert!(m.contains("offset"), "{m}");
}

#[test]
fn hbase_bytes_are_what_our_types_write() {
    // tests/oracle/filterbytes/filters.tsv, written by HBase 2.6.1's own classes.
    let cases = [
        (
            random_row(1.0),
            "0a2e6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e52616e646f6d526f\
             7746696c74657212050d0000803f",
        ),
        (
            value_filter(Ct::Equal, big_decimal(&decimal("1.50"))),
            "0a2a6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e56616c75654669\
             6c74657212470a45080212410a336f72672e6170616368652e6861646f6f702e68626173652e6669\
             6c7465722e426967446563696d616c436f6d70617261746f72120a0a080a06000000020096",
        ),
        (
            row_filter(Ct::Equal, component(b"ab", 2)),
            "0a286f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e526f7746696c74\
             657212480a46080212420a386f72672e6170616368652e6861646f6f702e68626173652e66696c74\
             65722e42696e617279436f6d706f6e656e74436f6d70617261746f7212060a0261621002",
        ),
    ];
    for (mine, h) in cases {
        assert_eq!(mine.encode_to_vec(), hex(h), "{mine:?}");
    }
}
