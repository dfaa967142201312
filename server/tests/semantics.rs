//! HBase data-model semantics, one behaviour per test, through the public engine API.

mod common;

use common::*;
use redbase::engine::*;

fn f3() -> FamilyDescriptor {
    FamilyDescriptor::new(b"f").max_versions(3)
}

#[test]
fn versions_come_newest_first_and_explicit_timestamps_are_honoured() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3()]);
    let future = now() + 86_400_000;
    put(&e, "t", "r", "f:q", 10, "old");
    put(&e, "t", "r", "f:q", future, "future");
    put(&e, "t", "r", "f:q", 20, "mid");
    let got = cells(&e, "t", "r", ReadOptions::default().versions(5));
    assert_eq!(
        got,
        vec![
            ("f:q".into(), future, "future".into()),
            ("f:q".into(), 20, "mid".into()),
            ("f:q".into(), 10, "old".into()),
        ]
    );
    // Default reads return one version.
    assert_eq!(values(&e, "t", "r", ReadOptions::default()), vec!["future"]);
    // More versions than the family keeps are never returned.
    put(&e, "t", "r", "f:q", 5, "oldest");
    assert_eq!(
        cells(&e, "t", "r", ReadOptions::default().versions(10)).len(),
        3
    );
}

#[test]
fn server_stamps_now_when_no_timestamp() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3()]);
    let before = now();
    e.mutate_row(
        "t",
        RowMutation::new(b"r")
            .with(Op::put(b"f", b"a", b"1"))
            .with(Op::put(b"f", b"b", b"2")),
    )
    .unwrap();
    let after = now();
    let got = cells(&e, "t", "r", ReadOptions::default());
    assert_eq!(got.len(), 2);
    assert!(got.iter().all(|c| c.1 >= before && c.1 <= after));
    assert_eq!(got[0].1, got[1].1, "one mutation, one timestamp");
}

#[test]
fn time_ranges_are_half_open() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3()]);
    for ts in [10, 20, 30] {
        put(&e, "t", "r", "f:q", ts, &format!("v{ts}"));
    }
    let r = |min, max| {
        values(
            &e,
            "t",
            "r",
            ReadOptions::default()
                .versions(3)
                .time_range(TimeRange::new(min, max)),
        )
    };
    assert_eq!(r(10, 30), vec!["v20", "v10"]);
    assert_eq!(r(11, 31), vec!["v30", "v20"]);
    assert_eq!(
        values(
            &e,
            "t",
            "r",
            ReadOptions::default().time_range(TimeRange::at(20))
        ),
        vec!["v20"]
    );
    assert!(r(0, 10).is_empty());
}

#[test]
fn delete_kinds_follow_hbase() {
    let (_d, e) = engine();
    table(
        &e,
        "t",
        vec![f3(), FamilyDescriptor::new(b"g").max_versions(3)],
    );
    let all = || ReadOptions::default().versions(3);
    for row in ["v", "c", "fam", "fv", "row", "latest"] {
        for ts in [10, 20, 30] {
            put(&e, "t", row, "f:a", ts, &format!("a{ts}"));
            put(&e, "t", row, "f:b", ts, &format!("b{ts}"));
            put(&e, "t", row, "g:x", ts, &format!("x{ts}"));
        }
    }
    // One version.
    mutate(&e, "t", "v", del_ver("f", "a", Some(20)));
    assert_eq!(
        values(&e, "t", "v", all().column(b"f", b"a")),
        vec!["a30", "a10"]
    );
    // A column at or before ts.
    mutate(&e, "t", "c", del_col("f", "a", Some(20)));
    assert_eq!(values(&e, "t", "c", all().column(b"f", b"a")), vec!["a30"]);
    assert_eq!(values(&e, "t", "c", all().column(b"f", b"b")).len(), 3);
    // A family at or before ts.
    mutate(
        &e,
        "t",
        "fam",
        Op::DeleteFamily {
            family: b"f".to_vec(),
            timestamp: Some(20),
        },
    );
    assert_eq!(
        values(&e, "t", "fam", all().family(b"f")),
        vec!["a30", "b30"]
    );
    assert_eq!(values(&e, "t", "fam", all().family(b"g")).len(), 3);
    // A family version: exactly ts, every column.
    mutate(
        &e,
        "t",
        "fv",
        Op::DeleteFamilyVersion {
            family: b"f".to_vec(),
            timestamp: 20,
        },
    );
    assert_eq!(
        values(&e, "t", "fv", all().family(b"f")),
        vec!["a30", "a10", "b30", "b10"]
    );
    // A whole row at or before ts.
    mutate(
        &e,
        "t",
        "row",
        Op::DeleteRow {
            timestamp: Some(20),
        },
    );
    assert_eq!(values(&e, "t", "row", all()), vec!["a30", "b30", "x30"]);
    // Delete of the latest version without a timestamp removes only the newest.
    mutate(&e, "t", "latest", del_ver("f", "a", None));
    assert_eq!(
        values(&e, "t", "latest", all().column(b"f", b"a")),
        vec!["a20", "a10"]
    );
    // A whole row now.
    mutate(&e, "t", "latest", Op::DeleteRow { timestamp: None });
    assert!(e.get("t", Get::new(b"latest")).unwrap().is_none());
}

