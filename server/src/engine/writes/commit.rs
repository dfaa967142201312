//! A region's group commit: writers queue [`Request`]s, the engine's shared committer threads
//! ([`crate::engine::store::commit_pool`]) take up to [`MAX_BATCH`] of them at a time and apply each batch in
//! one write transaction and one commit, then answer every writer of the batch.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tokio::sync::oneshot;

use super::appends::AppendTrack;
use super::recorder::Recorder;
use super::write::{self, Job, Output};
use crate::engine::model::error::{MutateError, StorageError};
use crate::engine::model::region_info::{resized, RegionMeta, RegionStats};
use crate::engine::model::schema::TableDescriptor;
use crate::engine::store::commit_pool::{self, CommitPool};
use crate::engine::store::memtable::Pressure;
use crate::engine::store::recovery::RegionFile;
use crate::engine::store::redo::{self, Change};
use crate::engine::store::redo_replay;
use crate::engine::store::snapshot::Snapshots;

/// Called after each successful commit with the region's size and whether its writes append at
/// its end; the engine counts commits and triggers splits with it.
pub(crate) type OnLarge = Arc<dyn Fn(&RegionMeta, u64, bool) + Send + Sync>;

/// The (family, key) pairs written while a rewrite copies the region.
pub(crate) type Recording = Arc<Recorder>;

/// A message to the committer.
pub(crate) struct Request {
    pub table: Arc<TableDescriptor>,
    pub job: Job,
    pub durable: bool,
    pub reply: ReplyTo,
}

/// What a job's commit outcome goes to.
pub(crate) enum ReplyTo {
    /// A thread blocked in [`Ticket::wait`].
    Thread(Sender<Result<Output, write::Fail>>),
    /// A task awaiting it ([`crate::engine::data::operations::PendingWrite`]): no thread waits for the commit.
    Task(oneshot::Sender<Result<Output, write::Fail>>),
}

impl ReplyTo {
    fn send(self, outcome: Result<Output, write::Fail>) {
        // A writer that stopped waiting (its connection closed) needs no answer.
        let _ = match self {
            ReplyTo::Thread(tx) => tx.send(outcome).is_ok(),
            ReplyTo::Task(tx) => tx.send(outcome).is_ok(),
        };
    }
}

/// A job queued by [`Committer::enqueue_for_task`]: a future of its commit's outcome (an
/// error when the committer went away without answering).
pub(crate) type TaskTicket = oneshot::Receiver<Result<Output, write::Fail>>;

/// A job queued by [`Committer::enqueue`]; [`Ticket::wait`] returns once its commit is done.
pub(crate) struct Ticket(mpsc::Receiver<Result<Output, write::Fail>>);

impl Ticket {
    pub fn wait(self) -> Result<Output, write::Fail> {
        // A committer that went away without answering dropped the job with its region.
        self.0.recv().unwrap_or(Err(write::Fail::Retired))
    }
}

/// Applies batches of jobs, one write transaction and one commit per batch. Shares its parts
/// with the [`Region`](crate::engine::regions::region::Region) that owns it.
pub(crate) struct Committer {
    pub path: PathBuf,
    pub snapshots: Arc<Snapshots>,
    pub file: Arc<RegionFile>,
    pub stats: Arc<RegionStats>,
    pub gate: Arc<Mutex<()>>,
    pub retired: Arc<AtomicBool>,
    pub recording: Recording,
    pub meta: RegionMeta,
    pub on_large: OnLarge,
    /// Whether the region's writes append at its end (a tail split then needs no copy).
    pub appends: Arc<Mutex<AppendTrack>>,
    /// Kept apart from the committer, so a worker can say it is done after it has dropped its
    /// hold on the committer (and with it the region's file).
    pub queue: Arc<QueueShared>,
}

/// A region's write queue and the signal that it has gone quiet.
#[derive(Default)]
pub(crate) struct QueueShared {
    queue: Mutex<Queued>,
    /// Signalled when the region has nothing queued, committing or being released (`close`).
    idle: Condvar,
}

/// A region's writes waiting for a commit.
#[derive(Default)]
struct Queued {
    requests: Vec<Request>,
    /// The region is in the pool's queue or a worker is committing it.
    scheduled: bool,
    /// Workers past their commit that still hold the region (sending replies).
    releasing: usize,
    closed: bool,
}

type Reply = (ReplyTo, Result<Output, write::Fail>);

/// How many jobs one commit may carry.
const MAX_BATCH: usize = 1024;

