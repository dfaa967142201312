//! MultiRowRangeFilter (serialized filters only): rows inside any of a list of row ranges.
//!
//! HBase sorts and merges the ranges when the filter is built and refuses an empty list or an
//! invalid range (start after stop, or start equal to an exclusive stop). A row outside every
//! range is dropped by key with a hint to the next range (its start forward, its stop
//! reversed), and the scan ends after the last range. HBase walks the merged list with a
//! cursor; the rows it keeps are exactly those inside the union of the ranges, which is what
//! is computed here, by binary search over the merged list.

use std::cmp::Ordering;

use super::eval::{Code, HFilter};
use crate::engine::Cell;

/// One end of a range: `None` is open (HBase's empty row).
#[derive(Clone, Debug, PartialEq, Eq)]
struct End {
    row: Option<Vec<u8>>,
    inclusive: bool,
}

/// A range as the wire gives it; an unset or empty row leaves that end open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowRange {
    start: End,
    stop: End,
}

impl RowRange {
    pub fn new(start: &[u8], start_inclusive: bool, stop: &[u8], stop_inclusive: bool) -> Self {
        let end = |row: &[u8], inclusive| End {
            row: (!row.is_empty()).then(|| row.to_vec()),
            inclusive,
        };
        RowRange {
            start: end(start, start_inclusive),
            stop: end(stop, stop_inclusive),
        }
    }

    /// HBase's `isValid`: an open end, or start before stop, or start equal to an inclusive
    /// stop.
    fn is_valid(&self) -> bool {
        match (&self.start.row, &self.stop.row) {
            (Some(a), Some(b)) => a < b || (a == b && self.stop.inclusive),
            _ => true,
        }
    }

    /// Whether `row` is at or after the start.
    fn starts_by(&self, row: &[u8]) -> bool {
        match &self.start.row {
            None => true,
            Some(s) => match row.cmp(s) {
                Ordering::Greater => true,
                Ordering::Equal => self.start.inclusive,
                Ordering::Less => false,
            },
        }
    }

    /// Whether `row` is at or before the stop.
    fn stops_after(&self, row: &[u8]) -> bool {
        match &self.stop.row {
            None => true,
            Some(s) => match row.cmp(s) {
                Ordering::Less => true,
                Ordering::Equal => self.stop.inclusive,
                Ordering::Greater => false,
            },
        }
    }

    fn describe(&self) -> String {
        let show = |e: &End| match &e.row {
            None => "(open)".to_string(),
            Some(r) => format!("{:?}", String::from_utf8_lossy(r)),
        };
        format!(
            "{}{}, {}{}",
            if self.start.inclusive { "[" } else { "(" },
            show(&self.start),
            show(&self.stop),
            if self.stop.inclusive { "]" } else { ")" }
        )
    }
}

/// Orders starts: open first, then by row, an inclusive start before an exclusive one.
fn start_order(a: &End, b: &End) -> Ordering {
    match (&a.row, &b.row) {
        (None, None) => Ordering::Equal,
        (None, _) => Ordering::Less,
        (_, None) => Ordering::Greater,
        (Some(x), Some(y)) => x.cmp(y).then(b.inclusive.cmp(&a.inclusive)),
    }
}

/// Whether range `next` (starting at or after `cur`) overlaps or touches `cur`, so their union
/// is one range.
fn joins(cur: &RowRange, next: &RowRange) -> bool {
    let (Some(stop), Some(start)) = (&cur.stop.row, &next.start.row) else {
        return true;
    };
    match stop.cmp(start) {
        Ordering::Greater => true,
        Ordering::Equal => cur.stop.inclusive || next.start.inclusive,
        Ordering::Less => false,
    }
}

/// The later of two stops (an open stop is the latest).
fn later_stop(a: End, b: End) -> End {
    match (&a.row, &b.row) {
        (None, _) => a,
        (_, None) => b,
        (Some(x), Some(y)) => match x.cmp(y) {
            Ordering::Greater => a,
            Ordering::Less => b,
            Ordering::Equal => End {
                row: a.row,
                inclusive: a.inclusive || b.inclusive,
            },
        },
    }
}

/// HBase's MultiRowRangeFilter.
#[derive(Clone)]
pub struct MultiRowRange {
    /// Sorted, disjoint, not touching.
    ranges: Vec<RowRange>,
    reversed: bool,
    done: bool,
    hint: Option<Vec<u8>>,
}

