//! A table's Thrift2 descriptor and split points as the export header stores them. Every
//! field of `TTableDescriptor` and `TColumnFamilyDescriptor` is kept (enums as their numbers in
//! idl/hbase2.thrift), so an import recreates the table as the source described it, whether
//! the source was redbase or HBase.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::format::{b64, b64_map, unb64, unb64_map};
use crate::engine::family_values::{ALWAYS, OPTIONAL};
use crate::generated::hbase2::{
    TBloomFilterType, TColumnFamilyDescriptor, TCompressionAlgorithm, TDataBlockEncoding,
    TDurability, TKeepDeletedCells, TTableDescriptor, TTableName,
};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TableDesc {
    /// The namespace (`default` when the source gave none).
    pub namespace: String,
    pub name: String,
    pub families: Vec<FamilyDesc>,
    /// Table attributes, base64 keys and values.
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
    /// TDurability's number, if the source set one.
    #[serde(default)]
    pub durability: Option<i32>,
    /// The regions' start keys after the first, ascending, base64.
    #[serde(default)]
    pub splits: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct FamilyDesc {
    /// The family name, base64.
    pub name: String,
    pub attributes: BTreeMap<String, String>,
    pub configuration: BTreeMap<String, String>,
    pub block_size: Option<i32>,
    pub bloom_filter: Option<i32>,
    pub compression: Option<i32>,
    pub dfs_replication: Option<i16>,
    pub data_block_encoding: Option<i32>,
    pub keep_deleted_cells: Option<i32>,
    pub max_versions: Option<i32>,
    pub min_versions: Option<i32>,
    pub scope: Option<i32>,
    pub time_to_live: Option<i32>,
    pub block_cache_enabled: Option<bool>,
    pub cache_blooms_on_write: Option<bool>,
    pub cache_data_on_write: Option<bool>,
    pub cache_indexes_on_write: Option<bool>,
    pub compress_tags: Option<bool>,
    pub evict_blocks_on_close: Option<bool>,
    pub in_memory: Option<bool>,
}

impl TableDesc {
    /// `ns:name`, or `name` in the default namespace: what Thrift2 data calls take.
    pub fn full_name(&self) -> String {
        full_name(&self.namespace, &self.name)
    }

    pub fn from_thrift(d: &TTableDescriptor, splits: &[Vec<u8>]) -> TableDesc {
        let ns = d
            .table_name
            .ns
            .as_deref()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "default".into());
        TableDesc {
            namespace: ns,
            name: String::from_utf8_lossy(&d.table_name.qualifier).into_owned(),
            families: d
                .columns
                .as_deref()
                .unwrap_or_default()
                .iter()
                .map(family_from_thrift)
                .collect(),
            attributes: d.attributes.as_ref().map(b64_map).unwrap_or_default(),
            durability: d.durability.map(|x| x.0),
            splits: splits.iter().map(|s| b64(s)).collect(),
        }
    }

    /// The descriptor for `create_table`, named `name` (`ns:qualifier` or `qualifier`).
    pub fn to_thrift(&self, name: &str) -> Result<TTableDescriptor, String> {
        let families = self
            .families
            .iter()
            .map(family_to_thrift)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TTableDescriptor::new(
            table_name(name),
            families,
            unb64_map("a table attribute", &self.attributes)?,
            self.durability.map(TDurability),
        ))
    }

    pub fn split_keys(&self) -> Result<Vec<Vec<u8>>, String> {
        self.splits
            .iter()
            .map(|s| unb64("a split key", s))
            .collect()
    }
}

pub fn full_name(ns: &str, name: &str) -> String {
    if ns == "default" || ns.is_empty() {
        name.to_string()
    } else {
        format!("{ns}:{name}")
    }
}

/// `ns:qualifier` or `qualifier` as a Thrift2 table name.
pub fn table_name(name: &str) -> TTableName {
    match name.split_once(':') {
        Some((ns, q)) => TTableName::new(ns.as_bytes().to_vec(), q.as_bytes().to_vec()),
        None => TTableName::new(b"default".to_vec(), name.as_bytes().to_vec()),
    }
}

