//! Combinations: AND and OR (HBase's FilterList MUST_PASS_ALL and MUST_PASS_ONE), SKIP
//! (SkipFilter) and WHILE (WhileMatchFilter), with HBase's rules for merging return codes.

use super::eval::{Code, HFilter};
use crate::engine::Cell;

/// AND's merge: the longest step, where an exclusion wins over an inclusion at the same reach.
fn merge_and(rc: Code, local: Code) -> Code {
    use Code::*;
    if rc == SeekNextUsingHint || local == SeekNextUsingHint {
        return SeekNextUsingHint;
    }
    let inc = rc.includes() && local.includes();
    // Reach: 0 this cell, 1 rest of the column, 2 rest of the row (in this family).
    let reach = |c: Code| match c {
        Include | Skip => 0,
        IncludeAndNextCol | NextCol => 1,
        IncludeAndSeekNextRow | NextRow => 2,
        SeekNextUsingHint => 0,
    };
    match (inc, reach(rc).max(reach(local))) {
        (true, 0) => Include,
        (true, 1) => IncludeAndNextCol,
        (true, _) => IncludeAndSeekNextRow,
        (false, 0) => Skip,
        (false, 1) => NextCol,
        (false, _) => NextRow,
    }
}

/// OR's merge: the shortest step; an inclusion by either includes.
fn merge_or(rc: Code, local: Code) -> Code {
    use Code::*;
    if rc.includes() || local.includes() {
        // Included: how far may it jump? Only as far as every filter allows.
        let reach = |c: Code| match c {
            Include | Skip | SeekNextUsingHint => 0,
            IncludeAndNextCol | NextCol => 1,
            IncludeAndSeekNextRow | NextRow => 2,
        };
        return match reach(rc).min(reach(local)) {
            0 => Include,
            1 => IncludeAndNextCol,
            _ => IncludeAndSeekNextRow,
        };
    }
    match (rc, local) {
        (SeekNextUsingHint, SeekNextUsingHint) => SeekNextUsingHint,
        (Skip, _) | (_, Skip) | (SeekNextUsingHint, _) | (_, SeekNextUsingHint) => Skip,
        (NextCol, _) | (_, NextCol) => NextCol,
        _ => NextRow,
    }
}

/// AND or OR over two or more filters.
#[derive(Clone)]
pub struct List {
    and: bool,
    reversed: bool,
    filters: Vec<Box<dyn HFilter>>,
    /// Which filters included the current cell (their transforms apply).
    included: Vec<bool>,
    /// OR only: each filter's previous code and the column (family, qualifier) it was for, so
    /// a filter that said "next column" or "next row" is not asked again about cells it
    /// already skipped (HBASE-17678).
    prev: Vec<Option<(Code, bytes::Bytes, bytes::Bytes)>>,
}

impl List {
    pub fn new(and: bool, filters: Vec<Box<dyn HFilter>>) -> List {
        let n = filters.len();
        List {
            and,
            reversed: false,
            filters,
            included: vec![false; n],
            prev: vec![None; n],
        }
    }

    fn filter_cell_and(&mut self, cell: &Cell) -> Code {
        let mut rc = Code::Include;
        for (i, f) in self.filters.iter_mut().enumerate() {
            self.included[i] = false;
            if f.filter_all_remaining() {
                return Code::NextRow;
            }
            let local = f.filter_cell(cell);
            rc = merge_and(rc, local);
            self.included[i] = local.includes();
        }
        rc
    }

    fn filter_cell_or(&mut self, cell: &Cell) -> Code {
        let mut rc: Option<Code> = None;
        for (i, f) in self.filters.iter_mut().enumerate() {
            self.included[i] = false;
            if f.filter_all_remaining() {
                continue;
            }
            let known = match &self.prev[i] {
                Some((Code::NextCol | Code::IncludeAndNextCol, fam, q))
                    if *fam == cell.family && *q == cell.qualifier =>
                {
                    Some(Code::NextCol)
                }
                Some((Code::NextRow | Code::IncludeAndSeekNextRow, fam, _))
                    if *fam == cell.family =>
                {
                    Some(Code::NextRow)
                }
                _ => None,
            };
            let local = known.unwrap_or_else(|| f.filter_cell(cell));
            self.prev[i] = match local {
                Code::Include | Code::Skip | Code::SeekNextUsingHint => None,
                c => Some((c, cell.family.clone(), cell.qualifier.clone())),
            };
            rc = Some(match rc {
                None => local,
                Some(rc) => merge_or(rc, local),
            });
            self.included[i] = local.includes();
        }
        rc.unwrap_or(Code::Skip)
    }
}

