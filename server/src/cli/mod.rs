//! The client tools of the `redbase` binary: everything but `redbase serve` (and
//! `hash-password`, which belongs to the server's auth file). They talk to a server over its
//! wire protocols like any other client (Thrift2, the operations listener), or work on files
//! offline (`restore`, `import --data-dir`); the server never calls into them.
//!
//! - [`shell`]: `redbase shell`, the HBase shell's commands over Thrift2 (docs/shell.md).
//! - [`data_move`]: `redbase export`, `import` and `copy` (docs/operations.md, "Moving data").
//! - [`backup`]: `redbase backup` and `redbase restore`; the server's side is
//!   [`crate::backup`].
//! - [`schema`]: `redbase schema diff | apply` (docs/schema.md, "Schema drift").
//! - [`codegen`]: `redbase codegen`, typed SDKs from schema files (docs/sdks.md).
//! - [`healthcheck`]: `redbase healthcheck`, the container's HEALTHCHECK.
//! - [`connect`]: what every tool shares to reach a server: credentials, TLS, transports
//!   (docs/security.md, "Client tools").

pub mod backup;
pub mod codegen;
pub mod connect;
pub mod data_move;
pub mod healthcheck;
pub mod schema;
pub mod shell;
