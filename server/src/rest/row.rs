//! `/{table}/{row}[/{columns}][/{ts} or /{start},{end}][?v=N]`: HBase's `RowResource` (and
//! `MultiRowResource` at `/{table}/multiget`). A row part `start,end` or `prefix*` reads many
//! rows; `check=put|delete|increment|append` makes a PUT or POST conditional or a counter
//! update. Bodies, status codes and messages are HBase's.

use axum::http::{HeaderValue, Method, StatusCode};

use super::media::{Media, MODELS};
use super::model::{CellM, RowM, LATEST};
use super::stream::{self, Form, RowSource, ENGINE_BATCH};
use super::{body, decode, empty, not_allowed, Req, Rest, RestError, RestResult};
use crate::engine::{CellView, Get, Op, ReadOptions, RowMutation, RowResult, Scan, TimeRange};
use crate::gateway::requests::apply;
use crate::gateway::Need;

/// What a path says: HBase's `RowSpec`.
#[derive(Debug, Clone, Default)]
pub struct RowSpec {
    pub row: Vec<u8>,
    /// Set for `start,end` and `prefix*` (exclusive end).
    pub end_row: Option<Vec<u8>>,
    pub columns: Vec<Vec<u8>>,
    pub start_time: i64,
    pub end_time: i64,
    pub max_versions: u32,
    /// A filter in HBase's filter language (multi-get's `filter` or `filter_b64`), checked
    /// when the request is read and built afresh for every read.
    pub filter: Option<Vec<u8>>,
}

/// How row keys and columns in a path are written: HBase 2.6's `Encoding` header, else its
/// `e` query parameter (`b64`: URL-safe base64, so any bytes fit in a path).
pub fn key_encoding(r: &Req) -> Option<String> {
    r.headers
        .get("Encoding")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .or_else(|| r.param("e").map(str::to_string))
}

/// Decodes one base64 key or column of a path in `encoding` (HBase's `RowSpec` names: `b64`,
/// `base64`, `b64url`, `base64url` for the URL-safe alphabet, `b64basic`, `base64basic` for
/// the standard one; padding optional either way, as Java's decoders read it).
fn decode_key(encoding: &str, text: &[u8]) -> Result<Vec<u8>, RestError> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine as _;
    let alphabet = match encoding {
        "b64" | "base64" | "b64url" | "base64url" => &base64::alphabet::URL_SAFE,
        "b64basic" | "base64basic" => &base64::alphabet::STANDARD,
        other => {
            return Err(RestError::bad(format!(
                "java.lang.IllegalArgumentException: unknown key encoding '{other}'"
            )))
        }
    };
    let config = GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true);
    GeneralPurpose::new(alphabet, config)
        .decode(text)
        .map_err(|e| {
            RestError::bad(format!(
                "java.lang.IllegalArgumentException: {:?} is not {encoding} ({e})",
                String::from_utf8_lossy(text)
            ))
        })
}

impl RowSpec {
    /// Parses the path segments after the table (still percent-encoded); with a key
    /// `encoding`, the row keys and columns are then decoded from it (the timestamps are not).
    pub fn parse(segs: &[String], encoding: Option<&str>) -> Result<RowSpec, RestError> {
        let mut spec = RowSpec::parse_plain(segs)?;
        if let Some(enc) = encoding {
            spec.row = decode_key(enc, &spec.row)?;
            if let Some(end) = &spec.end_row {
                spec.end_row = Some(decode_key(enc, end)?);
            }
            spec.columns = spec
                .columns
                .iter()
                .map(|c| decode_key(enc, c))
                .collect::<Result<_, _>>()?;
        }
        Ok(spec)
    }

