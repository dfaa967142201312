//! A scan chunk's cursors: one per family, each merging the region file's entries in the
//! chunk's key range with the write buffer's, a row at a time, so the scanner can assemble a
//! row from every family at once.

use std::ops::Bound;

use smallvec::SmallVec;

use crate::engine::model::error::StorageError;
use crate::engine::model::keys::{self, CellKey};
use crate::engine::reads::read::{FamilyRead, RawEntry};
use crate::engine::reads::read_plan::ReadPlan;
use crate::engine::regions::region::Region;
use crate::engine::store::memtable::{FamilyMap, MemKey};
use crate::engine::store::snapshot::Snapshot;

/// The next row in scan order among the cursors' rows, None when every cursor is done.
pub(super) fn first_row(cursors: &[Cursor], reversed: bool) -> Option<&[u8]> {
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
pub(super) fn open_cursors<'p, 'a>(
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
pub(super) type CursorSet<'p, 'a> = (SmallVec<[Cursor; 4]>, SmallVec<[&'p FamilyRead<'a>; 4]>);

/// One family's entries in a chunk's key range, a row at a time.
pub(super) struct Cursor {
    /// The file's entries (None: the file has no table for the family).
    pub(super) iter: Option<redb::Range<'static, CellKey, &'static [u8]>>,
    /// With a buffer to merge: the file's next entry, read ahead.
    pub(super) stored_head: Option<RawEntry>,
    pub(super) stored_done: bool,
    /// The family's entries in the region's write buffer, when it has any.
    pub(super) buffer: Option<BufferCursor>,
    /// The entries of the row the cursor is at, in key order; empty once the range is done.
    pub(super) row: Vec<RawEntry>,
    /// The first entry of the following row, when already read (at most one). Entries go
    /// straight to where they belong: an entry is 200 bytes, so every move shows.
    pub(super) ahead: Vec<RawEntry>,
    pub(super) reversed: bool,
}

impl Cursor {
    /// The row the cursor is at.
    pub(super) fn row_key(&self) -> Option<&[u8]> {
        self.row.first().map(|e| keys::row_of(e.key()))
    }

    /// Drops the current row's entries and reads the next row's.
    pub(super) fn next_row(&mut self) -> Result<(), redb::StorageError> {
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
    pub(super) fn step(&mut self) -> Result<bool, redb::StorageError> {
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
    pub(super) fn next_entry(&mut self) -> Result<Option<RawEntry>, redb::StorageError> {
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

    pub(super) fn next_stored(&mut self) -> Result<Option<RawEntry>, redb::StorageError> {
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
pub(super) struct BufferCursor {
    pub(super) map: FamilyMap,
    pub(super) lo: MemKey,
    pub(super) hi: Option<MemKey>,
    /// The last key taken (None: none yet).
    pub(super) last: Option<MemKey>,
    /// The next entry, read ahead.
    pub(super) head: Option<RawEntry>,
    /// No entry is left in the range: the file's entries go on without lookups here.
    pub(super) done: bool,
}

impl BufferCursor {
    pub(super) fn new(map: &FamilyMap, lo: &[u8], hi: Option<&[u8]>) -> BufferCursor {
        BufferCursor {
            map: map.clone(),
            lo: MemKey(bytes::Bytes::copy_from_slice(lo)),
            hi: hi.map(|h| MemKey(bytes::Bytes::copy_from_slice(h))),
            last: None,
            head: None,
            done: false,
        }
    }

    pub(super) fn next(&mut self, reversed: bool) -> Option<RawEntry> {
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
