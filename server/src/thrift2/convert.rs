//! Thrift2's view of the data model: descriptors, gets, scans, mutations, results, and its
//! wire exceptions.

use std::collections::BTreeMap;

use crate::engine::{
    Cell, CellView, Durability, FamilyDescriptor, KeepDeletedCells, NamespaceDescriptor, Op,
    ReadOptions, RowMutation, RowResult, TableDescriptor, TableName, TimeRange, LATEST_TIMESTAMP,
};
pub use crate::gateway::{application, Classified, ErrorKind};
use crate::generated::hbase2::*;

pub fn io_error(message: impl Into<String>, can_retry: bool) -> thrift::Error {
    thrift::Error::User(Box::new(TIOError {
        message: Some(message.into()),
        can_retry: Some(can_retry),
    }))
}

pub fn illegal(message: impl Into<String>) -> thrift::Error {
    thrift::Error::User(Box::new(TIllegalArgument {
        message: Some(message.into()),
    }))
}

/// Thrift2's exception for a failed data call (get, scan, put, delete, counters): a bad
/// argument escapes HBase's handler unchecked (a TApplicationException); an incompatible
/// filter reaches it wrapped, as a retryable TIOError (HBase 2.6.1, observed); the rest is a
/// TIOError, retryable for storage trouble.
pub fn from_data(e: impl Classified) -> thrift::Error {
    match e.kind() {
        ErrorKind::IllegalArgument => application(e.to_string()),
        ErrorKind::IncompatibleFilter => io_error(e.to_string(), true),
        kind @ (ErrorKind::AlreadyExists | ErrorKind::NotFound | ErrorKind::Io { .. }) => {
            io_error(e.to_string(), kind.retryable())
        }
    }
}

/// A batch write's failure (`putMultiple`, `deleteMultiple`, `mutateRow`): HBase's handler
/// gets it from the client's batch as a RetriesExhaustedWithDetailsException, which is not a
/// DoNotRetryIOException, so its TIOError says the call may be retried whatever failed (HBase
/// 2.6.1, observed: a missing table, an unknown family). Errors raised before the batch is
/// sent (a TApplicationException, an illegal argument) are left as they are.
pub fn as_batch_error(e: thrift::Error) -> thrift::Error {
    match e {
        thrift::Error::User(u) => match u.downcast::<TIOError>() {
            Ok(io) => thrift::Error::User(Box::new(TIOError {
                message: io.message,
                can_retry: Some(true),
            })),
            Err(other) => thrift::Error::User(other),
        },
        other => other,
    }
}

/// Thrift2's administration methods declare only TIOError, whatever the kind.
pub fn from_admin(e: impl Classified) -> thrift::Error {
    io_error(e.to_string(), e.kind().retryable())
}

/// `ns:qualifier`, with an unset or empty namespace meaning "default".
pub fn table_name(t: &TTableName) -> String {
    let q = String::from_utf8_lossy(&t.qualifier);
    match t.ns.as_deref() {
        None | Some(b"") | Some(b"default") => q.into_owned(),
        Some(ns) => format!("{}:{q}", String::from_utf8_lossy(ns)),
    }
}

pub fn parse_table_name(t: &TTableName) -> Result<TableName, thrift::Error> {
    TableName::parse(&table_name(t)).map_err(|e| io_error(e.to_string(), false))
}

pub fn ttable_name(n: &TableName) -> TTableName {
    TTableName {
        ns: Some(n.namespace.clone().into_bytes()),
        qualifier: n.qualifier.clone().into_bytes(),
    }
}

pub fn time_range(tr: &TTimeRange) -> TimeRange {
    TimeRange::new(tr.min_stamp, tr.max_stamp)
}

/// Columns to read: a family alone means every qualifier of it.
pub fn read_columns(opts: &mut ReadOptions, cols: &[TColumn]) {
    for c in cols {
        match &c.qualifier {
            None => {
                opts.columns.insert(c.family.clone(), None);
            }
            Some(q) => {
                let e = opts
                    .columns
                    .entry(c.family.clone())
                    .or_insert_with(|| Some(Default::default()));
                if let Some(set) = e {
                    set.insert(q.clone());
                }
            }
        }
    }
}

