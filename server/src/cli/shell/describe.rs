//! Column family descriptors both ways: built from the shell's `{NAME => 'f', VERSIONS => 3}`
//! hashes, and printed as HBase 2.6's `describe` prints them, in its attribute order (NAME,
//! INDEX_BLOCK_ENCODING, VERSIONS, KEEP_DELETED_CELLS, DATA_BLOCK_ENCODING, TTL, MIN_VERSIONS,
//! REPLICATION_SCOPE, BLOOMFILTER, IN_MEMORY, COMPRESSION, BLOCKCACHE, BLOCKSIZE: the order of
//! HBase's hash map of the default keys), TTL and BLOCKSIZE in its human-readable form.

use std::collections::BTreeMap;

use super::args::{boolean, bytes, int32, text, CmdError, Opts};
use super::parser::{Kind, Value};
use crate::generated::hbase2::{
    TBloomFilterType, TColumnFamilyDescriptor, TCompressionAlgorithm, TDataBlockEncoding,
    TKeepDeletedCells,
};

/// The keys a family hash may hold.
pub const FAMILY_KEYS: &[&str] = &[
    "NAME",
    "VERSIONS",
    "MIN_VERSIONS",
    "TTL",
    "KEEP_DELETED_CELLS",
    "BLOCKSIZE",
    "IN_MEMORY",
    "COMPRESSION",
    "BLOOMFILTER",
    "BLOCKCACHE",
    "REPLICATION_SCOPE",
    "DATA_BLOCK_ENCODING",
    "METADATA",
    "CONFIGURATION",
    "METHOD",
];

pub fn empty_family(name: Vec<u8>) -> TColumnFamilyDescriptor {
    TColumnFamilyDescriptor {
        name,
        attributes: None,
        configuration: None,
        block_size: None,
        bloomn_filter_type: None,
        compression_type: None,
        dfs_replication: None,
        data_block_encoding: None,
        keep_deleted_cells: None,
        max_versions: None,
        min_versions: None,
        scope: None,
        time_to_live: None,
        block_cache_enabled: None,
        cache_blooms_on_write: None,
        cache_data_on_write: None,
        cache_indexes_on_write: None,
        compress_tags: None,
        evict_blocks_on_close: None,
        in_memory: None,
    }
}

/// Keeps the typed settings of a family the server described (to change some of them):
/// the optional ones only when its values map shows them, so altering one setting does not
/// mark every other as set by the user.
pub fn typed_only(f: &TColumnFamilyDescriptor) -> TColumnFamilyDescriptor {
    let has = |k: &str| {
        f.attributes
            .as_ref()
            .is_some_and(|a| a.contains_key(k.as_bytes()))
    };
    let keep = |k: &str, v: Option<bool>| if has(k) { v } else { None };
    TColumnFamilyDescriptor {
        attributes: None,
        cache_blooms_on_write: keep("CACHE_BLOOMS_ON_WRITE", f.cache_blooms_on_write),
        cache_data_on_write: keep("CACHE_DATA_ON_WRITE", f.cache_data_on_write),
        cache_indexes_on_write: keep("CACHE_INDEX_ON_WRITE", f.cache_indexes_on_write),
        compress_tags: keep("COMPRESS_TAGS", f.compress_tags),
        evict_blocks_on_close: keep("EVICT_BLOCKS_ON_CLOSE", f.evict_blocks_on_close),
        dfs_replication: if has("DFS_REPLICATION") {
            f.dfs_replication
        } else {
            None
        },
        ..f.clone()
    }
}

fn enum_value<T>(v: &Value, what: &str, names: &[(&str, T)]) -> Result<T, CmdError>
where
    T: Copy,
{
    let s = text(v, what)?.to_ascii_uppercase();
    names
        .iter()
        .find(|(n, _)| *n == s)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let all: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
            CmdError::at(v.pos, format!("unknown {what} '{s}' ({})", all.join(", ")))
        })
}

