//! Scanners: the stateful one (`PUT`/`POST /{table}/scanner` with a `Scanner` model answers
//! 201 and a `Location`; `GET /{table}/scanner/{id}` gives the next cells, 204 once done;
//! `DELETE` closes it), kept in the same registry with leases and a cap as the Thrift
//! gateways' scanners; and the stateless one (`GET /{table}/*` or `/{table}/prefix*` with
//! `startrow`, `endrow`, `column`, `limit`, `reversed`, `filter`... in the query).

use axum::http::{header, HeaderValue, Method, StatusCode};

use super::media::{Media, MODELS};
use super::model::{b64, CellSet, RowM, ScannerM};
use super::row::{row_model, split_column};
use super::schema::{cell_set, read_body};
use super::stream::{self, Form, ENGINE_BATCH};
use super::{body, decode, empty, not_allowed, Req, Rest, RestError, RestResult};
use crate::engine::{ReadError, ReadOptions, Scan, TimeRange};
use crate::gateway::Need;

/// Rows per chunk of a stateless scan's protobuf answer (HBase's `hbase.rest.scan.fetchsize`).
const SCAN_FETCH_SIZE: usize = 10;

/// Most cell bytes one scanner answer holds; the rest come with the next GET.
const MAX_ANSWER: usize = 16 * 1024 * 1024;

/// What a stateful scanner remembers between GETs.
#[derive(Default)]
pub struct ScanState {
    /// Cells a GET's cell limit left of the current row.
    pending: Option<RowM>,
    /// Cells per GET (HBase's `batch`; unlimited when unset).
    batch: usize,
    owner: Option<String>,
    /// The table it reads (a GET once the table is disabled answers 410, as HBase does).
    table: String,
}

fn scan_err(e: crate::engine::ReadError) -> RestError {
    RestError::from_engine(&e, "java.io.IOException")
}

fn options(columns: &[Vec<u8>], start: i64, end: i64, versions: u32) -> ReadOptions {
    let mut o = ReadOptions::default();
    for c in columns {
        o = match split_column(c) {
            (f, None) => o.family(f),
            // `family:` is the empty qualifier alone, as HBase's `CellUtil.parseColumn` reads it.
            (f, Some(q)) => o.column(f, q),
        };
    }
    o.time_range = TimeRange::new(start, end);
    o.versions(versions.max(1))
}

fn positive(v: Option<i64>) -> Option<u64> {
    v.filter(|n| *n > 0).map(|n| n as u64)
}

/// `PUT`/`POST /{table}/scanner`.
pub fn create(rest: &Rest, r: &Req, table: &str) -> RestResult {
    if r.method != Method::PUT && r.method != Method::POST {
        return Err(not_allowed());
    }
    // HBase builds the table's name first: an illegal one is its plain 400.
    if crate::engine::TableName::parse(table).is_err() {
        return Err(RestError::new(StatusCode::BAD_REQUEST, "Bad request\r\n"));
    }
    rest.may(Need::Read(table))?;
    // An empty body is the default scanner (the whole table), as clients such as starbase send.
    let m = if r.body.iter().all(u8::is_ascii_whitespace) {
        ScannerM::default()
    } else {
        read_body(
            r,
            ScannerM::from_json,
            ScannerM::from_xml,
            ScannerM::from_pb,
        )?
    };
    // The scanner budget first: the filter is built only once it has room.
    let keys = [m.start_row.len(), m.end_row.len()];
    let bytes = crate::scanners::scan_bytes(
        m.filter.as_ref().map_or(0, String::len),
        keys.into_iter().chain(m.columns.iter().map(Vec::len)),
    );
    let held = rest.scanners.reserve(bytes).map_err(scanners_full)?;
    let mut opts = options(
        &m.columns,
        m.start_time.unwrap_or(0),
        m.end_time.unwrap_or(i64::MAX),
        positive(m.max_versions).map_or(u32::MAX, |v| v.min(u32::MAX as u64) as u32),
    );
    if let Some(f) = &m.filter {
        opts.filter = Some(super::filter::from_json(f).map_err(RestError::bad)?);
    }
    let scan = Scan {
        start: m.start_row.clone(),
        stop: m.end_row.clone(),
        reversed: m.reversed,
        limit: positive(m.limit).unwrap_or(0) as usize,
        caching: positive(m.caching).unwrap_or(0) as usize,
        options: opts,
        ..Default::default()
    };
    // HBase opens the scanner without looking at the table: a missing one fails the first GET.
    let scanner = rest.engine.scan_lazily(table, scan);
    let state = ScanState {
        pending: None,
        batch: positive(m.batch).map_or(usize::MAX, |b| b as usize),
        owner: rest.access.owner(),
        table: table.to_string(),
    };
    let id = rest
        .scanners
        .open(scanner, state, held)
        .map_err(scanners_full)?;
    let host = r
        .headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let location = format!("http://{host}/{}/scanner/{id}", r.segments[0]);
    let mut resp = empty(StatusCode::CREATED);
    if let Ok(v) = HeaderValue::from_str(&location) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    Ok(resp)
}

