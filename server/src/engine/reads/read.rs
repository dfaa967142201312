//! What a read asks for, and the rules that turn stored cells into visible ones: time ranges,
//! delete markers, TTLs, versions and KEEP_DELETED_CELLS, as HBase's query matcher applies them.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;
use smallvec::SmallVec;

use crate::engine::model::cell::{Cell, CellType};
use crate::engine::model::keys::{self, KIND_COLUMN, KIND_FAMILY};
use crate::engine::model::schema::{FamilyDescriptor, KeepDeletedCells};

/// A half-open time range `[min, max)` in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    pub min: i64,
    pub max: i64,
}

impl TimeRange {
    pub const ALL: TimeRange = TimeRange {
        min: 0,
        max: i64::MAX,
    };

    pub fn new(min: i64, max: i64) -> TimeRange {
        TimeRange { min, max }
    }

    /// Exactly one timestamp.
    pub fn at(ts: i64) -> TimeRange {
        TimeRange {
            min: ts,
            max: ts.saturating_add(1),
        }
    }

    pub fn contains(&self, ts: i64) -> bool {
        ts >= self.min && ts < self.max
    }
}

impl Default for TimeRange {
    fn default() -> Self {
        TimeRange::ALL
    }
}

/// A filter's say on a row key, before any of the row's cells are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowVerdict {
    Include,
    /// Skip this row without reading its cells.
    Skip,
    /// End the scan before this row.
    Stop,
}

/// A filter's say on one cell (HBase's Filter.ReturnCode, hints read as `Skip`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellVerdict {
    Include,
    /// Include this cell and skip the rest of this column's versions.
    IncludeAndNextColumn,
    /// Include this cell and skip the rest of this row in this family.
    IncludeAndNextRow,
    Skip,
    /// Skip the rest of this column's versions.
    NextColumn,
    /// Skip the rest of this row in this family. As in HBase, where each family is read by its
    /// own store scanner, the row's other families are still read and cells already included
    /// stay.
    NextRow,
}

/// The plug for server-side filtering (the filter language builds these). Every method has a
/// pass-through default so a filter implements only the decisions it makes.
pub trait Filter: Send {
    /// Called first for every row; `Skip` saves reading its cells, `Stop` ends a scan early.
    fn row_key(&mut self, _row: &[u8]) -> RowVerdict {
        RowVerdict::Include
    }
    /// Told once, before the first row, whether the scan runs in reverse (HBase's
    /// `Filter.setReversed`): filters that end a scan early need to know which way is "past".
    fn set_reversed(&mut self, _reversed: bool) {}
    /// After [`Filter::row_key`] said `Skip` for `row`: a row key the scan may jump to because
    /// no row between `row` and it can pass. Forward, the next row read is the first at or
    /// after the hint; reversed, the first before it. Ignored unless it moves the scan on.
    fn seek_hint(&mut self, _row: &[u8]) -> Option<Vec<u8>> {
        None
    }
    /// Called for every cell that survived deletes, TTL and the family's VERSIONS (as HBase's
    /// column tracker counts them), before the read's own version count: the read's versions are
    /// counted among the cells the filter includes, as HBase 2 does. Not called once
    /// [`Filter::all_remaining_filtered`] is true: the row's remaining cells are then dropped.
    fn cell(&mut self, _cell: &Cell) -> CellVerdict {
        CellVerdict::Include
    }
    /// Called right after [`Filter::cell`] included `cell`; `Some(value)` replaces the cell's
    /// value in the result (HBase's `transformCell`, which only KeyOnlyFilter uses).
    fn transform_value(&mut self, _cell: &Cell) -> Option<Bytes> {
        None
    }
    /// True when [`Filter::row`] needs the whole row (HBase's `hasFilterRow`). As in HBase, a
    /// scan whose batch would cut a row then fails instead of filtering row pieces.
    fn needs_whole_rows(&self) -> bool {
        false
    }
    /// Called with the whole row's cells; may change them; false drops the row.
    fn row(&mut self, _cells: &mut Vec<Cell>) -> bool {
        true
    }
    /// True once no later row can pass (for example a page is full): the scan ends.
    fn all_remaining_filtered(&self) -> bool {
        false
    }
    /// Called before each new row.
    fn reset(&mut self) {}
    /// Called when a scan moves on to another region: HBase runs a fresh copy of the filter in
    /// each region, so state such as a page count or a WHILE that has ended starts over.
    fn region_start(&mut self) {}
}