impl HFilter for List {
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        // Every filter sees the row key (PrefixFilter and others keep state from it).
        let mut out = !self.and;
        for f in &mut self.filters {
            let dropped = f.filter_all_remaining() || f.filter_row_key(row);
            if self.and && dropped {
                out = true;
            }
            if !self.and && !dropped {
                out = false;
            }
        }
        out
    }

    fn filter_cell(&mut self, cell: &Cell) -> Code {
        if self.and {
            self.filter_cell_and(cell)
        } else {
            self.filter_cell_or(cell)
        }
    }

    fn transform_cell(&mut self, cell: &Cell) -> Option<Cell> {
        let mut out: Option<Cell> = None;
        for (f, inc) in self.filters.iter_mut().zip(&self.included) {
            if *inc {
                let cur = out.as_ref().unwrap_or(cell);
                if let Some(t) = f.transform_cell(cur) {
                    out = Some(t);
                }
            }
        }
        out
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        for f in &mut self.filters {
            f.filter_row_cells(cells);
        }
    }

    fn filter_row(&mut self) -> bool {
        // Short-circuits as HBase's does: later filters are not asked.
        if self.and {
            self.filters.iter_mut().any(|f| f.filter_row())
        } else {
            self.filters.iter_mut().all(|f| f.filter_row())
        }
    }

    fn has_filter_row(&self) -> bool {
        self.filters.iter().any(|f| f.has_filter_row())
    }

    fn filter_all_remaining(&self) -> bool {
        if self.and {
            self.filters.iter().any(|f| f.filter_all_remaining())
        } else {
            self.filters.iter().all(|f| f.filter_all_remaining())
        }
    }

    fn reset(&mut self) {
        for f in &mut self.filters {
            f.reset();
        }
        self.included.iter_mut().for_each(|i| *i = false);
        self.prev.iter_mut().for_each(|p| *p = None);
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
        for f in &mut self.filters {
            f.set_reversed(reversed);
        }
    }

    fn row_hint(&self, row: &[u8]) -> Option<Vec<u8>> {
        // Furthest along in scan order / nearest.
        let further = |a: Vec<u8>, b: Vec<u8>| {
            if (a > b) != self.reversed {
                a
            } else {
                b
            }
        };
        let nearer = |a: Vec<u8>, b: Vec<u8>| {
            if (a < b) != self.reversed {
                a
            } else {
                b
            }
        };
        let mut hints = self.filters.iter().map(|f| f.row_hint(row));
        if self.and {
            // Any member's hint holds for all; none may jump if one must see every row.
            if self.sees_every_row() {
                return None;
            }
            hints.flatten().reduce(further)
        } else {
            // Every member must rule the rows out.
            hints.try_fold(None, |acc: Option<Vec<u8>>, h| {
                let h = h?;
                Some(Some(match acc {
                    None => h,
                    Some(a) => nearer(a, h),
                }))
            })?
        }
    }

    fn sees_every_row(&self) -> bool {
        self.filters.iter().any(|f| f.sees_every_row())
    }
}

/// `SKIP f`: a row in which `f` does not plainly include every cell is dropped whole.
#[derive(Clone)]
pub struct Skip {
    inner: Box<dyn HFilter>,
    filter_row: bool,
}

impl Skip {
    pub fn new(inner: Box<dyn HFilter>) -> Skip {
        Skip {
            inner,
            filter_row: false,
        }
    }
}

impl HFilter for Skip {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        let rc = self.inner.filter_cell(cell);
        self.filter_row |= rc != Code::Include;
        rc
    }

    fn transform_cell(&mut self, cell: &Cell) -> Option<Cell> {
        self.inner.transform_cell(cell)
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn reset(&mut self) {
        self.inner.reset();
        self.filter_row = false;
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.inner.set_reversed(reversed);
    }
}

/// `WHILE f`: the scan ends at the first row key, cell or row that `f` does not pass.
#[derive(Clone)]
pub struct While {
    inner: Box<dyn HFilter>,
    done: bool,
}

impl While {
    pub fn new(inner: Box<dyn HFilter>) -> While {
        While { inner, done: false }
    }
}

impl HFilter for While {
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.filter_all_remaining() {
            return true;
        }
        let v = self.inner.filter_row_key(row);
        self.done |= v;
        v
    }

    fn filter_cell(&mut self, cell: &Cell) -> Code {
        let rc = self.inner.filter_cell(cell);
        self.done |= rc != Code::Include;
        rc
    }

    fn transform_cell(&mut self, cell: &Cell) -> Option<Cell> {
        self.inner.transform_cell(cell)
    }

    fn filter_row(&mut self) -> bool {
        let v = self.inner.filter_row();
        self.done |= v;
        v
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_all_remaining(&self) -> bool {
        self.done || self.inner.filter_all_remaining()
    }

    fn sees_every_row(&self) -> bool {
        true
    }

    fn reset(&mut self) {
        self.inner.reset();
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.inner.set_reversed(reversed);
    }
}
