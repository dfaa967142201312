//! Between the native protobufs and the engine: results out (as a cell block when the
//! connection named a codec, else as protobuf cells), read options and mutations in (their
//! cells from the protobuf or, as batched mutations send them, from the request's cell block).

use std::collections::BTreeMap;

use bytes::Bytes;
use prost::Message;

use crate::engine::{
    write_timestamp, Cell, CellType, CellView, Durability, Op, ReadOptions, RowMutation, RowResult,
    TimeRange, LATEST_TIMESTAMP,
};

use super::cellblock::{self, BlockCell};
use super::errors::NativeError;
use super::pb;

/// Where a response's cells go.
pub struct CellOut {
    /// The cell block being built, when the connection named a codec.
    block: Option<Vec<u8>>,
    /// Bytes of cells so far, either way.
    bytes: usize,
}

fn pb_cell(c: &CellView<'_>) -> pb::Cell {
    pb::Cell {
        row: Some(Bytes::copy_from_slice(c.row)),
        family: Some(Bytes::copy_from_slice(c.family)),
        qualifier: Some(Bytes::copy_from_slice(c.qualifier)),
        timestamp: Some(c.timestamp as u64),
        cell_type: Some(i32::from(c.cell_type.code())),
        value: Some(Bytes::copy_from_slice(c.value)),
        tags: None,
    }
}

impl CellOut {
    pub fn new(codec: bool) -> CellOut {
        CellOut {
            block: codec.then(Vec::new),
            bytes: 0,
        }
    }

    pub fn uses_block(&self) -> bool {
        self.block.is_some()
    }

    /// Bytes of cells added so far.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// A result holding `cells`: counted into the block, or inline.
    pub fn result<'a>(&mut self, cells: impl Iterator<Item = CellView<'a>>) -> pb::Result {
        let mut r = pb::Result::default();
        let mut n = 0i32;
        for c in cells {
            self.bytes += cellblock::encoded_len(&c);
            match self.block.as_mut() {
                Some(b) => {
                    cellblock::encode(b, &c);
                    n += 1;
                }
                None => r.cell.push(pb_cell(&c)),
            }
        }
        if self.block.is_some() {
            r.associated_cell_count = Some(n);
        }
        r
    }

    pub fn row(&mut self, row: &RowResult) -> pb::Result {
        let mut r = self.result(row.iter());
        if row.partial {
            r.partial = Some(true);
        }
        r
    }

    pub fn cells(&mut self, cells: &[Cell]) -> pb::Result {
        self.result(cells.iter().map(Cell::view))
    }

    /// The cell block (empty without a codec).
    pub fn into_block(self) -> Vec<u8> {
        self.block.unwrap_or_default()
    }
}

/// A time range from the wire: unset ends are open, as HBase reads them.
pub fn time_range(t: Option<&pb::TimeRange>) -> TimeRange {
    let Some(t) = t else {
        return TimeRange::ALL;
    };
    let clamp = |v: u64| v.min(i64::MAX as u64) as i64;
    TimeRange::new(t.from.map_or(0, clamp), t.to.map_or(i64::MAX, clamp))
}

/// A serialized filter, decoded as Thrift2's filterBytes is.
pub fn filter(f: &pb::hbase::Filter) -> Result<Box<dyn crate::engine::Filter>, NativeError> {
    crate::filter::proto::from_bytes(&f.encode_to_vec())
        .map_err(|e| NativeError::bad_request(format!("cannot use the request's filter: {e}")))
}

/// What gets and scans share.
pub struct ReadParts<'a> {
    pub columns: &'a [pb::Column],
    pub time_range: Option<&'a pb::TimeRange>,
    pub cf_time_ranges: &'a [pb::ColumnFamilyTimeRange],
    pub max_versions: Option<u32>,
    pub store_limit: Option<u32>,
    pub store_offset: Option<u32>,
    pub filter: Option<&'a pb::hbase::Filter>,
}

