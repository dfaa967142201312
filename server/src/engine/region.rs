//! A region: one redb file holding the rows `[start, end)` of one table, one redb table per
//! column family, and a write queue that the engine's shared committer threads
//! ([`super::commit_pool`]) turn into shared commits.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use redb::{Database, ReadableTable, TableDefinition, WriteTransaction};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::cache::{CacheBudget, CacheShare};
use super::cell::{RowBuilder, RowResult};
use super::commit_pool::{self, CommitPool};
use super::error::StorageError;
use super::keys::{self, CellKey};
use super::read::{
    materialize, offset_limit, FamilyRead, Filter, Pending, PendingCells, RawEntry, ReadOptions,
    RowVerdict,
};
use super::recovery::{self, FileParts, Health, RegionFile, StorageFaults};
use super::redo::{self, Change};
use super::schema::{FamilyDescriptor, TableDescriptor};
use super::snapshot::Snapshots;
use super::write::{self, Job, Output};

/// The identity of a region as the catalog records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionMeta {
    pub table: String,
    pub id: u64,
    /// Inclusive; empty = the start of the table.
    pub start: Vec<u8>,
    /// Exclusive; empty = the end of the table.
    pub end: Vec<u8>,
    /// File name inside the table's directory.
    pub file: String,
}

impl RegionMeta {
    pub fn contains(&self, row: &[u8]) -> bool {
        row >= self.start.as_slice() && (self.end.is_empty() || row < self.end.as_slice())
    }

    /// HBase's region name, `table,startKey,id.encoded.`, where `encoded` is the hex MD5 of
    /// `table,startKey,id` (HBase's encoded region name).
    pub fn name(&self) -> String {
        let base = format!(
            "{},{},{}",
            self.table,
            String::from_utf8_lossy(&self.start),
            self.id
        );
        format!("{base}.{}.", self.encoded_name())
    }

    /// HBase's encoded region name: the MD5 of `table,startKey,id` in hex.
    pub fn encoded_name(&self) -> String {
        use md5::{Digest, Md5};
        let mut h = Md5::new();
        h.update(self.table.as_bytes());
        h.update(b",");
        h.update(&self.start);
        h.update(b",");
        h.update(self.id.to_string().as_bytes());
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Counters a region keeps for region info, metrics and the hotspot view.
#[derive(Debug, Default)]
pub struct RegionStats {
    /// Rows read (each row a get or a scan returns).
    pub reads: AtomicU64,
    /// Rows written by successful write jobs (a multi-row mutation counts each row).
    pub writes: AtomicU64,
    pub read_bytes: AtomicU64,
    pub write_bytes: AtomicU64,
    /// Bytes of keys and values stored (persisted in the region file).
    pub size: AtomicU64,
    pub commits: AtomicU64,
}

/// A snapshot of [`RegionStats`] plus the region's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionInfo {
    pub meta: RegionMeta,
    pub name: String,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub size: u64,
    pub commits: u64,
}

/// Called after each successful commit with the region's size; the engine counts commits and
/// triggers splits with it.
pub(crate) type OnLarge = Arc<dyn Fn(&RegionMeta, u64) + Send + Sync>;

/// What a region needs from its engine: the threads its commits run on, whom to tell about
/// its size after each commit, where to report storage failures, and the test fault switch.
#[derive(Clone)]
pub(crate) struct RegionHooks {
    pub on_commit: OnLarge,
    pub pool: CommitPool,
    pub health: Arc<Health>,
    pub faults: Option<StorageFaults>,
    pub cache: Arc<CacheBudget>,
}

/// A region file open with its part of the cache budget.
pub(crate) struct OpenFile {
    pub db: Database,
    pub cache: CacheShare,
    /// The redo sequence number the file holds ([`redo::recover`]).
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
        let redo_seq = if fresh { 0 } else { redo::recover(&db, path)? };
        Ok(OpenFile {
            db,
            cache,
            redo_seq,
        })
    }
}

/// The (family, key) pairs written while a rewrite copies the region; None when not recording.
pub(crate) type Recording = Arc<Mutex<Option<Vec<(Vec<u8>, Vec<u8>)>>>>;

pub(crate) const REGION_TABLE: TableDefinition<&str, &[u8]> = TableDefinition::new("region");
pub(crate) const SIZE_KEY: &str = "size";
pub(crate) const INFO_KEY: &str = "info";

