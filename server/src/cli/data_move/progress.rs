//! The progress line of long runs: rows and rows/s on standard error, drawn only when standard
//! output is a terminal (a script or CI log gets the final summary line alone) and not
//! `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

pub fn bar(quiet: bool) -> ProgressBar {
    if quiet || !std::io::stdout().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} {msg}: {human_pos} rows ({per_sec}), {elapsed}")
    {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Cells per second for summaries (0 for an instant run).
pub fn rate(cells: u64, elapsed: Duration) -> u64 {
    let s = elapsed.as_secs_f64();
    if s > 0.0 {
        (cells as f64 / s) as u64
    } else {
        0
    }
}

/// Copy's bar: done work in thousandths of a region (`position`), with rows and rows/s in its
/// message and an ETA from the share of the key space copied so far.
pub fn regions_bar(quiet: bool, regions: usize) -> ProgressBar {
    if quiet || !std::io::stdout().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(regions as u64 * PER_REGION);
    if let Ok(style) = ProgressStyle::with_template(
        "{msg} [{bar:30}] {percent}% of the key space, {elapsed} (ETA {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// A region's share of `regions_bar`.
pub const PER_REGION: u64 = 1000;

/// How far `key` is through `[start, stop)` in thousandths, reading the first eight bytes
/// after the bounds' common prefix as a number (an estimate: keys are rarely uniform).
pub fn key_position(start: &[u8], stop: &[u8], key: &[u8]) -> u64 {
    let common = if stop.is_empty() {
        0
    } else {
        start.iter().zip(stop).take_while(|(a, b)| a == b).count()
    };
    let number = |k: &[u8]| {
        let mut b = [0u8; 8];
        for (i, x) in k.iter().skip(common).take(8).enumerate() {
            b[i] = *x;
        }
        u64::from_be_bytes(b) as f64
    };
    let s = number(start);
    let e = if stop.is_empty() {
        u64::MAX as f64
    } else {
        number(stop)
    };
    let k = number(key);
    if e <= s {
        return 0;
    }
    (((k - s) / (e - s)).clamp(0.0, 1.0) * PER_REGION as f64) as u64
}

#[cfg(test)]
mod tests {
    use super::key_position;

    #[test]
    fn key_positions_interpolate_within_a_region() {
        assert_eq!(key_position(b"", b"", b""), 0);
        assert_eq!(key_position(b"", b"", &[0x80]), 500);
        assert_eq!(key_position(b"1", b"2", b"1"), 0);
        assert_eq!(key_position(b"row-1", b"row-3", b"row-2"), 500);
        assert_eq!(key_position(b"a", b"b", b"z"), 1000);
    }
}
