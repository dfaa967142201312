//! CPU time per thread group (from /proc/self/task/*/stat), the load average, the clock tick.

use std::collections::HashMap;
use std::process::Command;

/// The name prefix of the client threads (`phase`).
pub const CLIENT_THREAD: &str = "lg-client";
/// The name prefix of the null servers' runtime threads (`null`).
pub const NULL_THREAD: &str = "rt-null";

/// CPU ticks used in an interval by: client threads, null server threads, everything else (the
/// redbase runtime and the engine's own threads).
///
/// The kernel reports each thread's time in whole clock ticks, which loses most of the time of
/// short-lived threads, so the client share is the process total (which also keeps the time of
/// threads that have exited) minus the server threads, which are long-lived.
#[derive(Clone, Copy, Default, Debug)]
pub struct Cpu {
    pub client: u64,
    pub null: u64,
    pub other: u64,
}

/// Per-thread CPU ticks at one moment, and the process total.
pub struct CpuSnap {
    total: u64,
    /// The summed totals of the server processes outside this one (`--server-pids`).
    external: u64,
    /// Server threads only: thread id -> (is a null server thread, ticks).
    threads: HashMap<String, (bool, u64)>,
}

/// utime + stime of a `/proc/.../stat` line, and the thread or process name.
fn stat_ticks(stat: &str) -> Option<(&str, u64)> {
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    // After "(comm)" comes field 3 (state); utime and stime are fields 14 and 15.
    let f: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    let utime = f.get(11)?.parse::<u64>().ok()?;
    let stime = f.get(12)?.parse::<u64>().ok()?;
    Some((&stat[open + 1..close], utime + stime))
}

impl CpuSnap {
    /// This process's threads, and the processes `server_pids` (each counted whole: its
    /// /proc/PID/stat includes the threads that have exited).
    pub fn now(server_pids: &[u32]) -> CpuSnap {
        let external = server_pids
            .iter()
            .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
            .filter_map(|s| stat_ticks(&s).map(|x| x.1))
            .sum();
        let total = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .and_then(|s| stat_ticks(&s).map(|x| x.1))
            .unwrap_or(0);
        let mut threads = HashMap::new();
        if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
            for t in dir.flatten() {
                let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else {
                    continue;
                };
                let Some((name, ticks)) = stat_ticks(&stat) else {
                    continue;
                };
                if !name.starts_with(CLIENT_THREAD) {
                    let tid = t.file_name().to_string_lossy().into_owned();
                    threads.insert(tid, (name.starts_with(NULL_THREAD), ticks));
                }
            }
        }
        CpuSnap {
            total,
            external,
            threads,
        }
    }

    /// The interval from `before` to this snapshot. A server thread that exited in between
    /// loses its share to the client column (tokio retires idle blocking threads after 10 s).
    pub fn since(&self, before: &CpuSnap) -> Cpu {
        let mut cpu = Cpu::default();
        for (tid, &(null, ticks)) in &self.threads {
            let d = ticks.saturating_sub(before.threads.get(tid).map_or(0, |x| x.1));
            if null {
                cpu.null += d;
            } else {
                cpu.other += d;
            }
        }
        cpu.client = self
            .total
            .saturating_sub(before.total)
            .saturating_sub(cpu.null + cpu.other);
        cpu.other += self.external.saturating_sub(before.external);
        cpu
    }
}

/// The kernel's clock tick (`getconf CLK_TCK`), 100 Hz if unknown.
pub fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|t| *t > 0.0)
        .unwrap_or(100.0)
}

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`), or `?`.
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_give_the_name_and_user_plus_system_ticks() {
        // A thread name with spaces and parentheses: the fields count from the last ')'.
        let line = "4242 (lg-client (7)) S 1 2 3 4 5 6 7 8 9 10 31 11 0 0 20 0 1 0 99";
        assert_eq!(stat_ticks(line), Some(("lg-client (7)", 42)));
        assert_eq!(stat_ticks("4242 (x) S 1"), None);
    }

    #[test]
    fn this_process_is_counted() {
        // Spins until the process total has grown by two ticks: busy time is counted. (Other
        // tests of this binary run null servers at the same time, so no share is asserted.)
        let a = CpuSnap::now(&[]);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut x = 0u64;
        let mut b = CpuSnap::now(&[]);
        while b.total < a.total + 2 && std::time::Instant::now() < deadline {
            for i in 0..1_000_000u64 {
                x = x.wrapping_mul(31).wrapping_add(i);
            }
            std::hint::black_box(x);
            b = CpuSnap::now(&[]);
        }
        assert!(b.total >= a.total + 2, "{} -> {} ticks", a.total, b.total);
        assert!(clock_ticks() > 0.0);
    }
}
