//! The conditional and counter forms of a row PUT or POST (`check=put|delete|increment|append`),
//! as HBase's `RowResource` runs them: the last cell of a check is the expected value, a failed
//! check answers 304, counters take decimal text.

use axum::http::StatusCode;

use super::media::Media;
use super::model::{CellSet, RowM, LATEST};
use super::row::{cell_model, put_ops, split_column, write_err, RowSpec};
use super::schema::cell_set;
use super::{empty, Req, Rest, RestError, RestResult};
use crate::engine::{CompareOp, Condition, Durability, Op, RowMutation};
use crate::gateway::requests::condition;
use crate::gateway::Need;

fn one_row<'a>(set: &'a CellSet, spec: &RowSpec) -> Result<(&'a RowM, Vec<u8>), RestError> {
    if set.rows.len() != 1 {
        return Err(RestError::bad_exact(
            "Bad request: Number of rows specified is not 1.",
        ));
    }
    let row = &set.rows[0];
    Ok((row, row.key.clone().unwrap_or_else(|| spec.row.clone())))
}

pub(super) fn check_and_put(rest: &Rest, table: &str, spec: &RowSpec, set: &CellSet) -> RestResult {
    rest.may(Need::CheckAndWrite(table))?;
    let (row, key) = one_row(set, spec)?;
    if row.cells.len() <= 1 {
        return Err(RestError::bad_exact(
            "Bad request: Either row key is null or no data found for columns specified.",
        ));
    }
    let check = &row.cells[row.cells.len() - 1];
    let check_col = check.column.clone().unwrap_or_default();
    let (cf, cq) = split_column(&check_col);
    let Some(cq) = cq.filter(|q| !q.is_empty()) else {
        return Err(RestError::bad_exact(
            "Bad request: Column incorrectly specified.",
        ));
    };
    let puts = RowM {
        key: Some(key.clone()),
        cells: row.cells[..row.cells.len() - 1].to_vec(),
    };
    if puts.cells.iter().any(|c| c.column.is_none()) {
        return Err(RestError::bad_exact(
            "Bad request: Column found to be null.",
        ));
    }
    if !puts
        .cells
        .iter()
        .any(|c| c.column.as_deref() == Some(&check_col))
    {
        return Err(RestError::bad_exact(
            "Bad request: The column to put and check do not match.",
        ));
    }
    let mut m = RowMutation::new(&key);
    m.ops = put_ops(spec, &puts)?;
    let cond = condition(
        cf.to_vec(),
        cq.to_vec(),
        CompareOp::Equal,
        check.value.clone(),
    );
    checked(rest, table, cond, m, "Value not Modified")
}

fn checked(rest: &Rest, table: &str, cond: Condition, m: RowMutation, failed: &str) -> RestResult {
    if rest
        .engine
        .check_and_mutate(table, cond, m)
        .map_err(write_err)?
    {
        Ok(empty(StatusCode::OK))
    } else {
        Err(RestError::new(
            StatusCode::NOT_MODIFIED,
            format!("{failed}\r\n"),
        ))
    }
}

pub(super) fn check_and_delete(
    rest: &Rest,
    table: &str,
    spec: &RowSpec,
    set: &CellSet,
) -> RestResult {
    rest.may(Need::CheckAndWrite(table))?;
    let (row, key) = one_row(set, spec)?;
    let Some(check) = row.cells.last() else {
        return Err(RestError::bad(
            "java.lang.IndexOutOfBoundsException: the row has no cells to check",
        ));
    };
    let check_col =
        match &check.column {
            Some(c) => c.clone(),
            None => spec.columns.first().cloned().ok_or_else(|| {
                RestError::bad_exact("Bad request: Column not specified for check.")
            })?,
        };
    let mut m = RowMutation::new(&key);
    for c in &row.cells[..row.cells.len() - 1] {
        let Some(col) = &c.column else {
            return Err(RestError::bad_exact(
                "Bad request: Column found to be null.",
            ));
        };
        let ts = (c.timestamp != LATEST).then_some(c.timestamp);
        m.ops.push(match split_column(col) {
            (f, None) => Op::DeleteFamily {
                family: f.to_vec(),
                timestamp: ts,
            },
            (f, Some(q)) => Op::DeleteVersion {
                family: f.to_vec(),
                qualifier: q.to_vec(),
                timestamp: ts,
            },
        });
    }
    let (cf, cq) = split_column(&check_col);
    let Some(cq) = cq else {
        return Err(RestError::bad_exact(
            "Bad request: Column to check incorrectly specified.",
        ));
    };
    if row.cells.len() == 1 {
        m.ops.push(Op::DeleteColumn {
            family: cf.to_vec(),
            qualifier: cq.to_vec(),
            timestamp: None,
        });
    }
    let cond = condition(
        cf.to_vec(),
        cq.to_vec(),
        CompareOp::Equal,
        check.value.clone(),
    );
    checked(rest, table, cond, m, " Delete check failed.")
}

