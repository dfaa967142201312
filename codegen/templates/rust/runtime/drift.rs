//! Schema drift at start-up: `ensure()` makes the live table match its schema where that is
//! safe and fails clearly where it is not, by the rules `redbase schema diff|apply` follows
//! (docs/schema.md, "Schema drift"). A family setting differs when the schema sets it and the
//! live value is another; VERSIONS, MIN_VERSIONS, TTL, KEEP_DELETED_CELLS and COMPRESSION left
//! unset mean HBase's defaults and are compared with them.

use std::collections::BTreeMap;

use super::client::{FamilyDef, TableClient};
use super::error::{Error, Result};
use crate::thrift_gen::hbase2::{
    TColumnFamilyDescriptor, TCompressionAlgorithm, TKeepDeletedCells, TTHBaseServiceSyncClient,
};

/// TTL FOREVER: HBase's time to live of a family without one.
pub const FOREVER: i32 = i32::MAX;

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

/// An enum value's Thrift2 name.
fn name(table: &[(&str, i32)], v: i32) -> String {
    table
        .iter()
        .find(|(_, n)| *n == v)
        .map_or_else(|| format!("#{v}"), |(s, _)| s.to_string())
}

fn ttl(v: Option<i32>) -> Option<String> {
    v.map(|v| {
        if v == FOREVER {
            "FOREVER".to_string()
        } else {
            v.to_string()
        }
    })
}

fn text<T: ToString>(v: Option<T>) -> Option<String> {
    v.map(|v| v.to_string())
}

/// Each setting (shell name, schema value, live value) of `f` the live family lacks.
pub fn family_drift(
    f: &FamilyDef,
    have: &TColumnFamilyDescriptor,
) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut cmp = |setting: &str, want: Option<String>, live: Option<String>, def: Option<&str>| {
        let Some(want) = want.or_else(|| def.map(str::to_string)) else {
            return;
        };
        if let Some(live) = live.or_else(|| def.map(str::to_string)) {
            if live != want {
                out.push((setting.to_string(), want, live));
            }
        }
    };
    cmp(
        "VERSIONS",
        text(f.max_versions),
        text(have.max_versions),
        Some("1"),
    );
    cmp(
        "MIN_VERSIONS",
        text(f.min_versions),
        text(have.min_versions),
        Some("0"),
    );
    cmp(
        "TTL",
        ttl(f.ttl_seconds),
        ttl(have.time_to_live),
        Some("FOREVER"),
    );
    cmp(
        "KEEP_DELETED_CELLS",
        f.keep_deleted_cells.map(|k| name(KEEP_DELETED, k.0)),
        have.keep_deleted_cells.map(|k| name(KEEP_DELETED, k.0)),
        Some("FALSE"),
    );
    cmp(
        "COMPRESSION",
        f.compression.map(|c| name(COMPRESSION, c.0)),
        have.compression_type.map(|c| name(COMPRESSION, c.0)),
        Some("NONE"),
    );
    cmp("IN_MEMORY", text(f.in_memory), text(have.in_memory), None);
    cmp(
        "BLOCKCACHE",
        text(f.block_cache),
        text(have.block_cache_enabled),
        None,
    );
    cmp("BLOCKSIZE", text(f.block_size), text(have.block_size), None);
    cmp(
        "BLOOMFILTER",
        f.bloom_filter.map(|b| name(BLOOM, b.0)),
        have.bloomn_filter_type.map(|b| name(BLOOM, b.0)),
        None,
    );
    cmp(
        "DATA_BLOCK_ENCODING",
        f.data_block_encoding.map(|e| name(ENCODING, e.0)),
        have.data_block_encoding.map(|e| name(ENCODING, e.0)),
        None,
    );
    cmp("REPLICATION_SCOPE", text(f.scope), text(have.scope), None);
    cmp(
        "DFS_REPLICATION",
        text(f.dfs_replication),
        text(have.dfs_replication),
        None,
    );
    let conf = have.configuration.clone().unwrap_or_default();
    for (k, v) in f.configuration {
        if conf.get(*k).map(String::as_str) != Some(*v) {
            let live = conf.get(*k).cloned().unwrap_or_else(|| "unset".into());
            out.push((format!("CONFIGURATION {k}"), v.to_string(), live));
        }
    }
    out
}

