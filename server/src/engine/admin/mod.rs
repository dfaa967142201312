//! The engine's administration, HBase's `Admin` operations as `impl Engine` blocks: tables and
//! namespaces (`ddl`), permissions (`grants`), the bounds on how many tables and regions there
//! may be ([`namespace_quota`], [`region_bound`]), and splits and compactions (`maintenance`:
//! picking regions, having the `regions` room rewrite them, switching the catalog and the
//! region map). Each change is one catalog commit; in-memory state follows it.
//!
//! May use: `model`, `reads`, `store`, `writes`, `regions`, `meta`, and the engine root
//! (`tests/module_graph.rs` checks).

pub(in crate::engine) mod ddl;
mod grants;
pub(in crate::engine) mod maintenance;
pub mod namespace_quota;
pub mod region_bound;
