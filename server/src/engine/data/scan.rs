//! Scanners: a cursor over a table's rows that walks region by region in chunks. Each chunk is
//! read under its own snapshot of one region, so a scanner survives splits and compactions
//! (as an HBase scanner does across region moves) and holds no transaction between calls.

use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use smallvec::SmallVec;

use crate::engine::model::cell::{now_ms, RowBuilder, RowResult, RowSpan};
use crate::engine::model::error::{ReadError, StorageError};
use crate::engine::model::keys::{self, CellKey};
use crate::engine::model::region_info::RegionMeta;
use crate::engine::model::schema::TableDescriptor;
use crate::engine::reads::read::{FamilyRead, Pending, RawEntry, RowVerdict, Scan};
use crate::engine::reads::read_plan::{pending_row, ReadCounter, ReadPlan, Visible};
use crate::engine::regions::region::Region;
use crate::engine::store::memtable::{FamilyMap, MemKey};
use crate::engine::store::snapshot::Snapshot;
use crate::engine::Engine;

use super::pace::Pace;

/// Rows read from one region per chunk.
const CHUNK_ROWS: usize = 256;

/// Where the scanner goes next.
#[derive(Debug, Clone)]
enum Position {
    /// Forward: the next row to read is at or after this one.
    From(Vec<u8>),
    /// Reversed: the next row to read is strictly before this one (None = the table's end).
    Before(Option<Vec<u8>>),
    Done,
}

/// An open scan. Yields rows (or row pieces when `batch` is set) in scan order.
pub struct Scanner {
    engine: Engine,
    table: String,
    scan: Scan,
    pos: Position,
    buffer: VecDeque<RowResult>,
    rows_returned: usize,
    /// The start key of the region the filter's state belongs to: entering another region
    /// gives the filter a fresh start, as HBase does.
    filter_region: Option<Vec<u8>>,
    /// Rows returned from this region in the current round trip of HBase's client (see
    /// [`Scan::caching`]).
    round_trip_rows: usize,
    /// An error the first read reports (a scanner opened lazily on a table that is not there).
    failed: Option<ReadError>,
    /// A reversed scan reads its stop row too ([`Scanner::include_stop`]).
    include_stop: bool,
    /// Rows read so far, and of those the ones the filter left nothing of (HBase's
    /// ROWS_SCANNED and ROWS_FILTERED scan metrics; rows read ahead count when read).
    rows_scanned: u64,
    rows_filtered: u64,
    /// The caller's round trip time limit and the last row read ([`Scanner::pace`]).
    pace: Pace,
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanner")
            .field("table", &self.table)
            .field("pos", &self.pos)
            .finish()
    }
}

impl Scanner {
    pub(crate) fn new(engine: Engine, table: String, mut scan: Scan) -> Scanner {
        if !scan.start.is_empty() && scan.start == scan.stop {
            // HBase reads a scan whose start and stop rows are equal as a get of that row
            // (Scan.isGetScan), in either direction: one row, the same forward or reversed.
            scan.stop.push(0);
            scan.reversed = false;
        }
        if let Some(f) = scan.options.filter.as_deref_mut() {
            f.set_reversed(scan.reversed);
        }
        let pos = if scan.reversed {
            Position::Before(if scan.start.is_empty() {
                None
            } else {
                let mut s = scan.start.clone();
                s.push(0);
                Some(s)
            })
        } else {
            Position::From(scan.start.clone())
        };
        Scanner {
            engine,
            table,
            scan,
            pos,
            buffer: VecDeque::new(),
            rows_returned: 0,
            filter_region: None,
            round_trip_rows: 0,
            failed: None,
            include_stop: false,
            rows_scanned: 0,
            rows_filtered: 0,
            pace: Pace::default(),
        }
    }

    /// Starts a round trip of the caller that must end by `deadline` (None: no limit). Past
    /// it, the scanner stops between rows after reading at least one: it then yields nothing
    /// more ([`Scanner::paused`]) until the next call of this, and goes on after the last row
    /// it read. Rows it already buffered come first.
    pub fn pace(&mut self, deadline: Option<Instant>) {
        self.pace.start(deadline);
    }