fn string_map(v: &Value, what: &str) -> Result<BTreeMap<String, String>, CmdError> {
    let Kind::Hash(pairs) = &v.kind else {
        return Err(CmdError::at(v.pos, format!("{what} must be a hash")));
    };
    pairs
        .iter()
        .map(|(k, v)| Ok((text(k, what)?, text(v, what)?)))
        .collect()
}

/// Applies a family hash's settings to `f` (a new family, or the one being altered).
pub fn apply(f: &mut TColumnFamilyDescriptor, opts: &Opts<'_>) -> Result<(), CmdError> {
    for (key, v) in opts.keys() {
        match key {
            "NAME" | "METHOD" => {}
            "VERSIONS" => f.max_versions = Some(int32(v, "VERSIONS")?),
            "MIN_VERSIONS" => f.min_versions = Some(int32(v, "MIN_VERSIONS")?),
            "TTL" => {
                f.time_to_live = Some(match &v.kind {
                    Kind::Str(s) if s.eq_ignore_ascii_case(b"FOREVER") => i32::MAX,
                    _ => int32(v, "TTL")?,
                })
            }
            "BLOCKSIZE" => f.block_size = Some(int32(v, "BLOCKSIZE")?),
            "IN_MEMORY" => f.in_memory = Some(boolean(v, "IN_MEMORY")?),
            "BLOCKCACHE" => f.block_cache_enabled = Some(boolean(v, "BLOCKCACHE")?),
            "REPLICATION_SCOPE" => f.scope = Some(int32(v, "REPLICATION_SCOPE")?),
            "KEEP_DELETED_CELLS" => {
                f.keep_deleted_cells = Some(match &v.kind {
                    Kind::Bool(true) => TKeepDeletedCells::TRUE,
                    Kind::Bool(false) => TKeepDeletedCells::FALSE,
                    _ => enum_value(
                        v,
                        "KEEP_DELETED_CELLS",
                        &[
                            ("TRUE", TKeepDeletedCells::TRUE),
                            ("FALSE", TKeepDeletedCells::FALSE),
                            ("TTL", TKeepDeletedCells::TTL),
                        ],
                    )?,
                })
            }
            "COMPRESSION" => {
                f.compression_type = Some(enum_value(
                    v,
                    "COMPRESSION",
                    &[
                        ("NONE", TCompressionAlgorithm::NONE),
                        ("GZ", TCompressionAlgorithm::GZ),
                        ("SNAPPY", TCompressionAlgorithm::SNAPPY),
                        ("LZ4", TCompressionAlgorithm::LZ4),
                        ("ZSTD", TCompressionAlgorithm::ZSTD),
                        ("LZO", TCompressionAlgorithm::LZO),
                        ("BZIP2", TCompressionAlgorithm::BZIP2),
                    ],
                )?)
            }
            "BLOOMFILTER" => {
                f.bloomn_filter_type = Some(enum_value(
                    v,
                    "BLOOMFILTER",
                    &[
                        ("NONE", TBloomFilterType::NONE),
                        ("ROW", TBloomFilterType::ROW),
                        ("ROWCOL", TBloomFilterType::ROWCOL),
                        (
                            "ROWPREFIX_FIXED_LENGTH",
                            TBloomFilterType::ROWPREFIX_FIXED_LENGTH,
                        ),
                    ],
                )?)
            }
            "DATA_BLOCK_ENCODING" => {
                f.data_block_encoding = Some(enum_value(
                    v,
                    "DATA_BLOCK_ENCODING",
                    &[
                        ("NONE", TDataBlockEncoding::NONE),
                        ("PREFIX", TDataBlockEncoding::PREFIX),
                        ("DIFF", TDataBlockEncoding::DIFF),
                        ("FAST_DIFF", TDataBlockEncoding::FAST_DIFF),
                        ("ROW_INDEX_V1", TDataBlockEncoding::ROW_INDEX_V1),
                    ],
                )?)
            }
            "CONFIGURATION" => f.configuration = Some(string_map(v, "CONFIGURATION")?),
            "METADATA" => {
                let m = string_map(v, "METADATA")?;
                let attrs = f.attributes.get_or_insert_with(BTreeMap::new);
                for (k, v) in m {
                    attrs.insert(k.into_bytes(), v.into_bytes());
                }
            }
            other => return Err(CmdError::usage(format!("unknown family option {other}"))),
        }
    }
    Ok(())
}

