//! A region's shared read snapshot.
//!
//! Opening a redb read transaction and a family table costs about as much as the point read
//! that follows (a lookup in redb's table directory, type checks, reference counting). Reads
//! of a region therefore share one read transaction until the next commit to its file.
//!
//! Correctness rests on a generation counter: every commit to the region file bumps it after
//! the commit returns and before any writer hears back. A read notes the generation *before*
//! it begins a transaction, so a snapshot tagged `g` holds at least every commit that bumped
//! the counter to `g`. A read uses the shared snapshot only when its tag equals the current
//! generation; an acknowledged write has always bumped the counter already, so a read that
//! starts after the acknowledgement sees the write.
//!
//! The snapshot is dropped at each commit, so a cached transaction never keeps redb from
//! reusing pages freed by later commits.

use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use redb::{ReadOnlyTable, ReadTransaction};

use super::error::StorageError;
use super::keys::CellKey;
use super::keys::{family_def, family_table_name};
use super::schema::TableDescriptor;

/// A family's cells as redb stores them.
pub(crate) type FamilyTable = ReadOnlyTable<CellKey, &'static [u8]>;

/// The newest snapshot of one region file and the generation it was taken at.
#[derive(Default)]
pub(crate) struct Snapshots {
    generation: AtomicU64,
    current: Mutex<Option<Arc<Snapshot>>>,
}

impl Snapshots {
    /// Records a commit to the region file (or its reopening after an I/O error). Call after
    /// the commit returns and before any writer of it is answered.
    pub fn committed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.lock().take();
    }

    /// Forgets the snapshot (the region is closing).
    pub fn clear(&self) {
        self.lock().take();
    }

    /// A snapshot holding every commit acknowledged before this call. `begin_read` begins a
    /// read transaction on the region's file ([`RegionFile::begin_read`]); it is only called
    /// when a new snapshot is needed.
    ///
    /// [`RegionFile::begin_read`]: super::recovery::RegionFile::begin_read
    pub fn current(
        &self,
        begin_read: impl FnOnce() -> Result<ReadTransaction, StorageError>,
        desc: &TableDescriptor,
    ) -> Result<Arc<Snapshot>, StorageError> {
        let generation = self.generation.load(Ordering::Acquire);
        if let Some(s) = self.lock().as_ref() {
            if s.generation == generation {
                return Ok(Arc::clone(s));
            }
        }
        let snap = Arc::new(Snapshot {
            generation,
            tables: desc
                .families
                .keys()
                .map(|f| (f.clone(), OnceLock::new()))
                .collect(),
            txn: begin_read()?,
        });
        let mut slot = self.lock();
        // Only a snapshot of the newest generation is worth sharing; a read that raced a
        // commit keeps its own.
        if self.generation.load(Ordering::Acquire) == generation {
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
    generation: u64,
    /// The families the table had when the snapshot was taken, each opened on first use;
    /// `None` once opened means the file holds no cells of that family yet.
    tables: Vec<(Vec<u8>, OnceLock<Option<FamilyTable>>)>,
    txn: ReadTransaction,
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