#[test]
fn markers_mask_later_puts_until_major_compaction() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3()]);
    mutate(&e, "t", "r", del_col("f", "q", Some(100)));
    put(&e, "t", "r", "f:q", 50, "late-but-old");
    assert!(
        e.get("t", Get::new(b"r")).unwrap().is_none(),
        "masked by an earlier marker"
    );
    put(&e, "t", "r", "f:q", 150, "newer");
    assert_eq!(
        values(&e, "t", "r", ReadOptions::default().versions(3)),
        vec!["newer"]
    );
    e.compact("t", false).unwrap();
    put(&e, "t", "r", "f:q", 60, "after-minor");
    assert_eq!(
        values(&e, "t", "r", ReadOptions::default().versions(3)),
        vec!["newer"],
        "minor keeps markers"
    );
    e.compact("t", true).unwrap();
    put(&e, "t", "r", "f:q", 70, "after-major");
    assert_eq!(
        values(&e, "t", "r", ReadOptions::default().versions(3)),
        vec!["newer", "after-major"]
    );
}

#[test]
fn keep_deleted_cells_allows_time_travel() {
    let (_d, e) = engine();
    table(
        &e,
        "t",
        vec![FamilyDescriptor::new(b"f")
            .max_versions(3)
            .keep_deleted(KeepDeletedCells::True)],
    );
    put(&e, "t", "r", "f:q", 10, "v10");
    put(&e, "t", "r", "f:q", 20, "v20");
    mutate(&e, "t", "r", del_col("f", "q", Some(25)));
    assert!(e.get("t", Get::new(b"r")).unwrap().is_none());
    let before_delete = ReadOptions::default()
        .versions(3)
        .time_range(TimeRange::new(0, 25));
    assert_eq!(values(&e, "t", "r", before_delete), vec!["v20", "v10"]);
    // Survives a major compaction too.
    e.compact("t", true).unwrap();
    let before_delete = ReadOptions::default()
        .versions(3)
        .time_range(TimeRange::new(0, 25));
    assert_eq!(values(&e, "t", "r", before_delete), vec!["v20", "v10"]);
    assert!(e.get("t", Get::new(b"r")).unwrap().is_none());
    // Without KEEP_DELETED_CELLS the same read sees nothing.
    table(&e, "plain", vec![f3()]);
    put(&e, "plain", "r", "f:q", 10, "v10");
    mutate(&e, "plain", "r", del_col("f", "q", Some(25)));
    let before_delete = ReadOptions::default()
        .versions(3)
        .time_range(TimeRange::new(0, 25));
    assert!(values(&e, "plain", "r", before_delete).is_empty());
}

#[test]
fn raw_reads_show_markers() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3()]);
    put(&e, "t", "r", "f:q", 10, "v");
    mutate(&e, "t", "r", del_col("f", "q", Some(10)));
    let opts = ReadOptions {
        raw: true,
        max_versions: 3,
        ..Default::default()
    };
    let r = e.get("t", Get::with(b"r", opts)).unwrap().unwrap();
    let types: Vec<CellType> = r.to_cells().iter().map(|c| c.cell_type).collect();
    assert_eq!(types, vec![CellType::DeleteColumn, CellType::Put]);
}

