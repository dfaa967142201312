//! A region: one redb file holding the rows `[start, end)` of one table, one redb table per
//! column family, and a write queue ([`crate::engine::writes::commit`]) that the engine's shared committer
//! threads ([`crate::engine::store::commit_pool`]) turn into shared commits. This file holds the region's
//! lifecycle (create, open, close, flush) and its row reads.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use redb::{Database, ReadableTable};
use smallvec::SmallVec;

use crate::engine::model::cell::RowResult;
use crate::engine::model::error::{MutateError, StorageError};
use crate::engine::model::keys::{family_def, family_table_name, INFO_KEY, REGION_TABLE, SIZE_KEY};
use crate::engine::model::region_info::{RegionInfo, RegionMeta, RegionStats};
use crate::engine::model::schema::TableDescriptor;
use crate::engine::reads::read::{FamilyRead, RawEntry, ReadOptions, RowVerdict};
use crate::engine::reads::read_plan::{ReadCounter, ReadPlan};
use crate::engine::store::cache::{CacheBudget, CacheShare};
use crate::engine::store::commit_pool::CommitPool;
use crate::engine::store::memtable;
use crate::engine::store::recovery::{self, FileParts, Health, RegionFile, StorageFaults};
use crate::engine::store::snapshot::Snapshots;
use crate::engine::store::{redo, redo_replay};
use crate::engine::writes::appends::{self, AppendTrack};
use crate::engine::writes::commit::{
    Committer, OnLarge, QueueShared, Recording, TaskTicket, Ticket,
};
use crate::engine::writes::recorder::{Busy, RecordLimits, RecordStats, Recorder};
use crate::engine::writes::write::{self, update_size, Job, Output};

/// What a region needs from its engine: the threads its commits run on, whom to tell about
/// its size after each commit, where to report storage failures, and the test fault switch.
#[derive(Clone)]
pub(crate) struct RegionHooks {
    pub on_commit: OnLarge,
    pub pool: CommitPool,
    /// Where write buffers drain in the background ([`crate::engine::store::background_drain`]).
    pub drainer: CommitPool,
    pub health: Arc<Health>,
    pub faults: Option<StorageFaults>,
    pub cache: Arc<CacheBudget>,
    /// [`crate::engine::EngineConfig::catch_up_free_rounds`], for rewrites.
    pub catch_up_free_rounds: usize,
    /// Set when the engine closes: a rewrite in progress gives up rather than hold up the exit.
    pub stop: Arc<std::sync::atomic::AtomicBool>,
    /// The bound on keys a rewrite records, and the engine's counts of writers held at it.
    pub record: RecordLimits,
    pub record_stats: Arc<RecordStats>,
}

/// A region file open with its part of the cache budget.
pub(crate) struct OpenFile {
    pub db: Database,
    pub cache: CacheShare,
    /// The redo sequence number the file holds ([`recover`](crate::engine::store::redo_replay::recover)).
    pub redo_seq: u64,
}

impl RegionHooks {
    /// Opens (or creates) a region file the way every region of the engine opens it. An
    /// existing file first gets the writes of its redo log back; a new one starts without a
    /// log.
    pub fn open_db(&self, path: &Path, create: bool) -> Result<OpenFile, StorageError> {
        let fresh = create && !path.exists();
        if fresh {
            redo::remove_log(path);
        }
        let cache = self.cache.share();
        let db = recovery::open_db(path, create, self.faults.as_ref(), cache.bytes())
            .map_err(|e| storage(path, e))?;
        let redo_seq = if fresh {
            0
        } else {
            redo_replay::recover(&db, path)?
        };
        Ok(OpenFile {
            db,
            cache,
            redo_seq,
        })
    }
}

