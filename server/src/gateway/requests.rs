//! Request handling that is the same on both gateways once a call's arguments are out of
//! their wire types: table names, filter strings, check-and-mutate conditions, applying row
//! mutations and listing a table's regions.

use crate::engine::{
    CompareOp, Condition, Engine, Filter, MutateError, RegionInfo, RowMutation, TableError,
};

use super::errors::application;

/// Bytes from the wire as text (table names, messages): invalid UTF-8 is replaced, not refused.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A filter string in HBase's filter language. A bad one is an error, never ignored: HBase's
/// ParseFilter throws an unchecked IllegalArgumentException that reaches the client as a
/// TApplicationException (the read methods declare only IOError); ours carries the message,
/// naming the position and the problem.
pub fn filter_string(f: &[u8]) -> thrift::Result<Box<dyn Filter>> {
    crate::filter::parse_bytes(f)
        .map_err(|e| application(format!("invalid filter string {:?}: {e}", text(f))))
}

/// A check-and-mutate condition: an empty expected value means the column must not exist, as
/// HBase's gateways read an empty or unset value.
pub fn condition(family: Vec<u8>, qualifier: Vec<u8>, op: CompareOp, value: Vec<u8>) -> Condition {
    Condition {
        family,
        qualifier,
        op,
        value: if value.is_empty() { None } else { Some(value) },
    }
}

/// Applies row mutations to `table`: one row alone, more in one batch (each region commits
/// its rows once). The first row that failed answers for the call.
pub fn apply(engine: &Engine, table: &str, rows: Vec<RowMutation>) -> Result<(), MutateError> {
    if rows.len() <= 1 {
        return match rows.into_iter().next() {
            Some(m) => super::awaited::mutate_row(engine, table, m),
            None => Ok(()),
        };
    }
    engine.mutate_rows(table, rows).into_iter().collect()
}

/// A table's regions; none for a table that does not exist or a name that cannot be one, as
/// HBase answers an empty list.
pub fn table_regions(engine: &Engine, table: &str) -> Result<Vec<RegionInfo>, TableError> {
    match engine.regions(table) {
        Err(TableError::NotFound(_)) | Err(TableError::Invalid(_)) => Ok(Vec::new()),
        other => other,
    }
}
