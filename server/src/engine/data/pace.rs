//! A scanner's time limit for one round trip of its caller (HBase's scan time limit, which
//! its heartbeats answer): past the deadline the scanner stops between rows, keeping its
//! place, so a filter that skips a whole region cannot hold a call until the region ends.
//! Each round trip reads at least one row first, so a scan always moves on, however short
//! the limit. The scanner can also keep the last row it read, filtered or not (HBase's scan
//! cursor), for the caller to report where a round trip that found nothing got to.

use std::time::Instant;

#[derive(Debug, Default)]
pub(super) struct Pace {
    /// When the current round trip must stop (None: no limit).
    deadline: Option<Instant>,
    /// A row was read since the deadline was set.
    moved: bool,
    /// The round trip stopped at its deadline.
    paused: bool,
    /// Keep the last row read ([`Pace::cursor`]).
    track_cursor: bool,
    cursor: Option<Vec<u8>>,
}

impl Pace {
    /// Starts a round trip that must stop by `deadline`.
    pub(super) fn start(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
        self.moved = false;
        self.paused = false;
    }

    pub(super) fn track_cursor(&mut self) {
        self.track_cursor = true;
    }

    /// Notes that `row` was read (whatever the filter made of it).
    pub(super) fn read(&mut self, row: &[u8]) {
        self.moved = true;
        if self.track_cursor {
            let c = self.cursor.get_or_insert_with(Vec::new);
            c.clear();
            c.extend_from_slice(row);
        }
    }

    /// Whether the round trip must stop before the next row: it read one and its deadline
    /// passed (the answer then stays true until the next [`Pace::start`]).
    pub(super) fn time_up(&mut self) -> bool {
        if !self.paused && self.moved && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.paused = true;
        }
        self.paused
    }

    pub(super) fn paused(&self) -> bool {
        self.paused
    }

    pub(super) fn cursor(&self) -> Option<&[u8]> {
        self.cursor.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_passed_deadline_stops_only_after_a_row() {
        let mut p = Pace::default();
        p.start(Some(Instant::now() - Duration::from_millis(1)));
        assert!(!p.time_up(), "nothing read yet: the round trip goes on");
        p.read(b"r1");
        assert!(p.time_up());
        assert!(p.paused());
        assert_eq!(p.cursor(), None, "not asked to keep the cursor");
        p.start(None);
        p.track_cursor();
        p.read(b"r2");
        assert!(!p.time_up(), "no deadline");
        assert_eq!(p.cursor(), Some(&b"r2"[..]));
        p.start(Some(Instant::now() + Duration::from_secs(60)));
        p.read(b"r3");
        assert!(!p.time_up());
        assert_eq!(p.cursor(), Some(&b"r3"[..]));
    }
}
