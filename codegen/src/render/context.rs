//! The language-neutral template context: the model as JSON plus the derived facts templates
//! would otherwise compute (flattened columns, counter lists, kept components, literals as hex).
//! Its shape is documented in docs/schema.md ("Template context"); keep the two in step.

use serde_json::{json, Value as Json};

use crate::model::{HashForm, Layout, Model, Qualifier, SaltForm, ScalarType, Table};

/// `{ package, header, tables: [table...] }`.
pub fn model(model: &Model) -> Json {
    json!({
        "package": model.package,
        "header": super::HEADER,
        "tables": model.tables.iter().map(table).collect::<Vec<_>>(),
    })
}

/// One table's context (also given alone to per-table templates as `table`).
pub fn table(t: &Table) -> Json {
    let mut columns = Vec::new();
    for f in &t.families {
        for c in &f.columns {
            let (qualifier, pattern) = match &c.qualifier {
                Qualifier::Fixed { qualifier } => (
                    json!({"kind": "fixed", "qualifier": qualifier, "qualifier_hex": crate::hex::encode(qualifier.as_bytes())}),
                    false,
                ),
                Qualifier::Pattern {
                    prefix,
                    part_name,
                    part_type,
                    part_width,
                    suffix,
                } => (
                    json!({
                        "kind": "pattern", "prefix": prefix, "part_name": part_name,
                        "part_type": part_type, "part_kind": kind(*part_type),
                        "part_bits": if *part_type == ScalarType::I32 { 32 } else { 64 },
                        "part_width": part_width, "suffix": suffix,
                        "prefix_hex": crate::hex::encode(prefix.as_bytes()),
                        "suffix_hex": crate::hex::encode(suffix.as_bytes()),
                    }),
                    true,
                ),
            };
            columns.push(json!({
                "field": c.field, "doc": c.doc, "doc_lines": lines(&c.doc), "type": c.ty, "kind": kind(c.ty), "family": f.name,
                "family_hex": crate::hex::encode(f.name.as_bytes()),
                "qualifier": qualifier, "is_pattern": pattern,
                "is_counter": c.ty == ScalarType::Counter,
            }));
        }
    }
    let k = &t.key;
    let components: Vec<Json> = k
        .components
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({
                "index": i, "name": c.name, "doc": c.doc, "doc_lines": lines(&c.doc), "type": c.ty, "kind": kind(c.ty),
                "width": c.width,
                "charset": c.charset, "escape": c.escape, "desc": c.desc, "reverse": c.reverse,
                "reverse_timestamp": c.reverse_timestamp, "kept": c.kept,
                "first": i == 0, "last": i + 1 == k.components.len(),
            })
        })
        .collect();
    let (layout, separator) = match k.layout {
        Layout::Separated { separator } => ("separated", Some(separator.to_string())),
        Layout::Fixed => ("fixed", None),
        Layout::Binary => ("binary", None),
    };
    let hash = k.hash.as_ref().map(|h| {
        let (form, n) = match h.form {
            HashForm::HexChars(n) => ("hex_chars", n),
            HashForm::Bytes(n) => ("bytes", n),
        };
        json!({
            "components": h.components.iter().map(|&i| k.components[i].name.clone()).collect::<Vec<_>>(),
            "form": form, "n": n, "keep": h.keep,
        })
    });
    let salt = k.salt.as_ref().map(|s| match &s.form {
        SaltForm::Byte => json!({"buckets": s.buckets, "form": "byte", "alphabet": null}),
        SaltForm::Char { alphabet } => {
            json!({"buckets": s.buckets, "form": "char", "alphabet": alphabet})
        }
    });
    let families: Vec<Json> = t
        .families
        .iter()
        .map(|f| {
            json!({
                "name": f.name, "name_hex": crate::hex::encode(f.name.as_bytes()), "doc": f.doc,
                "settings": f.settings,
                "configuration": f.settings.configuration.iter().map(|(k, v)| json!({"key": k, "value": v})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "id": t.id, "name": t.name, "namespace": t.namespace, "doc": t.doc,
        "doc_lines": lines(&t.doc),
        "source": t.source.file_name().map(|s| s.to_string_lossy().into_owned()),
        "families": families,
        "columns": columns,
        "counters": columns.iter().filter(|c| c["is_counter"] == true).cloned().collect::<Vec<_>>(),
        "key": {
            "layout": layout, "separator": separator, "components": components,
            "kept": k.components.iter().filter(|c| c.kept).map(|c| c.name.clone()).collect::<Vec<_>>(),
            "hash": hash, "salt": salt,
        },
        "splits_hex": t.splits.iter().map(|s| crate::hex::encode(s)).collect::<Vec<_>>(),
        "splits_derived": t.splits_derived,
    })
}

/// The value's shape, for languages whose types are coarser than the schema's:
/// `string`, `bytes`, `int` (i32, i64, timestamp-ms, counter), `float`, `bool` or `json`.
pub fn kind(ty: ScalarType) -> &'static str {
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
