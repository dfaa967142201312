//! The region engine: HBase's data model (namespaces, tables, regions, families, versions,
//! delete markers, TTL, counters, check-and-mutate) on redb. It knows nothing of Thrift.
//!
//! Map: [`schema`] descriptors (and [`family_values`], HBase's string map of a family's settings), [`cell`] cells and mutations, [`keys`] the on-disk key format,
//! [`read`] read options and visibility rules, `read_plan` a read's per-family plan, [`write`]
//! the write path, `commit` a region's group commit, [`region`] one region file's lifecycle,
//! [`region_info`] a region's identity and counters, [`catalog`] the metadata file, [`rewrite`]
//! splits and major compaction (`catch_up` brings their new files up to date with live writes), [`compaction`] purge rules, `data` the data operations,
//! [`scan`] scanners across regions, [`ddl`] table and namespace administration,
//! [`maintenance`] splits and compactions driven by the engine, `recovery` reopening a
//! region's file after a storage I/O error, `redo` each region's write-ahead log (durable
//! writes synced there, others kept across a process crash), `faults` the tests' full-disk
//! switch.
//!
//! The modules depend on each other one way, never in a cycle (`tests/module_graph.rs`).

pub mod acl;
mod background_drain;
pub mod backup;
pub mod backup_error;
pub mod cache;
pub mod catalog;
pub mod cell;
mod commit;
mod commit_pool;
pub mod compaction;
mod data;
pub use data::{PendingWrite, Started};
mod ddl;
mod drain_tracker;
pub mod dump;
pub mod error;
pub mod family_values;
mod grants;
pub mod keys;
mod maintenance;
mod memtable;
pub use maintenance::{MaintenanceTimes, SplitReport, RECENT_PAUSES};
mod appends;
mod catch_up;
mod faults;
pub mod namespace_quota;
pub mod read;
mod read_plan;
mod recorder;
mod recovery;
mod redo;
mod redo_record;
pub mod region;
pub mod region_bound;
pub mod region_info;
mod region_lookup;
mod rewrite;
pub mod scan;
pub mod schema;
mod snapshot;
mod tail_split;
mod write;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

pub use acl::{Acl, AclError, AclScope, Actions, Grant, Permission};
pub use backup::{BackupPoint, BackupStats, RegionSnapshot};
pub use backup_error::BackupError;
pub use cell::{
    write_timestamp, Cell, CellType, CellView, CompareOp, Condition, Durability, Op, RowBuilder,
    RowMutation, RowResult, LATEST_TIMESTAMP,
};
pub use compaction::CompactStats;
pub use ddl::MAX_SPLIT_KEYS;
pub use error::{
    CompactError, ErrorKind, MutateError, NamespaceError, OpenError, ReadError, SchemaError,
    StorageError, TableError,
};
pub use read::{CellVerdict, Filter, Get, ReadOptions, RowVerdict, Scan, TimeRange};
pub use recorder::RecordStats;
pub use recovery::{FailedRegion, StorageFaults};
pub use region_info::{RegionInfo, RegionMeta};
pub use scan::Scanner;
pub use schema::{
    FamilyDescriptor, KeepDeletedCells, NamespaceDescriptor, TableDescriptor, TableName,
    MAX_NAME_COMPONENT, NS_MAX_REGIONS, NS_MAX_TABLES, SYSTEM_TABLES, TTL_FOREVER,
};

use catalog::{Catalog, TableRecord};
use commit_pool::CommitPool;
use region::{Region, RegionHooks};

/// The largest row key HBase accepts.
pub const MAX_ROW_LEN: usize = 32767;

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
    /// wait, and writes refused after [`EngineConfig::region_block_wait`].
    pub block_size: u64,
    pub size_waits: u64,
    pub size_waited: Duration,
    pub size_refused: u64,
}

