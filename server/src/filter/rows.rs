//! Filters that decide by row: KeyOnlyFilter, FirstKeyOnlyFilter, PrefixFilter,
//! InclusiveStopFilter, PageFilter and RowFilter.

use bytes::Bytes;

use super::compare::{Comparator, CompareOp};
use super::eval::{Code, HFilter};
use crate::engine::Cell;

/// Returns keys only: every value becomes empty, or with `len_as_value` the value's length
/// as a 4-byte big-endian integer.
#[derive(Clone)]
pub struct KeyOnly {
    pub len_as_value: bool,
}

impl HFilter for KeyOnly {
    fn transform_cell(&mut self, cell: &Cell) -> Option<Cell> {
        let value = if self.len_as_value {
            Bytes::copy_from_slice(&(cell.value.len() as i32).to_be_bytes())
        } else {
            Bytes::new()
        };
        Some(Cell {
            value,
            ..cell.clone()
        })
    }
}

/// The first cell of each row only.
#[derive(Clone, Default)]
pub struct FirstKeyOnly {
    found: bool,
}

impl HFilter for FirstKeyOnly {
    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        if self.found {
            return Code::NextRow;
        }
        self.found = true;
        Code::Include
    }

    fn reset(&mut self) {
        self.found = false;
    }
}

/// Rows whose key starts with the prefix; ends the scan once past them.
#[derive(Clone)]
pub struct Prefix {
    prefix: Vec<u8>,
    passed: bool,
    filter_row: bool,
    reversed: bool,
}

impl Prefix {
    pub fn new(prefix: Vec<u8>) -> Prefix {
        Prefix {
            prefix,
            passed: false,
            filter_row: true,
            reversed: false,
        }
    }
}

impl HFilter for Prefix {
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.passed {
            return true;
        }
        if row.len() < self.prefix.len() {
            return true;
        }
        let cmp = row[..self.prefix.len()].cmp(&self.prefix);
        if (!self.reversed && cmp.is_gt()) || (self.reversed && cmp.is_lt()) {
            self.passed = true;
        }
        self.filter_row = cmp.is_ne();
        self.filter_row
    }

    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        if self.filter_row {
            Code::NextRow
        } else {
            Code::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }

    fn filter_all_remaining(&self) -> bool {
        self.passed
    }

    fn reset(&mut self) {
        self.filter_row = true;
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }

    fn row_hint(&self, row: &[u8]) -> Option<Vec<u8>> {
        if self.passed {
            return None;
        }
        if !self.reversed {
            // Before the prefix: its first row is next.
            (row < self.prefix.as_slice()).then(|| self.prefix.clone())
        } else {
            // After every row with the prefix: read on from just below them.
            let succ = crate::engine::read::prefix_successor(&self.prefix);
            (!succ.is_empty() && row >= succ.as_slice()).then_some(succ)
        }
    }
}

/// Rows up to and including the stop row; ends the scan after it.
#[derive(Clone)]
pub struct InclusiveStop {
    stop: Vec<u8>,
    done: bool,
    reversed: bool,
}

impl InclusiveStop {
    pub fn new(stop: Vec<u8>) -> InclusiveStop {
        InclusiveStop {
            stop,
            done: false,
            reversed: false,
        }
    }
}

impl HFilter for InclusiveStop {
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.done {
            return true;
        }
        let cmp = row.cmp(&self.stop);
        self.done = if self.reversed {
            cmp.is_lt()
        } else {
            cmp.is_gt()
        };
        self.done
    }

    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        if self.done {
            Code::NextRow
        } else {
            Code::Include
        }
    }

    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }
}

/// At most `size` rows; ends the scan once they are out.
#[derive(Clone)]
pub struct Page {
    size: i64,
    accepted: i64,
}

impl Page {
    pub fn new(size: i64) -> Page {
        Page { size, accepted: 0 }
    }
}

impl HFilter for Page {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        self.filter_all_remaining()
    }

    fn filter_row(&mut self) -> bool {
        self.accepted += 1;
        self.accepted > self.size
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_all_remaining(&self) -> bool {
        self.accepted >= self.size
    }
}

/// Rows whose key passes `op` against the comparator, judged before any cell is read.
#[derive(Clone)]
pub struct RowCompare {
    op: CompareOp,
    cmp: Comparator,
    filter_out: bool,
}

impl RowCompare {
    pub fn new(op: CompareOp, cmp: Comparator) -> RowCompare {
        RowCompare {
            op,
            cmp,
            filter_out: false,
        }
    }
}

impl HFilter for RowCompare {
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if !self.cmp.passes(self.op, row) {
            self.filter_out = true;
        }
        self.filter_out
    }

    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        if self.filter_out {
            Code::NextRow
        } else {
            Code::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out
    }

    fn reset(&mut self) {
        self.filter_out = false;
    }
}
