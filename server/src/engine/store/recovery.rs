//! A region's redb file, and its recovery from storage I/O errors.
//!
//! redb latches an I/O error (a full disk, a failing device): once a write, sync or read of the
//! file has failed, every later operation of that `Database` answers "Previous I/O error
//! occurred", even after the cause is gone. The only way back is to close the file and open it
//! again, which runs redb's recovery and leaves the file at its last durable commit. Nothing
//! acknowledged is lost by that: a commit that failed was never acknowledged.
//!
//! So each region's `Database` sits in a [`RegionFile`] that can swap it:
//!
//! - after a storage error (a commit, a read, a compaction), the file is probed; when redb has
//!   latched an I/O failure the region is marked *failed*: the error is logged once, counted
//!   ([`Health`]), and the region is named by [`crate::engine::Engine::failed_regions`];
//! - while failed, writes of the region get a retryable error naming the region and the cause,
//!   at once, without touching the file; so do reads, unless the region's shared read snapshot
//!   can still answer them from redb's cache (data committed before the failure);
//! - the region's next batch of writes, and a background thread, reopen the file with backoff,
//!   holding the region's write gate (so no write transaction is live): the poisoned `Database`
//!   is dropped first (redb holds a lock on the file while it is open), the shared read
//!   snapshot is invalidated (a read still holding the old one gets a retryable error, never
//!   wrong data), and the fresh `Database` is installed. The recovery is logged once.
//!
//! [`StorageFaults`] lets a test make region files' writes fail with ENOSPC on demand.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};
use std::time::{Duration, Instant, SystemTime};

use redb::backends::FileBackend;
use redb::{
    BackendError, Database, DatabaseError, ReadTransaction, ReadableDatabase, StorageBackend,
    TransactionError, WriteTransaction,
};

use super::cache::CacheShare;
pub use super::faults::StorageFaults;
use super::memtable::{BufferCounters, MemTable, MemView, Taken};
use super::redo::RedoLog;
use super::redo_replay;
use super::snapshot::Snapshots;
use crate::engine::model::error::StorageError;
use crate::engine::model::keys::{family_def, family_table_name, REGION_TABLE, SIZE_KEY};
use crate::engine::model::region_info::RegionStats;

/// The first reopen attempt comes this long after the failure; each failed attempt doubles the
/// wait, up to [`MAX_RETRY`].
const FIRST_RETRY: Duration = Duration::from_millis(50);
const MAX_RETRY: Duration = Duration::from_secs(5);
/// How often the background thread looks at the failed regions.
const TICK: Duration = Duration::from_millis(100);

/// A region file with [`StorageFaults`] in front of its writes.
#[derive(Debug)]
struct FaultyBackend {
    inner: FileBackend,
    faults: StorageFaults,
}

impl StorageBackend for FaultyBackend {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        self.inner.read(offset, out)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        if len > self.inner.len()? {
            self.faults.check()?;
        }
        self.inner.set_len(len)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.inner.sync_data()
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.faults.check()?;
        self.inner.write(offset, data)
    }

    fn close(&self) -> io::Result<()> {
        self.inner.close()
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.inner.try_lock_range(start, end)
    }

    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.inner.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.lock_range(start, end)
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.lock_shared_range(start, end)
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.inner.query_lock_range(start, end)
    }
}

/// Opens a region file (creating it when `create`), through the fault switch when one is set.
pub(crate) fn open_db(
    path: &Path,
    create: bool,
    faults: Option<&StorageFaults>,
    cache_bytes: usize,
) -> Result<Database, DatabaseError> {
    let mut builder = redb::Builder::new();
    builder.set_cache_size(cache_bytes);
    match faults {
        None if create => builder.create(path),
        None => builder.open(path),
        Some(f) => {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(create)
                .truncate(false)
                .open(path)?;
            builder.create_with_backend(FaultyBackend {
                inner: FileBackend::new(file)?,
                faults: f.clone(),
            })
        }
    }
}

/// A region that is down after a storage I/O error, as [`crate::engine::Engine::failed_regions`]
/// reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedRegion {
    pub table: String,
    /// HBase's region name.
    pub region: String,
    pub file: PathBuf,
    /// The error that took the region down.
    pub cause: String,
    pub since: SystemTime,
    /// Reopen attempts that failed so far.
    pub attempts: u32,
    /// Why the last reopen attempt failed, if one did.
    pub last_attempt_error: Option<String>,
}

