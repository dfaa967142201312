//! The shared test vectors (sdks/vectors/*.json), computed by the reference encodings from the
//! example schemas. Every SDK's vector runner must reproduce them byte for byte; the format is
//! in docs/schema.md ("Test vectors").

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{json, Map, Value as Json};

use crate::cells;
use crate::keys;
use crate::model::{Charset, Component, HashForm, Layout, Model, Qualifier, ScalarType, Table};
use crate::typed_value::Value;

mod bounds;
mod filters;
mod merge;
pub use bounds::{bounds_cases, BoundsCase};
pub use filters::filter_cases;
use filters::filter_vectors;

/// `keys.json`, `values.json`, `filters.json`, `bounds.json` and `merge.json`, as pretty JSON
/// with a trailing newline.
pub fn build(model: &Model) -> BTreeMap<PathBuf, String> {
    let mut key_vectors = Vec::new();
    let mut prefix_vectors = Vec::new();
    let mut error_vectors = Vec::new();
    for t in &model.tables {
        table_vectors(t, &mut key_vectors, &mut prefix_vectors, &mut error_vectors);
    }
    let keys = json!({
        "format": 1,
        "about": "Row-key vectors from the redbase codegen reference; see docs/schema.md, Test vectors.",
        "package": model.package,
        "keys": key_vectors,
        "prefixes": prefix_vectors,
        "errors": error_vectors,
    });
    let mut value_vectors = Vec::new();
    for (ty, v) in value_samples() {
        if let Ok(b) = cells::encode_value(ty, &v) {
            value_vectors.push(
                json!({"type": ty.name(), "value": v.to_json(ty), "hex": crate::hex::encode(&b)}),
            );
        }
    }
    let mut qualifier_vectors = Vec::new();
    for t in &model.tables {
        for f in &t.families {
            for c in &f.columns {
                if let q @ Qualifier::Pattern { part_type, .. } = &c.qualifier {
                    for part in part_samples(*part_type) {
                        if let Ok(b) = cells::pattern_qualifier(q, &part) {
                            qualifier_vectors.push(json!({
                                "table": t.id, "field": c.field, "part": part.to_json(*part_type),
                                "qualifier_hex": crate::hex::encode(&b),
                            }));
                        }
                    }
                }
            }
        }
    }
    let values = json!({
        "format": 1,
        "about": "Cell value encodings (Java HBase Bytes) and pattern qualifiers; see docs/schema.md, Test vectors.",
        "values": value_vectors,
        "qualifiers": qualifier_vectors,
    });
    let filters = json!({
        "format": 1,
        "about": "Scan filters rendered to HBase's filter language (TScan.filterString); see docs/schema.md, Scan filters.",
        "package": model.package,
        "cases": filter_vectors(model),
    });
    let bounds = json!({
        "format": 1,
        "about": "Start/stop rows for key components given by value, then at most one inclusive (low, high) range; see docs/schema.md, Prefixes and ranges.",
        "package": model.package,
        "cases": bounds::bounds_vectors(model),
    });
    let merge = json!({
        "format": 1,
        "about": "The order a scan yields its per-bucket scanners' rows: merged by the key without the salt (or in bucket order when asked); see docs/schema.md, Salted scans.",
        "package": model.package,
        "cases": merge::merge_vectors(model),
    });
    let pretty = |j: &Json| serde_json::to_string_pretty(j).unwrap_or_default() + "\n";
    BTreeMap::from([
        (PathBuf::from("bounds.json"), pretty(&bounds)),
        (PathBuf::from("filters.json"), pretty(&filters)),
        (PathBuf::from("keys.json"), pretty(&keys)),
        (PathBuf::from("merge.json"), pretty(&merge)),
        (PathBuf::from("values.json"), pretty(&values)),
    ])
}

/// The components object of a vector: name → JSON-typed value.
fn components_json(t: &Table, vals: &[Value]) -> Json {
    let mut m = Map::new();
    for (c, v) in t.key.components.iter().zip(vals) {
        m.insert(c.name.clone(), v.to_json(c.ty));
    }
    Json::Object(m)
}