/// Engine settings a deployment may change.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// A region whose stored bytes pass this splits in two (0 = never split by size).
    pub region_max_size: u64,
    /// Size-triggered splits stop while the engine holds this many regions (0 = no limit), as
    /// HBase's `hbase.regionserver.regionSplitLimit` (also 1,000) stops them: every region is
    /// an open file with a floor of cache ([`cache::MIN_SHARE`]), so the count needs a bound.
    /// Splits asked for by hand are not limited.
    pub region_split_limit: usize,
    /// The most regions the engine holds ([`region_bound`]): a table that would take it past
    /// this is refused, and no split makes more. Regions already on disk always open.
    pub max_regions: usize,
    /// Enforce namespace quotas (HBase's `hbase.quota.enabled`, off by default there too):
    /// see [`namespace_quota`].
    pub quota_enabled: bool,
    /// The largest value one cell may hold.
    pub max_value_size: usize,
    /// Threads that commit writes, shared by every region (a region holds none of its own).
    pub commit_threads: usize,
    /// For tests: a switch that makes region files' writes fail as on a full disk.
    pub storage_faults: Option<StorageFaults>,
    /// Bytes of page cache shared by every region file ([`cache`]).
    pub cache_size: usize,
    /// How often a region with non-durable (`ASYNC_WAL`, `SKIP_WAL`) commits since its last
    /// durable one gets a durable commit: the most such writes a power loss can take
    /// ([`redo`]). A process crash loses none of them whatever this is.
    pub async_flush: Duration,
    /// Catch-up rounds a split or major compaction runs with writes going freely before it
    /// holds writers back in short slices ([`catch_up`]); 0 throttles at once (tests).
    pub catch_up_free_rounds: usize,
    /// Keys written during a split or major compaction that its region may hold for replay
    /// before writers to the region wait ([`recorder`]): the bound on a rewrite's memory.
    pub max_recorded_keys: usize,
    /// How long a writer waits at that bound before its write is refused (retryable).
    pub write_busy_wait: Duration,
    /// A region over `region_block_factor x region_max_size` bytes holds its writers while it
    /// splits (0 = never): a load faster than a split copies then slows to the split's pace
    /// instead of growing the region without limit, as HBase blocks updates to a region over
    /// `hbase.hregion.memstore.block.multiplier` times its flush size.
    pub region_block_factor: u64,
    /// How long a writer waits at the blocking size before its write is refused (retryable);
    /// long, since a split of a large region takes a while and a Thrift client cannot retry
    /// by itself the way HBase's own client does.
    pub region_block_wait: Duration,
    /// Bytes of logged writes all regions may hold in their write buffers before redb takes
    /// them ([`memtable`]); None: a quarter of `cache_size`, 4 to 128 MiB.
    pub write_buffer_size: Option<usize>,
}

impl EngineConfig {
    /// The bound on every region's write buffer together.
    pub fn write_buffer_bytes(&self) -> u64 {
        self.write_buffer_size
            .unwrap_or((self.cache_size / 4).clamp(4 << 20, 128 << 20)) as u64
    }

    /// The stored bytes past which a region being split holds its writers (0 = never).
    pub fn region_block_size(&self) -> u64 {
        self.region_max_size
            .saturating_mul(self.region_block_factor)
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            region_max_size: 256 * 1024 * 1024,
            region_split_limit: 1000,
            max_regions: region_bound::DEFAULT_MAX_REGIONS,
            quota_enabled: false,
            max_value_size: 10 * 1024 * 1024,
            commit_threads: 16,
            storage_faults: None,
            cache_size: cache::default_budget(),
            async_flush: Duration::from_secs(1),
            catch_up_free_rounds: 4,
            max_recorded_keys: 256 * 1024,
            write_busy_wait: Duration::from_secs(10),
            region_block_factor: 4,
            region_block_wait: Duration::from_secs(60),
            write_buffer_size: None,
        }
    }
}

/// A table as the engine holds it in memory.
#[derive(Clone)]
pub(crate) struct TableState {
    pub desc: Arc<TableDescriptor>,
    pub enabled: bool,
    /// Regions by start key; they cover the key space without gaps.
    pub regions: BTreeMap<Vec<u8>, Arc<Region>>,
    /// Set when a region file could not be opened: the table stays unusable, its files untouched.
    pub offline: Option<String>,
}

#[derive(Default)]
pub(crate) struct State {
    pub namespaces: BTreeMap<String, NamespaceDescriptor>,
    /// Each table's state is replaced whole on change, so readers clone an Arc, not a map.
    pub tables: BTreeMap<String, Arc<TableState>>,
}

