//! The write workloads: durable single puts, concurrent writers, bulk batches.

use super::*;

/// Workload 1: durable single puts, one at a time.
pub(crate) fn bench_puts(settings: &Settings, report: &mut Report) {
    println!("durable single puts");
    let dir = settings.tempdir();
    let engine = open_engine(dir.path(), &[]);
    let db = open_raw(dir.path(), "raw.redb");
    let value = value_for(7);
    let (seq_e, seq_r, seq_a) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let mut sides: Vec<Side> = vec![
        Box::new(|d| {
            for_duration(d, |_| {
                let row = write_key(seq_e.fetch_add(1, Ordering::Relaxed));
                engine
                    .mutate_row(TABLE, put_mutation(&row, &value))
                    .expect("put");
            })
        }),
        Box::new(|d| {
            for_duration(d, |_| {
                let row = write_key(seq_r.fetch_add(1, Ordering::Relaxed));
                raw_put(&db, &row, &value);
            })
        }),
        // ASYNC_WAL: acknowledged after the redo log's write(2), synced within async_flush.
        Box::new(|d| {
            for_duration(d, |_| {
                let row = write_key(seq_a.fetch_add(1, Ordering::Relaxed));
                let mut m = put_mutation(&row, &value);
                m.durability = redbase::engine::Durability::AsyncWal;
                engine.mutate_row(TABLE, m).expect("async put");
            })
        }),
    ];
    let (t, rounds) = compare(settings, &mut sides);
    drop(sides);
    report.compared(
        "durable put, 1 thread",
        t[0],
        t[1],
        &rounds,
        (0, 1),
        Target::None,
    );
    report.compared(
        "async (ASYNC_WAL) put, 1 thread, vs durable raw",
        t[2],
        t[1],
        &rounds,
        (2, 1),
        Target::None,
    );
    engine.close();
}

/// `n` threads putting rows through the engine, one durable put per call. Adds the commits the
/// table's regions made to `commits`.
pub(crate) fn engine_writers<'a>(
    e: &'a Engine,
    seq: &'a AtomicU64,
    value: &'a [u8],
    n: usize,
    commits: &'a AtomicU64,
) -> Side<'a> {
    let count = move || -> u64 {
        e.regions(TABLE)
            .expect("regions")
            .iter()
            .map(|r| r.commits)
            .sum()
    };
    Box::new(move |d| {
        let before = count();
        let out = threads_for(n, d, |_| {
            let row = write_key(seq.fetch_add(1, Ordering::Relaxed));
            e.mutate_row(TABLE, put_mutation(&row, value)).expect("put");
        });
        commits.fetch_add(count() - before, Ordering::Relaxed);
        out
    })
}

/// `n` threads putting rows into raw redb, one write transaction and commit per put.
pub(crate) fn raw_writers<'a>(
    db: &'a Database,
    seq: &'a AtomicU64,
    value: &'a [u8],
    n: usize,
) -> Side<'a> {
    Box::new(move |d| {
        threads_for(n, d, |_| {
            let row = write_key(seq.fetch_add(1, Ordering::Relaxed));
            raw_put(db, &row, value);
        })
    })
}

/// One thread putting `batch` rows per raw redb write transaction: what one redb file can
/// commit when every commit carries that many puts (the ceiling for one region's group commit).
pub(crate) fn raw_batches<'a>(
    db: &'a Database,
    seq: &'a AtomicU64,
    value: &'a [u8],
    batch: u64,
) -> Side<'a> {
    Box::new(move |d| {
        let (txns, took) = for_duration(d, |_| {
            let txn = db.begin_write().expect("begin_write");
            {
                let mut t = txn.open_table(RAW).expect("open table");
                for _ in 0..batch {
                    let row = write_key(seq.fetch_add(1, Ordering::Relaxed));
                    t.insert(row.as_slice(), value).expect("insert");
                }
            }
            txn.commit().expect("commit");
        });
        (txns * batch, took)
    })
}

/// Rows per `mutate_rows` call in the bulk section: a bulk loader's batch.
pub(crate) const BULK_BATCH: u64 = 1000;

/// Bulk loading: one thread sending batches of [`BULK_BATCH`] rows with spread keys through
/// `mutate_rows`, into one region and into 16 pre-split regions (where a batch touches every
/// region, so the regions must commit side by side), against raw redb committing the same number
/// of inserts per transaction to one file.
pub(crate) fn bench_bulk(settings: &Settings, report: &mut Report) {
    println!("bulk loading in batches of {BULK_BATCH} rows");
    let one_dir = settings.tempdir();
    let one = open_engine(one_dir.path(), &[]);
    let split_keys: Vec<Vec<u8>> = (1..16u8).map(|i| format!("{i:x}").into_bytes()).collect();
    let many_dir = settings.tempdir();
    let many = open_engine(many_dir.path(), &split_keys);
    let db = open_raw(one_dir.path(), "raw-bulk.redb");
    let value = value_for(13);
    let (seq_1, seq_16, seq_r) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let mut sides: Vec<Side> = vec![
        engine_bulk(&one, &seq_1, &value),
        engine_bulk(&many, &seq_16, &value),
        raw_batches(&db, &seq_r, &value, BULK_BATCH),
    ];
    let (t, rounds) = compare(settings, &mut sides);
    drop(sides);
    report.compared(
        "bulk rows, batches of 1000, 1 region",
        t[0],
        t[2],
        &rounds,
        (0, 2),
        Target::None,
    );
    report.compared(
        "bulk rows, batches of 1000, 16 regions",
        t[1],
        t[2],
        &rounds,
        (1, 2),
        Target::None,
    );
    one.close();
    many.close();
}

