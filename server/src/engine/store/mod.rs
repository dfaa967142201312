//! A region's storage, below both its write path and its reads: the redb file and its
//! recovery from I/O errors (`recovery`), the redo log that makes writes durable or
//! crash-safe (`redo`: writing it; `redo_record`: its record format; `redo_replay`: the
//! sequence number the file keeps and the replay at open), the write buffer of logged writes
//! redb has not taken yet (`memtable`) and its drains (`background_drain`, `drain_tracker`),
//! the read snapshot reads of a region share (`snapshot`); and what all region files share:
//! the page cache budget ([`cache`]), the worker threads commits and drains run on
//! (`commit_pool`), the tests' full-disk switch (`faults`).
//!
//! May use: `model`, `reads` (`tests/module_graph.rs` checks).

pub(in crate::engine) mod background_drain;
pub mod cache;
pub(in crate::engine) mod commit_pool;
mod drain_tracker;
mod faults;
pub(in crate::engine) mod memtable;
pub(in crate::engine) mod recovery;
pub(in crate::engine) mod redo;
mod redo_record;
pub(in crate::engine) mod redo_replay;
pub(in crate::engine) mod snapshot;