/// The engine's record of storage failures: a counter and the regions failed now. A thread
/// that retries their reopening runs while any region is failed.
#[derive(Default)]
pub(crate) struct Health {
    errors: AtomicU64,
    /// Every region's redo log counts (syncs, files held open).
    pub logs: Arc<super::redo::LogCounters>,
    /// Every region's write buffer counts, and their bound.
    pub buffers: Arc<BufferCounters>,
    failed: Mutex<Failed>,
}

#[derive(Default)]
struct Failed {
    regions: BTreeMap<PathBuf, Weak<RegionFile>>,
    retrying: bool,
}

impl Health {
    /// Storage I/O errors that took a region down, since the engine opened.
    pub fn error_count(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }

    pub fn failed_regions(&self) -> Vec<FailedRegion> {
        let files: Vec<Arc<RegionFile>> = self
            .lock()
            .regions
            .values()
            .filter_map(Weak::upgrade)
            .collect();
        files.iter().filter_map(|f| f.failure_info()).collect()
    }

    fn lock(&self) -> MutexGuard<'_, Failed> {
        self.failed.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn region_failed(self: &Arc<Self>, file: &RegionFile) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut f = self.lock();
        f.regions.insert(file.path.clone(), file.me.clone());
        if !f.retrying {
            let health = self.clone();
            let spawned = std::thread::Builder::new()
                .name("region-recovery".into())
                .spawn(move || retry_loop(health));
            // Without the thread, the region's next write batch still retries.
            f.retrying = spawned.is_ok();
        }
    }

    fn forget(&self, path: &Path) {
        self.lock().regions.remove(path);
    }
}

/// Retries the failed regions until none is left (or every one was dropped).
fn retry_loop(health: Arc<Health>) {
    loop {
        let files: Vec<Arc<RegionFile>> = {
            let mut f = health.lock();
            f.regions.retain(|_, w| w.strong_count() > 0);
            if f.regions.is_empty() {
                f.retrying = false;
                return;
            }
            f.regions.values().filter_map(Weak::upgrade).collect()
        };
        for file in files {
            file.try_recover();
        }
        std::thread::sleep(TICK);
    }
}

/// Why a region is down and when to try again.
struct Failure {
    cause: String,
    since: SystemTime,
    next_attempt: Instant,
    backoff: Duration,
    attempts: u32,
    last_attempt_error: Option<String>,
    started: Instant,
}

/// A region's open redb file, replaced by a fresh one after an I/O error.
pub(crate) struct RegionFile {
    me: Weak<RegionFile>,
    path: PathBuf,
    table: String,
    region: String,
    /// None only while a reopen is under way or after one failed.
    db: RwLock<Option<Arc<Database>>>,
    /// Whether `failure` is set; read on every batch, so kept apart.
    failed: AtomicBool,
    /// The region was closed: never reopen its file again (a new engine may own it now).
    closed: AtomicBool,
    failure: Mutex<Option<Failure>>,
    /// The file's part of the cache budget, held while the region lives (a reopen keeps it).
    cache: CacheShare,
    faults: Option<StorageFaults>,
    health: Arc<Health>,
    snapshots: Arc<Snapshots>,
    pub(super) gate: Arc<Mutex<()>>,
    stats: Arc<RegionStats>,
    /// Non-durable batches since the last durable commit ([`redo`](super::redo)).
    pub redo: RedoLog,
    /// Logged blind writes redb has not taken yet ([`memtable`](super::memtable)).
    pub mem: MemTable,
    /// Held by a drain from taking the buffer until it has let go of what it wrote, so two
    /// drains never take the same entries. Taken after redb's write lock (a drain holds a write
    /// transaction when it takes it), so it never waits on a transaction.
    draining: Mutex<()>,
    /// Held by a background drain for all its work and by a reopen, so a reopen never swaps
    /// the database under a background drain's transaction.
    pub(super) background: Mutex<()>,
    /// The background drains queued or running ([`super::background_drain`]).
    pub(super) pending: Arc<super::drain_tracker::DrainTracker>,
    /// Where background drains run.
    pub(super) drainer: super::commit_pool::CommitPool,
}

/// A buffer written into a transaction: what to forget once that transaction commits. Holds
/// the region's drain lock until then.
pub(crate) struct Drained<'f> {
    taken: Taken,
    /// What the entries changed the file's stored size by.
    pub delta: i64,
    _draining: MutexGuard<'f, ()>,
}

