//! The SDK's one error type: every fallible call returns `Result<T>`.

use crate::thrift_gen::hbase2::{TIOError, TIllegalArgument};

/// `std::result::Result` with the SDK's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong, split by who is at fault: the caller's values (`KeyEncoding`,
/// `ValueEncoding`), the server's answer (`Server`, `IllegalArgument`) or the connection
/// (`Transport`, `Protocol`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A value the key design refuses (too wide, outside its charset, a negative reverse
    /// timestamp, ...), or bytes that are not a key of the table.
    #[error("row key: {0}")]
    KeyEncoding(String),
    /// An empty string or bytes value for a key component whose schema does not set
    /// `allow_empty`: an empty field is almost always a forgotten one (`Default::default()`),
    /// and a key like `d41d8||201501` would silently stand for it. A variant of its own so
    /// callers can tell a missing value from a malformed one.
    #[error(
        "row key: component {component}: must not be empty in the {key} key (the schema does \
         not set allow_empty)"
    )]
    EmptyKeyComponent {
        /// The table id whose key refused it.
        key: &'static str,
        component: &'static str,
    },
    /// A value that does not fit its column type, or cell bytes that are not of that type.
    #[error("cell value: {0}")]
    ValueEncoding(String),
    /// An option out of range (a negative time range, zero versions, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A scan filter that cannot be rendered (an empty all-of, a negative page size, a key
    /// prefix missing a component, an operand its column cannot hold, ...).
    #[error("filter: {0}")]
    Filter(String),
    /// Rows of a batch the server refused; the other rows of the batch are written.
    #[error("{}", batch_message(.0))]
    Batch(Vec<RowFailure>),
    /// The server's `TIOError` (a missing table, a failed write, ...).
    #[error("server error: {message}")]
    Server {
        message: String,
        /// Whether the server says the call may succeed if retried.
        can_retry: bool,
    },
    /// The server's `TIllegalArgument`.
    #[error("illegal argument: {message}")]
    IllegalArgument { message: String },
    /// The connection failed (refused, closed, timed out).
    #[error("transport: {0}")]
    Transport(String),
    /// `ensure()` found the live table differing from its schema in a way it will not fix: a
    /// family the schema lacks (deleting it would delete data) or other split points (a gateway
    /// cannot re-split a table); `drifts` lists each in the words of `redbase schema diff`.
    #[error(
        "{table} differs from its schema: {} (redbase schema apply --allow-drop deletes extra \
         families; split points are fixed when a table is created)",
        .drifts.join("; ")
    )]
    SchemaDrift { table: String, drifts: Vec<String> },
    /// The peer's bytes were not the Thrift2 protocol this client speaks.
    #[error("thrift protocol: {0}")]
    Protocol(String),
}

/// One row of a batch the server refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowFailure {
    /// The row's index in the batch as given.
    pub index: usize,
    /// The encoded row key.
    pub row_key: Vec<u8>,
    /// The server's message.
    pub message: String,
}

/// How many rows failed, and the first one.
fn batch_message(failed: &[RowFailure]) -> String {
    match failed.first() {
        None => "a batch failed".into(),
        Some(f) => format!(
            "{} of the batch's rows failed, first: row {} ({}): {}",
            failed.len(),
            f.index,
            escape(&f.row_key),
            f.message
        ),
    }
}

/// Row keys in messages: printable ASCII as is, other bytes as `\xNN`.
fn escape(b: &[u8]) -> String {
    b.iter()
        .map(|&c| {
            if (0x20..0x7f).contains(&c) {
                (c as char).to_string()
            } else {
                format!("\\x{c:02x}")
            }
        })
        .collect()
}

impl Error {
    pub(crate) fn key(message: impl Into<String>) -> Self {
        Error::KeyEncoding(message.into())
    }

    pub(crate) fn value(message: impl Into<String>) -> Self {
        Error::ValueEncoding(message.into())
    }
}

impl From<thrift::Error> for Error {
    fn from(e: thrift::Error) -> Self {
        match e {
            thrift::Error::User(user) => {
                if let Some(io) = user.downcast_ref::<TIOError>() {
                    return Error::Server {
                        message: io.message.clone().unwrap_or_default(),
                        can_retry: io.can_retry.unwrap_or(false),
                    };
                }
                if let Some(arg) = user.downcast_ref::<TIllegalArgument>() {
                    return Error::IllegalArgument {
                        message: arg.message.clone().unwrap_or_default(),
                    };
                }
                Error::Protocol(user.to_string())
            }
            thrift::Error::Transport(t) => Error::Transport(t.message),
            thrift::Error::Protocol(p) => Error::Protocol(p.message),
            thrift::Error::Application(a) => Error::Protocol(a.message),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Transport(e.to_string())
    }
}