impl commit_pool::Job for Committer {
    fn run_batch(self: Arc<Self>, pool: &CommitPool) {
        let batch: Vec<Request> = {
            let mut q = self.lock_queue();
            let n = q.requests.len().min(MAX_BATCH);
            q.requests.drain(..n).collect()
        };
        self.commit_batch(pool, batch);
    }
}

impl Committer {
    /// Commits `batch` (taken from the queue, which this caller now holds), answers its
    /// writers, and hands the region back (to the pool, if more was queued meanwhile).
    fn commit_batch(self: Arc<Self>, pool: &CommitPool, batch: Vec<Request>) {
        let (replies, committed) = self.process(batch);
        // Hand the region back before waking the writers, so the next batch can start on
        // another worker while this one sends replies.
        let shared = self.queue.clone();
        {
            let mut q = self.lock_queue();
            q.releasing += 1;
            if q.requests.is_empty() {
                q.scheduled = false;
            } else {
                drop(q);
                pool.schedule(self.clone());
            }
        }
        for (to, o) in replies {
            to.send(o);
        }
        if let Some(size) = committed {
            let appending = self.appends_lock().appending();
            (self.on_large)(&self.meta, size, appending);
        }
        drop(self);
        let mut q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.releasing -= 1;
        if q.releasing == 0 && !q.scheduled {
            shared.idle.notify_all();
        }
    }

    fn appends_lock(&self) -> MutexGuard<'_, AppendTrack> {
        self.appends.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_queue(&self) -> std::sync::MutexGuard<'_, Queued> {
        self.queue.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a request for the region's next commit, scheduling the committer on `pool` when
    /// it is not already waiting there or running. With `lead`, a caller that finds no commit
    /// queued or running commits the batch on its own thread instead, since it would only wait
    /// for a worker: one thread hand-off fewer per write on a region without a queue. Writers
    /// arriving meanwhile queue for the next batch, which goes to the pool as before.
    pub fn enqueue(
        self: &Arc<Self>,
        pool: &CommitPool,
        table: Arc<TableDescriptor>,
        job: Job,
        durable: bool,
        lead: bool,
    ) -> Result<Ticket, write::Fail> {
        let (reply, rx) = mpsc::channel();
        self.push(pool, table, job, durable, lead, ReplyTo::Thread(reply))?;
        Ok(Ticket(rx))
    }

    /// Queues a request whose outcome goes to a task; never commits on the caller's thread:
    /// an async runtime's worker must not wait for a disk sync, and measured with 16 writers,
    /// non-durable commits led by the workers themselves came one write each instead of
    /// grouping (fewer writes per second, more CPU per write).
    pub fn enqueue_for_task(
        self: &Arc<Self>,
        pool: &CommitPool,
        table: Arc<TableDescriptor>,
        job: Job,
        durable: bool,
    ) -> Result<TaskTicket, write::Fail> {
        let (reply, rx) = oneshot::channel();
        self.push(pool, table, job, durable, false, ReplyTo::Task(reply))?;
        Ok(rx)
    }

    fn push(
        self: &Arc<Self>,
        pool: &CommitPool,
        table: Arc<TableDescriptor>,
        job: Job,
        durable: bool,
        lead: bool,
        reply: ReplyTo,
    ) -> Result<(), write::Fail> {
        let mut q = self.lock_queue();
        if q.closed {
            return Err(write::Fail::Retired);
        }
        q.requests.push(Request {
            table,
            job,
            durable,
            reply,
        });
        if !q.scheduled {
            q.scheduled = true;
            if lead {
                // The queue was empty: the leader's batch is its own request alone, taken
                // under the same lock, so a durable request queued meanwhile never rides on a
                // non-durable leader's commit.
                let own: Vec<Request> = q.requests.drain(..).collect();
                drop(q);
                self.clone().commit_batch(pool, own);
            } else {
                drop(q);
                pool.schedule(self.clone());
            }
        } else {
            drop(q);
        }
        Ok(())
    }

