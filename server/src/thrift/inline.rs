//! Short reads answered on the connection's own task. Handing a call to the blocking pool and
//! its reply back costs two thread wake-ups; for a get that is most of the call (a profile of
//! gets at 16 connections spent about half its samples switching threads). A call the service
//! calls short (a point read: bounded work, no fsync) runs inline while fewer than `cap` such
//! calls are running, so at least one runtime worker stays free for the other connections'
//! I/O; anything else, and any call over the cap, goes to the blocking pool as before.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// The server-wide count of inline calls and its cap; clones share them.
#[derive(Debug, Clone)]
pub struct InlineCalls {
    running: Arc<AtomicUsize>,
    done: Arc<AtomicU64>,
    cap: usize,
}

impl Default for InlineCalls {
    /// One fewer than the machine's cores (the runtime's worker count), at least one.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        InlineCalls::new(cores.saturating_sub(1).max(1))
    }
}

/// Held while an inline call runs.
pub struct InlineCall(Arc<AtomicUsize>);

impl Drop for InlineCall {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl InlineCalls {
    /// `cap` 0 turns inline calls off.
    pub fn new(cap: usize) -> InlineCalls {
        InlineCalls {
            running: Arc::default(),
            done: Arc::default(),
            cap,
        }
    }

    /// A place for one inline call, if fewer than the cap are running.
    pub fn try_start(&self) -> Option<InlineCall> {
        self.running
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.cap).then_some(n + 1)
            })
            .ok()?;
        self.done.fetch_add(1, Ordering::Relaxed);
        Some(InlineCall(self.running.clone()))
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Calls run inline since the server started.
    pub fn count(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_more_than_the_cap_run_at_once() {
        let calls = InlineCalls::new(2);
        let a = calls.try_start().unwrap();
        let _b = calls.try_start().unwrap();
        assert!(calls.try_start().is_none());
        drop(a);
        assert!(calls.try_start().is_some());
        assert_eq!(calls.count(), 3);
        assert!(InlineCalls::new(0).try_start().is_none());
    }
}