pub(crate) struct Inner {
    pub dir: PathBuf,
    pub config: EngineConfig,
    pub catalog: Catalog,
    /// The access control grants, loaded from the catalog.
    pub acl: Arc<acl::Acl>,
    pub state: RwLock<State>,
    /// Serialises DDL with splits and compactions.
    pub ddl: Mutex<()>,
    pub cluster_id: String,
    last_region_id: AtomicU64,
    pub split_tx: Mutex<Option<Sender<(String, u64)>>>,
    pub split_pending: Arc<Mutex<HashSet<u64>>>,
    /// The last [`maintenance::RECENT_PAUSES`] split pauses, newest last.
    pub split_pauses: Mutex<std::collections::VecDeque<maintenance::SplitReport>>,
    pub times: maintenance::MaintenanceTimes,
    pub splits: AtomicU64,
    /// Of `splits`, those made at a region's tail ([`tail_split`]).
    pub tail_splits: AtomicU64,
    /// Size-triggered splits not made because the engine held `region_split_limit` regions.
    pub splits_at_limit: AtomicU64,
    /// Requests refused at `max_regions`.
    pub regions_refused: AtomicU64,
    /// Tables and splits a namespace quota refused.
    pub quota_refused: AtomicU64,
    pub compactions: AtomicU64,
    /// Successful region commits since the engine opened (each region's own count restarts
    /// when a split or major compaction replaces it; this one does not).
    pub commits: Arc<AtomicU64>,
    /// One-row writes queued for a task to await ([`Engine::start_mutate_row`]).
    pub awaited_writes: AtomicU64,
    maintenance: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The background flush of non-durable writes ([`region::flush_loop`]) and its stop switch.
    flusher: Mutex<Option<(Sender<()>, std::thread::JoinHandle<()>)>>,
    pub commit_pool: CommitPool,
    /// The threads write buffers drain on in the background.
    pub drain_pool: CommitPool,
    pub cache: Arc<cache::CacheBudget>,
    /// Set when [`Engine::close`] begins: writes then fail at once with `ShuttingDown`.
    pub closing: Arc<std::sync::atomic::AtomicBool>,
    /// Regions down after a storage I/O error, and the count of such errors.
    pub health: Arc<recovery::Health>,
    /// Writers held back at the bound on a rewrite's recorded keys.
    pub record_stats: Arc<recorder::RecordStats>,
    /// Online backups: one at a time, and their figures ([`backup`]).
    pub backups: backup::BackupStats,
}

/// A handle to an open engine; cheap to clone, shared by every connection.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("dir", &self.inner.dir)
            .finish()
    }
}

impl Engine {
    /// Opens (or creates) the engine in `dir`. A table whose region files are missing or
    /// unreadable is kept offline, named in [`Engine::offline_tables`], never dropped.
    pub fn open(dir: impl AsRef<Path>, config: EngineConfig) -> Result<Engine, OpenError> {
        let dir = dir.as_ref().to_path_buf();
        let tables = dir.join("tables");
        std::fs::create_dir_all(&tables).map_err(|e| {
            OpenError::not_writable_from(&tables, &e).unwrap_or_else(|| OpenError::DataDir {
                dir: dir.clone(),
                message: e.to_string(),
            })
        })?;
        let (catalog, mut loaded) = Catalog::open(&dir)?;
        let (split_tx, split_rx) = std::sync::mpsc::channel();
        let commit_pool = CommitPool::new(config.commit_threads);
        let cache = cache::CacheBudget::new(config.cache_size);
        let health = Arc::new(recovery::Health::default());
        health.buffers.limit.store(
            config.write_buffer_bytes(),
            std::sync::atomic::Ordering::Relaxed,
        );
        let inner = Arc::new(Inner {
            dir: dir.clone(),
            config,
            catalog,
            acl: Arc::new(acl::Acl::load(std::mem::take(&mut loaded.grants))),
            state: RwLock::new(State::default()),
            ddl: Mutex::new(()),
            cluster_id: loaded.cluster_id.clone(),
            last_region_id: AtomicU64::new(0),
            split_tx: Mutex::new(Some(split_tx)),
            split_pending: Arc::new(Mutex::new(HashSet::new())),
            split_pauses: Mutex::new(std::collections::VecDeque::new()),
            times: maintenance::MaintenanceTimes::default(),
            splits: AtomicU64::new(0),
            tail_splits: AtomicU64::new(0),
            splits_at_limit: AtomicU64::new(0),
            regions_refused: AtomicU64::new(0),
            quota_refused: AtomicU64::new(0),
            compactions: AtomicU64::new(0),
            record_stats: Arc::default(),
            commits: Arc::new(AtomicU64::new(0)),
            awaited_writes: AtomicU64::new(0),
            maintenance: Mutex::new(None),
            flusher: Mutex::new(None),
            commit_pool,
            drain_pool: CommitPool::named(
                background_drain::DRAIN_THREAD,
                background_drain::MAX_DRAIN_THREADS,
            ),
            cache,
            closing: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            health,
            backups: backup::BackupStats::default(),
        });
        let engine = Engine { inner };
        engine.load(loaded)?;
        let weak: Weak<Inner> = Arc::downgrade(&engine.inner);
        let handle = std::thread::Builder::new()
            .name("region-splitter".into())
            .spawn(move || maintenance::split_loop(weak, split_rx))
            .map_err(|e| OpenError::DataDir {
                dir: dir.clone(),
                message: format!("cannot start the split thread: {e}"),
            })?;
        *engine
            .inner
            .maintenance
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(handle);
        let weak: Weak<Inner> = Arc::downgrade(&engine.inner);
        let every = engine
            .inner
            .config
            .async_flush
            .max(Duration::from_millis(1));
        let (stop_tx, stop_rx) = std::sync::mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("async-flush".into())
            .spawn(move || {
                region::flush_loop(every, stop_rx, || {
                    let inner = weak.upgrade()?;
                    let state = inner.state.read().unwrap_or_else(|p| p.into_inner());
                    Some(
                        state
                            .tables
                            .values()
                            .flat_map(|t| t.regions.values().map(Arc::downgrade))
                            .collect(),
                    )
                })
            })
            .map_err(|e| OpenError::DataDir {
                dir: dir.clone(),
                message: format!("cannot start the async flush thread: {e}"),
            })?;
        *engine
            .inner
            .flusher
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some((stop_tx, handle));
        Ok(engine)
    }

