//! Running a property over generated cases: a deterministic seed (so CI runs the same cases
//! every time), `PROPTEST_CASES` to run more, `FUZZ_SEED` to run others, and a watchdog that
//! ends the process naming the input if one case runs longer than `FUZZ_CASE_TIMEOUT_SECS`
//! (default 60): a hang is a failure, never a stuck CI job.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Mutex, OnceLock};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

type Armed = HashMap<ThreadId, (Instant, &'static str, String)>;

fn armed() -> &'static Mutex<Armed> {
    static ARMED: OnceLock<Mutex<Armed>> = OnceLock::new();
    static WATCHDOG: OnceLock<()> = OnceLock::new();
    let armed = ARMED.get_or_init(|| Mutex::new(HashMap::new()));
    WATCHDOG.get_or_init(|| {
        let limit = Duration::from_secs(env_u64("FUZZ_CASE_TIMEOUT_SECS").unwrap_or(60));
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            let a = armed.lock().unwrap_or_else(|e| e.into_inner());
            for (started, target, input) in a.values() {
                if started.elapsed() > limit {
                    eprintln!(
                        "FUZZ HANG: {target}: one case ran for more than {limit:?}; input: {input}"
                    );
                    std::process::abort();
                }
            }
        });
    });
    armed
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// The number of cases: `PROPTEST_CASES` when set, else `default`.
pub fn cases(default: u32) -> u32 {
    env_u64("PROPTEST_CASES").map_or(default, |n| n as u32)
}

/// Runs `test` on `cases(default_cases)` values of `strategy` and fails with the (shrunk)
/// input that broke it.
pub fn check<S>(
    target: &'static str,
    default_cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S: Strategy,
    S::Value: Debug,
{
    let n = cases(default_cases);
    let config = Config {
        cases: n,
        failure_persistence: None,
        max_shrink_time: 60_000,
        max_shrink_iters: 4_096,
        ..Config::default()
    };
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&env_u64("FUZZ_SEED").unwrap_or(0).to_le_bytes());
    seed[8..8 + target.len().min(24)].copy_from_slice(&target.as_bytes()[..target.len().min(24)]);
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let map = armed();
    let started = Instant::now();
    let result = runner.run(&strategy, |value| {
        let id = std::thread::current().id();
        let input = format!("{value:?}");
        map.lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, (Instant::now(), target, input));
        let r = test(value);
        map.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
        r
    });
    match result {
        Ok(()) => eprintln!("{target}: {n} cases in {:.1?}", started.elapsed()),
        Err(e) => panic!("{target}: {e}"),
    }
}

/// Names the bytes the current case is about to send, for the watchdog's report.
pub fn note(what: &str, bytes: &[u8]) {
    let id = std::thread::current().id();
    if let Some(e) = armed()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_mut(&id)
    {
        e.2 = format!("{what} {}", super::corpus::hex(bytes));
    }
}
