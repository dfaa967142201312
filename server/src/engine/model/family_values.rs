//! A family's settings as HBase's descriptor "values" map: the string map that HBase keeps
//! behind every column family descriptor and that its Thrift2 gateway hands out as
//! `TColumnFamilyDescriptor.attributes`. Clients (easybase's `families()`, HBase's own Java
//! client) read the settings from that map, so it must hold what HBase's does: its defaults,
//! the keys a client set, and the client's own free-form keys.
//!
//! The typed fields of [`FamilyDescriptor`] stay the truth the engine runs on; the map is built
//! from them on the way out. Free-form keys live in `attributes`, and so does a marker for each
//! optional key a client set (HBase shows those even when set to their default).

use std::collections::BTreeMap;

use super::error::SchemaError;
use super::schema::{FamilyDescriptor, KeepDeletedCells};

/// Keys in every family's map (HBase's `ColumnFamilyDescriptorBuilder` defaults).
pub const ALWAYS: [&str; 12] = [
    "BLOCKCACHE",
    "BLOCKSIZE",
    "BLOOMFILTER",
    "COMPRESSION",
    "DATA_BLOCK_ENCODING",
    "INDEX_BLOCK_ENCODING",
    "IN_MEMORY",
    "KEEP_DELETED_CELLS",
    "MIN_VERSIONS",
    "REPLICATION_SCOPE",
    "TTL",
    "VERSIONS",
];

/// Keys HBase shows only once a client set them, even to their default value.
pub const OPTIONAL: [&str; 7] = [
    "CACHE_BLOOMS_ON_WRITE",
    "CACHE_DATA_ON_WRITE",
    "CACHE_INDEX_ON_WRITE",
    "COMPRESS_TAGS",
    "COMPRESSION_COMPACT",
    "DFS_REPLICATION",
    "EVICT_BLOCKS_ON_CLOSE",
];

fn keep_deleted_name(k: KeepDeletedCells) -> &'static str {
    match k {
        KeepDeletedCells::False => "FALSE",
        KeepDeletedCells::True => "TRUE",
        KeepDeletedCells::Ttl => "TTL",
    }
}

impl FamilyDescriptor {
    /// The value a typed setting shows under its HBase key (None: not a typed key).
    fn typed_value(&self, key: &str) -> Option<String> {
        Some(match key {
            "BLOCKCACHE" => self.block_cache_enabled.to_string(),
            "BLOCKSIZE" => self.block_size.to_string(),
            "BLOOMFILTER" => self.bloom_filter.clone(),
            "COMPRESSION" => self.compression.clone(),
            "DATA_BLOCK_ENCODING" => self.data_block_encoding.clone(),
            "IN_MEMORY" => self.in_memory.to_string(),
            "KEEP_DELETED_CELLS" => keep_deleted_name(self.keep_deleted_cells).to_string(),
            "MIN_VERSIONS" => self.min_versions.to_string(),
            "REPLICATION_SCOPE" => self.scope.to_string(),
            "TTL" => self.ttl_seconds.to_string(),
            "VERSIONS" => self.max_versions.to_string(),
            "CACHE_BLOOMS_ON_WRITE" => self.cache_blooms_on_write.to_string(),
            "CACHE_DATA_ON_WRITE" => self.cache_data_on_write.to_string(),
            "CACHE_INDEX_ON_WRITE" => self.cache_indexes_on_write.to_string(),
            "COMPRESS_TAGS" => self.compress_tags.to_string(),
            "COMPRESSION_COMPACT" => self.compaction_compression.clone(),
            "DFS_REPLICATION" => self.dfs_replication.to_string(),
            "EVICT_BLOCKS_ON_CLOSE" => self.evict_blocks_on_close.to_string(),
            _ => return None,
        })
    }

    /// HBase's values map of this family: defaults, set keys and free-form keys.
    pub fn values_map(&self) -> BTreeMap<Vec<u8>, Vec<u8>> {
        let mut m = self.attributes.clone();
        let defaults = FamilyDescriptor::new(&self.name);
        for key in ALWAYS {
            let v = self.typed_value(key).unwrap_or_else(|| {
                // INDEX_BLOCK_ENCODING has no typed field: a client's value, else NONE.
                self.attributes
                    .get(key.as_bytes())
                    .map(|v| String::from_utf8_lossy(v).into_owned())
                    .unwrap_or_else(|| "NONE".into())
            });
            m.insert(key.as_bytes().to_vec(), v.into_bytes());
        }
        for key in OPTIONAL {
            let v = self.typed_value(key).expect("optional keys are typed");
            if m.contains_key(key.as_bytes()) || defaults.typed_value(key).as_ref() != Some(&v) {
                m.insert(key.as_bytes().to_vec(), v.into_bytes());
            }
        }
        m
    }