#[test]
fn ttl_expires_cells_and_min_versions_keeps_the_newest() {
    let (_d, e) = engine();
    let n = now();
    table(
        &e,
        "ttl",
        vec![FamilyDescriptor::new(b"f").max_versions(5).ttl(60)],
    );
    put(&e, "ttl", "r", "f:q", n - 120_000, "expired");
    put(&e, "ttl", "r", "f:fresh", n, "fresh");
    assert_eq!(
        values(&e, "ttl", "r", ReadOptions::default()),
        vec!["fresh"]
    );
    // TTL <= 0 means forever.
    table(&e, "forever", vec![FamilyDescriptor::new(b"f").ttl(0)]);
    put(&e, "forever", "r", "f:q", 1, "ancient");
    assert_eq!(
        values(&e, "forever", "r", ReadOptions::default()),
        vec!["ancient"]
    );
    // MIN_VERSIONS keeps the newest N past the TTL.
    table(
        &e,
        "minv",
        vec![FamilyDescriptor::new(b"f")
            .max_versions(5)
            .min_versions(2)
            .ttl(60)],
    );
    for (i, ts) in [n - 400_000, n - 300_000, n - 200_000].iter().enumerate() {
        put(&e, "minv", "r", "f:q", *ts, &format!("v{i}"));
    }
    assert_eq!(
        values(&e, "minv", "r", ReadOptions::default().versions(5)),
        vec!["v2", "v1"]
    );
    e.compact("minv", true).unwrap();
    assert_eq!(
        values(&e, "minv", "r", ReadOptions::default().versions(5)),
        vec!["v2", "v1"]
    );
}

#[test]
fn cell_ttl_expires_one_mutation() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3()]);
    let n = now();
    let mut m = RowMutation::new(b"r").with(Op::put_at(b"f", b"short", n - 5_000, b"gone"));
    m.ttl_ms = Some(1_000);
    e.mutate_row("t", m).unwrap();
    let mut m = RowMutation::new(b"r").with(Op::put_at(b"f", b"long", n, b"here"));
    m.ttl_ms = Some(3_600_000);
    e.mutate_row("t", m).unwrap();
    assert_eq!(values(&e, "t", "r", ReadOptions::default()), vec!["here"]);
}

#[test]
fn counters_and_appends() {
    let (_d, e) = engine();
    table(&e, "counters", vec![FamilyDescriptor::new(b"c")]);
    let inc = |q: &str, d: i64| {
        e.increment(
            "counters",
            b"rk1",
            vec![(b"c".to_vec(), q.as_bytes().to_vec(), d)],
            None,
            Durability::UseDefault,
        )
    };
    assert_eq!(inc("1", 1).unwrap()[0].value[..], 1i64.to_be_bytes());
    assert_eq!(inc("2", 100).unwrap()[0].value[..], 100i64.to_be_bytes());
    assert_eq!(inc("2", -30).unwrap()[0].value[..], 70i64.to_be_bytes());
    let r = e.get("counters", Get::new(b"rk1")).unwrap().unwrap();
    assert_eq!(r.value(b"c", b"2").unwrap(), 70i64.to_be_bytes());
    // A cell that is not 8 bytes wide is an error naming its width, and nothing changes.
    put(&e, "counters", "rk1", "c:s", 1, "abc");
    match inc("s", 1) {
        Err(MutateError::NotCounter { width, .. }) => assert_eq!(width, 3),
        other => panic!("expected NotCounter, got {other:?}"),
    }
    let multi = e.increment(
        "counters",
        b"rk1",
        vec![
            (b"c".to_vec(), b"1".to_vec(), 1),
            (b"c".to_vec(), b"s".to_vec(), 1),
        ],
        None,
        Durability::UseDefault,
    );
    assert!(multi.is_err());
    assert_eq!(
        e.get("counters", Get::new(b"rk1"))
            .unwrap()
            .unwrap()
            .value(b"c", b"1")
            .unwrap(),
        1i64.to_be_bytes(),
        "a failed increment writes none of its columns"
    );
    let a = e
        .append(
            "counters",
            b"ap",
            vec![(b"c".to_vec(), b"x".to_vec(), b"he".to_vec())],
            None,
            Durability::UseDefault,
        )
        .unwrap();
    assert_eq!(&a[0].value[..], b"he");
    let a = e
        .append(
            "counters",
            b"ap",
            vec![(b"c".to_vec(), b"x".to_vec(), b"llo".to_vec())],
            None,
            Durability::UseDefault,
        )
        .unwrap();
    assert_eq!(&a[0].value[..], b"hello");
}

