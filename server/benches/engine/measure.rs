//! Measuring (sides taking turns round by round, profiling one side) and reporting (the table
//! of rates and ratios with their per-round spread).

use super::*;

/// Operations done and time spent by one side of a workload, summed over rounds.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Tally {
    pub(crate) ops: u64,
    pub(crate) secs: f64,
}

impl Tally {
    pub(crate) fn add(&mut self, (ops, took): (u64, Duration)) -> f64 {
        self.ops += ops;
        self.secs += took.as_secs_f64();
        ops as f64 / took.as_secs_f64().max(1e-9)
    }

    pub(crate) fn rate(&self) -> f64 {
        self.ops as f64 / self.secs.max(1e-9)
    }
}

/// A side of a comparison: runs its workload for about the given time, returns (ops, time).
pub(crate) type Side<'a> = Box<dyn FnMut(Duration) -> (u64, Duration) + 'a>;

/// Runs the sides in alternating rounds. Returns each side's tally and, per round, each side's
/// rate.
pub(crate) fn compare(settings: &Settings, sides: &mut [Side<'_>]) -> (Vec<Tally>, Vec<Vec<f64>>) {
    let mut tallies = vec![Tally::default(); sides.len()];
    let mut rounds = Vec::new();
    for round in 0..settings.rounds {
        let mut rates = vec![0.0; sides.len()];
        // Every side gets turns early and late in the rounds.
        let mut order: Vec<usize> = (0..sides.len()).collect();
        order.rotate_left((round / 2) % sides.len());
        if round % 2 == 1 {
            order.reverse();
        }
        for i in order {
            rates[i] = tallies[i].add((sides[i])(settings.round()));
        }
        rounds.push(rates);
    }
    (tallies, rounds)
}

/// With `REDBASE_BENCH_PROFILE` naming one of these sides (`{workload}-{name}`), runs only it
/// for the whole measuring time and returns true.
pub(crate) fn profile_only(
    settings: &Settings,
    workload: &str,
    names: &[&str],
    sides: &mut [Side<'_>],
) -> bool {
    let Some(want) = &settings.profile else {
        return false;
    };
    for (name, side) in names.iter().zip(sides.iter_mut()) {
        if *want == format!("{workload}-{name}") {
            let (ops, took) = side(Duration::from_secs_f64(settings.secs));
            println!(
                "profile {want}: {ops} ops in {:.2} s = {:.0} ops/s",
                took.as_secs_f64(),
                ops as f64 / took.as_secs_f64()
            );
            return true;
        }
    }
    false
}

/// Calls `op` with 0, 1, 2, … until `d` has passed.
pub(crate) fn for_duration(d: Duration, mut op: impl FnMut(u64)) -> (u64, Duration) {
    let start = Instant::now();
    let mut n = 0;
    loop {
        op(n);
        n += 1;
        if start.elapsed() >= d {
            return (n, start.elapsed());
        }
    }
}

/// Runs `op(thread)` in a loop on `threads` threads for about `d`. The time counted runs from the
/// common start until the last thread has finished its last operation.
pub(crate) fn threads_for(
    threads: usize,
    d: Duration,
    op: impl Fn(usize) + Sync,
) -> (u64, Duration) {
    let stop = AtomicBool::new(false);
    let total = AtomicU64::new(0);
    let barrier = Barrier::new(threads + 1);
    let start = std::thread::scope(|s| {
        for t in 0..threads {
            let (stop, total, barrier, op) = (&stop, &total, &barrier, &op);
            s.spawn(move || {
                barrier.wait();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    op(t);
                    n += 1;
                }
                total.fetch_add(n, Ordering::Relaxed);
            });
        }
        barrier.wait();
        let start = Instant::now();
        std::thread::sleep(d);
        stop.store(true, Ordering::Relaxed);
        start
    });
    (total.load(Ordering::Relaxed), start.elapsed())
}

// Reporting

pub(crate) enum Target {
    /// Informational: no target.
    None,
    /// redbase must reach this fraction of raw redb's throughput.
    OfRaw(f64),
}

pub(crate) struct Line {
    pub(crate) workload: String,
    pub(crate) redbase: String,
    pub(crate) raw: String,
    pub(crate) ratio: String,
    pub(crate) target: String,
    pub(crate) result: String,
}

#[derive(Default)]
pub(crate) struct Report {
    pub(crate) lines: Vec<Line>,
    pub(crate) notes: Vec<String>,
}

pub(crate) fn fmt_rate(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

pub(crate) fn spread(rounds: &[Vec<f64>], a: usize, b: usize) -> String {
    let ratios: Vec<f64> = rounds
        .iter()
        .map(|r| r[a] / r[b].max(1e-9))
        .collect::<Vec<_>>();
    let lo = ratios.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = ratios.iter().cloned().fold(0.0, f64::max);
    format!("{lo:.2}–{hi:.2}")
}

impl Report {
    pub(crate) fn compared(
        &mut self,
        workload: &str,
        redbase: Tally,
        raw: Tally,
        rounds: &[Vec<f64>],
        (ib, ir): (usize, usize),
        target: Target,
    ) {
        let ratio = redbase.rate() / raw.rate().max(1e-9);
        let (target, result) = match target {
            Target::None => ("-".to_string(), "-".to_string()),
            Target::OfRaw(t) => (
                format!(">= {:.0}% of raw", t * 100.0),
                if ratio >= t { "pass" } else { "FAIL" }.to_string(),
            ),
        };
        let line = Line {
            workload: workload.to_string(),
            redbase: fmt_rate(redbase.rate()),
            raw: fmt_rate(raw.rate()),
            ratio: format!("{ratio:.2} ({})", spread(rounds, ib, ir)),
            target,
            result,
        };
        println!(
            "  {:<44} redbase {:>10}/s  raw {:>10}/s  ratio {}",
            line.workload, line.redbase, line.raw, line.ratio
        );
        self.lines.push(line);
    }

    pub(crate) fn note(&mut self, s: String) {
        println!("  {s}");
        self.notes.push(s);
    }

    pub(crate) fn print(&self) {
        let head = Line {
            workload: "workload".into(),
            redbase: "redbase ops/s".into(),
            raw: "raw redb ops/s".into(),
            ratio: "ratio (per-round range)".into(),
            target: "target".into(),
            result: "result".into(),
        };
        let cols = |l: &Line| -> [String; 6] {
            [
                l.workload.clone(),
                l.redbase.clone(),
                l.raw.clone(),
                l.ratio.clone(),
                l.target.clone(),
                l.result.clone(),
            ]
        };
        let mut widths = [0usize; 6];
        for l in std::iter::once(&head).chain(&self.lines) {
            for (w, c) in widths.iter_mut().zip(cols(l)) {
                *w = (*w).max(c.chars().count());
            }
        }
        let row = |l: &Line| {
            let c = cols(l);
            let mut s = String::from("|");
            for (i, (cell, w)) in c.iter().zip(widths).enumerate() {
                let pad = w - cell.chars().count();
                if i == 0 || i >= 3 {
                    s.push_str(&format!(" {cell}{} |", " ".repeat(pad)));
                } else {
                    s.push_str(&format!(" {}{cell} |", " ".repeat(pad)));
                }
            }
            s
        };
        println!();
        println!("{}", row(&head));
        let mut sep = String::from("|");
        for (i, w) in widths.iter().enumerate() {
            if i == 1 || i == 2 {
                sep.push_str(&format!("{}:|", "-".repeat(w + 1)));
            } else {
                sep.push_str(&format!("{}|", "-".repeat(w + 2)));
            }
        }
        println!("{sep}");
        for l in &self.lines {
            println!("{}", row(l));
        }
        if !self.notes.is_empty() {
            println!();
            for n in &self.notes {
                println!("- {n}");
            }
        }
    }
}
