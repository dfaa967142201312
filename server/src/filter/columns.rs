//! Filters that decide cell by cell on the column, timestamp or value: ColumnPrefixFilter,
//! MultipleColumnPrefixFilter, ColumnCountGetFilter, ColumnPaginationFilter,
//! ColumnRangeFilter, TimestampsFilter, FamilyFilter, QualifierFilter and ValueFilter.

use std::collections::BTreeSet;
use std::ops::Bound;

use super::compare::{Comparator, CompareOp};
use super::eval::{Code, HFilter};
use crate::engine::Cell;

/// Columns whose qualifier starts with the prefix.
#[derive(Clone)]
pub struct ColumnPrefix {
    pub prefix: Vec<u8>,
}

impl HFilter for ColumnPrefix {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        let q = &cell.qualifier[..];
        let n = q.len().min(self.prefix.len());
        let cmp = q[..n].cmp(&self.prefix[..n]);
        if q.len() < self.prefix.len() {
            // Shorter than the prefix: before it (hint ahead) unless greater.
            return if cmp.is_le() {
                Code::SeekNextUsingHint
            } else {
                Code::NextRow
            };
        }
        match cmp {
            std::cmp::Ordering::Less => Code::SeekNextUsingHint,
            std::cmp::Ordering::Greater => Code::NextRow,
            std::cmp::Ordering::Equal => Code::Include,
        }
    }
}

/// Columns whose qualifier starts with one of the prefixes. As HBase's, it tests only the
/// greatest prefix not after the qualifier, so with overlapping prefixes ('a' and 'ab') a
/// qualifier like 'ac' is not returned.
#[derive(Clone)]
pub struct MultipleColumnPrefix {
    pub prefixes: BTreeSet<Vec<u8>>,
}

impl HFilter for MultipleColumnPrefix {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        let q = &cell.qualifier[..];
        let mut at_or_before = self
            .prefixes
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(q)));
        match at_or_before.next_back() {
            Some(p) if q.starts_with(p) => Code::Include,
            Some(p) if self.prefixes.last() == Some(p) => Code::NextRow,
            _ => Code::SeekNextUsingHint,
        }
    }
}

/// The first `limit` columns (newest version) of a row. Once a row has more, the scan ends
/// after it: HBase wrote this filter for gets.
#[derive(Clone)]
pub struct ColumnCountGet {
    pub limit: i64,
    pub count: i64,
}

impl HFilter for ColumnCountGet {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        self.filter_all_remaining()
    }

    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        self.count += 1;
        if self.filter_all_remaining() {
            Code::NextCol
        } else {
            Code::IncludeAndNextCol
        }
    }

    fn filter_all_remaining(&self) -> bool {
        self.count > self.limit
    }

    fn reset(&mut self) {
        self.count = 0;
    }
}

/// Columns `offset .. offset + limit` of each row (newest version of each).
#[derive(Clone)]
pub struct ColumnPagination {
    pub limit: i64,
    pub offset: i64,
    pub count: i64,
}

impl HFilter for ColumnPagination {
    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        if self.count >= self.offset + self.limit {
            return Code::NextRow;
        }
        let code = if self.count < self.offset {
            Code::NextCol
        } else {
            Code::IncludeAndNextCol
        };
        self.count += 1;
        code
    }

    fn reset(&mut self) {
        self.count = 0;
    }
}

/// Columns whose qualifier lies between two bounds (an empty bound is open).
#[derive(Clone)]
pub struct ColumnRange {
    pub min: Option<Vec<u8>>,
    pub min_inclusive: bool,
    pub max: Option<Vec<u8>>,
    pub max_inclusive: bool,
}

impl HFilter for ColumnRange {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        let q = &cell.qualifier[..];
        let cmp_min = match &self.min {
            Some(m) => q.cmp(m.as_slice()),
            None => std::cmp::Ordering::Greater,
        };
        if cmp_min.is_lt() {
            return Code::SeekNextUsingHint;
        }
        if !self.min_inclusive && cmp_min.is_eq() {
            return Code::NextCol;
        }
        let Some(max) = &self.max else {
            return Code::Include;
        };
        let cmp_max = q.cmp(max.as_slice());
        if (self.max_inclusive && cmp_max.is_le()) || (!self.max_inclusive && cmp_max.is_lt()) {
            Code::Include
        } else {
            Code::NextRow
        }
    }
}

/// Cells whose timestamp is one of the listed ones.
#[derive(Clone)]
pub struct Timestamps {
    pub timestamps: BTreeSet<i64>,
}

impl HFilter for Timestamps {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        if self.timestamps.contains(&cell.timestamp) {
            Code::Include
        } else if cell.timestamp < self.timestamps.first().copied().unwrap_or(i64::MAX) {
            // Versions come newest first: nothing older can match.
            Code::NextCol
        } else {
            Code::Skip
        }
    }
}

/// What a [`CellCompare`] compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Family,
    Qualifier,
    Value,
}

/// FamilyFilter, QualifierFilter or ValueFilter.
#[derive(Clone)]
pub struct CellCompare {
    pub part: Part,
    pub op: CompareOp,
    pub cmp: Comparator,
}

impl HFilter for CellCompare {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        match self.part {
            // A family that fails fails for the rest of the row.
            Part::Family if !cell.family.is_empty() && !self.cmp.passes(self.op, &cell.family) => {
                Code::NextRow
            }
            // An empty qualifier is compared like any other (HBase 2.6.1 has no exemption
            // for it, unlike for an empty family).
            Part::Qualifier if !self.cmp.passes(self.op, &cell.qualifier) => Code::Skip,
            Part::Value if !self.cmp.passes(self.op, &cell.value) => Code::Skip,
            _ => Code::Include,
        }
    }
}