/// What a [`RegionFile`] is built from.
pub(crate) struct FileParts {
    pub path: PathBuf,
    pub table: String,
    pub region: String,
    pub db: Database,
    pub cache: CacheShare,
    pub faults: Option<StorageFaults>,
    pub health: Arc<Health>,
    pub snapshots: Arc<Snapshots>,
    pub gate: Arc<Mutex<()>>,
    pub stats: Arc<RegionStats>,
    /// The redo sequence number the file holds ([`recover`](super::redo_replay::recover)).
    pub redo_seq: u64,
    /// Where the region's background drains run.
    pub drainer: super::commit_pool::CommitPool,
}

impl RegionFile {
    pub fn new(p: FileParts) -> Arc<RegionFile> {
        let redo =
            RedoLog::new(&p.path, p.redo_seq, p.health.logs.clone()).with_faults(p.faults.clone());
        let mem = MemTable::new(p.health.buffers.clone());
        Arc::new_cyclic(|me| RegionFile {
            me: me.clone(),
            redo,
            mem,
            path: p.path,
            table: p.table,
            region: p.region,
            db: RwLock::new(Some(Arc::new(p.db))),
            failed: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            failure: Mutex::new(None),
            cache: p.cache,
            faults: p.faults,
            health: p.health,
            snapshots: p.snapshots,
            gate: p.gate,
            stats: p.stats,
            draining: Mutex::new(()),
            background: Mutex::new(()),
            pending: Default::default(),
            drainer: p.drainer,
        })
    }

    /// The open database, or the retryable "region unavailable" error while the region is
    /// failed. Hold it only for one transaction's start: a reopen waits for it to be dropped.
    pub fn db(&self) -> Result<Arc<Database>, StorageError> {
        if self.failed.load(Ordering::Acquire) {
            return Err(self.unavailable());
        }
        match self.db.read().unwrap_or_else(|p| p.into_inner()).as_ref() {
            Some(db) => Ok(db.clone()),
            None => Err(self.unavailable()),
        }
    }

    /// A view of the write buffer, then a read transaction: every entry a drain takes out of
    /// the buffer after the view is in the file before the transaction begins.
    pub fn begin_snapshot(&self) -> Result<(MemView, ReadTransaction), StorageError> {
        let mem = self.mem.view();
        Ok((mem, self.begin_read()?))
    }

    pub fn begin_read(&self) -> Result<ReadTransaction, StorageError> {
        let db = self.db()?;
        let txn = db.begin_read();
        drop(db);
        txn.map_err(|e| self.error(e))
    }

    /// An error of this file. When redb has latched an I/O failure, the region is marked
    /// failed and the error says it is unavailable (naming the cause).
    pub fn error(&self, e: impl std::fmt::Display) -> StorageError {
        self.classify(StorageError::new(&self.path, e))
    }

    /// See [`RegionFile::error`].
    pub fn classify(&self, e: StorageError) -> StorageError {
        if self.failed.load(Ordering::Acquire) || self.poisoned() {
            self.fail(&e.message);
            return self.unavailable();
        }
        e
    }

    /// Whether the open database refuses all work after an I/O error. Does not wait: a
    /// database with a live write transaction that is not poisoned answers "would block".
    fn poisoned(&self) -> bool {
        let Some(db) = self
            .db
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .cloned()
        else {
            return false;
        };
        match db.try_begin_write() {
            Err(TransactionError::Storage(
                redb::StorageError::PreviousIo | redb::StorageError::Io(_),
            )) => true,
            Err(_) => false,
            Ok(txn) => {
                let _ = txn.abort();
                false
            }
        }
    }

    /// Marks the region failed (once per outage: logged and counted the first time).
    fn fail(&self, cause: &str) {
        {
            let mut f = self.lock_failure();
            if f.is_some() {
                return;
            }
            *f = Some(Failure {
                cause: cause.to_string(),
                since: SystemTime::now(),
                next_attempt: Instant::now() + FIRST_RETRY,
                backoff: FIRST_RETRY,
                attempts: 0,
                last_attempt_error: None,
                started: Instant::now(),
            });
            self.failed.store(true, Ordering::Release);
        }
        tracing::error!(
            table = %self.table,
            region = %self.region,
            file = %self.path.display(),
            cause,
            "storage I/O error: region unavailable until its file is reopened (retrying automatically)"
        );
        self.health.region_failed(self);
    }

