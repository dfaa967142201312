//! The runtime under every generated table module, the same in every Rust SDK: key and value
//! encodings, key bounds, the Thrift2 connection, row-level calls and merged scans.

pub mod batch;
pub mod bounds;
pub mod client;
pub mod drift;
pub mod error;
pub mod filter;
mod key_fields;
pub mod keys;
pub mod scan;
pub mod table;
pub mod values;
pub mod writer;

pub use batch::BatchOptions;
pub use bounds::Bound;
pub use client::{
    Cell, CellVersion, Cells, ColumnName, ConnectOptions, Connection, FamilyDef, ReadOptions,
    TableClient, TableDef, Transport,
};
pub use error::{Error, Result, RowFailure};
pub use filter::{CompareOp, Filter};
pub use keys::{KeyParts, KeyValue, RowKey};
pub use scan::{KeyRange, RowOrder, ScanOptions};
pub use table::{Row, TypedTable};
pub use values::{
    CellValue, Column, ColumnInfo, ColumnRef, Counter, CounterRef, PatternColumn, RowValues,
};
pub use writer::{Writer, WriterOptions};

/// Everything a generated table module names, imported there with one glob (items a table
/// does not use cost nothing).
pub mod prelude {
    pub use super::batch::BatchOptions;
    pub use super::bounds::Bound;
    pub use super::client::{
        Cell, CellVersion, Cells, Connection, FamilyDef, ReadOptions, TableClient, TableDef,
    };
    pub use super::error::{Error, Result};
    pub use super::filter::Filter;
    pub use super::keys::{
        leading, next_value, Charset, Component, Decoded, FromKeyValue, HashForm, HashPrefix,
        HashSpec, KeyParts, KeySpec, KeyType, KeyValue, Layout, Reverse, RowKey, SaltSpec,
    };
    pub use super::scan::{KeyRange, ScanOptions};
    pub use super::table::{Row, TypedTable};
    pub use super::values::{
        CellValue, Column, ColumnInfo, ColumnKind, ColumnRef, CounterRef, PartType, PatternColumn,
        RowValues, ValueType,
    };
    pub use super::writer::Writer;
    pub use crate::thrift_gen::hbase2::{
        TBloomFilterType, TCompressionAlgorithm, TDataBlockEncoding, TKeepDeletedCells,
    };
    pub use std::collections::BTreeMap;
    pub use std::marker::PhantomData;
}
