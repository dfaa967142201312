//! Thrift1's view of the data model: column specs, results, and its wire exceptions.

use std::collections::BTreeMap;

use crate::engine::{
    CellType, CellView, FamilyDescriptor, ReadOptions, RowResult, TimeRange, TTL_FOREVER,
};
pub use crate::gateway::requests::text;
pub use crate::gateway::{application, Classified, ErrorKind};
use crate::generated::hbase1::{
    AlreadyExists, ColumnDescriptor, IOError, IllegalArgument, TCell, TColumn, TRowResult,
};

/// A Thrift1 column spec: "f" is the whole family, "f:" the empty qualifier, "f:a:b" the
/// qualifier "a:b" (split at the first ':').
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnSpec {
    Family(Vec<u8>),
    Column(Vec<u8>, Vec<u8>),
}

impl ColumnSpec {
    pub fn parse(spec: &[u8]) -> ColumnSpec {
        match spec.iter().position(|&b| b == b':') {
            None => ColumnSpec::Family(spec.to_vec()),
            Some(i) => ColumnSpec::Column(spec[..i].to_vec(), spec[i + 1..].to_vec()),
        }
    }

    pub fn family(&self) -> &[u8] {
        match self {
            ColumnSpec::Family(f) | ColumnSpec::Column(f, _) => f,
        }
    }

    /// The (family, qualifier) a write to this spec targets: a bare family means the empty
    /// qualifier, as HBase does.
    pub fn write_target(&self) -> (Vec<u8>, Vec<u8>) {
        match self {
            ColumnSpec::Family(f) => (f.clone(), Vec::new()),
            ColumnSpec::Column(f, q) => (f.clone(), q.clone()),
        }
    }
}

/// Read options selecting `columns` (none = every column).
pub fn read_options(columns: &[Vec<u8>]) -> ReadOptions {
    let mut o = ReadOptions::default();
    for c in columns {
        o = match ColumnSpec::parse(c) {
            ColumnSpec::Family(f) => {
                // A whole family wins over single columns of it.
                o.columns.insert(f, None);
                o
            }
            ColumnSpec::Column(f, q) => {
                if matches!(o.columns.get(&f), Some(None)) {
                    o
                } else {
                    o.column(&f, &q)
                }
            }
        };
    }
    o
}

/// Thrift1 reads "at" a timestamp see cells strictly older than it: `[0, ts)`.
pub fn before(ts: i64) -> TimeRange {
    TimeRange::new(0, ts.max(0))
}

pub fn column_name(c: &CellView<'_>) -> Vec<u8> {
    let mut name = Vec::with_capacity(c.family.len() + 1 + c.qualifier.len());
    name.extend_from_slice(c.family);
    name.push(b':');
    name.extend_from_slice(c.qualifier);
    name
}

pub fn tcell(c: &CellView<'_>) -> TCell {
    TCell {
        value: Some(c.value.to_vec()),
        timestamp: Some(c.timestamp),
    }
}

pub fn tcells(r: Option<RowResult>) -> Vec<TCell> {
    r.map(|r| {
        r.iter()
            .filter(|c| c.cell_type == CellType::Put)
            .map(|c| tcell(&c))
            .collect()
    })
    .unwrap_or_default()
}

/// A row as Thrift1 returns it: a map keyed "family:qualifier" (the newest cell of each
/// column), or the cells in order when the scan asked for sorted columns.
pub fn row_result(r: RowResult, sorted: bool) -> TRowResult {
    if sorted {
        let cols = r
            .iter()
            .map(|c| TColumn {
                column_name: Some(column_name(&c)),
                cell: Some(tcell(&c)),
            })
            .collect();
        TRowResult {
            row: Some(r.row().to_vec()),
            columns: None,
            sorted_columns: Some(cols),
        }
    } else {
        let mut map = BTreeMap::new();
        for c in r.iter() {
            map.entry(column_name(&c)).or_insert_with(|| tcell(&c));
        }
        TRowResult {
            row: Some(r.row().to_vec()),
            columns: Some(map),
            sorted_columns: None,
        }
    }
}

