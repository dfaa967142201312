//! A region's identity as the catalog records it ([`RegionMeta`]), the counters it keeps
//! ([`RegionStats`]) and the snapshot of both that region info and the metrics read
//! ([`RegionInfo`]).

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// The identity of a region as the catalog records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionMeta {
    pub table: String,
    pub id: u64,
    /// Inclusive; empty = the start of the table.
    pub start: Vec<u8>,
    /// Exclusive; empty = the end of the table.
    pub end: Vec<u8>,
    /// File name inside the table's directory.
    pub file: String,
}

impl RegionMeta {
    pub fn contains(&self, row: &[u8]) -> bool {
        row >= self.start.as_slice() && (self.end.is_empty() || row < self.end.as_slice())
    }

    /// HBase's region name, `table,startKey,id.encoded.`, where `encoded` is the hex MD5 of
    /// `table,startKey,id` (HBase's encoded region name).
    pub fn name(&self) -> String {
        let base = format!(
            "{},{},{}",
            self.table,
            String::from_utf8_lossy(&self.start),
            self.id
        );
        format!("{base}.{}.", self.encoded_name())
    }

    /// HBase's encoded region name: the MD5 of `table,startKey,id` in hex.
    pub fn encoded_name(&self) -> String {
        use md5::{Digest, Md5};
        let mut h = Md5::new();
        h.update(self.table.as_bytes());
        h.update(b",");
        h.update(&self.start);
        h.update(b",");
        h.update(self.id.to_string().as_bytes());
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Counters a region keeps for region info, metrics and the hotspot view.
#[derive(Debug, Default)]
pub struct RegionStats {
    /// Rows read (each row a get or a scan returns).
    pub reads: AtomicU64,
    /// Rows written by successful write jobs (a multi-row mutation counts each row).
    pub writes: AtomicU64,
    pub read_bytes: AtomicU64,
    pub write_bytes: AtomicU64,
    /// Bytes of keys and values stored (persisted in the region file).
    pub size: AtomicU64,
    pub commits: AtomicU64,
}

impl RegionStats {
    /// Adds `delta` to the region's size (a negative one takes bytes away, never below 0);
    /// returns the new size.
    pub(crate) fn add_size(&self, delta: i64) -> u64 {
        let before = self
            .size
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                Some(resized(s, delta))
            })
            .unwrap_or(0);
        resized(before, delta)
    }
}

/// A size after `delta` bytes came (positive) or went (negative), never below 0.
pub(crate) fn resized(size: u64, delta: i64) -> u64 {
    if delta >= 0 {
        size.saturating_add(delta.unsigned_abs())
    } else {
        size.saturating_sub(delta.unsigned_abs())
    }
}

/// A snapshot of [`RegionStats`] plus the region's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionInfo {
    pub meta: RegionMeta,
    pub name: String,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub size: u64,
    pub commits: u64,
}