    fn parse_plain(segs: &[String]) -> Result<RowSpec, RestError> {
        let bad = |m: &str| RestError::bad(format!("java.lang.IllegalArgumentException: {m}"));
        let mut spec = RowSpec {
            end_time: i64::MAX,
            max_versions: 1,
            ..Default::default()
        };
        let row_part = segs.first().ok_or_else(|| bad("no row in the path"))?;
        if row_part.is_empty() {
            return Err(bad("empty row key in the path"));
        }
        let (start, end) = match row_part.split_once(',') {
            Some((s, e)) => (decode(s)?, Some(decode(e)?)),
            None => (decode(row_part)?, None),
        };
        if start.last() == Some(&b'*') {
            if end.is_some() {
                return Err(bad("invalid path: start row specified with wildcard"));
            }
            let prefix = start[..start.len() - 1].to_vec();
            let mut stop = prefix.clone();
            stop.push(0xff);
            spec.row = prefix;
            spec.end_row = Some(stop);
        } else {
            spec.row = start;
            spec.end_row = end;
        }
        if let Some(cols) = segs.get(1) {
            for c in cols.split(',') {
                if c.is_empty() {
                    continue;
                }
                spec.columns.push(decode(c)?);
            }
        }
        if let Some(ts) = segs.get(2) {
            let num = |s: &str| -> Result<i64, RestError> {
                let d = String::from_utf8_lossy(&decode(s)?).into_owned();
                d.parse::<i64>().map_err(|_| {
                    bad(&format!(
                        "java.lang.NumberFormatException: For input string: \"{d}\""
                    ))
                })
            };
            match ts.split_once(',') {
                Some((a, b)) => {
                    let (t0, t1) = (num(a)?, num(b)?);
                    if t1 != 0 {
                        spec.start_time = t0;
                        spec.end_time = t1;
                    } else {
                        spec.end_time = t0;
                    }
                }
                None => spec.end_time = num(ts)?,
            }
        }
        if segs.len() > 3 {
            return Err(bad("invalid path: too many segments"));
        }
        Ok(spec)
    }

    /// HBase's "has a timestamp": a single time, not a range.
    fn exact_timestamp(&self) -> Option<i64> {
        (self.start_time == 0 && self.end_time != i64::MAX).then_some(self.end_time)
    }

    fn options(&self) -> ReadOptions {
        let mut o = ReadOptions::default();
        for c in &self.columns {
            o = match split_column(c) {
                (f, None) => o.family(f),
                (f, Some(q)) => o.column(f, q),
            };
        }
        // HBase 2.6.1 reads `/{ts}` as the range [0, ts), and `/{start},{end}` as [start, end).
        o.time_range = TimeRange::new(self.start_time, self.end_time);
        if let Some(f) = &self.filter {
            o.filter = crate::filter::parse_bytes(f).ok();
        }
        o.versions(self.max_versions.max(1))
    }
}

/// `family` or `family:qualifier` (HBase's `CellUtil.parseColumn`: the first colon splits).
pub fn split_column(c: &[u8]) -> (&[u8], Option<&[u8]>) {
    match c.iter().position(|b| *b == b':') {
        Some(i) => (&c[..i], Some(&c[i + 1..])),
        None => (c, None),
    }
}

/// A result row as the REST row model.
pub fn row_model(r: &RowResult) -> RowM {
    RowM {
        key: Some(r.row().to_vec()),
        cells: r.iter().map(|c| cell_model(&c)).collect(),
    }
}

/// One cell as the REST cell model (`family:qualifier`, timestamp, value).
pub fn cell_model(c: &CellView<'_>) -> CellM {
    let mut column = c.family.to_vec();
    column.push(b':');
    column.extend_from_slice(c.qualifier);
    CellM {
        column: Some(column),
        timestamp: c.timestamp,
        value: c.value.to_vec(),
    }
}

fn read_err(e: crate::engine::ReadError) -> RestError {
    RestError::from_engine(&e, "java.io.IOException")
}

pub(super) fn write_err(e: crate::engine::MutateError) -> RestError {
    RestError::from_engine(&e, "java.io.IOException")
}

/// The row resource, by method.
pub fn resource(rest: &Rest, r: &Req, table: &str, segs: &[String]) -> RestResult {
    let mut spec = RowSpec::parse(segs, key_encoding(r).as_deref())?;
    if let Some(v) = r.param("v") {
        spec.max_versions = v.parse::<u32>().map_err(|_| {
            RestError::bad(format!(
                "java.lang.NumberFormatException: For input string: \"{v}\""
            ))
        })?;
    }
    match r.method {
        Method::GET | Method::HEAD => get(rest, r, table, &spec),
        Method::PUT | Method::POST => update(rest, r, table, &spec),
        Method::DELETE => delete(rest, table, &spec),
        _ => Err(not_allowed()),
    }
}

