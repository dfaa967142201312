//! The point of an online backup: one instant at which the catalog and every region of every
//! table are captured together, while writers are held only for as long as it takes to begin
//! a redb read transaction on each file.
//!
//! Taking it ([`Engine::backup_point`]):
//!
//! 1. The DDL lock is taken and kept until the backup ends: no split, compaction, table or
//!    namespace change or grant can run meanwhile, so the region set the catalog names stays
//!    the one whose files are copied (DDL callers wait; nothing is refused).
//! 2. A read transaction on the catalog (it changes only under that lock).
//! 3. Every region's write gate, in turn, so no commit runs anywhere; then a read transaction
//!    on every region file; then the gates are released. The time from the first gate to the
//!    release is the pause writers see ([`BackupPoint::pause`]).
//!
//! A write acknowledged before the point was committed before its region's gate was taken, so
//! the region's read transaction holds it; a write committed after it is in no snapshot.
//! Non-durable (`ASYNC_WAL`, `SKIP_WAL`) commits are visible to read transactions like durable
//! ones, so they are part of the point without a flush; the dump of the snapshot is what the
//! backup keeps, and restore writes it durably, so no redo log is needed.
//!
//! Each snapshot is then dumped ([`super::dump`]) while writes go on, and released as soon as
//! it has been written, so redb can reuse the pages later commits free.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, MutexGuard};
use std::time::{Duration, Instant};

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::histogram::Histogram;
use redb::ReadTransaction;

use super::backup_error::BackupError;
use super::dump::write_dump;
use crate::engine::model::cell;
use crate::engine::regions::region::Region;
use crate::engine::Engine;

/// Buckets from 10 µs (a pause) to 1 h (a whole backup of a large data set).
const BUCKETS: [f64; 16] = [
    0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.1, 1.0, 10.0,
    60.0, 600.0, 3600.0,
];

/// The backup figures `/metrics` shows, and the switch that lets one backup run at a time.
#[derive(Clone, Debug)]
pub struct BackupStats {
    /// How long each backup's point held writers.
    pub pause: Histogram,
    /// Each completed backup, from the request to the last byte.
    pub duration: Histogram,
    /// Dump bytes streamed by completed and abandoned backups.
    pub bytes: Counter,
    pub completed: Counter,
    pub failed: Counter,
    running: Arc<AtomicBool>,
}

impl Default for BackupStats {
    fn default() -> Self {
        BackupStats {
            pause: Histogram::new(BUCKETS),
            duration: Histogram::new(BUCKETS),
            bytes: Counter::default(),
            completed: Counter::default(),
            failed: Counter::default(),
            running: Arc::default(),
        }
    }
}

/// One region as the backup holds it: its identity and its snapshot until it is dumped.
pub struct RegionSnapshot {
    /// The table (`ns:name`, or `name` in the default namespace).
    pub table: String,
    pub namespace: String,
    pub qualifier: String,
    /// The region file's name in its table directory.
    pub file: String,
    txn: Option<ReadTransaction>,
}

/// A consistent point of the whole engine, held until dropped (splits and DDL wait).
pub struct BackupPoint<'e> {
    engine: &'e Engine,
    _ddl: MutexGuard<'e, ()>,
    catalog: Option<ReadTransaction>,
    regions: Vec<RegionSnapshot>,
    /// When the point was taken, in ms since the epoch (the engine's clock).
    pub taken_ms: i64,
    /// How long writers were held.
    pub pause: Duration,
    started: Instant,
    bytes: u64,
    finished: bool,
}

