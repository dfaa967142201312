//! One measuring phase: N client threads (one connection each), one workload, one server, for
//! a set time; the phase's counts, latencies and CPU time.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::cli::Workload;
use crate::cpu::{CpuSnap, CLIENT_THREAD};
use crate::spec::Spec;
use crate::stats::{record, Sample};

/// One client thread's results.
struct WorkerOut {
    /// Its operations, errors and latencies (no wall or CPU time).
    sample: Sample,
    /// When its last successful operation ended.
    last_end: Option<Instant>,
}

/// Runs `conns` clients of `workload` against `addr` for `dur`. The wall time runs from the
/// start to the end of the last successful operation; the CPU time is read while every client
/// thread is still alive. `seed` seeds each client's generator (each its own).
pub fn run_phase(
    addr: SocketAddr,
    spec: &Arc<Spec>,
    workload: Workload,
    conns: usize,
    dur: Duration,
    seed: u64,
) -> Sample {
    let ready = Arc::new(Barrier::new(conns + 1));
    let finished = Arc::new(Barrier::new(conns + 1));
    let release = Arc::new(Barrier::new(conns + 1));
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::with_capacity(conns);
    for w in 0..conns {
        let (spec, ready, finished, release, stop) = (
            spec.clone(),
            ready.clone(),
            finished.clone(),
            release.clone(),
            stop.clone(),
        );
        let mut rng =
            SmallRng::seed_from_u64(seed ^ (w as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F));
        let h = thread::Builder::new()
            .name(format!("{CLIENT_THREAD}-{w}"))
            .spawn(move || {
                let client = spec.session(addr);
                ready.wait();
                let mut out = WorkerOut {
                    sample: Sample::default(),
                    last_end: None,
                };
                match client {
                    Err(e) => {
                        out.sample.errors = 1;
                        out.sample.first_error = Some(e);
                    }
                    Ok(mut c) => {
                        while !stop.load(Ordering::Relaxed) {
                            let kind = spec.pick(workload, &mut rng);
                            let t = Instant::now();
                            let r = spec.op(&mut c, kind, &mut rng);
                            let end = Instant::now();
                            match r {
                                Ok(()) => {
                                    out.sample.ops += 1;
                                    record(&mut out.sample.latency, end - t);
                                    out.last_end = Some(end);
                                }
                                Err(e) => {
                                    out.sample.errors += 1;
                                    out.sample.first_error = Some(e);
                                    break;
                                }
                            }
                        }
                    }
                }
                // Stay alive until the main thread has read this thread's CPU time.
                finished.wait();
                release.wait();
                out
            })
            .expect("spawn a client thread");
        workers.push(h);
    }
    ready.wait();
    let cpu0 = CpuSnap::now(&spec.server_pids);
    let t0 = Instant::now();
    thread::sleep(dur);
    stop.store(true, Ordering::Relaxed);
    finished.wait();
    let cpu = CpuSnap::now(&spec.server_pids).since(&cpu0);
    release.wait();
    let mut s = Sample {
        cpu,
        ..Sample::default()
    };
    let mut last = t0;
    for h in workers {
        let o = h.join().expect("client thread panicked");
        if let Some(e) = o.last_end {
            last = last.max(e);
        }
        s.add(o.sample);
    }
    s.wall = last - t0;
    s
}