/// The rows a spec names (one, a range, or a prefix), a few at a time: the source of a
/// streamed answer ([`stream`]). A missing table fails the first call.
pub fn rows_of(rest: &Rest, table: &str, spec: &RowSpec) -> impl RowSource {
    let engine = rest.engine.clone();
    let table = table.to_string();
    let spec = spec.clone();
    let mut scanner: Option<crate::engine::Scanner> = None;
    let mut done = false;
    move || -> Result<Vec<RowM>, RestError> {
        if done {
            return Ok(Vec::new());
        }
        let Some(end) = &spec.end_row else {
            done = true;
            return Ok(engine
                .get(&table, Get::with(&spec.row, spec.options()))
                .map_err(read_err)?
                .iter()
                .map(row_model)
                .collect());
        };
        let s = match &mut scanner {
            Some(s) => s,
            None => {
                let scan = Scan {
                    start: spec.row.clone(),
                    stop: end.clone(),
                    options: spec.options(),
                    ..Default::default()
                };
                scanner.insert(engine.scan(&table, scan).map_err(read_err)?)
            }
        };
        let rows = s.next_batch(ENGINE_BATCH).map_err(read_err)?;
        done = rows.is_empty();
        Ok(rows.iter().map(row_model).collect())
    }
}

fn get(rest: &Rest, r: &Req, table: &str, spec: &RowSpec) -> RestResult {
    let offers = [
        Media::Xml,
        Media::Json,
        Media::Protobuf,
        Media::ProtobufIetf,
        Media::Binary,
    ];
    let media = r.accept(&offers)?;
    rest.may(Need::Read(table))?;
    if media == Media::Binary {
        if spec.columns.len() != 1 {
            return Err(RestError::bad_exact(
                "Bad request: Default 'GET' method only works if there is exactly 1 column in the row. Using the 'Accept' header with one of these formats lets you retrieve the entire row if it has multiple columns: text/xml, application/json, application/x-protobuf, application/protobuf",
            ));
        }
        // The first cell of the first row (a range is read no further).
        let rows = rows_of(rest, table, spec).next_rows()?;
        let Some(cell) = rows.first().and_then(|row| row.cells.first()) else {
            return Err(RestError::not_found());
        };
        let mut resp = body(StatusCode::OK, Media::Binary, cell.value.clone());
        if let Ok(v) = HeaderValue::from_str(&cell.timestamp.to_string()) {
            resp.headers_mut().insert("X-Timestamp", v);
        }
        return Ok(resp);
    }
    stream::answer(
        rest,
        Form::CellSet(media),
        rows_of(rest, table, spec),
        Some(RestError::not_found()),
    )
}

/// The columns of a put's cells: their own, else the path's in order.
pub(super) fn put_ops(spec: &RowSpec, row: &RowM) -> Result<Vec<Op>, RestError> {
    let mut ops = Vec::new();
    let mut from_path = spec.columns.iter();
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
            return Err(RestError::bad_exact("Bad request"));
        };
        ops.push(Op::Put {
            family: f.to_vec(),
            qualifier: q.to_vec(),
            timestamp: (c.timestamp != LATEST).then_some(c.timestamp),
            value: c.value.clone(),
        });
    }
    Ok(ops)
}

/// Cell bytes of a large cell set written at a time.
const WRITE_BATCH: usize = 4 * 1024 * 1024;

/// What [`into_put_ops`] refuses, checked without building anything.
fn check_columns(spec: &RowSpec, row: &RowM) -> Result<(), RestError> {
    let mut from_path = spec.columns.iter();
    for c in &row.cells {
        let col = match &c.column {
            Some(col) => col,
            None => from_path
                .next()
                .ok_or_else(|| RestError::bad_exact("Bad request: Column found to be null."))?,
        };
        if split_column(col).1.is_none() {
            return Err(RestError::bad_exact("Bad request"));
        }
    }
    Ok(())
}

/// As [`put_ops`], moving the row's values into the puts.
fn into_put_ops(spec: &RowSpec, row: RowM) -> Result<Vec<Op>, RestError> {
    let mut ops = Vec::with_capacity(row.cells.len());
    let mut from_path = spec.columns.iter();
    for c in row.cells {
        let col = match &c.column {
            Some(col) => col,
            None => from_path
                .next()
                .ok_or_else(|| RestError::bad_exact("Bad request: Column found to be null."))?,
        };
        let (f, q) = split_column(col);
        let Some(q) = q else {
            return Err(RestError::bad_exact("Bad request"));
        };
        ops.push(Op::Put {
            family: f.to_vec(),
            qualifier: q.to_vec(),
            timestamp: (c.timestamp != LATEST).then_some(c.timestamp),
            value: c.value,
        });
    }
    Ok(ops)
}