    fn load(&self, loaded: catalog::Loaded) -> Result<(), OpenError> {
        let mut state = State::default();
        for ns in ["default", "hbase"] {
            state
                .namespaces
                .insert(ns.to_string(), NamespaceDescriptor::new(ns));
        }
        state.namespaces.extend(loaded.namespaces);
        let mut max_id = 0;
        for (name, rec) in loaded.tables {
            let metas = loaded.regions.get(&name).cloned().unwrap_or_default();
            let dir = self.table_dir(&rec.descriptor.name);
            let mut regions = BTreeMap::new();
            let mut offline = None;
            for meta in metas {
                max_id = max_id.max(meta.id);
                match Region::open(&dir, meta.clone(), self.region_hooks()) {
                    Ok(r) => {
                        regions.insert(meta.start.clone(), Arc::new(r));
                    }
                    Err(e) => {
                        tracing::error!(table = %name, error = %e, "region unavailable; table kept offline");
                        offline = Some(e.to_string());
                    }
                }
            }
            if regions.is_empty() && offline.is_none() {
                offline = Some("the catalog lists no region for this table".into());
            }
            if offline.is_some() {
                regions.clear();
            } else {
                remove_orphans(&dir, &regions);
            }
            state.tables.insert(
                name,
                Arc::new(TableState {
                    desc: Arc::new(rec.descriptor),
                    enabled: rec.enabled,
                    regions,
                    offline,
                }),
            );
        }
        self.inner.last_region_id.store(max_id, Ordering::SeqCst);
        *self.inner.state.write().unwrap_or_else(|p| p.into_inner()) = state;
        Ok(())
    }

    pub fn config(&self) -> &EngineConfig {
        &self.inner.config
    }

    pub fn data_dir(&self) -> &Path {
        &self.inner.dir
    }

    /// A stable id for this data directory (HBase's cluster id).
    pub fn cluster_id(&self) -> &str {
        &self.inner.cluster_id
    }

    /// Tables that could not be opened at start-up, with the reason (naming the file).
    pub fn offline_tables(&self) -> Vec<(String, String)> {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        state
            .tables
            .iter()
            .filter_map(|(n, t)| t.offline.clone().map(|r| (n.clone(), r)))
            .collect()
    }

