//! A read's plan, worked out once per get or scan chunk: which families it touches and how, the
//! row's visible cells ([`Visible`]) assembled from stored entries, and the counter that adds a
//! read's rows and bytes to its region's statistics once.

use std::sync::atomic::Ordering;

use smallvec::SmallVec;

use super::read::{
    materialize, offset_limit, FamilyRead, Filter, Pending, PendingCells, RawEntry, ReadOptions,
};
use crate::engine::model::cell::{RowBuilder, RowResult};
use crate::engine::model::region_info::RegionStats;
use crate::engine::model::schema::{FamilyDescriptor, TableDescriptor};

/// What a read does per family, worked out once per get or scan chunk rather than per row.
pub(crate) struct ReadPlan<'a> {
    /// The families the read touches, in name order.
    pub families: SmallVec<[FamilyRead<'a>; 4]>,
    offset: usize,
    limit: Option<usize>,
}

impl<'a> ReadPlan<'a> {
    /// Splits the options: the plan borrows the columns and time ranges, the caller keeps the
    /// filter (returned), which changes from row to row.
    pub fn new(
        desc: &'a TableDescriptor,
        opts: &'a mut ReadOptions,
        now: i64,
    ) -> (ReadPlan<'a>, &'a mut Option<Box<dyn Filter>>) {
        let ReadOptions {
            columns,
            time_range,
            family_time_ranges,
            max_versions,
            limit_per_family,
            offset_per_family,
            raw,
            filter,
        } = opts;
        let read = |(name, fd): (&'a Vec<u8>, &'a FamilyDescriptor)| FamilyRead {
            desc: fd,
            family: name.as_slice(),
            qualifiers: columns.get(name).and_then(|q| q.as_ref()),
            time_range: family_time_ranges.get(name).copied().unwrap_or(*time_range),
            max_versions: *max_versions,
            raw: *raw,
            now,
        };
        let families = if columns.is_empty() {
            desc.families.iter().map(read).collect()
        } else {
            columns
                .keys()
                .filter_map(|f| desc.families.get_key_value(f))
                .map(read)
                .collect()
        };
        let plan = ReadPlan {
            families,
            offset: *offset_per_family,
            limit: *limit_per_family,
        };
        (plan, filter)
    }

    /// Whether every visible cell of a family is returned (no per-family offset or limit).
    pub fn all_cells(&self) -> bool {
        self.offset == 0 && self.limit.is_none()
    }

    /// Turns one row's stored entries (`per_family[i]` belongs to `families[i]`, a subset of
    /// the plan's) into its visible result, applying the filter.
    pub fn assemble(
        &self,
        families: &[&FamilyRead<'a>],
        row: &[u8],
        per_family: &[impl std::ops::Deref<Target = [RawEntry]>],
        filter_slot: &mut Option<Box<dyn Filter>>,
        counter: &mut ReadCounter<'_>,
    ) -> Option<RowResult> {
        match self.visible(families, row, per_family, filter_slot, counter)? {
            Visible::Cells(pending) => Some(pending_row(RowBuilder::new, row, &pending).finish()),
            Visible::Row(r) => Some(r),
        }
    }

    /// What [`ReadPlan::assemble`] returns, before the cells are copied out of the entries.
    pub fn visible<'e>(
        &self,
        families: &[&FamilyRead<'a>],
        row: &[u8],
        per_family: &'e [impl std::ops::Deref<Target = [RawEntry]>],
        filter_slot: &mut Option<Box<dyn Filter>>,
        counter: &mut ReadCounter<'_>,
    ) -> Option<Visible<'e>>
    where
        'a: 'e,
    {
        counter.rows += 1;
        if per_family.iter().all(|e| e.is_empty()) {
            return None;
        }
        let mut filter = filter_slot.as_deref_mut();
        let mut pending = PendingCells::new();
        for (fr, entries) in families.iter().zip(per_family) {
            counter.bytes += entries.iter().map(RawEntry::stored_len).sum::<u64>();
            let start = pending.len();
            let more = fr.collect(row, entries, filter.as_deref_mut(), &mut pending);
            offset_limit(&mut pending, start, self.offset, self.limit);
            if !more {
                // The filter ended the scan inside this row: the cells it took so far stay, as
                // HBase's store scanners keep theirs when the filter says it is done.
                break;
            }
        }
        if pending.is_empty() {
            return None;
        }
        match filter {
            // A filter may rewrite the row as a whole, so it gets owned cells.
            Some(f) => {
                let mut cells = materialize(row, &pending);
                (f.row(&mut cells) && !cells.is_empty())
                    .then(|| Visible::Row(RowResult::from_cells(row, &cells)))
            }
            None => Some(Visible::Cells(pending)),
        }
    }
}

/// A row's visible cells as a read found them.
// Inline on purpose: boxing the cells would cost the allocation the inline array avoids.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Visible<'e> {
    /// Still pointing into the stored entries.
    Cells(PendingCells<'e>),
    /// Rewritten by the filter, already a result.
    Row(RowResult),
}

/// Copies `pending` into a builder that `start(row, bytes, cells)` makes.
pub(crate) fn pending_row(
    start: impl FnOnce(&[u8], usize, usize) -> RowBuilder,
    row: &[u8],
    pending: &[Pending<'_>],
) -> RowBuilder {
    let bytes = pending
        .iter()
        .map(|p| p.family.len() + p.qualifier.len() + p.value().len())
        .sum();
    let mut b = start(row, bytes, pending.len());
    for p in pending {
        b.push(p.family, p.qualifier, p.timestamp, p.cell_type, p.value());
    }
    b
}

/// Counts a read's rows and bytes locally and adds them to the region's counters once, when
/// dropped: shared atomic counters touched once per row would cost more than the row.
pub(crate) struct ReadCounter<'a> {
    stats: &'a RegionStats,
    pub rows: u64,
    pub bytes: u64,
}

impl<'a> ReadCounter<'a> {
    pub fn new(stats: &'a RegionStats) -> ReadCounter<'a> {
        ReadCounter {
            stats,
            rows: 0,
            bytes: 0,
        }
    }
}

impl Drop for ReadCounter<'_> {
    fn drop(&mut self) {
        self.stats.reads.fetch_add(self.rows, Ordering::Relaxed);
        self.stats
            .read_bytes
            .fetch_add(self.bytes, Ordering::Relaxed);
    }
}