    /// Whether the round trip stopped at its deadline (the scan is not over).
    pub fn paused(&self) -> bool {
        self.pace.paused() && self.buffer.is_empty()
    }

    /// Keeps the last row read, filtered or not ([`Scanner::cursor`]).
    pub fn track_cursor(mut self) -> Scanner {
        self.pace.track_cursor();
        self
    }

    /// The last row read, filtered or not, when tracked (HBase's scan cursor): every row up to
    /// it was yielded or left out by the scan.
    pub fn cursor(&self) -> Option<&[u8]> {
        self.pace.cursor()
    }

    /// Rows read so far and, of those, the ones the filter removed.
    pub fn rows_scanned(&self) -> (u64, u64) {
        (self.rows_scanned, self.rows_filtered)
    }

    /// Whether the scan's filter says no later row can pass (HBase's `isFilterDone`).
    pub fn filter_done(&self) -> bool {
        self.scan
            .options
            .filter
            .as_ref()
            .is_some_and(|f| f.all_remaining_filtered())
    }

    /// Starts just past the start row instead of at it (HBase's `includeStartRow = false`),
    /// in either direction. Call before the first read.
    pub(crate) fn exclude_start(mut self) -> Scanner {
        if !self.scan.start.is_empty() && self.rows_returned == 0 {
            self.pos = if self.scan.reversed {
                Position::Before(Some(self.scan.start.clone()))
            } else {
                let mut s = self.scan.start.clone();
                s.push(0);
                Position::From(s)
            };
        }
        self
    }

    /// Reads the stop row too (HBase's `includeStopRow = true`), in either direction. Call
    /// before the first read.
    pub(crate) fn include_stop(mut self) -> Scanner {
        if !self.scan.stop.is_empty() {
            if self.scan.reversed {
                self.include_stop = true;
            } else {
                self.scan.stop.push(0);
            }
        }
        self
    }

    /// A scanner whose first read fails with `error`, and that is done after it.
    pub(crate) fn failed(engine: Engine, table: String, error: ReadError) -> Scanner {
        let mut s = Scanner::new(engine, table, Scan::default());
        s.pos = Position::Done;
        s.failed = Some(error);
        s
    }

    /// Up to `n` more results.
    pub fn next_batch(&mut self, n: usize) -> Result<Vec<RowResult>, ReadError> {
        let mut out = Vec::with_capacity(n.min(1024));
        while out.len() < n {
            match self.next() {
                Some(Ok(r)) => out.push(r),
                Some(Err(e)) => return Err(e),
                None => break,
            }
        }
        Ok(out)
    }

    fn limit_reached(&self) -> bool {
        self.scan.limit > 0 && self.rows_returned >= self.scan.limit
    }

    fn fill(&mut self) -> Result<(), ReadError> {
        while self.buffer.is_empty() && !matches!(self.pos, Position::Done) {
            if self.pace.time_up() {
                break;
            }
            let t = self.engine.serving(&self.table)?;
            let desc = t.desc.clone();
            let region = match &self.pos {
                Position::From(row) => t.regions.range(..=row.clone()).next_back(),
                Position::Before(None) => t.regions.iter().next_back(),
                Position::Before(Some(row)) => t.regions.range(..row.clone()).next_back(),
                Position::Done => None,
            }
            .map(|(_, r)| r.clone());
            let Some(region) = region else {
                self.pos = Position::Done;
                break;
            };
            if self.filter_region.as_ref() != Some(&region.meta.start) {
                if self.filter_region.is_some() {
                    if let Some(f) = self.scan.options.filter.as_deref_mut() {
                        f.region_start();
                    }
                }
                self.filter_region = Some(region.meta.start.clone());
                self.round_trip_rows = 0;
            }
            let mut built = ChunkRows::default();
            let chunk = self.read_chunk(&desc, &region, &mut built)?;
            built.flush(&mut self.buffer);
            self.pos = chunk.next;
            if chunk.stop {
                self.pos = Position::Done;
            }
        }
        Ok(())
    }

