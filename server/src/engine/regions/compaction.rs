//! Which stored entries a compaction keeps.
//!
//! Minor compaction drops what no read can see any more (expired cells, versions past VERSIONS,
//! cells masked by a delete marker) but keeps the markers, so a put that arrives later with an
//! old timestamp stays masked. Major compaction also drops the markers (unless
//! KEEP_DELETED_CELLS keeps them), and rewrites the region file so the space goes back to the
//! file system.

use std::collections::BTreeSet;

use crate::engine::model::cell::CellType;
use crate::engine::model::keys::{self, KIND_FAMILY};
use crate::engine::model::schema::{FamilyDescriptor, KeepDeletedCells};
use crate::engine::reads::read::RawEntry;

/// What a compaction did, summed over regions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompactStats {
    pub regions: u64,
    pub entries_before: u64,
    pub entries_after: u64,
    /// Sum of the region files' sizes before and after.
    pub file_bytes_before: u64,
    pub file_bytes_after: u64,
}

/// For one row of one family (entries in key order), which entries survive.
pub(crate) fn keep_flags(
    desc: &FamilyDescriptor,
    entries: &[RawEntry],
    now: i64,
    major: bool,
) -> Vec<bool> {
    let kdc = desc.keep_deleted_cells;
    let ttl = desc.ttl_ms();
    let expired = |ts: i64| ttl.is_some_and(|t| ts.saturating_add(t) < now);
    let keep_marker = |ts: i64| {
        !major
            || match kdc {
                KeepDeletedCells::False => false,
                KeepDeletedCells::True => true,
                KeepDeletedCells::Ttl => !expired(ts),
            }
    };
    let max_versions = desc.max_versions.max(1) as u32;
    let min_versions = desc.min_versions.max(0) as u32;
    let mut keep = vec![false; entries.len()];
    let mut family_delete: Option<i64> = None;
    let mut family_versions: BTreeSet<i64> = BTreeSet::new();
    let mut i = 0;
    while i < entries.len() {
        let Some(k) = keys::decode(entries[i].key()) else {
            i += 1;
            continue;
        };
        if k.kind != KIND_FAMILY {
            break;
        }
        match k.cell_type {
            CellType::DeleteFamily => {
                family_delete = Some(family_delete.map_or(k.ts, |d| d.max(k.ts)))
            }
            _ => {
                family_versions.insert(k.ts);
            }
        }
        keep[i] = keep_marker(k.ts);
        i += 1;
    }
    let mut current: Option<Vec<u8>> = None;
    let mut column_delete: Option<i64> = None;
    let mut version_deletes: BTreeSet<i64> = BTreeSet::new();
    let mut counted = 0u32;
    while i < entries.len() {
        let Some(k) = keys::decode(entries[i].key()) else {
            keep[i] = true;
            i += 1;
            continue;
        };
        if current.as_deref() != Some(k.qualifier) {
            current = Some(k.qualifier.to_vec());
            column_delete = None;
            version_deletes.clear();
            counted = 0;
        }
        if k.cell_type.is_delete() {
            if k.cell_type == CellType::DeleteColumn {
                column_delete = Some(column_delete.map_or(k.ts, |d| d.max(k.ts)));
            } else {
                version_deletes.insert(k.ts);
            }
            keep[i] = keep_marker(k.ts);
            i += 1;
            continue;
        }
        let cell_expired = keys::decode_value(entries[i].value())
            .and_then(|(t, _)| t)
            .is_some_and(|t| k.ts.saturating_add(t) < now);
        let deleted = family_delete.is_some_and(|d| k.ts <= d)
            || family_versions.contains(&k.ts)
            || column_delete.is_some_and(|d| k.ts <= d)
            || version_deletes.contains(&k.ts);
        // A deleted cell kept for time travel does not use up one of VERSIONS, as reads do not
        // count it either.
        keep[i] = if cell_expired || (deleted && kdc == KeepDeletedCells::False) {
            false
        } else if deleted {
            !expired(k.ts)
        } else if expired(k.ts) && counted >= min_versions {
            false
        } else {
            counted += 1;
            counted <= max_versions
        };
        i += 1;
    }
    keep
}