pub struct Region {
    pub meta: RegionMeta,
    pub(crate) path: PathBuf,
    /// The region's redb file; reopened after a storage I/O error.
    pub(crate) file: Arc<RegionFile>,
    pub(crate) stats: Arc<RegionStats>,
    committer: Arc<Committer>,
    pool: CommitPool,
    /// Held by the committer while it applies a batch; a split holds it to pause writes.
    pub(crate) gate: Arc<Mutex<()>>,
    /// Set once the region has been replaced (split or rewritten); writers then re-route.
    pub(crate) retired: Arc<AtomicBool>,
    /// While a rewrite copies the region, the keys the committer writes, to replay them.
    pub(crate) recording: Recording,
    /// One split or compaction at a time.
    pub(crate) maintenance: Mutex<()>,
    /// The read snapshot gets and scans share between commits.
    pub(crate) snapshots: Arc<Snapshots>,
    /// Whether its writes append at its end, as the committer counts them.
    appends: Arc<Mutex<AppendTrack>>,
    /// Set when a tail split gave this region's file to its lower half ([`Region::hand_over`]):
    /// closing it then leaves the file alone.
    handed_over: AtomicBool,
}

impl Drop for Region {
    fn drop(&mut self) {
        self.close();
    }
}

impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Region").field("meta", &self.meta).finish()
    }
}

fn storage(path: &Path, e: impl std::fmt::Display) -> StorageError {
    StorageError::new(path, e)
}

impl Region {
    /// Creates a new, empty region file.
    pub(crate) fn create(
        dir: &Path,
        meta: RegionMeta,
        hooks: RegionHooks,
    ) -> Result<Region, StorageError> {
        let path = dir.join(&meta.file);
        let made = (|| {
            let file = hooks.open_db(&path, true)?;
            let txn = file.db.begin_write().map_err(|e| storage(&path, e))?;
            {
                let mut t = txn
                    .open_table(REGION_TABLE)
                    .map_err(|e| storage(&path, e))?;
                let info = serde_json::to_vec(&meta).map_err(|e| storage(&path, e))?;
                t.insert(INFO_KEY, info.as_slice())
                    .map_err(|e| storage(&path, e))?;
                t.insert(SIZE_KEY, 0u64.to_be_bytes().as_slice())
                    .map_err(|e| storage(&path, e))?;
            }
            txn.commit().map_err(|e| storage(&path, e))?;
            Ok(file)
        })();
        match made {
            Ok(file) => Ok(Region::from_db(path, file, meta, 0, hooks)),
            Err(e) => {
                // A file no region came of (a full disk, no descriptors left) goes again.
                let _ = std::fs::remove_file(&path);
                Err(e)
            }
        }
    }

    /// Opens an existing region file, checking that it is the region the catalog expects.
    pub(crate) fn open(
        dir: &Path,
        meta: RegionMeta,
        hooks: RegionHooks,
    ) -> Result<Region, StorageError> {
        let path = dir.join(&meta.file);
        if !path.exists() {
            return Err(storage(&path, "region file is missing"));
        }
        let file = hooks.open_db(&path, false)?;
        let txn = redb::ReadableDatabase::begin_read(&file.db).map_err(|e| storage(&path, e))?;
        let t = txn
            .open_table(REGION_TABLE)
            .map_err(|e| storage(&path, format!("not a region file: {e}")))?;
        let info = t
            .get(INFO_KEY)
            .map_err(|e| storage(&path, e))?
            .ok_or_else(|| storage(&path, "region file has no identity record"))?;
        let stored: RegionMeta = serde_json::from_slice(info.value())
            .map_err(|e| storage(&path, format!("corrupt identity record: {e}")))?;
        if stored.id != meta.id || stored.table != meta.table {
            return Err(storage(
                &path,
                format!(
                    "file holds region {} of {}, the catalog expects region {} of {}",
                    stored.id, stored.table, meta.id, meta.table
                ),
            ));
        }
        let size = t
            .get(SIZE_KEY)
            .map_err(|e| storage(&path, e))?
            .and_then(|v| v.value().try_into().ok().map(u64::from_be_bytes))
            .unwrap_or(0);
        drop(t);
        drop(txn);
        Ok(Region::from_db(path, file, meta, size, hooks))
    }