/// The live descriptor with `f`'s settings over it (and the five defaults when unset).
pub fn overlaid(f: &FamilyDef, have: &TColumnFamilyDescriptor) -> TColumnFamilyDescriptor {
    let mut d = have.clone();
    d.attributes = None; // a copy of the typed fields; they are what is set here
    d.max_versions = Some(f.max_versions.unwrap_or(1));
    d.min_versions = Some(f.min_versions.unwrap_or(0));
    d.time_to_live = Some(f.ttl_seconds.unwrap_or(FOREVER));
    d.keep_deleted_cells = Some(f.keep_deleted_cells.unwrap_or(TKeepDeletedCells::FALSE));
    d.compression_type = Some(f.compression.unwrap_or(TCompressionAlgorithm::NONE));
    d.in_memory = f.in_memory.or(d.in_memory);
    d.block_cache_enabled = f.block_cache.or(d.block_cache_enabled);
    d.block_size = f.block_size.or(d.block_size);
    d.bloomn_filter_type = f.bloom_filter.or(d.bloomn_filter_type);
    d.data_block_encoding = f.data_block_encoding.or(d.data_block_encoding);
    d.scope = f.scope.or(d.scope);
    d.dfs_replication = f.dfs_replication.or(d.dfs_replication);
    if !f.configuration.is_empty() {
        let mut conf: BTreeMap<String, String> = d.configuration.take().unwrap_or_default();
        for (k, v) in f.configuration {
            conf.insert(k.to_string(), v.to_string());
        }
        d.configuration = Some(conf);
    }
    d
}

/// Split keys as the HBase shell shows them: `['1', '2', '\x00']`.
pub fn splits_shown(keys: &[Vec<u8>]) -> String {
    let one = |k: &Vec<u8>| {
        let mut s = String::from("'");
        for &b in k {
            if b.is_ascii_graphic() && b != b'\'' && b != b'\\' {
                s.push(b as char);
            } else {
                s.push_str(&format!("\\x{b:02X}"));
            }
        }
        s.push('\'');
        s
    };
    format!("[{}]", keys.iter().map(one).collect::<Vec<_>>().join(", "))
}

impl TableClient<'_> {
    /// Makes the live table match the schema: creates it if missing, adds missing families and
    /// sets differing family settings; returns what it changed. A family the schema lacks, or
    /// other split points, are one `Error::SchemaDrift` listing them (it never deletes data or
    /// re-splits).
    pub fn ensure(&mut self) -> Result<Vec<String>> {
        let shown = format!(
            "{}:{}{}",
            self.table.namespace,
            self.conn.table_prefix(),
            self.table.name
        );
        if !self.exists()? {
            self.create()?;
            return Ok(vec![format!(
                "{shown}: created the table with its families and split keys"
            )]);
        }
        let name = self.table_name();
        let desc = self.conn.client.get_table_descriptor(name.clone())?;
        let live: BTreeMap<Vec<u8>, TColumnFamilyDescriptor> = desc
            .columns
            .unwrap_or_default()
            .into_iter()
            .map(|c| (c.name.clone(), c))
            .collect();
        let mut changed = Vec::new();
        for f in self.table.families {
            let family = String::from_utf8_lossy(f.name).into_owned();
            let Some(have) = live.get(f.name) else {
                self.conn
                    .client
                    .add_column_family(name.clone(), f.descriptor())?;
                changed.push(format!("{shown}: added family {family}"));
                continue;
            };
            let diffs = family_drift(f, have);
            if diffs.is_empty() {
                continue;
            }
            self.conn
                .client
                .modify_column_family(name.clone(), overlaid(f, have))?;
            for (setting, want, was) in diffs {
                changed.push(format!(
                    "{shown}: family {family}: {setting} was {was}, set to {want}"
                ));
            }
        }
        let mut refused: Vec<String> = live
            .keys()
            .filter(|n| !self.table.families.iter().any(|f| f.name == n.as_slice()))
            .map(|n| {
                format!(
                    "extra family {} (not in the schema)",
                    String::from_utf8_lossy(n)
                )
            })
            .collect();
        let splits: Vec<Vec<u8>> = self
            .region_starts()?
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        let schema: Vec<Vec<u8>> = self.table.splits.iter().map(|s| s.to_vec()).collect();
        if splits != schema {
            refused.push(format!(
                "split points are {}, the schema says {}",
                splits_shown(&splits),
                splits_shown(&schema)
            ));
        }
        if !refused.is_empty() {
            return Err(Error::SchemaDrift {
                table: shown,
                drifts: refused,
            });
        }
        Ok(changed)
    }
}
