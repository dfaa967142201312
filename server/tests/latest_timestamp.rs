//! HBase's LATEST_TIMESTAMP (2^63-1) in a client's write means "the server's clock", on every
//! mutation kind (HRegion.updateCellTimestamps / prepareDeleteTimestamps). HBase's own Java
//! client sends it on every Put and Delete without an explicit timestamp, so storing it
//! literally would lose those writes.

mod common;

use common::*;
use redbase::engine::*;

const L: i64 = LATEST_TIMESTAMP;

fn f5() -> FamilyDescriptor {
    FamilyDescriptor::new(b"f").max_versions(5)
}

fn all(e: &Engine, row: &str) -> Vec<(String, i64, String)> {
    cells(e, "t", row, ReadOptions::default().versions(5))
}

fn is_now(ts: i64, before: i64) -> bool {
    ts >= before && ts <= now()
}

#[test]
fn puts_at_latest_are_stamped_now_and_readable() {
    let (_d, e) = engine();
    table(&e, "t", vec![f5()]);
    let before = now();
    put(&e, "t", "r", "f:a", L, "1");
    let got = all(&e, "r");
    assert_eq!(got.len(), 1);
    assert!(is_now(got[0].1, before), "stamped {}", got[0].1);
    assert_eq!(got[0].2, "1");
    // Every read path sees it: a time-range read up to now and an exists-style get.
    let upto = cells(
        &e,
        "t",
        "r",
        ReadOptions::default().time_range(TimeRange::new(0, now() + 1)),
    );
    assert_eq!(upto.len(), 1);
}

#[test]
fn check_and_mutate_puts_at_latest_are_stamped_now() {
    let (_d, e) = engine();
    table(&e, "t", vec![f5()]);
    let before = now();
    let ok = e
        .check_and_mutate(
            "t",
            Condition {
                family: b"f".to_vec(),
                qualifier: b"a".to_vec(),
                op: CompareOp::Equal,
                value: None,
            },
            RowMutation::new(b"r").with(Op::put_at(b"f", b"a", L, b"v")),
        )
        .unwrap();
    assert!(ok);
    let got = all(&e, "r");
    assert_eq!(got.len(), 1);
    assert!(is_now(got[0].1, before));
}

#[test]
fn single_version_delete_at_latest_removes_the_newest_version_only() {
    let (_d, e) = engine();
    table(&e, "t", vec![f5()]);
    put(&e, "t", "r", "f:a", 10, "old");
    put(&e, "t", "r", "f:a", 20, "new");
    mutate(&e, "t", "r", del_ver("f", "a", Some(L)));
    assert_eq!(all(&e, "r"), vec![("f:a".into(), 10, "old".into())]);
    // Two in one mutation take the two newest, as HBase counts them.
    put(&e, "t", "r", "f:a", 30, "c");
    put(&e, "t", "r", "f:a", 40, "d");
    e.mutate_row(
        "t",
        RowMutation::new(b"r")
            .with(del_ver("f", "a", Some(L)))
            .with(del_ver("f", "a", Some(L))),
    )
    .unwrap();
    assert_eq!(all(&e, "r"), vec![("f:a".into(), 10, "old".into())]);
}

#[test]
fn single_version_delete_at_latest_of_a_missing_cell_lands_at_now() {
    let (_d, e) = engine();
    table(&e, "t", vec![f5()]);
    let before = now();
    mutate(&e, "t", "r", del_ver("f", "a", Some(L)));
    let marker_ts = {
        let mut o = ReadOptions::default().versions(5);
        o.raw = true;
        cells(&e, "t", "r", o)
    };
    assert_eq!(marker_ts.len(), 1, "{marker_ts:?}");
    assert!(is_now(marker_ts[0].1, before));
    // An older put stays visible: the marker deletes exactly one version, at now.
    put(&e, "t", "r", "f:a", 5, "kept");
    assert_eq!(all(&e, "r"), vec![("f:a".into(), 5, "kept".into())]);
}

#[test]
fn column_family_and_row_deletes_at_latest_use_now() {
    let (_d, e) = engine();
    table(&e, "t", vec![f5(), FamilyDescriptor::new(b"g")]);
    let future = now() + 86_400_000;
    for row in ["c", "f", "fv", "row"] {
        put(&e, "t", row, "f:a", 10, "old");
        put(&e, "t", row, "f:a", future, "future");
        put(&e, "t", row, "g:b", 10, "other");
    }
    mutate(&e, "t", "c", del_col("f", "a", Some(L)));
    mutate(
        &e,
        "t",
        "f",
        Op::DeleteFamily {
            family: b"f".to_vec(),
            timestamp: Some(L),
        },
    );
    e.mutate_row(
        "t",
        RowMutation::new(b"row").with(Op::DeleteRow { timestamp: Some(L) }),
    )
    .unwrap();
    // A marker at LATEST would have hidden the future cell too; at now it survives.
    assert_eq!(all(&e, "c")[0], ("f:a".into(), future, "future".into()));
    assert_eq!(all(&e, "c").len(), 2, "g:b untouched");
    assert_eq!(all(&e, "f")[0], ("f:a".into(), future, "future".into()));
    assert_eq!(
        all(&e, "row"),
        vec![("f:a".into(), future, "future".into())]
    );
    // A family-version delete at LATEST deletes the versions written exactly at now: the old
    // and future cells survive.
    mutate(
        &e,
        "t",
        "fv",
        Op::DeleteFamilyVersion {
            family: b"f".to_vec(),
            timestamp: L,
        },
    );
    assert_eq!(all(&e, "fv").len(), 3);
}

#[test]
fn a_put_at_latest_after_a_delete_at_latest_is_visible() {
    // The Java client's put / delete / put sequence on one cell: the second put lands after
    // the delete marker, so it must be readable (unless the clock has not moved; then HBase
    // masks it too, so wait one millisecond).
    let (_d, e) = engine();
    table(&e, "t", vec![f5()]);
    put(&e, "t", "r", "f:a", L, "1");
    mutate(&e, "t", "r", del_col("f", "a", Some(L)));
    std::thread::sleep(std::time::Duration::from_millis(2));
    put(&e, "t", "r", "f:a", L, "2");
    let got = all(&e, "r");
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].2, "2");
}
