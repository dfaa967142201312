//! Batched writes against the real gateway: chunked putMultiple / deleteMultiple, atomic
//! mutateRow, multi-counter increments, per-row errors, key errors before anything is sent.

use redbase_examples::runtime::TableClient;
use redbase_examples::*;
use sdk_rust_tests::{all, connect, fresh, serial};

#[test]
fn put_many_in_chunks_then_delete_many() {
    let _g = serial();
    let mut conn = connect();
    let mut logs: AccessLogsTable = fresh(&mut conn);
    let rows: Vec<(AccessLogsKey, AccessLogsValues)> = (0..2500)
        .map(|i| {
            (
                AccessLogsKey::new(format!("user{}", i % 50), format!("sys{}", i / 50), 201501),
                AccessLogsValues {
                    hits: Some(i),
                    last_seen: Some(1_445_000_000_000 + i),
                },
            )
        })
        .collect();
    // 2,500 rows: three calls of at most 1,000, or many with a small byte bound.
    logs.put_many(rows.iter().map(|(k, v)| (k, v))).unwrap();
    let back = all(logs.scan(&AccessLogsKey::all(), ScanOptions::new().batch(1000)));
    assert_eq!(back.len(), 2500);
    let sum: i64 = back.iter().filter_map(|r| r.values.hits).sum();
    assert_eq!(sum, (0..2500).sum::<i64>());
    let small = BatchOptions::new().max_rows(7).max_bytes(100);
    logs.put_many_with(rows[..30].iter().map(|(k, v)| (k, v)), &small)
        .unwrap();

    let doomed: Vec<&AccessLogsKey> = rows.iter().step_by(2).map(|(k, _)| k).collect();
    logs.delete_many(doomed.iter().copied()).unwrap();
    let left = all(logs.scan(&AccessLogsKey::all(), ScanOptions::new()));
    assert_eq!(left.len(), 1250);
    assert!(left.iter().all(|r| r.values.hits.unwrap() % 2 == 1));
}

#[test]
fn a_bad_key_fails_the_batch_before_anything_is_sent() {
    let _g = serial();
    let mut conn = connect();
    let mut logs: AccessLogsTable = fresh(&mut conn);
    let v = AccessLogsValues {
        hits: Some(1),
        ..Default::default()
    };
    let good = AccessLogsKey::new("dave", "jericho", 201510);
    let bad = AccessLogsKey::new("", "jericho", 201510);
    match logs.put_many([(&good, &v), (&bad, &v)]) {
        Err(Error::EmptyKeyComponent { component, .. }) => assert_eq!(component, "user_id"),
        other => panic!("expected an empty-component error, got {other:?}"),
    }
    assert_eq!(logs.get(&good).unwrap(), None, "nothing was written");
}

#[test]
fn rows_the_server_refuses_are_listed_and_the_others_written() {
    let _g = serial();
    let mut conn = connect();
    let _: AccessLogsTable = fresh(&mut conn);
    let mut raw = TableClient::new(&mut conn, AccessLogsKey::table());
    let cell = |family: &[u8]| vec![(family.to_vec(), b"h".to_vec(), 5i64.to_be_bytes().to_vec())];
    let rows = vec![
        (b"row-0".to_vec(), cell(b"t")),
        (b"row-1".to_vec(), cell(b"no_such_family")),
        (b"row-2".to_vec(), cell(b"t")),
        (b"row-3".to_vec(), cell(b"nope")),
    ];
    match raw.put_many(rows, &BatchOptions::new()) {
        Err(Error::Batch(failed)) => {
            let which: Vec<(usize, &[u8])> = failed
                .iter()
                .map(|f| (f.index, f.row_key.as_slice()))
                .collect();
            assert_eq!(which, [(1, &b"row-1"[..]), (3, b"row-3")]);
            assert!(failed.iter().all(|f| !f.message.is_empty()));
        }
        other => panic!("expected a batch error, got {other:?}"),
    }
    let written = raw.get(b"row-2", &ReadOptions::new()).unwrap();
    assert!(written.is_some(), "the good rows are written");
    assert!(raw.get(b"row-0", &ReadOptions::new()).unwrap().is_some());
}

#[test]
fn increments_and_atomic_row_mutations() {
    let _g = serial();
    let mut conn = connect();
    let mut social: SocialUsageTable = fresh(&mut conn);
    let a = SocialUsageKey::new("dave");
    let b = SocialUsageKey::new("elton");
    let fb = SocialUsageColumns::FB_TOTAL;
    let tw = SocialUsageColumns::TW_TOTAL;
    let got = social
        .increment_many(&[
            (a.clone(), vec![(fb, 3), (tw, 4)]),
            (b.clone(), vec![(fb, 10)]),
            (a.clone(), vec![(fb, 1)]),
        ])
        .unwrap();
    assert_eq!(got, [vec![3, 4], vec![10], vec![4]]);
    let row = social.get(&a).unwrap().expect("row");
    assert_eq!(
        (row.values.fb_total, row.values.tw_total),
        (Some(4), Some(4))
    );
    // Pattern counters (one cell per part) mixed with fixed ones, as `Counter`s.
    let oct = SocialUsageColumns::FB_USAGE.counter(&201510).unwrap();
    let nov = SocialUsageColumns::TW_USAGE.counter(&201511).unwrap();
    let got = social
        .increment_many(&[(a.clone(), vec![(oct.clone(), 2), (nov, 7), (fb.into(), 1)])])
        .unwrap();
    assert_eq!(got, [vec![2, 7, 5]]);
    let row = social.get(&a).unwrap().expect("row");
    assert_eq!(
        row.values.fb_usage,
        std::collections::BTreeMap::from([(201510, 2)])
    );
    assert_eq!(
        row.values.tw_usage,
        std::collections::BTreeMap::from([(201511, 7)])
    );
    // A part the pattern cannot write (6 zero-padded digits) is refused before sending.
    assert!(matches!(
        SocialUsageColumns::FB_USAGE.counter(&-1),
        Err(Error::ValueEncoding(_))
    ));

    let mut logs: AccessLogsTable = fresh(&mut conn);
    let key = AccessLogsKey::new("dave", "jericho", 201510);
    logs.put(
        &key,
        &AccessLogsValues {
            hits: Some(1),
            last_seen: Some(5),
        },
    )
    .unwrap();
    let put = AccessLogsValues {
        hits: Some(2),
        ..Default::default()
    };
    logs.mutate_row(&key, &put, &[&AccessLogsColumns::LAST_SEEN])
        .unwrap();
    let row = logs.get(&key).unwrap().expect("row");
    assert_eq!((row.values.hits, row.values.last_seen), (Some(2), None));
}
