//! The keys written to a region while a rewrite (split or major compaction) copies it, and the
//! bound on them. The rewrite replays these keys into the new files, so they are held in memory
//! until replayed; writers that outpace the rewrite would otherwise grow them with the write
//! rate (tens of millions of keys while a multi-GB region split under a bulk load). At the
//! bound, writers wait for the rewrite to replay some, as HBase holds updates to a region whose
//! memstore is over its blocking size; after [`RecordLimits::busy_wait`] a write is refused
//! with a retryable error rather than wait on.
//!
//! The same gate holds writers to a region that has grown past its blocking size
//! ([`RecordLimits::block_size`], a multiple of the split size) while a rewrite runs: a load
//! that writes faster than a split copies would otherwise grow the region without limit (all of
//! a sequential load goes to the last region). They wait until the rewrite ends, up to
//! [`RecordLimits::size_wait`], as HBase's gateways keep retrying a region that answers
//! RegionTooBusyException.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::model::region_info::RegionStats;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A (family, key) pair written to the region during a rewrite.
pub(in crate::engine) type RecordedKey = (Vec<u8>, Vec<u8>);

/// The bound on recorded keys and how long a writer waits at it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordLimits {
    /// Keys a rewrite may hold (recorded plus taken but not yet replayable), per region.
    pub max_keys: usize,
    pub busy_wait: Duration,
    /// Stored bytes past which writers wait while the region is rewritten (0: no such hold).
    pub block_size: u64,
    /// How long a writer waits at the blocking size before its write is refused (retryable).
    pub size_wait: Duration,
}

/// Engine-wide counts of writers held back at the bound, for the metrics.
#[derive(Debug, Default)]
pub struct RecordStats {
    /// Writes that waited for room.
    pub waits: AtomicU64,
    /// Nanoseconds writes spent waiting.
    pub wait_nanos: AtomicU64,
    /// Writes refused after waiting [`RecordLimits::busy_wait`].
    pub refused: AtomicU64,
    /// Writes held because their region was over its blocking size while rewritten.
    pub size_waits: AtomicU64,
    pub size_wait_nanos: AtomicU64,
    /// Writes refused after waiting [`RecordLimits::size_wait`] at the blocking size.
    pub size_refused: AtomicU64,
}

#[derive(Default)]
struct State {
    /// None when no rewrite is recording.
    keys: Option<Vec<RecordedKey>>,
    /// Keys the rewrite took but cannot replay yet (its copy has still to pass them).
    backlog: usize,
}

impl State {
    fn held(&self) -> usize {
        self.keys.as_ref().map_or(0, Vec::len) + self.backlog
    }
}

/// One region's record.
pub(crate) struct Recorder {
    state: Mutex<State>,
    room: Condvar,
    limits: RecordLimits,
    stats: Arc<RecordStats>,
    /// The region's stored bytes, for the blocking size.
    region: Arc<RegionStats>,
}

/// Refused at a bound: the region's rewrite did not make room, or did not end, within the wait.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Busy {
    /// The record held `held` keys of `max`.
    Keys {
        held: usize,
        max: usize,
        waited: Duration,
    },
    /// The region held `size` bytes, over its blocking size `limit`, all through the wait.
    Size {
        size: u64,
        limit: u64,
        waited: Duration,
    },
}

/// Why a writer would wait now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hold {
    Keys,
    Size,
}

impl Recorder {
    pub fn new(
        limits: RecordLimits,
        stats: Arc<RecordStats>,
        region: Arc<RegionStats>,
    ) -> Recorder {
        Recorder {
            state: Mutex::new(State::default()),
            room: Condvar::new(),
            limits,
            stats,
            region,
        }
    }

    fn size(&self) -> u64 {
        self.region.size.load(Ordering::Relaxed)
    }

