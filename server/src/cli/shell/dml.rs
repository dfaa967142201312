//! Row commands: `put`, `get`, `delete`, `deleteall`, `incr`, `get_counter`, `append`, and
//! the pieces `scan` shares with `get` (columns, time ranges, printing a row's cells).

use super::args::{
    arity, bytes, bytes_list, int, int32, split_column, table_name, text, CmdError, CmdResult, Opts,
};
use super::format::{cell_text, json_bytes, to_string_binary};
use super::parser::{Command, Kind, Value};
use super::Session;
use crate::generated::hbase2::TTHBaseServiceSyncClient as _;
use crate::generated::hbase2::{
    TAppend, TColumn, TColumnIncrement, TColumnValue, TDelete, TDeleteType, TGet, TIncrement, TPut,
    TResult, TTimeRange,
};

pub fn column(c: &[u8]) -> TColumn {
    let (family, qualifier) = split_column(c);
    TColumn {
        family,
        qualifier,
        timestamp: None,
    }
}

/// `[min, max]` as a time range.
pub fn time_range(v: &Value) -> Result<TTimeRange, CmdError> {
    match &v.kind {
        Kind::Array(items) if items.len() == 2 => Ok(TTimeRange {
            min_stamp: int(&items[0], "the time range's start")?,
            max_stamp: int(&items[1], "the time range's end")?,
        }),
        _ => Err(CmdError::at(v.pos, "TIMERANGE must be [min, max]")),
    }
}

pub fn empty_get(row: Vec<u8>) -> TGet {
    TGet {
        row,
        columns: None,
        timestamp: None,
        time_range: None,
        max_versions: None,
        filter_string: None,
        attributes: None,
        authorizations: None,
        consistency: None,
        target_replica_id: None,
        cache_blocks: None,
        store_limit: None,
        store_offset: None,
        existence_only: None,
        filter_bytes: None,
    }
}

/// A result's cells as table rows (`first` is the row key for scans, the column for gets).
pub fn print_cells(s: &mut Session, r: &TResult, scan: bool) {
    let row = r.row.clone().unwrap_or_default();
    if s.out.json {
        let cells: Vec<serde_json::Value> = r
            .column_values
            .iter()
            .map(|c| {
                let mut col = c.family.clone();
                col.push(b':');
                col.extend_from_slice(&c.qualifier);
                serde_json::json!({
                    "column": json_bytes(&col),
                    "timestamp": c.timestamp,
                    "value": json_bytes(&c.value),
                    "type": c.type_.filter(|t| *t != 4),
                })
            })
            .collect();
        s.out
            .json(serde_json::json!({"row": json_bytes(&row), "cells": cells}));
        return;
    }
    for c in &r.column_values {
        let col = format!(
            "{}:{}",
            to_string_binary(&c.family),
            to_string_binary(&c.qualifier)
        );
        let cell = cell_text(
            c.timestamp.unwrap_or(0),
            &c.value,
            c.type_,
            s.out.timestamps,
        );
        if scan {
            s.out
                .row(&to_string_binary(&row), &format!("column={col}, {cell}"));
        } else {
            s.out.row(&col, &cell);
        }
    }
}

pub fn put(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 4, 5, "put")?;
    let table = table_name(&cmd.args[0])?;
    let row = bytes(&cmd.args[1], "the row")?;
    let (family, qualifier) = split_column(&bytes(&cmd.args[2], "the column")?);
    let value = bytes(&cmd.args[3], "the value")?;
    let timestamp = cmd
        .args
        .get(4)
        .map(|v| int(v, "the timestamp"))
        .transpose()?;
    let cv = TColumnValue {
        family,
        qualifier: qualifier.unwrap_or_default(),
        value,
        timestamp,
        tags: None,
        type_: None,
    };
    let tput = TPut {
        row,
        column_values: vec![cv],
        timestamp: None,
        attributes: None,
        durability: None,
        cell_visibility: None,
    };
    let t = super::args::show_table(&table).into_bytes();
    s.call(|c| c.put(t, tput))
}

const GET_KEYS: &[&str] = &[
    "COLUMN",
    "COLUMNS",
    "TIMESTAMP",
    "TIMERANGE",
    "VERSIONS",
    "FILTER",
    "CONSISTENCY",
];

pub fn get(s: &mut Session, cmd: &Command) -> CmdResult {
    if cmd.args.len() < 2 {
        return Err(CmdError::usage("get needs a table and a row"));
    }
    let table = table_name(&cmd.args[0])?;
    let mut tget = empty_get(bytes(&cmd.args[1], "the row")?);
    let mut columns = Vec::new();
    for v in &cmd.args[2..] {
        if let Kind::Hash(_) = v.kind {
            let o = Opts::new(v, GET_KEYS, "get")?;
            for key in ["COLUMN", "COLUMNS"] {
                if let Some(c) = o.get(key) {
                    columns.extend(bytes_list(c, key)?);
                }
            }
            tget.timestamp = o
                .get("TIMESTAMP")
                .map(|v| int(v, "TIMESTAMP"))
                .transpose()?;
            tget.time_range = o.get("TIMERANGE").map(time_range).transpose()?;
            tget.max_versions = o
                .get("VERSIONS")
                .map(|v| int32(v, "VERSIONS"))
                .transpose()?;
            tget.filter_string = o.get("FILTER").map(|v| bytes(v, "FILTER")).transpose()?;
        } else {
            columns.extend(bytes_list(v, "a column")?);
        }
    }
    if !columns.is_empty() {
        tget.columns = Some(columns.iter().map(|c| column(c)).collect());
    }
    let t = super::args::show_table(&table).into_bytes();
    let r = s.call(|c| c.get(t, tget))?;
    if !s.out.json {
        s.out.header("COLUMN", "CELL");
    }
    if r.row.is_some() || s.out.json {
        print_cells(s, &r, false);
    }
    s.out.text(&format!("{} row(s)", r.column_values.len()));
    Ok(())
}

