//! The Apache Thrift compiler's Rust output for idl/hbase2.thrift (`thrift --gen rs`,
//! 0.17), unedited: the `THBaseService` client and its types. Lints are off for it.

#[allow(
    clippy::all,
    clippy::pedantic,
    dead_code,
    unused_imports,
    unused_extern_crates,
    unused_variables,
    unused_mut,
    non_camel_case_types,
    non_snake_case
)]
pub mod hbase2;