    /// Wraps an open region file; its writes commit on `hooks.pool`.
    pub(crate) fn from_db(
        path: PathBuf,
        open: OpenFile,
        meta: RegionMeta,
        size: u64,
        hooks: RegionHooks,
    ) -> Region {
        // The region's greatest row, for telling whether its writes append (an unreadable file
        // counts as empty: its writes then look like appends until it holds some rows).
        let last = redb::ReadableDatabase::begin_read(&open.db)
            .ok()
            .and_then(|txn| appends::last_row(&txn, None).ok())
            .flatten();
        let stats = Arc::new(RegionStats::default());
        stats.size.store(size, Ordering::Relaxed);
        let gate = Arc::new(Mutex::new(()));
        let retired = Arc::new(AtomicBool::new(false));
        let recording = Arc::new(Recorder::new(
            hooks.record,
            hooks.record_stats.clone(),
            stats.clone(),
        ));
        let snapshots = Arc::new(Snapshots::default());
        let appends = Arc::new(Mutex::new(AppendTrack::starting_after(last)));
        let file = RegionFile::new(FileParts {
            path: path.clone(),
            table: meta.table.clone(),
            region: meta.name(),
            db: open.db,
            cache: open.cache,
            faults: hooks.faults,
            health: hooks.health,
            snapshots: snapshots.clone(),
            gate: gate.clone(),
            stats: stats.clone(),
            redo_seq: open.redo_seq,
            drainer: hooks.drainer,
        });
        let committer = Committer {
            snapshots: snapshots.clone(),
            path: path.clone(),
            file: file.clone(),
            stats: stats.clone(),
            gate: gate.clone(),
            retired: retired.clone(),
            recording: recording.clone(),
            meta: meta.clone(),
            on_large: hooks.on_commit,
            appends: appends.clone(),
            queue: Arc::new(QueueShared::default()),
        };
        Region {
            meta,
            path,
            file,
            stats,
            committer: Arc::new(committer),
            pool: hooks.pool,
            gate,
            retired,
            recording,
            maintenance: Mutex::new(()),
            snapshots,
            appends,
            handed_over: AtomicBool::new(false),
        }
    }

    /// A region for the lower part of this one (`meta`, same id and start, an end no greater
    /// than this one's) that goes on in this region's file, with its write buffer, redo log,
    /// gate and counters: a tail split's lower half, which copies nothing. `last` is its
    /// greatest row. Call with the gate held, then retire this region and mark it handed over.
    pub(crate) fn hand_over(
        &self,
        meta: RegionMeta,
        last: Option<Vec<u8>>,
        hooks: &RegionHooks,
    ) -> Region {
        let appends = Arc::new(Mutex::new(AppendTrack::starting_after(last)));
        let retired = Arc::new(AtomicBool::new(false));
        let committer = Committer {
            snapshots: self.snapshots.clone(),
            path: self.path.clone(),
            file: self.file.clone(),
            stats: self.stats.clone(),
            gate: self.gate.clone(),
            retired: retired.clone(),
            recording: self.recording.clone(),
            meta: meta.clone(),
            on_large: hooks.on_commit.clone(),
            appends: appends.clone(),
            queue: Arc::new(QueueShared::default()),
        };
        Region {
            meta,
            path: self.path.clone(),
            file: self.file.clone(),
            stats: self.stats.clone(),
            committer: Arc::new(committer),
            pool: hooks.pool.clone(),
            gate: self.gate.clone(),
            retired,
            recording: self.recording.clone(),
            maintenance: Mutex::new(()),
            snapshots: self.snapshots.clone(),
            appends,
            handed_over: AtomicBool::new(false),
        }
    }

    /// Marks this (retired) region's file as given to its successor and stops its committer:
    /// writes queued here are answered "retired" and go to the successor.
    pub(crate) fn handed_over(&self) {
        self.handed_over.store(true, Ordering::Release);
    }

    /// Whether nine in ten of the region's recent writes appended rows at its end.
    pub(crate) fn appending(&self) -> bool {
        self.appends
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .appending()
    }

    /// Queues a job for the region's next commit and waits for that commit (leading it on this
    /// thread when the region has none queued).
    pub(crate) fn submit(
        &self,
        table: Arc<TableDescriptor>,
        job: Job,
        durable: bool,
    ) -> Result<Output, write::Fail> {
        self.admit()?;
        self.committer
            .enqueue(&self.pool, table, job, durable, true)?
            .wait()
    }

