//! Failures as HBase's Java client reads them: an exception class name, a message, and
//! whether the client may retry. The class name decides what the client throws (it builds the
//! exception by reflection when the class is on its classpath) and how it reacts: a
//! `NotServingRegionException` makes it look the region up again, a `DoNotRetryIOException`
//! subclass ends the operation at once, anything else is retried until the retries run out.
//! So every engine error maps to the class HBase 2.6 throws for the same condition, with
//! `do_not_retry` set exactly when that class extends `DoNotRetryIOException`.

use crate::engine::{CompactError, MutateError, NamespaceError, ReadError, TableError};
use crate::gateway::Denied;

/// HBase's exception classes we send, by their Java names.
pub mod class {
    pub const IO: &str = "java.io.IOException";
    pub const DO_NOT_RETRY: &str = "org.apache.hadoop.hbase.DoNotRetryIOException";
    pub const TABLE_NOT_FOUND: &str = "org.apache.hadoop.hbase.TableNotFoundException";
    pub const TABLE_EXISTS: &str = "org.apache.hadoop.hbase.TableExistsException";
    pub const TABLE_NOT_ENABLED: &str = "org.apache.hadoop.hbase.TableNotEnabledException";
    pub const TABLE_NOT_DISABLED: &str = "org.apache.hadoop.hbase.TableNotDisabledException";
    pub const NAMESPACE_EXISTS: &str = "org.apache.hadoop.hbase.NamespaceExistException";
    pub const NAMESPACE_NOT_FOUND: &str = "org.apache.hadoop.hbase.NamespaceNotFoundException";
    pub const INVALID_FAMILY_OPERATION: &str =
        "org.apache.hadoop.hbase.InvalidFamilyOperationException";
    pub const CONSTRAINT: &str = "org.apache.hadoop.hbase.constraint.ConstraintException";
    pub const NOT_SERVING_REGION: &str = "org.apache.hadoop.hbase.NotServingRegionException";
    pub const REGION_TOO_BUSY: &str = "org.apache.hadoop.hbase.RegionTooBusyException";
    pub const UNKNOWN_SCANNER: &str = "org.apache.hadoop.hbase.UnknownScannerException";
    pub const OUT_OF_ORDER_SCANNER_NEXT: &str =
        "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException";
    pub const NO_SUCH_COLUMN_FAMILY: &str =
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException";
    pub const SERVER_STOPPED: &str =
        "org.apache.hadoop.hbase.regionserver.RegionServerStoppedException";
    pub const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";
    pub const QUOTA_EXCEEDED: &str = "org.apache.hadoop.hbase.quotas.QuotaExceededException";
    pub const REQUEST_TOO_BIG: &str = "org.apache.hadoop.hbase.exceptions.RequestTooBigException";
    pub const CALL_QUEUE_TOO_BIG: &str = "org.apache.hadoop.hbase.CallQueueTooBigException";
    pub const MULTI_ACTION_RESULT_TOO_LARGE: &str =
        "org.apache.hadoop.hbase.MultiActionResultTooLarge";
    pub const FATAL_CONNECTION: &str = "org.apache.hadoop.hbase.ipc.FatalConnectionException";
    pub const WRONG_VERSION: &str = "org.apache.hadoop.hbase.ipc.WrongVersionException";
    pub const BAD_AUTH: &str = "org.apache.hadoop.hbase.ipc.BadAuthException";
    pub const UNKNOWN_SERVICE: &str = "org.apache.hadoop.hbase.ipc.UnknownServiceException";
    pub const UNSUPPORTED_CELL_CODEC: &str =
        "org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException";
    pub const UNSUPPORTED_COMPRESSION: &str =
        "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException";
    pub const SECURITY_NOT_ENABLED: &str =
        "org.apache.hadoop.hbase.ipc.SecurityNotEnabledException";
}

/// One failure on its way to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeError {
    /// The Java class the client throws.
    pub class: &'static str,
    pub message: String,
    /// True exactly when `class` extends HBase's DoNotRetryIOException.
    pub do_not_retry: bool,
}

impl std::fmt::Display for NativeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.class, self.message)
    }
}

impl NativeError {
    /// A class the client retries (an IOException that is not a DoNotRetryIOException).
    pub fn retry(class: &'static str, message: impl Into<String>) -> NativeError {
        NativeError {
            class,
            message: message.into(),
            do_not_retry: false,
        }
    }

    /// A DoNotRetryIOException or one of its subclasses.
    pub fn final_(class: &'static str, message: impl Into<String>) -> NativeError {
        NativeError {
            class,
            message: message.into(),
            do_not_retry: true,
        }
    }

    /// A request we cannot serve, sent again it fails again.
    pub fn bad_request(message: impl Into<String>) -> NativeError {
        NativeError::final_(class::DO_NOT_RETRY, message)
    }

    /// A method of a known service that redbase does not offer; as HBase answers a method it
    /// does not know (an UnsupportedOperationException wrapped in a DoNotRetryIOException),
    /// but naming what is missing.
    pub fn unsupported(service: &str, method: &str) -> NativeError {
        NativeError::bad_request(format!(
            "java.lang.UnsupportedOperationException: redbase does not offer {service}.{method}"
        ))
    }

    pub fn not_serving(region: &[u8]) -> NativeError {
        NativeError::retry(
            class::NOT_SERVING_REGION,
            format!(
                "Region {} is not online on this server (it was split, merged or its table \
                 dropped): look it up again in hbase:meta",
                String::from_utf8_lossy(region)
            ),
        )
    }

