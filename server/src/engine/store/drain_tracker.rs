//! The bookkeeping of a region's background drains: whether one is queued, and how many are
//! queued or running, so the region's close can wait for them. Its own module because both
//! the region file ([`super::recovery::RegionFile`], which holds it) and the drains
//! ([`super::background_drain`], which need the region file) use it.

use std::sync::atomic::AtomicBool;
use std::sync::{Condvar, Mutex};

/// A region's background drains: whether one is queued, and how many are queued or running.
#[derive(Default)]
pub(crate) struct DrainTracker {
    pub queued: AtomicBool,
    pub live: Mutex<usize>,
    pub idle: Condvar,
}

impl DrainTracker {
    /// A queued drain ran (or found its region gone).
    pub fn done(&self) {
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        *live -= 1;
        if *live == 0 {
            self.idle.notify_all();
        }
    }
}