/// One thread sending [`BULK_BATCH`] rows per `mutate_rows` call; counts rows.
pub(crate) fn engine_bulk<'a>(e: &'a Engine, seq: &'a AtomicU64, value: &'a [u8]) -> Side<'a> {
    Box::new(move |d| {
        let (calls, took) = for_duration(d, |_| {
            let batch: Vec<RowMutation> = (0..BULK_BATCH)
                .map(|_| put_mutation(&write_key(seq.fetch_add(1, Ordering::Relaxed)), value))
                .collect();
            for r in e.mutate_rows(TABLE, batch) {
                r.expect("bulk row");
            }
        });
        (calls * BULK_BATCH, took)
    })
}

/// Workload 2: puts from 1, 8 and 64 concurrent writers, each put durable and acknowledged on
/// its own. All variants take turns within the same rounds, so the 64/1 scaling is measured side by side.
pub(crate) fn bench_writers(settings: &Settings, report: &mut Report) {
    println!("concurrent durable puts");
    let dir = settings.tempdir();
    let engine = open_engine(dir.path(), &[]);
    let split_keys: Vec<Vec<u8>> = ["4", "8", "c"]
        .iter()
        .map(|k| k.as_bytes().to_vec())
        .collect();
    let presplit_dir = settings.tempdir();
    let presplit = open_engine(presplit_dir.path(), &split_keys);
    let db = open_raw(dir.path(), "raw.redb");
    let batch_db = open_raw(dir.path(), "raw-batches.redb");
    let value = value_for(11);
    let (seq_e, seq_p, seq_r, seq_b) = (
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
    );
    let commits: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(0)).collect();
    const WRITERS: [usize; 3] = [1, 8, 64];
    let mut sides: Vec<Side> = Vec::new();
    for (i, n) in WRITERS.into_iter().enumerate() {
        sides.push(engine_writers(&engine, &seq_e, &value, n, &commits[i]));
        sides.push(raw_writers(&db, &seq_r, &value, n));
    }
    sides.push(engine_writers(&presplit, &seq_p, &value, 64, &commits[3]));
    sides.push(raw_batches(&batch_db, &seq_b, &value, 64));
    let names = [
        "engine-1",
        "raw-1",
        "engine-8",
        "raw-8",
        "engine-64",
        "raw-64",
        "presplit-64",
        "batches-64",
    ];
    if profile_only(settings, "put", &names, &mut sides) {
        return;
    }
    let (t, rounds) = compare(settings, &mut sides);
    drop(sides);
    for (i, n) in WRITERS.into_iter().enumerate() {
        report.compared(
            &format!("durable put, {n} writer{}", if n == 1 { "" } else { "s" }),
            t[2 * i],
            t[2 * i + 1],
            &rounds,
            (2 * i, 2 * i + 1),
            Target::None,
        );
    }
    report.compared(
        "durable put, 64 writers, 4 regions",
        t[6],
        t[5],
        &rounds,
        (6, 5),
        Target::None,
    );
    report.compared(
        "diag: raw redb, 64 puts per commit, 1 thread",
        t[7],
        t[5],
        &rounds,
        (7, 5),
        Target::None,
    );
    let scaling = t[4].rate() / t[0].rate().max(1e-9);
    let raw_scaling = t[5].rate() / t[1].rate().max(1e-9);
    let line = Line {
        workload: "group commit: 64 writers / 1 writer".into(),
        redbase: format!("{scaling:.1}x"),
        raw: format!("{raw_scaling:.1}x"),
        ratio: format!("- ({}x)", spread(&rounds, 4, 0)),
        target: "redbase >= 10x".into(),
        result: if scaling >= 10.0 { "pass" } else { "FAIL" }.into(),
    };
    println!(
        "  {:<44} redbase {:>10}    raw {:>10}   per round {}",
        line.workload, line.redbase, line.raw, line.ratio
    );
    report.lines.push(line);
    for (i, label) in [
        "1 writer",
        "8 writers",
        "64 writers",
        "64 writers, 4 regions",
    ]
    .iter()
    .enumerate()
    {
        let side = if i < 3 { 2 * i } else { 6 };
        let c = commits[i].load(Ordering::Relaxed);
        report.note(format!(
            "{label}: redbase made {c} commits for {} puts ({:.1} puts per commit, {:.2} ms per commit)",
            t[side].ops,
            t[side].ops as f64 / c.max(1) as f64,
            t[side].secs * 1000.0 / c.max(1) as f64 * if i == 3 { 4.0 } else { 1.0 },
        ));
    }
    engine.close();
    presplit.close();
}
