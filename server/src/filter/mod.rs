//! HBase's filter language: a filter string such as
//! `PrefixFilter('row') AND (ValueFilter(=, 'binary:x') OR SKIP QualifierFilter(>, 'binary:q'))`
//! parsed into filters that the engine runs while it reads.
//!
//! Map: [`parse`] the syntax (with positions) into an [`ast::Expr`], [`build`] checks names and
//! arguments as HBase's filter classes do and builds the filters: [`rows`] (row-level),
//! [`columns`] (column, timestamp and value tests), [`values`] (one column's value decides),
//! [`list`] (AND, OR, SKIP, WHILE), on the comparators of [`compare`]. [`eval`] holds HBase's
//! filter hooks and the adapter to the engine's [`crate::engine::Filter`]. docs/filters.md
//! describes the language and where it differs from HBase.
//!
//! Serialized filters (Thrift2 `filterBytes`, HBase's protobuf form) are decoded by [`proto`]
//! from the messages of [`wire`] onto the same filters, plus the ones only that form can
//! express: [`row_ranges`] (MultiRowRangeFilter), [`fuzzy`] (FuzzyRowFilter) and
//! [`serialized_only`].

pub mod ast;
pub mod build;
pub mod columns;
pub mod compare;
pub mod error;
pub mod eval;
pub mod fuzzy;
pub mod list;
pub mod parse;
pub mod proto;
pub mod row_ranges;
pub mod rows;
pub mod serialized_only;
pub mod values;
pub mod wire;

pub use ast::Expr;
pub use error::FilterError;

use crate::engine::Filter;

/// Parses a filter string and builds the filter it describes.
pub fn parse(s: &str) -> Result<Box<dyn Filter>, FilterError> {
    parse_bytes(s.as_bytes())
}

/// [`parse`] for a filter string given as bytes (as Thrift carries it): quoted arguments may
/// hold any bytes.
pub fn parse_bytes(s: &[u8]) -> Result<Box<dyn Filter>, FilterError> {
    let expr = parse::parse_expr(s)?;
    Ok(Box::new(eval::Compiled::new(build::build(&expr)?)))
}

/// Decodes a serialized filter (HBase's protobuf `Filter`, as Thrift2 `filterBytes` carries
/// it) and builds the filter it describes.
pub fn from_serialized(bytes: &[u8]) -> Result<Box<dyn Filter>, proto::SerializedFilterError> {
    proto::from_bytes(bytes)
}

/// Parses a filter string into its syntax tree only (no name or argument checks).
pub fn syntax(s: &[u8]) -> Result<Expr, FilterError> {
    parse::parse_expr(s)
}
