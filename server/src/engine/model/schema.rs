//! Namespace, table and column-family descriptors, with HBase's validation rules.
//!
//! Attributes that change nothing in this engine (compression, bloom filters, block size, ...)
//! are still validated against HBase's accepted values and kept verbatim, so a client that reads
//! a descriptor back gets exactly what it sent.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::error::{NamespaceError, SchemaError};

/// A table name, `namespace:qualifier`; the namespace `default` is implied when absent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TableName {
    pub namespace: String,
    pub qualifier: String,
}

impl TableName {
    /// Parses `ns:name` or `name`, checking HBase's character rules.
    pub fn parse(s: &str) -> Result<TableName, SchemaError> {
        let (ns, q) = match s.split_once(':') {
            Some((ns, q)) => (ns, q),
            None => ("default", s),
        };
        validate_namespace_name(ns)?;
        if q.is_empty() {
            return Err(SchemaError::InvalidTableName {
                name: s.to_string(),
                reason: "the table qualifier is empty".into(),
            });
        }
        if q.len() > MAX_NAME_COMPONENT {
            return Err(SchemaError::InvalidTableName {
                name: s.to_string(),
                reason: format!(
                    "the table qualifier is {} bytes; at most {MAX_NAME_COMPONENT} are allowed",
                    q.len()
                ),
            });
        }
        if q.starts_with('.') || q.starts_with('-') {
            return Err(SchemaError::InvalidTableName {
                name: s.to_string(),
                reason: "a table qualifier must not start with '.' or '-'".into(),
            });
        }
        if let Some(c) = q
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        {
            return Err(SchemaError::InvalidTableName {
                name: s.to_string(),
                reason: format!("illegal character {c:?}: only [a-zA-Z0-9_.-] are allowed"),
            });
        }
        Ok(TableName {
            namespace: ns.to_string(),
            qualifier: q.to_string(),
        })
    }

    /// `name` for the default namespace, `ns:name` otherwise (HBase's `getNameAsString`).
    pub fn as_string(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace == "default" {
            write!(f, "{}", self.qualifier)
        } else {
            write!(f, "{}:{}", self.namespace, self.qualifier)
        }
    }
}

/// The longest namespace or table qualifier, in bytes. Each is one directory name under the
/// data directory, as in HBase's root directory on HDFS, whose default path component limit
/// (`dfs.namenode.fs-limits.max-component-length`) is 255 bytes; local file systems have the
/// same limit. A longer name is refused up front as an illegal name, on every gateway, rather
/// than failing in the file system with the server's path in the error.
pub const MAX_NAME_COMPONENT: usize = 255;

/// The system tables HBase 2.6 always has. redbase keeps their contents in its catalog, but
/// their names stay taken: creating one fails as HBase fails it, with TableExistsException.
pub const SYSTEM_TABLES: [&str; 2] = ["hbase:meta", "hbase:namespace"];

pub fn validate_namespace_name(ns: &str) -> Result<(), SchemaError> {
    if ns.len() > MAX_NAME_COMPONENT {
        return Err(SchemaError::InvalidNamespaceName {
            name: ns.to_string(),
            reason: format!(
                "the namespace name is {} bytes; at most {MAX_NAME_COMPONENT} are allowed",
                ns.len()
            ),
        });
    }
    if ns.is_empty() || !ns.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(SchemaError::InvalidNamespaceName {
            name: ns.to_string(),
            reason: "a namespace name is one or more of [a-zA-Z0-9_]".into(),
        });
    }
    Ok(())
}

/// HBase's KEEP_DELETED_CELLS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum KeepDeletedCells {
    #[default]
    False,
    True,
    /// Deleted cells are kept until the family TTL expires them.
    Ttl,
}

/// A column family's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FamilyDescriptor {
    pub name: Vec<u8>,
    pub max_versions: i32,
    pub min_versions: i32,
    /// Seconds; `<= 0` or `i32::MAX` means forever.
    pub ttl_seconds: i32,
    pub keep_deleted_cells: KeepDeletedCells,
    pub compression: String,
    pub compaction_compression: String,
    pub bloom_filter: String,
    pub block_size: i32,
    pub in_memory: bool,
    pub block_cache_enabled: bool,
    pub data_block_encoding: String,
    pub scope: i32,
    #[serde(default)]
    pub dfs_replication: i16,
    #[serde(default)]
    pub cache_blooms_on_write: bool,
    #[serde(default)]
    pub cache_data_on_write: bool,
    #[serde(default)]
    pub cache_indexes_on_write: bool,
    #[serde(default = "yes")]
    pub compress_tags: bool,
    #[serde(default)]
    pub evict_blocks_on_close: bool,
    #[serde(with = "pairs")]
    pub attributes: BTreeMap<Vec<u8>, Vec<u8>>,
    pub configuration: BTreeMap<String, String>,
}

