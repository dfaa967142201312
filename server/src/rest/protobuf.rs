//! The protobuf representation (`application/x-protobuf`): HBase REST's messages, declared
//! here by hand with prost's derive (field numbers and types as HBase's `.proto` files give
//! them; proto2 `optional`/`required` fields are `Option`s, which prost writes only when set),
//! and their conversions to and from the models.

use prost::Message;

use super::meta::ColumnSchemaM;
use super::meta::{ClusterStatusM, NamespacePropsM, TableInfoM, TableSchemaM, VersionM};
use super::model::{CellSet, ScannerM, LATEST};

#[derive(Clone, PartialEq, Message)]
pub struct PbCell {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub column: Option<Vec<u8>>,
    #[prost(int64, optional, tag = "3")]
    pub timestamp: Option<i64>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub data: Option<Vec<u8>>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbRow {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub key: Option<Vec<u8>>,
    #[prost(message, repeated, tag = "2")]
    pub values: Vec<PbCell>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbCellSet {
    #[prost(message, repeated, tag = "1")]
    pub rows: Vec<PbRow>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbTableList {
    #[prost(string, repeated, tag = "1")]
    pub name: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbVersion {
    #[prost(string, optional, tag = "1")]
    pub rest_version: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub jvm_version: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub os_version: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub server_version: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub jersey_version: Option<String>,
    #[prost(string, optional, tag = "6")]
    pub version: Option<String>,
    #[prost(string, optional, tag = "7")]
    pub revision: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbAttribute {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbColumnSchema {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub attrs: Vec<PbAttribute>,
    #[prost(int32, optional, tag = "3")]
    pub ttl: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub max_versions: Option<i32>,
    #[prost(string, optional, tag = "5")]
    pub compression: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbTableSchema {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub attrs: Vec<PbAttribute>,
    #[prost(message, repeated, tag = "3")]
    pub columns: Vec<PbColumnSchema>,
    #[prost(bool, optional, tag = "4")]
    pub in_memory: Option<bool>,
    #[prost(bool, optional, tag = "5")]
    pub read_only: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbRegion {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub start_key: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub end_key: Option<Vec<u8>>,
    #[prost(int64, optional, tag = "4")]
    pub id: Option<i64>,
    #[prost(string, optional, tag = "5")]
    pub location: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbTableInfo {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub regions: Vec<PbRegion>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbScanner {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub start_row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub end_row: Option<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub columns: Vec<Vec<u8>>,
    #[prost(int32, optional, tag = "4")]
    pub batch: Option<i32>,
    #[prost(int64, optional, tag = "5")]
    pub start_time: Option<i64>,
    #[prost(int64, optional, tag = "6")]
    pub end_time: Option<i64>,
    #[prost(int32, optional, tag = "7")]
    pub max_versions: Option<i32>,
    #[prost(string, optional, tag = "8")]
    pub filter: Option<String>,
    #[prost(int32, optional, tag = "9")]
    pub caching: Option<i32>,
    #[prost(string, repeated, tag = "10")]
    pub labels: Vec<String>,
    #[prost(bool, optional, tag = "11")]
    pub cache_blocks: Option<bool>,
    #[prost(int32, optional, tag = "12")]
    pub limit: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbStatusRegion {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub name: Option<Vec<u8>>,
    #[prost(int32, optional, tag = "2")]
    pub stores: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    pub storefiles: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub storefile_size_mb: Option<i32>,
    #[prost(int32, optional, tag = "5")]
    pub memstore_size_mb: Option<i32>,
    #[prost(int64, optional, tag = "6")]
    pub storefile_index_size_kb: Option<i64>,
    #[prost(int64, optional, tag = "7")]
    pub read_requests_count: Option<i64>,
    #[prost(int64, optional, tag = "8")]
    pub write_requests_count: Option<i64>,
    #[prost(int32, optional, tag = "9")]
    pub root_index_size_kb: Option<i32>,
    #[prost(int32, optional, tag = "10")]
    pub total_static_index_size_kb: Option<i32>,
    #[prost(int32, optional, tag = "11")]
    pub total_static_bloom_size_kb: Option<i32>,
    #[prost(int64, optional, tag = "12")]
    pub total_compacting_kvs: Option<i64>,
    #[prost(int64, optional, tag = "13")]
    pub current_compacted_kvs: Option<i64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbNode {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(int64, optional, tag = "2")]
    pub start_code: Option<i64>,
    #[prost(int64, optional, tag = "3")]
    pub requests: Option<i64>,
    #[prost(int32, optional, tag = "4")]
    pub heap_size_mb: Option<i32>,
    #[prost(int32, optional, tag = "5")]
    pub max_heap_size_mb: Option<i32>,
    #[prost(message, repeated, tag = "6")]
    pub regions: Vec<PbStatusRegion>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbClusterStatus {
    #[prost(message, repeated, tag = "1")]
    pub live_nodes: Vec<PbNode>,
    #[prost(string, repeated, tag = "2")]
    pub dead_nodes: Vec<String>,
    #[prost(int32, optional, tag = "3")]
    pub regions: Option<i32>,
    #[prost(int64, optional, tag = "4")]
    pub requests: Option<i64>,
    #[prost(double, optional, tag = "5")]
    pub average_load: Option<f64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbNamespaces {
    #[prost(string, repeated, tag = "1")]
    pub namespace: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbProperty {
    #[prost(string, optional, tag = "1")]
    pub key: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PbNamespaceProperties {
    #[prost(message, repeated, tag = "1")]
    pub props: Vec<PbProperty>,
}

fn bad(what: &str, e: prost::DecodeError) -> String {
    format!("invalid protobuf {what} message: {e}")
}

impl CellSet {
    pub fn to_pb(&self) -> Vec<u8> {
        PbCellSet {
            rows: self
                .rows
                .iter()
                .map(|r| PbRow {
                    key: Some(r.key.clone().unwrap_or_default()),
                    values: r
                        .cells
                        .iter()
                        .map(|c| PbCell {
                            row: None,
                            column: Some(c.column.clone().unwrap_or_default()),
                            timestamp: (c.timestamp != LATEST).then_some(c.timestamp),
                            data: Some(c.value.clone()),
                        })
                        .collect(),
                })
                .collect(),
        }
        .encode_to_vec()
    }
}

/// A stateless scan's protobuf answer as HBase streams it: the rows in cell sets of at most
/// `per_chunk` rows, each preceded by its length as a 2-byte big-endian number (Java's `short`
/// cast, so a chunk over 65535 bytes wraps as it does there).
pub fn streamed(set: &CellSet, per_chunk: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for rows in set.rows.chunks(per_chunk.max(1)) {
        let chunk = CellSet {
            rows: rows.to_vec(),
        }
        .to_pb();
        out.extend_from_slice(&(chunk.len() as u16).to_be_bytes());
        out.extend_from_slice(&chunk);
    }
    out
}

impl ScannerM {
    pub fn from_pb(b: &[u8]) -> Result<ScannerM, String> {
        let m = PbScanner::decode(b).map_err(|e| bad("Scanner", e))?;
        Ok(ScannerM {
            start_row: m.start_row.unwrap_or_default(),
            end_row: m.end_row.unwrap_or_default(),
            columns: m.columns,
            batch: m.batch.map(i64::from),
            caching: m.caching.map(i64::from),
            start_time: m.start_time,
            end_time: m.end_time,
            max_versions: m.max_versions.map(i64::from),
            filter: m.filter.filter(|f| !f.is_empty()),
            limit: m.limit.map(i64::from),
            reversed: false,
        })
    }
}

pub fn table_list(names: &[String]) -> Vec<u8> {
    PbTableList {
        name: names.to_vec(),
    }
    .encode_to_vec()
}

pub fn namespaces(names: &[String]) -> Vec<u8> {
    PbNamespaces {
        namespace: names.to_vec(),
    }
    .encode_to_vec()
}

pub fn version(v: &VersionM) -> Vec<u8> {
    PbVersion {
        rest_version: Some(v.rest.clone()),
        jvm_version: Some(v.jvm.clone()),
        os_version: Some(v.os.clone()),
        server_version: Some(v.server.clone()),
        jersey_version: Some(v.jersey.clone()),
        version: Some(v.version.clone()),
        revision: Some(v.revision.clone()),
    }
    .encode_to_vec()
}

fn attrs(m: &std::collections::BTreeMap<String, String>) -> Vec<PbAttribute> {
    m.iter()
        .map(|(k, v)| PbAttribute {
            name: Some(k.clone()),
            value: Some(v.clone()),
        })
        .collect()
}

impl TableSchemaM {
    pub fn to_pb(&self) -> Vec<u8> {
        let mut table_attrs = attrs(&self.attrs);
        table_attrs.push(PbAttribute {
            name: Some("IS_META".into()),
            value: Some((self.name == "hbase:meta").to_string()),
        });
        PbTableSchema {
            name: Some(self.name.clone()),
            attrs: table_attrs,
            columns: self
                .columns
                .iter()
                .map(|c| PbColumnSchema {
                    name: Some(c.name.clone()),
                    attrs: attrs(&c.attrs),
                    ttl: c.attrs.get("TTL").and_then(|v| v.parse().ok()),
                    max_versions: c.attrs.get("VERSIONS").and_then(|v| v.parse().ok()),
                    compression: c.attrs.get("COMPRESSION").cloned(),
                })
                .collect(),
            // HBase sets these two only when the table's values hold them.
            in_memory: self.attrs.get("IN_MEMORY").map(|v| v == "true"),
            read_only: self.attrs.get("READONLY").map(|v| v == "true"),
        }
        .encode_to_vec()
    }

    pub fn from_pb(b: &[u8]) -> Result<TableSchemaM, String> {
        let m = PbTableSchema::decode(b).map_err(|e| bad("TableSchema", e))?;
        let take = |a: Vec<PbAttribute>| {
            a.into_iter()
                .filter_map(|a| Some((a.name?, a.value.unwrap_or_default())))
                .filter(|(k, _)| k != "IS_META" && k != "IS_ROOT")
                .collect()
        };
        Ok(TableSchemaM {
            name: m.name.unwrap_or_default(),
            attrs: take(m.attrs),
            columns: m
                .columns
                .into_iter()
                .map(|c| {
                    let mut attrs: std::collections::BTreeMap<String, String> = take(c.attrs);
                    if let Some(t) = c.ttl {
                        attrs.insert("TTL".into(), t.to_string());
                    }
                    if let Some(v) = c.max_versions {
                        attrs.insert("VERSIONS".into(), v.to_string());
                    }
                    if let Some(z) = c.compression {
                        attrs.insert("COMPRESSION".into(), z);
                    }
                    ColumnSchemaM {
                        name: c.name.unwrap_or_default(),
                        attrs,
                    }
                })
                .collect(),
        })
    }
}

impl TableInfoM {
    pub fn to_pb(&self) -> Vec<u8> {
        PbTableInfo {
            name: Some(self.name.clone()),
            regions: self
                .regions
                .iter()
                .map(|r| PbRegion {
                    name: Some(r.name.clone()),
                    start_key: Some(r.start.clone()),
                    end_key: Some(r.end.clone()),
                    id: Some(r.id as i64),
                    location: Some(r.location.clone()),
                })
                .collect(),
        }
        .encode_to_vec()
    }
}

impl ClusterStatusM {
    pub fn to_pb(&self) -> Vec<u8> {
        PbClusterStatus {
            live_nodes: vec![PbNode {
                name: Some(self.node.clone()),
                start_code: Some(self.start_code),
                requests: Some(self.requests as i64),
                heap_size_mb: Some(self.heap_mb.min(i32::MAX as u64) as i32),
                max_heap_size_mb: Some(self.max_heap_mb.min(i32::MAX as u64) as i32),
                regions: self
                    .regions
                    .iter()
                    .map(|r| PbStatusRegion {
                        name: Some(r.name.clone()),
                        stores: Some(r.stores as i32),
                        storefiles: Some(r.store_files as i32),
                        storefile_size_mb: Some(r.store_file_size_mb as i32),
                        memstore_size_mb: Some(0),
                        storefile_index_size_kb: Some(0),
                        read_requests_count: Some(r.read_requests as i64),
                        write_requests_count: Some(r.write_requests as i64),
                        root_index_size_kb: Some(0),
                        total_static_index_size_kb: Some(0),
                        total_static_bloom_size_kb: Some(0),
                        total_compacting_kvs: Some(0),
                        current_compacted_kvs: Some(0),
                    })
                    .collect(),
            }],
            dead_nodes: Vec::new(),
            regions: Some(self.regions.len() as i32),
            requests: Some(self.requests as i64),
            average_load: Some(self.average_load()),
        }
        .encode_to_vec()
    }
}

impl NamespacePropsM {
    pub fn to_pb(&self) -> Vec<u8> {
        PbNamespaceProperties {
            props: self
                .0
                .iter()
                .map(|(k, v)| PbProperty {
                    key: Some(k.clone()),
                    value: Some(v.clone()),
                })
                .collect(),
        }
        .encode_to_vec()
    }

    pub fn from_pb(b: &[u8]) -> Result<NamespacePropsM, String> {
        let m = PbNamespaceProperties::decode(b).map_err(|e| bad("NamespaceProperties", e))?;
        Ok(NamespacePropsM(
            m.props
                .into_iter()
                .filter_map(|p| Some((p.key?, p.value.unwrap_or_default())))
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::model::{CellM, RowM};

    #[test]
    fn cell_set_round_trips() {
        let set = CellSet {
            rows: vec![RowM {
                key: Some(b"r".to_vec()),
                cells: vec![CellM {
                    column: Some(b"cf:q".to_vec()),
                    timestamp: 5,
                    value: b"v".to_vec(),
                }],
            }],
        };
        assert_eq!(CellSet::from_pb(&set.to_pb()).unwrap(), set);
        assert!(CellSet::from_pb(&[0xff, 0xff]).is_err());
        // rest::cell_body checks that it reads what PbCellSet reads.
    }
}
