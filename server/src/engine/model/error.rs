//! One error enum per operation, so a caller matches only on what that operation can say.
//! Each says its [`ErrorKind`]; the gateways map kinds onto their wire exceptions.

use std::path::PathBuf;

use thiserror::Error;

/// What sort of failure an error is, as the gateways tell clients: each gateway maps a kind
/// onto its own exceptions. The matches below name every variant, so a new one must be
/// classified here, once for both gateways.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request itself is wrong: sent again, it fails again.
    IllegalArgument,
    /// What the request creates already exists.
    AlreadyExists,
    /// A table, namespace, family or region the request names does not exist.
    NotFound,
    /// HBase's IncompatibleFilterException (a filter that judges whole rows, with a batch).
    IncompatibleFilter,
    /// Anything else; `retryable` where waiting may help (storage trouble, shutting down, a
    /// region being replaced), as HBase marks them.
    Io { retryable: bool },
}

impl ErrorKind {
    /// The canRetry flag of an IOError carrying this kind.
    pub fn retryable(self) -> bool {
        matches!(self, ErrorKind::Io { retryable: true })
    }
}

const RETRY: ErrorKind = ErrorKind::Io { retryable: true };
const FINAL: ErrorKind = ErrorKind::Io { retryable: false };

/// A failure of the storage layer under the engine (redb or the file system).
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("storage error in {file}: {message}")]
pub struct StorageError {
    pub file: PathBuf,
    pub message: String,
}

impl StorageError {
    pub fn new(file: impl Into<PathBuf>, e: impl std::fmt::Display) -> StorageError {
        StorageError {
            file: file.into(),
            message: e.to_string(),
        }
    }
}

/// A descriptor or name that HBase would refuse.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaError {
    #[error("illegal table name {name:?}: {reason}")]
    InvalidTableName { name: String, reason: String },
    #[error("illegal namespace name {name:?}: {reason}")]
    InvalidNamespaceName { name: String, reason: String },
    #[error("column family {family:?}: {field} {reason}")]
    InvalidFamily {
        family: String,
        field: String,
        reason: String,
    },
    #[error("table {table} must have at least one column family")]
    NoFamilies { table: String },
}

#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpenError {
    #[error("cannot use data directory {dir}: {message}")]
    DataDir { dir: PathBuf, message: String },
    /// Another process holds the catalog's lock: the directory is served or being written.
    #[error(
        "the data directory {} is in use by another process (a running `redbase serve`, \
         `import` or `restore`?): stop it first, or give this one another --data-dir",
        dir.display()
    )]
    InUse { dir: PathBuf },
    /// The process may not write a file or directory it must (its permissions, or a
    /// read-only mount).
    #[error("{}", not_writable(path, user, *read_only_fs))]
    NotWritable {
        path: PathBuf,
        /// The process's user as `name (uid N)`.
        user: String,
        read_only_fs: bool,
    },
    #[error("catalog {file} is unreadable: {message}")]
    Catalog { file: PathBuf, message: String },
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl OpenError {
    /// `e` from creating or opening `path`, as [`OpenError::NotWritable`] when it is a
    /// permission or read-only-mount failure; `None` for any other error.
    pub fn not_writable_from(path: &std::path::Path, e: &std::io::Error) -> Option<OpenError> {
        let read_only_fs = match e.kind() {
            std::io::ErrorKind::PermissionDenied => false,
            std::io::ErrorKind::ReadOnlyFilesystem => true,
            _ => return None,
        };
        Some(OpenError::NotWritable {
            path: path.to_path_buf(),
            user: process_user(),
            read_only_fs,
        })
    }
}

/// The message of [`OpenError::NotWritable`]: what may not be written, by whom, what to do.
pub fn not_writable(path: &std::path::Path, user: &str, read_only_fs: bool) -> String {
    if read_only_fs {
        format!(
            "{} is on a read-only file system: give --data-dir a directory on a writable one",
            path.display()
        )
    } else {
        format!(
            "{} is not writable by user {user}: give that user write access to the data \
             directory and its files (chown or chmod), or run redbase as their owner",
            path.display()
        )
    }
}

/// This process's user, `name (uid N)`, the name from /etc/passwd when it has one.
pub fn process_user() -> String {
    let uid = rustix::process::getuid().as_raw();
    let name = std::fs::read_to_string("/etc/passwd").ok().and_then(|p| {
        p.lines().find_map(|l| {
            let mut f = l.split(':');
            let name = f.next()?;
            (f.nth(1)?.parse::<u32>().ok()? == uid).then(|| name.to_string())
        })
    });
    match name {
        Some(n) => format!("{n} (uid {uid})"),
        None => format!("uid {uid}"),
    }
}

