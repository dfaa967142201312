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

/// Bytes of one cell record in a row buffer's cell table: family, qualifier and value as
/// (offset, length) pairs of u32, the timestamp (i64) and the type code, little-endian.
const RECORD: usize = 6 * 4 + 8 + 1;

/// A row as a read returns it: cells ordered family, qualifier ascending, timestamp descending.
///
/// The whole row is one buffer: the row key, then every cell's family, qualifier and value
/// bytes, then a table of fixed-size cell records (offsets into the buffer). Building a row is
/// one allocation whatever its cell count, the struct stays small to move, and reading it
/// touches no reference counts. Reads are the hot path, so this is what the engine hands out;
/// [`RowResult::iter`] gives borrowed cells and [`RowResult::to_cells`] owned ones.
#[derive(Clone, Default)]
pub struct RowResult {
    buf: Bytes,
    row_len: u32,
    /// Where the cell table starts in `buf`.
    table: u32,
    /// The cells this result holds: table records `first..first + count` (a batch split
    /// shares the buffer and takes a sub-range).
    first: u32,
    count: u32,
    /// True when a batch-limited scan cut the row and more of it follows in the next result.
    pub partial: bool,
}

/// Equal when the row key, the cells and `partial` are, however the buffers are laid out.
impl PartialEq for RowResult {
    fn eq(&self, other: &RowResult) -> bool {
        self.row() == other.row() && self.partial == other.partial && self.iter().eq(other.iter())
    }
}

impl Eq for RowResult {}

impl std::fmt::Debug for RowResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowResult")
            .field("row", &Bytes::copy_from_slice(self.row()))
            .field("cells", &self.iter().collect::<Vec<_>>())
            .field("partial", &self.partial)
            .finish()
    }
}

/// A cell record before it is written into the table.
#[derive(Clone, Copy)]
struct Record {
    family: (u32, u32),
    qualifier: (u32, u32),
    value: (u32, u32),
    timestamp: i64,
    cell_type: CellType,
}

/// Builds a [`RowResult`]: the row key first, then cells in result order.
///
/// A builder may also append its row to a buffer that already holds other rows
/// ([`RowBuilder::append_to`]): a scan builds a whole chunk of rows in one allocation, and
/// each result is a slice of it.
pub struct RowBuilder {
    buf: Vec<u8>,
    /// Where this row starts in `buf`; every offset the row records is relative to it.
    base: u32,
    row_len: u32,
    records: SmallVec<[Record; 4]>,
    last_family: Option<(u32, u32)>,
}

impl RowBuilder {
    /// `bytes` (family, qualifier and value bytes) and `cells` are capacity hints: with exact
    /// hints the row is built in a single allocation.
    pub fn new(row: &[u8], bytes: usize, cells: usize) -> RowBuilder {
        RowBuilder::append_to(
            Vec::with_capacity(row.len() + bytes + cells * RECORD),
            row,
            bytes,
            cells,
        )
    }

    /// Starts a row at the end of `buf`; [`RowBuilder::finish_span`] hands the buffer back.
    pub fn append_to(mut buf: Vec<u8>, row: &[u8], bytes: usize, cells: usize) -> RowBuilder {
        buf.reserve(row.len() + bytes + cells * RECORD);
        let base = buf.len() as u32;
        buf.extend_from_slice(row);
        RowBuilder {
            buf,
            base,
            row_len: row.len() as u32,
            records: SmallVec::new(),
            last_family: None,
        }
    }

    fn put(&mut self, bytes: &[u8]) -> (u32, u32) {
        let start = self.buf.len() as u32 - self.base;
        self.buf.extend_from_slice(bytes);
        (start, bytes.len() as u32)
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
        let base = self.base as usize;
        let family = match self.last_family {
            Some((at, len))
                if &self.buf[base + at as usize..base + (at + len) as usize] == family =>
            {
                (at, len)
            }
            _ => {
                let f = self.put(family);
                self.last_family = Some(f);
                f
            }
        };
        let qualifier = self.put(qualifier);
        let value = self.put(value);
        self.records.push(Record {
            family,
            qualifier,
            value,
            timestamp,
            cell_type,
        });
    }

    pub fn finish(self) -> RowResult {
        let (buf, span) = self.finish_span();
        span.result(Bytes::from(buf))
    }

    /// Writes the cell table and returns the buffer with where the row lies in it.
    pub fn finish_span(mut self) -> (Vec<u8>, RowSpan) {
        let table = self.buf.len() as u32 - self.base;
        self.buf.reserve_exact(self.records.len() * RECORD);
        for r in &self.records {
            let mut rec = [0u8; RECORD];
            for (i, (at, len)) in [r.family, r.qualifier, r.value].into_iter().enumerate() {
                rec[i * 8..i * 8 + 4].copy_from_slice(&at.to_le_bytes());
                rec[i * 8 + 4..i * 8 + 8].copy_from_slice(&len.to_le_bytes());
            }
            rec[24..32].copy_from_slice(&r.timestamp.to_le_bytes());
            rec[32] = r.cell_type.code();
            self.buf.extend_from_slice(&rec);
        }
        let span = RowSpan {
            start: self.base as usize,
            end: self.buf.len(),
            row_len: self.row_len,
            table,
            count: self.records.len() as u32,
        };
        (self.buf, span)
    }
}