/// The redb table name of a family: `cf:` and the family bytes in hex (names are bytes in HBase).
/// Built on the stack for the usual short family names, since every get and scan opens it.
pub(crate) fn family_table_name(family: &[u8]) -> FamilyTableName {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = SmallVec::with_capacity(3 + family.len() * 2);
    s.extend_from_slice(b"cf:");
    for b in family {
        s.push(HEX[(b >> 4) as usize]);
        s.push(HEX[(b & 15) as usize]);
    }
    FamilyTableName(s)
}

/// A family's redb table name (ASCII by construction); derefs to `str`.
pub(crate) struct FamilyTableName(SmallVec<[u8; 40]>);

impl std::ops::Deref for FamilyTableName {
    type Target = str;

    fn deref(&self) -> &str {
        // Only "cf:" and hex digits are ever pushed, so this never fails.
        std::str::from_utf8(&self.0).unwrap_or("cf:")
    }
}

pub(crate) fn family_def(name: &str) -> TableDefinition<'_, CellKey, &'static [u8]> {
    TableDefinition::new(name)
}

/// A message to the committer.
pub(crate) struct Request {
    pub table: Arc<TableDescriptor>,
    pub job: Job,
    pub durable: bool,
    pub reply: Sender<Result<Output, write::Fail>>,
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

/// A job queued by [`Region::enqueue`]; [`Ticket::wait`] returns once its commit is done.
pub(crate) struct Ticket(mpsc::Receiver<Result<Output, write::Fail>>);

impl Ticket {
    pub fn wait(self) -> Result<Output, write::Fail> {
        // A committer that went away without answering dropped the job with its region.
        self.0.recv().unwrap_or(Err(write::Fail::Retired))
    }
}

impl Region {
    /// Creates a new, empty region file.
    pub(crate) fn create(
        dir: &Path,
        meta: RegionMeta,
        hooks: RegionHooks,
    ) -> Result<Region, StorageError> {
        let path = dir.join(&meta.file);
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
        Ok(Region::from_db(path, file, meta, 0, hooks))
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
        let stats = Arc::new(RegionStats::default());
        stats.size.store(size, Ordering::Relaxed);
        let gate = Arc::new(Mutex::new(()));
        let retired = Arc::new(AtomicBool::new(false));
        let recording = Arc::new(Mutex::new(None));
        let snapshots = Arc::new(Snapshots::default());
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
        }
    }

    /// Queues a job for the region's next commit and waits for that commit.
    pub(crate) fn submit(
        &self,
        table: Arc<TableDescriptor>,
        job: Job,
        durable: bool,
    ) -> Result<Output, write::Fail> {
        self.enqueue(table, job, durable)?.wait()
    }

    /// Queues a job for the region's next commit without waiting for it, so that one caller
    /// can have several regions commit at once (a batch of rows spread over regions).
    pub(crate) fn enqueue(
        &self,
        table: Arc<TableDescriptor>,
        job: Job,
        durable: bool,
    ) -> Result<Ticket, write::Fail> {
        let (reply, rx) = mpsc::channel();
        let mut q = self.committer.lock_queue();
        if q.closed {
            return Err(write::Fail::Retired);
        }
        q.requests.push(Request {
            table,
            job,
            durable,
            reply,
        });
        if !q.scheduled {
            q.scheduled = true;
            drop(q);
            self.pool.schedule(self.committer.clone());
        } else {
            drop(q);
        }
        Ok(Ticket(rx))
    }

    /// Refuses new writes and waits until everything already queued has committed.
    pub(crate) fn close(&self) {
        let shared = &self.committer.queue;
        let mut q = self.committer.lock_queue();
        q.closed = true;
        // Until no worker holds the region any more: a worker still sending replies keeps the
        // region's file open, and a reopened engine must be able to open it again at once.
        while q.scheduled || q.releasing > 0 {
            q = shared.idle.wait(q).unwrap_or_else(|p| p.into_inner());
        }
        drop(q);
        // A replaced region's rows live on, durably, in its successors.
        if !self.retired.load(Ordering::Acquire) {
            if let Err(e) = self.flush() {
                tracing::warn!(region = %self.meta.name(), error = %e, "closing: cannot commit the region's non-durable writes durably; its redo log keeps them");
            }
        }
        self.snapshots.clear();
        self.file.close();
    }

