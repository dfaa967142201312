//! Filters that judge a row or cell by one column's value: SingleColumnValueFilter,
//! SingleColumnValueExcludeFilter, DependentColumnFilter and ColumnValueFilter.

use std::collections::HashSet;

use super::compare::{Comparator, CompareOp};
use super::eval::{same_column, Code, HFilter};
use crate::engine::Cell;

/// Whole rows whose column `family:qualifier` passes `op` (SingleColumnValueFilter), or with
/// `exclude` the same rows without that column (SingleColumnValueExcludeFilter).
#[derive(Clone)]
pub struct SingleColumnValue {
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub op: CompareOp,
    pub cmp: Comparator,
    /// Drop rows that lack the column (default: keep them).
    pub filter_if_missing: bool,
    /// Test only the newest version (default); false: any version that passes.
    pub latest_version_only: bool,
    pub exclude: bool,
    found: bool,
    matched: bool,
}

impl SingleColumnValue {
    pub fn new(family: Vec<u8>, qualifier: Vec<u8>, op: CompareOp, cmp: Comparator) -> Self {
        SingleColumnValue {
            family,
            qualifier,
            op,
            cmp,
            filter_if_missing: false,
            latest_version_only: true,
            exclude: false,
            found: false,
            matched: false,
        }
    }
}

impl HFilter for SingleColumnValue {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        if self.matched {
            return Code::Include;
        }
        if self.latest_version_only && self.found {
            return Code::NextRow;
        }
        if !same_column(cell, &self.family, &self.qualifier) {
            return Code::Include;
        }
        self.found = true;
        if !self.cmp.passes(self.op, &cell.value) {
            return if self.latest_version_only {
                Code::NextRow
            } else {
                Code::Include
            };
        }
        self.matched = true;
        Code::Include
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        if self.exclude {
            cells.retain(|c| !same_column(c, &self.family, &self.qualifier));
        }
    }

    fn filter_row(&mut self) -> bool {
        if self.found {
            !self.matched
        } else {
            self.filter_if_missing
        }
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn reset(&mut self) {
        self.found = false;
        self.matched = false;
    }
}

/// Cells whose timestamp matches a version of the dependent column (that passes the optional
/// value test); `drop` leaves the dependent column itself out.
#[derive(Clone)]
pub struct DependentColumn {
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub drop: bool,
    pub test: Option<(CompareOp, Comparator)>,
    stamps: HashSet<i64>,
}

impl DependentColumn {
    pub fn new(
        family: Vec<u8>,
        qualifier: Vec<u8>,
        drop: bool,
        test: Option<(CompareOp, Comparator)>,
    ) -> Self {
        DependentColumn {
            family,
            qualifier,
            drop,
            test,
            stamps: HashSet::new(),
        }
    }
}

impl HFilter for DependentColumn {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        if !same_column(cell, &self.family, &self.qualifier) {
            // Kept for now; filter_row_cells drops those without a matching timestamp.
            return Code::Include;
        }
        if let Some((op, cmp)) = &self.test {
            if !cmp.passes(*op, &cell.value) {
                return Code::Skip;
            }
        }
        self.stamps.insert(cell.timestamp);
        if self.drop {
            Code::Skip
        } else {
            Code::Include
        }
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        cells.retain(|c| self.stamps.contains(&c.timestamp));
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn reset(&mut self) {
        self.stamps.clear();
    }
}

/// Only the cells of column `family:qualifier` whose value passes `op`.
#[derive(Clone)]
pub struct ColumnValue {
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub op: CompareOp,
    pub cmp: Comparator,
    found: bool,
}

impl ColumnValue {
    pub fn new(family: Vec<u8>, qualifier: Vec<u8>, op: CompareOp, cmp: Comparator) -> Self {
        ColumnValue {
            family,
            qualifier,
            op,
            cmp,
            found: false,
        }
    }
}

impl HFilter for ColumnValue {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        if !same_column(cell, &self.family, &self.qualifier) {
            return if self.found {
                Code::NextRow
            } else {
                Code::NextCol
            };
        }
        self.found = true;
        if self.cmp.passes(self.op, &cell.value) {
            Code::Include
        } else {
            Code::Skip
        }
    }

    fn reset(&mut self) {
        self.found = false;
    }
}