fn family_from_thrift(c: &TColumnFamilyDescriptor) -> FamilyDesc {
    FamilyDesc {
        name: b64(&c.name),
        attributes: c.attributes.as_ref().map(b64_map).unwrap_or_default(),
        configuration: c.configuration.clone().unwrap_or_default(),
        block_size: c.block_size,
        bloom_filter: c.bloomn_filter_type.map(|x| x.0),
        compression: c.compression_type.map(|x| x.0),
        dfs_replication: c.dfs_replication,
        data_block_encoding: c.data_block_encoding.map(|x| x.0),
        keep_deleted_cells: c.keep_deleted_cells.map(|x| x.0),
        max_versions: c.max_versions,
        min_versions: c.min_versions,
        scope: c.scope,
        time_to_live: c.time_to_live,
        block_cache_enabled: c.block_cache_enabled,
        cache_blooms_on_write: c.cache_blooms_on_write,
        cache_data_on_write: c.cache_data_on_write,
        cache_indexes_on_write: c.cache_indexes_on_write,
        compress_tags: c.compress_tags,
        evict_blocks_on_close: c.evict_blocks_on_close,
        in_memory: c.in_memory,
    }
}

/// The family for `create_table`. The source's attributes are HBase's values map, which repeats
/// every typed setting under its well-known key: only the free-form keys go back as attributes
/// (and INDEX_BLOCK_ENCODING, which has no typed field, when not the default), and an optional
/// typed setting goes back only if the source's map showed it as set, so the new table
/// describes itself exactly as the source did.
fn family_to_thrift(f: &FamilyDesc) -> Result<TColumnFamilyDescriptor, String> {
    let source = unb64_map("a family attribute", &f.attributes)?;
    let shown = |key: &str| source.is_empty() || source.contains_key(key.as_bytes());
    let well_known = |key: &[u8]| {
        ALWAYS
            .iter()
            .chain(OPTIONAL.iter())
            .any(|k| k.as_bytes() == key)
    };
    let attributes: BTreeMap<Vec<u8>, Vec<u8>> = source
        .iter()
        .filter(|(k, v)| {
            !well_known(k) || (k.as_slice() == b"INDEX_BLOCK_ENCODING" && v.as_slice() != b"NONE")
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let optional = |v: Option<bool>, key: &str| v.filter(|_| shown(key));
    Ok(TColumnFamilyDescriptor {
        name: unb64("a family name", &f.name)?,
        attributes: (!attributes.is_empty()).then_some(attributes),
        configuration: (!f.configuration.is_empty()).then(|| f.configuration.clone()),
        block_size: f.block_size,
        bloomn_filter_type: f.bloom_filter.map(TBloomFilterType),
        compression_type: f.compression.map(TCompressionAlgorithm),
        dfs_replication: f.dfs_replication.filter(|_| shown("DFS_REPLICATION")),
        data_block_encoding: f.data_block_encoding.map(TDataBlockEncoding),
        keep_deleted_cells: f.keep_deleted_cells.map(TKeepDeletedCells),
        max_versions: f.max_versions,
        min_versions: f.min_versions,
        scope: f.scope,
        time_to_live: f.time_to_live,
        block_cache_enabled: f.block_cache_enabled,
        cache_blooms_on_write: optional(f.cache_blooms_on_write, "CACHE_BLOOMS_ON_WRITE"),
        cache_data_on_write: optional(f.cache_data_on_write, "CACHE_DATA_ON_WRITE"),
        cache_indexes_on_write: optional(f.cache_indexes_on_write, "CACHE_INDEX_ON_WRITE"),
        compress_tags: optional(f.compress_tags, "COMPRESS_TAGS"),
        evict_blocks_on_close: optional(f.evict_blocks_on_close, "EVICT_BLOCKS_ON_CLOSE"),
        in_memory: f.in_memory,
    })
}