    /// Makes the region's non-durable commits durable and empties its redo log (no-op when
    /// there are none).
    pub(crate) fn flush(&self) -> Result<(), StorageError> {
        if !self.file.redo.needs_flush() {
            return Ok(());
        }
        let gate = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        self.file.flush(&gate)
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
        self.snapshots.committed();
        self.file.redo.durable();
        let d = bytes as u64;
        let _ = self
            .stats
            .size
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                Some(s.saturating_sub(d))
            });
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
        let snap = self.snapshots.current(&self.file, desc)?;
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
            let Some(table) = snap.table(fr.family).map_err(|e| self.storage_err(e))? else {
                continue;
            };
            let mut entries = FamilyEntries::new();
            for item in table.range(start..).map_err(|e| self.storage_err(e))? {
                let (k, v) = item.map_err(|e| self.storage_err(e))?;
                if !k.value().starts_with(start) {
                    break;
                }
                entries.push(RawEntry::guarded(k, v));
            }
            families.push(fr);
            per_family.push(entries);
        }
        let mut counter = ReadCounter::new(&self.stats);
        Ok(plan.assemble(&families, row, &per_family, filter, &mut counter))
    }
}

/// One family's stored entries of one row, inline for the usual handful.
type FamilyEntries = SmallVec<[RawEntry; 2]>;

/// What a read does per family, worked out once per get or scan chunk rather than per row.
pub(crate) struct ReadPlan<'a> {
    /// The families the read touches, in name order.
    pub families: SmallVec<[FamilyRead<'a>; 4]>,
    offset: usize,
    limit: Option<usize>,
}

impl<'a> ReadPlan<'a> {
    /// Splits the options: the plan borrows the columns and time ranges, the caller keeps the
    /// filter (returned), which changes from row to row.
    pub fn new(
        desc: &'a TableDescriptor,
        opts: &'a mut ReadOptions,
        now: i64,
    ) -> (ReadPlan<'a>, &'a mut Option<Box<dyn Filter>>) {
        let ReadOptions {
            columns,
            time_range,
            family_time_ranges,
            max_versions,
            limit_per_family,
            offset_per_family,
            raw,
            filter,
        } = opts;
        let read = |(name, fd): (&'a Vec<u8>, &'a FamilyDescriptor)| FamilyRead {
            desc: fd,
            family: name.as_slice(),
            qualifiers: columns.get(name).and_then(|q| q.as_ref()),
            time_range: family_time_ranges.get(name).copied().unwrap_or(*time_range),
            max_versions: *max_versions,
            raw: *raw,
            now,
        };
        let families = if columns.is_empty() {
            desc.families.iter().map(read).collect()
        } else {
            columns
                .keys()
                .filter_map(|f| desc.families.get_key_value(f))
                .map(read)
                .collect()
        };
        let plan = ReadPlan {
            families,
            offset: *offset_per_family,
            limit: *limit_per_family,
        };
        (plan, filter)
    }

    /// Whether every visible cell of a family is returned (no per-family offset or limit).
    pub fn all_cells(&self) -> bool {
        self.offset == 0 && self.limit.is_none()
    }

