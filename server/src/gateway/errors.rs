//! How the gateways classify failures. The engine's errors say their [`ErrorKind`]; the
//! failures of the gateway layer itself (a refused call, too many scanners) say theirs here;
//! each gateway then maps a kind onto its own wire exception in one function. The unchecked
//! exception both gateways send is built here, as it is the same on both.

pub use crate::engine::ErrorKind;
use crate::engine::{MutateError, NamespaceError, ReadError, TableError};
use crate::scanners::TooMany;

/// An error a gateway sends: its kind, and (through Display) the message the client reads.
pub trait Classified: std::fmt::Display {
    fn kind(&self) -> ErrorKind;
}

/// The engine's errors say their own kind.
macro_rules! engine_errors {
    ($($error:ident),*) => {$(
        impl Classified for $error {
            fn kind(&self) -> ErrorKind {
                $error::kind(self)
            }
        }
    )*};
}

engine_errors!(MutateError, ReadError, TableError, NamespaceError);

/// A full scanner table clears as leases expire and scanners close: worth retrying.
impl Classified for TooMany {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Io { retryable: true }
    }
}

/// What HBase's gateways let escape as an unchecked exception: the client sees a
/// TApplicationException carrying the message.
pub fn application(message: impl Into<String>) -> thrift::Error {
    thrift::Error::Application(thrift::ApplicationError::new(
        thrift::ApplicationErrorKind::Unknown,
        message.into(),
    ))
}
