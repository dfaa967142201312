//! The engine's metadata: the catalog file `meta.redb` ([`catalog`]: namespaces, table
//! descriptors, the region list, the grants; each change one durable commit) and the
//! in-memory access control lists every access check reads ([`acl`]). The administration that
//! changes them (tables, namespaces, grants, splits) is the `admin` room's.
//!
//! May use: `model`, `store` (the catalog's cache size) (`tests/module_graph.rs` checks).

pub mod acl;
pub mod catalog;
