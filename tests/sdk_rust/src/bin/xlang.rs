//! The Rust side of the cross-language test (tests/xlang/README.md), through the generated SDK:
//!
//!     xlang write HOST PORT           # (re)create the dataset's tables and write its rows
//!     xlang dump HOST PORT            # print every dataset table's rows as JSON, in scan order
//!     xlang write-versions HOST PORT  # timestamped puts of the dataset's `versions`
//!     xlang dump-versions HOST PORT   # those cells read back with versions = 3
//!     xlang write-batch HOST PORT     # put_many, delete_many, increment_many of `batches`
//!     xlang dump-batch HOST PORT      # the rows of the `batches` tables, as `dump`
//!
//! Run it as `tests/sdk_rust/xlang.sh write|dump HOST PORT` (builds when needed).

use std::process::ExitCode;

use redbase_examples::runtime::values::{ColumnInfo, ColumnKind};
use redbase_examples::runtime::Cells;
use redbase_examples::*;
use sdk_rust_tests::{
    decode_value, encode_value, hash_json, hex, key_json, key_value, pattern_qualifier, with_table,
};
use serde_json::{json, Map, Value as Json};

type Key<'c, T> = <T as TypedTable<'c>>::Key;
type Values<'c, T> = <T as TypedTable<'c>>::Values;

fn dataset() -> Result<Json, String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../xlang/dataset.json");
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
}

fn sdk(e: Error) -> String {
    e.to_string()
}

/// The typed key of a dataset row: every component in its vector JSON form.
fn key_of<K: RowKey>(given: &Json) -> Result<K, String> {
    let values = K::SPEC
        .components
        .iter()
        .map(|c| key_value(c.ty, &given[c.name]))
        .collect::<Result<Vec<_>, _>>()?;
    K::from_key_values(values).map_err(sdk)
}

/// Typed values from a dataset row's `values`: cells built by the column metadata, read back
/// by the generated `from_cells` (which checks every value against its column type).
fn values_of<V: RowValues>(given: &Json) -> Result<V, String> {
    let mut cells = Cells::new();
    for (field, j) in given.as_object().ok_or("values must be an object")? {
        let col = column::<V>(field)?;
        match col.kind {
            ColumnKind::Fixed { qualifier } => {
                let k = (col.family.to_vec(), qualifier.to_vec());
                cells.insert(k, encode_value(col.ty, j)?);
            }
            ColumnKind::Pattern { .. } => {
                for (part, v) in j.as_object().ok_or("a pattern field must be an object")? {
                    let k = (col.family.to_vec(), pattern_qualifier(&col, part)?);
                    cells.insert(k, encode_value(col.ty, v)?);
                }
            }
        }
    }
    V::from_cells(&cells).map_err(sdk)
}

fn column<V: RowValues>(field: &str) -> Result<ColumnInfo, String> {
    V::COLUMNS
        .iter()
        .find(|c| c.field == field)
        .copied()
        .ok_or_else(|| format!("no column {field:?}"))
}

fn write_rows<'c, T: TypedTable<'c>>(conn: &'c mut Connection, data: &Json) -> Result<(), String> {
    let mut t = T::new(conn);
    if t.exists().map_err(sdk)? {
        t.drop_table().map_err(sdk)?;
    }
    t.create().map_err(sdk)?;
    for row in data["rows"].as_array().into_iter().flatten() {
        let key: Key<T> = key_of(&row["key"])?;
        let values: Values<T> = values_of(&row["values"])?;
        t.put(&key, &values).map_err(sdk)?;
    }
    Ok(())
}

/// One increment through the table's typed `increment_<counter>` method.
fn increment(conn: &mut Connection, table: &str, inc: &Json) -> Result<i64, String> {
    let amount: i64 = inc["amount"]
        .as_str()
        .ok_or("amount")?
        .parse()
        .map_err(|_| "amount")?;
    let part = || -> Result<i32, String> {
        let text = inc["part"].as_str().ok_or("part")?;
        text.parse().map_err(|_| format!("part {text:?}"))
    };
    let field = inc["field"].as_str().unwrap_or_default();
    let r = match (table, field) {
        ("access_logs", "hits") => {
            AccessLogsTable::new(conn).increment_hits(&key_of(&inc["key"])?, amount)
        }
        ("social_usage", "fb_total") => {
            SocialUsageTable::new(conn).increment_fb_total(&key_of(&inc["key"])?, amount)
        }
        ("social_usage", "tw_total") => {
            SocialUsageTable::new(conn).increment_tw_total(&key_of(&inc["key"])?, amount)
        }
        ("social_usage", "fb_usage") => {
            SocialUsageTable::new(conn).increment_fb_usage(&key_of(&inc["key"])?, part()?, amount)
        }
        ("social_usage", "tw_usage") => {
            SocialUsageTable::new(conn).increment_tw_usage(&key_of(&inc["key"])?, part()?, amount)
        }
        ("counters", "slots") => {
            CountersTable::new(conn).increment_slots(&key_of(&inc["key"])?, part()?, amount)
        }
        (t, f) => return Err(format!("no counter {t}.{f} in this tool")),
    };
    r.map_err(sdk)
}