/// 503 when the scanner bounds are reached (HBase answers a failed open 503 too); the text
/// says which bound and what to do.
fn scanners_full(e: crate::scanners::TooMany) -> RestError {
    RestError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("Unavailable\r\n{e}\r\n"),
    )
}

/// `GET`/`DELETE /{table}/scanner/{id}`.
pub fn instance(rest: &Rest, r: &Req, _table: &str, id: &str) -> RestResult {
    let Ok(id) = id.parse::<i32>() else {
        return Err(RestError::not_found());
    };
    let Some(open) = rest.scanners.get(id) else {
        return Err(RestError::not_found());
    };
    {
        let g = open.lock().unwrap_or_else(|p| p.into_inner());
        rest.access
            .check_scanner_owner(g.extra.owner.as_deref())
            .map_err(|d| RestError::new(StatusCode::FORBIDDEN, format!("Forbidden\r\n{d}\r\n")))?;
    }
    match r.method {
        Method::DELETE => {
            rest.scanners.close(id);
            Ok(empty(StatusCode::OK))
        }
        Method::GET | Method::HEAD => {
            let offers = [
                Media::Xml,
                Media::Json,
                Media::Protobuf,
                Media::ProtobufIetf,
                Media::Binary,
            ];
            let media = r.accept(&offers)?;
            let number = |k: &str| -> Result<Option<usize>, RestError> {
                match r.param(k) {
                    None => Ok(None),
                    Some(v) => v
                        .parse::<i64>()
                        .map(|n| (n > 0).then_some(n as usize))
                        .map_err(|_| {
                            RestError::bad(format!(
                                "java.lang.NumberFormatException: For input string: \"{v}\""
                            ))
                        }),
                }
            };
            let max_rows = number("n")?;
            let max_values = number("c")?;
            let mut g = open.lock().unwrap_or_else(|p| p.into_inner());
            let limit = if media == Media::Binary {
                1
            } else {
                max_values.unwrap_or(g.extra.batch)
            };
            // A table disabled since the scanner opened ends it: 410, and the scanner is gone
            // (HBase's answer when its next read meets TableNotEnabledException).
            let disabled = rest.engine.is_table_enabled(&g.extra.table) == Ok(false);
            let set = if disabled {
                Err(ReadError::TableDisabled(g.extra.table.clone()))
            } else {
                next_cells(&mut g, limit, max_rows)
            };
            drop(g);
            let set = match set {
                Err(ReadError::TableDisabled(_)) => {
                    rest.scanners.close(id);
                    return Err(RestError::new(StatusCode::GONE, "Gone\r\n"));
                }
                other => other.map_err(scan_err)?,
            };
            if set.rows.is_empty() {
                return Ok(empty(StatusCode::NO_CONTENT));
            }
            if media == Media::Binary {
                let row = &set.rows[0];
                let cell = &row.cells[0];
                let mut resp = body(StatusCode::OK, Media::Binary, cell.value.clone());
                let h = resp.headers_mut();
                for (k, v) in [
                    ("X-Row", b64(row.key.as_deref().unwrap_or_default())),
                    ("X-Column", b64(cell.column.as_deref().unwrap_or_default())),
                    ("X-Timestamp", cell.timestamp.to_string()),
                ] {
                    if let Ok(v) = HeaderValue::from_str(&v) {
                        h.insert(k, v);
                    }
                }
                return Ok(resp);
            }
            Ok(cell_set(media, &set))
        }
        _ => Err(not_allowed()),
    }
}

