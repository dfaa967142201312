//! The bound on how many regions the server holds. Every region is an open redb file (a file
//! descriptor, a floor of cache, some tens of KiB of bookkeeping) and, while written, a redo
//! log or two; clients can ask for many at once (a pre-split table takes up to
//! [`crate::engine::MAX_SPLIT_KEYS`] + 1). So regions come from one budget: a table that would take
//! the server past [`EngineConfig::max_regions`](crate::engine::EngineConfig::max_regions) is refused
//! with [`TableError::TooManyRegions`], as HBase's namespace region quota refuses one
//! (`QuotaExceededException`), and splits stop there. Regions already on disk always open.

use std::sync::atomic::Ordering;

use crate::engine::model::error::TableError;
use crate::engine::store::cache::{self, MIN_SHARE};
use crate::engine::Engine;

/// The default bound when nothing else is tighter: as many regions as a pre-split table may
/// have, which a process with enough open files and memory holds (tests/many_regions.rs).
pub const DEFAULT_MAX_REGIONS: usize = 10_000;
/// The least the derived default goes to, however small the machine.
pub const MIN_MAX_REGIONS: usize = 16;
/// File descriptors kept for everything that is not a region or a client connection: the
/// catalog, listeners, the operations port's connections, backups and exports.
pub const RESERVED_FILES: u64 = 256;
/// File descriptors a region may hold: its file, and a redo log for a while after writes.
pub const FILES_PER_REGION: u64 = 2;
/// Memory a region holds beyond its share of the cache, measured idle (about 65 KiB with
/// 18,000 regions open), rounded up.
pub const REGION_OVERHEAD: u64 = 128 * 1024;

/// How the default bound came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivedBound {
    pub max_regions: usize,
    /// What set it: `"default"`, `"open files"` or `"memory"`.
    pub by: &'static str,
}

/// The default bound for a process that may open `open_files` files, serves up to
/// `max_connections` clients and may use `memory` bytes: no more regions than leave a
/// descriptor for every connection and [`FILES_PER_REGION`] per region, and than half the
/// memory holds at a cache floor plus [`REGION_OVERHEAD`] each, and at most
/// [`DEFAULT_MAX_REGIONS`].
pub fn derive_max_regions(open_files: u64, max_connections: usize, memory: u64) -> DerivedBound {
    let by_files =
        open_files.saturating_sub(max_connections as u64 + RESERVED_FILES) / FILES_PER_REGION;
    let by_memory = memory / 2 / (MIN_SHARE as u64 + REGION_OVERHEAD);
    let (n, by) = [
        (DEFAULT_MAX_REGIONS as u64, "default"),
        (by_files, "open files"),
        (by_memory, "memory"),
    ]
    .into_iter()
    .min_by_key(|(n, _)| *n)
    .unwrap_or((DEFAULT_MAX_REGIONS as u64, "default"));
    DerivedBound {
        max_regions: (n as usize).max(MIN_MAX_REGIONS),
        by,
    }
}

/// [`derive_max_regions`] for this process: its open-file limit and its memory (the
/// container's limit when there is one).
pub fn derive_for_this_process(open_files: u64, max_connections: usize) -> DerivedBound {
    let memory = cache::memory_limit().unwrap_or(8 << 30);
    derive_max_regions(open_files, max_connections, memory)
}

impl Engine {
    /// The most regions this engine holds.
    pub fn max_regions(&self) -> usize {
        self.inner.config.max_regions
    }

    /// Requests refused because they would have taken the engine past
    /// [`Engine::max_regions`] (tables created or truncated, splits asked for by hand or by
    /// size).
    pub fn regions_refused(&self) -> u64 {
        self.inner.regions_refused.load(Ordering::Relaxed)
    }

    /// Ok when `adding` more regions, with `leaving` of the current ones going, stay within
    /// the bound. Callers hold the DDL lock, so the count cannot change before they commit.
    pub(super) fn room_for_regions(
        &self,
        what: &str,
        adding: usize,
        leaving: usize,
    ) -> Result<(), TableError> {
        let limit = self.inner.config.max_regions;
        let held = self.region_count();
        if held.saturating_sub(leaving).saturating_add(adding) <= limit {
            return Ok(());
        }
        self.inner.regions_refused.fetch_add(1, Ordering::Relaxed);
        Err(TableError::TooManyRegions {
            what: what.to_string(),
            adding,
            held,
            limit,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn a_large_machine_gets_the_default() {
        let b = derive_max_regions(1 << 20, 1024, 64 * GIB);
        assert_eq!(
            b,
            DerivedBound {
                max_regions: DEFAULT_MAX_REGIONS,
                by: "default"
            }
        );
    }

    #[test]
    fn open_files_bound_it() {
        // 20,000 files: 1,024 connections and 256 reserved leave 18,720, two per region.
        let b = derive_max_regions(20_000, 1024, 64 * GIB);
        assert_eq!(
            b,
            DerivedBound {
                max_regions: 9_360,
                by: "open files"
            }
        );
        // Too few files for the connections: the floor.
        let b = derive_max_regions(1024, 1024, 64 * GIB);
        assert_eq!(b.max_regions, MIN_MAX_REGIONS);
    }

    #[test]
    fn memory_bounds_it() {
        // A 1 GiB container: half of it at 384 KiB a region.
        let b = derive_max_regions(1 << 20, 1024, GIB);
        assert_eq!(
            b,
            DerivedBound {
                max_regions: 1_365,
                by: "memory"
            }
        );
    }
}