    /// The error reads and writes get while the region is failed.
    pub fn unavailable(&self) -> StorageError {
        let cause = self
            .lock_failure()
            .as_ref()
            .map(|f| f.cause.clone())
            .unwrap_or_else(|| "its file is being reopened".into());
        StorageError::new(
            &self.path,
            format!(
                "region {} of table {} is unavailable after a storage I/O error ({cause}); \
                 it reopens its file automatically once storage works again: retry",
                self.region, self.table
            ),
        )
    }

    fn lock_failure(&self) -> MutexGuard<'_, Option<Failure>> {
        self.failure.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn failure_info(&self) -> Option<FailedRegion> {
        self.lock_failure().as_ref().map(|f| FailedRegion {
            table: self.table.clone(),
            region: self.region.clone(),
            file: self.path.clone(),
            cause: f.cause.clone(),
            since: f.since,
            attempts: f.attempts,
            last_attempt_error: f.last_attempt_error.clone(),
        })
    }

    /// Takes the write gate and reopens the file if the region is failed and an attempt is due.
    pub fn try_recover(&self) {
        if !self.failed.load(Ordering::Acquire) {
            return;
        }
        let gate = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        let _ = self.recover(&gate);
    }

    /// With the region's write gate held (`_gate`): Ok when the region serves; when it is
    /// failed and an attempt is due, reopens its file first.
    pub fn recover(&self, _gate: &MutexGuard<'_, ()>) -> Result<(), StorageError> {
        if !self.failed.load(Ordering::Acquire) {
            return Ok(());
        }
        let due = match self.lock_failure().as_ref() {
            None => return Ok(()),
            Some(f) => Instant::now() >= f.next_attempt,
        };
        if !due || self.closed.load(Ordering::Acquire) {
            return Err(self.unavailable());
        }
        // No background drain may hold a transaction of the database about to be dropped.
        let _background = self.background.lock().unwrap_or_else(|p| p.into_inner());
        // redb keeps a lock on the file while a Database is open: close the poisoned one first.
        // No write transaction is live (the gate is held); reads that still hold a snapshot of
        // it get "database closed", a retryable error, from now on.
        let old = self.db.write().unwrap_or_else(|p| p.into_inner()).take();
        self.snapshots.committed();
        drop(old);
        // The reopened file is back at its last durable commit: the redo log brings back the
        // non-durable batches acknowledged since.
        let opened = open_db(&self.path, false, self.faults.as_ref(), self.cache.bytes())
            .map_err(|e| e.to_string())
            .and_then(|db| match redo_replay::recover(&db, &self.path) {
                Ok(seq) => Ok((db, seq)),
                Err(e) => Err(e.message),
            });
        match opened {
            Ok((db, seq)) => {
                self.redo.reset(seq);
                // The log held every buffered batch: the replay put them in the file.
                self.mem.clear();
                // The repair went back to the last durable commit; take the size it records.
                if let Some(size) = stored_size(&db) {
                    self.stats.size.store(size, Ordering::Relaxed);
                }
                *self.db.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(db));
                self.snapshots.committed();
                let f = self.lock_failure().take();
                self.failed.store(false, Ordering::Release);
                self.health.forget(&self.path);
                let (down, attempts) = f
                    .map(|f| (f.started.elapsed(), f.attempts + 1))
                    .unwrap_or_default();
                tracing::warn!(
                    table = %self.table,
                    region = %self.region,
                    file = %self.path.display(),
                    down_ms = down.as_millis() as u64,
                    attempts,
                    "region file reopened after a storage I/O error; the region serves again"
                );
                Ok(())
            }
            Err(e) => {
                if let Some(f) = self.lock_failure().as_mut() {
                    f.attempts += 1;
                    f.backoff = (f.backoff * 2).min(MAX_RETRY);
                    f.next_attempt = Instant::now() + f.backoff;
                    f.last_attempt_error = Some(e.to_string());
                }
                tracing::debug!(region = %self.region, error = %e, "region file reopen failed; will retry");
                Err(self.unavailable())
            }
        }
    }

    /// With the region's write gate held (`_gate`): a durable commit when the region has
    /// non-durable commits since its last durable one, then the redo log is emptied.
    pub fn flush(&self, gate: &MutexGuard<'_, ()>) -> Result<(), StorageError> {
        if !self.redo.needs_flush() {
            return Ok(());
        }
        // A write transaction is durable (Immediate) by default; it persists every non-durable
        // commit before it, and takes the write buffer with it.
        self.commit_buffer(gate, true)?;
        self.redo.durable();
        Ok(())
    }

    /// With the gate held: moves the write buffer into the file in one commit (non-durable:
    /// the redo log keeps every buffered batch until the next durable commit). Every reader of
    /// the file itself rather than a snapshot (split, compaction, backup) drains first.
    pub fn drain(&self, gate: &MutexGuard<'_, ()>) -> Result<(), StorageError> {
        if self.mem.bytes() == 0 {
            return Ok(());
        }
        self.commit_buffer(gate, false)
    }

    /// With the gate held: [`RegionFile::commit`], timed as a hold of the region's writers.
    fn commit_buffer(&self, _gate: &MutexGuard<'_, ()>, durable: bool) -> Result<(), StorageError> {
        let began = Instant::now();
        if self.commit(durable)? {
            self.health
                .buffers
                .drain_seconds
                .observe(began.elapsed().as_secs_f64());
        }
        Ok(())
    }

    /// Moves the write buffer into the file in one commit, durable or not; whether it held
    /// anything. Writers need not be held: what they add meanwhile stays buffered.
    pub(super) fn commit(&self, durable: bool) -> Result<bool, StorageError> {
        let db = self.db()?;
        let txn = db.begin_write();
        drop(db);
        let mut txn = txn.map_err(|e| self.error(e))?;
        if !durable {
            txn.set_durability(redb::Durability::None)
                .map_err(|e| self.error(e))?;
        }
        let drained = self.drain_into(&mut txn)?;
        txn.commit().map_err(|e| self.error(e))?;
        let any = drained.is_some();
        self.drained(drained);
        Ok(any)
    }

    /// Writes the buffer's entries into `txn`, with their size and last sequence number
    /// (the caller commits it and then calls [`RegionFile::drained`]). A caller that stamps a
    /// later batch of its own in the same transaction overwrites that number with its own.
    pub fn drain_into(
        &self,
        txn: &mut WriteTransaction,
    ) -> Result<Option<Drained<'_>>, StorageError> {
        // A drain that committed may not have let go of its entries yet: wait for it.
        let draining = self.draining.lock().unwrap_or_else(|p| p.into_inner());
        let Some(taken) = self.mem.take() else {
            return Ok(None);
        };
        let mut delta = 0i64;
        for (family, map) in taken.view.families() {
            let name = family_table_name(family);
            let mut t = txn
                .open_table(family_def(&name))
                .map_err(|e| self.error(e))?;
            for (k, v) in map.iter() {
                let old = t
                    .insert(k.0.as_ref(), v.as_ref())
                    .map_err(|e| self.error(e))?;
                let old = old.map_or(0, |o| o.value().len() + k.0.len()) as i64;
                delta += (k.0.len() + v.len()) as i64 - old;
            }
        }
        redo_replay::stamp(txn, &self.path, delta, taken.last_seq).map_err(|e| self.classify(e))?;
        Ok(Some(Drained {
            taken,
            delta,
            _draining: draining,
        }))
    }

    /// The transaction `drain_into` wrote `drained` into has committed: the buffer lets its
    /// entries go and the region's size takes what redb replaced into account.
    pub fn drained(&self, drained: Option<Drained>) {
        let Some(d) = drained else {
            return;
        };
        self.stats.add_size(d.delta - d.taken.counted);
        self.mem.forget(d.taken);
        self.snapshots.committed();
    }

    /// A handle that does not keep the file open.
    pub(super) fn me(&self) -> Weak<RegionFile> {
        self.me.clone()
    }

    /// Neither closed nor down after an I/O error.
    pub(super) fn serving(&self) -> bool {
        !self.closed.load(Ordering::Acquire) && !self.failed.load(Ordering::Acquire)
    }

    pub(super) fn health(&self) -> &Health {
        &self.health
    }

    /// The region is closed (engine closing, table deleted, region replaced): never reopen its
    /// file again, and stop reporting it.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.health.forget(&self.path);
    }
}

fn stored_size(db: &Database) -> Option<u64> {
    let txn = db.begin_read().ok()?;
    let t = txn.open_table(REGION_TABLE).ok()?;
    let v = t.get(SIZE_KEY).ok()??;
    v.value().try_into().ok().map(u64::from_be_bytes)
}
