//! The server-wide cache budget. redb gives each open database its own page cache (read cache
//! and write buffer together), sized when it opens and fixed after, so the engine divides one
//! budget among region files as they open: each takes an equal part among the open files (at
//! most a sixteenth, so that the first files do not take it all) of what the others leave, and
//! gives it back when it closes (a split or compaction's parent, a dropped table). The shares
//! add up to at most the budget, plus a small floor per file that keeps a file usable when the
//! budget is spent. The OS page cache serves what redb's caches do not hold.

use std::sync::{Arc, Mutex};

/// The least cache a region file opens with, even when the budget is spent.
pub const MIN_SHARE: usize = 256 * 1024;
/// The budget is cut into at least this many shares.
pub const MIN_PARTS: usize = 16;
/// The catalog's cache: it holds a few records per region.
pub const CATALOG_CACHE: usize = 4 * 1024 * 1024;

/// The default budget: an eighth of the memory this process may use (the cgroup limit when a
/// container sets one, else the machine's memory), between 64 MiB and 1 GiB.
pub fn default_budget() -> usize {
    let limit = memory_limit().unwrap_or(8 << 30);
    (limit / 8).clamp(64 << 20, 1 << 30) as usize
}

/// The container's memory limit (cgroup v2 `memory.max`, or v1 `memory.limit_in_bytes`) when
/// it is below the machine's memory, else the machine's memory (`/proc/meminfo`).
pub fn memory_limit() -> Option<u64> {
    let machine = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    let cgroup = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .filter_map(|p| std::fs::read_to_string(p).ok())
    .find_map(|v| v.trim().parse::<u64>().ok());
    match (cgroup, machine) {
        (Some(c), Some(m)) => Some(c.min(m)),
        (c, m) => c.or(m),
    }
}

/// One budget, shared by every region file of an engine.
#[derive(Debug)]
pub struct CacheBudget {
    total: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    bytes: usize,
    files: usize,
}

impl CacheBudget {
    pub fn new(total: usize) -> Arc<CacheBudget> {
        Arc::new(CacheBudget {
            total,
            held: Mutex::new(Held::default()),
        })
    }

    /// The budget in bytes.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Bytes given out to open region files, and how many files hold them.
    pub fn held(&self) -> (usize, usize) {
        let h = self.held.lock().unwrap_or_else(|p| p.into_inner());
        (h.bytes, h.files)
    }

    /// A share for one more region file: an equal part of the budget among the open files and
    /// this one (at least [`MIN_PARTS`] parts), no more than is left, no less than [`MIN_SHARE`].
    pub fn share(self: &Arc<Self>) -> CacheShare {
        let mut h = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let fair = self.total / (h.files + 1).max(MIN_PARTS);
        let left = self.total.saturating_sub(h.bytes);
        let bytes = fair.min(left).max(MIN_SHARE);
        h.bytes += bytes;
        h.files += 1;
        CacheShare {
            budget: self.clone(),
            bytes,
        }
    }
}

/// A region file's part of the budget, returned when the file closes (the share is dropped).
#[derive(Debug)]
pub struct CacheShare {
    budget: Arc<CacheBudget>,
    bytes: usize,
}

impl CacheShare {
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for CacheShare {
    fn drop(&mut self) {
        let mut h = self.budget.held.lock().unwrap_or_else(|p| p.into_inner());
        h.bytes = h.bytes.saturating_sub(self.bytes);
        h.files = h.files.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_stay_within_the_budget_and_come_back() {
        let b = CacheBudget::new(64 << 20);
        let first: Vec<_> = (0..MIN_PARTS).map(|_| b.share()).collect();
        assert!(first.iter().all(|s| s.bytes() == 4 << 20));
        // The budget is spent: one more file gets the floor until shares come back.
        let late = b.share();
        assert_eq!(late.bytes(), MIN_SHARE);
        drop(first);
        let again = b.share();
        assert_eq!(again.bytes(), (64 << 20) / MIN_PARTS);
        let many: Vec<_> = (0..1000).map(|_| b.share()).collect();
        let (held, files) = b.held();
        assert_eq!(files, 1002);
        assert!(held <= (64 << 20) + 1002 * MIN_SHARE, "{held}");
        drop(many);
        drop(late);
        drop(again);
        assert_eq!(b.held(), (0, 0));
    }

    #[test]
    fn the_default_budget_is_a_fraction_of_memory() {
        let d = default_budget();
        assert!((64 << 20..=1 << 30).contains(&d), "{d}");
        assert!(memory_limit().is_some());
    }
}
