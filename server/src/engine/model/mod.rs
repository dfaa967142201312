//! The engine's vocabulary, which every other room speaks: cells and mutations ([`cell`]), how
//! a cell is keyed inside a region file ([`keys`]), namespace, table and family descriptors
//! ([`schema`], and HBase's string map of a family's settings in [`family_values`]), a
//! region's identity and counters ([`region_info`]), and each operation's errors ([`error`]).
//!
//! May use: nothing else in the engine (`tests/module_graph.rs` checks).

pub mod cell;
pub mod error;
pub mod family_values;
pub mod keys;
pub mod region_info;
pub mod schema;