    /// Turns one row's stored entries (`per_family[i]` belongs to `families[i]`, a subset of
    /// the plan's) into its visible result, applying the filter.
    pub fn assemble(
        &self,
        families: &[&FamilyRead<'a>],
        row: &[u8],
        per_family: &[impl std::ops::Deref<Target = [RawEntry]>],
        filter_slot: &mut Option<Box<dyn Filter>>,
        counter: &mut ReadCounter<'_>,
    ) -> Option<RowResult> {
        match self.visible(families, row, per_family, filter_slot, counter)? {
            Visible::Cells(pending) => Some(pending_row(RowBuilder::new, row, &pending).finish()),
            Visible::Row(r) => Some(r),
        }
    }

    /// What [`ReadPlan::assemble`] returns, before the cells are copied out of the entries.
    pub fn visible<'e>(
        &self,
        families: &[&FamilyRead<'a>],
        row: &[u8],
        per_family: &'e [impl std::ops::Deref<Target = [RawEntry]>],
        filter_slot: &mut Option<Box<dyn Filter>>,
        counter: &mut ReadCounter<'_>,
    ) -> Option<Visible<'e>>
    where
        'a: 'e,
    {
        counter.rows += 1;
        if per_family.iter().all(|e| e.is_empty()) {
            return None;
        }
        let mut filter = filter_slot.as_deref_mut();
        let mut pending = PendingCells::new();
        for (fr, entries) in families.iter().zip(per_family) {
            counter.bytes += entries.iter().map(RawEntry::stored_len).sum::<u64>();
            let start = pending.len();
            let more = fr.collect(row, entries, filter.as_deref_mut(), &mut pending);
            offset_limit(&mut pending, start, self.offset, self.limit);
            if !more {
                // The filter ended the scan inside this row: the cells it took so far stay, as
                // HBase's store scanners keep theirs when the filter says it is done.
                break;
            }
        }
        if pending.is_empty() {
            return None;
        }
        match filter {
            // A filter may rewrite the row as a whole, so it gets owned cells.
            Some(f) => {
                let mut cells = materialize(row, &pending);
                (f.row(&mut cells) && !cells.is_empty())
                    .then(|| Visible::Row(RowResult::from_cells(row, &cells)))
            }
            None => Some(Visible::Cells(pending)),
        }
    }
}

/// A row's visible cells as a read found them.
// Inline on purpose: boxing the cells would cost the allocation the inline array avoids.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Visible<'e> {
    /// Still pointing into the stored entries.
    Cells(PendingCells<'e>),
    /// Rewritten by the filter, already a result.
    Row(RowResult),
}

/// Copies `pending` into a builder that `start(row, bytes, cells)` makes.
pub(crate) fn pending_row(
    start: impl FnOnce(&[u8], usize, usize) -> RowBuilder,
    row: &[u8],
    pending: &[Pending<'_>],
) -> RowBuilder {
    let bytes = pending
        .iter()
        .map(|p| p.family.len() + p.qualifier.len() + p.value().len())
        .sum();
    let mut b = start(row, bytes, pending.len());
    for p in pending {
        b.push(p.family, p.qualifier, p.timestamp, p.cell_type, p.value());
    }
    b
}

/// Counts a read's rows and bytes locally and adds them to the region's counters once, when
/// dropped: shared atomic counters touched once per row would cost more than the row.
pub(crate) struct ReadCounter<'a> {
    stats: &'a RegionStats,
    pub rows: u64,
    pub bytes: u64,
}

impl<'a> ReadCounter<'a> {
    pub fn new(stats: &'a RegionStats) -> ReadCounter<'a> {
        ReadCounter {
            stats,
            rows: 0,
            bytes: 0,
        }
    }
}

impl Drop for ReadCounter<'_> {
    fn drop(&mut self) {
        self.stats.reads.fetch_add(self.rows, Ordering::Relaxed);
        self.stats
            .read_bytes
            .fetch_add(self.bytes, Ordering::Relaxed);
    }
}

/// Applies batches of jobs, one write transaction and one commit per batch.
struct Committer {
    path: PathBuf,
    snapshots: Arc<Snapshots>,
    file: Arc<RegionFile>,
    stats: Arc<RegionStats>,
    gate: Arc<Mutex<()>>,
    retired: Arc<AtomicBool>,
    recording: Recording,
    meta: RegionMeta,
    on_large: OnLarge,
    /// Kept apart from the committer, so a worker can say it is done after it has dropped its
    /// hold on the committer (and with it the region's file).
    queue: Arc<QueueShared>,
}

#[derive(Default)]
struct QueueShared {
    queue: Mutex<Queued>,
    /// Signalled when the region has nothing queued, committing or being released (`close`).
    idle: Condvar,
}

/// A region's writes waiting for a commit.
#[derive(Default)]
struct Queued {
    requests: Vec<Request>,
    /// The region is in the pool's queue or a worker is committing it.
    scheduled: bool,
    /// Workers past their commit that still hold the region (sending replies).
    releasing: usize,
    closed: bool,
}

type Reply = (
    Sender<Result<Output, write::Fail>>,
    Result<Output, write::Fail>,
);

/// How many jobs one commit may carry.
const MAX_BATCH: usize = 1024;

impl commit_pool::Job for Committer {
    fn run_batch(self: Arc<Self>, pool: &CommitPool) {
        let batch: Vec<Request> = {
            let mut q = self.lock_queue();
            let n = q.requests.len().min(MAX_BATCH);
            q.requests.drain(..n).collect()
        };
        let (replies, committed) = self.process(batch);
        // Hand the region back before waking the writers, so the next batch can start on
        // another worker while this one sends replies.
        let shared = self.queue.clone();
        {
            let mut q = self.lock_queue();
            q.releasing += 1;
            if q.requests.is_empty() {
                q.scheduled = false;
            } else {
                drop(q);
                pool.schedule(self.clone());
            }
        }
        for (tx, o) in replies {
            let _ = tx.send(o);
        }
        if let Some(size) = committed {
            (self.on_large)(&self.meta, size);
        }
        drop(self);
        let mut q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.releasing -= 1;
        if q.releasing == 0 && !q.scheduled {
            shared.idle.notify_all();
        }
    }
}

impl Committer {
    fn lock_queue(&self) -> std::sync::MutexGuard<'_, Queued> {
        self.queue.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Commits one batch; returns each job's reply and, after a successful commit, the
    /// region's size.
    fn process(&self, batch: Vec<Request>) -> (Vec<Reply>, Option<u64>) {
        if batch.is_empty() {
            return (Vec::new(), None);
        }
        let _gate = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        if self.retired.load(Ordering::Acquire) {
            let replies = batch
                .into_iter()
                .map(|r| (r.reply, Err(write::Fail::Retired)))
                .collect();
            return (replies, None);
        }
        // A job for rows outside this region raced a split: send it back to be routed.
        let (batch, stray): (Vec<Request>, Vec<Request>) = batch
            .into_iter()
            .partition(|r| r.job.rows().iter().all(|row| self.meta.contains(row)));
        let mut replies: Vec<Reply> = stray
            .into_iter()
            .map(|r| (r.reply, Err(write::Fail::Retired)))
            .collect();
        if batch.is_empty() {
            return (replies, None);
        }
        // A region down after an I/O error reopens its file first (when an attempt is due);
        // until that works its writers hear why, at once.
        if let Err(e) = self.file.recover(&_gate) {
            replies.extend(batch.into_iter().map(|r| {
                (
                    r.reply,
                    Err(write::Fail::Error(super::error::MutateError::Storage(
                        e.clone(),
                    ))),
                )
            }));
            return (replies, None);
        }
        let committed = self.apply(batch, &mut replies, &_gate);
        (replies, committed)
    }