    /// The rows the next chunk of the region `meta` covers: the scan's bounds intersected with
    /// the region's, from the scanner's position (low inclusive, high exclusive, None = open).
    fn row_bounds(&self, meta: &RegionMeta) -> (Vec<u8>, Option<Vec<u8>>) {
        if self.scan.reversed {
            let Position::Before(upper) = &self.pos else {
                unreachable!("reversed scans use Before")
            };
            let mut lo = meta.start.clone();
            if !self.scan.stop.is_empty() {
                let mut s = self.scan.stop.clone();
                if !self.include_stop {
                    s.push(0);
                }
                lo = lo.max(s);
            }
            let hi = match (upper, meta.end.is_empty()) {
                (Some(u), true) => Some(u.clone()),
                (Some(u), false) => Some(u.clone().min(meta.end.clone())),
                (None, true) => None,
                (None, false) => Some(meta.end.clone()),
            };
            (lo, hi)
        } else {
            let Position::From(from) = &self.pos else {
                unreachable!("forward scans use From")
            };
            let lo = from.clone().max(meta.start.clone());
            let hi = match (self.scan.stop.is_empty(), meta.end.is_empty()) {
                (true, true) => None,
                (true, false) => Some(meta.end.clone()),
                (false, true) => Some(self.scan.stop.clone()),
                (false, false) => Some(self.scan.stop.clone().min(meta.end.clone())),
            };
            (lo, hi)
        }
    }