/// A TGet's read options. A single timestamp must be a real one: HBase's `TimeRange.at`
/// refuses a negative timestamp and LATEST_TIMESTAMP (its unchecked exception reaches the
/// client as a TApplicationException).
pub fn get_options(g: &TGet) -> thrift::Result<ReadOptions> {
    let mut o = ReadOptions::default();
    read_columns(&mut o, g.columns.as_deref().unwrap_or_default());
    if let Some(ts) = g.timestamp {
        if ts < 0 || ts == LATEST_TIMESTAMP {
            return Err(application(format!(
                "invalid TGet.timestamp {ts}: a single-timestamp read needs 0 <= timestamp < \
                 2^63-1 (2^63-1 is LATEST_TIMESTAMP, which only writes accept)"
            )));
        }
        o.time_range = TimeRange::at(ts);
    } else if let Some(tr) = &g.time_range {
        o.time_range = time_range(tr);
    }
    o.max_versions = g.max_versions.unwrap_or(1).max(1) as u32;
    o.limit_per_family = g.store_limit.filter(|l| *l >= 0).map(|l| l as usize);
    o.offset_per_family = g.store_offset.unwrap_or(0).max(0) as usize;
    Ok(o)
}

pub fn column_value(c: &CellView<'_>) -> TColumnValue {
    TColumnValue {
        family: c.family.to_vec(),
        qualifier: c.qualifier.to_vec(),
        value: c.value.to_vec(),
        timestamp: Some(c.timestamp),
        tags: None,
        type_: Some(c.cell_type.code() as i8),
    }
}

pub fn result(r: Option<RowResult>) -> TResult {
    match r {
        None => TResult {
            row: None,
            column_values: Vec::new(),
            stale: Some(false),
            partial: Some(false),
        },
        Some(r) => TResult {
            row: Some(r.row().to_vec()),
            column_values: r.iter().map(|c| column_value(&c)).collect(),
            stale: Some(false),
            partial: Some(r.partial),
        },
    }
}

pub fn cells_result(row: &[u8], cells: &[Cell]) -> TResult {
    TResult {
        row: Some(row.to_vec()),
        column_values: cells.iter().map(|c| column_value(&c.view())).collect(),
        stale: Some(false),
        partial: Some(false),
    }
}

pub fn durability(d: Option<TDurability>) -> Durability {
    match d {
        Some(TDurability::SKIP_WAL) => Durability::SkipWal,
        Some(TDurability::ASYNC_WAL) => Durability::AsyncWal,
        Some(TDurability::SYNC_WAL) => Durability::Sync,
        Some(TDurability::FSYNC_WAL) => Durability::Fsync,
        _ => Durability::UseDefault,
    }
}

/// HBase's `_ttl` mutation attribute: an 8-byte big-endian count of milliseconds.
pub fn ttl_attribute(
    attrs: &Option<BTreeMap<Vec<u8>, Vec<u8>>>,
) -> Result<Option<i64>, thrift::Error> {
    match attrs.as_ref().and_then(|a| a.get(b"_ttl".as_slice())) {
        None => Ok(None),
        Some(v) => match <[u8; 8]>::try_from(v.as_slice()) {
            Ok(b) => Ok(Some(i64::from_be_bytes(b))),
            Err(_) => Err(application(format!(
                "attribute _ttl must be an 8-byte long, got {} bytes",
                v.len()
            ))),
        },
    }
}

pub fn put_mutation(p: &TPut) -> Result<RowMutation, thrift::Error> {
    let mut m = RowMutation::new(&p.row);
    for cv in &p.column_values {
        m.ops.push(Op::Put {
            family: cv.family.clone(),
            qualifier: cv.qualifier.clone(),
            timestamp: cv.timestamp.or(p.timestamp),
            value: cv.value.clone(),
        });
    }
    m.ttl_ms = ttl_attribute(&p.attributes)?;
    m.durability = durability(p.durability);
    Ok(m)
}