/// Options shared by gets and scans.
#[derive(Default)]
pub struct ReadOptions {
    /// Family -> qualifiers (None = every qualifier). Empty = every family.
    pub columns: BTreeMap<Vec<u8>, Option<BTreeSet<Vec<u8>>>>,
    pub time_range: TimeRange,
    /// Per-family overrides of `time_range`.
    pub family_time_ranges: BTreeMap<Vec<u8>, TimeRange>,
    /// Versions per column; 0 is read as 1.
    pub max_versions: u32,
    /// At most this many cells per family per row (HBase's storeLimit).
    pub limit_per_family: Option<usize>,
    /// Skip this many cells per family per row (HBase's storeOffset).
    pub offset_per_family: usize,
    /// Return delete markers and deleted cells too.
    pub raw: bool,
    pub filter: Option<Box<dyn Filter>>,
}

impl std::fmt::Debug for ReadOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadOptions")
            .field("columns", &self.columns)
            .field("time_range", &self.time_range)
            .field("max_versions", &self.max_versions)
            .field("raw", &self.raw)
            .field("filter", &self.filter.is_some())
            .finish()
    }
}

impl ReadOptions {
    pub fn family(mut self, family: &[u8]) -> Self {
        self.columns.insert(family.to_vec(), None);
        self
    }

    pub fn column(mut self, family: &[u8], qualifier: &[u8]) -> Self {
        let e = self
            .columns
            .entry(family.to_vec())
            .or_insert_with(|| Some(BTreeSet::new()));
        if let Some(set) = e {
            set.insert(qualifier.to_vec());
        }
        self
    }

    pub fn versions(mut self, n: u32) -> Self {
        self.max_versions = n;
        self
    }

    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.time_range = tr;
        self
    }

    pub fn filter(mut self, f: Box<dyn Filter>) -> Self {
        self.filter = Some(f);
        self
    }
}

/// A single-row read.
#[derive(Debug, Default)]
pub struct Get {
    pub row: Vec<u8>,
    pub options: ReadOptions,
}

impl Get {
    pub fn new(row: &[u8]) -> Get {
        Get {
            row: row.to_vec(),
            options: ReadOptions::default(),
        }
    }

    pub fn with(row: &[u8], options: ReadOptions) -> Get {
        Get {
            row: row.to_vec(),
            options,
        }
    }
}

/// A range read. `start` is inclusive, `stop` exclusive (empty = unbounded); when reversed,
/// `start` is the highest row read and `stop` the exclusive lower bound, as in HBase.
#[derive(Debug, Default)]
pub struct Scan {
    pub start: Vec<u8>,
    pub stop: Vec<u8>,
    pub reversed: bool,
    /// Cut rows into results of at most this many cells (0 = whole rows).
    pub batch: usize,
    /// Stop after this many rows (0 = no limit).
    pub limit: usize,
    /// Rows per round trip in HBase's client (`Scan.setCaching`; 0 = no limit). Results do not
    /// depend on it, except where a filter finishes: HBase ends the whole scan when a region's
    /// filter is done and the current round trip has no rows yet, and otherwise goes on in the
    /// next region. The engine follows the same rule so answers match HBase's.
    pub caching: usize,
    pub options: ReadOptions,
}

impl Scan {
    pub fn new() -> Scan {
        Scan::default()
    }

    pub fn range(start: &[u8], stop: &[u8]) -> Scan {
        Scan {
            start: start.to_vec(),
            stop: stop.to_vec(),
            ..Default::default()
        }
    }

    /// Rows that start with `prefix` (HBase's setRowPrefixFilter).
    pub fn prefix(prefix: &[u8]) -> Scan {
        Scan {
            start: prefix.to_vec(),
            stop: prefix_successor(prefix),
            ..Default::default()
        }
    }
}

/// The smallest key greater than every key starting with `prefix` (empty = none).
pub fn prefix_successor(prefix: &[u8]) -> Vec<u8> {
    let mut p = prefix.to_vec();
    while let Some(last) = p.pop() {
        if last != 0xff {
            p.push(last + 1);
            return p;
        }
    }
    Vec::new()
}

