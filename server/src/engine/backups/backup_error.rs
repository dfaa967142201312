//! The one error enum of online backup and restore (`redbase backup`, `POST /api/backup`,
//! `redbase restore`): what taking the point, streaming it, writing the backup directory and
//! rebuilding a data directory from it can say. Every variant names what it is about (the
//! table, the file, the directory), so an operator knows what to fix.

use std::path::PathBuf;

use thiserror::Error;

use crate::engine::model::error::{ErrorKind, StorageError};

#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum BackupError {
    /// One backup at a time: the point holds off splits and DDL until its copy ends.
    #[error("a backup is already running on this server; wait for it to finish and retry")]
    Busy,
    #[error("the server is shutting down; the backup was abandoned")]
    ShuttingDown,
    /// A table whose region files could not be opened cannot be part of a complete backup.
    #[error("table {table} is offline ({reason}); a backup must hold every table")]
    TableOffline { table: String, reason: String },
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    /// A directory without `manifest.json` (an interrupted backup leaves none).
    #[error("{dir} is not a complete backup: {reason}")]
    NotABackup { dir: PathBuf, reason: String },
    #[error("{file}: bad manifest: {message}")]
    Manifest { file: PathBuf, message: String },
    #[error("{file}: checksum mismatch: the manifest says SHA-256 {expected}, the file has {found}; the backup is damaged")]
    Checksum {
        file: PathBuf,
        expected: String,
        found: String,
    },
    #[error("{file}: size mismatch: the manifest says {expected} bytes, the file has {found}; the backup is damaged")]
    Size {
        file: PathBuf,
        expected: u64,
        found: u64,
    },
    /// A dump file that passed its checksum but cannot be read back (a bug or a foreign file).
    #[error("{file}: not a redbase dump file: {message}")]
    Dump { file: PathBuf, message: String },
    /// A path in a manifest or a stream that would leave the directory it belongs to.
    #[error("refusing the path {path:?}: it must be relative, without `..`")]
    UnsafePath { path: String },
    #[error("{dir} is not empty: {what}")]
    NotEmpty { dir: PathBuf, what: String },
    /// The server's stream broke off or does not follow the stream format.
    #[error("the backup stream from the server is broken: {message}")]
    Stream { message: String },
    /// The server refused the request (HTTP status and its message).
    #[error("the server answered {status}: {message}")]
    Refused { status: u16, message: String },
    #[error("cannot reach {addr}: {message}")]
    Connect { addr: String, message: String },
}

impl BackupError {
    /// How a gateway or the HTTP endpoint classifies it.
    pub fn kind(&self) -> ErrorKind {
        match self {
            BackupError::Busy | BackupError::ShuttingDown | BackupError::Storage(_) => {
                ErrorKind::Io { retryable: true }
            }
            BackupError::UnsafePath { .. } | BackupError::NotEmpty { .. } => {
                ErrorKind::IllegalArgument
            }
            _ => ErrorKind::Io { retryable: false },
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, e: impl std::fmt::Display) -> BackupError {
        BackupError::Io {
            path: path.into(),
            message: e.to_string(),
        }
    }
}