fn table_vectors(t: &Table, out: &mut Vec<Json>, prefixes: &mut Vec<Json>, errors: &mut Vec<Json>) {
    // Per component: the samples its rules accept, and those they refuse.
    let (samples, refused): (Vec<Vec<Value>>, Vec<Vec<Value>>) = t
        .key
        .components
        .iter()
        .map(|c| {
            component_samples(t.key.layout, c)
                .into_iter()
                .partition(|v| keys::encode_component(&t.key, c, v).is_ok())
        })
        .unzip();
    let mut inputs: Vec<Vec<Value>> = Vec::new();
    let longest = samples.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        inputs.push(
            samples
                .iter()
                .enumerate()
                .map(|(j, s)| s[(i + j) % s.len()].clone())
                .collect(),
        );
    }
    for (j, bad) in refused.iter().enumerate() {
        for b in bad.iter().take(2) {
            let mut inp: Vec<Value> = samples.iter().map(|s| s[0].clone()).collect();
            inp[j] = b.clone();
            inputs.push(inp);
        }
    }
    inputs.extend(seed_inputs(t));
    // Salted tables: keep adding keys until every bucket has one.
    if let Some(s) = &t.key.salt {
        let mut seen = vec![false; s.buckets as usize];
        let mut n = 0;
        for inp in &inputs {
            if let Ok(k) = keys::encode_key(&t.key, inp) {
                if let Ok(d) = keys::decode_key(&t.key, &k) {
                    seen[d.salt.unwrap_or(0) as usize] = true;
                }
            }
        }
        while seen.contains(&false) && n < 10_000 {
            let inp: Vec<Value> = samples
                .iter()
                .map(|s| match &s[0] {
                    Value::Str(_) => Value::Str(format!("k{n}")),
                    Value::Int(_) => Value::Int(n),
                    other => other.clone(),
                })
                .collect();
            if let Ok(k) = keys::encode_key(&t.key, &inp) {
                if let Ok(d) = keys::decode_key(&t.key, &k) {
                    let b = d.salt.unwrap_or(0) as usize;
                    if !seen[b] {
                        seen[b] = true;
                        inputs.push(inp);
                    }
                }
            }
            n += 1;
        }
    }
    for inp in &inputs {
        match keys::encode_key(&t.key, inp) {
            Ok(k) => {
                let Ok(d) = keys::decode_key(&t.key, &k) else {
                    continue;
                };
                let mut comps = Map::new();
                for (name, v) in &d.components {
                    let ty = t
                        .key
                        .components
                        .iter()
                        .find(|c| &c.name == name)
                        .map_or(ScalarType::Bytes, |c| c.ty);
                    comps.insert(name.clone(), v.to_json(ty));
                }
                let hash = d
                    .hash
                    .as_ref()
                    .map(|h| match t.key.hash.as_ref().map(|h| h.form) {
                        Some(HashForm::HexChars(_)) => {
                            Json::String(String::from_utf8_lossy(h).into_owned())
                        }
                        _ => Json::String(crate::hex::encode(h)),
                    });
                out.push(json!({
                    "table": t.id,
                    "components": components_json(t, inp),
                    "key_hex": crate::hex::encode(&k),
                    "decoded": {"salt": d.salt, "hash": hash, "components": comps},
                    "region": keys::region_index(&t.splits, &k),
                }));
            }
            Err(e) => {
                let mut v = json!({"table": t.id, "components": components_json(t, inp)});
                if let crate::EncodeError::Invalid { component, .. } = &e {
                    v["component"] = Json::String(component.clone());
                }
                errors.push(v);
            }
        }
    }
    // Prefixes over every count of leading components of the first two valid inputs.
    let valid: Vec<&Vec<Value>> = inputs
        .iter()
        .filter(|i| keys::encode_key(&t.key, i).is_ok())
        .take(2)
        .collect();
    for inp in &valid {
        for n in 0..=inp.len() {
            prefixes.push(prefix_vector(t, &inp[..n]));
        }
    }
    // A prefix ending in an empty string or bytes component: refused like a key unless the
    // component allows empty values (then it is that component's exact bytes).
    if let Some(inp) = valid.first() {
        for (j, c) in t.key.components.iter().enumerate() {
            let empty = match c.ty {
                ScalarType::String => Value::Str(String::new()),
                ScalarType::Bytes => Value::Bytes(Vec::new()),
                _ => continue,
            };
            let mut lead = inp[..=j].to_vec();
            lead[j] = empty;
            prefixes.push(prefix_vector(t, &lead));
        }
    }
}

/// One `prefixes` vector: the prefixes for `lead`, or `"error": true` when they are refused.
fn prefix_vector(t: &Table, lead: &[Value]) -> Json {
    let mut m = Map::new();
    for (c, v) in t.key.components.iter().zip(lead) {
        m.insert(c.name.clone(), v.to_json(c.ty));
    }
    match keys::prefixes(&t.key, lead) {
        Ok(ps) => json!({
            "table": t.id, "components": m,
            "prefixes_hex": ps.iter().map(|p| crate::hex::encode(p)).collect::<Vec<_>>(),
        }),
        Err(_) => json!({"table": t.id, "components": m, "error": true}),
    }
}

/// The seeds' own examples for the tables that reproduce them.
fn seed_inputs(t: &Table) -> Vec<Vec<Value>> {
    let s = |x: &str| Value::Str(x.to_string());
    match t.id.as_str() {
        "access_logs" | "access_logs_by_user" => ["dave", "elton", "fred"]
            .iter()
            .map(|u| vec![s(u), s("jericho"), Value::Int(201510)])
            .collect(),
        "events" => (1..=4).map(|n| vec![s(&format!("foo{n:04}"))]).collect(),
        _ => Vec::new(),
    }
}

