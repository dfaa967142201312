//! The server's side of online backup (docs/operations.md, "Backup and restore"), and the
//! formats its client shares with it.
//!
//! `POST /api/backup` ([`crate::http`]) takes a consistent point of every table
//! ([`crate::engine::backup`]) and streams each snapshot's dump ([`produce`]) in the frames of
//! [`stream`]; [`manifest`] is the backup directory's `manifest.json`. The client that writes
//! them into a directory, and `redbase restore`, are client tools: [`crate::cli::backup`].

pub mod manifest;
pub mod produce;
pub mod stream;
