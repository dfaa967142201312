//! Cells and the mutations that write them.

use bytes::Bytes;
use smallvec::SmallVec;

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

/// One cell as an owned value: what filters judge and what counters and appends return. The
/// byte fields are shared buffers, so cloning a cell copies no bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub row: Bytes,
    pub family: Bytes,
    pub qualifier: Bytes,
    pub timestamp: i64,
    pub cell_type: CellType,
    pub value: Bytes,
}

impl Cell {
    /// The cell as a borrowed view, the form the gateways convert from.
    pub fn view(&self) -> CellView<'_> {
        CellView {
            row: &self.row,
            family: &self.family,
            qualifier: &self.qualifier,
            timestamp: self.timestamp,
            cell_type: self.cell_type,
            value: &self.value,
        }
    }
}

/// A cell of a [`RowResult`], borrowed from the row's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellView<'a> {
    pub row: &'a [u8],
    pub family: &'a [u8],
    pub qualifier: &'a [u8],
    pub timestamp: i64,
    pub cell_type: CellType,
    pub value: &'a [u8],
}

impl CellView<'_> {
    /// An owned copy of the cell.
    pub fn to_cell(&self) -> Cell {
        Cell {
            row: Bytes::copy_from_slice(self.row),
            family: Bytes::copy_from_slice(self.family),
            qualifier: Bytes::copy_from_slice(self.qualifier),
            timestamp: self.timestamp,
            cell_type: self.cell_type,
            value: Bytes::copy_from_slice(self.value),
        }
    }
}

/// Where a field lies in a row's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    len: u32,
}

/// A cell of a row, as offsets into the row's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CellSpans {
    family: Span,
    qualifier: Span,
    value: Span,
    timestamp: i64,
    cell_type: CellType,
}

/// A row as a read returns it: cells ordered family, qualifier ascending, timestamp descending.
///
/// The row key and every cell's family, qualifier and value live in one buffer, and cells are
/// offsets into it: building a row costs two allocations (buffer and offsets) whatever its cell
/// count, and reading it touches no reference counts. Reads are the hot path, so this is the
/// representation the engine hands out; [`RowResult::to_cells`] gives owned cells when needed.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct RowResult {
    buf: Bytes,
    row_len: u32,
    /// Inline for one-cell rows (the common narrow-table case): one allocation per row.
    cells: SmallVec<[CellSpans; 1]>,
    /// True when a batch-limited scan cut the row and more of it follows in the next result.
    pub partial: bool,
}

impl std::fmt::Debug for RowResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowResult")
            .field("row", &Bytes::copy_from_slice(self.row()))
            .field("cells", &self.iter().collect::<Vec<_>>())
            .field("partial", &self.partial)
            .finish()
    }
}

/// Builds a [`RowResult`]: the row key first, then cells in result order.
pub struct RowBuilder {
    buf: Vec<u8>,
    row_len: u32,
    cells: SmallVec<[CellSpans; 1]>,
    last_family: Option<Span>,
}

impl RowBuilder {
    /// `bytes` and `cells` are capacity hints.
    pub fn new(row: &[u8], bytes: usize, cells: usize) -> RowBuilder {
        let mut buf = Vec::with_capacity(row.len() + bytes);
        buf.extend_from_slice(row);
        RowBuilder {
            buf,
            row_len: row.len() as u32,
            cells: SmallVec::with_capacity(cells),
            last_family: None,
        }
    }

    fn put(&mut self, bytes: &[u8]) -> Span {
        let start = self.buf.len() as u32;
        self.buf.extend_from_slice(bytes);
        Span {
            start,
            len: bytes.len() as u32,
        }
    }

    /// Appends a cell. A family equal to the previous cell's is stored once.
    pub fn push(
        &mut self,
        family: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        cell_type: CellType,
        value: &[u8],
    ) {
        let family = match self.last_family {
            Some(f) if self.slice(f) == family => f,
            _ => {
                let f = self.put(family);
                self.last_family = Some(f);
                f
            }
        };
        let qualifier = self.put(qualifier);
        let value = self.put(value);
        self.cells.push(CellSpans {
            family,
            qualifier,
            value,
            timestamp,
            cell_type,
        });
    }

    fn slice(&self, s: Span) -> &[u8] {
        &self.buf[s.start as usize..(s.start + s.len) as usize]
    }

    pub fn finish(self) -> RowResult {
        RowResult {
            buf: Bytes::from(self.buf),
            row_len: self.row_len,
            cells: self.cells,
            partial: false,
        }
    }
}

impl RowResult {
    /// A row holding copies of `cells` (which should all belong to `row`).
    pub fn from_cells(row: &[u8], cells: &[Cell]) -> RowResult {
        let bytes = cells
            .iter()
            .map(|c| c.family.len() + c.qualifier.len() + c.value.len())
            .sum();
        let mut b = RowBuilder::new(row, bytes, cells.len());
        for c in cells {
            b.push(&c.family, &c.qualifier, c.timestamp, c.cell_type, &c.value);
        }
        b.finish()
    }

    pub fn row(&self) -> &[u8] {
        &self.buf[..self.row_len as usize]
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    fn slice(&self, s: Span) -> &[u8] {
        &self.buf[s.start as usize..(s.start + s.len) as usize]
    }

    fn view(&self, c: &CellSpans) -> CellView<'_> {
        CellView {
            row: self.row(),
            family: self.slice(c.family),
            qualifier: self.slice(c.qualifier),
            timestamp: c.timestamp,
            cell_type: c.cell_type,
            value: self.slice(c.value),
        }
    }

    /// The `i`th cell.
    pub fn cell(&self, i: usize) -> Option<CellView<'_>> {
        self.cells.get(i).map(|c| self.view(c))
    }

    /// The cells in result order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = CellView<'_>> + ExactSizeIterator {
        self.cells.iter().map(|c| self.view(c))
    }

    /// Owned copies of the cells.
    pub fn to_cells(&self) -> Vec<Cell> {
        let row = Bytes::copy_from_slice(self.row());
        let piece = |s: Span| self.buf.slice(s.start as usize..(s.start + s.len) as usize);
        self.cells
            .iter()
            .map(|c| Cell {
                row: row.clone(),
                family: piece(c.family),
                qualifier: piece(c.qualifier),
                timestamp: c.timestamp,
                cell_type: c.cell_type,
                value: piece(c.value),
            })
            .collect()
    }

    /// Splits the row after its first `at` cells and returns the rest (sharing the buffer).
    pub fn split_off(&mut self, at: usize) -> RowResult {
        RowResult {
            buf: self.buf.clone(),
            row_len: self.row_len,
            cells: self.cells.drain(at..).collect(),
            partial: false,
        }
    }

    /// The newest value of a column, if the result holds one.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.cells
            .iter()
            .find(|c| {
                c.cell_type == CellType::Put
                    && self.slice(c.family) == family
                    && self.slice(c.qualifier) == qualifier
            })
            .map(|c| self.slice(c.value))
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
