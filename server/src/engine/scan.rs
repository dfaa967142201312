//! Scanners: a cursor over a table's rows that walks region by region in chunks. Each chunk is
//! read under its own snapshot of one region, so a scanner survives splits and compactions
//! (as an HBase scanner does across region moves) and holds no transaction between calls.

use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;

use super::cell::RowResult;
use super::error::ReadError;
use super::keys::{self, CellKey};
use super::read::{RawEntry, RowVerdict, Scan};
use super::region::{ReadCounter, ReadPlan, Region};
use super::schema::TableDescriptor;
use super::write::now_ms;
use super::Engine;

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
        }
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
            let chunk = self.read_chunk(&desc, &region)?;
            self.pos = chunk.next;
            if chunk.stop {
                self.pos = Position::Done;
            }
        }
        Ok(())
    }

    fn read_chunk(
        &mut self,
        desc: &TableDescriptor,
        region: &Arc<Region>,
    ) -> Result<Chunk, ReadError> {
        let reversed = self.scan.reversed;
        let meta = &region.meta;
        // Key bounds: the scan's bounds intersected with the region's.
        let (lo_row, hi_row): (Vec<u8>, Option<Vec<u8>>) = if reversed {
            let Position::Before(upper) = &self.pos else {
                unreachable!("reversed scans use Before")
            };
            let mut lo = meta.start.clone();
            if !self.scan.stop.is_empty() {
                let mut s = self.scan.stop.clone();
                s.push(0);
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
        };
        let lo_key = keys::row_start(&lo_row);
        let hi_key = hi_row.as_ref().map(|h| keys::row_start(h));
        let after_region = || -> Position {
            if reversed {
                if meta.start.is_empty()
                    || (!self.scan.stop.is_empty() && meta.start <= self.scan.stop)
                {
                    Position::Done
                } else {
                    Position::Before(Some(meta.start.clone()))
                }
            } else if meta.end.is_empty()
                || (!self.scan.stop.is_empty() && meta.end >= self.scan.stop)
            {
                Position::Done
            } else {
                Position::From(meta.end.clone())
            }
        };
        if hi_row.as_ref().is_some_and(|h| h <= &lo_row) {
            return Ok(Chunk {
                next: after_region(),
                stop: false,
            });
        }

        let snap = region
            .snapshots
            .current(&region.db, desc)
            .map_err(|e| region.storage_err(e))?;
        let now = now_ms();
        let (plan, filter) = ReadPlan::new(desc, &mut self.scan.options, now);
        let mut cursors = Vec::new();
        let mut families = Vec::new();
        let mut per_family: Vec<Vec<RawEntry>> = Vec::new();
        for fr in &plan.families {
            let Some(table) = snap.table(fr.family).map_err(|e| region.storage_err(e))? else {
                continue;
            };
            let bounds: (Bound<&[u8]>, Bound<&[u8]>) = (
                Bound::Included(lo_key.as_slice()),
                match &hi_key {
                    Some(h) => Bound::Excluded(h.as_slice()),
                    None => Bound::Unbounded,
                },
            );
            let iter = table
                .range::<&[u8]>(bounds)
                .map_err(|e| region.storage_err(e))?;
            let mut c = Cursor {
                iter,
                head: None,
                reversed,
            };
            c.advance().map_err(|e| region.storage_err(e))?;
            cursors.push(c);
            families.push(fr);
            per_family.push(Vec::new());
        }

        let mut counter = ReadCounter::new(&region.stats);
        let mut seen = 0usize;
        // Buffers reused from row to row.
        let mut row: Vec<u8> = Vec::new();
        loop {
            if filter.as_ref().is_some_and(|f| f.all_remaining_filtered()) {
                return Ok(Chunk {
                    next: Position::Done,
                    stop: true,
                });
            }
            let next = cursors
                .iter()
                .filter_map(|c| c.head.as_ref().map(|h| keys::row_of(h.key())))
                .fold(None::<&[u8]>, |acc, r| match acc {
                    None => Some(r),
                    Some(a) if (reversed && r > a) || (!reversed && r < a) => Some(r),
                    a => a,
                });
            let Some(next) = next else {
                return Ok(Chunk {
                    next: after_region(),
                    stop: false,
                });
            };
            row.clear();
            row.extend_from_slice(next);
            if seen >= CHUNK_ROWS {
                // Resume at this row next time.
                let next = if reversed {
                    let mut r = row.clone();
                    r.push(0);
                    Position::Before(Some(r))
                } else {
                    Position::From(row)
                };
                return Ok(Chunk { next, stop: false });
            }
            seen += 1;
            let verdict = match filter.as_deref_mut() {
                Some(f) => {
                    f.reset();
                    f.row_key(&row)
                }
                None => RowVerdict::Include,
            };
            if verdict == RowVerdict::Stop {
                return Ok(Chunk {
                    next: Position::Done,
                    stop: true,
                });
            }
            for (c, entries) in cursors.iter_mut().zip(per_family.iter_mut()) {
                entries.clear();
                while c
                    .head
                    .as_ref()
                    .is_some_and(|h| keys::row_of(h.key()) == row.as_slice())
                {
                    let e = c.head.take().expect("checked");
                    if verdict == RowVerdict::Include {
                        entries.push(e);
                    }
                    c.advance().map_err(|e| region.storage_err(e))?;
                }
                if reversed {
                    entries.reverse();
                }
            }
            if verdict == RowVerdict::Skip {
                let hint = filter.as_deref_mut().and_then(|f| f.seek_hint(&row));
                match hint {
                    // Jump: the next chunk starts at the hint.
                    Some(h) if !reversed && h.as_slice() > row.as_slice() => {
                        return Ok(Chunk {
                            next: Position::From(h),
                            stop: false,
                        });
                    }
                    Some(h) if reversed && h.as_slice() <= row.as_slice() => {
                        return Ok(Chunk {
                            next: Position::Before(Some(h)),
                            stop: false,
                        });
                    }
                    _ => continue,
                }
            }
            let result = plan.assemble(&families, &row, &per_family, filter, &mut counter);
            if let Some(r) = result {
                self.buffer.push_back(r);
                if self.scan.limit > 0 && self.rows_returned + self.buffer.len() >= self.scan.limit
                {
                    return Ok(Chunk {
                        next: Position::Done,
                        stop: true,
                    });
                }
            }
        }
    }
}

/// Where a chunk read left off (its rows went into the scanner's buffer).
struct Chunk {
    next: Position,
    stop: bool,
}

struct Cursor {
    iter: redb::Range<'static, CellKey, &'static [u8]>,
    head: Option<RawEntry>,
    reversed: bool,
}

impl Cursor {
    fn advance(&mut self) -> Result<(), redb::StorageError> {
        let item = if self.reversed {
            self.iter.next_back()
        } else {
            self.iter.next()
        };
        self.head = match item {
            None => None,
            Some(r) => {
                let (k, v) = r?;
                Some(RawEntry::guarded(k, v))
            }
        };
        Ok(())
    }
}

impl Iterator for Scanner {
    type Item = Result<RowResult, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.buffer.is_empty() {
            if self.limit_reached() {
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
