//! Scanners: a cursor over a table's rows that walks region by region in chunks. Each chunk is
//! read under its own snapshot of one region, so a scanner survives splits and compactions
//! (as an HBase scanner does across region moves) and holds no transaction between calls.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use smallvec::SmallVec;

use crate::engine::model::cell::{now_ms, RowResult};
use crate::engine::model::error::ReadError;
use crate::engine::model::keys;
use crate::engine::model::region_info::RegionMeta;
use crate::engine::model::schema::TableDescriptor;
use crate::engine::reads::read::{RawEntry, RowVerdict, Scan};
use crate::engine::reads::read_plan::{ReadCounter, ReadPlan};
use crate::engine::regions::region::Region;
use crate::engine::Engine;

use super::chunk_rows::ChunkRows;
use super::pace::Pace;
use super::scan_cursor::{first_row, open_cursors};

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

/// Where a chunk read left off (its rows went into the scanner's buffer).
struct Chunk {
    next: Position,
    stop: bool,
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
