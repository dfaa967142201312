//! A region's write path: writers queue requests and the shared committer threads apply each
//! batch in one transaction (`commit`, the group commit); inside it, puts, delete markers,
//! counters, appends and check-and-mutate are applied to the row (`write`). Each commit also
//! keeps what splits and compactions need to know of the writes: whether they append at the
//! region's end (`appends`, for a tail split), and the keys written while a rewrite copies the
//! region, with the bound on them (`recorder`).
//!
//! May use: `model`, `reads`, `store` (`tests/module_graph.rs` checks).

pub(in crate::engine) mod appends;
mod batch_apply;
pub(in crate::engine) mod commit;
pub(in crate::engine) mod recorder;
pub mod row_batch;
pub(in crate::engine) mod write;