/// HBase's delete rules: without columns the whole row goes (at or before `timestamp` when
/// given); with columns, `deleteType` applies to every column, each column's own timestamp is
/// the only one used (the TDelete's is ignored, as HBase builds the delete without it), and a
/// column without a qualifier means the empty qualifier for the column kinds. A column list
/// that is present but empty deletes the row now, as HBase's empty Delete does.
pub fn delete_mutation(d: &TDelete) -> Result<RowMutation, thrift::Error> {
    let mut m = RowMutation::new(&d.row);
    m.durability = durability(d.durability);
    let Some(cols) = d.columns.as_deref() else {
        m.ops.push(Op::DeleteRow {
            timestamp: d.timestamp,
        });
        return Ok(m);
    };
    if cols.is_empty() {
        m.ops.push(Op::DeleteRow { timestamp: None });
        return Ok(m);
    }
    let kind = d.delete_type.unwrap_or(TDeleteType::DELETE_COLUMNS);
    for c in cols {
        let ts = c.timestamp;
        let family = c.family.clone();
        let qualifier = c.qualifier.clone().unwrap_or_default();
        m.ops.push(match kind {
            TDeleteType::DELETE_COLUMN => Op::DeleteVersion {
                family,
                qualifier,
                timestamp: ts,
            },
            TDeleteType::DELETE_COLUMNS => Op::DeleteColumn {
                family,
                qualifier,
                timestamp: ts,
            },
            TDeleteType::DELETE_FAMILY => Op::DeleteFamily {
                family,
                timestamp: ts,
            },
            TDeleteType::DELETE_FAMILY_VERSION => match ts {
                Some(timestamp) => Op::DeleteFamilyVersion { family, timestamp },
                None => {
                    return Err(application(
                        "Timestamp is required for TDelete with DeleteFamilyVersion type",
                    ))
                }
            },
            other => return Err(application(format!("unknown delete type {}", other.0))),
        });
    }
    Ok(m)
}

fn compression_name(c: TCompressionAlgorithm) -> Option<&'static str> {
    Some(match c {
        TCompressionAlgorithm::LZO => "LZO",
        TCompressionAlgorithm::GZ => "GZ",
        TCompressionAlgorithm::NONE => "NONE",
        TCompressionAlgorithm::SNAPPY => "SNAPPY",
        TCompressionAlgorithm::LZ4 => "LZ4",
        TCompressionAlgorithm::BZIP2 => "BZIP2",
        TCompressionAlgorithm::ZSTD => "ZSTD",
        _ => return None,
    })
}

fn compression_enum(s: &str) -> TCompressionAlgorithm {
    match s {
        "LZO" => TCompressionAlgorithm::LZO,
        "GZ" => TCompressionAlgorithm::GZ,
        "SNAPPY" => TCompressionAlgorithm::SNAPPY,
        "LZ4" => TCompressionAlgorithm::LZ4,
        "BZIP2" => TCompressionAlgorithm::BZIP2,
        "ZSTD" => TCompressionAlgorithm::ZSTD,
        _ => TCompressionAlgorithm::NONE,
    }
}

fn bloom_name(b: TBloomFilterType) -> Option<&'static str> {
    Some(match b {
        TBloomFilterType::NONE => "NONE",
        TBloomFilterType::ROW => "ROW",
        TBloomFilterType::ROWCOL => "ROWCOL",
        TBloomFilterType::ROWPREFIX_FIXED_LENGTH => "ROWPREFIX_FIXED_LENGTH",
        _ => return None,
    })
}

fn bloom_enum(s: &str) -> TBloomFilterType {
    match s {
        "NONE" => TBloomFilterType::NONE,
        "ROWCOL" => TBloomFilterType::ROWCOL,
        "ROWPREFIX_FIXED_LENGTH" => TBloomFilterType::ROWPREFIX_FIXED_LENGTH,
        _ => TBloomFilterType::ROW,
    }
}

fn encoding_name(e: TDataBlockEncoding) -> Option<&'static str> {
    Some(match e {
        TDataBlockEncoding::NONE => "NONE",
        TDataBlockEncoding::PREFIX => "PREFIX",
        TDataBlockEncoding::DIFF => "DIFF",
        TDataBlockEncoding::FAST_DIFF => "FAST_DIFF",
        TDataBlockEncoding::ROW_INDEX_V1 => "ROW_INDEX_V1",
        _ => return None,
    })
}

