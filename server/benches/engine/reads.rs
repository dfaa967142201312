//! The read workloads: point gets and 1000-row scans, with the diagnostic baselines in the
//! engine's own format.

use super::*;

/// Turns cells read in the engine's format into the engine's output types, as a read of
/// single-family rows must: the cost of the result representation alone.
pub(crate) fn push_cell(out: &mut Vec<RowResult>, key: &[u8], stored: &[u8]) {
    let k = keys::decode(key).expect("cell key");
    let (_, value) = keys::decode_value(stored).expect("cell value");
    match out.last_mut() {
        // Not reached with the bench's one-cell rows; kept correct for other data.
        Some(r) if r.row() == k.row => {
            let mut cells = r.to_cells();
            let mut b = RowBuilder::new(k.row, 0, 1);
            b.push(FAMILY, k.qualifier, k.ts, k.cell_type, value);
            cells.extend(b.finish().to_cells());
            *r = RowResult::from_cells(k.row, &cells);
        }
        _ => {
            let mut b = RowBuilder::new(k.row, FAMILY.len() + k.qualifier.len() + value.len(), 1);
            b.push(FAMILY, k.qualifier, k.ts, k.cell_type, value);
            out.push(b.finish());
        }
    }
}

/// Workloads 3 and 4: random point gets and 1000-row scans over loaded rows.
pub(crate) fn bench_reads(settings: &Settings, report: &mut Report, gets: bool, scans: bool) {
    let dir = settings.tempdir();
    let engine = open_engine(dir.path(), &[]);
    let db = open_raw(dir.path(), "raw.redb");
    let n = settings.rows;
    println!("loading {n} rows for reads");
    load(&engine, &db, n);
    let rows: Vec<Vec<u8>> = (0..n).map(row_key).collect();
    // Bare row prefixes bound a row's cells in the engine's key format.
    let starts: Vec<Vec<u8>> = rows.iter().map(|r| keys::row_start(r)).collect();

    if gets {
        println!("random gets");
        let pick = |i: u64| (mix(i ^ 0x5eed) % n as u64) as usize;
        let mut sides: Vec<Side> = vec![
            Box::new(|d| {
                for_duration(d, |i| {
                    let r = engine
                        .get(TABLE, Get::new(&rows[pick(i)]))
                        .expect("get")
                        .expect("row exists");
                    black_box(r);
                })
            }),
            Box::new(|d| {
                for_duration(d, |i| {
                    let txn = db.begin_read().expect("begin_read");
                    let t = txn.open_table(RAW).expect("open table");
                    let v = t
                        .get(rows[pick(i)].as_slice())
                        .expect("get")
                        .expect("row exists")
                        .value()
                        .to_vec();
                    black_box(v);
                })
            }),
            Box::new(|d| {
                for_duration(d, |i| {
                    let txn = db.begin_read().expect("begin_read");
                    let t = txn.open_table(RAW_CELLS).expect("open table");
                    let row = &rows[pick(i)];
                    let mut succ = row.clone();
                    succ.push(0);
                    let end = keys::row_start(&succ);
                    let mut out = Vec::new();
                    for item in t
                        .range(keys::row_start(row).as_slice()..end.as_slice())
                        .expect("range")
                    {
                        let (k, v) = item.expect("entry");
                        out.push((k.value().to_vec(), v.value().to_vec()));
                    }
                    assert_eq!(out.len(), 1);
                    black_box(out);
                })
            }),
            Box::new(|d| {
                for_duration(d, |i| {
                    let txn = db.begin_read().expect("begin_read");
                    let t = txn.open_table(RAW_CELLS).expect("open table");
                    let row = &rows[pick(i)];
                    let mut succ = row.clone();
                    succ.push(0);
                    let end = keys::row_start(&succ);
                    let mut out = Vec::new();
                    for item in t
                        .range(keys::row_start(row).as_slice()..end.as_slice())
                        .expect("range")
                    {
                        let (k, v) = item.expect("entry");
                        push_cell(&mut out, k.value(), v.value());
                    }
                    assert_eq!(out.len(), 1);
                    black_box(out);
                })
            }),
            // Raw redb with one read transaction and table kept open for the whole round: the
            // engine shares a read snapshot between commits, and this shows what that is worth
            // to a raw redb user too.
            Box::new(|d| {
                let txn = db.begin_read().expect("begin_read");
                let t = txn.open_table(RAW).expect("open table");
                for_duration(d, |i| {
                    let v = t
                        .get(rows[pick(i)].as_slice())
                        .expect("get")
                        .expect("row exists")
                        .value()
                        .to_vec();
                    black_box(v);
                })
            }),
        ];
        if profile_only(
            settings,
            "get",
            &["engine", "raw", "cells", "rows", "raw-held"],
            &mut sides,
        ) {
            return;
        }
        let (t, rounds) = compare(settings, &mut sides);
        drop(sides);
        report.compared(
            "random get (1 cell, 100 B)",
            t[0],
            t[1],
            &rounds,
            (0, 1),
            Target::OfRaw(0.5),
        );
        report.compared(
            "diag: get, raw redb in engine key format",
            t[2],
            t[1],
            &rounds,
            (2, 1),
            Target::None,
        );
        report.compared(
            "diag: get, raw redb engine format -> RowResult",
            t[3],
            t[1],
            &rounds,
            (3, 1),
            Target::None,
        );
        report.compared(
            "diag: get vs raw redb holding one read txn",
            t[0],
            t[4],
            &rounds,
            (0, 4),
            Target::None,
        );
    }

    if scans {
        println!("1000-row scans");
        let pick = |i: u64| (mix(i ^ 0x5ca7) % (n - SCAN_ROWS) as u64) as usize;
        let mut sides: Vec<Side> = vec![
            Box::new(|d| {
                for_duration(d, |i| {
                    let s = pick(i);
                    // Sized up front, as the raw side's result vector is.
                    let mut out = Vec::with_capacity(SCAN_ROWS);
                    for r in engine
                        .scan(TABLE, Scan::range(&rows[s], &rows[s + SCAN_ROWS]))
                        .expect("scan")
                    {
                        out.push(r.expect("scan row"));
                    }
                    assert_eq!(out.len(), SCAN_ROWS);
                    black_box(out);
                })
            }),
            Box::new(|d| {
                for_duration(d, |i| {
                    let s = pick(i);
                    let txn = db.begin_read().expect("begin_read");
                    let t = txn.open_table(RAW).expect("open table");
                    let mut out = Vec::with_capacity(SCAN_ROWS);
                    for item in t
                        .range(rows[s].as_slice()..rows[s + SCAN_ROWS].as_slice())
                        .expect("range")
                    {
                        let (k, v) = item.expect("entry");
                        out.push((k.value().to_vec(), v.value().to_vec()));
                    }
                    assert_eq!(out.len(), SCAN_ROWS);
                    black_box(out);
                })
            }),
            Box::new(|d| {
                for_duration(d, |i| {
                    let s = pick(i);
                    let txn = db.begin_read().expect("begin_read");
                    let t = txn.open_table(RAW_CELLS).expect("open table");
                    let mut out = Vec::with_capacity(SCAN_ROWS);
                    for item in t
                        .range(starts[s].as_slice()..starts[s + SCAN_ROWS].as_slice())
                        .expect("range")
                    {
                        let (k, v) = item.expect("entry");
                        out.push((k.value().to_vec(), v.value().to_vec()));
                    }
                    assert_eq!(out.len(), SCAN_ROWS);
                    black_box(out);
                })
            }),
            Box::new(|d| {
                for_duration(d, |i| {
                    let s = pick(i);
                    let txn = db.begin_read().expect("begin_read");
                    let t = txn.open_table(RAW_CELLS).expect("open table");
                    let mut out = Vec::with_capacity(SCAN_ROWS);
                    for item in t
                        .range(starts[s].as_slice()..starts[s + SCAN_ROWS].as_slice())
                        .expect("range")
                    {
                        let (k, v) = item.expect("entry");
                        push_cell(&mut out, k.value(), v.value());
                    }
                    assert_eq!(out.len(), SCAN_ROWS);
                    black_box(out);
                })
            }),
        ];
        if profile_only(
            settings,
            "scan",
            &["engine", "raw", "cells", "rows"],
            &mut sides,
        ) {
            return;
        }
        let (t, rounds) = compare(settings, &mut sides);
        drop(sides);
        report.compared(
            "scan 1000 rows",
            t[0],
            t[1],
            &rounds,
            (0, 1),
            Target::OfRaw(0.5),
        );
        report.compared(
            "diag: scan, raw redb in engine key format",
            t[2],
            t[1],
            &rounds,
            (2, 1),
            Target::None,
        );
        report.compared(
            "diag: scan, raw redb engine format -> RowResult",
            t[3],
            t[1],
            &rounds,
            (3, 1),
            Target::None,
        );
    }
    engine.close();
}
