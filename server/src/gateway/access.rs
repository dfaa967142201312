//! Whether a call may run: the one question both gateways ask before they change anything.
//! Today the answer comes from HBase's read-only mode; authentication and ACLs will answer it
//! here too, so each handler holds an [`Access`] and asks it with the [`Action`] a call takes.

use thiserror::Error;

use super::errors::{Classified, ErrorKind};

/// What a call does, as far as access is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Writes data: puts, deletes, counters, appends, check-and-mutate.
    Write,
    /// Administers: creates, changes or removes tables, families and namespaces, or compacts.
    Alter,
}

/// A refused call; its message is what the client reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct Denied(String);

/// HBase refuses with a DoNotRetryIOException: the gateways send a non-retryable IOError.
impl Classified for Denied {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Io { retryable: false }
    }
}

/// What callers of one gateway may do.
#[derive(Debug, Clone, Default)]
pub struct Access {
    read_only: bool,
}

impl Access {
    /// `read_only` refuses every data write, as HBase's `hbase.thrift.readonly`.
    pub fn new(read_only: bool) -> Access {
        Access { read_only }
    }

    /// Ok when the call may take `action`. Read-only mode refuses writes only: HBase's Thrift
    /// handlers check it in their data mutations, and administration goes on.
    pub fn check(&self, action: Action) -> Result<(), Denied> {
        match action {
            Action::Write if self.read_only => {
                Err(Denied("Thrift Server is in Read-only mode.".into()))
            }
            Action::Write | Action::Alter => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_refuses_writes_with_hbases_message() {
        let ro = Access::new(true);
        let denied = ro.check(Action::Write).unwrap_err();
        assert_eq!(denied.to_string(), "Thrift Server is in Read-only mode.");
        assert_eq!(denied.kind(), ErrorKind::Io { retryable: false });
        assert_eq!(ro.check(Action::Alter), Ok(()));
        assert_eq!(Access::default().check(Action::Write), Ok(()));
    }
}