fn update(rest: &Rest, r: &Req, table: &str, spec: &RowSpec) -> RestResult {
    if rest.access.read_only() {
        return Err(RestError::forbidden_read_only());
    }
    if r.content()? == Media::Binary {
        return update_binary(rest, r, table, spec);
    }
    let set = super::cell_body::cell_set(r)?;
    let check = r.param("check").unwrap_or("");
    match check.to_ascii_lowercase().as_str() {
        "" => {}
        "put" => return super::check::check_and_put(rest, table, spec, &set),
        "delete" => return super::check::check_and_delete(rest, table, spec, &set),
        "increment" => return super::check::increment(rest, r, table, spec, &set),
        "append" => return super::check::append(rest, r, table, spec, &set),
        other => {
            return Err(RestError::bad_exact(&format!(
                "Invalid check value '{other}'"
            )));
        }
    }
    rest.may(Need::Write(table))?;
    // Every row is checked before any is written: a set refused halfway is never stored.
    for row in &set.rows {
        check_columns(spec, row)?;
    }
    // Then written a few MiB at a time, in order, each row whole (HBase's REST server puts a
    // cell set as a batch of puts, not atomically either): the decoded cells move into the
    // mutations, and the engine holds one batch at a time rather than the whole set.
    let mut first_error = None;
    let mut rows = set.rows.into_iter().peekable();
    while rows.peek().is_some() {
        let mut bytes = 0;
        let mut muts = Vec::new();
        while let Some(row) = rows.next_if(|_| bytes < WRITE_BATCH) {
            bytes += row.size();
            let mut m = RowMutation::new(row.key.as_deref().unwrap_or(&spec.row));
            m.ops = into_put_ops(spec, row)?;
            muts.push(m);
        }
        if let Err(e) = apply(&rest.engine, table, muts) {
            first_error.get_or_insert(e);
        }
    }
    if let Some(e) = first_error {
        return Err(write_err(e));
    }
    Ok(empty(StatusCode::OK))
}

fn header_text(r: &Req, name: &str) -> Option<Vec<u8>> {
    r.headers.get(name).map(|v| v.as_bytes().to_vec())
}

fn update_binary(rest: &Rest, r: &Req, table: &str, spec: &RowSpec) -> RestResult {
    rest.may(Need::Write(table))?;
    let row = header_text(r, "X-Row").unwrap_or_else(|| spec.row.clone());
    let column = header_text(r, "X-Column").or_else(|| spec.columns.first().cloned());
    let Some(column) = column else {
        return Err(RestError::bad_exact(
            "Bad request: Column found to be null.",
        ));
    };
    let ts = match header_text(r, "X-Timestamp") {
        Some(t) => {
            let t = String::from_utf8_lossy(&t).into_owned();
            Some(t.trim().parse::<i64>().map_err(|_| {
                RestError::bad(format!(
                    "java.lang.NumberFormatException: For input string: \"{t}\""
                ))
            })?)
        }
        None => None,
    };
    let (f, q) = split_column(&column);
    let Some(q) = q else {
        return Err(RestError::bad_exact("Bad request"));
    };
    let m = RowMutation::new(&row).with(Op::Put {
        family: f.to_vec(),
        qualifier: q.to_vec(),
        timestamp: ts.filter(|t| *t != LATEST),
        value: r.body.to_vec(),
    });
    rest.engine.mutate_row(table, m).map_err(write_err)?;
    Ok(empty(StatusCode::OK))
}

fn delete(rest: &Rest, table: &str, spec: &RowSpec) -> RestResult {
    if rest.access.read_only() {
        return Err(RestError::forbidden_read_only());
    }
    rest.may(Need::Write(table))?;
    let ts = spec.exact_timestamp();
    let mut m = RowMutation::new(&spec.row);
    for c in &spec.columns {
        m.ops.push(match split_column(c) {
            (f, None) => Op::DeleteFamily {
                family: f.to_vec(),
                timestamp: ts,
            },
            (f, Some(q)) => Op::DeleteColumn {
                family: f.to_vec(),
                qualifier: q.to_vec(),
                timestamp: ts,
            },
        });
    }
    if m.ops.is_empty() {
        m.ops.push(Op::DeleteRow { timestamp: ts });
    }
    rest.engine.mutate_row(table, m).map_err(write_err)?;
    Ok(empty(StatusCode::OK))
}