    /// Applies a batch and adds its replies to `replies`. Returns the region size after a
    /// successful commit, None when the commit failed (every job gets the error).
    fn apply(
        &self,
        batch: Vec<Request>,
        replies: &mut Vec<Reply>,
        gate: &MutexGuard<'_, ()>,
    ) -> Option<u64> {
        let durable = batch.iter().any(|r| r.durable);
        let result = (|| -> Result<(Vec<Result<Output, write::Fail>>, i64), StorageError> {
            let mut txn = self
                .file
                .db()?
                .begin_write()
                .map_err(|e| storage(&self.path, e))?;
            if !durable {
                txn.set_durability(redb::Durability::None)
                    .map_err(|e| storage(&self.path, e))?;
            }
            let mut outputs = Vec::with_capacity(batch.len());
            let mut delta = 0i64;
            let mut recorded = Vec::new();
            let changes: Vec<Change>;
            let recording = self
                .recording
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .is_some();
            {
                let mut ctx = write::Apply::new(&txn, &self.path, recording, !durable);
                for r in &batch {
                    outputs.push(ctx.run(&r.table, &r.job));
                }
                delta += ctx.size_delta;
                recorded.append(&mut ctx.recorded);
                changes = ctx.logged.take().unwrap_or_default();
                self.stats
                    .write_bytes
                    .fetch_add(ctx.bytes_written, Ordering::Relaxed);
                ctx.finish()?;
            }
            // A non-durable batch carries its redo number (see `redo`).
            let logged = if durable {
                update_size(&mut txn, &self.path, delta)?;
                None
            } else {
                let seq = self.file.redo.next_seq();
                Some((seq, redo::stamp(&mut txn, &self.path, delta, seq)?))
            };
            txn.commit().map_err(|e| storage(&self.path, e))?;
            // Before any writer hears back: reads from now on must see this commit.
            self.snapshots.committed();
            if recording {
                if let Some(rec) = self
                    .recording
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .as_mut()
                {
                    rec.append(&mut recorded);
                }
            }
            match logged {
                None => self.file.redo.durable(),
                Some((seq, size)) => self.log(seq, size, &changes, gate)?,
            }
            Ok((outputs, delta))
        })();
        match result {
            Ok((outputs, delta)) => {
                self.stats.commits.fetch_add(1, Ordering::Relaxed);
                // Rows, not jobs: a batch of rows sent in one call counts each row, as reads do.
                let n: u64 = batch
                    .iter()
                    .zip(&outputs)
                    .filter(|(_, o)| o.is_ok())
                    .map(|(r, _)| r.job.rows().len() as u64)
                    .sum();
                self.stats.writes.fetch_add(n, Ordering::Relaxed);
                let size = if delta >= 0 {
                    self.stats.size.fetch_add(delta as u64, Ordering::Relaxed) + delta as u64
                } else {
                    let d = delta.unsigned_abs();
                    self.stats.size.fetch_sub(d, Ordering::Relaxed) - d
                };
                replies.extend(batch.into_iter().map(|r| r.reply).zip(outputs));
                Some(size)
            }
            Err(e) => {
                // An I/O error marks the region failed; every writer of the batch hears so.
                let e = self.file.classify(e);
                replies.extend(batch.into_iter().map(|r| {
                    (
                        r.reply,
                        Err(write::Fail::Error(super::error::MutateError::Storage(
                            e.clone(),
                        ))),
                    )
                }));
                None
            }
        }
    }
}

impl Committer {
    /// Puts a committed non-durable batch in the redo log before it is acknowledged. A log
    /// grown past its bound, or one that cannot be written, is replaced by a durable commit.
    fn log(
        &self,
        seq: u64,
        size: u64,
        changes: &[Change],
        gate: &MutexGuard<'_, ()>,
    ) -> Result<(), StorageError> {
        match self.file.redo.append(seq, size, changes) {
            Ok(len) if len < redo::MAX_LOG_BYTES => Ok(()),
            Ok(_) => self.file.flush(gate),
            Err(e) => {
                tracing::warn!(region = %self.meta.name(), error = %e, "cannot append to the redo log; committing durably instead");
                self.file.flush(gate)
            }
        }
    }
}

/// Adds `delta` to the persisted size counter inside `txn`.
pub(crate) fn update_size(
    txn: &mut WriteTransaction,
    path: &Path,
    delta: i64,
) -> Result<(), StorageError> {
    if delta == 0 {
        return Ok(());
    }
    let mut t = txn.open_table(REGION_TABLE).map_err(|e| storage(path, e))?;
    let cur = t
        .get(SIZE_KEY)
        .map_err(|e| storage(path, e))?
        .and_then(|v| v.value().try_into().ok().map(u64::from_be_bytes))
        .unwrap_or(0);
    let new = (cur as i64 + delta).max(0) as u64;
    t.insert(SIZE_KEY, new.to_be_bytes().as_slice())
        .map_err(|e| storage(path, e))?;
    Ok(())
}

/// Opened family tables of one write transaction.
pub(crate) struct TxnTables<'t> {
    txn: &'t WriteTransaction,
    path: &'t Path,
    tables: HashMap<Vec<u8>, redb::Table<'t, CellKey, &'static [u8]>>,
}