    /// Waits while a rewrite of this region holds as many recorded keys as it may, or while
    /// the region is over its blocking size and being rewritten.
    fn admit(&self) -> Result<(), write::Fail> {
        self.recording.admit().map_err(|busy| {
            write::Fail::Error(match busy {
                Busy::Keys { held, max, waited } => MutateError::RegionTooBusy {
                    region: self.meta.name(),
                    held,
                    max,
                    waited_ms: waited.as_millis() as u64,
                },
                Busy::Size {
                    size,
                    limit,
                    waited,
                } => MutateError::RegionOverBlockingSize {
                    region: self.meta.name(),
                    size,
                    limit,
                    waited_ms: waited.as_millis() as u64,
                },
            })
        })
    }

    /// Queues a job for the region's next commit without waiting for it, so that one caller
    /// can have several regions commit at once (a batch of rows spread over regions).
    pub(crate) fn enqueue(
        &self,
        table: Arc<TableDescriptor>,
        job: Job,
        durable: bool,
    ) -> Result<Ticket, write::Fail> {
        self.admit()?;
        self.committer
            .enqueue(&self.pool, table, job, durable, false)
    }

    /// Queues a job whose outcome a task awaits, if writers are admitted without waiting;
    /// None when they would wait (a rewrite's record is full), so the caller takes the
    /// blocking way instead of holding up an async worker.
    pub(crate) fn enqueue_for_task(
        &self,
        table: Arc<TableDescriptor>,
        job: Job,
        durable: bool,
    ) -> Option<Result<TaskTicket, write::Fail>> {
        if !self.recording.has_room() {
            return None;
        }
        Some(
            self.committer
                .enqueue_for_task(&self.pool, table, job, durable),
        )
    }

    /// Refuses new writes and waits until everything already queued has committed.
    pub(crate) fn close(&self) {
        self.committer.close();
        if self.handed_over.load(Ordering::Acquire) {
            // The file, its buffer and its log go on in the successor.
            return;
        }
        // No writer is left to queue another background drain.
        self.file.wait_background();
        // A replaced region's rows live on, durably, in its successors.
        if !self.retired.load(Ordering::Acquire) {
            if let Err(e) = self.flush() {
                tracing::warn!(region = %self.meta.name(), error = %e, "closing: cannot commit the region's non-durable writes durably; its redo log keeps them");
            }
        }
        // Its log holds nothing now: give the blocks back.
        self.file.redo.trim();
        self.snapshots.clear();
        self.file.close();
    }

    /// Makes the region's non-durable commits durable and empties its redo log. A region with
    /// none since the last call (idle for a flush interval) gives its log's blocks back.
    /// Most of the work runs without holding the region's writers
    /// ([`RegionFile::flush_with_short_hold`]).
    pub(crate) fn flush(&self) -> Result<(), StorageError> {
        if !self.file.redo.needs_flush() {
            self.file.redo.trim();
            return Ok(());
        }
        self.file.flush_with_short_hold()
    }

    pub fn info(&self) -> RegionInfo {
        let s = &self.stats;
        RegionInfo {
            meta: self.meta.clone(),
            name: self.meta.name(),
            reads: s.reads.load(Ordering::Relaxed),
            writes: s.writes.load(Ordering::Relaxed),
            read_bytes: s.read_bytes.load(Ordering::Relaxed),
            write_bytes: s.write_bytes.load(Ordering::Relaxed),
            size: s.size.load(Ordering::Relaxed),
            commits: s.commits.load(Ordering::Relaxed),
        }
    }

    /// An error of the region's file; marks the region failed when redb has latched an I/O
    /// error (see [`RegionFile::error`]).
    pub(crate) fn storage_err(&self, e: impl std::fmt::Display) -> StorageError {
        self.file.error(e)
    }

