//! Bad input gets a typed error, writes nothing, and never panics the engine; damaged files
//! keep their table offline instead of losing data.

mod common;

use common::*;
use proptest::prelude::*;
use redbase::engine::*;

fn setup() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            max_value_size: 1024,
            ..Default::default()
        },
    )
    .unwrap();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    (dir, e)
}

fn put_row(row: &[u8], fam: &[u8], ts: Option<i64>, value: &[u8]) -> RowMutation {
    RowMutation::new(row).with(Op::Put {
        family: fam.to_vec(),
        qualifier: b"q".to_vec(),
        timestamp: ts,
        value: value.to_vec(),
    })
}

fn nothing_written(e: &Engine) {
    assert!(
        e.scan("t", Scan::new()).unwrap().next().is_none(),
        "a rejected write left data behind"
    );
}

#[test]
fn each_bad_write_is_a_typed_error_and_writes_nothing() {
    let (_d, e) = setup();
    assert_eq!(
        e.mutate_row("t", put_row(b"", b"f", None, b"v")),
        Err(MutateError::EmptyRow)
    );
    let long = vec![b'x'; MAX_ROW_LEN + 1];
    assert_eq!(
        e.mutate_row("t", put_row(&long, b"f", None, b"v")),
        Err(MutateError::RowTooLong {
            len: MAX_ROW_LEN + 1
        })
    );
    assert!(matches!(
        e.mutate_row("t", put_row(b"r", b"nope", None, b"v")),
        Err(MutateError::NoSuchFamily { .. })
    ));
    assert_eq!(
        e.mutate_row("t", put_row(b"r", b"f", Some(-1), b"v")),
        Err(MutateError::NegativeTimestamp(-1))
    );
    assert_eq!(
        e.mutate_row("t", put_row(b"r", b"f", None, &[0u8; 1025])),
        Err(MutateError::ValueTooLarge {
            len: 1025,
            max: 1024
        })
    );
    assert!(matches!(
        e.mutate_row("t", RowMutation::new(b"r")),
        Err(MutateError::EmptyMutation { .. })
    ));
    let mut ttl = put_row(b"r", b"f", None, b"v");
    ttl.ttl_ms = Some(0);
    assert_eq!(e.mutate_row("t", ttl), Err(MutateError::InvalidTtl(0)));
    // A mutation with one bad op writes none of its good ops.
    let mixed = put_row(b"r", b"f", None, b"good").with(Op::put(b"nope", b"q", b"bad"));
    assert!(e.mutate_row("t", mixed).is_err());
    assert_eq!(
        e.mutate_row("missing", put_row(b"r", b"f", None, b"v")),
        Err(MutateError::TableNotFound("missing".into()))
    );
    assert!(matches!(
        e.increment(
            "t",
            b"r",
            vec![(b"zz".to_vec(), b"q".to_vec(), 1)],
            None,
            Durability::UseDefault
        ),
        Err(MutateError::NoSuchFamily { .. })
    ));
    nothing_written(&e);
    // The largest row key is accepted.
    e.mutate_row("t", put_row(&vec![b'x'; MAX_ROW_LEN], b"f", None, b"v"))
        .unwrap();
}

#[test]
fn bad_reads_are_typed_errors() {
    let (_d, e) = setup();
    assert_eq!(
        e.get("missing", Get::new(b"r")).unwrap_err(),
        ReadError::TableNotFound("missing".into())
    );
    assert!(matches!(
        e.get("t", Get::with(b"r", ReadOptions::default().family(b"nope"))),
        Err(ReadError::NoSuchFamily { .. })
    ));
    assert!(matches!(
        e.get(
            "t",
            Get::with(
                b"r",
                ReadOptions::default().time_range(TimeRange::new(10, 5))
            )
        ),
        Err(ReadError::InvalidTimeRange { .. })
    ));
    assert!(matches!(
        e.scan(
            "t",
            Scan {
                options: ReadOptions::default().time_range(TimeRange::new(-1, 5)),
                ..Default::default()
            }
        ),
        Err(ReadError::InvalidTimeRange { .. })
    ));
}

#[test]
fn disabled_tables_refuse_reads_and_writes_clearly() {
    let (_d, e) = setup();
    put(&e, "t", "r", "f:q", 1, "v");
    e.disable_table("t").unwrap();
    assert_eq!(
        e.mutate_row("t", put_row(b"r", b"f", None, b"v")),
        Err(MutateError::TableDisabled("t".into()))
    );
    assert_eq!(
        e.get("t", Get::new(b"r")).unwrap_err(),
        ReadError::TableDisabled("t".into())
    );
    assert!(matches!(
        e.scan("t", Scan::new()),
        Err(ReadError::TableDisabled(_))
    ));
    e.enable_table("t").unwrap();
    assert_eq!(values(&e, "t", "r", ReadOptions::default()), vec!["v"]);
}