#[test]
fn check_and_mutate_compare_ops() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3()]);
    put(&e, "t", "r", "f:q", 1, "m");
    let try_op = |op: CompareOp, given: &str| {
        e.check_and_mutate(
            "t",
            Condition {
                family: b"f".to_vec(),
                qualifier: b"q".to_vec(),
                op,
                value: Some(given.as_bytes().to_vec()),
            },
            RowMutation::new(b"r").with(Op::put_at(b"f", b"hit", 1, b"1")),
        )
        .unwrap()
    };
    // The given value is compared with the stored one: LESS passes when given < stored.
    assert!(try_op(CompareOp::Less, "a"));
    assert!(!try_op(CompareOp::Less, "z"));
    assert!(try_op(CompareOp::LessOrEqual, "m"));
    assert!(try_op(CompareOp::Equal, "m"));
    assert!(!try_op(CompareOp::Equal, "n"));
    assert!(try_op(CompareOp::NotEqual, "n"));
    assert!(try_op(CompareOp::GreaterOrEqual, "m"));
    assert!(try_op(CompareOp::Greater, "z"));
    assert!(!try_op(CompareOp::Greater, "a"));
    // "Must not exist".
    let must_not_exist = |q: &str| {
        e.check_and_mutate(
            "t",
            Condition {
                family: b"f".to_vec(),
                qualifier: q.as_bytes().to_vec(),
                op: CompareOp::Equal,
                value: None,
            },
            RowMutation::new(b"r").with(Op::put_at(b"f", q.as_bytes(), 1, b"set")),
        )
        .unwrap()
    };
    assert!(must_not_exist("fresh"));
    assert!(!must_not_exist("fresh"), "the first call created it");
    // A check that fails applies nothing; deletes can be the mutation too.
    let deleted = e
        .check_and_mutate(
            "t",
            Condition {
                family: b"f".to_vec(),
                qualifier: b"q".to_vec(),
                op: CompareOp::Equal,
                value: Some(b"m".to_vec()),
            },
            RowMutation::new(b"r").with(del_col("f", "q", None)),
        )
        .unwrap();
    assert!(deleted);
    assert!(values(&e, "t", "r", ReadOptions::default().column(b"f", b"q")).is_empty());
}

#[test]
fn a_row_mutation_mixing_puts_and_deletes_applies_in_order() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3()]);
    put(&e, "t", "r", "f:a", 5, "old");
    e.mutate_row(
        "t",
        RowMutation::new(b"r")
            .with(del_col("f", "a", Some(10)))
            .with(Op::put_at(b"f", b"a", 11, b"new"))
            .with(Op::put_at(b"f", b"b", 11, b"b")),
    )
    .unwrap();
    assert_eq!(
        values(&e, "t", "r", ReadOptions::default()),
        vec!["new", "b"]
    );
    // A batch where one row is invalid fails only that row.
    let res = e.mutate_rows(
        "t",
        vec![
            RowMutation::new(b"ok1").with(Op::put(b"f", b"q", b"1")),
            RowMutation::new(b"bad").with(Op::put(b"nofamily", b"q", b"1")),
            RowMutation::new(b"ok2").with(Op::put(b"f", b"q", b"2")),
        ],
    );
    assert!(res[0].is_ok() && res[1].is_err() && res[2].is_ok());
    assert!(e.get("t", Get::new(b"bad")).unwrap().is_none());
}

