//! The native RPC's protobuf messages (server/proto/native/), generated at build time by
//! prost-build (server/build.rs). They refer to the filter and comparator messages of
//! Thrift2's `filterBytes` as `super::hbase`, which is [`crate::filter::wire`] itself.

#![allow(clippy::all, missing_docs)]

pub mod hbase {
    pub use crate::filter::wire::*;
}

pub mod native {
    include!(concat!(env!("OUT_DIR"), "/redbase.native.rs"));
}

pub use native::*;