fn encoding_enum(s: &str) -> TDataBlockEncoding {
    match s {
        "PREFIX" => TDataBlockEncoding::PREFIX,
        "DIFF" => TDataBlockEncoding::DIFF,
        "FAST_DIFF" => TDataBlockEncoding::FAST_DIFF,
        "ROW_INDEX_V1" => TDataBlockEncoding::ROW_INDEX_V1,
        _ => TDataBlockEncoding::NONE,
    }
}

/// A family from Thrift2: HBase's defaults, then every field the client set.
pub fn family_from_thrift(c: &TColumnFamilyDescriptor) -> Result<FamilyDescriptor, thrift::Error> {
    let bad = |what: &str, v: i32| io_error(format!("unknown {what} value {v}"), false);
    let mut f = FamilyDescriptor::new(&c.name);
    // As HBase's ThriftUtilities: the attribute map first (its well-known keys set the
    // settings), then every typed field the client set.
    if let Some(a) = &c.attributes {
        f.apply_values(a)
            .map_err(|e| io_error(e.to_string(), false))?;
    }
    if let Some(conf) = &c.configuration {
        f.configuration = conf.clone();
    }
    if let Some(v) = c.block_size {
        f.block_size = v;
    }
    if let Some(v) = c.bloomn_filter_type {
        f.bloom_filter = bloom_name(v)
            .ok_or_else(|| bad("bloom filter type", v.0))?
            .into();
    }
    if let Some(v) = c.compression_type {
        f.compression = compression_name(v)
            .ok_or_else(|| bad("compression", v.0))?
            .into();
    }
    if let Some(v) = c.dfs_replication {
        f.dfs_replication = v;
        f.mark_set("DFS_REPLICATION");
    }
    if let Some(v) = c.data_block_encoding {
        f.data_block_encoding = encoding_name(v)
            .ok_or_else(|| bad("data block encoding", v.0))?
            .into();
    }
    if let Some(v) = c.keep_deleted_cells {
        f.keep_deleted_cells = match v {
            TKeepDeletedCells::FALSE => KeepDeletedCells::False,
            TKeepDeletedCells::TRUE => KeepDeletedCells::True,
            TKeepDeletedCells::TTL => KeepDeletedCells::Ttl,
            other => return Err(bad("keep deleted cells", other.0)),
        };
    }
    if let Some(v) = c.max_versions {
        f.max_versions = v;
    }
    if let Some(v) = c.min_versions {
        f.min_versions = v;
    }
    if let Some(v) = c.scope {
        f.scope = v;
    }
    if let Some(v) = c.time_to_live {
        f.ttl_seconds = v;
    }
    if let Some(v) = c.block_cache_enabled {
        f.block_cache_enabled = v;
    }
    if let Some(v) = c.cache_blooms_on_write {
        f.cache_blooms_on_write = v;
        f.mark_set("CACHE_BLOOMS_ON_WRITE");
    }
    if let Some(v) = c.cache_data_on_write {
        f.cache_data_on_write = v;
        f.mark_set("CACHE_DATA_ON_WRITE");
    }
    if let Some(v) = c.cache_indexes_on_write {
        f.cache_indexes_on_write = v;
        f.mark_set("CACHE_INDEX_ON_WRITE");
    }
    if let Some(v) = c.compress_tags {
        f.compress_tags = v;
        f.mark_set("COMPRESS_TAGS");
    }
    if let Some(v) = c.evict_blocks_on_close {
        f.evict_blocks_on_close = v;
        f.mark_set("EVICT_BLOCKS_ON_CLOSE");
    }
    if let Some(v) = c.in_memory {
        f.in_memory = v;
    }
    Ok(f)
}

