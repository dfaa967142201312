//! The shape of a schema file (which keys each table may hold, which are required, which value
//! types they take), checked over the whole parsed TOML before serde reads it. Serde stops at
//! the first unknown, missing or mistyped field; this walk reports every one of every file at
//! once, in serde's words, each with its line and full field path. `schema.rs`'s structs are
//! the other half of the contract: a test parses every example schema through both.

use std::ops::Range;
use std::path::Path;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::error::SchemaError;
use crate::schema::line_col;

/// What a value must be.
#[derive(Clone, Copy)]
enum Ty {
    Str,
    Int,
    Bool,
    /// Checked by the model's rules (`keep_deleted_cells`: a bool or `"ttl"`; split keys).
    Any,
    Table(&'static [Field]),
    /// A table of arbitrary keys, each value of the given type.
    Map(&'static Ty),
    Array(&'static Ty),
}

#[derive(Clone, Copy)]
struct Field {
    name: &'static str,
    required: bool,
    ty: Ty,
}

const fn req(name: &'static str, ty: Ty) -> Field {
    Field {
        name,
        required: true,
        ty,
    }
}

const fn opt(name: &'static str, ty: Ty) -> Field {
    Field {
        name,
        required: false,
        ty,
    }
}

const COLUMN: &[Field] = &[
    opt("doc", Ty::Str),
    opt("qualifier", Ty::Str),
    req("type", Ty::Str),
    opt("part_type", Ty::Str),
    opt("part_width", Ty::Int),
];

const FAMILY: &[Field] = &[
    opt("doc", Ty::Str),
    opt("max_versions", Ty::Int),
    opt("min_versions", Ty::Int),
    opt("ttl_seconds", Ty::Int),
    opt("keep_deleted_cells", Ty::Any),
    opt("in_memory", Ty::Bool),
    opt("block_cache", Ty::Bool),
    opt("block_size", Ty::Int),
    opt("bloom_filter", Ty::Str),
    opt("compression", Ty::Str),
    opt("data_block_encoding", Ty::Str),
    opt("scope", Ty::Int),
    opt("dfs_replication", Ty::Int),
    opt("configuration", Ty::Map(&Ty::Str)),
    opt("columns", Ty::Map(&Ty::Table(COLUMN))),
];

const COMPONENT: &[Field] = &[
    req("name", Ty::Str),
    req("type", Ty::Str),
    opt("doc", Ty::Str),
    opt("width", Ty::Int),
    opt("charset", Ty::Str),
    opt("escape", Ty::Bool),
    opt("order", Ty::Str),
    opt("reverse", Ty::Str),
    opt("reverse_timestamp", Ty::Bool),
    opt("allow_empty", Ty::Bool),
];

const HASH: &[Field] = &[
    req("components", Ty::Array(&Ty::Str)),
    opt("hex_chars", Ty::Int),
    opt("bytes", Ty::Int),
    opt("keep", Ty::Bool),
];

const SALT: &[Field] = &[
    req("buckets", Ty::Int),
    req("encoding", Ty::Str),
    opt("alphabet", Ty::Str),
];

const KEY: &[Field] = &[
    req("layout", Ty::Str),
    opt("separator", Ty::Str),
    req("components", Ty::Array(&Ty::Table(COMPONENT))),
    opt("hash", Ty::Table(HASH)),
    opt("salt", Ty::Table(SALT)),
];

const SPLITS: &[Field] = &[req("keys", Ty::Array(&Ty::Any))];

const TABLE: &[Field] = &[
    opt("name", Ty::Str),
    opt("namespace", Ty::Str),
    opt("doc", Ty::Str),
    opt("families", Ty::Map(&Ty::Table(FAMILY))),
    req("key", Ty::Table(KEY)),
    opt("splits", Ty::Table(SPLITS)),
];

const SCHEMA: &[Field] = &[
    opt("package", Ty::Str),
    opt("version", Ty::Str),
    opt("go_module", Ty::Str),
    req("tables", Ty::Map(&Ty::Table(TABLE))),
];

/// Every shape error of one file's text (none when it is not TOML: the parser reports that).
pub fn check(file: &Path, text: &str) -> Vec<SchemaError> {
    let Ok(root) = DeTable::parse(text) else {
        return Vec::new();
    };
    let mut walk = Walk {
        file,
        text,
        errors: Vec::new(),
    };
    walk.table(root.get_ref(), root.span(), "", SCHEMA);
    walk.errors.sort_by_key(|e| (e.line, e.column));
    walk.errors
}

struct Walk<'a> {
    file: &'a Path,
    text: &'a str,
    errors: Vec<SchemaError>,
}

impl Walk<'_> {
    fn err(&mut self, span: Range<usize>, field: &str, message: String) {
        let (line, column) = line_col(self.text, span.start);
        self.errors.push(SchemaError {
            file: self.file.to_path_buf(),
            line,
            column,
            field: field.to_string(),
            message,
        });
    }

    fn table(&mut self, t: &DeTable<'_>, span: Range<usize>, path: &str, fields: &[Field]) {
        let join = |k: &str| {
            if path.is_empty() {
                k.to_string()
            } else {
                format!("{path}.{k}")
            }
        };
        for (k, v) in t {
            let name = k.get_ref().as_ref();
            match fields.iter().find(|f| f.name == name) {
                Some(f) => self.value(v, &join(name), f.ty),
                None => {
                    let expected: Vec<String> =
                        fields.iter().map(|f| format!("`{}`", f.name)).collect();
                    self.err(
                        k.span(),
                        &join(name),
                        format!(
                            "unknown field `{name}`, expected one of {}",
                            expected.join(", ")
                        ),
                    );
                }
            }
        }
        for f in fields.iter().filter(|f| f.required) {
            if !t.iter().any(|(k, _)| k.get_ref().as_ref() == f.name) {
                self.err(
                    span.clone(),
                    &join(f.name),
                    format!("missing field `{}`", f.name),
                );
            }
        }
    }

    fn value(&mut self, v: &Spanned<DeValue<'_>>, path: &str, ty: Ty) {
        let ok = match (ty, v.get_ref()) {
            (Ty::Any, _) => true,
            (Ty::Str, DeValue::String(_))
            | (Ty::Int, DeValue::Integer(_))
            | (Ty::Bool, DeValue::Boolean(_)) => true,
            (Ty::Table(fields), DeValue::Table(t)) => {
                self.table(t, v.span(), path, fields);
                true
            }
            (Ty::Map(each), DeValue::Table(t)) => {
                for (k, item) in t {
                    self.value(item, &format!("{path}.{}", k.get_ref()), *each);
                }
                true
            }
            (Ty::Array(each), DeValue::Array(a)) => {
                for (i, item) in a.iter().enumerate() {
                    self.value(item, &format!("{path}[{i}]"), *each);
                }
                true
            }
            _ => false,
        };
        if !ok {
            let expected = match ty {
                Ty::Str => "a string",
                Ty::Int => "i64",
                Ty::Bool => "a boolean",
                Ty::Table(_) | Ty::Map(_) => "a table",
                Ty::Array(_) => "an array",
                Ty::Any => "a value",
            };
            let found = found(v.get_ref());
            self.err(
                v.span(),
                path,
                format!("invalid type: {found}, expected {expected}"),
            );
        }
    }
}

/// A value as serde's "invalid type" messages name it.
fn found(v: &DeValue<'_>) -> String {
    match v {
        DeValue::String(s) => format!("string {:?}", s.as_ref()),
        DeValue::Integer(i) => format!("integer `{i}`"),
        DeValue::Float(f) => format!("floating point `{f}`"),
        DeValue::Boolean(b) => format!("boolean `{b}`"),
        DeValue::Datetime(d) => format!("datetime `{d}`"),
        DeValue::Array(_) => "sequence".into(),
        DeValue::Table(_) => "map".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every example schema passes the shape check and serde alike: the two agree on them.
    #[test]
    fn the_example_schemas_have_the_shape() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../sdks/schemas");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(check(&path, &text), Vec::new(), "{}", path.display());
            crate::schema::parse(&path, &text).unwrap();
        }
    }
}