fn delete_with(s: &mut Session, cmd: &Command, all: bool) -> CmdResult {
    let name = if all { "deleteall" } else { "delete" };
    arity(&cmd.args, if all { 2 } else { 3 }, 4, name)?;
    let table = table_name(&cmd.args[0])?;
    let row = bytes(&cmd.args[1], "the row")?;
    let ts = cmd
        .args
        .get(3)
        .map(|v| int(v, "the timestamp"))
        .transpose()?;
    let mut del = TDelete {
        row,
        columns: None,
        timestamp: None,
        delete_type: Some(TDeleteType::DELETE_COLUMNS),
        attributes: None,
        durability: None,
        cell_visibility: None,
    };
    match cmd.args.get(2) {
        Some(c) => {
            let (family, qualifier) = split_column(&bytes(c, "the column")?);
            if qualifier.is_none() && !all {
                return Err(CmdError::at(
                    c.pos,
                    "delete needs family:qualifier (deleteall removes a family)",
                ));
            }
            if qualifier.is_none() {
                del.delete_type = Some(TDeleteType::DELETE_FAMILY);
            }
            del.columns = Some(vec![TColumn {
                family,
                qualifier,
                timestamp: ts,
            }]);
        }
        None => del.timestamp = ts,
    }
    let t = super::args::show_table(&table).into_bytes();
    s.call(|c| c.delete_single(t, del))
}

pub fn delete(s: &mut Session, cmd: &Command) -> CmdResult {
    delete_with(s, cmd, false)
}

pub fn deleteall(s: &mut Session, cmd: &Command) -> CmdResult {
    delete_with(s, cmd, true)
}

/// A counter's value: 8 bytes, big-endian.
fn counter(v: &[u8]) -> Result<i64, CmdError> {
    let b: [u8; 8] = v.try_into().map_err(|_| {
        CmdError::failed(format!(
            "the cell holds {} bytes, not an 8-byte counter",
            v.len()
        ))
    })?;
    Ok(i64::from_be_bytes(b))
}

fn print_counter(s: &mut Session, n: i64) {
    if s.out.json {
        s.out.json(serde_json::json!({"counter": n}));
    } else {
        s.out.line(&format!("COUNTER VALUE = {n}"));
    }
}

pub fn incr(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 3, 4, "incr")?;
    let table = table_name(&cmd.args[0])?;
    let row = bytes(&cmd.args[1], "the row")?;
    let col = bytes(&cmd.args[2], "the column")?;
    let (family, qualifier) = split_column(&col);
    let amount = cmd
        .args
        .get(3)
        .map(|v| int(v, "the increment"))
        .transpose()?
        .unwrap_or(1);
    let inc = TIncrement {
        row,
        columns: vec![TColumnIncrement {
            family: family.clone(),
            qualifier: qualifier.clone().unwrap_or_default(),
            amount: Some(amount),
        }],
        attributes: None,
        durability: None,
        cell_visibility: None,
        return_results: Some(true),
    };
    let t = super::args::show_table(&table).into_bytes();
    let r = s.call(|c| c.increment(t, inc))?;
    let cell = r.column_values.iter().find(|c| {
        c.family == family && Some(&c.qualifier) == qualifier.as_ref().or(Some(&Vec::new()))
    });
    let n = match cell {
        Some(c) => counter(&c.value)?,
        None => return Err(CmdError::failed("the server returned no counter value")),
    };
    print_counter(s, n);
    Ok(())
}

pub fn get_counter(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 3, 3, "get_counter")?;
    let table = table_name(&cmd.args[0])?;
    let mut tget = empty_get(bytes(&cmd.args[1], "the row")?);
    tget.columns = Some(vec![column(&bytes(&cmd.args[2], "the column")?)]);
    let t = super::args::show_table(&table).into_bytes();
    let r = s.call(|c| c.get(t, tget))?;
    match r.column_values.first() {
        Some(c) => {
            let n = counter(&c.value)?;
            print_counter(s, n);
        }
        None => s.out.line("No counter found at specified coordinates"),
    }
    Ok(())
}

pub fn append(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 4, 4, "append")?;
    let table = table_name(&cmd.args[0])?;
    let row = bytes(&cmd.args[1], "the row")?;
    let (family, qualifier) = split_column(&bytes(&cmd.args[2], "the column")?);
    let value = bytes(&cmd.args[3], "the value")?;
    let app = TAppend {
        row,
        columns: vec![TColumnValue {
            family,
            qualifier: qualifier.unwrap_or_default(),
            value,
            timestamp: None,
            tags: None,
            type_: None,
        }],
        attributes: None,
        durability: None,
        cell_visibility: None,
        return_results: Some(true),
    };
    let t = super::args::show_table(&table).into_bytes();
    let r = s.call(|c| c.append(t, app))?;
    let v = r
        .column_values
        .first()
        .map(|c| c.value.clone())
        .unwrap_or_default();
    if s.out.json {
        s.out.json(serde_json::json!({"value": json_bytes(&v)}));
    } else {
        s.out
            .line(&format!("CURRENT VALUE = {}", to_string_binary(&v)));
    }
    Ok(())
}

/// A text argument for filters (kept for `scan`).
pub fn filter(v: &Value) -> Result<Vec<u8>, CmdError> {
    text(v, "FILTER").map(String::into_bytes)
}
