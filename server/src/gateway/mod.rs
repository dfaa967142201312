//! What the two gateways (Thrift1 in `thrift1`, Thrift2 in `thrift2`) share: who is calling
//! ([`caller`]), who may do what ([`access`], and [`grants`], changing it), where clients are told regions live ([`advertised`]), how engine errors are
//! classified for the wire ([`errors`]), the request handling that is the same on both
//! ([`requests`]) and what a client on the wrong port is told ([`wrong_port`]). One-row writes
//! that await their commit on the connection's task instead of a thread are [`awaited`].
//!
//! Dependencies go one way: gateways -> gateway -> engine. Nothing here names a gateway's wire
//! types; each gateway turns these answers into its own exceptions.

pub mod access;
pub mod advertised;
pub mod awaited;
pub mod caller;
pub mod errors;
pub mod grants;
pub mod requests;
pub mod wrong_port;

pub use access::{Access, Denied, Need, Rule};
pub use advertised::Advertised;
pub use caller::Caller;
pub use errors::{application, Classified, ErrorKind};