fn write(conn: &mut Connection, data: &Json) -> Result<(), String> {
    for (table, t) in data["tables"].as_object().ok_or("tables")? {
        with_table!(table.as_str(), write_rows(conn, t))?;
        for inc in t["increments"].as_array().into_iter().flatten() {
            increment(conn, table, inc)?;
        }
    }
    Ok(())
}

/// A row's values in the vector JSON forms, from the cells its typed values write.
fn values_json<V: RowValues>(values: &V) -> Result<Json, String> {
    let mut out = Map::new();
    for (family, qualifier, raw) in values.to_cells().map_err(sdk)? {
        let col = V::COLUMNS.iter().find(|c| {
            c.family == family.as_slice()
                && match c.kind {
                    ColumnKind::Fixed { qualifier: q } => q == qualifier.as_slice(),
                    ColumnKind::Pattern { .. } => true,
                }
        });
        let col = col.ok_or("a cell no column describes")?;
        let value = decode_value(col.ty, &raw)?;
        match col.kind {
            ColumnKind::Fixed { .. } => {
                out.insert(col.field.to_string(), value);
            }
            ColumnKind::Pattern { prefix, suffix, .. } => {
                let inner = &qualifier[prefix.len()..qualifier.len() - suffix.len()];
                let part = String::from_utf8(inner.to_vec()).map_err(|_| "part not UTF-8")?;
                let entry = out.entry(col.field).or_insert_with(|| json!({}));
                entry[part] = value;
            }
        }
    }
    Ok(Json::Object(out))
}

fn dump_rows<'c, T: TypedTable<'c>>(conn: &'c mut Connection) -> Result<Json, String> {
    let spec = Key::<T>::SPEC;
    let mut t = T::new(conn);
    let mut rows = Vec::new();
    for row in t.scan(&KeyRange::all(&spec), ScanOptions::new()) {
        let row = row.map_err(sdk)?;
        let d = row.key.to_decoded();
        let mut key = Map::new();
        for (name, v) in &d.components {
            let c = spec
                .components
                .iter()
                .find(|c| c.name == *name)
                .ok_or("component")?;
            key.insert(name.to_string(), key_json(c.ty, v));
        }
        rows.push(json!({
            "key_hex": hex(&row.row_key),
            "salt": d.salt,
            "hash": hash_json(&d.hash),
            "key": key,
            "values": values_json(&row.values)?,
        }));
    }
    Ok(Json::Array(rows))
}

fn dump(conn: &mut Connection, data: &Json) -> Result<Json, String> {
    let mut out = Map::new();
    for table in data["tables"].as_object().ok_or("tables")?.keys() {
        let rows = with_table!(table.as_str(), dump_rows(conn))?;
        out.insert(table.clone(), rows);
    }
    Ok(Json::Object(out))
}

/// Drops the table if it exists and creates it from its schema.
fn recreate<'c, T: TypedTable<'c>>(conn: &'c mut Connection) -> Result<T, String> {
    let mut t = T::new(conn);
    if t.exists().map_err(sdk)? {
        t.drop_table().map_err(sdk)?;
    }
    t.create().map_err(sdk)?;
    Ok(t)
}

fn ms(j: &Json) -> Result<i64, String> {
    let text = j
        .as_str()
        .ok_or("a timestamp or amount must be a decimal string")?;
    text.parse().map_err(|_| format!("not a number: {text:?}"))
}

/// One put of the entry's single field per cell, with the cell's explicit timestamp.
fn write_versions_of<'c, T: TypedTable<'c>>(
    conn: &'c mut Connection,
    entries: &Json,
) -> Result<(), String> {
    let mut t: T = recreate(conn)?;
    for e in entries.as_array().ok_or("versions entries")? {
        let key: Key<T> = key_of(&e["key"])?;
        let field = e["field"].as_str().ok_or("field")?;
        for cell in e["cells"].as_array().ok_or("cells")? {
            let values: Values<T> = values_of(&json!({ field: cell["value"] }))?;
            t.put_at(&key, &values, ms(&cell["timestamp"])?)
                .map_err(sdk)?;
        }
    }
    Ok(())
}

