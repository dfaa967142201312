//! The redbase engine against raw redb doing the equivalent key-value work, measured side by side
//! in one run so the ratios hold up on a shared, noisy machine.
//!
//! Run with `cargo bench --bench engine`. Settings (environment variables):
//!
//! - `REDBASE_BENCH_SECS` (default 3): measuring time per side of each workload, in seconds.
//! - `REDBASE_BENCH_ROUNDS` (default 5): the time is cut into this many rounds; the sides take
//!   turns round by round (the order changes each round), so drift in machine load hits both.
//! - `REDBASE_BENCH_ROWS` (default 10000): rows loaded for the get and scan workloads.
//! - `REDBASE_BENCH_SPLIT_ROWS` (default 50000): rows loaded before the split measurement.
//! - `REDBASE_BENCH_SPLIT_WRITERS` (default 8): writer threads running through the split.
//! - `REDBASE_BENCH_ONLY`: comma-separated sections to run, of
//!   `puts,writers,bulk,gets,scans,split` (default: all).
//! - `REDBASE_BENCH_DIR`: where the temporary databases go (default: the system temp dir).
//! - `REDBASE_BENCH_PROFILE`: run only one loop for `REDBASE_BENCH_SECS` (for `perf record`);
//!   no table is printed. One of `get-engine`, `get-raw`, `get-cells`, `get-rows`,
//!   `get-raw-held` (raw redb keeping one read transaction open), `scan-engine`, `scan-raw`, `scan-cells`, `scan-rows`, `put-engine-N` and `put-raw-N`
//!   (N = 1, 8 or 64 writers), `put-presplit-64`, `put-batches-64`. `cells` is raw redb holding
//!   the engine's key and value format; `rows` also builds the engine's `RowResult`s from it;
//!   `batches-64` is one thread committing 64 puts per raw redb transaction.
//!
//! Every write in the write workloads is durable and acknowledged on its own. Reads copy what
//! they return into owned buffers on both sides, as the engine must.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

use redb::{Database, ReadableDatabase, TableDefinition};
use redbase::engine::keys::{self, CellKey};
use redbase::engine::{
    CellType, Engine, EngineConfig, FamilyDescriptor, Get, Op, RowBuilder, RowMutation, RowResult,
    Scan, TableDescriptor, TableName,
};

/// The raw redb baseline: row key -> value, bytewise order.
const RAW: TableDefinition<&[u8], &[u8]> = TableDefinition::new("data");
/// A diagnostic baseline: raw redb holding the engine's own key and value format.
const RAW_CELLS: TableDefinition<CellKey, &[u8]> = TableDefinition::new("cells");

const TABLE: &str = "bench";
const FAMILY: &[u8] = b"f";
const QUALIFIER: &[u8] = b"q";
const VALUE_LEN: usize = 100;
const SCAN_ROWS: usize = 1000;
const LOAD_BATCH: usize = 1000;

// ---------------------------------------------------------------------------------------------
// Settings

struct Settings {
    secs: f64,
    rounds: usize,
    rows: usize,
    split_rows: usize,
    split_writers: usize,
    only: Option<Vec<String>>,
    dir: Option<PathBuf>,
    profile: Option<String>,
}

fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| {
            eprintln!("ignoring {name}={v:?}: not a number");
            default
        }),
        Err(_) => default,
    }
}

impl Settings {
    fn from_env() -> Settings {
        Settings {
            secs: env_num("REDBASE_BENCH_SECS", 3.0f64).max(0.05),
            rounds: env_num("REDBASE_BENCH_ROUNDS", 5usize).max(1),
            rows: env_num("REDBASE_BENCH_ROWS", 10_000usize).max(SCAN_ROWS + 1),
            split_rows: env_num("REDBASE_BENCH_SPLIT_ROWS", 50_000usize).max(2),
            split_writers: env_num("REDBASE_BENCH_SPLIT_WRITERS", 8usize).max(1),
            only: std::env::var("REDBASE_BENCH_ONLY").ok().map(|s| {
                s.split(',')
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect()
            }),
            dir: std::env::var_os("REDBASE_BENCH_DIR").map(PathBuf::from),
            profile: std::env::var("REDBASE_BENCH_PROFILE").ok(),
        }
    }

