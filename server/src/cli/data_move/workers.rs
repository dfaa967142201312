//! A fixed number of threads taking jobs (copy's and verification's regions) from one queue,
//! each with state of its own (its Thrift2 connections). The first error stops the others
//! at their next check of `stopped` and is the one reported.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Set by the first failing job; long jobs check it and give up early.
#[derive(Default)]
pub struct Stop(AtomicBool);

impl Stop {
    pub fn stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Runs `work` on every job with at most `threads` at once; results come back in job order.
pub fn run<J, S, R>(
    jobs: Vec<J>,
    threads: usize,
    stop: &Stop,
    init: impl Fn() -> Result<S, String> + Sync,
    work: impl Fn(&mut S, J) -> Result<R, String> + Sync,
    finish: impl Fn(S) -> Result<(), String> + Sync,
) -> Result<Vec<R>, String>
where
    J: Send,
    R: Send,
{
    let count = jobs.len();
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<Vec<_>>().into_iter());
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..count).map(|_| None).collect());
    let first_error: Mutex<Option<String>> = Mutex::new(None);
    let fail = |e: String| {
        let mut slot = first_error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        stop.0.store(true, Ordering::Relaxed);
    };
    let next = || queue.lock().unwrap_or_else(|p| p.into_inner()).next();
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, count.max(1)) {
            s.spawn(|| {
                let mut state = match init() {
                    Ok(st) => st,
                    Err(e) => return fail(e),
                };
                while !stop.stopped() {
                    let Some((i, job)) = next() else { break };
                    match work(&mut state, job) {
                        Ok(r) => results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r),
                        Err(e) => fail(e),
                    }
                }
                if let Err(e) = finish(state) {
                    fail(e);
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.ok_or_else(|| "a job was not run".to_string()))
        .collect()
}