    /// Whether the client drops its connection on this error (a FatalConnectionException).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self.class,
            class::FATAL_CONNECTION
                | class::WRONG_VERSION
                | class::BAD_AUTH
                | class::UNKNOWN_SERVICE
                | class::UNSUPPORTED_CELL_CODEC
                | class::UNSUPPORTED_COMPRESSION
        )
    }
}

impl From<Denied> for NativeError {
    fn from(d: Denied) -> NativeError {
        NativeError::final_(class::ACCESS_DENIED, d.to_string())
    }
}

impl From<MutateError> for NativeError {
    fn from(e: MutateError) -> NativeError {
        let message = e.to_string();
        let class = match &e {
            MutateError::TableNotFound(_) => class::TABLE_NOT_FOUND,
            MutateError::TableDisabled(_) => class::TABLE_NOT_ENABLED,
            MutateError::NoSuchFamily { .. } => class::NO_SUCH_COLUMN_FAMILY,
            MutateError::RegionNotServing { .. } => class::NOT_SERVING_REGION,
            MutateError::RegionTooBusy { .. } | MutateError::RegionOverBlockingSize { .. } => {
                class::REGION_TOO_BUSY
            }
            MutateError::ShuttingDown => class::SERVER_STOPPED,
            MutateError::Storage(_) => class::IO,
            _ => class::DO_NOT_RETRY,
        };
        by_class(class, message)
    }
}

impl From<ReadError> for NativeError {
    fn from(e: ReadError) -> NativeError {
        let message = e.to_string();
        let class = match &e {
            ReadError::TableNotFound(_) => class::TABLE_NOT_FOUND,
            ReadError::TableDisabled(_) => class::TABLE_NOT_ENABLED,
            ReadError::NoSuchFamily { .. } => class::NO_SUCH_COLUMN_FAMILY,
            ReadError::Storage(_) => class::IO,
            _ => class::DO_NOT_RETRY,
        };
        by_class(class, message)
    }
}

impl From<TableError> for NativeError {
    fn from(e: TableError) -> NativeError {
        let message = e.to_string();
        let class = match &e {
            TableError::Exists(_) => class::TABLE_EXISTS,
            TableError::NotFound(_) => class::TABLE_NOT_FOUND,
            TableError::NamespaceNotFound(_) => class::NAMESPACE_NOT_FOUND,
            // HBase: disabling a disabled table is "not enabled", and the other way round.
            TableError::NotDisabled(_) | TableError::AlreadyEnabled(_) => class::TABLE_NOT_DISABLED,
            TableError::AlreadyDisabled(_) => class::TABLE_NOT_ENABLED,
            TableError::FamilyExists { .. }
            | TableError::FamilyNotFound { .. }
            | TableError::LastFamily(_) => class::INVALID_FAMILY_OPERATION,
            TableError::QuotaExceeded(_) | TableError::TooManyRegions { .. } => {
                class::QUOTA_EXCEEDED
            }
            TableError::Storage(_) => class::IO,
            _ => class::DO_NOT_RETRY,
        };
        by_class(class, message)
    }
}

impl From<NamespaceError> for NativeError {
    fn from(e: NamespaceError) -> NativeError {
        let message = e.to_string();
        let class = match &e {
            NamespaceError::Exists(_) => class::NAMESPACE_EXISTS,
            NamespaceError::NotFound(_) => class::NAMESPACE_NOT_FOUND,
            NamespaceError::NotEmpty { .. } | NamespaceError::Reserved(_) => class::CONSTRAINT,
            NamespaceError::Storage(_) => class::IO,
            _ => class::DO_NOT_RETRY,
        };
        by_class(class, message)
    }
}

impl From<CompactError> for NativeError {
    fn from(e: CompactError) -> NativeError {
        let message = e.to_string();
        let class = match &e {
            CompactError::TableNotFound(_) => class::TABLE_NOT_FOUND,
            CompactError::Storage(_) => class::IO,
            _ => class::DO_NOT_RETRY,
        };
        by_class(class, message)
    }
}

/// The retry flag follows the class: the few retryable classes we send, else do-not-retry.
fn by_class(class: &'static str, message: String) -> NativeError {
    let retryable = matches!(
        class,
        class::IO
            | class::NOT_SERVING_REGION
            | class::REGION_TOO_BUSY
            | class::SERVER_STOPPED
            | class::CALL_QUEUE_TOO_BIG
            | class::MULTI_ACTION_RESULT_TOO_LARGE
    );
    NativeError {
        class,
        message,
        do_not_retry: !retryable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_carry_hbases_retry_flag() {
        let e: NativeError = MutateError::NoSuchFamily {
            table: "t".into(),
            family: "x".into(),
        }
        .into();
        assert_eq!(e.class, class::NO_SUCH_COLUMN_FAMILY);
        assert!(e.do_not_retry);
        let e: NativeError = MutateError::RegionNotServing {
            table: "t".into(),
            row: "r".into(),
            waited_ms: 1,
        }
        .into();
        assert_eq!(e.class, class::NOT_SERVING_REGION);
        assert!(!e.do_not_retry);
        let e: NativeError = TableError::NotFound("t".into()).into();
        assert_eq!(e.class, class::TABLE_NOT_FOUND);
        assert!(e.do_not_retry);
        assert!(NativeError::final_(class::WRONG_VERSION, "x").is_fatal());
        assert!(!NativeError::not_serving(b"r").is_fatal());
    }
}
