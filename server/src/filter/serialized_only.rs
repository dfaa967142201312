//! Filter forms only serialized filters (Thrift2 `filterBytes`) can express: pagination from a
//! qualifier, TimestampsFilter with `can_hint`, and the pass-all / drop-all filters that an
//! empty FilterList or a PrefixFilter without a prefix amount to in HBase.

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