pub fn family_to_thrift(f: &FamilyDescriptor) -> TColumnFamilyDescriptor {
    TColumnFamilyDescriptor {
        name: f.name.clone(),
        attributes: Some(f.values_map()),
        // HBase sets the family configuration only when it has entries.
        configuration: Some(f.configuration.clone()).filter(|c| !c.is_empty()),
        block_size: Some(f.block_size),
        bloomn_filter_type: Some(bloom_enum(&f.bloom_filter)),
        compression_type: Some(compression_enum(&f.compression)),
        dfs_replication: Some(f.dfs_replication),
        data_block_encoding: Some(encoding_enum(&f.data_block_encoding)),
        keep_deleted_cells: Some(match f.keep_deleted_cells {
            KeepDeletedCells::False => TKeepDeletedCells::FALSE,
            KeepDeletedCells::True => TKeepDeletedCells::TRUE,
            KeepDeletedCells::Ttl => TKeepDeletedCells::TTL,
        }),
        max_versions: Some(f.max_versions),
        min_versions: Some(f.min_versions),
        scope: Some(f.scope),
        time_to_live: Some(f.ttl_seconds),
        block_cache_enabled: Some(f.block_cache_enabled),
        cache_blooms_on_write: Some(f.cache_blooms_on_write),
        cache_data_on_write: Some(f.cache_data_on_write),
        cache_indexes_on_write: Some(f.cache_indexes_on_write),
        compress_tags: Some(f.compress_tags),
        evict_blocks_on_close: Some(f.evict_blocks_on_close),
        in_memory: Some(f.in_memory),
    }
}

const DURABILITY: &[u8] = b"DURABILITY";

pub fn table_from_thrift(d: &TTableDescriptor) -> Result<TableDescriptor, thrift::Error> {
    let mut t = TableDescriptor::new(parse_table_name(&d.table_name)?);
    for c in d.columns.as_deref().unwrap_or_default() {
        let f = family_from_thrift(c)?;
        t.families.insert(f.name.clone(), f);
    }
    if let Some(a) = &d.attributes {
        t.attributes = a.clone();
    }
    let name = match d.durability {
        Some(TDurability::USE_DEFAULT) => Some("USE_DEFAULT"),
        Some(TDurability::SKIP_WAL) => Some("SKIP_WAL"),
        Some(TDurability::ASYNC_WAL) => Some("ASYNC_WAL"),
        Some(TDurability::SYNC_WAL) => Some("SYNC_WAL"),
        Some(TDurability::FSYNC_WAL) => Some("FSYNC_WAL"),
        _ => None,
    };
    if let Some(n) = name {
        t.attributes
            .insert(DURABILITY.to_vec(), n.as_bytes().to_vec());
    }
    Ok(t)
}

pub fn table_to_thrift(t: &TableDescriptor) -> TTableDescriptor {
    let durability = match t.attributes.get(DURABILITY).map(|v| v.as_slice()) {
        Some(b"SKIP_WAL") => TDurability::SKIP_WAL,
        Some(b"ASYNC_WAL") => TDurability::ASYNC_WAL,
        Some(b"SYNC_WAL") => TDurability::SYNC_WAL,
        Some(b"FSYNC_WAL") => TDurability::FSYNC_WAL,
        _ => TDurability::USE_DEFAULT,
    };
    // HBase's table values map: what was set (DURABILITY included) and IS_META.
    let mut attributes = t.attributes.clone();
    attributes
        .entry(b"IS_META".to_vec())
        .or_insert_with(|| b"false".to_vec());
    TTableDescriptor {
        table_name: ttable_name(&t.name),
        columns: Some(t.families.values().map(family_to_thrift).collect()),
        attributes: Some(attributes),
        durability: Some(durability),
    }
}

pub fn namespace_from_thrift(n: &TNamespaceDescriptor) -> NamespaceDescriptor {
    NamespaceDescriptor {
        name: n.name.clone(),
        configuration: n.configuration.clone().unwrap_or_default(),
    }
}

/// HBase leaves the configuration unset when it is empty.
pub fn namespace_to_thrift(n: &NamespaceDescriptor) -> TNamespaceDescriptor {
    TNamespaceDescriptor {
        name: n.name.clone(),
        configuration: Some(n.configuration.clone()).filter(|c| !c.is_empty()),
    }
}
