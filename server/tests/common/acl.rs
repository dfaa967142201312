//! Helpers for access control tests over a real server: clients of both services, grant and
//! revoke through them, and reading a refusal back. The authenticated end-to-end tests (once
//! a caller can prove a user) use the same helpers with their authenticating clients.

use std::net::SocketAddr;

use redbase::generated::{hbase1 as h1, hbase2 as h2};
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{ReadHalf, TIoChannel, TTcpChannel, WriteHalf};

/// What an HBase client sees ahead of a denial's message.
pub const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException: ";
/// What a read-only server answers every change with.
pub const READ_ONLY: &str = "Thrift Server is in Read-only mode.";

pub type In = TBinaryInputProtocol<ReadHalf<TTcpChannel>>;
pub type Out = TBinaryOutputProtocol<WriteHalf<TTcpChannel>>;
pub type Client2 = h2::THBaseServiceSyncClient<In, Out>;
pub type Client1 = h1::HbaseSyncClient<In, Out>;

fn channel(addr: SocketAddr) -> (In, Out) {
    let mut c = TTcpChannel::new();
    c.open(addr.to_string()).unwrap();
    let (r, w) = c.split().unwrap();
    (
        TBinaryInputProtocol::new(r, true),
        TBinaryOutputProtocol::new(w, true),
    )
}

pub fn client2(addr: SocketAddr) -> Client2 {
    let (i, o) = channel(addr);
    h2::THBaseServiceSyncClient::new(i, o)
}

pub fn client1(addr: SocketAddr) -> Client1 {
    let (i, o) = channel(addr);
    h1::HbaseSyncClient::new(i, o)
}

/// A Thrift1 column family as HBase's clients send one (its defaults spelled out).
pub fn family1(name: &str) -> h1::ColumnDescriptor {
    h1::ColumnDescriptor {
        name: Some(format!("{name}:").into_bytes()),
        max_versions: Some(3),
        compression: Some("NONE".into()),
        in_memory: Some(false),
        bloom_filter_type: Some("NONE".into()),
        bloom_filter_vector_size: Some(0),
        bloom_filter_nb_hashes: Some(0),
        block_cache_enabled: Some(false),
        time_to_live: Some(i32::MAX),
    }
}

/// A Thrift2 get of a whole row.
pub fn tget(row: &[u8]) -> h2::TGet {
    h2::TGet::new(
        row.to_vec(),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    )
}

/// A Thrift2 scan of the whole table, every field unset (change what a test needs).
pub fn tscan() -> h2::TScan {
    h2::TScan {
        start_row: None,
        stop_row: None,
        columns: None,
        caching: None,
        max_versions: None,
        time_range: None,
        filter_string: None,
        batch_size: None,
        attributes: None,
        authorizations: None,
        reversed: None,
        cache_blocks: None,
        col_fam_time_range_map: None,
        read_type: None,
        limit: None,
        consistency: None,
        target_replica_id: None,
        filter_bytes: None,
    }
}

/// Where a grant applies, as the wire names it.
#[derive(Debug, Clone, Copy)]
pub enum On<'a> {
    Table(&'a str),
    Namespace(&'a str),
}

pub fn entity2(user: &str, on: On<'_>, actions: &str) -> h2::TAccessControlEntity {
    let (scope, table_name, ns_name) = match on {
        On::Table(t) => (h2::TPermissionScope::TABLE, Some(t.to_string()), None),
        On::Namespace(n) => (h2::TPermissionScope::NAMESPACE, None, Some(n.to_string())),
    };
    h2::TAccessControlEntity {
        username: user.into(),
        scope,
        actions: actions.into(),
        table_name,
        ns_name,
    }
}

pub fn entity1(user: &str, on: On<'_>, actions: &str) -> h1::TAccessControlEntity {
    let (scope, table_name, ns_name) = match on {
        On::Table(t) => (
            h1::TPermissionScope::TABLE,
            Some(t.as_bytes().to_vec()),
            None,
        ),
        On::Namespace(n) => (h1::TPermissionScope::NAMESPACE, None, Some(n.to_string())),
    };
    h1::TAccessControlEntity {
        username: user.into(),
        scope,
        actions: actions.into(),
        table_name,
        ns_name,
    }
}

/// The message and canRetry flag of a Thrift2 TIOError or a Thrift1 IOError; panics on any
/// other error, so a test reads exactly the declared exception.
pub fn io_error<T: std::fmt::Debug>(r: thrift::Result<T>) -> (String, bool) {
    match r {
        Err(thrift::Error::User(e)) => {
            if let Some(e) = e.downcast_ref::<h2::TIOError>() {
                return (
                    e.message.clone().unwrap_or_default(),
                    e.can_retry.unwrap_or(true),
                );
            }
            if let Some(e) = e.downcast_ref::<h1::IOError>() {
                return (
                    e.message.clone().unwrap_or_default(),
                    e.can_retry.unwrap_or(true),
                );
            }
            panic!("not an IOError: {e:?}")
        }
        other => panic!("expected an IOError, got {other:?}"),
    }
}

/// Asserts the call was refused with HBase's AccessDeniedException carrying `message`,
/// non-retryable.
pub fn assert_denied<T: std::fmt::Debug>(r: thrift::Result<T>, message: &str) {
    let (m, retry) = io_error(r);
    assert_eq!(m, format!("{ACCESS_DENIED}{message}"));
    assert!(!retry, "a denial must not be retryable");
}
