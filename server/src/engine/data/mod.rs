//! The engine's data operations, as `impl Engine` blocks: one-row and batch mutations,
//! increment, append, check-and-mutate and get (`operations`), each routed to its row's region
//! and following it through splits; and scanners ([`scan`]) that walk a table region by
//! region in chunks, each chunk under its own snapshot of one region.
//!
//! May use: `model`, `reads`, `store`, `writes`, `regions`, and the engine root
//! (`tests/module_graph.rs` checks).

mod checked_batch;
mod chunk_rows;
pub(in crate::engine) mod operations;
mod pace;
pub mod scan;
mod scan_cursor;
