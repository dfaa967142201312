//! Online backup: taking one consistent point of the catalog and every region while writers
//! go on ([`backup`]), the dump format each file travels in ([`dump`]), and the one error enum
//! of backup and restore ([`backup_error`]). The clients that stream, write and restore a
//! backup live outside the engine (`server/src/backup/`).
//!
//! May use: `model`, `regions`, and the engine root. Nothing else in the engine uses it
//! (`tests/module_graph.rs` checks).

pub mod backup;
pub mod backup_error;
pub mod dump;