#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum NamespaceError {
    #[error(transparent)]
    Invalid(#[from] SchemaError),
    #[error("namespace {0} already exists")]
    Exists(String),
    #[error("namespace {0} does not exist")]
    NotFound(String),
    #[error("namespace {name} is not empty: it still holds {tables} table(s)")]
    NotEmpty { name: String, tables: usize },
    #[error("namespace {0} is reserved and cannot be removed")]
    Reserved(String),
    #[error("namespace {namespace}: {reason}")]
    InvalidQuota { namespace: String, reason: String },
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl NamespaceError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            NamespaceError::Invalid(_) => ErrorKind::IllegalArgument,
            NamespaceError::Exists(_) => ErrorKind::AlreadyExists,
            NamespaceError::NotFound(_) => ErrorKind::NotFound,
            // HBase's ConstraintException / DoNotRetryIOException: an IOError, not retryable.
            NamespaceError::NotEmpty { .. }
            | NamespaceError::Reserved(_)
            | NamespaceError::InvalidQuota { .. } => FINAL,
            NamespaceError::Storage(_) => RETRY,
        }
    }
}

/// Errors of table and family administration.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableError {
    #[error(transparent)]
    Invalid(#[from] SchemaError),
    #[error("table {0} already exists")]
    Exists(String),
    #[error("table {0} does not exist")]
    NotFound(String),
    #[error("namespace {0} does not exist")]
    NamespaceNotFound(String),
    #[error("table {0} is enabled: disable it first")]
    NotDisabled(String),
    #[error("table {0} is already disabled")]
    AlreadyDisabled(String),
    #[error("table {0} is already enabled")]
    AlreadyEnabled(String),
    #[error("table {table} already has column family {family}")]
    FamilyExists { table: String, family: String },
    #[error("table {table} has no column family {family}")]
    FamilyNotFound { table: String, family: String },
    #[error("table {0} would have no column family left")]
    LastFamily(String),
    #[error("invalid split keys: {0}")]
    InvalidSplitKeys(String),
    #[error("table {table} is offline: {reason}")]
    Offline { table: String, reason: String },
    #[error("no region named {0}")]
    RegionNotFound(String),
    #[error("region {region} cannot split: {reason}")]
    CannotSplit { region: String, reason: String },
    #[error("{what} would add {adding} region(s) to the {held} this server holds, over its limit of {limit} (--max-regions)")]
    TooManyRegions {
        what: String,
        adding: usize,
        held: usize,
        limit: usize,
    },
    /// A namespace quota (`hbase.namespace.quota.maxtables`/`maxregions`, with quotas enabled)
    /// refused a table or a split; the message is HBase's where HBase has one.
    #[error("{0}")]
    QuotaExceeded(String),
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl TableError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            TableError::Invalid(_) | TableError::InvalidSplitKeys(_) => ErrorKind::IllegalArgument,
            TableError::Exists(_) => ErrorKind::AlreadyExists,
            TableError::NotFound(_)
            | TableError::NamespaceNotFound(_)
            | TableError::FamilyNotFound { .. }
            | TableError::RegionNotFound(_) => ErrorKind::NotFound,
            TableError::NotDisabled(_)
            | TableError::AlreadyDisabled(_)
            | TableError::AlreadyEnabled(_)
            | TableError::FamilyExists { .. }
            | TableError::LastFamily(_)
            | TableError::Offline { .. }
            | TableError::CannotSplit { .. }
            | TableError::TooManyRegions { .. }
            | TableError::QuotaExceeded(_) => FINAL,
            TableError::Storage(_) => RETRY,
        }
    }
}