/// One stored entry of a row, as read from a family table. Reads keep redb's page guards
/// instead of copying, so an entry costs no allocation until it becomes a result cell. A guard
/// must be dropped before its read transaction: an entry that must live longer is copied with
/// [`RawEntry::owned`].
pub(crate) struct RawEntry {
    key: KeySlot,
    value: ValueSlot,
}

enum KeySlot {
    Owned(Vec<u8>),
    Shared(bytes::Bytes),
    Guard(redb::AccessGuard<'static, crate::engine::model::keys::CellKey>),
}

enum ValueSlot {
    Owned(Vec<u8>),
    Shared(bytes::Bytes),
    Guard(redb::AccessGuard<'static, &'static [u8]>),
}

impl RawEntry {
    pub fn owned(key: Vec<u8>, value: Vec<u8>) -> RawEntry {
        RawEntry {
            key: KeySlot::Owned(key),
            value: ValueSlot::Owned(value),
        }
    }

    /// An entry of the write buffer ([`crate::engine::store::memtable`]): shared, not copied.
    pub fn shared(key: bytes::Bytes, value: bytes::Bytes) -> RawEntry {
        RawEntry {
            key: KeySlot::Shared(key),
            value: ValueSlot::Shared(value),
        }
    }

    pub fn guarded(
        key: redb::AccessGuard<'static, crate::engine::model::keys::CellKey>,
        value: redb::AccessGuard<'static, &'static [u8]>,
    ) -> RawEntry {
        RawEntry {
            key: KeySlot::Guard(key),
            value: ValueSlot::Guard(value),
        }
    }

    pub fn key(&self) -> &[u8] {
        match &self.key {
            KeySlot::Owned(v) => v,
            KeySlot::Shared(b) => b,
            KeySlot::Guard(g) => g.value(),
        }
    }

    /// Bytes the entry takes in the file (key and value), as region read counters count them.
    pub fn stored_len(&self) -> u64 {
        (self.key().len() + self.value().len()) as u64
    }

    pub fn value(&self) -> &[u8] {
        match &self.value {
            ValueSlot::Owned(v) => v,
            ValueSlot::Shared(b) => b,
            ValueSlot::Guard(g) => g.value(),
        }
    }
}

impl std::fmt::Debug for RawEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawEntry")
            .field("key", &self.key())
            .field("value", &self.value())
            .finish()
    }
}

/// What a family's settings and the read's options say about one family of one row.
pub(crate) struct FamilyRead<'a> {
    pub desc: &'a FamilyDescriptor,
    /// The family name.
    pub family: &'a [u8],
    pub qualifiers: Option<&'a BTreeSet<Vec<u8>>>,
    pub time_range: TimeRange,
    pub max_versions: u32,
    pub raw: bool,
    pub now: i64,
}

impl<'a> FamilyRead<'a> {
    /// Whether a delete marker takes part in masking for this read. With KEEP_DELETED_CELLS a
    /// marker only counts inside the read's time range, so a read that ends before the delete
    /// still sees the deleted cells (time travel); otherwise any marker at or after `min` counts.
    fn marker_counts(&self, ts: i64) -> bool {
        if self.desc.keep_deleted_cells != KeepDeletedCells::False {
            self.time_range.contains(ts)
        } else {
            ts >= self.time_range.min
        }
    }

    fn family_expired(&self, ts: i64) -> bool {
        match self.desc.ttl_ms() {
            Some(ttl) => ts.saturating_add(ttl) < self.now,
            None => false,
        }
    }