pub fn family_to_thrift(f: &FamilyDescriptor) -> ColumnDescriptor {
    let mut name = f.name.clone();
    name.push(b':');
    ColumnDescriptor {
        name: Some(name),
        max_versions: Some(f.max_versions),
        compression: Some(f.compression.clone()),
        in_memory: Some(f.in_memory),
        bloom_filter_type: Some(f.bloom_filter.clone()),
        bloom_filter_vector_size: Some(0),
        bloom_filter_nb_hashes: Some(0),
        block_cache_enabled: Some(f.block_cache_enabled),
        time_to_live: Some(f.ttl_seconds),
    }
}

/// A family from a Thrift1 descriptor, with Thrift1's defaults for unset fields.
pub fn family_from_thrift(c: &ColumnDescriptor) -> FamilyDescriptor {
    let name = c.name.clone().unwrap_or_default();
    let fam = match ColumnSpec::parse(&name) {
        ColumnSpec::Family(f) | ColumnSpec::Column(f, _) => f,
    };
    let mut f = FamilyDescriptor::new(&fam);
    f.max_versions = c.max_versions.unwrap_or(3);
    // HBase looks compression names up ignoring case.
    f.compression = c
        .compression
        .as_deref()
        .unwrap_or("NONE")
        .to_ascii_uppercase();
    f.in_memory = c.in_memory.unwrap_or(false);
    f.bloom_filter = c.bloom_filter_type.clone().unwrap_or_else(|| "NONE".into());
    f.block_cache_enabled = c.block_cache_enabled.unwrap_or(false);
    let ttl = c.time_to_live.unwrap_or(TTL_FOREVER);
    f.ttl_seconds = if ttl <= 0 { TTL_FOREVER } else { ttl };
    f
}

pub fn io_error(message: impl Into<String>, can_retry: bool) -> thrift::Error {
    thrift::Error::User(Box::new(IOError {
        message: Some(message.into()),
        can_retry: Some(can_retry),
    }))
}

pub fn illegal(message: impl Into<String>) -> thrift::Error {
    thrift::Error::User(Box::new(IllegalArgument {
        message: Some(message.into()),
    }))
}

pub fn already_exists(message: impl Into<String>) -> thrift::Error {
    thrift::Error::User(Box::new(AlreadyExists {
        message: Some(message.into()),
    }))
}

/// Thrift1's exception for a failed write or administration call: its own exception for a bad
/// argument and an existing table, an IOError for the rest (HBase marks storage trouble
/// retryable and everything it knows will fail again not).
pub fn from_engine(e: impl Classified) -> thrift::Error {
    match e.kind() {
        ErrorKind::IllegalArgument => illegal(e.to_string()),
        ErrorKind::AlreadyExists => already_exists(e.to_string()),
        kind @ (ErrorKind::NotFound | ErrorKind::IncompatibleFilter | ErrorKind::Io { .. }) => {
            io_error(e.to_string(), kind.retryable())
        }
    }
}

/// A failure of `mutateRows`/`mutateRowsTs`, which HBase's handler sends as one batch: what
/// failed in it comes back as a RetriesExhaustedWithDetailsException, which is not a
/// DoNotRetryIOException, so the IOError may be retried whatever failed (HBase 2.6.1,
/// observed: a missing table, an unknown family).
pub fn from_batch(e: impl Classified) -> thrift::Error {
    match e.kind() {
        ErrorKind::IllegalArgument => illegal(e.to_string()),
        _ => io_error(e.to_string(), true),
    }
}

/// Thrift1's reads declare only IOError, whatever the kind.
pub fn from_read(e: impl Classified) -> thrift::Error {
    io_error(e.to_string(), e.kind().retryable())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_specs_split_at_the_first_colon() {
        assert_eq!(ColumnSpec::parse(b"f"), ColumnSpec::Family(b"f".to_vec()));
        assert_eq!(
            ColumnSpec::parse(b"f:"),
            ColumnSpec::Column(b"f".to_vec(), Vec::new())
        );
        assert_eq!(
            ColumnSpec::parse(b"f:a:b"),
            ColumnSpec::Column(b"f".to_vec(), b"a:b".to_vec())
        );
        assert_eq!(
            ColumnSpec::parse(b"f").write_target(),
            (b"f".to_vec(), Vec::new())
        );
    }
}