impl MultiRowRange {
    /// Sorts and merges the ranges; the error names the invalid ranges, as HBase's does.
    pub fn new(mut ranges: Vec<RowRange>) -> Result<MultiRowRange, String> {
        if ranges.is_empty() {
            return Err("no row ranges given".into());
        }
        let invalid: Vec<String> = ranges
            .iter()
            .filter(|r| !r.is_valid())
            .map(RowRange::describe)
            .collect();
        if !invalid.is_empty() {
            return Err(format!(
                "{} invalid row range(s) (the start must come before the stop, or equal an \
                 inclusive stop): {}",
                invalid.len(),
                invalid.join("; ")
            ));
        }
        ranges.sort_by(|a, b| start_order(&a.start, &b.start));
        let mut merged: Vec<RowRange> = Vec::new();
        for r in ranges {
            match merged.last_mut() {
                Some(cur) if joins(cur, &r) => {
                    let stop = std::mem::replace(
                        &mut cur.stop,
                        End {
                            row: None,
                            inclusive: false,
                        },
                    );
                    cur.stop = later_stop(stop, r.stop);
                }
                _ => merged.push(r),
            }
        }
        Ok(MultiRowRange {
            ranges: merged,
            reversed: false,
            done: false,
            hint: None,
        })
    }

    /// The index of the last range starting at or before `row` (ranges before it stop before
    /// `row`), if any.
    fn last_started(&self, row: &[u8]) -> Option<usize> {
        self.ranges
            .partition_point(|r| r.starts_by(row))
            .checked_sub(1)
    }
}

impl HFilter for MultiRowRange {
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.done {
            return true;
        }
        let started = self.last_started(row);
        if let Some(i) = started {
            if self.ranges[i].stops_after(row) {
                self.hint = None;
                return false;
            }
        }
        // Outside every range: on to the next range in scan order, if any.
        self.hint = if !self.reversed {
            let next = started.map_or(0, |i| i + 1);
            self.ranges.get(next).map(|r| {
                let s = r.start.row.clone().unwrap_or_default();
                if r.start.inclusive {
                    s
                } else {
                    // Just past an exclusive start.
                    [s.as_slice(), &[0]].concat()
                }
            })
        } else {
            started.map(|i| {
                let s = self.ranges[i].stop.row.clone().unwrap_or_default();
                if self.ranges[i].stop.inclusive {
                    [s.as_slice(), &[0]].concat()
                } else {
                    s
                }
            })
        };
        self.done = self.hint.is_none();
        true
    }

    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        if self.hint.is_some() || self.done {
            Code::SeekNextUsingHint
        } else {
            Code::Include
        }
    }

    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    fn row_hint(&self, row: &[u8]) -> Option<Vec<u8>> {
        // Reversed, an inclusive stop carries a 0 byte to keep the stop row itself.
        super::eval::hint_past(self.hint.as_ref(), row, self.reversed)
    }

    fn reset(&mut self) {
        self.hint = None;
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keeps(f: &mut MultiRowRange, row: &str) -> bool {
        !f.filter_row_key(row.as_bytes())
    }

    #[test]
    fn overlapping_and_touching_ranges_merge() {
        let f = MultiRowRange::new(vec![
            RowRange::new(b"d", true, b"f", false),
            RowRange::new(b"a", true, b"c", false),
            RowRange::new(b"b", true, b"d", false),
            RowRange::new(b"x", false, b"", false),
            RowRange::new(b"m", true, b"m", true),
        ])
        .unwrap();
        let spans: Vec<String> = f.ranges.iter().map(RowRange::describe).collect();
        assert_eq!(
            spans,
            ["[\"a\", \"f\")", "[\"m\", \"m\"]", "(\"x\", (open))"]
        );
        let mut f = f;
        for (row, kept) in [
            ("a", true),
            ("e", true),
            ("f", false),
            ("m", true),
            ("x", false),
        ] {
            f.reset();
            f.done = false;
            assert_eq!(keeps(&mut f, row), kept, "{row}");
        }
    }

    #[test]
    fn invalid_or_empty_lists_are_refused() {
        assert!(MultiRowRange::new(vec![]).is_err());
        let e = MultiRowRange::new(vec![RowRange::new(b"b", true, b"a", true)])
            .err()
            .unwrap();
        assert!(e.contains("1 invalid"), "{e}");
        assert!(MultiRowRange::new(vec![RowRange::new(b"a", true, b"a", false)]).is_err());
    }
}