#[test]
fn bad_ddl_is_refused() {
    let (_d, e) = setup();
    let d = |name: &str| {
        TableDescriptor::new(TableName::parse(name).unwrap())
            .with_family(FamilyDescriptor::new(b"f"))
    };
    assert_eq!(
        e.create_table(d("t"), &[]),
        Err(TableError::Exists("t".into()))
    );
    assert!(matches!(
        TableName::parse("bad name"),
        Err(SchemaError::InvalidTableName { .. })
    ));
    assert!(matches!(
        TableName::parse("-x"),
        Err(SchemaError::InvalidTableName { .. })
    ));
    assert!(matches!(
        TableName::parse("b-d:x"),
        Err(SchemaError::InvalidNamespaceName { .. })
    ));
    assert_eq!(
        e.create_table(d("nons:t"), &[]),
        Err(TableError::NamespaceNotFound("nons".into()))
    );
    let no_fam = TableDescriptor::new(TableName::parse("x").unwrap());
    assert!(matches!(
        e.create_table(no_fam, &[]),
        Err(TableError::Invalid(SchemaError::NoFamilies { .. }))
    ));
    for bad in [
        FamilyDescriptor::new(b"f").max_versions(0),
        FamilyDescriptor::new(b"f").max_versions(1).min_versions(2),
        FamilyDescriptor::new(b"a:b"),
        FamilyDescriptor::new(b""),
        FamilyDescriptor {
            compression: "ZIP".into(),
            ..FamilyDescriptor::new(b"f")
        },
        FamilyDescriptor {
            bloom_filter: "ALL".into(),
            ..FamilyDescriptor::new(b"f")
        },
        FamilyDescriptor {
            block_size: 10,
            ..FamilyDescriptor::new(b"f")
        },
        FamilyDescriptor {
            data_block_encoding: "X".into(),
            ..FamilyDescriptor::new(b"f")
        },
    ] {
        let t = TableDescriptor::new(TableName::parse("x").unwrap()).with_family(bad.clone());
        match e.create_table(t, &[]) {
            Err(TableError::Invalid(SchemaError::InvalidFamily { .. })) => {}
            other => panic!("{bad:?} gave {other:?}"),
        }
    }
    assert!(matches!(
        e.create_table(d("x"), &[b"a".to_vec(), b"a".to_vec()]),
        Err(TableError::InvalidSplitKeys(_))
    ));
    assert!(matches!(
        e.create_table(d("x"), &[Vec::new()]),
        Err(TableError::InvalidSplitKeys(_))
    ));
    assert!(!e.table_exists("x"));
    assert_eq!(
        e.delete_table("t"),
        Err(TableError::NotDisabled("t".into()))
    );
    assert_eq!(
        e.delete_table("nope"),
        Err(TableError::NotFound("nope".into()))
    );
}

#[test]
fn a_missing_or_corrupt_region_file_keeps_its_table_offline() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        table(&e, "good", vec![FamilyDescriptor::new(b"f")]);
        table(&e, "corrupt", vec![FamilyDescriptor::new(b"f")]);
        table(&e, "missing", vec![FamilyDescriptor::new(b"f")]);
        for t in ["good", "corrupt", "missing"] {
            put(&e, t, "r", "f:q", 1, "v");
        }
        e.close();
    }
    let region_file = |t: &str| {
        std::fs::read_dir(dir.path().join("tables/default").join(t))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
    };
    let corrupt = region_file("corrupt");
    std::fs::write(&corrupt, b"this is not a redb file at all").unwrap();
    let missing = region_file("missing");
    std::fs::remove_file(&missing).unwrap();

    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let offline = e.offline_tables();
    assert_eq!(offline.len(), 2, "{offline:?}");
    let reason = |t: &str| offline.iter().find(|(n, _)| n == t).unwrap().1.clone();
    assert!(
        reason("corrupt").contains(&corrupt.display().to_string()),
        "{}",
        reason("corrupt")
    );
    assert!(
        reason("missing").contains(&missing.display().to_string()),
        "{}",
        reason("missing")
    );
    assert!(matches!(
        e.get("corrupt", Get::new(b"r")),
        Err(ReadError::TableOffline { .. })
    ));
    assert!(matches!(
        e.mutate_row("missing", put_row(b"r", b"f", None, b"v")),
        Err(MutateError::TableOffline { .. })
    ));
    assert_eq!(values(&e, "good", "r", ReadOptions::default()), vec!["v"]);
    // The damaged file is left exactly as it was for an operator to inspect.
    assert_eq!(
        std::fs::read(&corrupt).unwrap(),
        b"this is not a redb file at all"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Arbitrary rows, families, qualifiers, timestamps and values: the engine answers Ok or a
    /// typed error and stays usable.
    #[test]
    fn arbitrary_writes_never_panic(
        row in proptest::collection::vec(any::<u8>(), 0..40),
        fam in prop_oneof![Just(b"f".to_vec()), proptest::collection::vec(any::<u8>(), 0..4)],
        qual in proptest::collection::vec(any::<u8>(), 0..40),
        ts in prop_oneof![Just(None), any::<i64>().prop_map(Some)],
        value in proptest::collection::vec(any::<u8>(), 0..1100),
        delta in any::<i64>(),
    ) {
        let (_d, e) = setup();
        let m = RowMutation::new(&row).with(Op::Put { family: fam.clone(), qualifier: qual.clone(), timestamp: ts, value });
        let _ = e.mutate_row("t", m);
        let _ = e.increment("t", &row, vec![(fam.clone(), qual.clone(), delta)], None, Durability::UseDefault);
        let _ = e.increment("t", &row, vec![(fam.clone(), qual.clone(), delta)], None, Durability::UseDefault);
        let _ = e.get("t", Get::new(&row));
        let _ = e.scan("t", Scan::range(&row, &qual)).map(|s| s.count());
        let _ = e.mutate_row("t", RowMutation::new(&row).with(Op::DeleteFamily { family: fam, timestamp: ts }));
        prop_assert!(e.mutate_row("t", RowMutation::new(b"still-ok").with(Op::put(b"f", b"q", b"v"))).is_ok());
    }
}