/// A family from a hash with NAME.
pub fn family_from_hash(v: &Value) -> Result<TColumnFamilyDescriptor, CmdError> {
    let opts = Opts::new(v, FAMILY_KEYS, "a column family")?;
    let name = opts
        .get("NAME")
        .ok_or_else(|| CmdError::at(v.pos, "a column family hash needs NAME"))?;
    let mut f = empty_family(bytes(name, "NAME")?);
    apply(&mut f, &opts)?;
    Ok(f)
}

/// HBase's order of the keys every family shows.
const ORDER: [&str; 12] = [
    "INDEX_BLOCK_ENCODING",
    "VERSIONS",
    "KEEP_DELETED_CELLS",
    "DATA_BLOCK_ENCODING",
    "TTL",
    "MIN_VERSIONS",
    "REPLICATION_SCOPE",
    "BLOOMFILTER",
    "IN_MEMORY",
    "COMPRESSION",
    "BLOCKCACHE",
    "BLOCKSIZE",
];

/// Settings HBase shows inline when set; any other key goes under METADATA.
const INLINE: [&str; 7] = [
    "CACHE_BLOOMS_ON_WRITE",
    "CACHE_DATA_ON_WRITE",
    "CACHE_INDEX_ON_WRITE",
    "COMPRESS_TAGS",
    "COMPRESSION_COMPACT",
    "DFS_REPLICATION",
    "EVICT_BLOCKS_ON_CLOSE",
];

fn typed(f: &TColumnFamilyDescriptor, key: &str) -> Option<String> {
    let name = |v: i32, names: &[&str]| names.get(v as usize).map(|s| s.to_string());
    match key {
        "INDEX_BLOCK_ENCODING" => Some("NONE".into()),
        "VERSIONS" => Some(f.max_versions.unwrap_or(1).to_string()),
        "MIN_VERSIONS" => Some(f.min_versions.unwrap_or(0).to_string()),
        "TTL" => Some(f.time_to_live.unwrap_or(i32::MAX).to_string()),
        "REPLICATION_SCOPE" => Some(f.scope.unwrap_or(0).to_string()),
        "IN_MEMORY" => Some(f.in_memory.unwrap_or(false).to_string()),
        "BLOCKCACHE" => Some(f.block_cache_enabled.unwrap_or(true).to_string()),
        "BLOCKSIZE" => Some(f.block_size.unwrap_or(65536).to_string()),
        "KEEP_DELETED_CELLS" => name(
            f.keep_deleted_cells.map_or(0, |k| k.0),
            &["FALSE", "TRUE", "TTL"],
        ),
        "BLOOMFILTER" => name(
            f.bloomn_filter_type.map_or(1, |k| k.0),
            &["NONE", "ROW", "ROWCOL", "ROWPREFIX_FIXED_LENGTH"],
        ),
        "COMPRESSION" => name(
            f.compression_type.map_or(2, |k| k.0),
            &["LZO", "GZ", "NONE", "SNAPPY", "LZ4", "BZIP2", "ZSTD"],
        ),
        "DATA_BLOCK_ENCODING" => name(
            f.data_block_encoding.map_or(0, |k| k.0),
            &[
                "NONE",
                "",
                "PREFIX",
                "DIFF",
                "FAST_DIFF",
                "",
                "",
                "ROW_INDEX_V1",
            ],
        ),
        _ => None,
    }
}

/// `86400 SECONDS (1 DAY)`, as HBase's `PrettyPrinter` shows a TTL.
pub fn human_ttl(secs: i64) -> String {
    if secs >= i32::MAX as i64 {
        return "FOREVER".into();
    }
    if secs < 60 {
        return format!("{secs} SECONDS");
    }
    let parts = [
        (secs / 86_400, "DAY"),
        (secs / 3600 % 24, "HOUR"),
        (secs / 60 % 60, "MINUTE"),
        (secs % 60, "SECOND"),
    ];
    let words: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, u)| format!("{n} {u}{}", if *n == 1 { "" } else { "S" }))
        .collect();
    format!("{secs} SECONDS ({})", words.join(" "))
}

