//! Stage 2: the validated model every renderer and the reference encodings work from. Names
//! are checked, defaults filled in, families and tables sorted (`validate`); the splits stage
//! (`crate::splits`) then fills in derived split keys.

mod family_rules;
mod key_rules;
mod types;
mod validate;

/// The pipeline that produces a model lives at the crate root (`crate::load`); it is here too
/// because callers look for it beside the model.
pub use crate::load::{load, load_sources};
pub use types::ScalarType;
pub(crate) use validate::validate;

use serde::Serialize;
use std::path::PathBuf;

/// Every table of one SDK.
#[derive(Debug, Clone)]
pub struct Model {
    /// The SDK package name (snake_case).
    pub package: String,
    /// The SDK version, `MAJOR.MINOR.PATCH` (default `0.1.0`).
    pub version: String,
    /// The Go module path before any `/vN` (the schema's `go_module`, default the package).
    pub go_module: String,
    /// Sorted by `id`.
    pub tables: Vec<Table>,
}

#[derive(Debug, Clone)]
pub struct Table {
    /// The table's key in the schema (`tables.<id>`), snake_case; names the generated types.
    pub id: String,
    pub namespace: String,
    /// The HBase table name.
    pub name: String,
    pub doc: String,
    /// The schema file, relative as given.
    pub source: PathBuf,
    /// Sorted by name.
    pub families: Vec<Family>,
    pub key: KeyDesign,
    /// Split keys, ascending: the schema's, or derived from the key design.
    pub splits: Vec<Vec<u8>>,
    /// The schema gives no split keys: the splits stage derives them after validation.
    pub splits_derived: bool,
}

#[derive(Debug, Clone)]
pub struct Family {
    pub name: String,
    pub doc: String,
    pub settings: FamilySettings,
    /// Sorted by field name.
    pub columns: Vec<Column>,
}

/// A family's descriptor attributes; `None` leaves HBase's default.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FamilySettings {
    pub max_versions: Option<i32>,
    pub min_versions: Option<i32>,
    pub ttl_seconds: Option<i32>,
    /// `FALSE`, `TRUE` or `TTL` (Thrift2's TKeepDeletedCells names).
    pub keep_deleted_cells: Option<String>,
    pub in_memory: Option<bool>,
    pub block_cache: Option<bool>,
    pub block_size: Option<i32>,
    /// Thrift2's TBloomFilterType name.
    pub bloom_filter: Option<String>,
    /// Thrift2's TCompressionAlgorithm name.
    pub compression: Option<String>,
    /// Thrift2's TDataBlockEncoding name.
    pub data_block_encoding: Option<String>,
    pub scope: Option<i32>,
    pub dfs_replication: Option<i16>,
    pub configuration: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
pub struct Column {
    /// The field name in the row type (snake_case).
    pub field: String,
    pub doc: String,
    pub ty: ScalarType,
    pub qualifier: Qualifier,
}

#[derive(Debug, Clone)]
pub enum Qualifier {
    /// One cell per row under this qualifier.
    Fixed { qualifier: String },
    /// Many cells, `prefix{part}suffix`, read as a map from part to value.
    Pattern {
        prefix: String,
        part_name: String,
        part_type: ScalarType,
        part_width: Option<u32>,
        suffix: String,
    },
}

#[derive(Debug, Clone)]
pub struct KeyDesign {
    /// The table's id: errors name the key they refuse a value for.
    pub table: String,
    pub layout: Layout,
    /// In declaration order.
    pub components: Vec<Component>,
    pub hash: Option<HashPrefix>,
    pub salt: Option<Salt>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Fields as text joined by one ASCII separator.
    Separated { separator: char },
    /// Fields as fixed-width text or bytes, concatenated.
    Fixed,
    /// The order-preserving binary encoding, concatenated.
    Binary,
}

#[derive(Debug, Clone)]
pub struct Component {
    pub name: String,
    pub doc: String,
    pub ty: ScalarType,
    pub width: Option<u32>,
    pub charset: Charset,
    pub escape: bool,
    pub desc: bool,
    pub reverse: Option<Reverse>,
    pub reverse_timestamp: bool,
    /// An empty string or bytes value is accepted (`allow_empty = true`); otherwise encoders
    /// refuse it, so a forgotten field cannot silently become an empty one.
    pub allow_empty: bool,
    /// False when a hash prefix replaces it (`hash.keep = false`).
    pub kept: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Charset {
    Any,
    /// `[0-9A-Za-z]`
    Alnum,
    /// `[0-9A-Za-z_]`
    Word,
    /// `[0-9a-f]`
    Hex,
    /// `[0-9]`
    Digits,
}

impl Charset {
    pub fn allows(self, c: char) -> bool {
        match self {
            Charset::Any => true,
            Charset::Alnum => c.is_ascii_alphanumeric(),
            Charset::Word => c.is_ascii_alphanumeric() || c == '_',
            Charset::Hex => c.is_ascii_digit() || ('a'..='f').contains(&c),
            Charset::Digits => c.is_ascii_digit(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reverse {
    /// The characters (Unicode scalar values) in reverse order.
    Chars,
    /// The `.`-separated segments in reverse order (`www.example.com` -> `com.example.www`).
    Segments,
}

#[derive(Debug, Clone)]
pub struct HashPrefix {
    /// Indexes into `KeyDesign::components`, in the order the schema names them.
    pub components: Vec<usize>,
    pub form: HashForm,
    pub keep: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashForm {
    /// The first N lowercase hex characters of the MD5 digest (1..=32).
    HexChars(u32),
    /// The first N bytes of the MD5 digest (1..=16).
    Bytes(u32),
}

#[derive(Debug, Clone)]
pub struct Salt {
    pub buckets: u32,
    pub form: SaltForm,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaltForm {
    /// One byte, the bucket number.
    Byte,
    /// One ASCII character, `alphabet[bucket]`.
    Char { alphabet: String },
}

impl Layout {
    pub fn separator(self) -> Option<char> {
        match self {
            Layout::Separated { separator } => Some(separator),
            _ => None,
        }
    }
}

impl KeyDesign {
    pub fn separator(&self) -> Option<char> {
        self.layout.separator()
    }
}
