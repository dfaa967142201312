//! docs/sdks.md's Rust access-logs example (batches, versions, range scans, filters, the
//! buffered writer), as written there apart from how it connects.

use redbase_examples::*;
use sdk_rust_tests::{connect, serial};

#[test]
fn the_access_logs_example_runs() -> Result<()> {
    let _g = serial();
    let mut conn = connect();
    let mut logs = AccessLogsTable::new(&mut conn);
    if logs.exists()? {
        logs.drop_table()?;
    }
    // From here on as in the docs.
    logs.create()?;

    // Batches: one putMultiple per 1,000 rows or 4 MiB; keys are encoded before anything is
    // sent, and rows the server refuses come back together in Error::Batch.
    let rows: Vec<(AccessLogsKey, AccessLogsValues)> = (201501..=201512)
        .map(|period| {
            let key = AccessLogsKey::new("dave", "jericho", period);
            let values = AccessLogsValues {
                hits: Some(period as i64 % 7),
                last_seen: Some(1_445_000_000_000),
            };
            (key, values)
        })
        .collect();
    logs.put_many(rows.iter().map(|(k, v)| (k, v)))?;
    let october = AccessLogsKey::new("dave", "jericho", 201510);
    logs.increment_many(&[(october.clone(), vec![(AccessLogsColumns::HITS, 5)])])?;

    // Versions: family t keeps 3; timestamps are milliseconds.
    let key = AccessLogsKey::new("elton", "anvil", 201511);
    for (ts, hits) in [(1_000, 1), (2_000, 2), (3_000, 3)] {
        let values = AccessLogsValues {
            hits: Some(hits),
            ..Default::default()
        };
        logs.put_at(&key, &values, ts)?;
    }
    let row = logs
        .get_with(&key, &ReadOptions::new().versions(3))?
        .expect("row");
    let hits = row.versions(AccessLogsColumns::HITS)?; // newest first
    assert_eq!(hits, [(3_000, 3), (2_000, 2), (1_000, 1)]);
    let then = logs.get_with(&key, &ReadOptions::new().at(2_000))?;
    assert_eq!(then.expect("row").values.hits, Some(2));

    // Range scans: leading components by value, then one component between two values.
    let dave = AccessLogsKey::prefix().user_id("dave");
    let spring = dave
        .clone()
        .system_id("jericho")
        .period_between(201503, 201505)?;
    let periods: Vec<i32> = logs
        .scan(&spring, ScanOptions::new())
        .map(|r| r.map(|r| r.key.period))
        .collect::<Result<_>>()?;
    assert_eq!(periods, [201503, 201504, 201505]);

    // Filters run by the server (HBase's filter language): value comparisons encode the
    // operand with the column's codec.
    let busy = AccessLogsColumns::HITS.ge(5) & dave.filter();
    let options = ScanOptions::new()
        .filter(busy)
        .column(AccessLogsColumns::HITS);
    for r in logs.scan(&AccessLogsKey::all(), options) {
        let r = r?;
        assert!(r.values.hits >= Some(5) && r.values.last_seen.is_none());
    }

    // A buffered writer owns a connection: it flushes every 1,000 rows, 4 MiB or second, and
    // sums increments of the same counter.
    let mut writer = AccessLogsWriter::open(connect(), WriterOptions::new());
    for _ in 0..10 {
        writer.increment(&october, AccessLogsColumns::HITS, 1)?;
    }
    writer.close()?; // flushes; returns the connection
    let row = logs.get(&october)?.expect("row");
    assert_eq!(row.values.hits, Some(201510 % 7 + 5 + 10));
    Ok(())
}
