//! The full-disk switch tests put in front of a region's files (the redb file and its redo
//! log), so an ENOSPC can be had on demand without filling a real file system.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A fault switch for tests: while "disk full" is on, every write to a region file of the
/// engine or its redo log (and every growth of one) fails with ENOSPC, as on a full file system. Set it in
/// [`crate::engine::EngineConfig::storage_faults`]; the catalog is not affected.
#[derive(Clone, Debug, Default)]
pub struct StorageFaults {
    inner: Arc<FaultFlags>,
}

#[derive(Debug, Default)]
struct FaultFlags {
    disk_full: AtomicBool,
    /// Only the redo logs fail (a log on a device of its own that filled up).
    log_full: AtomicBool,
    refused: AtomicU64,
}

impl StorageFaults {
    pub fn new() -> StorageFaults {
        StorageFaults::default()
    }

    /// Turns the full disk on or off.
    pub fn set_disk_full(&self, full: bool) {
        self.inner.disk_full.store(full, Ordering::SeqCst);
    }

    pub fn disk_full(&self) -> bool {
        self.inner.disk_full.load(Ordering::SeqCst)
    }

    /// Makes only the redo logs' writes and syncs fail with ENOSPC (the region files work).
    pub fn set_log_full(&self, full: bool) {
        self.inner.log_full.store(full, Ordering::SeqCst);
    }

    /// How many writes the fault has refused so far.
    pub fn refused_writes(&self) -> u64 {
        self.inner.refused.load(Ordering::SeqCst)
    }

    /// For a region file's writes.
    pub(crate) fn check(&self) -> io::Result<()> {
        self.refuse_if(self.disk_full())
    }

    /// For a redo log's writes and syncs.
    pub(crate) fn check_log(&self) -> io::Result<()> {
        self.refuse_if(self.disk_full() || self.inner.log_full.load(Ordering::SeqCst))
    }

    fn refuse_if(&self, full: bool) -> io::Result<()> {
        if full {
            self.inner.refused.fetch_add(1, Ordering::SeqCst);
            // ENOSPC: "No space left on device" (28 on Linux, the BSDs and macOS).
            return Err(io::Error::from_raw_os_error(28));
        }
        Ok(())
    }
}
