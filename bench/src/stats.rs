//! What a measuring phase counted: operations, errors, wall time, CPU time and a latency
//! histogram (HdrHistogram, 3 significant digits), and the figures the report prints from it.

use std::time::Duration;

use hdrhistogram::Histogram;

use crate::cpu::Cpu;

/// The longest latency recorded as itself; a longer one is recorded as this (1 minute).
const MAX_LATENCY_NS: u64 = 60_000_000_000;

/// A latency histogram in nanoseconds, to within 0.1%.
pub fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_NS, 3).expect("valid histogram bounds")
}

/// One phase's results, or several phases' added up.
pub struct Sample {
    pub ops: u64,
    pub errors: u64,
    pub first_error: Option<String>,
    pub wall: Duration,
    /// Latency of every successful operation, in nanoseconds.
    pub latency: Histogram<u64>,
    pub cpu: Cpu,
}

impl Default for Sample {
    fn default() -> Sample {
        Sample {
            ops: 0,
            errors: 0,
            first_error: None,
            wall: Duration::ZERO,
            latency: latency_histogram(),
            cpu: Cpu::default(),
        }
    }
}

impl Sample {
    /// Adds another phase's counts, times and latencies to this one's.
    pub fn add(&mut self, o: Sample) {
        self.ops += o.ops;
        self.errors += o.errors;
        if self.first_error.is_none() {
            self.first_error = o.first_error;
        }
        self.wall += o.wall;
        // Same bounds on both sides: adding cannot fail.
        self.latency
            .add(&o.latency)
            .expect("histograms of the same bounds");
        self.cpu.client += o.cpu.client;
        self.cpu.null += o.cpu.null;
        self.cpu.other += o.cpu.other;
    }

    /// Operations per second of wall time.
    pub fn rate(&self) -> f64 {
        if self.wall.is_zero() {
            0.0
        } else {
            self.ops as f64 / self.wall.as_secs_f64()
        }
    }

    /// Latency percentile `p` (0 to 100) in milliseconds; NaN if nothing was recorded.
    pub fn pct(&self, p: f64) -> f64 {
        if self.latency.is_empty() {
            return f64::NAN;
        }
        self.latency.value_at_percentile(p) as f64 / 1e6
    }
}

/// Records one latency, clamped to the histogram's range.
pub fn record(h: &mut Histogram<u64>, d: Duration) {
    h.saturating_record(d.as_nanos().min(u64::MAX as u128) as u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_of(latencies_us: impl IntoIterator<Item = u64>) -> Sample {
        let mut s = Sample::default();
        for us in latencies_us {
            record(&mut s.latency, Duration::from_micros(us));
            s.ops += 1;
        }
        s
    }

    #[test]
    fn percentiles_are_the_recorded_values_to_within_a_tenth_of_a_percent() {
        // 1 to 1000 us: p50 is 500 us, p99 990 us, p100 1000 us.
        let s = sample_of(1..=1000);
        let close = |got: f64, want_ms: f64| (got - want_ms).abs() <= want_ms * 0.001;
        assert!(close(s.pct(50.0), 0.5), "p50 {}", s.pct(50.0));
        assert!(close(s.pct(99.0), 0.99), "p99 {}", s.pct(99.0));
        assert!(close(s.pct(100.0), 1.0), "p100 {}", s.pct(100.0));
        assert!(close(s.pct(0.0), 0.001), "p0 {}", s.pct(0.0));
    }

    #[test]
    fn an_empty_sample_has_no_percentiles_and_no_rate() {
        let s = Sample::default();
        assert!(s.pct(50.0).is_nan());
        assert_eq!(s.rate(), 0.0);
    }

    #[test]
    fn adding_samples_adds_counts_and_merges_latencies() {
        let mut a = sample_of([100; 99]);
        a.wall = Duration::from_secs(1);
        let mut b = sample_of([50_000]);
        b.wall = Duration::from_secs(1);
        b.errors = 1;
        b.first_error = Some("get: boom".into());
        a.add(b);
        assert_eq!(a.ops, 100);
        assert_eq!(a.errors, 1);
        assert_eq!(a.first_error.as_deref(), Some("get: boom"));
        assert_eq!(a.rate(), 50.0);
        assert_eq!(a.latency.len(), 100);
        // 99 of 100 at 0.1 ms, one at 50 ms: p99 is still 0.1 ms, the maximum 50 ms.
        assert!((a.pct(99.0) - 0.1).abs() < 0.0001);
        assert!((a.pct(100.0) - 50.0).abs() < 0.05);
    }

    #[test]
    fn latencies_past_the_range_are_kept_as_its_maximum() {
        let s = sample_of([u64::MAX / 1000]);
        assert_eq!(s.latency.len(), 1);
        assert!(s.pct(100.0) >= 59_000.0);
    }
}