    /// Removes a deleted family's cells, so a family re-added later starts empty.
    pub(crate) fn drop_family(&self, family: &[u8]) -> Result<(), StorageError> {
        let name = family_table_name(family);
        let _maintenance = self.maintenance.lock().unwrap_or_else(|p| p.into_inner());
        let gate = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        self.file.recover(&gate)?;
        let mut txn = self
            .file
            .db()?
            .begin_write()
            .map_err(|e| self.storage_err(e))?;
        // The buffer first: its cells of the family go with the rest, and the commit below is
        // durable (the log is emptied after it).
        let drained = self.file.drain_into(&mut txn)?;
        let mut bytes = 0i64;
        {
            match txn.open_table(family_def(&name)) {
                Ok(t) => {
                    for item in t.iter().map_err(|e| self.storage_err(e))? {
                        let (k, v) = item.map_err(|e| self.storage_err(e))?;
                        bytes += (k.value().len() + v.value().len()) as i64;
                    }
                }
                Err(e) => return Err(self.storage_err(e)),
            }
        }
        txn.delete_table(family_def(&name))
            .map_err(|e| self.storage_err(e))?;
        update_size(&mut txn, &self.path, -bytes).map_err(|e| self.file.classify(e))?;
        txn.commit().map_err(|e| self.storage_err(e))?;
        self.file.drained(drained);
        self.snapshots.committed();
        self.file.redo.durable();
        self.stats.add_size(-bytes);
        Ok(())
    }

    /// Reads one row under a fresh snapshot.
    pub(crate) fn read_row(
        &self,
        desc: &TableDescriptor,
        row: &[u8],
        opts: &mut ReadOptions,
        now: i64,
    ) -> Result<Option<RowResult>, StorageError> {
        if let Some(f) = opts.filter.as_deref_mut() {
            f.reset();
            if f.row_key(row) != RowVerdict::Include {
                return Ok(None);
            }
        }
        let snap = self
            .snapshots
            .current(|| self.file.begin_snapshot(), desc)?;
        let (plan, filter) = ReadPlan::new(desc, opts, now);
        // The row's first key; its cells are the keys that start with this prefix (the row is
        // length-prefixed, so no other row's keys do). An open-ended range read that stops at
        // the first foreign key saves redb a second bound.
        let mut start: SmallVec<[u8; 64]> = SmallVec::with_capacity(2 + row.len());
        start.extend_from_slice(&(row.len() as u16).to_be_bytes());
        start.extend_from_slice(row);
        let start = start.as_slice();
        let mut families: SmallVec<[&FamilyRead<'_>; 4]> = SmallVec::new();
        let mut per_family: SmallVec<[FamilyEntries; 4]> = SmallVec::new();
        for fr in &plan.families {
            let table = snap.table(fr.family).map_err(|e| self.storage_err(e))?;
            let buffer = snap.mem.family(fr.family);
            if table.is_none() && buffer.is_none() {
                continue;
            }
            let mut entries = FamilyEntries::new();
            if let Some(table) = table {
                for item in table.range(start..).map_err(|e| self.storage_err(e))? {
                    let (k, v) = item.map_err(|e| self.storage_err(e))?;
                    if !k.value().starts_with(start) {
                        break;
                    }
                    entries.push(RawEntry::guarded(k, v));
                }
            }
            if let Some(buffer) = buffer {
                let buffered: FamilyEntries = memtable::row_entries(buffer, start).collect();
                entries = memtable::merge(entries, buffered);
            }
            families.push(fr);
            per_family.push(entries);
        }
        let mut counter = ReadCounter::new(&self.stats);
        Ok(plan.assemble(&families, row, &per_family, filter, &mut counter))
    }
}

/// Runs the background flush until `stop` says so (or its sender is gone): every `every`,
/// each region `regions` lists that has non-durable commits since its last durable one is
/// committed durably. `regions` answers None once the engine is gone.
pub(crate) fn flush_loop(
    every: Duration,
    stop: Receiver<()>,
    regions: impl Fn() -> Option<Vec<Weak<Region>>>,
) {
    loop {
        match stop.recv_timeout(every) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
        let Some(list) = regions() else {
            return;
        };
        for r in list {
            let Some(r) = r.upgrade() else {
                continue;
            };
            if let Err(e) = r.flush() {
                // The region is down (its failure is reported elsewhere); its log keeps the
                // writes until it reopens.
                tracing::debug!(region = %r.meta.name(), error = %e, "async flush failed");
            }
        }
    }
}

/// One family's stored entries of one row, inline for the usual handful.
type FamilyEntries = SmallVec<[RawEntry; 2]>;