    /// What a writer arriving now would wait for, if anything. The size hold applies only
    /// while a rewrite runs: that is what makes the region smaller again.
    fn hold(&self, s: &State) -> Option<Hold> {
        if s.keys.is_some() && self.limits.block_size > 0 && self.size() > self.limits.block_size {
            Some(Hold::Size)
        } else if s.held() >= self.limits.max_keys {
            Some(Hold::Keys)
        } else {
            None
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts recording (a rewrite's snapshot is taken at the same moment).
    pub fn start(&self) {
        let mut s = self.lock();
        s.keys = Some(Vec::new());
        s.backlog = 0;
    }

    /// Stops recording and lets every held writer go.
    pub fn stop(&self) {
        let mut s = self.lock();
        s.keys = None;
        s.backlog = 0;
        self.room.notify_all();
    }

    pub fn is_recording(&self) -> bool {
        self.lock().keys.is_some()
    }

    /// Adds a commit's keys (after the commit, so a snapshot begun later sees them).
    pub fn append(&self, keys: &mut Vec<RecordedKey>) {
        if let Some(rec) = self.lock().keys.as_mut() {
            rec.append(keys);
        }
    }

    /// The keys recorded so far, leaving an empty record for the writes still to come. They
    /// count as backlog until the rewrite says how many it still holds ([`Self::set_backlog`]),
    /// so no writer is let in on room that is not there yet.
    pub fn take(&self) -> Vec<RecordedKey> {
        let mut s = self.lock();
        let taken = s.keys.as_mut().map(std::mem::take).unwrap_or_default();
        s.backlog += taken.len();
        taken
    }

    /// How many keys the rewrite holds that it has not replayed yet.
    pub fn set_backlog(&self, n: usize) {
        let mut s = self.lock();
        s.backlog = n;
        if s.held() < self.limits.max_keys {
            self.room.notify_all();
        }
    }

    /// Keys held now (recorded and backlog).
    pub fn held(&self) -> usize {
        self.lock().held()
    }

    /// Whether the record (not counting the backlog) holds a quarter of the bound: a copy
    /// then commits early to drain it before writers have to wait.
    pub fn filling(&self) -> bool {
        self.lock().keys.as_ref().map_or(0, Vec::len) >= self.limits.max_keys / 4
    }

    /// Whether a writer would be admitted now without waiting.
    pub fn has_room(&self) -> bool {
        self.hold(&self.lock()).is_none()
    }

    /// Waits until the region admits a writer: the record has room and the region is not over
    /// its blocking size while rewritten, up to the wait of the first hold met.
    pub fn admit(&self) -> Result<(), Busy> {
        let s = self.lock();
        let Some(first) = self.hold(&s) else {
            return Ok(());
        };
        let began = Instant::now();
        let (waits, nanos, wait) = match first {
            Hold::Keys => (
                &self.stats.waits,
                &self.stats.wait_nanos,
                self.limits.busy_wait,
            ),
            Hold::Size => (
                &self.stats.size_waits,
                &self.stats.size_wait_nanos,
                self.limits.size_wait,
            ),
        };
        waits.fetch_add(1, Ordering::Relaxed);
        let (s, _) = self
            .room
            .wait_timeout_while(s, wait, |s| self.hold(s).is_some())
            .unwrap_or_else(|p| p.into_inner());
        let waited = began.elapsed();
        nanos.fetch_add(waited.as_nanos() as u64, Ordering::Relaxed);
        match self.hold(&s) {
            None => Ok(()),
            Some(Hold::Keys) => {
                self.stats.refused.fetch_add(1, Ordering::Relaxed);
                Err(Busy::Keys {
                    held: s.held(),
                    max: self.limits.max_keys,
                    waited,
                })
            }
            Some(Hold::Size) => {
                self.stats.size_refused.fetch_add(1, Ordering::Relaxed);
                Err(Busy::Size {
                    size: self.size(),
                    limit: self.limits.block_size,
                    waited,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorder(max_keys: usize, busy_wait: Duration) -> Arc<Recorder> {
        Arc::new(Recorder::new(
            RecordLimits {
                max_keys,
                busy_wait,
                block_size: 0,
                size_wait: Duration::ZERO,
            },
            Arc::default(),
            Arc::default(),
        ))
    }

    /// A recorder whose region holds `size` bytes, blocking over `block_size`.
    fn sized(size: u64, block_size: u64, size_wait: Duration) -> Arc<Recorder> {
        let region = Arc::new(RegionStats::default());
        region.size.store(size, Ordering::Relaxed);
        Arc::new(Recorder::new(
            RecordLimits {
                max_keys: 1000,
                busy_wait: Duration::from_secs(10),
                block_size,
                size_wait,
            },
            Arc::default(),
            region,
        ))
    }

    fn keys(n: usize) -> Vec<RecordedKey> {
        (0..n).map(|i| (b"f".to_vec(), vec![i as u8])).collect()
    }

    #[test]
    fn writers_wait_at_the_bound_until_keys_are_taken() {
        let r = recorder(4, Duration::from_secs(10));
        assert!(r.admit().is_ok(), "not recording: no bound");
        r.start();
        r.append(&mut keys(4));
        assert_eq!(r.held(), 4);
        let waiter = {
            let r = r.clone();
            std::thread::spawn(move || r.admit())
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "a writer at the bound waits");
        assert_eq!(r.take().len(), 4);
        assert_eq!(r.held(), 4, "taken keys are held until replayed");
        std::thread::sleep(Duration::from_millis(20));
        assert!(!waiter.is_finished());
        r.set_backlog(1);
        assert!(waiter.join().unwrap().is_ok());
        assert_eq!(r.stats.waits.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn the_backlog_counts_and_stopping_lets_writers_go() {
        let r = recorder(4, Duration::from_secs(10));
        r.start();
        r.set_backlog(4);
        let waiter = {
            let r = r.clone();
            std::thread::spawn(move || r.admit())
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished());
        r.stop();
        assert!(waiter.join().unwrap().is_ok());
        assert!(!r.is_recording());
    }

    #[test]
    fn a_writer_is_refused_after_the_busy_wait() {
        let r = recorder(2, Duration::from_millis(20));
        r.start();
        r.append(&mut keys(3));
        let Busy::Keys { held, max, waited } = r.admit().unwrap_err() else {
            panic!("refused for its keys")
        };
        assert_eq!((held, max), (3, 2));
        assert!(waited >= Duration::from_millis(20));
        assert_eq!(r.stats.refused.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_region_over_its_blocking_size_holds_writers_only_while_rewritten() {
        let r = sized(5_000, 4_000, Duration::from_secs(10));
        assert!(r.admit().is_ok(), "no rewrite: a large region takes writes");
        r.start();
        assert!(!r.has_room());
        let waiter = {
            let r = r.clone();
            std::thread::spawn(move || r.admit())
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !waiter.is_finished(),
            "over the blocking size while rewritten: held"
        );
        r.stop();
        assert!(waiter.join().unwrap().is_ok(), "the rewrite ended: let go");
        assert_eq!(r.stats.size_waits.load(Ordering::Relaxed), 1);
        assert_eq!(r.stats.waits.load(Ordering::Relaxed), 0);

        let small = sized(3_000, 4_000, Duration::from_secs(10));
        small.start();
        assert!(small.admit().is_ok(), "under the blocking size: no hold");
        let off = sized(5_000, 0, Duration::from_secs(10));
        off.start();
        assert!(off.admit().is_ok(), "block_size 0: no hold");
    }

    #[test]
    fn a_writer_held_at_the_blocking_size_is_refused_after_its_wait() {
        let r = sized(5_000, 4_000, Duration::from_millis(20));
        r.start();
        let Busy::Size {
            size,
            limit,
            waited,
        } = r.admit().unwrap_err()
        else {
            panic!("refused for the region's size")
        };
        assert_eq!((size, limit), (5_000, 4_000));
        assert!(waited >= Duration::from_millis(20));
        assert_eq!(r.stats.size_refused.load(Ordering::Relaxed), 1);
        assert_eq!(r.stats.refused.load(Ordering::Relaxed), 0);
    }
}
