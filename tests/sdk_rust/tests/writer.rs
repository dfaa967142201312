//! The buffered writer against the real gateway: flushes by rows, bytes, time, `flush` and
//! `close`; summed increments; order of a put and a delete of one row; background errors.

use std::time::{Duration, Instant};

use redbase_examples::*;
use sdk_rust_tests::{all, connect, fresh, serial};

fn hits(n: i64) -> AccessLogsValues {
    AccessLogsValues {
        hits: Some(n),
        ..Default::default()
    }
}

/// Rows of access_logs through a second connection.
fn count(conn: &mut Connection) -> usize {
    let mut t = AccessLogsTable::new(conn);
    all(t.scan(&AccessLogsKey::all(), ScanOptions::new())).len()
}

#[test]
fn flushes_by_row_bound_and_on_close() {
    let _g = serial();
    let mut setup = connect();
    let _: AccessLogsTable = fresh(&mut setup);
    let opts = WriterOptions::new().max_rows(10).flush_interval(None);
    let mut w = AccessLogsWriter::open(connect(), opts);
    for i in 0..25 {
        w.put(
            &AccessLogsKey::new("dave", format!("s{i}"), 201510),
            &hits(i),
        )
        .unwrap();
    }
    assert_eq!(count(&mut setup), 20, "two flushes of 10; 5 still buffered");
    w.flush().unwrap();
    assert_eq!(count(&mut setup), 25);
    w.put(&AccessLogsKey::new("elton", "x", 201510), &hits(1))
        .unwrap();
    let conn = w.close().unwrap();
    assert_eq!(count(&mut setup), 26, "close flushed");
    conn.close();
}

#[test]
fn flushes_by_byte_bound() {
    let _g = serial();
    let mut setup = connect();
    let _: AccessLogsTable = fresh(&mut setup);
    let opts = WriterOptions::new().max_bytes(100).flush_interval(None);
    let mut w = AccessLogsWriter::open(connect(), opts);
    // 25 bytes a row (a 15-byte key, qualifier `h` in family `t`, an 8-byte value): the
    // fourth reaches 100.
    for i in 0..6 {
        w.put(
            &AccessLogsKey::new("dave", format!("s{i}"), 201510),
            &hits(i),
        )
        .unwrap();
    }
    let n = count(&mut setup);
    assert_eq!(n, 4, "rows flushed by bytes");
    w.close().unwrap();
}

#[test]
fn flushes_after_the_interval_without_further_calls() {
    let _g = serial();
    let mut setup = connect();
    let _: AccessLogsTable = fresh(&mut setup);
    let opts = WriterOptions::new().flush_interval(Some(Duration::from_millis(200)));
    let mut w = AccessLogsWriter::open(connect(), opts);
    w.put(&AccessLogsKey::new("dave", "a", 201510), &hits(1))
        .unwrap();
    assert_eq!(count(&mut setup), 0);
    let start = Instant::now();
    while count(&mut setup) == 0 {
        assert!(start.elapsed() < Duration::from_secs(5), "no timed flush");
        std::thread::sleep(Duration::from_millis(50));
    }
    w.close().unwrap();
}

#[test]
fn increments_sum_and_operations_keep_their_order() {
    let _g = serial();
    let mut setup = connect();
    let _: AccessLogsTable = fresh(&mut setup);
    let key = AccessLogsKey::new("dave", "jericho", 201510);
    let other = AccessLogsKey::new("fred", "jericho", 201510);
    let mut w = AccessLogsWriter::open(connect(), WriterOptions::new().flush_interval(None));
    w.put(&other, &hits(100)).unwrap();
    w.delete(&other).unwrap();
    w.put(&key, &hits(10)).unwrap();
    for _ in 0..5 {
        w.increment(&key, AccessLogsColumns::HITS, 2).unwrap();
    }
    w.increment(&other, AccessLogsColumns::HITS, 1).unwrap();
    w.close().unwrap();
    let mut t = AccessLogsTable::new(&mut setup);
    assert_eq!(t.get(&key).unwrap().unwrap().values.hits, Some(20));
    assert_eq!(
        t.get(&other).unwrap().unwrap().values.hits,
        Some(1),
        "the put was deleted before the increment"
    );
}

/// A delete marker hides cells at or before its millisecond: on a fast server, a put or
/// increment sent right after the row's delete lands in that millisecond unless the writer
/// waits. Repeated, since one round passes by luck as often as not.
#[test]
fn a_write_after_its_rows_delete_survives_the_deletes_millisecond() {
    let _g = serial();
    let mut setup = connect();
    let _: AccessLogsTable = fresh(&mut setup);
    let mut w = AccessLogsWriter::open(connect(), WriterOptions::new().flush_interval(None));
    for i in 0..40 {
        let key = AccessLogsKey::new("again", format!("s{i}"), 201510);
        AccessLogsTable::new(&mut setup)
            .put(&key, &hits(1))
            .unwrap();
        w.delete(&key).unwrap();
        let seen = AccessLogsValues {
            last_seen: Some(i),
            ..Default::default()
        };
        w.put(&key, &seen).unwrap();
        w.flush().unwrap(); // the delete, then the put, in one flush
        w.delete(&key).unwrap();
        w.increment(&key, AccessLogsColumns::HITS, 5).unwrap();
        w.flush().unwrap();
        let row = AccessLogsTable::new(&mut setup).get(&key).unwrap();
        let values = row
            .unwrap_or_else(|| panic!("round {i}: the row is gone"))
            .values;
        assert_eq!(
            (values.hits, values.last_seen),
            (Some(5), None),
            "round {i}"
        );
    }
    w.close().unwrap();
}

#[test]
fn a_background_error_is_returned_by_the_next_call() {
    let _g = serial();
    let mut setup = connect();
    let mut t: AccessLogsTable = fresh(&mut setup);
    let opts = WriterOptions::new().flush_interval(Some(Duration::from_millis(100)));
    let mut w = AccessLogsWriter::open(connect(), opts);
    t.drop_table().unwrap();
    w.put(&AccessLogsKey::new("dave", "a", 201510), &hits(1))
        .unwrap();
    std::thread::sleep(Duration::from_millis(600));
    let e = w
        .put(&AccessLogsKey::new("dave", "b", 201510), &hits(1))
        .unwrap_err();
    assert!(matches!(e, Error::Server { .. } | Error::Batch(_)), "{e:?}");
    w.close().unwrap();
}

#[test]
fn pattern_counters_through_the_writer() {
    let _g = serial();
    let mut setup = connect();
    let _: SocialUsageTable = fresh(&mut setup);
    let key = SocialUsageKey::new("dave");
    let mut w = SocialUsageWriter::open(connect(), WriterOptions::new().flush_interval(None));
    let oct = SocialUsageColumns::FB_USAGE.counter(&201510).unwrap();
    for _ in 0..3 {
        w.increment(&key, oct.clone(), 2).unwrap();
        w.increment(&key, SocialUsageColumns::FB_TOTAL, 2).unwrap();
    }
    w.close().unwrap();
    let row = SocialUsageTable::new(&mut setup)
        .get(&key)
        .unwrap()
        .expect("row");
    assert_eq!(row.values.fb_total, Some(6));
    assert_eq!(
        row.values.fb_usage,
        std::collections::BTreeMap::from([(201510, 6)])
    );
}