    /// Notes that a client set an optional key, so [`FamilyDescriptor::values_map`] shows it.
    pub fn mark_set(&mut self, key: &'static str) {
        debug_assert!(OPTIONAL.contains(&key));
        self.attributes.entry(key.as_bytes().to_vec()).or_default();
    }

    /// Takes a client's values map (Thrift2's `attributes`): every entry is kept, and HBase's
    /// well-known keys also set the typed settings, as HBase reads them from its own map.
    pub fn apply_values(&mut self, values: &BTreeMap<Vec<u8>, Vec<u8>>) -> Result<(), SchemaError> {
        for (k, v) in values {
            self.attributes.insert(k.clone(), v.clone());
            let Ok(key) = std::str::from_utf8(k) else {
                continue;
            };
            let text = String::from_utf8_lossy(v).into_owned();
            let bad = |what: &str| SchemaError::InvalidFamily {
                family: String::from_utf8_lossy(&self.name).into_owned(),
                field: key.to_string(),
                reason: format!("must be {what}, got {text:?}"),
            };
            let int = || {
                text.trim()
                    .parse::<i32>()
                    .map_err(|_| bad("a 32-bit integer"))
            };
            // Java's Boolean.parseBoolean: "true" in any case, anything else is false.
            let boolean = text.eq_ignore_ascii_case("true");
            match key {
                "BLOCKCACHE" => self.block_cache_enabled = boolean,
                "BLOCKSIZE" => self.block_size = int()?,
                "BLOOMFILTER" => self.bloom_filter = text.to_ascii_uppercase(),
                "COMPRESSION" => self.compression = text.to_ascii_uppercase(),
                "COMPRESSION_COMPACT" => self.compaction_compression = text.to_ascii_uppercase(),
                "DATA_BLOCK_ENCODING" => self.data_block_encoding = text.to_ascii_uppercase(),
                "IN_MEMORY" => self.in_memory = boolean,
                "KEEP_DELETED_CELLS" => {
                    self.keep_deleted_cells = match text.to_ascii_uppercase().as_str() {
                        "FALSE" => KeepDeletedCells::False,
                        "TRUE" => KeepDeletedCells::True,
                        "TTL" => KeepDeletedCells::Ttl,
                        _ => return Err(bad("FALSE, TRUE or TTL")),
                    }
                }
                "MIN_VERSIONS" => self.min_versions = int()?,
                "REPLICATION_SCOPE" => self.scope = int()?,
                "TTL" => self.ttl_seconds = int()?,
                "VERSIONS" => self.max_versions = int()?,
                "CACHE_BLOOMS_ON_WRITE" => self.cache_blooms_on_write = boolean,
                "CACHE_DATA_ON_WRITE" => self.cache_data_on_write = boolean,
                "CACHE_INDEX_ON_WRITE" => self.cache_indexes_on_write = boolean,
                "COMPRESS_TAGS" => self.compress_tags = boolean,
                "DFS_REPLICATION" => {
                    self.dfs_replication = text
                        .trim()
                        .parse::<i16>()
                        .map_err(|_| bad("a 16-bit integer"))?
                }
                "EVICT_BLOCKS_ON_CLOSE" => self.evict_blocks_on_close = boolean,
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<Vec<u8>, Vec<u8>> {
        pairs
            .iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn defaults_are_hbase_defaults() {
        let f = FamilyDescriptor::new(b"d");
        assert_eq!(
            f.values_map(),
            map(&[
                ("BLOCKCACHE", "true"),
                ("BLOCKSIZE", "65536"),
                ("BLOOMFILTER", "ROW"),
                ("COMPRESSION", "NONE"),
                ("DATA_BLOCK_ENCODING", "NONE"),
                ("INDEX_BLOCK_ENCODING", "NONE"),
                ("IN_MEMORY", "false"),
                ("KEEP_DELETED_CELLS", "FALSE"),
                ("MIN_VERSIONS", "0"),
                ("REPLICATION_SCOPE", "0"),
                ("TTL", "2147483647"),
                ("VERSIONS", "1"),
            ])
        );
    }

    #[test]
    fn set_optional_keys_show_even_at_default_and_values_set_typed_fields() {
        let mut f = FamilyDescriptor::new(b"d");
        f.mark_set("DFS_REPLICATION");
        f.apply_values(&map(&[("VERSIONS", "5"), ("MINE", "x")]))
            .unwrap();
        let m = f.values_map();
        assert_eq!(f.max_versions, 5);
        assert_eq!(m[b"DFS_REPLICATION".as_slice()], b"0");
        assert_eq!(m[b"VERSIONS".as_slice()], b"5");
        assert_eq!(m[b"MINE".as_slice()], b"x");
        assert!(!m.contains_key(b"COMPRESS_TAGS".as_slice()));
        let err = f.apply_values(&map(&[("TTL", "forever")])).unwrap_err();
        assert!(err.to_string().contains("TTL"), "{err}");
    }
}
