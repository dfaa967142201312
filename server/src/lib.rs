//! redbase: an HBase-compatible database server on redb.
//!
//! The [`engine`] holds HBase's data model (tables split into regions, column families, cell
//! versions, delete markers, TTL, counters, check-and-mutate, compaction) on redb files. The
//! Thrift gateways that speak HBase's wire protocols sit on top of it.

#![forbid(unsafe_code)]

pub mod backup;
pub mod connect;
pub mod data_move;
pub mod engine;
pub mod filter;
pub mod flag_values;
pub mod gateway;
pub mod generated;
pub mod healthcheck;
pub mod http;
pub mod metrics;
pub mod native;
pub mod open_files;
pub mod rest;
pub mod scanners;
pub mod security;
pub mod server;
pub mod shell;
pub mod slowlog;
pub mod thrift;
pub mod thrift1;
pub mod thrift2;
