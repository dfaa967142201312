//! A region's shared read snapshot.
//!
//! Opening a redb read transaction and a family table costs about as much as the point read
//! that follows (a lookup in redb's table directory, type checks, reference counting). Reads
//! of a region therefore share one read transaction until the next commit to its file.
//!
//! Correctness rests on one sequence that orders two events: a snapshot's transaction
//! beginning (numbered under a lock, so numbers follow begin order) and a commit being recorded
//! (numbered after the commit returns and before any writer hears back). A snapshot numbered
//! above the last recorded commit holds every acknowledged write, so a read may use it. The
//! shared slot only ever moves to a snapshot numbered higher than the one it holds, and every
//! read uses either the slot's snapshot or one it begins itself, numbered above everything
//! before it: a reader never sees a row go back, not even to before a write that was visible
//! but not yet acknowledged (a commit's data is visible to new transactions a moment before the
//! commit is recorded).
//!
//! A snapshot also holds a view of the region's write buffer ([`super::memtable`]), taken
//! before its transaction begins: a batch counts as committed once it is in the buffer, and a
//! drain empties the buffer only after its commit to the file.
//!
//! The snapshot is dropped at each commit, so a cached transaction never keeps redb from
//! reusing pages freed by later commits.

use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use redb::{ReadOnlyTable, ReadTransaction};

use super::memtable::MemView;
use crate::engine::model::error::StorageError;
use crate::engine::model::keys::CellKey;
use crate::engine::model::keys::{family_def, family_table_name};
use crate::engine::model::schema::TableDescriptor;

/// A family's cells as redb stores them.
pub(crate) type FamilyTable = ReadOnlyTable<CellKey, &'static [u8]>;

/// The newest snapshot of one region file and the sequence that orders snapshots and commits.
#[derive(Default)]
pub(crate) struct Snapshots {
    /// The last number given to a snapshot or a commit.
    sequence: AtomicU64,
    /// The number of the last commit recorded.
    last_commit: AtomicU64,
    /// Held while a snapshot is numbered and its transaction begins, so that numbers follow
    /// the order in which transactions begin.
    begin: Mutex<()>,
    current: Mutex<Option<Arc<Snapshot>>>,
}

impl Snapshots {
    /// Records a commit to the region file (or its reopening after an I/O error). Call after
    /// the commit returns and before any writer of it is answered.
    pub fn committed(&self) {
        let n = self.sequence.fetch_add(1, Ordering::AcqRel) + 1;
        self.last_commit.fetch_max(n, Ordering::AcqRel);
        self.lock().take();
    }

    /// Forgets the snapshot (the region is closing).
    pub fn clear(&self) {
        self.lock().take();
    }

    /// A snapshot holding every commit acknowledged before this call, and no older than any
    /// snapshot a read of this region used before. `begin_read` takes a view of the region's
    /// write buffer and then begins a read transaction on its file
    /// ([`RegionFile::begin_snapshot`]); it is only called when a new snapshot is needed.
    ///
    /// [`RegionFile::begin_snapshot`]: super::recovery::RegionFile::begin_snapshot
    pub fn current(
        &self,
        begin_read: impl FnOnce() -> Result<(MemView, ReadTransaction), StorageError>,
        desc: &TableDescriptor,
    ) -> Result<Arc<Snapshot>, StorageError> {
        let last_commit = self.last_commit.load(Ordering::Acquire);
        if let Some(s) = self.lock().as_ref() {
            if s.number > last_commit {
                return Ok(Arc::clone(s));
            }
        }
        let snap = {
            let _begin = self.begin.lock().unwrap_or_else(|p| p.into_inner());
            let number = self.sequence.fetch_add(1, Ordering::AcqRel) + 1;
            let (mem, txn) = begin_read()?;
            Arc::new(Snapshot {
                number,
                tables: desc
                    .families
                    .keys()
                    .map(|f| (f.clone(), OnceLock::new()))
                    .collect(),
                txn,
                mem,
            })
        };
        let mut slot = self.lock();
        // Share it if it is the newest and no commit was recorded since it began; a read that
        // raced a commit keeps its own (the next read begins a newer one).
        let newest = slot.as_ref().is_none_or(|s| s.number < snap.number);
        if newest && snap.number > self.last_commit.load(Ordering::Acquire) {
            *slot = Some(Arc::clone(&snap));
        }
        Ok(snap)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Arc<Snapshot>>> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One read transaction of a region and the family tables opened in it so far.
pub(crate) struct Snapshot {
    /// Where its transaction's beginning falls in the region's sequence.
    number: u64,
    /// The families the table had when the snapshot was taken, each opened on first use;
    /// `None` once opened means the file holds no cells of that family yet.
    tables: Vec<(Vec<u8>, OnceLock<Option<FamilyTable>>)>,
    txn: ReadTransaction,
    /// The region's write buffer as it was just before `txn` began.
    pub mem: MemView,
}

impl Snapshot {
    /// The family's table, or None when the file has none (nothing was ever written to it).
    pub fn table(&self, family: &[u8]) -> Result<Option<TableRef<'_>>, redb::TableError> {
        let Some((_, slot)) = self.tables.iter().find(|(f, _)| f == family) else {
            // A family added after the snapshot was taken: open it just for this read.
            return Ok(self.open(family)?.map(TableRef::Owned));
        };
        if slot.get().is_none() {
            let opened = self.open(family)?;
            // Another read may have opened it meanwhile; either copy is the same table.
            let _ = slot.set(opened);
        }
        Ok(slot.get().and_then(|t| t.as_ref()).map(TableRef::Shared))
    }

    fn open(&self, family: &[u8]) -> Result<Option<FamilyTable>, redb::TableError> {
        let name = family_table_name(family);
        match self.txn.open_table(family_def(&name)) {
            Ok(t) => Ok(Some(t)),
            Err(redb::TableError::TableDoesNotExist(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A family table borrowed from a snapshot, or opened for one read.
pub(crate) enum TableRef<'s> {
    Shared(&'s FamilyTable),
    Owned(FamilyTable),
}

impl Deref for TableRef<'_> {
    type Target = FamilyTable;

    fn deref(&self) -> &FamilyTable {
        match self {
            TableRef::Shared(t) => t,
            TableRef::Owned(t) => t,
        }
    }
}