/// `65536 B (64KB)`, as HBase's `PrettyPrinter` shows a size in bytes.
pub fn human_bytes(n: i64) -> String {
    let units = [
        (1i64 << 40, "TB"),
        (1 << 30, "GB"),
        (1 << 20, "MB"),
        (1 << 10, "KB"),
    ];
    let mut rest = n;
    let mut words = Vec::new();
    for (size, unit) in units {
        if rest >= size {
            words.push(format!("{}{unit}", rest / size));
            rest %= size;
        }
    }
    if words.is_empty() {
        return format!("{n} B");
    }
    if rest > 0 {
        words.push(format!("{rest}B"));
    }
    format!("{n} B ({})", words.join(" "))
}

fn shown(key: &str, value: &str) -> String {
    match key {
        "TTL" => value
            .parse()
            .map(human_ttl)
            .unwrap_or_else(|_| value.to_string()),
        "BLOCKSIZE" => value
            .parse()
            .map(human_bytes)
            .unwrap_or_else(|_| value.to_string()),
        _ => value.to_string(),
    }
}

/// One family as `describe` prints it: `{NAME => 'f', ...}`.
pub fn family_text(f: &TColumnFamilyDescriptor) -> String {
    let attrs: BTreeMap<String, String> = f
        .attributes
        .iter()
        .flatten()
        .map(|(k, v)| {
            (
                String::from_utf8_lossy(k).into_owned(),
                String::from_utf8_lossy(v).into_owned(),
            )
        })
        .collect();
    let mut parts = vec![format!("NAME => '{}'", String::from_utf8_lossy(&f.name))];
    for key in ORDER {
        let value = attrs
            .get(key)
            .cloned()
            .or_else(|| typed(f, key))
            .unwrap_or_default();
        parts.push(format!("{key} => '{}'", shown(key, &value)));
    }
    let mut metadata = Vec::new();
    for (k, v) in &attrs {
        if ORDER.contains(&k.as_str()) {
            continue;
        }
        if INLINE.contains(&k.as_str()) {
            parts.push(format!("{k} => '{v}'"));
        } else {
            metadata.push(format!("'{k}' => '{v}'"));
        }
    }
    if !metadata.is_empty() {
        parts.push(format!("METADATA => {{{}}}", metadata.join(", ")));
    }
    if let Some(conf) = f.configuration.as_ref().filter(|c| !c.is_empty()) {
        let c: Vec<String> = conf
            .iter()
            .map(|(k, v)| format!("'{k}' => '{v}'"))
            .collect();
        parts.push(format!("CONFIGURATION => {{{}}}", c.join(", ")));
    }
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_values() {
        assert_eq!(human_ttl(86_400), "86400 SECONDS (1 DAY)");
        assert_eq!(
            human_ttl(90_061),
            "90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)"
        );
        assert_eq!(human_ttl(30), "30 SECONDS");
        assert_eq!(human_ttl(i32::MAX as i64), "FOREVER");
        assert_eq!(human_bytes(65_536), "65536 B (64KB)");
        assert_eq!(human_bytes(512), "512 B");
    }

    #[test]
    fn default_family_text() {
        let f = empty_family(b"f".to_vec());
        assert_eq!(
            family_text(&f),
            "{NAME => 'f', INDEX_BLOCK_ENCODING => 'NONE', VERSIONS => '1', KEEP_DELETED_CELLS => 'FALSE', \
             DATA_BLOCK_ENCODING => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', REPLICATION_SCOPE => '0', \
             BLOOMFILTER => 'ROW', IN_MEMORY => 'false', COMPRESSION => 'NONE', BLOCKCACHE => 'true', \
             BLOCKSIZE => '65536 B (64KB)'}"
        );
    }
}
