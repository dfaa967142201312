//! The keys written to a region while a rewrite (split or major compaction) copies it, and the
//! bound on them. The rewrite replays these keys into the new files, so they are held in memory
//! until replayed; writers that outpace the rewrite would otherwise grow them with the write
//! rate (tens of millions of keys while a multi-GB region split under a bulk load). At the
//! bound, writers wait for the rewrite to replay some, as HBase holds updates to a region whose
//! memstore is over its blocking size; after [`RecordLimits::busy_wait`] a write is refused
//! with a retryable error rather than wait on.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A (family, key) pair written to the region during a rewrite.
pub(super) type RecordedKey = (Vec<u8>, Vec<u8>);

/// The bound on recorded keys and how long a writer waits at it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordLimits {
    /// Keys a rewrite may hold (recorded plus taken but not yet replayable), per region.
    pub max_keys: usize,
    pub busy_wait: Duration,
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
}

/// Refused at the bound: the region's rewrite did not make room within the wait.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Busy {
    pub held: usize,
    pub max: usize,
    pub waited: Duration,
}

impl Recorder {
    pub fn new(limits: RecordLimits, stats: Arc<RecordStats>) -> Recorder {
        Recorder {
            state: Mutex::new(State::default()),
            room: Condvar::new(),
            limits,
            stats,
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
        self.lock().held() < self.limits.max_keys
    }

    /// Waits until the record has room for a writer, up to the busy wait.
    pub fn admit(&self) -> Result<(), Busy> {
        let s = self.lock();
        if s.held() < self.limits.max_keys {
            return Ok(());
        }
        let began = Instant::now();
        self.stats.waits.fetch_add(1, Ordering::Relaxed);
        let (s, timeout) = self
            .room
            .wait_timeout_while(s, self.limits.busy_wait, |s| {
                s.held() >= self.limits.max_keys
            })
            .unwrap_or_else(|p| p.into_inner());
        let waited = began.elapsed();
        self.stats
            .wait_nanos
            .fetch_add(waited.as_nanos() as u64, Ordering::Relaxed);
        if timeout.timed_out() && s.held() >= self.limits.max_keys {
            self.stats.refused.fetch_add(1, Ordering::Relaxed);
            return Err(Busy {
                held: s.held(),
                max: self.limits.max_keys,
                waited,
            });
        }
        Ok(())
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
            },
            Arc::default(),
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
        let busy = r.admit().unwrap_err();
        assert_eq!((busy.held, busy.max), (3, 2));
        assert!(busy.waited >= Duration::from_millis(20));
        assert_eq!(r.stats.refused.load(Ordering::Relaxed), 1);
    }
}
