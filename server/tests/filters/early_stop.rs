//! Early stops measured with the regions' read counters, filters across regions and in gets,
//! and the prefix hints that jump ahead.

use super::*;

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