    /// Refuses new requests and waits until everything already queued has committed.
    pub fn close(&self) {
        let shared = &self.queue;
        let mut q = self.lock_queue();
        q.closed = true;
        // Until no worker holds the region any more: a worker still sending replies keeps the
        // region's file open, and a reopened engine must be able to open it again at once.
        while q.scheduled || q.releasing > 0 {
            q = shared.idle.wait(q).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Commits one batch; returns each job's reply and, after a successful commit, the
    /// region's size.
    fn process(&self, batch: Vec<Request>) -> (Vec<Reply>, Option<u64>) {
        if batch.is_empty() {
            return (Vec::new(), None);
        }
        let _gate = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        if self.retired.load(Ordering::Acquire) {
            let replies = batch
                .into_iter()
                .map(|r| (r.reply, Err(write::Fail::Retired)))
                .collect();
            return (replies, None);
        }
        // A job for rows outside this region raced a split: send it back to be routed.
        let (batch, stray): (Vec<Request>, Vec<Request>) = batch
            .into_iter()
            .partition(|r| r.job.rows().iter().all(|row| self.meta.contains(row)));
        let mut replies: Vec<Reply> = stray
            .into_iter()
            .map(|r| (r.reply, Err(write::Fail::Retired)))
            .collect();
        if batch.is_empty() {
            return (replies, None);
        }
        self.appends_lock()
            .note(batch.iter().flat_map(|r| r.job.rows()));
        // A region down after an I/O error reopens its file first (when an attempt is due);
        // until that works its writers hear why, at once.
        if let Err(e) = self.file.recover(&_gate) {
            replies.extend(batch.into_iter().map(|r| {
                (
                    r.reply,
                    Err(write::Fail::Error(MutateError::Storage(e.clone()))),
                )
            }));
            return (replies, None);
        }
        let committed = self.apply(batch, &mut replies, &_gate);
        (replies, committed)
    }

    /// Applies a batch and adds its replies to `replies`. Returns the region size after a
    /// successful commit, None when the commit failed (every job gets the error).
    fn apply(
        &self,
        batch: Vec<Request>,
        replies: &mut Vec<Reply>,
        gate: &MutexGuard<'_, ()>,
    ) -> Option<u64> {
        let durable = batch.iter().any(|r| r.durable);
        // Blind writes go to the write buffer, unless a rewrite is recording the region's
        // writes (it copies the file, so they must land there).
        let batch = if !self.recording.is_recording() && batch.iter().all(|r| r.job.is_blind()) {
            match self.buffer(batch, durable, replies, gate) {
                Ok(size) => return Some(size),
                Err(batch) => batch,
            }
        } else {
            batch
        };
        let result = (|| -> Result<(Vec<Result<Output, write::Fail>>, i64), StorageError> {
            // Every batch commits redb without a sync: the redo log carries its durability
            // (see `redo`), a durable batch by one fdatasync of the block it appended there
            // rather than redb's sync of every page the commit rewrote.
            let mut txn = self
                .file
                .db()?
                .begin_write()
                .map_err(|e| storage(&self.path, e))?;
            txn.set_durability(redb::Durability::None)
                .map_err(|e| storage(&self.path, e))?;
            // The write buffer first: the batch reads what was written before it.
            let drained = self.file.drain_into(&mut txn)?;
            let mut outputs = Vec::with_capacity(batch.len());
            let mut delta = 0i64;
            let mut recorded = Vec::new();
            let changes: Vec<Change>;
            let recording = self.recording.is_recording();
            {
                let mut ctx = write::Apply::new(&txn, &self.path, recording, true);
                for r in &batch {
                    outputs.push(ctx.run(&r.table, &r.job));
                }
                delta += ctx.size_delta;
                recorded.append(&mut ctx.recorded);
                changes = ctx.logged.take().unwrap_or_default();
                self.stats
                    .write_bytes
                    .fetch_add(ctx.bytes_written, Ordering::Relaxed);
                ctx.finish()?;
            }
            let seq = self.file.redo.next_seq();
            // The buffer's part is stamped in the file already: this stamp adds the batch's.
            let size = redo_replay::stamp(&mut txn, &self.path, delta, seq)?;
            // In the log before redb commits it: no reader sees a write a crash can take back.
            let logged = self.log(seq, size, &changes, durable);
            if logged == Logged::Failed {
                // Not in the log: only a durable commit of the file itself may make it visible
                // (a failed one shows it to nobody).
                txn.set_durability(redb::Durability::Immediate)
                    .map_err(|e| storage(&self.path, e))?;
            }
            if let Err(e) = txn.commit() {
                // Never acknowledged, so it must not come back from the log either.
                if let Logged::At { before, .. } = logged {
                    self.file.redo.cut(before);
                }
                return Err(storage(&self.path, e));
            }
            // Before any writer hears back: reads from now on must see this commit.
            self.file.drained(drained);
            self.snapshots.committed();
            if recording {
                self.recording.append(&mut recorded);
            }
            if logged == Logged::Failed {
                // That durable commit persisted every earlier commit too: the log's records
                // are obsolete.
                self.file.redo.durable();
            } else if matches!(logged, Logged::At { after, .. } if after >= redo::MAX_LOG_BYTES) {
                self.file.flush(gate)?;
            }
            Ok((outputs, delta))
        })();
        match result {
            Ok((outputs, delta)) => {
                let size = self.count(&batch, &outputs, delta);
                replies.extend(batch.into_iter().map(|r| r.reply).zip(outputs));
                Some(size)
            }
            Err(e) => {
                // An I/O error marks the region failed; every writer of the batch hears so.
                let e = self.file.classify(e);
                replies.extend(batch.into_iter().map(|r| {
                    (
                        r.reply,
                        Err(write::Fail::Error(MutateError::Storage(e.clone()))),
                    )
                }));
                None
            }
        }
    }
}

impl Committer {
    /// Logs a batch of blind jobs and puts its cells in the region's write buffer instead of
    /// committing it to the file. Returns the region's size, or the batch back when its log
    /// record could not be written (it then needs a durable commit of the file).
    fn buffer(
        &self,
        batch: Vec<Request>,
        durable: bool,
        replies: &mut Vec<Reply>,
        gate: &MutexGuard<'_, ()>,
    ) -> Result<u64, Vec<Request>> {
        let mut ctx = write::Apply::buffered();
        let outputs: Vec<Result<Output, write::Fail>> =
            batch.iter().map(|r| ctx.run(&r.table, &r.job)).collect();
        let changes = ctx.logged.take().unwrap_or_default();
        let delta = ctx.size_delta;
        let seq = self.file.redo.next_seq();
        let size = resized(self.stats.size.load(Ordering::Relaxed), delta);
        let logged = self.log(seq, size, &changes, durable);
        let Logged::At { after, .. } = logged else {
            return Err(batch);
        };
        self.file.mem.insert(changes, seq, delta);
        // Before any writer hears back: reads from now on must see this batch.
        self.snapshots.committed();
        self.stats
            .write_bytes
            .fetch_add(ctx.bytes_written, Ordering::Relaxed);
        let size = self.count(&batch, &outputs, delta);
        replies.extend(batch.into_iter().map(|r| r.reply).zip(outputs));
        // The batch is in the log and the buffer: a drain or flush that fails now takes the
        // region down (its writers hear at their next batch), and the log keeps the batch.
        let kept = if after >= redo::MAX_LOG_BYTES {
            self.file.flush(gate)
        } else {
            match self.file.mem.pressure() {
                // The background drains fell behind: this writer's batch waits for a drain.
                Pressure::Hard => self.file.drain(gate),
                Pressure::Soft => {
                    self.file.schedule_drain();
                    Ok(())
                }
                Pressure::Low => Ok(()),
            }
        };
        if let Err(e) = kept {
            tracing::warn!(region = %self.meta.name(), error = %e, "cannot move the write buffer into the region file");
        }
        Ok(size)
    }

    /// Counts a committed batch in the region's stats; returns the region's size.
    fn count(&self, batch: &[Request], outputs: &[Result<Output, write::Fail>], delta: i64) -> u64 {
        self.stats.commits.fetch_add(1, Ordering::Relaxed);
        // Rows, not jobs: a batch of rows sent in one call counts each row, as reads do.
        let n: u64 = batch
            .iter()
            .zip(outputs)
            .filter(|(_, o)| o.is_ok())
            .map(|(r, _)| r.job.rows().len() as u64)
            .sum();
        self.stats.writes.fetch_add(n, Ordering::Relaxed);
        self.stats.add_size(delta)
    }
}

/// Where a batch's redo record went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Logged {
    /// Written (and synced, for a durable batch); the log's length before and after it.
    At { before: u64, after: u64 },
    /// Could not be written or synced: the batch needs a durable commit of the file instead.
    Failed,
}

impl Committer {
    /// Puts a batch in the redo log before it is committed and acknowledged; a durable batch
    /// is synced there.
    fn log(&self, seq: u64, size: u64, changes: &[Change], durable: bool) -> Logged {
        let redo = &self.file.redo;
        let before = redo.len();
        let written = redo.append(seq, size, changes).and_then(|after| {
            if durable {
                redo.sync().map(|()| after)
            } else {
                Ok(after)
            }
        });
        match written {
            Ok(after) => Logged::At { before, after },
            Err(e) => {
                // A record that cannot be synced may not stay: a crash could replay it after the
                // durable commit that replaces it failed.
                redo.cut(before);
                tracing::warn!(region = %self.meta.name(), error = %e, "cannot write the redo log; committing durably instead");
                Logged::Failed
            }
        }
    }
}

fn storage(path: &Path, e: impl std::fmt::Display) -> StorageError {
    StorageError::new(path, e)
}
