//! Stage 1: the schema file as written. Plain serde structs over TOML, with spans kept on
//! every field a later check may complain about, so errors can point at the line.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

/// One schema file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSchema {
    /// The SDK package this file's tables go into (every file of one SDK must agree).
    pub package: Option<Spanned<String>>,
    /// The SDK's version (`MAJOR.MINOR.PATCH`, every file of one SDK must agree), stamped into
    /// each language's package metadata so published artifacts carry the schema's version.
    pub version: Option<Spanned<String>>,
    /// The Go SDK's module path without its major-version suffix (e.g.
    /// `github.com/acme/logs-sdk`; default: the package name, which `go get` cannot fetch).
    pub go_module: Option<Spanned<String>>,
    pub tables: BTreeMap<String, Spanned<RawTable>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTable {
    /// The HBase table name (default: the table's key with `_` turned into `-`).
    pub name: Option<Spanned<String>>,
    pub namespace: Option<Spanned<String>>,
    pub doc: Option<String>,
    #[serde(default)]
    pub families: BTreeMap<String, Spanned<RawFamily>>,
    pub key: Spanned<RawKey>,
    pub splits: Option<Spanned<RawSplits>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFamily {
    pub doc: Option<String>,
    pub max_versions: Option<Spanned<i64>>,
    pub min_versions: Option<Spanned<i64>>,
    pub ttl_seconds: Option<Spanned<i64>>,
    /// `true`, `false` or `"ttl"`.
    pub keep_deleted_cells: Option<Spanned<toml::Value>>,
    pub in_memory: Option<bool>,
    pub block_cache: Option<bool>,
    pub block_size: Option<Spanned<i64>>,
    pub bloom_filter: Option<Spanned<String>>,
    pub compression: Option<Spanned<String>>,
    pub data_block_encoding: Option<Spanned<String>>,
    pub scope: Option<Spanned<i64>>,
    pub dfs_replication: Option<Spanned<i64>>,
    #[serde(default)]
    pub configuration: BTreeMap<String, String>,
    #[serde(default)]
    pub columns: BTreeMap<String, Spanned<RawColumn>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawColumn {
    pub doc: Option<String>,
    /// The qualifier; default the column's key. `{name}` once inside makes it a pattern.
    pub qualifier: Option<Spanned<String>>,
    #[serde(rename = "type")]
    pub ty: Spanned<String>,
    /// The type of a pattern's `{part}`: `string` (default), `i32` or `i64`.
    pub part_type: Option<Spanned<String>>,
    /// Zero-padded decimal width of an integer part.
    pub part_width: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawKey {
    /// `separated`, `fixed` or `binary`.
    pub layout: Spanned<String>,
    pub separator: Option<Spanned<String>>,
    pub components: Spanned<Vec<Spanned<RawComponent>>>,
    pub hash: Option<Spanned<RawHash>>,
    pub salt: Option<Spanned<RawSalt>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawComponent {
    pub name: Spanned<String>,
    #[serde(rename = "type")]
    pub ty: Spanned<String>,
    pub doc: Option<String>,
    pub width: Option<Spanned<i64>>,
    pub charset: Option<Spanned<String>>,
    pub escape: Option<Spanned<bool>>,
    /// `asc` (default) or `desc`.
    pub order: Option<Spanned<String>>,
    /// `chars` or `segments`.
    pub reverse: Option<Spanned<String>>,
    pub reverse_timestamp: Option<Spanned<bool>>,
    /// Whether an empty string or bytes value is a valid component (default false: an empty
    /// field is almost always a missing value, and would collapse keys like `d41d8||201501`).
    pub allow_empty: Option<Spanned<bool>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHash {
    pub components: Spanned<Vec<Spanned<String>>>,
    pub hex_chars: Option<Spanned<i64>>,
    pub bytes: Option<Spanned<i64>>,
    /// Whether the hashed components stay in the key after the prefix (default true: the
    /// prefix is added, nothing dropped).
    pub keep: Option<Spanned<bool>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSalt {
    pub buckets: Spanned<i64>,
    /// `byte` or `char`.
    pub encoding: Spanned<String>,
    pub alphabet: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSplits {
    /// Split keys replacing the derived ones: strings (UTF-8) or `{ hex = "..." }`.
    pub keys: Vec<Spanned<RawSplitKey>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum RawSplitKey {
    Text(String),
    Hex { hex: String },
}

/// Parses one file's text; a syntax or shape error becomes a `SchemaError` with its position
/// and, when the text is valid TOML, the path of the field it is about (serde only gives a
/// span, and "missing field `name`" alone does not say which component lacks it).
pub fn parse(file: &std::path::Path, text: &str) -> Result<RawSchema, crate::error::SchemaError> {
    toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
        let mut field = e
            .span()
            .map(|s| field_at(text, s.start))
            .unwrap_or_default();
        // A missing field is reported at its table: the path names the field itself.
        if let Some(missing) = e
            .message()
            .strip_prefix("missing field `")
            .and_then(|m| m.strip_suffix('`'))
        {
            if !field.is_empty() {
                field.push('.');
            }
            field.push_str(missing);
        }
        crate::error::SchemaError {
            file: file.to_path_buf(),
            line,
            column,
            field,
            message: e.message().to_string(),
        }
    })
}

/// The dotted path (`tables.orders.key.components[1]`) of the deepest key or value whose span
/// holds `offset`; empty when the text is not TOML or nothing holds it. Tables declared by a
/// `[header]` span only their header, so a value below one is found through its own span.
pub fn field_at(text: &str, offset: usize) -> String {
    let Ok(root) = toml::de::DeTable::parse(text) else {
        return String::new();
    };
    let mut best = (0, String::new());
    walk_table(root.get_ref(), "", 0, offset, &mut best);
    best.1
}

fn holds(span: std::ops::Range<usize>, offset: usize) -> bool {
    span.start <= offset && (offset < span.end || span.is_empty() && offset == span.start)
}

/// Records `path` in `best` when it holds `offset` and is deeper than what `best` has.
fn consider(
    path: &str,
    depth: usize,
    span: std::ops::Range<usize>,
    offset: usize,
    best: &mut (usize, String),
) {
    if holds(span, offset) && depth > best.0 {
        *best = (depth, path.to_string());
    }
}

fn walk_table(
    t: &toml::de::DeTable<'_>,
    path: &str,
    depth: usize,
    offset: usize,
    best: &mut (usize, String),
) {
    for (k, v) in t {
        let p = if path.is_empty() {
            k.get_ref().to_string()
        } else {
            format!("{path}.{}", k.get_ref())
        };
        consider(&p, depth + 1, k.span(), offset, best);
        walk_value(v, &p, depth + 1, offset, best);
    }
}

fn walk_value(
    v: &Spanned<toml::de::DeValue<'_>>,
    path: &str,
    depth: usize,
    offset: usize,
    best: &mut (usize, String),
) {
    consider(path, depth, v.span(), offset, best);
    match v.get_ref() {
        toml::de::DeValue::Table(t) => walk_table(t, path, depth, offset, best),
        toml::de::DeValue::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                walk_value(item, &format!("{path}[{i}]"), depth + 1, offset, best);
            }
        }
        _ => {}
    }
}

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