/// Errors of puts, deletes, increments, appends and check-and-mutate.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum MutateError {
    #[error("table {0} does not exist")]
    TableNotFound(String),
    #[error("table {0} is disabled")]
    TableDisabled(String),
    #[error("table {table} is offline: {reason}")]
    TableOffline { table: String, reason: String },
    #[error("row key is empty: a write needs a row")]
    EmptyRow,
    #[error("the mutation of row {row:?} has no columns to write or delete")]
    EmptyMutation { row: String },
    #[error("row key is {len} bytes; the maximum is 32767")]
    RowTooLong { len: usize },
    #[error("column family {family} does not exist in table {table}")]
    NoSuchFamily { table: String, family: String },
    #[error("timestamp {0} is negative")]
    NegativeTimestamp(i64),
    #[error("value of {len} bytes exceeds the maximum of {max} bytes")]
    ValueTooLarge { len: usize, max: usize },
    #[error("cell TTL {0} ms is not positive")]
    InvalidTtl(i64),
    #[error("Field is not a long, it's {width} bytes wide ({family}:{qualifier})")]
    NotCounter {
        family: String,
        qualifier: String,
        width: usize,
    },
    #[error("invalid check-and-mutate: {0}")]
    InvalidCondition(String),
    #[error("the engine is shutting down")]
    ShuttingDown,
    /// The row's region kept being replaced (split, compaction, close) for as long as the write
    /// waited: retryable, as HBase's NotServingRegionException.
    #[error("region of row {row:?} in table {table} is not serving: it was being replaced for {waited_ms} ms; retry")]
    RegionNotServing {
        table: String,
        row: String,
        waited_ms: u64,
    },
    /// The region is being split or compacted and its rewrite holds as many of the keys
    /// written meanwhile as it may; the write waited for room in vain. Retryable, as HBase's
    /// RegionTooBusyException.
    #[error("region {region} is too busy: its rewrite holds {held} keys written meanwhile (the bound is {max}) and the write waited {waited_ms} ms for room; retry")]
    RegionTooBusy {
        region: String,
        held: usize,
        max: usize,
        waited_ms: u64,
    },
    /// The region grew past its blocking size (a multiple of the split size) and stayed there
    /// while its split ran for as long as the write waited. Retryable, as HBase's
    /// RegionTooBusyException for a region over its blocking memstore size.
    #[error("region {region} is too busy: it holds {size} bytes, over its blocking size of {limit} bytes, while it splits, and the write waited {waited_ms} ms for the split to end; retry")]
    RegionOverBlockingSize {
        region: String,
        size: u64,
        limit: u64,
        waited_ms: u64,
    },
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl MutateError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            MutateError::EmptyRow
            | MutateError::RowTooLong { .. }
            | MutateError::NegativeTimestamp(_)
            | MutateError::ValueTooLarge { .. }
            | MutateError::EmptyMutation { .. }
            | MutateError::InvalidTtl(_) => ErrorKind::IllegalArgument,
            MutateError::TableNotFound(_) | MutateError::NoSuchFamily { .. } => ErrorKind::NotFound,
            MutateError::TableDisabled(_)
            | MutateError::TableOffline { .. }
            | MutateError::NotCounter { .. }
            | MutateError::InvalidCondition(_) => FINAL,
            MutateError::Storage(_)
            | MutateError::ShuttingDown
            | MutateError::RegionNotServing { .. }
            | MutateError::RegionTooBusy { .. }
            | MutateError::RegionOverBlockingSize { .. } => RETRY,
        }
    }
}

/// Errors of gets and scans.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadError {
    #[error("table {0} does not exist")]
    TableNotFound(String),
    #[error("table {0} is disabled")]
    TableDisabled(String),
    #[error("table {table} is offline: {reason}")]
    TableOffline { table: String, reason: String },
    #[error("column family {family} does not exist in table {table}")]
    NoSuchFamily { table: String, family: String },
    #[error("invalid time range [{min}, {max}): {reason}")]
    InvalidTimeRange { min: i64, max: i64, reason: String },
    #[error("invalid read: {0}")]
    Invalid(String),
    /// HBase's IncompatibleFilterException.
    #[error("incompatible filter: {0}")]
    IncompatibleFilter(String),
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl ReadError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            ReadError::InvalidTimeRange { .. } | ReadError::Invalid(_) => {
                ErrorKind::IllegalArgument
            }
            ReadError::TableNotFound(_) | ReadError::NoSuchFamily { .. } => ErrorKind::NotFound,
            ReadError::IncompatibleFilter(_) => ErrorKind::IncompatibleFilter,
            ReadError::TableDisabled(_) | ReadError::TableOffline { .. } => FINAL,
            ReadError::Storage(_) => RETRY,
        }
    }
}

/// Errors of compaction.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompactError {
    #[error("table {0} does not exist")]
    TableNotFound(String),
    #[error("table {table} is offline: {reason}")]
    TableOffline { table: String, reason: String },
    #[error(transparent)]
    Storage(#[from] StorageError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_cannot_be_written_says_by_whom_or_why() {
        let p = std::path::Path::new("/data/meta.redb");
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let e = OpenError::not_writable_from(p, &denied)
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("/data/meta.redb is not writable by user "),
            "{e}"
        );
        assert!(
            e.contains(&format!("(uid {})", rustix::process::getuid().as_raw())),
            "{e}"
        );
        let ro = std::io::Error::from(std::io::ErrorKind::ReadOnlyFilesystem);
        let e = OpenError::not_writable_from(p, &ro).unwrap().to_string();
        assert!(e.contains("is on a read-only file system"), "{e}");
        let other = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(OpenError::not_writable_from(p, &other), None);
    }
}
