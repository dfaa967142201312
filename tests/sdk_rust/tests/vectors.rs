//! The shared vectors (sdks/vectors/*.json, from the Rust reference) through the generated
//! Rust SDK, byte for byte. Prints one line per file for the language matrix:
//! `VECTORS rust <file> pass <n>` or `VECTORS rust <file> FAIL <failed>/<n>`.

use std::path::PathBuf;
use std::process::ExitCode;

use redbase_examples::runtime::keys::region_index;
use redbase_examples::runtime::values::{PatternColumn, QualifierPart};
use redbase_examples::{
    Bound, CompareOp, CountersColumns, DriveDirectoriesColumns, Error, Filter, KeyParts, RowKey,
    RowOrder, RowValues, SocialUsageColumns, TypedTable,
};
use sdk_rust_tests::with_table;
use sdk_rust_tests::{
    decode_value, encode_value, hash_json, hex, key_json, key_value, unhex, value_type,
};
use serde_json::{json, Value as Json};

type Key<'c, T> = <T as TypedTable<'c>>::Key;

fn load(name: &str) -> Json {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../sdks/vectors")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One value per component (declaration order) from the vector's `components` object; `None`
/// where it names no value.
fn components<K: RowKey>(given: &Json) -> Result<Vec<Option<redbase_examples::KeyValue>>, String> {
    K::SPEC
        .components
        .iter()
        .map(|c| given.get(c.name).map(|j| key_value(c.ty, j)).transpose())
        .collect()
}

fn check_key<'c, T: TypedTable<'c>>(v: &Json) -> Result<(), String> {
    let all: Option<Vec<_>> = components::<Key<T>>(&v["components"])?
        .into_iter()
        .collect();
    let key = Key::<T>::from_key_values(all.ok_or("a component is missing")?)
        .map_err(|e| e.to_string())?;
    let raw = key.encode_row().map_err(|e| e.to_string())?;
    if hex(&raw) != v["key_hex"] {
        return Err(format!("encoded {} want {}", hex(&raw), v["key_hex"]));
    }
    let parts = <Key<T> as RowKey>::Parts::decode_row(&raw).map_err(|e| e.to_string())?;
    let d = parts.to_decoded();
    let spec = Key::<T>::SPEC;
    let mut kept = serde_json::Map::new();
    for (name, value) in &d.components {
        let c = spec
            .components
            .iter()
            .find(|c| c.name == *name)
            .ok_or("unknown component")?;
        kept.insert(name.to_string(), key_json(c.ty, value));
    }
    let got = json!({"salt": d.salt, "hash": hash_json(&d.hash), "components": kept});
    if got != v["decoded"] {
        return Err(format!("decoded {got} want {}", v["decoded"]));
    }
    let region = region_index(Key::<T>::table().splits, &raw);
    if json!(region) != v["region"] {
        return Err(format!("region {region} want {}", v["region"]));
    }
    Ok(())
}

fn check_prefix<'c, T: TypedTable<'c>>(v: &Json) -> Result<(), String> {
    let leading = components::<Key<T>>(&v["components"])?;
    let range = Key::<T>::prefix_range(leading);
    if v["error"] == true {
        return match range {
            Err(Error::KeyEncoding(_) | Error::EmptyKeyComponent { .. }) => Ok(()),
            other => Err(format!("expected a key error, got {other:?}")),
        };
    }
    let starts: Vec<String> = range
        .map_err(|e| e.to_string())?
        .ranges
        .iter()
        .map(|(start, _)| hex(start))
        .collect();
    if json!(starts) != v["prefixes_hex"] {
        return Err(format!("prefixes {starts:?} want {}", v["prefixes_hex"]));
    }
    Ok(())
}

/// A bounds vector (bounds.json) through the typed builder (`RowKey::bounds`): the rows per
/// salt bucket, or an error containing the vector's substring.
fn check_bounds<'c, T: TypedTable<'c>>(v: &Json) -> Result<(), String> {
    let spec = Key::<T>::SPEC;
    let mut given: Vec<Option<Bound>> = vec![None; spec.components.len()];
    for g in v["given"].as_array().ok_or("no given list")? {
        let name = g[0].as_str().ok_or("no component name")?;
        let i = spec
            .components
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| format!("no component {name}"))?;
        let ty = spec.components[i].ty;
        given[i] = Some(match &g[1] {
            Json::Object(r) if r.contains_key("starts_with") => Bound::StartsWith(
                r["starts_with"]
                    .as_str()
                    .ok_or("starts_with is a string")?
                    .to_string(),
            ),
            Json::Object(r) => Bound::Between(
                key_value(ty, r.get("low").ok_or("no low")?)?,
                key_value(ty, r.get("high").ok_or("no high")?)?,
            ),
            value => Bound::Eq(key_value(ty, value)?),
        });
    }
    let got = Key::<T>::bounds(given);
    match (&v["error"], got) {
        (Json::String(sub), Err(e @ (Error::KeyEncoding(_) | Error::EmptyKeyComponent { .. })))
            if e.to_string().contains(sub.as_str()) =>
        {
            Ok(())
        }
        (Json::String(sub), other) => {
            Err(format!("expected a key error with {sub:?}, got {other:?}"))
        }
        (_, Ok(r)) => {
            let ranges: Vec<Json> = r
                .ranges
                .iter()
                .map(|(start, stop)| json!([hex(start), stop.as_ref().map(|s| hex(s))]))
                .collect();
            if json!(ranges) == v["ranges"] {
                Ok(())
            } else {
                Err(format!("ranges {} want {}", json!(ranges), v["ranges"]))
            }
        }
        (_, Err(e)) => Err(format!("unexpected error: {e}")),
    }
}

