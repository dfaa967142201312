//! The generated READMEs' quick start: one table of the SDK with a sample value for every key
//! component (values its rules accept) and one plain column to write, so each language's README
//! shows a complete program that its suite extracts, compiles and runs against a live server.

use serde::Serialize;

use crate::model::{Charset, Component, Layout, Model, Qualifier, ScalarType, Table};

#[derive(Debug, Serialize)]
pub struct ExampleContext<'a> {
    /// The table's id (templates spell its types with `type_name`).
    pub table: &'a str,
    /// The table's HBase name.
    pub name: &'a str,
    /// One sample per key component, in declaration order.
    pub components: Vec<Sample<'a>>,
    /// A column to write and read back, if the table has a plain (non-pattern, non-json) one.
    pub column: Option<Sample<'a>>,
}

/// A typed sample value as text every language spells with its own literal syntax: a string's
/// text, bytes as hex, a number in decimal, `true`.
#[derive(Debug, Serialize)]
pub struct Sample<'a> {
    /// The component name or column field.
    pub name: &'a str,
    #[serde(rename = "type")]
    pub ty: ScalarType,
    /// `string`, `bytes`, `int`, `float` or `bool`.
    pub kind: &'static str,
    /// A 64-bit integer (i64, timestamp-ms, counter): `bigint` in TypeScript, `long` in Java.
    pub wide: bool,
    pub text: String,
}

impl<'a> ExampleContext<'a> {
    /// The quick start of the model's first table (tables are sorted by id).
    pub fn new(model: &'a Model) -> Option<Self> {
        let t = model.tables.first()?;
        let components = t
            .key
            .components
            .iter()
            .map(|c| Sample {
                name: &c.name,
                ty: c.ty,
                kind: kind(c.ty),
                wide: wide(c.ty),
                text: component_sample(t, c),
            })
            .collect();
        Some(ExampleContext {
            table: &t.id,
            name: &t.name,
            components,
            column: column_sample(t),
        })
    }
}

fn kind(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::String | ScalarType::Json => "string",
        ScalarType::Bytes => "bytes",
        ScalarType::F32 | ScalarType::F64 => "float",
        ScalarType::Bool => "bool",
        _ => "int",
    }
}

fn wide(ty: ScalarType) -> bool {
    matches!(
        ty,
        ScalarType::I64 | ScalarType::TimestampMs | ScalarType::Counter
    )
}

/// A value the component's rules accept: within its charset and width, a timestamp for
/// timestamps, exactly `width` bytes for fixed bytes.
fn component_sample(t: &Table, c: &Component) -> String {
    let fit = |s: &str| -> String {
        let w = c.width.map_or(usize::MAX, |w| w as usize);
        s.chars().take(w.max(1)).collect()
    };
    match c.ty {
        ScalarType::String => fit(match c.charset {
            Charset::Hex => "cafe",
            Charset::Digits => "2024",
            _ => "example",
        }),
        ScalarType::Bytes => match (t.key.layout, c.width) {
            (Layout::Fixed, Some(w)) => "ab".repeat(w as usize),
            _ => "cafe".into(),
        },
        ScalarType::F32 | ScalarType::F64 => "1.5".into(),
        // Integers: a timestamp where its width allows one, else a number within the width.
        _ => match c.width {
            Some(1) => "4".into(),
            Some(w) if w < 13 => "42".into(),
            _ if c.ty == ScalarType::TimestampMs => "1700000000000".into(),
            _ => "42".into(),
        },
    }
}

fn column_sample(t: &Table) -> Option<Sample<'_>> {
    t.families
        .iter()
        .flat_map(|f| &f.columns)
        .find(|c| matches!(c.qualifier, Qualifier::Fixed { .. }) && c.ty != ScalarType::Json)
        .map(|c| Sample {
            name: &c.field,
            ty: c.ty,
            kind: kind(c.ty),
            wide: wide(c.ty),
            text: match c.ty {
                ScalarType::String => "hello".into(),
                ScalarType::Bytes => "cafe".into(),
                ScalarType::TimestampMs => "1700000000000".into(),
                ScalarType::F32 | ScalarType::F64 => "1.5".into(),
                ScalarType::Bool => "true".into(),
                _ => "1".into(),
            },
        })
}

/// Whether `go get` can fetch a module path: its first element must hold a dot (a host name).
pub fn go_module_fetchable(path: &str) -> bool {
    path.split('/')
        .next()
        .is_some_and(|host| host.contains('.'))
}