/// Every version of each entry's field (a get with versions = 3), newest first.
fn dump_versions_of<'c, T: TypedTable<'c>>(
    conn: &'c mut Connection,
    entries: &Json,
) -> Result<Json, String> {
    let mut t = T::new(conn);
    let mut out = Vec::new();
    for e in entries.as_array().ok_or("versions entries")? {
        let key: Key<T> = key_of(&e["key"])?;
        let field = e["field"].as_str().ok_or("field")?;
        let col = column::<Values<T>>(field)?;
        let ColumnKind::Fixed { qualifier } = col.kind else {
            return Err(format!("{field} is a pattern column"));
        };
        let row = t
            .get_with(&key, &ReadOptions::new().versions(3))
            .map_err(sdk)?;
        let mut cells = Vec::new();
        for c in row.iter().flat_map(|r| &r.cells) {
            if c.family == col.family && c.qualifier == qualifier {
                cells.push(json!({
                    "timestamp": c.timestamp.to_string(),
                    "value": decode_value(col.ty, &c.value)?,
                }));
            }
        }
        out.push(json!({
            "key_hex": hex(&key.encode_row().map_err(sdk)?),
            "field": field,
            "cells": cells,
        }));
    }
    Ok(Json::Array(out))
}

/// Exactly three batch calls: put_many of the rows, delete_many of the deletes,
/// increment_many of the increments.
fn write_batch_of<'c, T: TypedTable<'c>>(
    conn: &'c mut Connection,
    batch: &Json,
) -> Result<(), String> {
    let mut t: T = recreate(conn)?;
    let rows = batch["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| Ok((key_of(&r["key"])?, values_of(&r["values"])?)))
        .collect::<Result<Vec<(Key<T>, Values<T>)>, String>>()?;
    let deletes = batch["deletes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(key_of)
        .collect::<Result<Vec<Key<T>>, String>>()?;
    let mut increments = Vec::new();
    for inc in batch["increments"].as_array().into_iter().flatten() {
        let key: Key<T> = key_of(&inc["key"])?;
        let mut counters = Vec::new();
        for (field, amount) in inc["counters"].as_object().ok_or("counters")? {
            let col = column::<Values<T>>(field)?;
            let ColumnKind::Fixed { qualifier } = col.kind else {
                return Err(format!("{field} is a pattern column"));
            };
            counters.push((Column::new(col.field, col.family, qualifier), ms(amount)?));
        }
        increments.push((key, counters));
    }
    let options = BatchOptions::new();
    t.put_many_with(&rows, &options).map_err(sdk)?;
    t.delete_many_with(&deletes, &options).map_err(sdk)?;
    t.increment_many(&increments).map_err(sdk)?;
    Ok(())
}

fn write_versions(conn: &mut Connection, data: &Json) -> Result<(), String> {
    for (table, entries) in data["versions"]
        .as_object()
        .ok_or("no versions in the dataset")?
    {
        with_table!(table.as_str(), write_versions_of(conn, entries))?;
    }
    Ok(())
}

fn dump_versions(conn: &mut Connection, data: &Json) -> Result<Json, String> {
    let mut out = Map::new();
    for (table, entries) in data["versions"]
        .as_object()
        .ok_or("no versions in the dataset")?
    {
        let got = with_table!(table.as_str(), dump_versions_of(conn, entries))?;
        out.insert(table.clone(), got);
    }
    Ok(Json::Object(out))
}

fn write_batch(conn: &mut Connection, data: &Json) -> Result<(), String> {
    for (table, batch) in data["batches"]
        .as_object()
        .ok_or("no batches in the dataset")?
    {
        with_table!(table.as_str(), write_batch_of(conn, batch))?;
    }
    Ok(())
}

fn dump_batch(conn: &mut Connection, data: &Json) -> Result<Json, String> {
    let mut out = Map::new();
    for table in data["batches"]
        .as_object()
        .ok_or("no batches in the dataset")?
        .keys()
    {
        let rows = with_table!(table.as_str(), dump_rows(conn))?;
        out.insert(table.clone(), rows);
    }
    Ok(Json::Object(out))
}

fn print(out: &Json) -> Result<(), String> {
    println!(
        "{}",
        serde_json::to_string_pretty(out).map_err(|e| e.to_string())?
    );
    Ok(())
}

fn run(args: &[String]) -> Result<(), String> {
    let [cmd, host, port] = args else {
        return Err(
            "usage: xlang write|dump|write-versions|dump-versions|write-batch|dump-batch HOST PORT"
                .into(),
        );
    };
    let port: u16 = port.parse().map_err(|_| format!("port {port:?}"))?;
    let data = dataset()?;
    // Table names get XLANG_TABLE_PREFIX (default none), as Python's tool does.
    let options = ConnectOptions {
        table_prefix: std::env::var("XLANG_TABLE_PREFIX").unwrap_or_default(),
        ..Default::default()
    };
    let mut conn = Connection::open(host, port, &options).map_err(sdk)?;
    match cmd.as_str() {
        "write" => write(&mut conn, &data),
        "dump" => print(&dump(&mut conn, &data)?),
        "write-versions" => write_versions(&mut conn, &data),
        "dump-versions" => print(&dump_versions(&mut conn, &data)?),
        "write-batch" => write_batch(&mut conn, &data),
        "dump-batch" => print(&dump_batch(&mut conn, &data)?),
        other => Err(format!("unknown command {other:?}")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xlang: {e}");
            ExitCode::FAILURE
        }
    }
}