    /// Reads up to CHUNK_ROWS rows of `region` into `built` (rows that fill a shared buffer
    /// move on to the scanner's buffer early).
    fn read_chunk(
        &mut self,
        desc: &TableDescriptor,
        region: &Arc<Region>,
        built: &mut ChunkRows,
    ) -> Result<Chunk, ReadError> {
        let reversed = self.scan.reversed;
        let meta = &region.meta;
        let (lo_row, hi_row) = self.row_bounds(meta);
        let lo_key = keys::row_start(&lo_row);
        let hi_key = hi_row.as_ref().map(|h| keys::row_start(h));
        let after_region = || position_after(meta, &self.scan.stop, reversed);
        if hi_row.as_ref().is_some_and(|h| h <= &lo_row) {
            return Ok(Chunk {
                next: after_region(),
                stop: false,
            });
        }

        let snap = region
            .snapshots
            .current(|| region.file.begin_snapshot(), desc)?;
        let now = now_ms();
        let (plan, filter) = ReadPlan::new(desc, &mut self.scan.options, now);
        let all_cells = plan.all_cells();
        // Whether the scan's row limit is reached with this many rows built and buffered.
        let (limit, returned) = (self.scan.limit, self.rows_returned);
        let full = |held: usize| limit > 0 && returned + held >= limit;
        let (mut cursors, families) =
            open_cursors(&snap, &plan, &lo_key, hi_key.as_deref(), reversed, region)?;

        let mut counter = ReadCounter::new(&region.stats);
        let mut seen = 0usize;
        loop {
            if filter.as_ref().is_some_and(|f| f.all_remaining_filtered()) {
                return Ok(filter_done(self.round_trip_rows, after_region()));
            }
            // The row is borrowed from the cursors until they move on.
            let Some(row) = first_row(&cursors, reversed) else {
                return Ok(Chunk {
                    next: after_region(),
                    stop: false,
                });
            };
            if seen >= CHUNK_ROWS || self.pace.time_up() {
                // Resume at this row next time.
                return Ok(Chunk {
                    next: resume_at(row, reversed),
                    stop: false,
                });
            }
            seen += 1;
            self.rows_scanned += 1;
            self.pace.read(row);
            // The common case, a table read through one family with rows of one plain put,
            // skips the general per-row assembly (same result, a fraction of the work).
            if let ([c], [fr], None, true) = (&cursors[..], &families[..], &filter, all_cells) {
                if let [e] = c.row.as_slice() {
                    if let Some(cell) = fr.single_put(e) {
                        counter.rows += 1;
                        counter.bytes += e.stored_len();
                        let found = cell.is_some();
                        if let Some(cell) = cell {
                            built.push_cells(row, std::slice::from_ref(&cell), &mut self.buffer);
                        }
                        cursors[0].next_row().map_err(|e| region.storage_err(e))?;
                        if found && full(self.buffer.len() + built.len()) {
                            return Ok(Chunk {
                                next: Position::Done,
                                stop: true,
                            });
                        }
                        continue;
                    }
                }
            }
            // The cursors at this row; the others are at a later one.
            let at: SmallVec<[bool; 4]> =
                cursors.iter().map(|c| c.row_key() == Some(row)).collect();
            let verdict = match filter.as_deref_mut() {
                Some(f) => {
                    f.reset();
                    f.row_key(row)
                }
                None => RowVerdict::Include,
            };
            if verdict == RowVerdict::Stop {
                return Ok(filter_done(self.round_trip_rows, after_region()));
            }
            let mut found = false;
            if verdict == RowVerdict::Skip {
                let hint = filter.as_deref_mut().and_then(|f| f.seek_hint(row));
                // Jump: the next chunk starts at the hint.
                if let Some(next) = hint.and_then(|h| seek_position(h, row, reversed)) {
                    return Ok(Chunk { next, stop: false });
                }
            } else {
                // Each family's entries of this row (none where its cursor is elsewhere).
                let per_family: SmallVec<[&[RawEntry]; 4]> = cursors
                    .iter()
                    .zip(&at)
                    .map(|(c, &here)| if here { c.row.as_slice() } else { &[] })
                    .collect();
                let visible = plan.visible(&families, row, &per_family, filter, &mut counter);
                if let Some(v) = visible {
                    built.push(row, v, &mut self.buffer);
                    found = true;
                    if let Some(f) = filter.as_deref() {
                        self.round_trip_rows += 1;
                        if f.all_remaining_filtered() {
                            // Done right after a row: that row's round trip ends the region,
                            // not the scan.
                            return Ok(Chunk {
                                next: after_region(),
                                stop: false,
                            });
                        }
                        if self.scan.caching > 0 && self.round_trip_rows >= self.scan.caching {
                            self.round_trip_rows = 0;
                        }
                    }
                }
            }
            if !found && filter.is_some() {
                self.rows_filtered += 1;
            }
            for (c, _) in cursors.iter_mut().zip(&at).filter(|(_, &here)| here) {
                c.next_row().map_err(|e| region.storage_err(e))?;
            }
            if found && full(self.buffer.len() + built.len()) {
                return Ok(Chunk {
                    next: Position::Done,
                    stop: true,
                });
            }
        }
    }
}

/// Where a scan goes once a region's filter is done (HBase's RSRpcServices): with rows already
/// in the current round trip, on to the next region (whose fresh filter starts over); with none,
/// the whole scan ends.
fn filter_done(round_trip_rows: usize, after_region: Position) -> Chunk {
    if round_trip_rows > 0 {
        Chunk {
            next: after_region,
            stop: false,
        }
    } else {
        Chunk {
            next: Position::Done,
            stop: true,
        }
    }
}

/// Where a scan goes once it has read the region `meta` to its end: on to the next region, or
/// done when the region is the table's last or ends at or past the scan's stop row.
fn position_after(meta: &RegionMeta, stop: &[u8], reversed: bool) -> Position {
    if reversed {
        if meta.start.is_empty() || (!stop.is_empty() && meta.start.as_slice() <= stop) {
            Position::Done
        } else {
            Position::Before(Some(meta.start.clone()))
        }
    } else if meta.end.is_empty() || (!stop.is_empty() && meta.end.as_slice() >= stop) {
        Position::Done
    } else {
        Position::From(meta.end.clone())
    }
}

/// Where the next chunk starts when this one ends at `row`, unread.
fn resume_at(row: &[u8], reversed: bool) -> Position {
    if reversed {
        let mut r = row.to_vec();
        r.push(0);
        Position::Before(Some(r))
    } else {
        Position::From(row.to_vec())
    }
}