impl Engine {
    /// Takes a backup point (see the module documentation). At most one exists at a time:
    /// a second gets [`BackupError::Busy`].
    pub fn backup_point(&self) -> Result<BackupPoint<'_>, BackupError> {
        let started = Instant::now();
        let stats = &self.inner.backups;
        if stats
            .running
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(BackupError::Busy);
        }
        let point = self.take_point(started);
        if point.is_err() {
            stats.running.store(false, Ordering::Release);
            stats.failed.inc();
        }
        point
    }

    fn take_point(&self, started: Instant) -> Result<BackupPoint<'_>, BackupError> {
        if self.inner.closing.load(Ordering::Acquire) {
            return Err(BackupError::ShuttingDown);
        }
        let ddl = self.inner.ddl.lock().unwrap_or_else(|p| p.into_inner());
        let mut regions: Vec<(String, (String, String), Arc<Region>)> = Vec::new();
        {
            let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
            for (name, t) in &state.tables {
                if let Some(reason) = &t.offline {
                    return Err(BackupError::TableOffline {
                        table: name.clone(),
                        reason: reason.clone(),
                    });
                }
                let dir = (t.desc.name.namespace.clone(), t.desc.name.qualifier.clone());
                regions.extend(
                    t.regions
                        .values()
                        .map(|r| (name.clone(), dir.clone(), r.clone())),
                );
            }
        }
        let catalog = self.inner.catalog.begin_read()?;
        // Every gate at once, then every snapshot: no commit of any region falls between two
        // snapshots. Nothing else takes two gates, so the order cannot deadlock.
        let (snaps, held) = {
            let first = Instant::now();
            let gates: Vec<_> = regions
                .iter()
                .map(|(_, _, r)| r.gate.lock().unwrap_or_else(|p| p.into_inner()))
                .collect();
            // A backup reads the files: each region's write buffer goes there first.
            let snaps: Result<Vec<ReadTransaction>, _> = regions
                .iter()
                .zip(&gates)
                .map(|((_, _, r), gate)| {
                    r.file.drain(gate)?;
                    r.file.begin_read()
                })
                .collect();
            drop(gates);
            (snaps, first.elapsed())
        };
        let taken_ms = cell::now_ms();
        let snaps = snaps?;
        let regions = regions
            .into_iter()
            .zip(snaps)
            .map(|((table, (namespace, qualifier), r), txn)| RegionSnapshot {
                table,
                namespace,
                qualifier,
                file: r.meta.file.clone(),
                txn: Some(txn),
            })
            .collect();
        self.inner.backups.pause.observe(held.as_secs_f64());
        tracing::info!(
            pause_us = held.as_micros() as u64,
            taken_ms,
            "backup point taken; writers released"
        );
        Ok(BackupPoint {
            engine: self,
            _ddl: ddl,
            catalog: Some(catalog),
            regions,
            taken_ms,
            pause: held,
            started,
            bytes: 0,
            finished: false,
        })
    }

    /// Whether [`Engine::close`] has begun: a backup waiting for a slow client gives up.
    pub fn is_closing(&self) -> bool {
        self.inner.closing.load(Ordering::Acquire)
    }

    /// Backup pauses, durations, bytes and outcomes, as `/metrics` shows them.
    pub fn backup_stats(&self) -> &BackupStats {
        &self.inner.backups
    }
}

impl BackupPoint<'_> {
    /// The regions of the point, in table and key order.
    pub fn regions(&self) -> &[RegionSnapshot] {
        &self.regions
    }

    /// The engine's cluster id (kept by the restored catalog).
    pub fn cluster_id(&self) -> &str {
        self.engine.cluster_id()
    }

    /// Dumps the catalog's snapshot to `out` (once); returns its entry count.
    pub fn dump_catalog(&mut self, out: &mut impl Write) -> Result<u64, BackupError> {
        let txn = self
            .catalog
            .take()
            .ok_or_else(|| BackupError::io("meta.redb", "the catalog was dumped already"))?;
        write_dump(
            &txn,
            out,
            &self.engine.inner.closing,
            &self.engine.inner.dir.join("meta.redb"),
        )
    }

    /// Dumps region `i`'s snapshot to `out` and releases it; returns its entry count.
    pub fn dump_region(&mut self, i: usize, out: &mut impl Write) -> Result<u64, BackupError> {
        let r = self
            .regions
            .get_mut(i)
            .ok_or_else(|| BackupError::io(format!("region #{i}"), "no such region"))?;
        let label: PathBuf = Path::new("tables")
            .join(&r.namespace)
            .join(&r.qualifier)
            .join(&r.file);
        let txn = r
            .txn
            .take()
            .ok_or_else(|| BackupError::io(&label, "the region was dumped already"))?;
        write_dump(&txn, out, &self.engine.inner.closing, &label)
    }

    /// Counts bytes sent for `/metrics`.
    pub fn add_bytes(&mut self, n: u64) {
        self.bytes += n;
        self.engine.inner.backups.bytes.inc_by(n);
    }

    /// Marks the backup complete: its duration goes to `/metrics`.
    pub fn finish(mut self) -> Duration {
        self.finished = true;
        let took = self.started.elapsed();
        let stats = &self.engine.inner.backups;
        stats.duration.observe(took.as_secs_f64());
        stats.completed.inc();
        tracing::info!(
            duration_ms = took.as_millis() as u64,
            bytes = self.bytes,
            regions = self.regions.len(),
            pause_us = self.pause.as_micros() as u64,
            "backup complete"
        );
        took
    }
}

impl Drop for BackupPoint<'_> {
    fn drop(&mut self) {
        let stats = &self.engine.inner.backups;
        if !self.finished {
            stats.failed.inc();
            tracing::warn!(
                bytes = self.bytes,
                "backup abandoned; the server is unaffected"
            );
        }
        stats.running.store(false, Ordering::Release);
    }
}