pub fn read_options(p: ReadParts<'_>) -> Result<ReadOptions, NativeError> {
    let mut o = ReadOptions::default();
    for c in p.columns {
        if c.qualifier.is_empty() {
            o = o.family(&c.family);
        } else {
            for q in &c.qualifier {
                o = o.column(&c.family, q);
            }
        }
    }
    o.time_range = time_range(p.time_range);
    o.family_time_ranges = p
        .cf_time_ranges
        .iter()
        .map(|t| (t.column_family.to_vec(), time_range(Some(&t.time_range))))
        .collect::<BTreeMap<_, _>>();
    o.max_versions = p.max_versions.unwrap_or(1).max(1);
    if let Some(l) = p.store_limit.filter(|&l| l > 0) {
        o.limit_per_family = Some(l as usize);
    }
    o.offset_per_family = p.store_offset.unwrap_or(0) as usize;
    if let Some(f) = p.filter {
        o.filter = Some(filter(f)?);
    }
    Ok(o)
}

/// One cell of a mutation, from its protobuf or the cell block.
struct MutCell {
    family: Bytes,
    qualifier: Bytes,
    timestamp: i64,
    type_code: u8,
    value: Bytes,
}

/// A mutation as the engine takes it.
pub enum Mutation {
    /// Puts and deletes of one row.
    Row(RowMutation),
    Increment {
        row: Vec<u8>,
        columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
        ttl_ms: Option<i64>,
        durability: Durability,
        /// Whether the client wants the new values back (HBase's `_rr_` attribute).
        return_results: bool,
    },
    Append {
        row: Vec<u8>,
        columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
        ttl_ms: Option<i64>,
        durability: Durability,
        return_results: bool,
    },
}

impl Mutation {
    pub fn row(&self) -> &[u8] {
        match self {
            Mutation::Row(m) => &m.row,
            Mutation::Increment { row, .. } | Mutation::Append { row, .. } => row,
        }
    }
}

fn durability(d: Option<i32>) -> Durability {
    use pb::mutation_proto::Durability as D;
    match d.and_then(|d| D::try_from(d).ok()) {
        Some(D::SkipWal) => Durability::SkipWal,
        Some(D::AsyncWal) => Durability::AsyncWal,
        Some(D::SyncWal) => Durability::Sync,
        Some(D::FsyncWal) => Durability::Fsync,
        _ => Durability::UseDefault,
    }
}

fn attribute<'a>(m: &'a pb::MutationProto, name: &str) -> Option<&'a [u8]> {
    m.attribute
        .iter()
        .find(|a| a.name == name)
        .and_then(|a| a.value.as_deref())
}

/// KeyValue type codes of the protobuf delete types.
fn delete_code(t: Option<i32>) -> u8 {
    use pb::mutation_proto::DeleteType as T;
    match t.and_then(|t| T::try_from(t).ok()) {
        Some(T::DeleteMultipleVersions) => CellType::DeleteColumn.code(),
        Some(T::DeleteFamily) => CellType::DeleteFamily.code(),
        Some(T::DeleteFamilyVersion) => CellType::DeleteFamilyVersion.code(),
        _ => CellType::Delete.code(),
    }
}