/// The filter of a multi-get or stateless scan: `filter_b64` (URL-safe base64, padded or not)
/// before `filter`, as HBase 2.6 reads them; checked here so that a bad one is a 400.
pub fn query_filter(r: &Req) -> Result<Option<Vec<u8>>, RestError> {
    let text = match (r.param("filter_b64"), r.param("filter")) {
        (Some(b), _) if !b.is_empty() => {
            use base64::Engine as _;
            let engine = base64::engine::GeneralPurpose::new(
                &base64::alphabet::URL_SAFE,
                base64::engine::GeneralPurposeConfig::new()
                    .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
            );
            engine.decode(b.trim()).map_err(|e| {
                RestError::bad(format!(
                    "java.lang.IllegalArgumentException: filter_b64 is not URL-safe base64 ({e})"
                ))
            })?
        }
        (_, Some(f)) if !f.is_empty() => f.as_bytes().to_vec(),
        _ => return Ok(None),
    };
    crate::filter::parse_bytes(&text)
        .map_err(|e| RestError::bad(format!("java.lang.IllegalArgumentException: {e}")))?;
    Ok(Some(text))
}

/// The columns a multi-get's path names after `multiget` (`/{table}/multiget/a:q1,b`), read as
/// HBase's `TableResource` reads them: the rest of the path, percent-decoded, with every
/// `multiget` and `/` taken out, split at commas. They apply to every row and are never
/// base64, whatever the key encoding.
fn multiget_columns(path: &[&str]) -> Result<Vec<Vec<u8>>, RestError> {
    let mut text = Vec::new();
    for (i, seg) in path.iter().enumerate() {
        if i > 0 {
            text.push(b'/');
        }
        text.extend(decode(seg)?);
    }
    let text = String::from_utf8_lossy(&text)
        .replace("multiget", "")
        .replace('/', "");
    Ok(text
        .split(',')
        .filter(|c| !c.is_empty())
        .map(|c| c.as_bytes().to_vec())
        .collect())
}

/// `/{table}/multiget[/{columns}]?row=...&row=...[&v=N][&filter=...][&e=b64]`: each `row` is a
/// row spec of its own (its keys and columns in the key encoding, when one is given).
pub fn multiget(rest: &Rest, r: &Req, table: &str, path: &[&str]) -> RestResult {
    if r.method != Method::GET && r.method != Method::HEAD {
        return Err(not_allowed());
    }
    let media = r.accept(&MODELS)?;
    rest.may(Need::Read(table))?;
    let versions = match r.param("v") {
        Some(v) => Some(v.parse::<u32>().map_err(|_| {
            RestError::bad(format!(
                "java.lang.NumberFormatException: For input string: \"{v}\""
            ))
        })?),
        None => None,
    };
    let filter = query_filter(r)?;
    let path_columns = multiget_columns(path)?;
    let encoding = key_encoding(r);
    let mut specs = Vec::new();
    for spec_text in r.params("row") {
        // The value was decoded once with the query; encode `/` splits again by segment.
        let segs: Vec<String> = spec_text
            .split('/')
            .map(|s| s.replace('%', "%25"))
            .collect();
        let mut spec = RowSpec::parse(&segs, encoding.as_deref())?;
        if let Some(v) = versions {
            spec.max_versions = v;
        }
        spec.columns.extend(path_columns.iter().cloned());
        spec.filter = filter.clone();
        specs.push(spec);
    }
    // Each spec's rows in turn, streamed as one cell set.
    let mut sources = specs
        .iter()
        .map(|spec| rows_of(rest, table, spec))
        .collect::<Vec<_>>()
        .into_iter();
    let mut current = sources.next();
    let source = move || -> Result<Vec<RowM>, RestError> {
        while let Some(s) = &mut current {
            let rows = s.next_rows()?;
            if !rows.is_empty() {
                return Ok(rows);
            }
            current = sources.next();
        }
        Ok(Vec::new())
    };
    stream::answer(
        rest,
        Form::CellSet(media),
        source,
        Some(RestError::new(StatusCode::NOT_FOUND, "No rows found.\r\n")),
    )
}
