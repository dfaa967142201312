use redbase::engine::*;

#[test]
fn put_get_scan_split_compact() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let desc = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new(b"f").max_versions(3));
    e.create_table(desc, &[b"m".to_vec()]).unwrap();
    for i in 0..100u32 {
        let row = format!("r{i:03}");
        e.mutate_row(
            "t",
            RowMutation::new(row.as_bytes())
                .with(Op::put_at(b"f", b"q", 1, b"v1"))
                .with(Op::put_at(b"f", b"q", 2, b"v2")),
        )
        .unwrap();
    }
    let r = e.get("t", Get::new(b"r005")).unwrap().unwrap();
    assert_eq!(r.to_cells().len(), 1);
    assert_eq!(&r.to_cells()[0].value[..], b"v2");
    let r = e
        .get("t", Get::with(b"r005", ReadOptions::default().versions(5)))
        .unwrap()
        .unwrap();
    assert_eq!(r.to_cells().len(), 2);
    let rows: Vec<_> = e
        .scan("t", Scan::new())
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(rows.len(), 100);
    let mut s = Scan::new();
    s.reversed = true;
    let rows: Vec<_> = e
        .scan("t", s)
        .unwrap()
        .map(|r| r.unwrap().row().to_vec())
        .collect();
    assert_eq!(&rows.first().unwrap()[..], b"r099");
    assert_eq!(rows.len(), 100);
    e.split_region("t", b"r050", Some(b"r050")).unwrap();
    assert_eq!(e.regions("t").unwrap().len(), 3);
    let rows: Vec<_> = e
        .scan("t", Scan::new())
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(rows.len(), 100);
    e.mutate_row(
        "t",
        RowMutation::new(b"r010").with(Op::DeleteColumn {
            family: b"f".to_vec(),
            qualifier: b"q".to_vec(),
            timestamp: None,
        }),
    )
    .unwrap();
    assert!(e.get("t", Get::new(b"r010")).unwrap().is_none());
    let st = e.compact("t", true).unwrap();
    assert!(st.entries_after < st.entries_before, "{st:?}");
    let c = e
        .increment(
            "t",
            b"cnt",
            vec![(b"f".to_vec(), b"c".to_vec(), 5)],
            None,
            Durability::UseDefault,
        )
        .unwrap();
    assert_eq!(c[0].value[..], 5i64.to_be_bytes());
    drop(e);
    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let rows: Vec<_> = e
        .scan("t", Scan::new())
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(rows.len(), 100);
    assert_eq!(e.regions("t").unwrap().len(), 3);
}