fn check_error<'c, T: TypedTable<'c>>(v: &Json) -> Result<(), String> {
    let all: Option<Vec<_>> = components::<Key<T>>(&v["components"])?
        .into_iter()
        .collect();
    let encoded = Key::<T>::from_key_values(all.ok_or("a component is missing")?)
        .and_then(|k| k.encode_row());
    // The error names the component the reference refused.
    let names = |e: &Error| {
        v["component"]
            .as_str()
            .is_none_or(|c| e.to_string().contains(&format!("component {c}:")))
    };
    match encoded {
        Err(e @ (Error::KeyEncoding(_) | Error::EmptyKeyComponent { .. })) if names(&e) => Ok(()),
        other => Err(format!(
            "expected a key error naming {}, got {other:?}",
            v["component"]
        )),
    }
}

fn check_value(v: &Json) -> Result<(), String> {
    let ty = value_type(v["type"].as_str().unwrap_or_default())?;
    let raw = encode_value(ty, &v["value"])?;
    if hex(&raw) != v["hex"] {
        return Err(format!("encoded {} want {}", hex(&raw), v["hex"]));
    }
    let back = decode_value(ty, &raw)?;
    if back != v["value"] {
        return Err(format!("decoded {back} want {}", v["value"]));
    }
    Ok(())
}

/// A pattern column's qualifier through its typed descriptor (`qualifier` and `parse`).
fn check_qualifier(v: &Json) -> Result<(), String> {
    fn typed<P, V, Tbl>(col: PatternColumn<P, V, Tbl>, part: P, want: &Json) -> Result<(), String>
    where
        P: QualifierPart + PartialEq + std::fmt::Debug,
        V: redbase_examples::CellValue,
    {
        let q = col.qualifier(&part).map_err(|e| e.to_string())?;
        if hex(&q) != *want {
            return Err(format!("qualifier {} want {want}", hex(&q)));
        }
        match col.parse(&q) {
            Some(back) if back == part => Ok(()),
            other => Err(format!("parsed {other:?} want {part:?}")),
        }
    }
    let int = || v["part"].as_i64().ok_or("integer part expected");
    let text = || {
        v["part"]
            .as_str()
            .map(str::to_string)
            .ok_or("string part expected")
    };
    let want = &v["qualifier_hex"];
    match (
        v["table"].as_str().unwrap_or_default(),
        v["field"].as_str().unwrap_or_default(),
    ) {
        ("counters", "slots") => typed(CountersColumns::SLOTS, int()? as i32, want),
        ("social_usage", "fb_usage") => typed(SocialUsageColumns::FB_USAGE, int()? as i32, want),
        ("social_usage", "tw_usage") => typed(SocialUsageColumns::TW_USAGE, int()? as i32, want),
        ("drive_directories", "children") => {
            typed(DriveDirectoriesColumns::CHILDREN, text()?, want)
        }
        (t, f) => Err(format!("no pattern column {t}.{f}")),
    }
}

