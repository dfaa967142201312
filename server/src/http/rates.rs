//! Recent read and write rates per region, from its ever-growing counters.
//!
//! The status page shows where load lands *now* (a hotspot is a rate, not a total), so a
//! sampler records each region's counters every second and a rate is the difference across
//! the last few seconds. A region that appears (a split half) has no rate until its second
//! sample; one that disappears is forgotten.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// One region's counters at one instant.
#[derive(Debug, Clone, Copy)]
struct Sample {
    at: Instant,
    reads: u64,
    writes: u64,
}

/// Reads and writes per second over the window.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rate {
    pub reads: f64,
    pub writes: f64,
}

/// Samples per region id, spanning at most `window`.
#[derive(Debug)]
pub struct Rates {
    window: Duration,
    samples: HashMap<u64, VecDeque<Sample>>,
}

impl Rates {
    pub fn new(window: Duration) -> Rates {
        Rates {
            window,
            samples: HashMap::new(),
        }
    }

    /// Records `(region id, reads, writes)` for every region that exists at `at`.
    pub fn observe(&mut self, at: Instant, regions: impl IntoIterator<Item = (u64, u64, u64)>) {
        let mut seen = std::collections::HashSet::new();
        for (id, reads, writes) in regions {
            seen.insert(id);
            let q = self.samples.entry(id).or_default();
            q.push_back(Sample { at, reads, writes });
            // Keep one sample at or beyond the window's start so the rate spans the window.
            while q.len() > 2 && q.get(1).is_some_and(|s| at - s.at >= self.window) {
                q.pop_front();
            }
        }
        self.samples.retain(|id, _| seen.contains(id));
    }

    /// The region's rate between its oldest and newest sample; zero until it has two.
    pub fn rate(&self, id: u64) -> Rate {
        let Some(q) = self.samples.get(&id) else {
            return Rate::default();
        };
        let (Some(first), Some(last)) = (q.front(), q.back()) else {
            return Rate::default();
        };
        let secs = (last.at - first.at).as_secs_f64();
        if secs <= 0.0 {
            return Rate::default();
        }
        Rate {
            reads: last.reads.saturating_sub(first.reads) as f64 / secs,
            writes: last.writes.saturating_sub(first.writes) as f64 / secs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_spans_the_window_and_forgets_gone_regions() {
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        let mut r = Rates::new(Duration::from_secs(3));
        r.observe(t0, [(1, 0, 0), (2, 5, 5)]);
        assert_eq!(r.rate(1), Rate::default(), "one sample has no rate");
        r.observe(t0 + s, [(1, 10, 100), (2, 5, 5)]);
        assert_eq!(
            r.rate(1),
            Rate {
                reads: 10.0,
                writes: 100.0
            }
        );
        assert_eq!(r.rate(2), Rate::default(), "an idle region has rate zero");
        // Load stops: after the window passes, the rate falls back to zero.
        for i in 2..=5 {
            r.observe(t0 + s * i, [(1, 10, 100)]);
        }
        assert_eq!(r.rate(1), Rate::default());
        assert_eq!(r.rate(2), Rate::default(), "region 2 is gone");
        assert!(!r.samples.contains_key(&2));
        assert!(
            r.samples[&1].len() <= 4,
            "samples stay bounded by the window"
        );
    }
}