#[test]
fn scans_bounds_reverse_prefix_batch_limit() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3(), FamilyDescriptor::new(b"g")]);
    e.split_region("t", b"r5", Some(b"r5")).ok();
    for i in 0..10 {
        let row = format!("r{i}");
        for q in ["a", "b", "c"] {
            put(&e, "t", &row, &format!("f:{q}"), 1, q);
        }
        put(&e, "t", &row, "g:z", 1, "z");
    }
    put(&e, "t", "s0", "f:a", 1, "x");
    assert_eq!(
        scan_rows(&e, "t", Scan::range(b"r3", b"r6")),
        vec!["r3", "r4", "r5"]
    );
    let mut rev = Scan::range(b"r6", b"r3");
    rev.reversed = true;
    assert_eq!(scan_rows(&e, "t", rev), vec!["r6", "r5", "r4"]);
    let mut rev_all = Scan::new();
    rev_all.reversed = true;
    assert_eq!(scan_rows(&e, "t", rev_all).first().unwrap(), "s0");
    assert_eq!(scan_rows(&e, "t", Scan::prefix(b"r")).len(), 10);
    let mut lim = Scan::new();
    lim.limit = 4;
    assert_eq!(scan_rows(&e, "t", lim), vec!["r0", "r1", "r2", "r3"]);
    // batch: wide rows come in pieces, all but the last marked partial.
    let mut b = Scan::range(b"r0", b"r1");
    b.batch = 3;
    let parts: Vec<RowResult> = e.scan("t", b).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(
        parts.iter().map(|p| p.to_cells().len()).collect::<Vec<_>>(),
        vec![3, 1]
    );
    assert!(parts[0].partial && !parts[1].partial);
    // Columns and families select what comes back.
    let mut cols = Scan::new();
    cols.options = ReadOptions::default().column(b"f", b"b");
    let r: Vec<RowResult> = e.scan("t", cols).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(r.len(), 10, "s0 has no f:b");
    assert!(r
        .iter()
        .all(|x| x.to_cells().len() == 1 && x.to_cells()[0].qualifier[..] == b"b"[..]));
    // Per-family limit and offset.
    let opts = ReadOptions {
        limit_per_family: Some(1),
        offset_per_family: 1,
        ..Default::default()
    };
    assert_eq!(values(&e, "t", "r0", opts), vec!["b"]);
}

#[test]
fn per_family_time_ranges() {
    let (_d, e) = engine();
    table(
        &e,
        "t",
        vec![f3(), FamilyDescriptor::new(b"g").max_versions(3)],
    );
    put(&e, "t", "r", "f:q", 10, "f10");
    put(&e, "t", "r", "g:q", 10, "g10");
    put(&e, "t", "r", "g:q", 30, "g30");
    let mut opts = ReadOptions::default().versions(3);
    opts.family_time_ranges
        .insert(b"g".to_vec(), TimeRange::new(0, 20));
    assert_eq!(values(&e, "t", "r", opts), vec!["f10", "g10"]);
}

struct StopAfter(Vec<u8>);
impl Filter for StopAfter {
    fn row_key(&mut self, row: &[u8]) -> RowVerdict {
        if row > self.0.as_slice() {
            RowVerdict::Stop
        } else if row.ends_with(b"1") {
            RowVerdict::Skip
        } else {
            RowVerdict::Include
        }
    }
}

struct OnlyValue(&'static [u8]);
impl Filter for OnlyValue {
    fn cell(&mut self, cell: &Cell) -> CellVerdict {
        if cell.value == self.0 {
            CellVerdict::Include
        } else {
            CellVerdict::Skip
        }
    }
}

#[test]
fn filters_plug_into_reads_and_stop_scans_early() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3()]);
    for i in 0..50 {
        put(
            &e,
            "t",
            &format!("r{i:02}"),
            "f:q",
            1,
            &format!("v{}", i % 2),
        );
    }
    let reads_before: u64 = e.regions("t").unwrap().iter().map(|r| r.reads).sum();
    let mut s = Scan::new();
    s.options = ReadOptions::default().filter(Box::new(StopAfter(b"r05".to_vec())));
    assert_eq!(
        scan_rows(&e, "t", s),
        vec!["r00", "r02", "r03", "r04", "r05"]
    );
    let reads_after: u64 = e.regions("t").unwrap().iter().map(|r| r.reads).sum();
    assert!(
        reads_after - reads_before <= 6,
        "the scan stopped early: {}",
        reads_after - reads_before
    );
    let mut s = Scan::new();
    s.options = ReadOptions::default().filter(Box::new(OnlyValue(b"v1")));
    assert_eq!(scan_rows(&e, "t", s).len(), 25);
    // The filter sees versions before they are counted, as HBase's does.
    put(&e, "t", "multi", "f:q", 1, "v1");
    put(&e, "t", "multi", "f:q", 2, "v0");
    let opts = ReadOptions::default().filter(Box::new(OnlyValue(b"v1")));
    assert_eq!(values(&e, "t", "multi", opts), vec!["v1"]);
}