    /// Finds the visible cells among a row's stored entries for this family (in key order) and
    /// appends them to `out`, still pointing into the entries. Returns false when the filter has
    /// ended the scan (its `all_remaining_filtered`): no further family of the row is read.
    pub fn collect<'e>(
        &self,
        row: &[u8],
        entries: &'e [RawEntry],
        mut filter: Option<&mut (dyn Filter + '_)>,
        out: &mut PendingCells<'e>,
    ) -> bool
    where
        'a: 'e,
    {
        let family_versions = self.desc.max_versions.max(1) as u32;
        let versions = self.max_versions.max(1).min(family_versions);
        let min_versions = self.desc.min_versions.max(0) as u32;
        if let ([e], None) = (entries, filter.as_ref()) {
            if let Some(cell) = self.single_put(e) {
                out.extend(cell);
                return true;
            }
        }
        let mut family_delete: Option<i64> = None;
        let mut family_version_deletes: BTreeSet<i64> = BTreeSet::new();
        // Each key decoded once; an undecodable key (only in a corrupt file) is skipped.
        let decoded: SmallVec<[(keys::KeyParts<'e>, &'e RawEntry); 4]> = entries
            .iter()
            .filter_map(|e| keys::decode(e.key()).map(|k| (k, e)))
            .collect();
        let mut i = 0;
        // Family-wide markers come first in the row.
        while i < decoded.len() {
            let k = &decoded[i].0;
            if k.kind != KIND_FAMILY {
                break;
            }
            if self.marker_counts(k.ts) {
                match k.cell_type {
                    CellType::DeleteFamily => {
                        family_delete = Some(family_delete.map_or(k.ts, |d| d.max(k.ts)))
                    }
                    CellType::DeleteFamilyVersion => {
                        family_version_deletes.insert(k.ts);
                    }
                    _ => {}
                }
            }
            if self.raw && self.time_range.contains(k.ts) {
                out.push(self.pending(k.qualifier, k.ts, k.cell_type, &[]));
            }
            i += 1;
        }
        // Then each column, newest version first.
        while i < decoded.len() {
            let qualifier = decoded[i].0.qualifier;
            let mut end = i;
            while end < decoded.len() && decoded[end].0.qualifier == qualifier {
                end += 1;
            }
            let wanted = self.qualifiers.is_none_or(|q| q.contains(qualifier));
            if wanted {
                let mut column_delete: Option<i64> = None;
                let mut version_deletes: BTreeSet<i64> = BTreeSet::new();
                // Versions visible under the family's VERSIONS, and those the read returns.
                let mut seen = 0u32;
                let mut counted = 0u32;
                for (k, e) in &decoded[i..end] {
                    if k.cell_type.is_delete() {
                        if self.marker_counts(k.ts) {
                            if k.cell_type == CellType::DeleteColumn {
                                column_delete = Some(column_delete.map_or(k.ts, |d| d.max(k.ts)));
                            } else {
                                version_deletes.insert(k.ts);
                            }
                        }
                        if self.raw && self.time_range.contains(k.ts) {
                            out.push(self.pending(qualifier, k.ts, k.cell_type, &[]));
                        }
                        continue;
                    }
                    if k.ts >= self.time_range.max {
                        continue;
                    }
                    if k.ts < self.time_range.min {
                        break;
                    }
                    let Some((cell_ttl, value)) = keys::decode_value(e.value()) else {
                        continue;
                    };
                    if cell_ttl.is_some_and(|ttl| k.ts.saturating_add(ttl) < self.now) {
                        continue;
                    }
                    let deleted = family_delete.is_some_and(|d| k.ts <= d)
                        || family_version_deletes.contains(&k.ts)
                        || column_delete.is_some_and(|d| k.ts <= d)
                        || version_deletes.contains(&k.ts);
                    if deleted && !self.raw {
                        continue;
                    }
                    if self.family_expired(k.ts) && seen >= min_versions {
                        break;
                    }
                    seen += 1;
                    if seen > family_versions {
                        break;
                    }
                    let mut cell = self.pending(qualifier, k.ts, CellType::Put, value);
                    let mut after = CellVerdict::Include;
                    if let Some(f) = filter.as_deref_mut() {
                        if f.all_remaining_filtered() {
                            return false;
                        }
                        let full = materialize(row, std::slice::from_ref(&cell));
                        after = f.cell(&full[0]);
                        match after {
                            CellVerdict::Include
                            | CellVerdict::IncludeAndNextColumn
                            | CellVerdict::IncludeAndNextRow => {}
                            CellVerdict::Skip => continue,
                            CellVerdict::NextColumn => break,
                            CellVerdict::NextRow => return true,
                        }
                        cell.replaced = f.transform_value(&full[0]);
                    }
                    counted += 1;
                    if counted > versions {
                        break;
                    }
                    out.push(cell);
                    match after {
                        CellVerdict::IncludeAndNextColumn => break,
                        CellVerdict::IncludeAndNextRow => return true,
                        _ => {}
                    }
                }
            }
            i = end;
        }
        true
    }

