//! Filter forms only serialized filters (Thrift2 `filterBytes`) can express: pagination from a
//! qualifier, TimestampsFilter with `can_hint`, RandomRowFilter, and the pass-all / drop-all
//! filters that an empty FilterList or a PrefixFilter without a prefix amount to in HBase.

use super::columns::Timestamps;
use super::eval::{Code, HFilter};
use crate::engine::Cell;

/// What HBase's empty FilterList does: every row and cell passes.
#[derive(Clone, Default)]
pub struct PassAll;

impl HFilter for PassAll {}

/// What HBase's PrefixFilter without a prefix does: every row is dropped (and, unlike a prefix
/// that rows are past, the scan still reads on).
#[derive(Clone, Default)]
pub struct DropAll;

impl HFilter for DropAll {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        true
    }

    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        Code::NextRow
    }

    fn filter_row(&mut self) -> bool {
        true
    }
}

/// ColumnPaginationFilter with a column offset: `limit` columns (newest version of each) from
/// the first qualifier at or after `from`. As in HBase, the qualifier is only compared until a
/// column has been taken, and the count runs across the row's families.
#[derive(Clone)]
pub struct ColumnPaginationFrom {
    pub limit: i64,
    pub from: Vec<u8>,
    count: i64,
}

impl ColumnPaginationFrom {
    pub fn new(limit: i64, from: Vec<u8>) -> Self {
        ColumnPaginationFrom {
            limit,
            from,
            count: 0,
        }
    }
}

impl HFilter for ColumnPaginationFrom {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        if self.count >= self.limit {
            return Code::NextRow;
        }
        if self.count == 0 && cell.qualifier[..] < self.from[..] {
            return Code::SeekNextUsingHint;
        }
        self.count += 1;
        Code::IncludeAndNextCol
    }

    fn reset(&mut self) {
        self.count = 0;
    }
}

/// TimestampsFilter with `can_hint` set: where it would skip a version it asks to seek to the
/// next listed timestamp instead. The engine reads both as a skip, so only the way the code
/// merges in a FilterList differs, as in HBase.
#[derive(Clone)]
pub struct HintingTimestamps(pub Timestamps);

impl HFilter for HintingTimestamps {
    fn filter_cell(&mut self, cell: &Cell) -> Code {
        match self.0.filter_cell(cell) {
            Code::Skip => Code::SeekNextUsingHint,
            other => other,
        }
    }
}

/// HBase's RandomRowFilter: each row is kept with probability `chance`, drawn afresh for every
/// row (and for every scan of it). As in HBase, a row is kept when a uniform draw from [0, 1) is
/// below `chance`, so 0 keeps nothing and 1 keeps everything; a negative chance drops every row
/// and one above 1 keeps every row without drawing; NaN drops every row. A dropped row's cells
/// are skipped and the row is dropped again at its end (HBase's filter has a `filterRow`, so a
/// scan with a batch size cannot use it either).
#[derive(Clone)]
pub struct RandomRow {
    pub chance: f32,
    drop_row: bool,
}

impl RandomRow {
    pub fn new(chance: f32) -> Self {
        RandomRow {
            chance,
            drop_row: false,
        }
    }
}

impl HFilter for RandomRow {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        self.drop_row = if self.chance < 0.0 {
            true
        } else if self.chance > 1.0 {
            false
        } else {
            // Java's Random.nextFloat and rand's f32 are both uniform over [0, 1) in steps of
            // 2^-24. A NaN chance keeps nothing.
            let keep = rand::random::<f32>() < self.chance;
            !keep
        };
        self.drop_row
    }

    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        if self.drop_row {
            Code::NextRow
        } else {
            Code::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.drop_row
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn reset(&mut self) {
        self.drop_row = false;
    }
}
