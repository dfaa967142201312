//! The template context: typed structs built once from the model, which every language's
//! templates see as JSON. They hold what templates cannot work out by themselves (flattened
//! columns, counters, kept components, hash indices, key prefixes, literals as hex), so
//! templates only arrange text and naming providers spell names. The JSON shape is documented in
//! docs/schema.md ("Template context"); keep the two in step.

use serde::Serialize;

use crate::model::{
    Charset, Column, Component, Family, FamilySettings, HashForm, HashPrefix, KeyDesign, Layout,
    Model, Qualifier, Reverse, Salt, SaltForm, ScalarType, Table,
};

/// Package-level templates: `{ package, version, go_module, header, tables }`.
#[derive(Debug, Serialize)]
pub struct SdkContext<'a> {
    pub package: &'a str,
    /// The SDK version from the schema (`MAJOR.MINOR.PATCH`).
    pub version: &'a str,
    /// The Go module path before `/vN` (the schema's `go_module`, default the package).
    pub go_module: &'a str,
    pub header: &'static str,
    /// Sorted by id, as the model.
    pub tables: Vec<TableContext<'a>>,
    /// Whether `go get` can fetch `go_module` (its first path element holds a dot).
    pub go_module_fetchable: bool,
    /// The README's quick start (`render::example`): the first table with sample values.
    pub example: Option<super::example::ExampleContext<'a>>,
}

/// Per-table templates: `{ package, version, table }`.
#[derive(Debug, Serialize)]
pub struct TableFile<'a> {
    pub package: &'a str,
    /// The SDK's version, for languages whose import paths carry the major version (Go).
    pub version: &'a str,
    /// The Go module path before `/vN`.
    pub go_module: &'a str,
    pub table: &'a TableContext<'a>,
}

/// What one template renders with: the whole SDK or one of its tables.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum TemplateContext<'a> {
    Sdk(&'a SdkContext<'a>),
    Table(TableFile<'a>),
}

#[derive(Debug, Serialize)]
pub struct TableContext<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub namespace: &'a str,
    pub doc: &'a str,
    pub doc_lines: Vec<&'a str>,
    /// The schema's file name (not its directory: output must not depend on where it lives).
    pub source: Option<String>,
    pub families: Vec<FamilyContext<'a>>,
    /// Every family's columns, by family then field.
    pub columns: Vec<ColumnContext<'a>>,
    /// The counter columns of `columns`.
    pub counters: Vec<ColumnContext<'a>>,
    pub key: KeyContext<'a>,
    pub splits_hex: Vec<String>,
    pub splits_derived: bool,
}

#[derive(Debug, Serialize)]
pub struct FamilyContext<'a> {
    pub name: &'a str,
    pub name_hex: String,
    pub doc: &'a str,
    pub settings: &'a FamilySettings,
    /// `settings.configuration` as named pairs, which templates can address.
    pub configuration: Vec<ConfigEntry<'a>>,
}

#[derive(Debug, Serialize)]
pub struct ConfigEntry<'a> {
    pub key: &'a str,
    pub value: &'a str,
}

#[derive(Debug, Clone, Serialize)]
pub struct ColumnContext<'a> {
    pub field: &'a str,
    pub doc: &'a str,
    pub doc_lines: Vec<&'a str>,
    #[serde(rename = "type")]
    pub ty: ScalarType,
    pub kind: &'static str,
    pub family: &'a str,
    pub family_hex: String,
    pub qualifier: QualifierContext<'a>,
    pub is_pattern: bool,
    pub is_counter: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QualifierContext<'a> {
    Fixed {
        qualifier: &'a str,
        qualifier_hex: String,
    },
    Pattern {
        prefix: &'a str,
        prefix_hex: String,
        part_name: &'a str,
        part_type: ScalarType,
        part_kind: &'static str,
        /// 32 for i32 parts, else 64: the integer width SDKs parse a part into.
        part_bits: u32,
        part_width: Option<u32>,
        suffix: &'a str,
        suffix_hex: String,
    },
}

