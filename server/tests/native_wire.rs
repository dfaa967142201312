//! HBase's native RPC spoken byte by byte on a loopback port: the registry preamble, the
//! connection header, ClientMetaService, MasterService DDL, a put and a get through
//! ClientService (protobuf cells and KeyValueCodec cell blocks), hbase:meta as the client
//! reads it; and hostile input (another version or auth byte, garbage, lying lengths, a frame
//! over the bound, an unknown service or method, cell blocks that claim more than they hold),
//! each answered with HBase's exception or the connection closed, the server serving after.
//!
//! One test binary, its tests by concern in `native_wire/`: framing and hostile input, client
//! calls, scan heartbeats and cursors, master and admin calls, callers and grants.

mod native_support;
mod security;

#[path = "native_wire/access.rs"]
mod access;
#[path = "native_wire/admin.rs"]
mod admin;
#[path = "native_wire/client.rs"]
mod client;
#[path = "native_wire/framing.rs"]
mod framing;
#[path = "native_wire/heartbeats.rs"]
mod heartbeats;
