//! redbase: an HBase-compatible database server on redb.
//!
//! The [`engine`] holds HBase's data model (tables split into regions, column families, cell
//! versions, delete markers, TTL, counters, check-and-mutate, compaction) on redb files. The
//! Thrift gateways that speak HBase's wire protocols sit on top of it. The client tools of the same
//! binary (`redbase shell`, `copy`, `backup`, ...) are [`cli`].

#![forbid(unsafe_code)]

pub mod backup;
pub mod cli;
pub mod engine;
pub mod filter;
pub mod flag_values;
pub mod gateway;
pub mod generated;
pub mod http;
pub mod metrics;
pub mod native;
pub mod open_files;
pub mod rest;
pub mod scanners;
pub mod security;
pub mod server;
pub mod slowlog;
pub mod thrift;
pub mod thrift1;
pub mod thrift2;
