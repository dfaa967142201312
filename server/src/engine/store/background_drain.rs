//! Drains of a region's write buffer that do not hold its writers.
//!
//! A drain is a redb transaction of every buffered entry: at 4 MiB, tens of thousands of
//! random-key inserts, about 0.1 s. Run with the region's write gate held, every writer of the
//! region waited for it. A background drain takes the buffer's entries as they are (an O(1)
//! view), writes them into the file and commits, while writers go on logging batches and
//! adding them to the buffer; once the commit is done, the buffer lets go of the entries the
//! drain wrote that nobody replaced meanwhile ([`super::memtable::MemTable::forget`]).
//!
//! Nothing about reads or crashes changes: an entry stays in the buffer until the commit that
//! wrote it is done, the drain stamps the last batch its view held, and the redo log keeps
//! every batch until a durable commit covers it. The background flush holds writers only to
//! roll the redo log to its other file ([`super::redo::RedoLog::roll`]); its durable commit of
//! the buffer (and the sync of every page written since the last one) runs without the gate,
//! and then retires the file the roll left.
//!
//! Drains run on a small pool of their own threads ([`MAX_DRAIN_THREADS`]); a region has at
//! most one queued. A writer that finds the buffer past its hard bound (the background fell
//! behind) drains it itself, with the gate held: that is the bound on memory.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Instant;

use super::commit_pool::{CommitPool, Job};
use super::drain_tracker::DrainTracker;
use super::recovery::RegionFile;
use crate::engine::model::error::StorageError;

/// Threads the engine's background drains share.
pub(crate) const MAX_DRAIN_THREADS: usize = 2;
/// What those threads are called.
pub(crate) const DRAIN_THREAD: &str = "buffer-drain";

/// One queued background drain of one region.
struct DrainJob {
    file: Weak<RegionFile>,
    pending: Arc<DrainTracker>,
}

/// The niceness of the drain threads: the lowest. With a core to spare they drain as fast as
/// any thread; on a core that request threads keep busy they yield to them at once (measured
/// on one pinned core: at the default niceness a drain's time slices put 3-5 ms on the 99th
/// percentile of every put, against 0.5 ms). A drain that falls that far behind makes writers
/// drain at the hard bound themselves: fewer, larger drains, which also cost less per entry.
const DRAIN_NICENESS: i32 = 19;

thread_local! {
    static NICE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Lowers this thread's priority to [`DRAIN_NICENESS`], once per thread, on the pool's own
/// threads only (a pool that cannot start a thread runs the job on its caller's).
fn lower_priority() {
    if std::thread::current().name() != Some(DRAIN_THREAD) || NICE.with(|n| n.replace(true)) {
        return;
    }
    let me = rustix::thread::gettid();
    if let Err(e) = rustix::process::setpriority_process(Some(me), DRAIN_NICENESS) {
        tracing::debug!(error = %e, "cannot lower the priority of a write buffer drain thread");
    }
}

impl Job for DrainJob {
    fn run_batch(self: Arc<Self>, _pool: &CommitPool) {
        lower_priority();
        if let Some(file) = self.file.upgrade() {
            let drained = file.drain_in_background(false);
            // From here on a writer past the soft bound queues the next drain. Not before the
            // drain ends: until then the buffer still counts the entries it is writing, and a
            // second drain queued meanwhile would only take the few added since.
            self.pending.queued.store(false, Ordering::Release);
            if let Err(e) = drained {
                // The region is marked failed (when redb latched the error); its log keeps
                // every batch, and its writers hear at their next batch.
                tracing::warn!(file = %e.file.display(), error = %e.message, "background drain of the write buffer failed");
            }
            // The region's file must be free once its close has seen no drain live.
            drop(file);
        }
        self.pending.done();
    }
}

impl RegionFile {
    /// Queues a background drain of the buffer, unless one is queued already.
    pub fn schedule_drain(&self) {
        if self.pending.queued.swap(true, Ordering::AcqRel) {
            return;
        }
        *self.pending.live.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.drainer.schedule(Arc::new(DrainJob {
            file: self.me(),
            pending: self.pending.clone(),
        }));
    }

    /// Waits until no background drain of this region is queued or running (the region
    /// closes; its writers were stopped first, so none is queued after).
    pub fn wait_background(&self) {
        let mut live = self.pending.live.lock().unwrap_or_else(|p| p.into_inner());
        while *live > 0 {
            live = self
                .pending
                .idle
                .wait(live)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    /// A flush ([`RegionFile::flush`]) that holds the region's writers only to roll its redo
    /// log: with the gate held, records start going to the log's other file; then, without
    /// it, a durable commit of the buffer (and the sync of every page written since the last
    /// one) makes the region file hold every record the file left holds, and that file is
    /// retired. A log that cannot roll (nothing in it, or the last roll is not retired after a
    /// failure) is flushed the old way: most of it without the gate, the rest with it.
    pub fn flush_with_short_hold(&self) -> Result<(), StorageError> {
        let rolled = {
            let _gate = self.gate.lock().unwrap_or_else(|p| p.into_inner());
            self.redo.roll()
        };
        if let Some(roll) = rolled {
            let _background = self.background.lock().unwrap_or_else(|p| p.into_inner());
            if !self.serving() {
                // Down: the log keeps both files' records for the reopen.
                return Err(self.unavailable());
            }
            let began = Instant::now();
            let drained = self.commit(true)?;
            self.redo.retire(roll);
            if drained {
                self.count_background(began);
            }
            return Ok(());
        }
        self.drain_in_background(true)?;
        let gate = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        self.flush(&gate)
    }

    /// Moves the buffer into the file without holding the region's writers; a durable one
    /// also makes every earlier commit of the file durable (and runs even with the buffer
    /// empty). The redo log is left alone: batches logged meanwhile are not in this commit.
    pub fn drain_in_background(&self, durable: bool) -> Result<(), StorageError> {
        let _background = self.background.lock().unwrap_or_else(|p| p.into_inner());
        if !self.serving() || (!durable && self.mem.bytes() == 0) {
            return Ok(());
        }
        let began = Instant::now();
        if self.commit(durable)? {
            self.count_background(began);
        }
        Ok(())
    }

    /// A background drain that moved entries, begun at `began`.
    fn count_background(&self, began: Instant) {
        let buffers = &self.health().buffers;
        buffers
            .background_seconds
            .observe(began.elapsed().as_secs_f64());
        buffers.background_drains.fetch_add(1, Ordering::Relaxed);
    }
}
