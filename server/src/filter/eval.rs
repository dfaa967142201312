//! How a filter decides, hook by hook, as HBase's Filter interface does, and the adapter that
//! plugs a tree of such filters into the engine's [`Filter`] trait.

use bytes::Bytes;

use crate::engine::{Cell, CellVerdict, Filter, RowVerdict};

/// HBase's Filter.ReturnCode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Include,
    IncludeAndNextCol,
    IncludeAndSeekNextRow,
    Skip,
    NextCol,
    NextRow,
    /// Skip ahead to a cell the filter names. The engine reads it as `Skip`: the filter says
    /// the same of every cell before its hint, so results are the same.
    SeekNextUsingHint,
}

impl Code {
    pub fn includes(self) -> bool {
        matches!(
            self,
            Code::Include | Code::IncludeAndNextCol | Code::IncludeAndSeekNextRow
        )
    }
}

/// One filter of the language, with HBase's hooks. Defaults pass everything. Cloneable because
/// HBase gives every region of a scan a fresh copy of the filter (state such as PageFilter's
/// row count starts over in each region).
pub trait HFilter: Send + dyn_clone::DynClone {
    /// True drops the row before its cells are read.
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }
    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        Code::Include
    }
    /// A replacement for an included cell (None: unchanged).
    fn transform_cell(&mut self, _cell: &Cell) -> Option<Cell> {
        None
    }
    /// May remove cells of the assembled row (only called when `has_filter_row`).
    fn filter_row_cells(&mut self, _cells: &mut Vec<Cell>) {}
    /// True drops the assembled row.
    fn filter_row(&mut self) -> bool {
        false
    }
    fn has_filter_row(&self) -> bool {
        false
    }
    /// True once no later row can pass: the scan ends.
    fn filter_all_remaining(&self) -> bool {
        false
    }
    /// For a row this filter drops by key: a row key no row before which (in scan order) can
    /// pass, so the scan may jump there (see [`Filter::seek_hint`]).
    fn row_hint(&self, _row: &[u8]) -> Option<Vec<u8>> {
        None
    }
    /// True when the filter's state depends on seeing every row key (WHILE): then no other
    /// filter's hint may jump over rows.
    fn sees_every_row(&self) -> bool {
        false
    }
    /// Called before each row.
    fn reset(&mut self) {}
    fn set_reversed(&mut self, _reversed: bool) {}
}

dyn_clone::clone_trait_object!(HFilter);

/// A parsed filter as the engine's filter. Keeps the filter as built (`pristine`) so each region
/// of a scan can start from it, as each HBase region server builds its own copy.
pub struct Compiled {
    root: Box<dyn HFilter>,
    pristine: Box<dyn HFilter>,
    reversed: bool,
}

impl Compiled {
    pub fn new(root: Box<dyn HFilter>) -> Compiled {
        Compiled {
            pristine: root.clone(),
            root,
            reversed: false,
        }
    }
}

impl Filter for Compiled {
    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
        self.root.set_reversed(reversed);
    }

    fn region_start(&mut self) {
        self.root = self.pristine.clone();
        self.root.set_reversed(self.reversed);
    }

    fn row_key(&mut self, row: &[u8]) -> RowVerdict {
        if self.root.filter_all_remaining() {
            return RowVerdict::Stop;
        }
        if self.root.filter_row_key(row) {
            // A filter that just learnt it is past its last row (PrefixFilter,
            // InclusiveStopFilter, WHILE) ends the scan here.
            return if self.root.filter_all_remaining() {
                RowVerdict::Stop
            } else {
                RowVerdict::Skip
            };
        }
        RowVerdict::Include
    }

    fn cell(&mut self, cell: &Cell) -> CellVerdict {
        match self.root.filter_cell(cell) {
            Code::Include => CellVerdict::Include,
            Code::IncludeAndNextCol => CellVerdict::IncludeAndNextColumn,
            Code::IncludeAndSeekNextRow => CellVerdict::IncludeAndNextRow,
            Code::Skip | Code::SeekNextUsingHint => CellVerdict::Skip,
            Code::NextCol => CellVerdict::NextColumn,
            Code::NextRow => CellVerdict::NextRow,
        }
    }

    fn seek_hint(&mut self, row: &[u8]) -> Option<Vec<u8>> {
        self.root.row_hint(row)
    }

    fn transform_value(&mut self, cell: &Cell) -> Option<Bytes> {
        self.root.transform_cell(cell).map(|c| c.value)
    }

    fn row(&mut self, cells: &mut Vec<Cell>) -> bool {
        // HBase's FilterWrapper: row cells first, then filterRow on what is left.
        if self.root.has_filter_row() {
            self.root.filter_row_cells(cells);
            if cells.is_empty() {
                return false;
            }
        }
        !self.root.filter_row()
    }

    fn all_remaining_filtered(&self) -> bool {
        self.root.filter_all_remaining()
    }

    fn reset(&mut self) {
        self.root.reset();
    }

    fn needs_whole_rows(&self) -> bool {
        self.root.has_filter_row()
    }
}

/// Whether a cell is in the column `family:qualifier`.
pub fn same_column(c: &Cell, family: &[u8], qualifier: &[u8]) -> bool {
    c.family == family && c.qualifier == qualifier
}

/// A filter's seek hint if it moves the scan on from `row`: forward, the next row read is the
/// first at or after the hint; reversed, the first below it.
pub fn hint_past(hint: Option<&Vec<u8>>, row: &[u8], reversed: bool) -> Option<Vec<u8>> {
    let h = hint?;
    let moves = if reversed {
        h.as_slice() <= row
    } else {
        h.as_slice() > row
    };
    moves.then(|| h.clone())
}