fn yes() -> bool {
    true
}

/// HBase's "FOREVER".
pub const TTL_FOREVER: i32 = i32::MAX;

impl FamilyDescriptor {
    /// A family with HBase 2.6's defaults.
    pub fn new(name: &[u8]) -> FamilyDescriptor {
        FamilyDescriptor {
            name: name.to_vec(),
            max_versions: 1,
            min_versions: 0,
            ttl_seconds: TTL_FOREVER,
            keep_deleted_cells: KeepDeletedCells::False,
            compression: "NONE".into(),
            compaction_compression: "NONE".into(),
            bloom_filter: "ROW".into(),
            block_size: 65536,
            in_memory: false,
            block_cache_enabled: true,
            data_block_encoding: "NONE".into(),
            scope: 0,
            dfs_replication: 0,
            cache_blooms_on_write: false,
            cache_data_on_write: false,
            cache_indexes_on_write: false,
            compress_tags: true,
            evict_blocks_on_close: false,
            attributes: BTreeMap::new(),
            configuration: BTreeMap::new(),
        }
    }

    pub fn max_versions(mut self, n: i32) -> Self {
        self.max_versions = n;
        self
    }

    pub fn min_versions(mut self, n: i32) -> Self {
        self.min_versions = n;
        self
    }

    pub fn ttl(mut self, seconds: i32) -> Self {
        self.ttl_seconds = seconds;
        self
    }

    pub fn keep_deleted(mut self, k: KeepDeletedCells) -> Self {
        self.keep_deleted_cells = k;
        self
    }

    /// The family TTL in milliseconds, or None for forever.
    pub fn ttl_ms(&self) -> Option<i64> {
        if self.ttl_seconds <= 0 || self.ttl_seconds == TTL_FOREVER {
            None
        } else {
            Some(self.ttl_seconds as i64 * 1000)
        }
    }

    pub fn name_str(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }

    pub fn validate(&self) -> Result<(), SchemaError> {
        let fam = self.name_str();
        let bad = |field: &str, reason: String| SchemaError::InvalidFamily {
            family: fam.clone(),
            field: field.to_string(),
            reason,
        };
        if self.name.is_empty() {
            return Err(bad("name", "a family name must not be empty".into()));
        }
        if self.name[0] == b'.' {
            return Err(bad("name", "a family name must not start with '.'".into()));
        }
        if let Some(b) = self
            .name
            .iter()
            .find(|&&b| b == b':' || b.is_ascii_control() || b == b'\\' || b == b'/')
        {
            return Err(bad(
                "name",
                format!("illegal byte 0x{b:02x}: family names must be printable and contain no ':', '\\\\' or '/'"),
            ));
        }
        if self.max_versions < 1 {
            return Err(bad(
                "VERSIONS",
                format!("must be at least 1, got {}", self.max_versions),
            ));
        }
        if self.min_versions < 0 || self.min_versions > self.max_versions {
            return Err(bad(
                "MIN_VERSIONS",
                format!(
                    "must be between 0 and VERSIONS ({}), got {}",
                    self.max_versions, self.min_versions
                ),
            ));
        }
        const COMPRESSION: &[&str] = &[
            "NONE", "GZ", "LZO", "SNAPPY", "LZ4", "BZIP2", "ZSTD", "LZMA", "BROTLI",
        ];
        for (field, v) in [
            ("COMPRESSION", &self.compression),
            ("COMPRESSION_COMPACT", &self.compaction_compression),
        ] {
            if !COMPRESSION.contains(&v.as_str()) {
                return Err(bad(
                    field,
                    format!("unknown algorithm {v:?}; one of {COMPRESSION:?}"),
                ));
            }
        }
        const BLOOM: &[&str] = &["NONE", "ROW", "ROWCOL", "ROWPREFIX_FIXED_LENGTH"];
        if !BLOOM.contains(&self.bloom_filter.as_str()) {
            return Err(bad(
                "BLOOMFILTER",
                format!("unknown type {:?}; one of {BLOOM:?}", self.bloom_filter),
            ));
        }
        const ENCODING: &[&str] = &["NONE", "PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1"];
        if !ENCODING.contains(&self.data_block_encoding.as_str()) {
            return Err(bad(
                "DATA_BLOCK_ENCODING",
                format!(
                    "unknown encoding {:?}; one of {ENCODING:?}",
                    self.data_block_encoding
                ),
            ));
        }
        if !(1024..=16 * 1024 * 1024).contains(&self.block_size) {
            return Err(bad(
                "BLOCKSIZE",
                format!("must be between 1 KiB and 16 MiB, got {}", self.block_size),
            ));
        }
        if self.dfs_replication < 0 {
            return Err(bad(
                "DFS_REPLICATION",
                format!("must not be negative, got {}", self.dfs_replication),
            ));
        }
        if !(0..=1).contains(&self.scope) {
            return Err(bad(
                "REPLICATION_SCOPE",
                format!("must be 0 or 1, got {}", self.scope),
            ));
        }
        Ok(())
    }
}