/// A mutation from its protobuf, taking `associated_cell_count` cells from `block` (the
/// request's cell block, shared by every mutation of the call, in order).
pub fn mutation(
    m: &pb::MutationProto,
    block: &mut std::vec::IntoIter<BlockCell>,
) -> Result<Mutation, NativeError> {
    use pb::mutation_proto::MutationType as T;
    let kind = m
        .mutate_type
        .and_then(|t| T::try_from(t).ok())
        .ok_or_else(|| NativeError::bad_request("a mutation without a known type"))?;
    let default_ts = m.timestamp.map_or(LATEST_TIMESTAMP, |t| t as i64);
    let mut row = m.row.as_ref().map(|r| r.to_vec());
    let mut cells = Vec::new();
    let count = m.associated_cell_count.unwrap_or(0).max(0) as usize;
    for i in 0..count {
        let c = block.next().ok_or_else(|| {
            NativeError::bad_request(format!(
                "a mutation claims {count} cells of the cell block but it ran out at {i}"
            ))
        })?;
        match &row {
            None => row = Some(c.row.to_vec()),
            Some(r) if r.as_slice() != c.row => {
                return Err(NativeError::bad_request(
                    "a cell of the cell block belongs to another row than its mutation",
                ))
            }
            _ => {}
        }
        cells.push(MutCell {
            family: c.family,
            qualifier: c.qualifier,
            timestamp: c.timestamp,
            type_code: c.type_code,
            value: c.value,
        });
    }
    for cv in &m.column_value {
        for qv in &cv.qualifier_value {
            let type_code = match (kind, qv.delete_type) {
                (T::Delete, t) | (T::Put, t @ Some(_)) => delete_code(t),
                _ => CellType::Put.code(),
            };
            let own_ts = qv.timestamp.map(|t| t as i64);
            cells.push(MutCell {
                family: cv.family.clone(),
                qualifier: qv.qualifier.clone().unwrap_or_default(),
                // A put's cells default to the mutation's timestamp; a delete's to "latest".
                timestamp: own_ts.unwrap_or(if kind == T::Delete {
                    LATEST_TIMESTAMP
                } else {
                    default_ts
                }),
                type_code,
                value: qv.value.clone().unwrap_or_default(),
            });
        }
    }
    let row = row.ok_or_else(|| NativeError::bad_request("a mutation without a row"))?;
    let ttl_ms = attribute(m, "_ttl").map(|v| {
        let mut b = [0u8; 8];
        let n = v.len().min(8);
        b[8 - n..].copy_from_slice(&v[v.len() - n..]);
        i64::from_be_bytes(b)
    });
    let durability = durability(m.durability);
    let return_results = attribute(m, "_rr_").is_none_or(|v| v.first().is_none_or(|&b| b != 0));
    match kind {
        T::Put | T::Delete => {
            let mut rm = RowMutation::new(&row);
            rm.ttl_ms = ttl_ms;
            rm.durability = durability;
            for c in cells {
                rm.ops.push(op(c)?);
            }
            if rm.ops.is_empty() && kind == T::Delete {
                // A delete naming no column removes the whole row.
                rm.ops.push(Op::DeleteRow {
                    timestamp: write_timestamp(Some(default_ts)),
                });
            }
            Ok(Mutation::Row(rm))
        }
        T::Increment => {
            let mut columns = Vec::with_capacity(cells.len());
            for c in cells {
                let delta: [u8; 8] = c.value[..].try_into().map_err(|_| {
                    NativeError::bad_request(format!(
                        "Field is not a long, it's {} bytes wide: an increment amount is 8 bytes",
                        c.value.len()
                    ))
                })?;
                columns.push((
                    c.family.to_vec(),
                    c.qualifier.to_vec(),
                    i64::from_be_bytes(delta),
                ));
            }
            Ok(Mutation::Increment {
                row,
                columns,
                ttl_ms,
                durability,
                return_results,
            })
        }
        T::Append => Ok(Mutation::Append {
            row,
            columns: cells
                .into_iter()
                .map(|c| (c.family.to_vec(), c.qualifier.to_vec(), c.value.to_vec()))
                .collect(),
            ttl_ms,
            durability,
            return_results,
        }),
    }
}

fn op(c: MutCell) -> Result<Op, NativeError> {
    let family = c.family.to_vec();
    let qualifier = c.qualifier.to_vec();
    let ts = write_timestamp(Some(c.timestamp));
    Ok(match CellType::from_code(c.type_code) {
        Some(CellType::Put) => Op::Put {
            family,
            qualifier,
            timestamp: ts,
            value: c.value.to_vec(),
        },
        Some(CellType::Delete) => Op::DeleteVersion {
            family,
            qualifier,
            timestamp: ts,
        },
        Some(CellType::DeleteColumn) => Op::DeleteColumn {
            family,
            qualifier,
            timestamp: ts,
        },
        Some(CellType::DeleteFamily) => Op::DeleteFamily {
            family,
            timestamp: ts,
        },
        Some(CellType::DeleteFamilyVersion) => Op::DeleteFamilyVersion {
            family,
            timestamp: c.timestamp,
        },
        None => {
            return Err(NativeError::bad_request(format!(
                "cell type {} is not a put or a delete",
                c.type_code
            )))
        }
    })
}
