//! What the engine reports about itself (for `/metrics`, the status pages and tests): commits,
//! splits and their pauses, writers held back by rewrites, regions down after I/O errors, the
//! redo logs, the write buffers and their drains, the worker threads, the page cache.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{maintenance, Engine, FailedRegion};

/// Keys rewrites hold for replay and the writers held back at their bound
/// ([`Engine::record_pressure`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecordPressure {
    pub held_keys: usize,
    pub max_keys_per_region: usize,
    pub waits: u64,
    pub waited: Duration,
    pub refused: u64,
    /// A region's blocking size in bytes (0: no hold), and writes held at it, their total
    /// wait, and writes refused after
    /// [`EngineConfig::region_block_wait`](super::EngineConfig::region_block_wait).
    pub block_size: u64,
    pub size_waits: u64,
    pub size_waited: Duration,
    pub size_refused: u64,
}

impl Engine {
    /// Writers held back by rewrites: keys rewrites hold now across regions, and the engine's
    /// counts of writes that waited, their total wait, and writes refused after waiting.
    pub fn record_pressure(&self) -> RecordPressure {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        let held = state
            .tables
            .values()
            .flat_map(|t| t.regions.values())
            .map(|r| r.recording.held())
            .sum();
        let s = &self.inner.record_stats;
        RecordPressure {
            held_keys: held,
            max_keys_per_region: self.inner.config.max_recorded_keys,
            waits: s.waits.load(Ordering::Relaxed),
            waited: Duration::from_nanos(s.wait_nanos.load(Ordering::Relaxed)),
            refused: s.refused.load(Ordering::Relaxed),
            block_size: self.inner.config.region_block_size(),
            size_waits: s.size_waits.load(Ordering::Relaxed),
            size_waited: Duration::from_nanos(s.size_wait_nanos.load(Ordering::Relaxed)),
            size_refused: s.size_refused.load(Ordering::Relaxed),
        }
    }

    /// Successful region commits since the engine opened, across every region there has been.
    pub fn commit_count(&self) -> u64 {
        self.inner.commits.load(Ordering::Relaxed)
    }

    /// How long writes paused in each of the last splits (at most
    /// [`maintenance::RECENT_PAUSES`]), oldest first.
    pub fn split_pauses(&self) -> Vec<Duration> {
        self.split_reports().iter().map(|r| r.pause).collect()
    }

    /// Durations of splits and major compactions, whole and paused, as /metrics shows them.
    pub fn maintenance_times(&self) -> &maintenance::MaintenanceTimes {
        &self.inner.times
    }

    /// Regions that are down after a storage I/O error (a full disk, a failing device), each
    /// retrying to reopen its file; empty when every region serves.
    pub fn failed_regions(&self) -> Vec<FailedRegion> {
        self.inner.health.failed_regions()
    }

    /// Storage I/O errors that took a region down since the engine opened (one per outage).
    pub fn storage_error_count(&self) -> u64 {
        self.inner.health.error_count()
    }

    /// Redo log syncs made for durable write batches since the engine opened: one per durable
    /// group commit.
    pub fn redo_log_syncs(&self) -> u64 {
        self.inner
            .health
            .logs
            .syncs
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Bytes the regions' redo log files take on disk now: at most 64 MiB, one batch and 64 KiB
    /// per region with writes in the last flush interval (a log keeps its blocks for reuse until
    /// its region has been idle for a whole interval).
    pub fn redo_log_bytes(&self) -> u64 {
        self.inner
            .health
            .logs
            .bytes
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Redo log files held open between batches now (at most 256; the rest open per batch).
    pub fn redo_logs_open(&self) -> usize {
        self.inner
            .health
            .logs
            .open
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Bytes the regions' write buffers hold now (logged writes redb has not taken yet): at
    /// most [`EngineConfig::write_buffer_bytes`](super::EngineConfig::write_buffer_bytes) and one batch per region, as a region's
    /// writer drains its buffer at the first batch past that bound (or past 16 MiB of its
    /// own); from half that bound (or 4 MiB) on, buffers drain in the background.
    pub fn write_buffer_bytes(&self) -> u64 {
        self.inner
            .health
            .buffers
            .bytes
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Write buffer drains into region files since the engine opened.
    pub fn write_buffer_drains(&self) -> u64 {
        self.inner
            .health
            .buffers
            .drains
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How long each drain of a write buffer held its region's writes.
    pub fn write_buffer_drain_seconds(&self) -> prometheus_client::metrics::histogram::Histogram {
        self.inner.health.buffers.drain_seconds.clone()
    }

    /// Background drains of write buffers that moved entries, since the engine opened.
    pub fn write_buffer_background_drains(&self) -> u64 {
        self.inner
            .health
            .buffers
            .background_drains
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How long each background drain of a write buffer took (its writers went on).
    pub fn write_buffer_background_drain_seconds(
        &self,
    ) -> prometheus_client::metrics::histogram::Histogram {
        self.inner.health.buffers.background_seconds.clone()
    }

    /// Background drain threads alive now, their cap, and the drains waiting for one (at most
    /// one per region).
    pub fn drain_threads(&self) -> (usize, usize, usize) {
        let p = &self.inner.drain_pool;
        (p.threads(), p.max_threads(), p.queued())
    }

    /// Committer threads alive now, and their cap.
    pub fn commit_threads(&self) -> (usize, usize) {
        let p = &self.inner.commit_pool;
        (p.threads(), p.max_threads())
    }

    /// Page cache bytes given out to open region files, and how many files hold them.
    pub fn cache_held(&self) -> (usize, usize) {
        self.inner.cache.held()
    }

    /// The page cache budget every region file shares.
    pub fn cache_budget(&self) -> usize {
        self.inner.cache.total()
    }
}