/// A counter update's column and operand: (family, qualifier, value).
type CounterColumn = (Vec<u8>, Vec<u8>, Vec<u8>);

/// The (family, qualifier) of each cell of a counter update: its own column or the path's.
fn counter_columns(spec: &RowSpec, row: &RowM) -> Result<Vec<CounterColumn>, RestError> {
    let mut from_path = spec.columns.iter();
    let mut out = Vec::new();
    for c in &row.cells {
        let col = match &c.column {
            Some(col) => col.clone(),
            None => from_path
                .next()
                .cloned()
                .ok_or_else(|| RestError::bad_exact("Bad request: Column found to be null."))?,
        };
        let (f, q) = split_column(&col);
        let Some(q) = q else {
            return Err(RestError::bad_exact(
                "Bad request: Column incorrectly specified.",
            ));
        };
        out.push((f.to_vec(), q.to_vec(), c.value.clone()));
    }
    Ok(out)
}

/// `?rr=true` (HBase's `returnResult`, read with Java's `Boolean.valueOf`: "true" in any case).
fn return_result(r: &Req) -> bool {
    r.param("rr")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// The media of a `?rr=true` answer, negotiated before the write so a bad `Accept` changes
/// nothing.
fn result_media(r: &Req) -> Result<Option<Media>, RestError> {
    if !return_result(r) {
        return Ok(None);
    }
    let offers = [
        Media::Xml,
        Media::Json,
        Media::Protobuf,
        Media::ProtobufIetf,
    ];
    r.accept(&offers).map(Some)
}

/// A `?rr=true` answer: 304 with HBase's text when there is nothing to return, else the row.
fn result_answer(media: Media, row: Option<RowM>, empty_text: &str) -> RestResult {
    match row {
        Some(row) if !row.cells.is_empty() => Ok(cell_set(media, &CellSet { rows: vec![row] })),
        _ => Err(RestError::new(
            StatusCode::NOT_MODIFIED,
            format!("{empty_text}\r\n"),
        )),
    }
}

/// `check=increment`: each cell's value is a decimal amount; 200 with no body. With `?rr=true`
/// HBase 2.6.1 answers the request's own row (its `RowResource.increment` adds the request's
/// row model to the answer, not the result's), and redbase does the same.
pub(super) fn increment(
    rest: &Rest,
    r: &Req,
    table: &str,
    spec: &RowSpec,
    set: &CellSet,
) -> RestResult {
    rest.may(Need::Write(table))?;
    let (row, key) = one_row(set, spec)?;
    let media = result_media(r)?;
    let mut cols = Vec::new();
    for (f, q, v) in counter_columns(spec, row)? {
        let text = String::from_utf8_lossy(&v).into_owned();
        let n = text.trim().parse::<i64>().map_err(|_| {
            RestError::bad(format!(
                "java.lang.NumberFormatException: For input string: \"{text}\""
            ))
        })?;
        cols.push((f, q, n));
    }
    let cells = rest
        .engine
        .increment(table, &key, cols, None, Durability::UseDefault)
        .map_err(write_err)?;
    match media {
        None => Ok(empty(StatusCode::OK)),
        Some(media) => {
            let echoed = (!cells.is_empty()).then(|| row.clone());
            result_answer(media, echoed, "Increment return empty.")
        }
    }
}

/// `check=append`: each cell's value is appended to its column; 200 with no body, or with
/// `?rr=true` the row's new cells.
pub(super) fn append(
    rest: &Rest,
    r: &Req,
    table: &str,
    spec: &RowSpec,
    set: &CellSet,
) -> RestResult {
    rest.may(Need::Write(table))?;
    let (row, key) = one_row(set, spec)?;
    let media = result_media(r)?;
    let cols = counter_columns(spec, row)?;
    let cells = rest
        .engine
        .append(table, &key, cols, None, Durability::UseDefault)
        .map_err(write_err)?;
    match media {
        None => Ok(empty(StatusCode::OK)),
        Some(media) => {
            let result = RowM {
                key: Some(key),
                cells: cells.iter().map(|c| cell_model(&c.view())).collect(),
            };
            result_answer(media, Some(result), "Append return empty.")
        }
    }
}