    /// Stops every region's committer after the writes already sent are committed.
    pub fn close(&self) {
        self.inner.closing.store(true, Ordering::Release);
        // Stop the split thread first; a split in progress sees `closing` and gives up.
        if let Some(tx) = self
            .inner
            .split_tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            let _ = tx.send((String::new(), maintenance::STOP));
        }
        if let Some(h) = self
            .inner
            .maintenance
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        // Then the background flush: closing each region commits it durably anyway.
        if let Some((stop, h)) = self
            .inner
            .flusher
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            let _ = stop.send(());
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        for r in self.all_regions() {
            r.close();
        }
    }

    pub(crate) fn table_dir(&self, name: &TableName) -> PathBuf {
        self.inner
            .dir
            .join("tables")
            .join(&name.namespace)
            .join(&name.qualifier)
    }

    /// A fresh region id: creation time in ms, made unique.
    pub(crate) fn new_region_id(&self) -> u64 {
        let now = cell::now_ms() as u64;
        let mut cur = self.inner.last_region_id.load(Ordering::SeqCst);
        loop {
            let next = now.max(cur + 1);
            match self.inner.last_region_id.compare_exchange(
                cur,
                next,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => return next,
                Err(c) => cur = c,
            }
        }
    }

    /// What every region of this engine is built with.
    pub(crate) fn region_hooks(&self) -> RegionHooks {
        RegionHooks {
            on_commit: self.on_large(),
            pool: self.inner.commit_pool.clone(),
            drainer: self.inner.drain_pool.clone(),
            health: self.inner.health.clone(),
            faults: self.inner.config.storage_faults.clone(),
            cache: self.inner.cache.clone(),
            catch_up_free_rounds: self.inner.config.catch_up_free_rounds,
            stop: self.inner.closing.clone(),
            record: recorder::RecordLimits {
                max_keys: self.inner.config.max_recorded_keys.max(1),
                busy_wait: self.inner.config.write_busy_wait,
                block_size: self.inner.config.region_block_size(),
                size_wait: self.inner.config.region_block_wait,
            },
            record_stats: self.inner.record_stats.clone(),
        }
    }

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

    /// Regions that are down after a storage I/O error (a full disk, a failing device), each
    /// retrying to reopen its file; empty when every region serves.
    pub fn failed_regions(&self) -> Vec<FailedRegion> {
        self.inner.health.failed_regions()
    }

    /// Storage I/O errors that took a region down since the engine opened (one per outage).
    /// Redo log syncs made for durable write batches since the engine opened: one per durable
    /// group commit.
    pub fn redo_log_syncs(&self) -> u64 {
        self.inner
            .health
            .logs
            .syncs
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Every open region of every table, as of now.
    fn all_regions(&self) -> Vec<Arc<Region>> {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        state
            .tables
            .values()
            .flat_map(|t| t.regions.values().cloned())
            .collect()
    }

    /// Makes every acknowledged non-durable write durable in its region's file now, as the
    /// background flush does every [`EngineConfig::async_flush`]; the first region that cannot
    /// be flushed says why (the others are still flushed).
    pub fn flush_all(&self) -> Result<(), StorageError> {
        let mut first = Ok(());
        for r in self.all_regions() {
            if let Err(e) = r.flush() {
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
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

    /// Bytes the regions' write buffers hold now (logged writes redb has not taken yet): at
    /// most [`EngineConfig::write_buffer_bytes`] and one batch per region, as a region's
    /// writer drains its buffer at the first batch past that bound (or past 16 MiB of its
    /// own); from half that bound (or 4 MiB) on, buffers drain in the background.
    pub fn write_buffer_bytes(&self) -> u64 {
        self.inner
            .health
            .buffers
            .bytes
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How long each drain of a write buffer held its region's writes.
    pub fn write_buffer_drain_seconds(&self) -> prometheus_client::metrics::histogram::Histogram {
        self.inner.health.buffers.drain_seconds.clone()
    }

    /// How long each background drain of a write buffer took (its writers went on).
    pub fn write_buffer_background_drain_seconds(
        &self,
    ) -> prometheus_client::metrics::histogram::Histogram {
        self.inner.health.buffers.background_seconds.clone()
    }

    /// Background drains of write buffers that moved entries, since the engine opened.
    pub fn write_buffer_background_drains(&self) -> u64 {
        self.inner
            .health
            .buffers
            .background_drains
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

    /// Redo log files held open between batches now (at most 256; the rest open per batch).
    pub fn redo_logs_open(&self) -> usize {
        self.inner
            .health
            .logs
            .open
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn storage_error_count(&self) -> u64 {
        self.inner.health.error_count()
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

    pub(crate) fn on_large(&self) -> rewrite::OnLarge {
        let max = self.inner.config.region_max_size;
        let tx = self
            .inner
            .split_tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let pending = self.inner.split_pending.clone();
        let commits = self.inner.commits.clone();
        let tx = Mutex::new(tx);
        Arc::new(move |meta: &RegionMeta, size: u64, appending: bool| {
            commits.fetch_add(1, Ordering::Relaxed);
            // A region taking appends splits at half the size, at its tail: its lower part
            // then holds what a middle split's halves would, and nothing is copied.
            let limit = if appending { max / 2 } else { max };
            if max == 0 || size <= limit {
                return;
            }
            let mut p = pending.lock().unwrap_or_else(|p| p.into_inner());
            if p.insert(meta.id) {
                if let Some(tx) = tx.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
                    let _ = tx.send((meta.table.clone(), meta.id));
                }
            }
        })
    }

    /// The table's state if it can serve data, or the reason it cannot.
    fn serving(&self, table: &str) -> Result<Arc<TableState>, ServeError> {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        // The name as given is almost always the canonical one; parse only when it is not.
        let (key, t) = match state.tables.get(table) {
            Some(t) => (Cow::Borrowed(table), t),
            None => {
                let key = TableName::parse(table)
                    .map(|n| n.to_string())
                    .map_err(|_| ServeError::NotFound(table.to_string()))?;
                let t = state
                    .tables
                    .get(&key)
                    .ok_or_else(|| ServeError::NotFound(key.clone()))?;
                (Cow::Owned(key), t)
            }
        };
        if let Some(reason) = &t.offline {
            return Err(ServeError::Offline(key.into_owned(), reason.clone()));
        }
        if !t.enabled {
            return Err(ServeError::Disabled(key.into_owned()));
        }
        Ok(Arc::clone(t))
    }

    fn region_for(
        &self,
        table: &str,
        row: &[u8],
    ) -> Result<(Arc<TableDescriptor>, Arc<Region>), ServeError> {
        let t = self.serving(table)?;
        let region = t
            .regions
            .range::<[u8], _>((std::ops::Bound::Unbounded, std::ops::Bound::Included(row)))
            .next_back()
            .map(|(_, r)| r.clone())
            .ok_or_else(|| {
                ServeError::Offline(table.to_string(), "no region covers the row".into())
            })?;
        Ok((t.desc.clone(), region))
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

    /// Page cache bytes given out to open region files, and how many files hold them.
    pub fn cache_held(&self) -> (usize, usize) {
        self.inner.cache.held()
    }

    /// The page cache budget every region file shares.
    pub fn cache_budget(&self) -> usize {
        self.inner.cache.total()
    }

    /// Durations of splits and major compactions, whole and paused, as /metrics shows them.
    pub fn maintenance_times(&self) -> &maintenance::MaintenanceTimes {
        &self.inner.times
    }
}

/// Why a table cannot serve a data request right now.
#[derive(Debug, Clone)]
pub(crate) enum ServeError {
    NotFound(String),
    Disabled(String),
    Offline(String, String),
}

impl From<ServeError> for MutateError {
    fn from(e: ServeError) -> MutateError {
        match e {
            ServeError::NotFound(t) => MutateError::TableNotFound(t),
            ServeError::Disabled(t) => MutateError::TableDisabled(t),
            ServeError::Offline(table, reason) => MutateError::TableOffline { table, reason },
        }
    }
}

impl From<ServeError> for ReadError {
    fn from(e: ServeError) -> ReadError {
        match e {
            ServeError::NotFound(t) => ReadError::TableNotFound(t),
            ServeError::Disabled(t) => ReadError::TableDisabled(t),
            ServeError::Offline(table, reason) => ReadError::TableOffline { table, reason },
        }
    }
}

/// Deletes region files a crash left behind (a split or compaction that never reached the
/// catalog).
fn remove_orphans(dir: &Path, regions: &BTreeMap<Vec<u8>, Arc<Region>>) {
    let known: HashSet<&str> = regions.values().map(|r| r.meta.file.as_str()).collect();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".redb") && !known.contains(name.as_str()) {
                tracing::info!(file = %e.path().display(), "removing orphan region file");
                let _ = std::fs::remove_file(e.path());
            }
            // The redo log of a region file the catalog does not name (one replaced by a split
            // or a major compaction that crashed before deleting it).
            if let Some(region) = name
                .strip_suffix(".log")
                .or_else(|| name.strip_suffix(".log2"))
            {
                if region.ends_with(".redb") && !known.contains(region) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }
}

impl TableRecord {
    fn of(t: &TableState) -> TableRecord {
        TableRecord {
            descriptor: (*t.desc).clone(),
            enabled: t.enabled,
        }
    }
}