    /// Most rows hold one cell per family: a single put, nothing to mask it. For such an
    /// entry (the family's only one in the row) this gives what the general walk of
    /// [`FamilyRead::collect`] gives, at a fraction of the cost: `Some(None)` when the cell is
    /// not visible, `Some(Some(cell))` when it is. None when the entry is anything else.
    pub fn single_put<'e>(&self, e: &'e RawEntry) -> Option<Option<Pending<'e>>>
    where
        'a: 'e,
    {
        let k = keys::decode(e.key())?;
        if k.kind != KIND_COLUMN || k.cell_type != CellType::Put {
            return None;
        }
        let min_versions = self.desc.min_versions.max(0);
        let visible = self.qualifiers.is_none_or(|q| q.contains(k.qualifier))
            && self.time_range.contains(k.ts)
            && !(self.family_expired(k.ts) && min_versions == 0);
        let Some((cell_ttl, value)) = keys::decode_value(e.value()).filter(|_| visible) else {
            return Some(None);
        };
        if cell_ttl.is_some_and(|ttl| k.ts.saturating_add(ttl) < self.now) {
            return Some(None);
        }
        Some(Some(self.pending(k.qualifier, k.ts, CellType::Put, value)))
    }

    fn pending<'e>(&self, qualifier: &'e [u8], ts: i64, t: CellType, value: &'e [u8]) -> Pending<'e>
    where
        'a: 'e,
    {
        Pending {
            family: self.family,
            qualifier,
            timestamp: ts,
            cell_type: t,
            value,
            replaced: None,
        }
    }
}

/// A row's visible cells before they are copied out; inline for narrow rows, so a read of a
/// row allocates only its result.
pub(crate) type PendingCells<'e> = SmallVec<[Pending<'e>; 4]>;

/// A visible cell found by [`FamilyRead::collect`], still pointing into the stored entries.
pub(crate) struct Pending<'e> {
    pub family: &'e [u8],
    pub qualifier: &'e [u8],
    pub timestamp: i64,
    pub cell_type: CellType,
    pub value: &'e [u8],
    /// The value a filter put in place of `value` (KeyOnlyFilter).
    pub replaced: Option<Bytes>,
}

impl Pending<'_> {
    pub fn value(&self) -> &[u8] {
        self.replaced.as_deref().unwrap_or(self.value)
    }
}

/// Copies cells out of the stored entries as owned [`Cell`]s, for filters, which judge cells
/// one by one and may rewrite a whole row (reads without filters build a [`RowResult`] directly).
pub(crate) fn materialize(row: &[u8], pending: &[Pending<'_>]) -> Vec<Cell> {
    let total = row.len()
        + pending
            .iter()
            .map(|p| p.qualifier.len() + p.value().len())
            .sum::<usize>();
    let mut buf = Vec::with_capacity(total);
    buf.extend_from_slice(row);
    for p in pending {
        buf.extend_from_slice(p.qualifier);
        buf.extend_from_slice(p.value());
    }
    let buf = Bytes::from(buf);
    let row = buf.slice(..row.len());
    let mut at = row.len();
    let mut take = |n: usize| {
        let b = buf.slice(at..at + n);
        at += n;
        b
    };
    pending
        .iter()
        .map(|p| Cell {
            row: row.clone(),
            family: Bytes::copy_from_slice(p.family),
            qualifier: take(p.qualifier.len()),
            timestamp: p.timestamp,
            cell_type: p.cell_type,
            value: take(p.value().len()),
        })
        .collect()
}

/// Applies HBase's per-family offset and limit to one family's cells.
pub(crate) fn offset_limit(
    cells: &mut PendingCells<'_>,
    start: usize,
    offset: usize,
    limit: Option<usize>,
) {
    if offset == 0 && limit.is_none() {
        return;
    }
    let fam_cells = cells.len() - start;
    let skip = offset.min(fam_cells);
    cells.drain(start..start + skip);
    if let Some(l) = limit {
        cells.truncate(start + l.min(cells.len() - start));
    }
}
