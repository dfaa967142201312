//! A region and how it is rewritten. [`region`]: one region file's lifecycle (create, open,
//! close, flush) and its row reads. A split or major compaction copies a region into new files
//! while reads and writes go on (`rewrite`), bringing them up to date with the writes made
//! meanwhile (`catch_up`); a region whose writes append at its end splits at its tail without
//! copying (`tail_split`); [`compaction`] says which stored entries a compaction keeps.
//! Deciding when to split or compact, and recording the outcome in the catalog, is the
//! `admin` room's.
//!
//! May use: `model`, `reads`, `store`, `writes` (`tests/module_graph.rs` checks).

mod catch_up;
pub mod compaction;
pub mod region;
pub(in crate::engine) mod rewrite;
pub(in crate::engine) mod tail_split;