/// Up to `limit` cells (and `max_rows` rows) from an open scanner, a row's leftover cells
/// first; a row cut by the limit goes on in the next answer.
fn next_cells(
    open: &mut crate::scanners::Open<ScanState>,
    limit: usize,
    max_rows: Option<usize>,
) -> Result<CellSet, ReadError> {
    let mut set = CellSet::default();
    let mut cells = 0usize;
    let mut bytes = 0usize;
    while cells < limit && bytes < MAX_ANSWER && max_rows.is_none_or(|n| set.rows.len() < n) {
        let mut row = match open.extra.pending.take() {
            Some(r) => r,
            None => match open.scanner.next_batch(1)?.pop() {
                Some(r) => row_model(&r),
                None => break,
            },
        };
        let room = limit - cells;
        if row.cells.len() > room {
            let rest_cells = row.cells.split_off(room);
            open.extra.pending = Some(RowM {
                key: row.key.clone(),
                cells: rest_cells,
            });
        }
        cells += row.cells.len();
        bytes += row.cells.iter().map(|c| c.value.len() + 32).sum::<usize>();
        set.rows.push(row);
    }
    Ok(set)
}

/// `GET /{table}/*` and `/{table}/prefix*`: one answer with every row the query asks for.
pub fn stateless(rest: &Rest, r: &Req, table: &str, spec: &str) -> RestResult {
    if r.method != Method::GET && r.method != Method::HEAD {
        return Err(not_allowed());
    }
    let media = r.accept(&MODELS)?;
    rest.may(Need::Read(table))?;
    let prefix = decode(spec.trim_end_matches('*'))?;
    let num = |k: &str, default: i64| -> Result<i64, RestError> {
        match r.param(k) {
            None | Some("") => Ok(default),
            Some(v) => v.trim().parse().map_err(|_| {
                RestError::bad(format!(
                    "java.lang.NumberFormatException: For input string: \"{v}\""
                ))
            }),
        }
    };
    let limit = num("limit", i64::from(i32::MAX))?;
    let versions = num("maxversions", 1)?;
    let batch = num("batchsize", -1)?;
    let start_time = num("starttime", 0)?;
    let end_time = num("endtime", i64::MAX)?;
    let reversed = r
        .param("reversed")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let columns: Vec<Vec<u8>> = r
        .params("column")
        .flat_map(|c| c.split(','))
        .map(|c| c.trim().as_bytes().to_vec())
        .filter(|c| !c.is_empty())
        .collect();
    let mut opts = options(
        &columns,
        start_time,
        end_time,
        versions.clamp(1, i64::from(u32::MAX)) as u32,
    );
    let mut filter_text: Vec<u8> = super::row::query_filter(r)?.unwrap_or_default();
    if !prefix.is_empty() {
        let mut p = b"PrefixFilter('".to_vec();
        for &c in &prefix {
            if c == b'\'' {
                p.push(b'\'');
            }
            p.push(c);
        }
        p.extend_from_slice(b"')");
        filter_text = if filter_text.is_empty() {
            p
        } else {
            [&b"("[..], &filter_text, &b") AND "[..], &p].concat()
        };
    }
    if !filter_text.is_empty() {
        opts.filter = Some(
            crate::filter::parse_bytes(&filter_text)
                .map_err(|e| RestError::bad(format!("java.lang.IllegalArgumentException: {e}")))?,
        );
    }
    let start = match r.param("startrow") {
        Some(s) if !s.is_empty() => s.as_bytes().to_vec(),
        _ => prefix.clone(),
    };
    let stop = r.param("endrow").unwrap_or("").as_bytes().to_vec();
    let scan = Scan {
        start,
        stop,
        reversed,
        batch: batch.max(0) as usize,
        limit: limit.max(0) as usize,
        options: opts,
        ..Default::default()
    };
    let mut scanner = rest.engine.scan(table, scan).map_err(scan_err)?;
    let source = move || -> Result<Vec<RowM>, RestError> {
        Ok(scanner
            .next_batch(ENGINE_BATCH)
            .map_err(scan_err)?
            .iter()
            .map(row_model)
            .collect())
    };
    // HBase's stateless scan streams protobuf in length-prefixed chunks of its fetch size.
    let form = if media.is_protobuf() {
        Form::Chunks(media, SCAN_FETCH_SIZE)
    } else {
        Form::CellSet(media)
    };
    stream::answer(rest, form, source, None)
}
