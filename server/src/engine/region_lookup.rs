//! Finding a table's regions by key without copying all of them: the region serving a row,
//! and a window of regions by start key. The table's regions sit in a map ordered by start
//! key, so both are a range lookup, O(log n) plus what they return, whatever the table's
//! region count (a native client's every call names its region, and hbase:meta reads want a
//! few rows of a table that may have thousands).

use std::ops::Bound;

use super::model::error::TableError;
use super::model::region_info::RegionInfo;
use super::{Engine, TableName};

impl Engine {
    /// Runs `f` on the table's regions (map by start key) if the table is online.
    fn with_regions<T>(
        &self,
        table: &str,
        f: impl FnOnce(
            &std::collections::BTreeMap<Vec<u8>, std::sync::Arc<super::regions::region::Region>>,
        ) -> T,
    ) -> Result<T, TableError> {
        let key = TableName::parse(table)?.to_string();
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        let t = state
            .tables
            .get(&key)
            .ok_or_else(|| TableError::NotFound(key.clone()))?;
        if let Some(r) = &t.offline {
            return Err(TableError::Offline {
                table: key,
                reason: r.clone(),
            });
        }
        Ok(f(&t.regions))
    }

    /// The table's regions in key order, with their counters.
    pub fn regions(&self, table: &str) -> Result<Vec<RegionInfo>, TableError> {
        self.with_regions(table, |regions| {
            regions.values().map(|r| r.info()).collect()
        })
    }

    /// The region serving `row`.
    pub fn region_of(&self, table: &str, row: &[u8]) -> Result<RegionInfo, TableError> {
        self.with_regions(table, |regions| {
            regions
                .range::<[u8], _>((Bound::Unbounded, Bound::Included(row)))
                .next_back()
                .map(|(_, r)| r.info())
        })?
        .ok_or_else(|| TableError::NotFound(table.to_string()))
    }

    /// Up to `limit` of the table's regions whose start keys lie between `lo` and `hi`, in
    /// start-key order (`reversed`: from the highest down).
    pub fn regions_within(
        &self,
        table: &str,
        lo: Bound<&[u8]>,
        hi: Bound<&[u8]>,
        reversed: bool,
        limit: usize,
    ) -> Result<Vec<RegionInfo>, TableError> {
        // A range whose ends cross, or that excludes its one key, holds nothing (and would
        // make BTreeMap::range panic).
        if let (Some(l), Some(h)) = (bound_key(lo), bound_key(hi)) {
            let excluded = matches!(lo, Bound::Excluded(_)) || matches!(hi, Bound::Excluded(_));
            if l > h || (l == h && excluded) {
                return self.with_regions(table, |_| Vec::new());
            }
        }
        self.with_regions(table, |regions| {
            let range = regions.range::<[u8], _>((lo, hi));
            if reversed {
                range.rev().take(limit).map(|(_, r)| r.info()).collect()
            } else {
                range.take(limit).map(|(_, r)| r.info()).collect()
            }
        })
    }
}

fn bound_key(b: Bound<&[u8]>) -> Option<&[u8]> {
    match b {
        Bound::Included(k) | Bound::Excluded(k) => Some(k),
        Bound::Unbounded => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EngineConfig, FamilyDescriptor, TableDescriptor};

    #[test]
    fn lookups_by_row_and_windows_by_start_key() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        let desc = TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(FamilyDescriptor::new(b"f"));
        let splits: Vec<Vec<u8>> = ["b", "d", "f"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        engine.create_table(desc, &splits).unwrap();
        let start = |r: &RegionInfo| String::from_utf8(r.meta.start.clone()).unwrap();
        assert_eq!(start(&engine.region_of("t", b"a").unwrap()), "");
        assert_eq!(start(&engine.region_of("t", b"d").unwrap()), "d");
        assert_eq!(start(&engine.region_of("t", b"e\xff").unwrap()), "d");
        assert_eq!(start(&engine.region_of("t", b"zz").unwrap()), "f");
        let w = |lo, hi, rev, n| {
            engine
                .regions_within("t", lo, hi, rev, n)
                .unwrap()
                .iter()
                .map(start)
                .collect::<Vec<_>>()
        };
        use Bound::*;
        assert_eq!(
            w(Included(&b"b"[..]), Included(&b"e"[..]), false, 9),
            ["b", "d"]
        );
        assert_eq!(w(Unbounded, Included(&b"e"[..]), true, 2), ["d", "b"]);
        assert_eq!(w(Excluded(&b"d"[..]), Unbounded, false, 9), ["f"]);
        assert!(w(Included(&b"e"[..]), Included(&b"c"[..]), false, 9).is_empty());
        assert!(w(Excluded(&b"d"[..]), Included(&b"d"[..]), false, 9).is_empty());
        assert!(engine
            .regions_within("missing", Unbounded, Unbounded, false, 1)
            .is_err());
    }
}
