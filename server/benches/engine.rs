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

#[path = "engine/measure.rs"]
mod measure;
#[path = "engine/reads.rs"]
mod reads;
#[path = "engine/setup.rs"]
mod setup;
#[path = "engine/split.rs"]
mod split;
#[path = "engine/writes.rs"]
mod writes;

use measure::*;
use reads::*;
use setup::*;
use split::*;
use writes::*;

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