#[test]
fn major_compaction_gives_space_back() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    let big = "x".repeat(64 * 1024);
    for i in 0..200 {
        put(&e, "t", &format!("r{i:03}"), "f:q", 1, &big);
    }
    for i in 0..200 {
        mutate(
            &e,
            "t",
            &format!("r{i:03}"),
            Op::DeleteRow { timestamp: None },
        );
    }
    let s = e.compact("t", true).unwrap();
    assert_eq!(s.entries_after, 0, "{s:?}");
    assert!(s.file_bytes_after * 4 < s.file_bytes_before, "{s:?}");
    assert!(scan_rows(&e, "t", Scan::new()).is_empty());
}

/// Scans build many rows into shared buffers and hand out slices of them; rows of every size
/// (tiny, a few KiB, larger than a shared buffer) must come back byte for byte, in order,
/// forwards and reversed, across chunk and buffer boundaries, and stay valid after the
/// scanner is gone.
#[test]
fn scanned_rows_keep_their_bytes_across_shared_buffers() {
    let (_d, e) = engine();
    table(&e, "t", vec![f3(), FamilyDescriptor::new(b"g")]);
    let value = |i: usize| -> Vec<u8> {
        let len = match i % 7 {
            0 => 0,
            1 => 3,
            2 => 5_000,
            3 => 200_000,
            _ => 100 + i,
        };
        (0..len).map(|j| (i * 31 + j) as u8).collect()
    };
    const ROWS: usize = 700;
    for i in 0..ROWS {
        let mut m =
            RowMutation::new(format!("r{i:04}").as_bytes()).with(Op::put(b"f", b"a", &value(i)));
        if i % 3 == 0 {
            m = m.with(Op::put(b"g", format!("q{i}").as_bytes(), b"x"));
        }
        e.mutate_row("t", m).unwrap();
    }
    let expect = |i: usize| {
        let mut cells = vec![(b"f".to_vec(), b"a".to_vec(), value(i))];
        if i % 3 == 0 {
            cells.push((b"g".to_vec(), format!("q{i}").into_bytes(), b"x".to_vec()));
        }
        (format!("r{i:04}").into_bytes(), cells)
    };
    let shape = |r: &RowResult| {
        let cells = r
            .iter()
            .map(|c| (c.family.to_vec(), c.qualifier.to_vec(), c.value.to_vec()))
            .collect::<Vec<_>>();
        (r.row().to_vec(), cells)
    };
    let forward: Vec<RowResult> = e
        .scan("t", Scan::new())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(forward.len(), ROWS);
    for (i, r) in forward.iter().enumerate() {
        assert_eq!(shape(r), expect(i), "row {i} forwards");
    }
    let mut reversed = Scan::new();
    reversed.reversed = true;
    let backward: Vec<RowResult> = e
        .scan("t", reversed)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(backward.len(), ROWS);
    for (k, r) in backward.iter().enumerate() {
        assert_eq!(
            shape(r),
            expect(ROWS - 1 - k),
            "row {} reversed",
            ROWS - 1 - k
        );
    }
}

#[test]
fn a_scan_whose_start_equals_its_stop_reads_that_row() {
    // HBase's Scan.isGetScan: start == stop (not empty) is a get, forward or reversed.
    let (_d, e) = engine();
    table(&e, "t", vec![f3()]);
    for r in ["k1", "k10", "k11", "k2"] {
        put(&e, "t", r, "f:q", 1, r);
    }
    assert_eq!(scan_rows(&e, "t", Scan::range(b"k10", b"k10")), vec!["k10"]);
    let mut rev = Scan::range(b"k10", b"k10");
    rev.reversed = true;
    assert_eq!(scan_rows(&e, "t", rev), vec!["k10"]);
    assert!(scan_rows(&e, "t", Scan::range(b"k3", b"k3")).is_empty());
    assert!(scan_rows(&e, "t", Scan::range(b"k2", b"k10")).is_empty());
}
