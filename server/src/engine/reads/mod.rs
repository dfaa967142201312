//! What a read asks for and how stored entries become the cells it sees: gets, scans, filters
//! and time ranges, and HBase's visibility rules (delete markers, TTLs, versions,
//! KEEP_DELETED_CELLS) in [`read`]; a read's per-family plan, worked out once per get or scan
//! chunk, in `read_plan`. Pure rules over entries: where the entries come from (a region file,
//! its write buffer) is the store's and the region's business.
//!
//! May use: `model` (`tests/module_graph.rs` checks).

pub mod read;
pub(in crate::engine) mod read_plan;