/// A table's settings and families.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableDescriptor {
    pub name: TableName,
    /// Sorted by family name.
    #[serde(with = "pairs")]
    pub families: BTreeMap<Vec<u8>, FamilyDescriptor>,
    #[serde(with = "pairs")]
    pub attributes: BTreeMap<Vec<u8>, Vec<u8>>,
    pub configuration: BTreeMap<String, String>,
}

impl TableDescriptor {
    pub fn new(name: TableName) -> TableDescriptor {
        TableDescriptor {
            name,
            families: BTreeMap::new(),
            attributes: BTreeMap::new(),
            configuration: BTreeMap::new(),
        }
    }

    pub fn with_family(mut self, f: FamilyDescriptor) -> TableDescriptor {
        self.families.insert(f.name.clone(), f);
        self
    }

    pub fn family(&self, name: &[u8]) -> Option<&FamilyDescriptor> {
        self.families.get(name)
    }

    pub fn validate(&self) -> Result<(), SchemaError> {
        if self.families.is_empty() {
            return Err(SchemaError::NoFamilies {
                table: self.name.to_string(),
            });
        }
        for (k, f) in &self.families {
            if k != &f.name {
                return Err(SchemaError::InvalidFamily {
                    family: f.name_str(),
                    field: "name".into(),
                    reason: "descriptor key and family name differ".into(),
                });
            }
            f.validate()?;
        }
        Ok(())
    }
}

/// A namespace and its free-form configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamespaceDescriptor {
    pub name: String,
    pub configuration: BTreeMap<String, String>,
}

/// The namespace properties of HBase's region and table quotas.
pub const NS_MAX_REGIONS: &str = "hbase.namespace.quota.maxregions";
pub const NS_MAX_TABLES: &str = "hbase.namespace.quota.maxtables";

impl NamespaceDescriptor {
    pub fn new(name: &str) -> NamespaceDescriptor {
        NamespaceDescriptor {
            name: name.to_string(),
            configuration: BTreeMap::new(),
        }
    }

    /// Checks the quota properties as HBase's master does whenever a namespace is created or
    /// modified: each, when set and not empty, must be a whole number above zero (regions are
    /// checked first). HBase counts tables and regions against them only with
    /// `hbase.quota.enabled`, off by default; redbase keeps them as properties.
    pub fn validate_quotas(&self) -> Result<(), NamespaceError> {
        for (key, what) in [(NS_MAX_REGIONS, "regions"), (NS_MAX_TABLES, "tables")] {
            let Some(v) = self.configuration.get(key).filter(|v| !v.is_empty()) else {
                continue;
            };
            let reason = match v.parse::<i64>() {
                Err(_) => format!("{key} is {v:?}, not a whole number of {what}"),
                Ok(n) if n <= 0 => format!("{key} is {n}: a quota of {what} must be above zero"),
                Ok(_) => continue,
            };
            return Err(NamespaceError::InvalidQuota {
                namespace: self.name.clone(),
                reason,
            });
        }
        Ok(())
    }
}

/// Byte-keyed maps are stored as lists of `[key, value]` pairs (JSON keys must be strings).
mod pairs {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<V: Serialize, S: Serializer>(
        m: &BTreeMap<Vec<u8>, V>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(m.iter())
    }

    pub fn deserialize<'de, V: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<Vec<u8>, V>, D::Error> {
        Ok(Vec::<(Vec<u8>, V)>::deserialize(d)?.into_iter().collect())
    }
}