impl<'t> TxnTables<'t> {
    pub fn new(txn: &'t WriteTransaction, path: &'t Path) -> TxnTables<'t> {
        TxnTables {
            txn,
            path,
            tables: HashMap::new(),
        }
    }

    pub fn get(
        &mut self,
        family: &[u8],
    ) -> Result<&mut redb::Table<'t, CellKey, &'static [u8]>, StorageError> {
        if !self.tables.contains_key(family) {
            let name = family_table_name(family);
            let t = self
                .txn
                .open_table(family_def(&name))
                .map_err(|e| storage(self.path, e))?;
            self.tables.insert(family.to_vec(), t);
        }
        Ok(self.tables.get_mut(family).expect("just inserted"))
    }

    /// All stored entries of `row` in `family`, in key order.
    pub fn row_entries(
        &mut self,
        family: &[u8],
        row: &[u8],
    ) -> Result<Vec<RawEntry>, StorageError> {
        let path = self.path;
        let t = self.get(family)?;
        let start = keys::row_start(row);
        let mut succ = row.to_vec();
        succ.push(0);
        let end = keys::row_start(&succ);
        let mut out = Vec::new();
        for item in t
            .range(start.as_slice()..end.as_slice())
            .map_err(|e| storage(path, e))?
        {
            let (k, v) = item.map_err(|e| storage(path, e))?;
            out.push(RawEntry::owned(k.value().to_vec(), v.value().to_vec()));
        }
        Ok(out)
    }
}