/// A vector filter (docs/schema.md, "Scan filters") built through the SDK: value comparisons
/// through `Filter::compare_json` on the table's column, prefixes through the typed prefix
/// builder, the rest through `Filter`'s constructors.
fn build_filter<'c, T: TypedTable<'c>>(f: &Json) -> Result<Filter, String> {
    let (kind, body) = f
        .as_object()
        .and_then(|o| o.iter().next())
        .ok_or("not a filter")?;
    let list = |b: &Json| -> Result<Vec<Filter>, String> {
        b.as_array()
            .ok_or("not a list")?
            .iter()
            .map(build_filter::<T>)
            .collect()
    };
    Ok(match kind.as_str() {
        "value" => {
            let field = body["column"].as_str().ok_or("no column")?;
            let column = <T::Values as RowValues>::COLUMNS
                .iter()
                .find(|c| c.field == field)
                .ok_or_else(|| format!("no column {field}"))?;
            let op = match body["op"].as_str().unwrap_or_default() {
                "eq" => CompareOp::Eq,
                "ne" => CompareOp::Ne,
                "lt" => CompareOp::Lt,
                "le" => CompareOp::Le,
                "gt" => CompareOp::Gt,
                "ge" => CompareOp::Ge,
                other => return Err(format!("no op {other}")),
            };
            Filter::compare_json(column, op, &body["operand"])
        }
        "prefix"
            if body
                .as_object()
                .is_some_and(|m| m.values().any(Json::is_object)) =>
        {
            // The last component a starts-with: through the bounds, as
            // `prefix().<leading>(..).<component>_starts_with_filter(..)` builds it.
            let spec = Key::<T>::SPEC;
            let given = spec
                .components
                .iter()
                .map(|c| match body.get(c.name) {
                    None => Ok(None),
                    Some(Json::Object(m)) => Ok(Some(Bound::StartsWith(
                        m.get("starts_with")
                            .and_then(Json::as_str)
                            .ok_or("starts_with is a string")?
                            .to_string(),
                    ))),
                    Some(j) => key_value(c.ty, j).map(|v| Some(Bound::Eq(v))),
                })
                .collect::<Result<Vec<_>, String>>()?;
            Key::<T>::bounds_filter(given)
        }
        "prefix" => Key::<T>::prefix_filter(components::<Key<T>>(body)?),
        "page" => Filter::page(body.as_i64().ok_or("page")?),
        "key_only" => Filter::key_only(),
        "first_key_only" => Filter::first_key_only(),
        "timestamps" => Filter::timestamps(
            body.as_array()
                .ok_or("timestamps")?
                .iter()
                .map(|t| t.as_i64().ok_or("timestamp"))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        "column_prefix" => Filter::column_prefix(unhex(body.as_str().ok_or("hex")?)?),
        "all" => Filter::all(list(body)?),
        "any" => Filter::any(list(body)?),
        other => return Err(format!("unknown filter kind {other}")),
    })
}

fn check_filter<'c, T: TypedTable<'c>>(v: &Json) -> Result<(), String> {
    let rendered = build_filter::<T>(&v["filter"])?.render();
    match (&v["error"], rendered) {
        (Json::String(sub), Err(e)) if e.to_string().contains(sub.as_str()) => Ok(()),
        (Json::String(sub), other) => Err(format!("expected an error with {sub:?}, got {other:?}")),
        (_, Ok(b)) if hex(&b) == v["bytes"] => Ok(()),
        (_, other) => Err(format!(
            "rendered {:?} want {}",
            other.map(|b| String::from_utf8_lossy(&b).into_owned()),
            v["bytes"]
        )),
    }
}

/// Runs `check` over the named lists of a vector file; prints failures and the summary line.
/// One vector check: `Err` says what differs.
/// A merge vector (merge.json) through `RowOrder::merge`, the order every scan picks its
/// buckets' rows in, with the table's salt width.
fn check_merge<'c, T: TypedTable<'c>>(v: &Json) -> Result<(), String> {
    let width = Key::<T>::SPEC.salt_width();
    if json!(width) != v["salt_width"] {
        return Err(format!("salt width {width} want {}", v["salt_width"]));
    }
    let buckets = v["buckets"]
        .as_array()
        .ok_or("no buckets")?
        .iter()
        .map(|b| {
            b.as_array()
                .ok_or("a bucket is not a list")?
                .iter()
                .map(|h| unhex(h.as_str().unwrap_or_default()))
                .collect::<Result<Vec<_>, String>>()
        })
        .collect::<Result<Vec<_>, String>>()?;
    let limit = v["limit"].as_u64().map(|l| l as usize);
    let rows = RowOrder::merge(
        &buckets,
        width,
        v["reversed"] == true,
        v["bucket_order"] == true,
        limit,
    );
    let got: Vec<String> = rows.iter().map(|r| hex(r)).collect();
    if json!(got) != v["rows"] {
        return Err(format!("rows {got:?} want {}", v["rows"]));
    }
    Ok(())
}

type Check<'a> = &'a dyn Fn(&Json) -> Result<(), String>;

fn run(file: &str, doc: &Json, lists: &[(&str, Check)]) -> bool {
    let (mut n, mut failed) = (0, 0);
    for (list, check) in lists {
        for (i, v) in doc[*list].as_array().into_iter().flatten().enumerate() {
            n += 1;
            if let Err(e) = check(v) {
                failed += 1;
                if failed <= 20 {
                    eprintln!(
                        "{file} {list}[{i}] ({}): {e}",
                        v["table"].as_str().unwrap_or("")
                    );
                }
            }
        }
    }
    if n == 0 {
        println!("VECTORS rust {file} FAIL 0/0");
        return false;
    }
    if failed == 0 {
        println!("VECTORS rust {file} pass {n}");
    } else {
        println!("VECTORS rust {file} FAIL {failed}/{n}");
    }
    failed == 0
}

fn main() -> ExitCode {
    let keys = load("keys.json");
    let values = load("values.json");
    let key = |v: &Json| with_table!(v["table"].as_str().unwrap_or_default(), check_key(v));
    let prefix = |v: &Json| with_table!(v["table"].as_str().unwrap_or_default(), check_prefix(v));
    let error = |v: &Json| with_table!(v["table"].as_str().unwrap_or_default(), check_error(v));
    let mut ok = run(
        "keys.json",
        &keys,
        &[("keys", &key), ("prefixes", &prefix), ("errors", &error)],
    );
    let filters = load("filters.json");
    let filter = |v: &Json| with_table!(v["table"].as_str().unwrap_or_default(), check_filter(v));
    ok &= run("filters.json", &filters, &[("cases", &filter)]);
    let bounds = load("bounds.json");
    let bound = |v: &Json| with_table!(v["table"].as_str().unwrap_or_default(), check_bounds(v));
    ok &= run("bounds.json", &bounds, &[("cases", &bound)]);
    let merge = load("merge.json");
    let merged = |v: &Json| with_table!(v["table"].as_str().unwrap_or_default(), check_merge(v));
    ok &= run("merge.json", &merge, &[("cases", &merged)]);
    ok &= run(
        "values.json",
        &values,
        &[("values", &check_value), ("qualifiers", &check_qualifier)],
    );
    // Every generated table is covered by the key vectors.
    let tables: std::collections::BTreeSet<&str> = keys["keys"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["table"].as_str())
        .collect();
    if tables.len() != redbase_examples::TABLES.len() {
        eprintln!(
            "key vectors cover {} tables, the SDK has {}",
            tables.len(),
            redbase_examples::TABLES.len()
        );
        ok = false;
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