/// Where a built row lies in a shared buffer.
#[derive(Debug, Clone, Copy)]
pub struct RowSpan {
    start: usize,
    end: usize,
    row_len: u32,
    table: u32,
    count: u32,
}

impl RowSpan {
    /// The row as a result. `buf` is the row's own bytes: the whole buffer when the row was
    /// built alone, `shared.slice(span.range())` when it shares one.
    pub fn result(&self, buf: Bytes) -> RowResult {
        RowResult {
            buf,
            row_len: self.row_len,
            table: self.table,
            first: 0,
            count: self.count,
            partial: false,
        }
    }

    /// Where the row lies in the buffer it was built in.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start..self.end
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
        self.count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn u32_at(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.buf[at..at + 4].try_into().expect("4 bytes"))
    }

    fn span(&self, at: usize) -> &[u8] {
        let start = self.u32_at(at) as usize;
        let len = self.u32_at(at + 4) as usize;
        &self.buf[start..start + len]
    }

    /// The cell of table record `index` (absolute, not counting from `first`).
    fn record(&self, index: u32) -> CellView<'_> {
        let at = self.table as usize + index as usize * RECORD;
        let ts = &self.buf[at + 24..at + 32];
        CellView {
            row: self.row(),
            family: self.span(at),
            qualifier: self.span(at + 8),
            timestamp: i64::from_le_bytes(ts.try_into().expect("8 bytes")),
            // Only codes written by `finish` are stored.
            cell_type: CellType::from_code(self.buf[at + 32]).unwrap_or(CellType::Put),
            value: self.span(at + 16),
        }
    }

    /// The cells in result order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = CellView<'_>> + ExactSizeIterator {
        (self.first..self.first + self.count).map(|i| self.record(i))
    }

    /// Owned copies of the cells.
    pub fn to_cells(&self) -> Vec<Cell> {
        let row = Bytes::copy_from_slice(self.row());
        let piece = |s: &[u8]| self.buf.slice_ref(s);
        self.iter()
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
        let at = (at as u32).min(self.count);
        let tail = RowResult {
            buf: self.buf.clone(),
            row_len: self.row_len,
            table: self.table,
            first: self.first + at,
            count: self.count - at,
            partial: false,
        };
        self.count = at;
        tail
    }

    /// The newest value of a column, if the result holds one.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.iter()
            .find(|c| {
                c.cell_type == CellType::Put && c.family == family && c.qualifier == qualifier
            })
            .map(|c| c.value)
    }
}

/// How hard a commit must try before a write is acknowledged (HBase's Durability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Use the table's setting (SYNC unless the table says otherwise).
    #[default]
    UseDefault,
    /// Acknowledge only after the batch is on disk: synced in the region's redo log (HBase
    /// flushes such edits without syncing them; here a single machine's disk is the only copy).
    Sync,
    /// Same as Sync here.
    Fsync,
    /// Acknowledge before any fsync: the batch is appended (one write(2), no fsync) to the
    /// region's redo log before redb commits it without syncing. A process
    /// crash loses none of these writes (the log is replayed when the region opens); a power
    /// loss may lose those of the last `EngineConfig::async_flush` (1 s by default), after
    /// which a background durable commit covers them.
    AsyncWal,
    /// As AsyncWal: the redo log is what keeps an acknowledged write across a process crash,
    /// so it is not skipped.
    SkipWal,
}

impl Durability {
    pub fn is_durable(self) -> bool {
        !matches!(self, Durability::AsyncWal | Durability::SkipWal)
    }
}

/// HBase's `HConstants.LATEST_TIMESTAMP` (2^63-1). A client sending it means "the server's
/// clock": HBase's Java client puts it on every Put and Delete without an explicit timestamp.
pub const LATEST_TIMESTAMP: i64 = i64::MAX;

/// A client's timestamp as a write reads it: [`LATEST_TIMESTAMP`] is the same as none given.
pub fn write_timestamp(ts: Option<i64>) -> Option<i64> {
    ts.filter(|&t| t != LATEST_TIMESTAMP)
}

/// The current time in milliseconds since the epoch: the timestamp of a write that names none,
/// and the "now" reads measure TTLs against.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// One change inside a row mutation. A timestamp of None (or [`LATEST_TIMESTAMP`]) means "now"
/// (for `DeleteVersion`: the newest version's timestamp, as HBase resolves it).
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
