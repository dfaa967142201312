//! Cells and the mutations that write them.

use bytes::Bytes;

/// HBase's KeyValue types, with HBase's codes (they are also what raw reads report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CellType {
    Put,
    Delete,
    DeleteFamilyVersion,
    DeleteColumn,
    DeleteFamily,
}

impl CellType {
    pub fn code(self) -> u8 {
        match self {
            CellType::Put => 4,
            CellType::Delete => 8,
            CellType::DeleteFamilyVersion => 10,
            CellType::DeleteColumn => 12,
            CellType::DeleteFamily => 14,
        }
    }

    pub fn from_code(code: u8) -> Option<CellType> {
        Some(match code {
            4 => CellType::Put,
            8 => CellType::Delete,
            10 => CellType::DeleteFamilyVersion,
            12 => CellType::DeleteColumn,
            14 => CellType::DeleteFamily,
            _ => return None,
        })
    }

    pub fn is_delete(self) -> bool {
        self != CellType::Put
    }
}

/// One cell as a read returns it. The byte fields are shared buffers: a row's cells share one
/// copy of the row key and of each family name, and a cell's qualifier and value share one
/// allocation, so building results costs about one allocation per cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub row: Bytes,
    pub family: Bytes,
    pub qualifier: Bytes,
    pub timestamp: i64,
    pub cell_type: CellType,
    pub value: Bytes,
}

/// A row as a read returns it: cells ordered family, qualifier ascending, timestamp descending.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowResult {
    pub row: Bytes,
    pub cells: Vec<Cell>,
    /// True when a batch-limited scan cut the row and more of it follows in the next result.
    pub partial: bool,
}

impl RowResult {
    /// The newest value of a column, if the result holds one.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.cells
            .iter()
            .find(|c| {
                c.family == family && c.qualifier == qualifier && c.cell_type == CellType::Put
            })
            .map(|c| &c.value[..])
    }
}

/// How hard a commit must try before a write is acknowledged (HBase's Durability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Use the table's setting (SYNC unless the table says otherwise).
    #[default]
    UseDefault,
    /// Acknowledge only after the commit is on disk.
    Sync,
    /// Same as Sync here: redb has one durable commit level.
    Fsync,
    /// Commit without syncing; a crash may lose the write (and later non-durable ones) until the
    /// next durable commit of the same region.
    AsyncWal,
    /// As AsyncWal: redb has no log to skip.
    SkipWal,
}

impl Durability {
    pub fn is_durable(self) -> bool {
        !matches!(self, Durability::AsyncWal | Durability::SkipWal)
    }
}

/// One change inside a row mutation. A timestamp of None means "now" (for `DeleteVersion`:
/// the newest version's timestamp, as HBase resolves it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Put {
        family: Vec<u8>,
        qualifier: Vec<u8>,
        timestamp: Option<i64>,
        value: Vec<u8>,
    },
    /// Deletes exactly one version of a column.
    DeleteVersion {
        family: Vec<u8>,
        qualifier: Vec<u8>,
        timestamp: Option<i64>,
    },
    /// Deletes every version of a column at or before the timestamp.
    DeleteColumn {
        family: Vec<u8>,
        qualifier: Vec<u8>,
        timestamp: Option<i64>,
    },
    /// Deletes every column of a family at or before the timestamp.
    DeleteFamily {
        family: Vec<u8>,
        timestamp: Option<i64>,
    },
    /// Deletes every column of a family at exactly the timestamp.
    DeleteFamilyVersion { family: Vec<u8>, timestamp: i64 },
    /// Deletes every family of the row at or before the timestamp.
    DeleteRow { timestamp: Option<i64> },
}

impl Op {
    pub fn put(family: &[u8], qualifier: &[u8], value: &[u8]) -> Op {
        Op::Put {
            family: family.to_vec(),
            qualifier: qualifier.to_vec(),
            timestamp: None,
            value: value.to_vec(),
        }
    }

    pub fn put_at(family: &[u8], qualifier: &[u8], ts: i64, value: &[u8]) -> Op {
        Op::Put {
            family: family.to_vec(),
            qualifier: qualifier.to_vec(),
            timestamp: Some(ts),
            value: value.to_vec(),
        }
    }

    pub fn family(&self) -> Option<&[u8]> {
        match self {
            Op::Put { family, .. }
            | Op::DeleteVersion { family, .. }
            | Op::DeleteColumn { family, .. }
            | Op::DeleteFamily { family, .. }
            | Op::DeleteFamilyVersion { family, .. } => Some(family),
            Op::DeleteRow { .. } => None,
        }
    }

    pub fn timestamp(&self) -> Option<i64> {
        match self {
            Op::Put { timestamp, .. }
            | Op::DeleteVersion { timestamp, .. }
            | Op::DeleteColumn { timestamp, .. }
            | Op::DeleteFamily { timestamp, .. }
            | Op::DeleteRow { timestamp } => *timestamp,
            Op::DeleteFamilyVersion { timestamp, .. } => Some(*timestamp),
        }
    }
}

/// Changes to one row, applied all or nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowMutation {
    pub row: Vec<u8>,
    pub ops: Vec<Op>,
    /// Time to live of the cells this mutation puts, in milliseconds (HBase's cell TTL).
    pub ttl_ms: Option<i64>,
    pub durability: Durability,
}

impl RowMutation {
    pub fn new(row: &[u8]) -> RowMutation {
        RowMutation {
            row: row.to_vec(),
            ..Default::default()
        }
    }

    pub fn with(mut self, op: Op) -> RowMutation {
        self.ops.push(op);
        self
    }
}

/// HBase's compare operators for check-and-mutate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Less,
    LessOrEqual,
    Equal,
    NotEqual,
    GreaterOrEqual,
    Greater,
}

impl CompareOp {
    /// HBase compares the value given in the request against the stored one
    /// (`compare(given, stored)`), so `Less` passes when the given value is less than the stored.
    pub fn matches(self, stored: &[u8], given: &[u8]) -> bool {
        let c = given.cmp(stored);
        match self {
            CompareOp::Less => c.is_lt(),
            CompareOp::LessOrEqual => c.is_le(),
            CompareOp::Equal => c.is_eq(),
            CompareOp::NotEqual => c.is_ne(),
            CompareOp::GreaterOrEqual => c.is_ge(),
            CompareOp::Greater => c.is_gt(),
        }
    }
}

/// The condition of a check-and-mutate on one column's newest value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub op: CompareOp,
    /// None means "the column must not exist".
    pub value: Option<Vec<u8>>,
}
