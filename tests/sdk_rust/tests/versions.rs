//! Versions and timestamps against the real gateway: explicit write timestamps, reads of up
//! to N versions, a time range or one timestamp, deletes up to a timestamp (access_logs' `t`
//! family keeps 3 versions).

use redbase_examples::*;
use sdk_rust_tests::{all, connect, fresh, serial};

const HITS: Column<i64, AccessLogsColumns> = AccessLogsColumns::HITS;

fn hits(n: i64) -> AccessLogsValues {
    AccessLogsValues {
        hits: Some(n),
        ..Default::default()
    }
}

#[test]
fn timestamped_puts_read_back_with_versions() {
    let _g = serial();
    let mut conn = connect();
    let mut logs: AccessLogsTable = fresh(&mut conn);
    let key = AccessLogsKey::new("dave", "jericho", 201510);
    for (ts, n) in [(1000, 1), (2000, 2), (3000, 3), (4000, 4)] {
        logs.put_at(&key, &hits(n), ts).unwrap();
    }
    let row = logs.get(&key).unwrap().expect("row");
    assert_eq!(row.values.hits, Some(4), "a plain get reads the newest");
    assert_eq!(row.timestamp(HITS), Some(4000));
    assert_eq!(row.versions(HITS).unwrap(), [(4000, 4)]);

    let row = logs
        .get_with(&key, &ReadOptions::new().versions(3))
        .unwrap()
        .expect("row");
    assert_eq!(
        row.versions(HITS).unwrap(),
        [(4000, 4), (3000, 3), (2000, 2)]
    );
    assert_eq!(row.values.hits, Some(4));
    assert_eq!(row.cells.len(), 3);

    let at = logs
        .get_with(&key, &ReadOptions::new().at(3000))
        .unwrap()
        .expect("row at 3000");
    assert_eq!((at.values.hits, at.timestamp(HITS)), (Some(3), Some(3000)));
    assert_eq!(
        logs.get_with(&key, &ReadOptions::new().at(3001)).unwrap(),
        None
    );

    // [min, max): 2000 and 3000, not 4000.
    let range = ReadOptions::new().versions(3).time_range(2000, 4000);
    let row = logs.get_with(&key, &range).unwrap().expect("row");
    assert_eq!(row.versions(HITS).unwrap(), [(3000, 3), (2000, 2)]);
    assert_eq!(
        row.values.hits,
        Some(3),
        "values hold the newest cell returned"
    );

    // Columns: only last_seen asked for, the row has none.
    let other = ReadOptions::new().column(AccessLogsColumns::LAST_SEEN);
    assert_eq!(logs.get_with(&key, &other).unwrap(), None);

    // Scans take the same options.
    let rows = all(logs.scan(
        &AccessLogsKey::all(),
        ScanOptions::new().versions(3).time_range(2000, 3500),
    ));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].versions(HITS).unwrap(), [(3000, 3), (2000, 2)]);
}

#[test]
fn delete_at_removes_versions_up_to_the_timestamp() {
    let _g = serial();
    let mut conn = connect();
    let mut logs: AccessLogsTable = fresh(&mut conn);
    let key = AccessLogsKey::new("elton", "jericho", 201510);
    for (ts, n) in [(1000, 1), (2000, 2), (3000, 3)] {
        logs.put_at(&key, &hits(n), ts).unwrap();
    }
    logs.delete_at(&key, 2000).unwrap();
    let row = logs
        .get_with(&key, &ReadOptions::new().versions(3))
        .unwrap()
        .expect("row");
    assert_eq!(row.versions(HITS).unwrap(), [(3000, 3)]);
    // Batched writes take a timestamp too.
    let keys = [
        AccessLogsKey::new("fred", "a", 201501),
        AccessLogsKey::new("fred", "b", 201501),
    ];
    let v = hits(9);
    logs.put_many_with(
        keys.iter().map(|k| (k, &v)),
        &BatchOptions::new().timestamp(7777),
    )
    .unwrap();
    for k in &keys {
        let row = logs.get(k).unwrap().expect("row");
        assert_eq!(row.versions(HITS).unwrap(), [(7777, 9)]);
    }
    logs.delete_many_with(&keys, &BatchOptions::new().timestamp(7776))
        .unwrap();
    assert!(logs.get(&keys[0]).unwrap().is_some(), "7777 > 7776 stays");
    logs.delete_many_with(&keys, &BatchOptions::new().timestamp(7777))
        .unwrap();
    assert_eq!(logs.get(&keys[0]).unwrap(), None);
}

#[test]
fn bad_read_options_are_typed_errors() {
    let _g = serial();
    let mut conn = connect();
    let mut logs: AccessLogsTable = fresh(&mut conn);
    let key = AccessLogsKey::new("dave", "jericho", 201510);
    for (opts, want) in [
        (
            ReadOptions::new().versions(0),
            "versions must be at least 1",
        ),
        (ReadOptions::new().time_range(5, 1), "time range"),
        (ReadOptions::new().time_range(-1, 1), "time range"),
    ] {
        match logs.get_with(&key, &opts) {
            Err(e @ Error::InvalidArgument(_)) => assert!(e.to_string().contains(want), "{e}"),
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }
    let mut scan = logs.scan(&AccessLogsKey::all(), ScanOptions::new().versions(-1));
    assert!(matches!(scan.next(), Some(Err(Error::InvalidArgument(_)))));
}
