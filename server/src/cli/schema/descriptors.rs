//! The Thrift2 side of `redbase schema`: a live table's descriptor and split points in the
//! generator's terms (`redbase_codegen::drift::LiveTable`), and the descriptors a schema's table
//! and families are created or modified with. Enum settings travel as their Thrift2 names, as
//! the schema model holds them.

use std::collections::BTreeMap;

use crate::generated::hbase2::{
    TBloomFilterType, TColumnFamilyDescriptor, TCompressionAlgorithm, TDataBlockEncoding,
    TKeepDeletedCells, TTableDescriptor, TTableName,
};
use redbase_codegen::drift::LiveTable;
use redbase_codegen::model::{Family, FamilySettings, Table};

const BLOOM: &[(&str, i32)] = &[
    ("NONE", 0),
    ("ROW", 1),
    ("ROWCOL", 2),
    ("ROWPREFIX_FIXED_LENGTH", 3),
];
const COMPRESSION: &[(&str, i32)] = &[
    ("LZO", 0),
    ("GZ", 1),
    ("NONE", 2),
    ("SNAPPY", 3),
    ("LZ4", 4),
    ("BZIP2", 5),
    ("ZSTD", 6),
];
const ENCODING: &[(&str, i32)] = &[
    ("NONE", 0),
    ("PREFIX", 2),
    ("DIFF", 3),
    ("FAST_DIFF", 4),
    ("ROW_INDEX_V1", 7),
];
const KEEP_DELETED: &[(&str, i32)] = &[("FALSE", 0), ("TRUE", 1), ("TTL", 2)];

fn name_of(table: &[(&str, i32)], v: i32) -> String {
    table
        .iter()
        .find(|(_, n)| *n == v)
        .map_or_else(|| format!("#{v}"), |(s, _)| s.to_string())
}

fn number_of(table: &[(&str, i32)], name: &str) -> Option<i32> {
    table.iter().find(|(s, _)| *s == name).map(|(_, n)| *n)
}

/// `ns:name` as a Thrift2 table name (`table_prefix` in front of the name).
pub fn table_name(t: &Table, table_prefix: &str) -> TTableName {
    TTableName {
        ns: Some(t.namespace.as_bytes().to_vec()),
        qualifier: format!("{table_prefix}{}", t.name).into_bytes(),
    }
}

/// What the gateway reports of a family, in the model's terms.
pub fn live_settings(c: &TColumnFamilyDescriptor) -> FamilySettings {
    FamilySettings {
        max_versions: c.max_versions,
        min_versions: c.min_versions,
        ttl_seconds: c.time_to_live,
        keep_deleted_cells: c.keep_deleted_cells.map(|k| name_of(KEEP_DELETED, k.0)),
        in_memory: c.in_memory,
        block_cache: c.block_cache_enabled,
        block_size: c.block_size,
        bloom_filter: c.bloomn_filter_type.map(|b| name_of(BLOOM, b.0)),
        compression: c.compression_type.map(|x| name_of(COMPRESSION, x.0)),
        data_block_encoding: c.data_block_encoding.map(|x| name_of(ENCODING, x.0)),
        scope: c.scope,
        dfs_replication: c.dfs_replication,
        configuration: c
            .configuration
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    }
}

/// The live table from its descriptor and its regions' start keys (the first, empty, left out).
pub fn live_table(desc: &TTableDescriptor, starts: Vec<Vec<u8>>) -> LiveTable {
    let mut splits: Vec<Vec<u8>> = starts.into_iter().filter(|s| !s.is_empty()).collect();
    splits.sort();
    LiveTable {
        families: desc
            .columns
            .iter()
            .flatten()
            .map(|c| {
                (
                    String::from_utf8_lossy(&c.name).into_owned(),
                    live_settings(c),
                )
            })
            .collect(),
        splits,
    }
}

/// `base` with the schema family's settings over it: the settings the schema sets, and HBase's
/// defaults for the five it compares even when unset (redbase_codegen::drift).
pub fn family_descriptor(
    f: &Family,
    base: Option<&TColumnFamilyDescriptor>,
) -> TColumnFamilyDescriptor {
    let s = &f.settings;
    let mut d = base
        .cloned()
        .unwrap_or_else(|| crate::cli::shell::empty_family(f.name.as_bytes().to_vec()));
    // The attribute map duplicates the typed fields on redbase and HBase alike; the typed
    // fields are what this sets, so the stale copy is not sent back.
    d.attributes = None;
    d.max_versions = Some(s.max_versions.unwrap_or(1));
    d.min_versions = Some(s.min_versions.unwrap_or(0));
    d.time_to_live = Some(s.ttl_seconds.unwrap_or(redbase_codegen::drift::FOREVER));
    let kdc = s.keep_deleted_cells.as_deref().unwrap_or("FALSE");
    d.keep_deleted_cells = number_of(KEEP_DELETED, kdc).map(TKeepDeletedCells);
    let compression = s.compression.as_deref().unwrap_or("NONE");
    d.compression_type = number_of(COMPRESSION, compression).map(TCompressionAlgorithm);
    if let Some(v) = s.in_memory {
        d.in_memory = Some(v);
    }
    if let Some(v) = s.block_cache {
        d.block_cache_enabled = Some(v);
    }
    if let Some(v) = s.block_size {
        d.block_size = Some(v);
    }
    if let Some(v) = &s.bloom_filter {
        d.bloomn_filter_type = number_of(BLOOM, v).map(TBloomFilterType);
    }
    if let Some(v) = &s.data_block_encoding {
        d.data_block_encoding = number_of(ENCODING, v).map(TDataBlockEncoding);
    }
    if let Some(v) = s.scope {
        d.scope = Some(v);
    }
    if let Some(v) = s.dfs_replication {
        d.dfs_replication = Some(v);
    }
    if !s.configuration.is_empty() {
        let mut conf: BTreeMap<String, String> = d.configuration.take().unwrap_or_default();
        for (k, v) in &s.configuration {
            conf.insert(k.clone(), v.clone());
        }
        d.configuration = Some(conf);
    }
    d
}

/// The descriptor a missing table is created with.
pub fn table_descriptor(t: &Table, table_prefix: &str) -> TTableDescriptor {
    TTableDescriptor {
        table_name: table_name(t, table_prefix),
        columns: Some(
            t.families
                .iter()
                .map(|f| family_descriptor(f, None))
                .collect(),
        ),
        attributes: None,
        durability: None,
    }
}