    fn wants(&self, section: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|s| s == section))
    }

    fn round(&self) -> Duration {
        Duration::from_secs_f64(self.secs / self.rounds as f64)
    }

    fn tempdir(&self) -> tempfile::TempDir {
        match &self.dir {
            Some(d) => {
                std::fs::create_dir_all(d).expect("create REDBASE_BENCH_DIR");
                tempfile::tempdir_in(d).expect("tempdir")
            }
            None => tempfile::tempdir().expect("tempdir"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Keys and data

/// A well-mixed 64-bit hash (splitmix64's finaliser): spreads sequence numbers over the key space.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Row key of write number `seq`: 16 hex digits, uniformly spread (so pre-split regions share
/// the load evenly).
fn write_key(seq: u64) -> Vec<u8> {
    format!("{:016x}", mix(seq)).into_bytes()
}

/// Row key of loaded row `i`: consecutive rows sort consecutively.
fn row_key(i: usize) -> Vec<u8> {
    format!("r{i:09}").into_bytes()
}

fn value_for(i: u64) -> Vec<u8> {
    let mut v = vec![0u8; VALUE_LEN];
    let mut x = i;
    for chunk in v.chunks_mut(8) {
        x = mix(x);
        let b = x.to_le_bytes();
        chunk.copy_from_slice(&b[..chunk.len()]);
    }
    v
}

fn put_mutation(row: &[u8], value: &[u8]) -> RowMutation {
    RowMutation::new(row).with(Op::put(FAMILY, QUALIFIER, value))
}

fn open_engine(dir: &Path, split_keys: &[Vec<u8>]) -> Engine {
    let config = EngineConfig {
        // Splits happen only where the bench asks for them.
        region_max_size: 0,
        ..EngineConfig::default()
    };
    let engine = Engine::open(dir.join("engine"), config).expect("open engine");
    let desc = TableDescriptor::new(TableName::parse(TABLE).expect("table name"))
        .with_family(FamilyDescriptor::new(FAMILY));
    engine.create_table(desc, split_keys).expect("create table");
    engine
}

fn open_raw(dir: &Path, name: &str) -> Database {
    let db = Database::create(dir.join(name)).expect("create raw redb");
    let txn = db.begin_write().expect("begin_write");
    txn.open_table(RAW).expect("open table");
    txn.open_table(RAW_CELLS).expect("open table");
    txn.commit().expect("commit");
    db
}

fn raw_put(db: &Database, key: &[u8], value: &[u8]) {
    let txn = db.begin_write().expect("begin_write");
    {
        let mut t = txn.open_table(RAW).expect("open table");
        t.insert(key, value).expect("insert");
    }
    txn.commit().expect("commit");
}

/// Loads rows `0..n` with the same values into the engine, the raw table and the raw table in
/// the engine's format.
fn load(engine: &Engine, db: &Database, n: usize) {
    let ts = now_ms();
    for start in (0..n).step_by(LOAD_BATCH) {
        let end = (start + LOAD_BATCH).min(n);
        let batch: Vec<RowMutation> = (start..end)
            .map(|i| {
                RowMutation::new(&row_key(i)).with(Op::put_at(
                    FAMILY,
                    QUALIFIER,
                    ts,
                    &value_for(i as u64),
                ))
            })
            .collect();
        for r in engine.mutate_rows(TABLE, batch) {
            r.expect("load row");
        }
        let txn = db.begin_write().expect("begin_write");
        {
            let mut raw = txn.open_table(RAW).expect("open table");
            let mut cells = txn.open_table(RAW_CELLS).expect("open table");
            for i in start..end {
                let row = row_key(i);
                let value = value_for(i as u64);
                raw.insert(row.as_slice(), value.as_slice())
                    .expect("insert");
                let key = keys::encode(&row, keys::KIND_COLUMN, QUALIFIER, ts, CellType::Put);
                let stored = keys::encode_value(&value, None);
                cells
                    .insert(key.as_slice(), stored.as_slice())
                    .expect("insert");
            }
        }
        txn.commit().expect("commit");
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// Measuring

/// Operations done and time spent by one side of a workload, summed over rounds.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    ops: u64,
    secs: f64,
}

impl Tally {
    fn add(&mut self, (ops, took): (u64, Duration)) -> f64 {
        self.ops += ops;
        self.secs += took.as_secs_f64();
        ops as f64 / took.as_secs_f64().max(1e-9)
    }

    fn rate(&self) -> f64 {
        self.ops as f64 / self.secs.max(1e-9)
    }
}

/// A side of a comparison: runs its workload for about the given time, returns (ops, time).
type Side<'a> = Box<dyn FnMut(Duration) -> (u64, Duration) + 'a>;

/// Runs the sides in alternating rounds. Returns each side's tally and, per round, each side's
/// rate.
fn compare(settings: &Settings, sides: &mut [Side<'_>]) -> (Vec<Tally>, Vec<Vec<f64>>) {
    let mut tallies = vec![Tally::default(); sides.len()];
    let mut rounds = Vec::new();
    for round in 0..settings.rounds {
        let mut rates = vec![0.0; sides.len()];
        // Every side gets turns early and late in the rounds.
        let mut order: Vec<usize> = (0..sides.len()).collect();
        order.rotate_left((round / 2) % sides.len());
        if round % 2 == 1 {
            order.reverse();
        }
        for i in order {
            rates[i] = tallies[i].add((sides[i])(settings.round()));
        }
        rounds.push(rates);
    }
    (tallies, rounds)
}

/// With `REDBASE_BENCH_PROFILE` naming one of these sides (`{workload}-{name}`), runs only it
/// for the whole measuring time and returns true.
fn profile_only(
    settings: &Settings,
    workload: &str,
    names: &[&str],
    sides: &mut [Side<'_>],
) -> bool {
    let Some(want) = &settings.profile else {
        return false;
    };
    for (name, side) in names.iter().zip(sides.iter_mut()) {
        if *want == format!("{workload}-{name}") {
            let (ops, took) = side(Duration::from_secs_f64(settings.secs));
            println!(
                "profile {want}: {ops} ops in {:.2} s = {:.0} ops/s",
                took.as_secs_f64(),
                ops as f64 / took.as_secs_f64()
            );
            return true;
        }
    }
    false
}

/// Calls `op` with 0, 1, 2, … until `d` has passed.
fn for_duration(d: Duration, mut op: impl FnMut(u64)) -> (u64, Duration) {
    let start = Instant::now();
    let mut n = 0;
    loop {
        op(n);
        n += 1;
        if start.elapsed() >= d {
            return (n, start.elapsed());
        }
    }
}

/// Runs `op(thread)` in a loop on `threads` threads for about `d`. The time counted runs from the
/// common start until the last thread has finished its last operation.
fn threads_for(threads: usize, d: Duration, op: impl Fn(usize) + Sync) -> (u64, Duration) {
    let stop = AtomicBool::new(false);
    let total = AtomicU64::new(0);
    let barrier = Barrier::new(threads + 1);
    let start = std::thread::scope(|s| {
        for t in 0..threads {
            let (stop, total, barrier, op) = (&stop, &total, &barrier, &op);
            s.spawn(move || {
                barrier.wait();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    op(t);
                    n += 1;
                }
                total.fetch_add(n, Ordering::Relaxed);
            });
        }
        barrier.wait();
        let start = Instant::now();
        std::thread::sleep(d);
        stop.store(true, Ordering::Relaxed);
        start
    });
    (total.load(Ordering::Relaxed), start.elapsed())
}

// ---------------------------------------------------------------------------------------------
// Reporting

enum Target {
    /// Informational: no target.
    None,
    /// redbase must reach this fraction of raw redb's throughput.
    OfRaw(f64),
}

struct Line {
    workload: String,
    redbase: String,
    raw: String,
    ratio: String,
    target: String,
    result: String,
}

#[derive(Default)]
struct Report {
    lines: Vec<Line>,
    notes: Vec<String>,
}

fn fmt_rate(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

fn spread(rounds: &[Vec<f64>], a: usize, b: usize) -> String {
    let ratios: Vec<f64> = rounds
        .iter()
        .map(|r| r[a] / r[b].max(1e-9))
        .collect::<Vec<_>>();
    let lo = ratios.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = ratios.iter().cloned().fold(0.0, f64::max);
    format!("{lo:.2}–{hi:.2}")
}

impl Report {
    fn compared(
        &mut self,
        workload: &str,
        redbase: Tally,
        raw: Tally,
        rounds: &[Vec<f64>],
        (ib, ir): (usize, usize),
        target: Target,
    ) {
        let ratio = redbase.rate() / raw.rate().max(1e-9);
        let (target, result) = match target {
            Target::None => ("-".to_string(), "-".to_string()),
            Target::OfRaw(t) => (
                format!(">= {:.0}% of raw", t * 100.0),
                if ratio >= t { "pass" } else { "FAIL" }.to_string(),
            ),
        };
        let line = Line {
            workload: workload.to_string(),
            redbase: fmt_rate(redbase.rate()),
            raw: fmt_rate(raw.rate()),
            ratio: format!("{ratio:.2} ({})", spread(rounds, ib, ir)),
            target,
            result,
        };
        println!(
            "  {:<44} redbase {:>10}/s  raw {:>10}/s  ratio {}",
            line.workload, line.redbase, line.raw, line.ratio
        );
        self.lines.push(line);
    }

    fn note(&mut self, s: String) {
        println!("  {s}");
        self.notes.push(s);
    }

    fn print(&self) {
        let head = Line {
            workload: "workload".into(),
            redbase: "redbase ops/s".into(),
            raw: "raw redb ops/s".into(),
            ratio: "ratio (per-round range)".into(),
            target: "target".into(),
            result: "result".into(),
        };
        let cols = |l: &Line| -> [String; 6] {
            [
                l.workload.clone(),
                l.redbase.clone(),
                l.raw.clone(),
                l.ratio.clone(),
                l.target.clone(),
                l.result.clone(),
            ]
        };
        let mut widths = [0usize; 6];
        for l in std::iter::once(&head).chain(&self.lines) {
            for (w, c) in widths.iter_mut().zip(cols(l)) {
                *w = (*w).max(c.chars().count());
            }
        }
        let row = |l: &Line| {
            let c = cols(l);
            let mut s = String::from("|");
            for (i, (cell, w)) in c.iter().zip(widths).enumerate() {
                let pad = w - cell.chars().count();
                if i == 0 || i >= 3 {
                    s.push_str(&format!(" {cell}{} |", " ".repeat(pad)));
                } else {
                    s.push_str(&format!(" {}{cell} |", " ".repeat(pad)));
                }
            }
            s
        };
        println!();
        println!("{}", row(&head));
        let mut sep = String::from("|");
        for (i, w) in widths.iter().enumerate() {
            if i == 1 || i == 2 {
                sep.push_str(&format!("{}:|", "-".repeat(w + 1)));
            } else {
                sep.push_str(&format!("{}|", "-".repeat(w + 2)));
            }
        }
        println!("{sep}");
        for l in &self.lines {
            println!("{}", row(l));
        }
        if !self.notes.is_empty() {
            println!();
            for n in &self.notes {
                println!("- {n}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Workloads

/// Workload 1: durable single puts, one at a time.
fn bench_puts(settings: &Settings, report: &mut Report) {
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
fn engine_writers<'a>(
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
fn raw_writers<'a>(db: &'a Database, seq: &'a AtomicU64, value: &'a [u8], n: usize) -> Side<'a> {
    Box::new(move |d| {
        threads_for(n, d, |_| {
            let row = write_key(seq.fetch_add(1, Ordering::Relaxed));
            raw_put(db, &row, value);
        })
    })
}

/// One thread putting `batch` rows per raw redb write transaction: what one redb file can
/// commit when every commit carries that many puts (the ceiling for one region's group commit).
fn raw_batches<'a>(db: &'a Database, seq: &'a AtomicU64, value: &'a [u8], batch: u64) -> Side<'a> {
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
const BULK_BATCH: u64 = 1000;

/// Bulk loading: one thread sending batches of [`BULK_BATCH`] rows with spread keys through
/// `mutate_rows`, into one region and into 16 pre-split regions (where a batch touches every
/// region, so the regions must commit side by side), against raw redb committing the same number
/// of inserts per transaction to one file.
fn bench_bulk(settings: &Settings, report: &mut Report) {
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
fn engine_bulk<'a>(e: &'a Engine, seq: &'a AtomicU64, value: &'a [u8]) -> Side<'a> {
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
fn bench_writers(settings: &Settings, report: &mut Report) {
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

/// Turns cells read in the engine's format into the engine's output types, as a read of
/// single-family rows must: the cost of the result representation alone.
fn push_cell(out: &mut Vec<RowResult>, key: &[u8], stored: &[u8]) {
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
fn bench_reads(settings: &Settings, report: &mut Report, gets: bool, scans: bool) {
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

/// Latencies of every put a writer run made: (start offset from the run's start, latency).
fn timed_writers(
    engine: &Engine,
    writers: usize,
    rows: usize,
    seq: &AtomicU64,
    d: Duration,
    during: impl FnOnce(Instant),
) -> (Vec<(Duration, Duration)>, Duration) {
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(writers + 1);
    let samples = Mutex::new(Vec::new());
    let value = value_for(3);
    let start = std::thread::scope(|s| {
        for _ in 0..writers {
            let (stop, barrier, samples, value) = (&stop, &barrier, &samples, &value);
            s.spawn(move || {
                barrier.wait();
                let begin = Instant::now();
                let mut mine = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let i = mix(seq.fetch_add(1, Ordering::Relaxed)) % rows as u64;
                    let row = row_key(i as usize);
                    let t0 = Instant::now();
                    engine
                        .mutate_row(TABLE, put_mutation(&row, value))
                        .expect("put");
                    mine.push((t0 - begin, t0.elapsed()));
                }
                samples.lock().expect("samples").append(&mut mine);
            });
        }
        barrier.wait();
        let start = Instant::now();
        during(start);
        let left = d.saturating_sub(start.elapsed());
        std::thread::sleep(left);
        stop.store(true, Ordering::Relaxed);
        start
    });
    (samples.into_inner().expect("samples"), start.elapsed())
}

fn latency_summary(samples: &[(Duration, Duration)]) -> (Duration, Duration, Duration) {
    let mut l: Vec<Duration> = samples.iter().map(|s| s.1).collect();
    l.sort();
    let at = |q: f64| {
        l.get(((l.len() as f64 * q) as usize).min(l.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    (at(0.5), at(0.99), l.last().copied().unwrap_or_default())
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Split pause: writers run through a split of the region they write to.
fn bench_split(settings: &Settings, report: &mut Report) {
    let dir = settings.tempdir();
    let engine = open_engine(dir.path(), &[]);
    // `load` fills a raw redb file too; the split needs only the engine side.
    let db = open_raw(dir.path(), "raw.redb");
    let n = settings.split_rows;
    println!("loading {n} rows for the split");
    load(&engine, &db, n);
    drop(db);
    let size = engine.regions(TABLE).expect("regions")[0].size;
    let writers = settings.split_writers;
    let d = Duration::from_secs_f64(settings.secs);
    let seq = AtomicU64::new(0);

    println!("writers without a split");
    let (base, base_took) = timed_writers(&engine, writers, n, &seq, d, |_| {});
    println!("writers through a split");
    let window = Mutex::new((Duration::ZERO, Duration::ZERO, Duration::ZERO));
    let (split, split_took) = timed_writers(&engine, writers, n, &seq, d, |start| {
        std::thread::sleep(d / 4);
        let t0 = start.elapsed();
        let pause = engine
            .split_region(TABLE, &row_key(n / 2), None)
            .expect("split");
        *window.lock().expect("window") = (t0, start.elapsed(), pause);
    });
    let (w0, w1, pause) = window.into_inner().expect("window");
    let regions = engine.regions(TABLE).expect("regions").len();
    // Puts that were in flight at any time while the split ran.
    let overlapping: Vec<(Duration, Duration)> = split
        .iter()
        .copied()
        .filter(|(at, lat)| *at < w1 && *at + *lat > w0)
        .collect();
    let (b50, b99, bmax) = latency_summary(&base);
    let (s50, s99, smax) = latency_summary(&split);
    let (_, o99, omax) = latency_summary(&overlapping);
    let pauses: Vec<String> = engine.split_pauses().into_iter().map(ms).collect();
    report.note(format!(
        "split: region of {n} rows ({:.1} MB stored) split into {regions} regions with \
         {writers} writers running; split_region took {} end to end; \
         engine.split_pauses() = [{}] (returned pause {})",
        size as f64 / 1e6,
        ms(w1 - w0),
        pauses.join(", "),
        ms(pause)
    ));
    report.note(format!(
        "split: write latency without split p50 {} / p99 {} / worst {} ({:.0} puts/s); \
         run with split p50 {} / p99 {} / worst {} ({:.0} puts/s); \
         puts in flight during the split: {} (p99 {}, worst {})",
        ms(b50),
        ms(b99),
        ms(bmax),
        base.len() as f64 / base_took.as_secs_f64(),
        ms(s50),
        ms(s99),
        ms(smax),
        split.len() as f64 / split_took.as_secs_f64(),
        overlapping.len(),
        ms(o99),
        ms(omax),
    ));
    engine.close();
}

fn machine_notes() -> String {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into());
    format!("{cores} cores, load average {load}")
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not supported (use REDBASE_BENCH_ONLY).
    let settings = Settings::from_env();
    println!(
        "redbase engine vs raw redb: {} s per side per workload in {} alternating rounds, \
         {} rows for reads, {} rows for the split; {}",
        settings.secs,
        settings.rounds,
        settings.rows,
        settings.split_rows,
        machine_notes()
    );
    let started = Instant::now();
    let mut report = Report::default();
    if let Some(p) = &settings.profile {
        if p.starts_with("put-") {
            bench_writers(&settings, &mut report);
        } else {
            bench_reads(
                &settings,
                &mut report,
                p.starts_with("get-"),
                p.starts_with("scan-"),
            );
        }
        return;
    }
    if settings.wants("puts") {
        bench_puts(&settings, &mut report);
    }
    if settings.wants("writers") {
        bench_writers(&settings, &mut report);
    }
    if settings.wants("bulk") {
        bench_bulk(&settings, &mut report);
    }
    let (gets, scans) = (settings.wants("gets"), settings.wants("scans"));
    if gets || scans {
        bench_reads(&settings, &mut report, gets, scans);
    }
    if settings.wants("split") {
        bench_split(&settings, &mut report);
    }
    report.print();
    println!(
        "\nfinished in {:.0} s; {}",
        started.elapsed().as_secs_f64(),
        machine_notes()
    );
}
