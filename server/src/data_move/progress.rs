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
