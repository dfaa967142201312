//! The committer threads all regions of an engine share.
//!
//! A region used to own two OS threads (a committer and a replier), so a table pre-split into
//! thousands of regions could exhaust the process's threads. Now a region owns a queue, and a
//! region with queued writes is a job for this pool: a worker takes everything the region has
//! queued (up to one batch), commits it in one write transaction, and hands the region back to
//! the pool if more came meanwhile. Writers that arrive while a batch commits still share the
//! next commit (group commit), and a region is never committed by two workers at once.
//!
//! Workers are started on demand up to a fixed count and end after a short idle time, so an
//! idle engine (or one dropped without `close`) holds no threads.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Something with queued work: one call runs one batch.
pub(crate) trait Job: Send + Sync + 'static {
    fn run_batch(self: Arc<Self>, pool: &CommitPool);
}

/// How long an idle worker waits for work before it ends.
const IDLE: Duration = Duration::from_secs(2);

/// A cheap handle to an engine's pool.
#[derive(Clone)]
pub(crate) struct CommitPool {
    shared: Arc<Shared>,
}

struct Shared {
    /// What its threads are called.
    name: &'static str,
    max_threads: usize,
    queue: Mutex<Queue>,
    ready: Condvar,
    /// Workers alive now (a metric; the queue's own count decides spawning).
    live: AtomicUsize,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Arc<dyn Job>>,
    threads: usize,
    idle: usize,
}

impl std::fmt::Debug for CommitPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommitPool")
            .field("max_threads", &self.shared.max_threads)
            .field("threads", &self.threads())
            .finish()
    }
}

impl CommitPool {
    pub fn new(max_threads: usize) -> CommitPool {
        CommitPool::named("committer", max_threads)
    }

    /// A pool whose threads are called `name`.
    pub fn named(name: &'static str, max_threads: usize) -> CommitPool {
        CommitPool {
            shared: Arc::new(Shared {
                name,
                max_threads: max_threads.max(1),
                queue: Mutex::new(Queue::default()),
                ready: Condvar::new(),
                live: AtomicUsize::new(0),
            }),
        }
    }

    /// Worker threads alive now.
    pub fn threads(&self) -> usize {
        self.shared.live.load(Ordering::Relaxed)
    }

    pub fn max_threads(&self) -> usize {
        self.shared.max_threads
    }

    /// Jobs waiting for a worker now.
    pub fn queued(&self) -> usize {
        self.shared
            .queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .jobs
            .len()
    }

    /// Queues `job` to run on a worker. When no worker exists and none can be started (the
    /// process is out of threads), the job runs here, on the caller's thread: slower, never
    /// stuck.
    pub fn schedule(&self, job: Arc<dyn Job>) {
        let mut q = self.shared.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.jobs.push_back(job);
        if q.idle > 0 {
            drop(q);
            self.shared.ready.notify_one();
            return;
        }
        if q.threads < self.shared.max_threads {
            q.threads += 1;
            let shared = self.shared.clone();
            let spawned = std::thread::Builder::new()
                .name(self.shared.name.into())
                .spawn(move || worker(shared));
            if let Err(e) = spawned {
                q.threads -= 1;
                if q.threads == 0 {
                    tracing::warn!(error = %e, "cannot start a committer thread; committing on the writer's thread");
                    let job = q.jobs.pop_back().expect("just queued");
                    drop(q);
                    job.run_batch(self);
                }
            }
        }
    }
}

fn worker(shared: Arc<Shared>) {
    shared.live.fetch_add(1, Ordering::Relaxed);
    let pool = CommitPool {
        shared: shared.clone(),
    };
    let mut q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if let Some(job) = q.jobs.pop_front() {
            drop(q);
            job.run_batch(&pool);
            q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
            continue;
        }
        q.idle += 1;
        let (guard, timeout) = shared
            .ready
            .wait_timeout(q, IDLE)
            .unwrap_or_else(|p| p.into_inner());
        q = guard;
        q.idle -= 1;
        if timeout.timed_out() && q.jobs.is_empty() {
            q.threads -= 1;
            break;
        }
    }
    drop(q);
    shared.live.fetch_sub(1, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    struct Count(AtomicU64);

    impl Job for Count {
        fn run_batch(self: Arc<Self>, _pool: &CommitPool) {
            std::thread::sleep(Duration::from_millis(1));
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn thousands_of_jobs_never_use_more_than_the_cap() {
        let pool = CommitPool::new(3);
        let jobs: Vec<Arc<Count>> = (0..2000)
            .map(|_| Arc::new(Count(AtomicU64::new(0))))
            .collect();
        for j in &jobs {
            pool.schedule(j.clone());
            assert!(pool.threads() <= 3);
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while jobs.iter().any(|j| j.0.load(Ordering::Relaxed) == 0) {
            assert!(std::time::Instant::now() < deadline, "jobs did not finish");
            assert!(pool.threads() <= 3);
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