/// Where a filter's seek hint for `row` sends the scan, if it moves the scan on (a hint that
/// does not is ignored).
fn seek_position(hint: Vec<u8>, row: &[u8], reversed: bool) -> Option<Position> {
    if !reversed && hint.as_slice() > row {
        Some(Position::From(hint))
    } else if reversed && hint.as_slice() <= row {
        Some(Position::Before(Some(hint)))
    } else {
        None
    }
}

/// The next row in scan order among the cursors' rows, None when every cursor is done.
fn first_row(cursors: &[Cursor], reversed: bool) -> Option<&[u8]> {
    cursors
        .iter()
        .filter_map(|c| c.row_key())
        .fold(None::<&[u8]>, |acc, r| match acc {
            None => Some(r),
            Some(a) if (reversed && r > a) || (!reversed && r < a) => Some(r),
            a => a,
        })
}

/// A cursor over the keys `[lo_key, hi_key)` of each of the plan's families the snapshot has,
/// at its first row, and those families (in the same order).
fn open_cursors<'p, 'a>(
    snap: &Snapshot,
    plan: &'p ReadPlan<'a>,
    lo_key: &[u8],
    hi_key: Option<&[u8]>,
    reversed: bool,
    region: &Region,
) -> Result<CursorSet<'p, 'a>, StorageError> {
    let mut cursors: SmallVec<[Cursor; 4]> = SmallVec::new();
    let mut families: SmallVec<[&FamilyRead<'_>; 4]> = SmallVec::new();
    for fr in &plan.families {
        let table = snap.table(fr.family).map_err(|e| region.storage_err(e))?;
        let buffer = snap.mem.family(fr.family);
        if table.is_none() && buffer.is_none() {
            continue;
        }
        let bounds: (Bound<&[u8]>, Bound<&[u8]>) = (
            Bound::Included(lo_key),
            match hi_key {
                Some(h) => Bound::Excluded(h),
                None => Bound::Unbounded,
            },
        );
        let iter = match table {
            Some(t) => Some(
                t.range::<&[u8]>(bounds)
                    .map_err(|e| region.storage_err(e))?,
            ),
            None => None,
        };
        let mut c = Cursor {
            iter,
            stored_head: None,
            stored_done: false,
            buffer: buffer.map(|m| BufferCursor::new(m, lo_key, hi_key)),
            row: Vec::new(),
            ahead: Vec::new(),
            reversed,
        };
        c.next_row().map_err(|e| region.storage_err(e))?;
        cursors.push(c);
        families.push(fr);
    }
    Ok((cursors, families))
}

/// The cursors of a chunk and the families they read, index for index.
type CursorSet<'p, 'a> = (SmallVec<[Cursor; 4]>, SmallVec<[&'p FamilyRead<'a>; 4]>);

/// The rows of a chunk, built into shared buffers: each result is then a slice of one
/// allocation, since a malloc and a free per row cost more than copying the row.
#[derive(Default)]
struct ChunkRows {
    buf: Vec<u8>,
    rows: Vec<Built>,
}

enum Built {
    /// A row inside `buf`.
    Span(RowSpan),
    /// A row with a buffer of its own (rewritten by a filter, or large).
    Own(RowResult),
}

/// A shared buffer is handed out once it holds this many bytes, so a chunk of large rows
/// never grows one buffer without bound; a row this large gets a buffer of its own.
const SHARED_BUFFER: usize = 64 * 1024;
/// The first reservation of a shared buffer.
const SHARED_START: usize = 16 * 1024;

impl ChunkRows {
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn push(&mut self, row: &[u8], v: Visible<'_>, out: &mut VecDeque<RowResult>) {
        match v {
            Visible::Row(r) => self.rows.push(Built::Own(r)),
            Visible::Cells(p) => self.push_cells(row, &p, out),
        }
    }

    fn push_cells(&mut self, row: &[u8], pending: &[Pending<'_>], out: &mut VecDeque<RowResult>) {
        let mut own = false;
        let buf = &mut self.buf;
        let b = pending_row(
            |row, bytes, cells| {
                if row.len() + bytes >= SHARED_BUFFER {
                    own = true;
                    return RowBuilder::new(row, bytes, cells);
                }
                if buf.capacity() == 0 {
                    buf.reserve(SHARED_START);
                }
                RowBuilder::append_to(std::mem::take(buf), row, bytes, cells)
            },
            row,
            pending,
        );
        if own {
            self.rows.push(Built::Own(b.finish()));
            return;
        }
        let (buf, span) = b.finish_span();
        self.buf = buf;
        self.rows.push(Built::Span(span));
        if self.buf.len() >= SHARED_BUFFER {
            self.flush(out);
        }
    }

    /// Hands the rows built so far to `out`, in order.
    fn flush(&mut self, out: &mut VecDeque<RowResult>) {
        let shared = Bytes::from(std::mem::take(&mut self.buf));
        for b in self.rows.drain(..) {
            out.push_back(match b {
                Built::Span(s) => s.result(shared.slice(s.range())),
                Built::Own(r) => r,
            });
        }
    }
}

/// Where a chunk read left off (its rows went into the scanner's buffer).
struct Chunk {
    next: Position,
    stop: bool,
}

/// One family's entries in a chunk's key range, a row at a time.
struct Cursor {
    /// The file's entries (None: the file has no table for the family).
    iter: Option<redb::Range<'static, CellKey, &'static [u8]>>,
    /// With a buffer to merge: the file's next entry, read ahead.
    stored_head: Option<RawEntry>,
    stored_done: bool,
    /// The family's entries in the region's write buffer, when it has any.
    buffer: Option<BufferCursor>,
    /// The entries of the row the cursor is at, in key order; empty once the range is done.
    row: Vec<RawEntry>,
    /// The first entry of the following row, when already read (at most one). Entries go
    /// straight to where they belong: an entry is 200 bytes, so every move shows.
    ahead: Vec<RawEntry>,
    reversed: bool,
}

impl Cursor {
    /// The row the cursor is at.
    fn row_key(&self) -> Option<&[u8]> {
        self.row.first().map(|e| keys::row_of(e.key()))
    }

    /// Drops the current row's entries and reads the next row's.
    fn next_row(&mut self) -> Result<(), redb::StorageError> {
        self.row.clear();
        std::mem::swap(&mut self.row, &mut self.ahead);
        while self.step()? {}
        if self.reversed {
            self.row.reverse();
        }
        Ok(())
    }

    /// Reads one entry: into `row` when it starts or continues that row (true), into `ahead`
    /// when it belongs to the next row (false). False at the end of the range.
    fn step(&mut self) -> Result<bool, redb::StorageError> {
        let Some(e) = self.next_entry()? else {
            return Ok(false);
        };
        let same_row = self
            .row
            .first()
            .is_none_or(|f| keys::row_of(f.key()) == keys::row_of(e.key()));
        if same_row {
            self.row.push(e);
            Ok(true)
        } else {
            self.ahead.push(e);
            Ok(false)
        }
    }

    /// The next entry in the scan's direction: the file's, merged with the buffer's when the
    /// family has buffered cells (on a key both hold, the buffer's copy).
    fn next_entry(&mut self) -> Result<Option<RawEntry>, redb::StorageError> {
        let Some(buffer) = self.buffer.as_mut() else {
            return self.next_stored();
        };
        if buffer.head.is_none() && !buffer.done {
            buffer.head = buffer.next(self.reversed);
            buffer.done = buffer.head.is_none();
        }
        if self.stored_head.is_none() && !self.stored_done {
            self.stored_head = self.next_stored()?;
            self.stored_done = self.stored_head.is_none();
        }
        let buffer = self.buffer.as_mut().expect("checked above");
        let order = match (&self.stored_head, &buffer.head) {
            (Some(s), Some(b)) => {
                let o = keys::compare(s.key(), b.key());
                if self.reversed {
                    o.reverse()
                } else {
                    o
                }
            }
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => return Ok(None),
        };
        Ok(match order {
            std::cmp::Ordering::Less => self.stored_head.take(),
            std::cmp::Ordering::Greater => buffer.head.take(),
            std::cmp::Ordering::Equal => {
                self.stored_head = None;
                buffer.head.take()
            }
        })
    }

    fn next_stored(&mut self) -> Result<Option<RawEntry>, redb::StorageError> {
        let Some(iter) = self.iter.as_mut() else {
            return Ok(None);
        };
        let item = if self.reversed {
            iter.next_back()
        } else {
            iter.next()
        };
        match item {
            None => Ok(None),
            Some(item) => {
                let (k, v) = item?;
                Ok(Some(RawEntry::guarded(k, v)))
            }
        }
    }
}

/// A position in one family's buffered entries within a chunk's key range. The map is a cheap
/// copy of the snapshot's; each step looks up the entry after the last one taken.
struct BufferCursor {
    map: FamilyMap,
    lo: MemKey,
    hi: Option<MemKey>,
    /// The last key taken (None: none yet).
    last: Option<MemKey>,
    /// The next entry, read ahead.
    head: Option<RawEntry>,
    /// No entry is left in the range: the file's entries go on without lookups here.
    done: bool,
}

impl BufferCursor {
    fn new(map: &FamilyMap, lo: &[u8], hi: Option<&[u8]>) -> BufferCursor {
        BufferCursor {
            map: map.clone(),
            lo: MemKey(bytes::Bytes::copy_from_slice(lo)),
            hi: hi.map(|h| MemKey(bytes::Bytes::copy_from_slice(h))),
            last: None,
            head: None,
            done: false,
        }
    }

    fn next(&mut self, reversed: bool) -> Option<RawEntry> {
        let lo = match &self.last {
            Some(k) if !reversed => Bound::Excluded(k.clone()),
            _ => Bound::Included(self.lo.clone()),
        };
        let hi = match (&self.last, &self.hi) {
            (Some(k), _) if reversed => Bound::Excluded(k.clone()),
            (_, Some(h)) => Bound::Excluded(h.clone()),
            (_, None) => Bound::Unbounded,
        };
        let (k, v) = {
            let mut r = self.map.range((lo, hi));
            let (k, v) = if reversed { r.next_back() } else { r.next() }?;
            (k.clone(), v.clone())
        };
        self.last = Some(k.clone());
        Some(RawEntry::shared(k.0, v))
    }
}

impl Iterator for Scanner {
    type Item = Result<RowResult, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.failed.take() {
            return Some(Err(e));
        }
        if self.buffer.is_empty() {
            if self.limit_reached() || self.pace.paused() {
                return None;
            }
            if let Err(e) = self.fill() {
                // Rows of the failed chunk are not handed out after the error.
                self.buffer.clear();
                self.pos = Position::Done;
                return Some(Err(e));
            }
        }
        let mut row = self.buffer.pop_front()?;
        let batch = self.scan.batch;
        if batch > 0
            && row.len() > batch
            && self
                .scan
                .options
                .filter
                .as_ref()
                .is_some_and(|f| f.needs_whole_rows())
        {
            // HBase's IncompatibleFilterException: the filter judged whole rows, the batch
            // would hand out pieces of one.
            self.buffer.clear();
            self.pos = Position::Done;
            return Some(Err(ReadError::IncompatibleFilter(format!(
                "a filter that needs whole rows (hasFilterRow) cannot be used with a batch of {batch} \
                 cells: row {:?} has {} cells",
                String::from_utf8_lossy(row.row()),
                row.len()
            ))));
        }
        if batch > 0 && row.len() > batch {
            // Hand out the first `batch` cells now; the rest of the row comes next.
            let tail = row.split_off(batch);
            row.partial = true;
            self.buffer.push_front(tail);
        } else {
            self.rows_returned += 1;
        }
        Some(Ok(row))
    }
}