#[derive(Debug, Serialize)]
pub struct KeyContext<'a> {
    /// `separated`, `fixed` or `binary`.
    pub layout: &'static str,
    pub separator: Option<String>,
    /// In declaration order.
    pub components: Vec<ComponentContext<'a>>,
    /// The names of the kept components.
    pub kept: Vec<&'a str>,
    pub hash: Option<HashContext<'a>>,
    pub salt: Option<SaltContext<'a>>,
    /// The leading components of every prefix scan, none first, all last: one overload each
    /// for languages without optional arguments.
    pub prefixes: Vec<PrefixContext<'a>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ComponentContext<'a> {
    pub index: usize,
    pub name: &'a str,
    pub doc: &'a str,
    pub doc_lines: Vec<&'a str>,
    #[serde(rename = "type")]
    pub ty: ScalarType,
    pub kind: &'static str,
    pub width: Option<u32>,
    pub charset: Charset,
    pub escape: bool,
    pub desc: bool,
    pub reverse: Option<Reverse>,
    pub reverse_timestamp: bool,
    pub allow_empty: bool,
    pub kept: bool,
    pub first: bool,
    pub last: bool,
}

#[derive(Debug, Serialize)]
pub struct HashContext<'a> {
    /// The hashed components' names, in the order the schema names them.
    pub components: Vec<&'a str>,
    /// The same components as indexes into `key.components`.
    pub indices: Vec<usize>,
    /// `hex_chars` or `bytes`.
    pub form: &'static str,
    pub n: u32,
    pub keep: bool,
}

#[derive(Debug, Serialize)]
pub struct SaltContext<'a> {
    pub buckets: u32,
    /// `byte` or `char`.
    pub form: &'static str,
    /// The bucket characters of the `char` form.
    pub alphabet: Option<&'a str>,
}

#[derive(Debug, Serialize)]
pub struct PrefixContext<'a> {
    pub components: Vec<ComponentContext<'a>>,
}

impl<'a> SdkContext<'a> {
    pub fn new(model: &'a Model) -> Self {
        SdkContext {
            package: &model.package,
            version: &model.version,
            go_module: &model.go_module,
            header: super::HEADER,
            tables: model.tables.iter().map(TableContext::new).collect(),
            go_module_fetchable: super::example::go_module_fetchable(&model.go_module),
            example: super::example::ExampleContext::new(model),
        }
    }
}

impl<'a> TemplateContext<'a> {
    /// A per-table template's context.
    pub fn table(sdk: &'a SdkContext<'a>, table: &'a TableContext<'a>) -> Self {
        TemplateContext::Table(TableFile {
            package: sdk.package,
            version: sdk.version,
            go_module: sdk.go_module,
            table,
        })
    }
}

impl<'a> TableContext<'a> {
    pub fn new(t: &'a Table) -> Self {
        let columns: Vec<ColumnContext<'a>> = t
            .families
            .iter()
            .flat_map(|f| f.columns.iter().map(move |c| ColumnContext::new(f, c)))
            .collect();
        TableContext {
            id: &t.id,
            name: &t.name,
            namespace: &t.namespace,
            doc: &t.doc,
            doc_lines: lines(&t.doc),
            source: t
                .source
                .file_name()
                .map(|s| s.to_string_lossy().into_owned()),
            families: t.families.iter().map(FamilyContext::new).collect(),
            counters: columns.iter().filter(|c| c.is_counter).cloned().collect(),
            columns,
            key: KeyContext::new(&t.key),
            splits_hex: t.splits.iter().map(|s| crate::hex::encode(s)).collect(),
            splits_derived: t.splits_derived,
        }
    }
}

impl<'a> FamilyContext<'a> {
    fn new(f: &'a Family) -> Self {
        FamilyContext {
            name: &f.name,
            name_hex: hex(&f.name),
            doc: &f.doc,
            settings: &f.settings,
            configuration: f
                .settings
                .configuration
                .iter()
                .map(|(key, value)| ConfigEntry { key, value })
                .collect(),
        }
    }
}

impl<'a> ColumnContext<'a> {
    fn new(f: &'a Family, c: &'a Column) -> Self {
        ColumnContext {
            field: &c.field,
            doc: &c.doc,
            doc_lines: lines(&c.doc),
            ty: c.ty,
            kind: kind(c.ty),
            family: &f.name,
            family_hex: hex(&f.name),
            qualifier: QualifierContext::new(&c.qualifier),
            is_pattern: matches!(c.qualifier, Qualifier::Pattern { .. }),
            is_counter: c.ty == ScalarType::Counter,
        }
    }
}