/// Edge-case values for one component, in an order that varies across components.
fn component_samples(layout: Layout, c: &Component) -> Vec<Value> {
    let strs = |xs: &[&str]| {
        xs.iter()
            .map(|x| Value::Str(x.to_string()))
            .collect::<Vec<_>>()
    };
    match c.ty {
        ScalarType::String => match c.charset {
            Charset::Any => strs(&[
                "jericho",
                "",
                "a|b",
                "back\\slash",
                "x\u{0}y",
                "日本語",
                "www.example.com",
                "a-b",
                "\u{7f}\u{ff}",
            ]),
            Charset::Alnum => strs(&["foo0003", "dave", "", "Z9", "elton"]),
            Charset::Word => strs(&["jericho", "dave", "", "web_01", "Z"]),
            Charset::Hex => strs(&["deadbeef", "", "0", "f"]),
            Charset::Digits => strs(&["0123", "", "9"]),
        },
        ScalarType::Bytes if layout == Layout::Fixed => {
            let w = c.width.unwrap_or(1) as usize;
            vec![
                Value::Bytes((0..w as u8).collect()),
                Value::Bytes(vec![0; w]),
                Value::Bytes(vec![0xFF; w]),
                Value::Bytes(vec![0x5A; w.saturating_sub(1)]),
            ]
        }
        ScalarType::Bytes => vec![
            Value::Bytes(vec![0x00, 0xFF]),
            Value::Bytes(vec![]),
            Value::Bytes(vec![0x00]),
            Value::Bytes(vec![0xFF, 0x00, 0x01]),
            Value::Bytes(b"abc".to_vec()),
        ],
        ScalarType::I32 => [
            201510,
            0,
            -1,
            1,
            i32::MIN as i64,
            i32::MAX as i64,
            42,
            999999,
            1000000,
        ]
        .into_iter()
        .map(Value::Int)
        .collect(),
        ScalarType::I64 | ScalarType::TimestampMs | ScalarType::Counter => [
            1445000000000,
            0,
            -1,
            1,
            i64::MIN,
            i64::MAX,
            1700000000123,
            9999999999,
        ]
        .into_iter()
        .map(Value::Int)
        .collect(),
        ScalarType::F32 => [
            1.5f32,
            0.0,
            -0.0,
            -1.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            f32::MAX,
        ]
        .into_iter()
        .map(Value::F32)
        .collect(),
        ScalarType::F64 => [
            2.25f64,
            0.0,
            -0.0,
            -2.25,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            f64::MIN,
        ]
        .into_iter()
        .map(Value::F64)
        .collect(),
        _ => Vec::new(),
    }
}

fn value_samples() -> Vec<(ScalarType, Value)> {
    let mut out = Vec::new();
    for s in ["", "jericho", "日本語", "a\u{0}b"] {
        out.push((ScalarType::String, Value::Str(s.into())));
    }
    for b in [vec![], vec![0u8], vec![0xFF, 0x00, 0x80]] {
        out.push((ScalarType::Bytes, Value::Bytes(b)));
    }
    for i in [0i64, 1, -1, 201510, i32::MIN as i64, i32::MAX as i64] {
        out.push((ScalarType::I32, Value::Int(i)));
    }
    for ty in [
        ScalarType::I64,
        ScalarType::TimestampMs,
        ScalarType::Counter,
    ] {
        for i in [0i64, 1, -1, 100, i64::MIN, i64::MAX, 1445000000000] {
            out.push((ty, Value::Int(i)));
        }
    }
    for f in [
        0.0f32,
        -0.0,
        1.5,
        -1.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
    ] {
        out.push((ScalarType::F32, Value::F32(f)));
    }
    for f in [
        0.0f64,
        -0.0,
        2.25,
        -2.25,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        0.1,
    ] {
        out.push((ScalarType::F64, Value::F64(f)));
    }
    out.push((ScalarType::Bool, Value::Bool(true)));
    out.push((ScalarType::Bool, Value::Bool(false)));
    for j in [
        json!({"a": 1, "b": [true, null, "x"]}),
        json!("日本"),
        json!(-2.5),
        json!([]),
        json!({}),
    ] {
        out.push((ScalarType::Json, Value::Json(j)));
    }
    out
}

fn part_samples(ty: ScalarType) -> Vec<Value> {
    match ty {
        ScalarType::String => vec![
            Value::Str("d_photos".into()),
            Value::Str("".into()),
            Value::Str("日本".into()),
        ],
        _ => vec![
            Value::Int(201510),
            Value::Int(1),
            Value::Int(0),
            Value::Int(-7),
        ],
    }
}
