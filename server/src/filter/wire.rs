//! The protobuf messages of serialized filters and comparators (server/proto/), generated at
//! build time by prost-build with protox as the .proto compiler (server/build.rs): the .proto
//! files stay the one description of the wire format, and no system `protoc` is needed.
//! [`super::proto`] turns these messages into filters.

#![allow(clippy::all, missing_docs)]

include!(concat!(env!("OUT_DIR"), "/redbase.hbase.rs"));