impl<'a> QualifierContext<'a> {
    fn new(q: &'a Qualifier) -> Self {
        match q {
            Qualifier::Fixed { qualifier } => QualifierContext::Fixed {
                qualifier,
                qualifier_hex: hex(qualifier),
            },
            Qualifier::Pattern {
                prefix,
                part_name,
                part_type,
                part_width,
                suffix,
            } => QualifierContext::Pattern {
                prefix,
                prefix_hex: hex(prefix),
                part_name,
                part_type: *part_type,
                part_kind: kind(*part_type),
                part_bits: if *part_type == ScalarType::I32 {
                    32
                } else {
                    64
                },
                part_width: *part_width,
                suffix,
                suffix_hex: hex(suffix),
            },
        }
    }
}

impl<'a> KeyContext<'a> {
    fn new(k: &'a KeyDesign) -> Self {
        let components: Vec<ComponentContext<'a>> = k
            .components
            .iter()
            .enumerate()
            .map(|(i, c)| ComponentContext::new(i, c, k.components.len()))
            .collect();
        let (layout, separator) = match k.layout {
            Layout::Separated { separator } => ("separated", Some(separator.to_string())),
            Layout::Fixed => ("fixed", None),
            Layout::Binary => ("binary", None),
        };
        KeyContext {
            layout,
            separator,
            kept: k
                .components
                .iter()
                .filter(|c| c.kept)
                .map(|c| c.name.as_str())
                .collect(),
            hash: k.hash.as_ref().map(|h| HashContext::new(k, h)),
            salt: k.salt.as_ref().map(SaltContext::new),
            prefixes: (0..=components.len())
                .map(|n| PrefixContext {
                    components: components[..n].to_vec(),
                })
                .collect(),
            components,
        }
    }
}

impl<'a> ComponentContext<'a> {
    fn new(index: usize, c: &'a Component, count: usize) -> Self {
        ComponentContext {
            index,
            name: &c.name,
            doc: &c.doc,
            doc_lines: lines(&c.doc),
            ty: c.ty,
            kind: kind(c.ty),
            width: c.width,
            charset: c.charset,
            escape: c.escape,
            desc: c.desc,
            reverse: c.reverse,
            reverse_timestamp: c.reverse_timestamp,
            allow_empty: c.allow_empty,
            kept: c.kept,
            first: index == 0,
            last: index + 1 == count,
        }
    }
}

impl<'a> HashContext<'a> {
    fn new(k: &'a KeyDesign, h: &'a HashPrefix) -> Self {
        let (form, n) = match h.form {
            HashForm::HexChars(n) => ("hex_chars", n),
            HashForm::Bytes(n) => ("bytes", n),
        };
        HashContext {
            components: h
                .components
                .iter()
                .map(|&i| k.components[i].name.as_str())
                .collect(),
            indices: h.components.clone(),
            form,
            n,
            keep: h.keep,
        }
    }
}

impl<'a> SaltContext<'a> {
    fn new(s: &'a Salt) -> Self {
        let (form, alphabet) = match &s.form {
            SaltForm::Byte => ("byte", None),
            SaltForm::Char { alphabet } => ("char", Some(alphabet.as_str())),
        };
        SaltContext {
            buckets: s.buckets,
            form,
            alphabet,
        }
    }
}

/// The value's shape, for languages whose types are coarser than the schema's:
/// `string`, `bytes`, `int` (i32, i64, timestamp-ms, counter), `float`, `bool` or `json`.
fn kind(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::String => "string",
        ScalarType::Bytes => "bytes",
        ScalarType::F32 | ScalarType::F64 => "float",
        ScalarType::Bool => "bool",
        ScalarType::Json => "json",
        _ => "int",
    }
}

/// A doc text as lines, so templates can put each behind the language's comment marker.
fn lines(doc: &str) -> Vec<&str> {
    doc.lines().map(str::trim_end).collect()
}

/// A name's bytes as hex, for templates to pass to `bytes_lit`.
fn hex(text: &str) -> String {
    crate::hex::encode(text.as_bytes())
}
