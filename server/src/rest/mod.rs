//! HBase's REST API ("Stargate", HBase 2.6) over the engine, served on the operations
//! listener (docs/rest.md says why): every path the listener does not route itself comes
//! here. One request runs on one blocking task, as the caller the listener's guard proved, so
//! the gateways' [`Access`] checks (read-only mode, ACLs) apply unchanged.
//!
//! | path | module |
//! | --- | --- |
//! | `/`, `/version[/cluster]`, `/status/cluster`, `/namespaces...`, `/{table}/schema`, `/{table}/regions`, `/{table}/exists` | [`schema`] |
//! | `/{table}/{row}[/{column}][/{ts}]`, `/{table}/multiget`, globbed rows | [`row`] |
//! | `/{table}/scanner[/{id}]`, `/{table}/*` (stateless) | [`scanner`] with [`filter`] |
//!
//! Representations ([`media`]): JSON and XML ([`model`], [`meta`], [`xml`]), protobuf
//! ([`protobuf`]), plain text where HBase has one, and raw bytes for one cell.
//! Request bodies: [`admit`] checks a request before its body is read, [`cell_body`] decodes a
//! cell set straight into rows, [`encoding`] handles gzip bodies and answers; [`check`] is
//! `check=put|delete|increment|append`, [`stream`] the answers streamed in chunks.

pub mod admit;
pub mod cell_body;
pub mod check;
pub mod encoding;
pub mod filter;
pub mod media;
pub mod meta;
pub mod model;
pub mod protobuf;
pub mod row;
pub mod scanner;
pub mod schema;
pub mod stream;
pub mod xml;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;

use crate::engine::{Engine, ErrorKind};
use crate::gateway::caller::{self, Caller};
use crate::gateway::errors::Classified;
use crate::gateway::{Access, Need};
use crate::metrics::Metrics;
use crate::scanners::{ScannerLimits, Scanners};
use crate::thrift::Budget;
use media::Media;

/// Largest request body read (a cell set of many rows, a schema): bigger ones are answered
/// 413 before anything is parsed. Bodies are also held within the server's in-flight budget
/// ([`admit`]).
pub const MAX_BODY: usize = 64 * 1024 * 1024;

/// How answers of many rows are streamed (`--rest-chunk-size`, `--rest-stream-secs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLimits {
    /// Bytes of rows written out at a time; an answer that fits in one is sent whole.
    pub chunk: usize,
    /// Longest a streamed answer may take (a client that stops reading holds it no longer).
    pub time: Duration,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            chunk: 1024 * 1024,
            time: Duration::from_secs(300),
        }
    }
}

/// Settings of the REST API (from the server's flags).
#[derive(Debug, Clone)]
pub struct RestConfig {
    pub scanners: ScannerLimits,
    /// Requests slower than this are logged (the Thrift slow log's threshold).
    pub slow: Duration,
    /// `host:port` reported as every region's location.
    pub location: String,
    /// Bytes per chunk of a streamed answer ([`stream`]).
    pub stream_chunk: usize,
    /// Longest a streamed answer may take.
    pub stream_time: Duration,
    /// The server-wide in-flight byte budget (`--max-inflight-bytes`, the Thrift gateways'
    /// own): request bodies are read within it.
    pub budget: Budget,
    /// Longest a request body may pause between parts (`--idle-timeout-secs`).
    pub body_idle: Duration,
}

impl Default for RestConfig {
    fn default() -> Self {
        let s = StreamLimits::default();
        RestConfig {
            scanners: ScannerLimits::default(),
            slow: Duration::from_secs(10),
            location: "localhost:8080".into(),
            stream_chunk: s.chunk,
            stream_time: s.time,
            budget: Budget::default(),
            body_idle: Duration::from_secs(60),
        }
    }
}

/// What every REST request shares.
pub struct Rest {
    pub engine: Engine,
    pub access: Access,
    pub metrics: Option<Arc<Metrics>>,
    pub scanners: Scanners<scanner::ScanState>,
    pub config: RestConfig,
    pub start_code: i64,
}

impl std::fmt::Debug for Rest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rest")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Rest {
    pub fn new(
        engine: Engine,
        access: Access,
        metrics: Option<Arc<Metrics>>,
        config: RestConfig,
    ) -> Arc<Rest> {
        Arc::new(Rest {
            engine,
            access,
            metrics,
            scanners: Scanners::new(config.scanners.clone()),
            config,
            start_code: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0),
        })
    }

    /// Ok when the current caller may do what `need` says; else HBase's 403.
    pub fn may(&self, need: Need<'_>) -> Result<(), RestError> {
        self.access.check(need).map_err(|d| {
            if d.to_string() == crate::gateway::access::READ_ONLY {
                RestError::forbidden_read_only()
            } else {
                RestError::new(StatusCode::FORBIDDEN, format!("Forbidden\r\n{d}\r\n"))
            }
        })
    }
}

/// One request, its body read and its query decoded.
pub struct Req {
    pub method: Method,
    /// Path segments after the first `/`, still percent-encoded (row keys may hold `/`).
    pub segments: Vec<String>,
    pub query: Vec<(String, String)>,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Req {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn params<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.query
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The representation the client asked for among those a resource `offers` (first = default).
    pub fn accept(&self, offers: &[Media]) -> Result<Media, RestError> {
        media::negotiate(self.headers.get(header::ACCEPT), offers)
    }

    /// The representation of the request body.
    pub fn content(&self) -> Result<Media, RestError> {
        media::content_type(self.headers.get(header::CONTENT_TYPE))
    }
}

/// A failure answered as HBase's REST server does: a status and a plain-text body.
#[derive(Debug, Clone)]
pub struct RestError {
    pub status: StatusCode,
    pub body: String,
}

impl RestError {
    pub fn new(status: StatusCode, body: impl Into<String>) -> RestError {
        RestError {
            status,
            body: body.into(),
        }
    }

    /// 400 with HBase's "Bad request" heading and what was wrong.
    pub fn bad(detail: impl std::fmt::Display) -> RestError {
        RestError::new(
            StatusCode::BAD_REQUEST,
            format!("Bad request\r\n{detail}\r\n"),
        )
    }

    /// 400 with a body exactly as HBase writes it (`"Bad request: ..."`).
    pub fn bad_exact(line: &str) -> RestError {
        RestError::new(StatusCode::BAD_REQUEST, format!("{line}\r\n"))
    }

    pub fn not_found() -> RestError {
        RestError::new(StatusCode::NOT_FOUND, "Not found\r\n")
    }

    pub fn forbidden_read_only() -> RestError {
        RestError::new(StatusCode::FORBIDDEN, "Forbidden\r\n")
    }

    /// An engine (or gateway) error, by its kind: missing things 404, bad requests 400, the
    /// rest 503, as HBase's `ResourceBase.processException` sorts exceptions.
    pub fn from_engine<E: Classified + ?Sized>(e: &E, exception: &str) -> RestError {
        match e.kind() {
            ErrorKind::NotFound => RestError::new(
                StatusCode::NOT_FOUND,
                format!("Not found\r\n{exception}: {e}\r\n"),
            ),
            ErrorKind::IllegalArgument | ErrorKind::IncompatibleFilter => {
                RestError::bad(format!("{exception}: {e}"))
            }
            ErrorKind::AlreadyExists => RestError::new(
                StatusCode::NOT_MODIFIED,
                format!("Not modified\r\n{exception}: {e}\r\n"),
            ),
            ErrorKind::Io { .. } => RestError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("Unavailable\r\n{exception}: {e}\r\n"),
            ),
        }
    }
}

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        let mut r = (self.status, self.body).into_response();
        r.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        r
    }
}

pub type RestResult = Result<Response, RestError>;

/// A 200 (or `status`) answer with a body in `media`.
pub fn body(status: StatusCode, media: Media, bytes: Vec<u8>) -> Response {
    let mut r = (status, bytes).into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(media.mime()));
    r
}

/// An answer with no body.
pub fn empty(status: StatusCode) -> Response {
    status.into_response()
}

/// Splits `/a/b%2Fc/d` into its still-encoded segments; a trailing slash adds nothing.
fn segments(path: &str) -> Vec<String> {
    let trimmed = path.strip_prefix('/').unwrap_or(path);
    if trimmed.is_empty() {
        return Vec::new();
    }
    let mut v: Vec<String> = trimmed.split('/').map(str::to_string).collect();
    if v.last().is_some_and(|s| s.is_empty()) {
        v.pop();
    }
    v
}

/// Percent-decodes one URL component into bytes (`+` stays `+` in paths; in queries the
/// caller turns it into a space first, as Java's `URLDecoder` does).
pub fn decode(s: &str) -> Result<Vec<u8>, RestError> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                Some(v) => {
                    out.push(v);
                    i += 3;
                    continue;
                }
                None => {
                    return Err(RestError::bad(format!(
                        "java.lang.IllegalArgumentException: bad %-escape in {s:?}"
                    )))
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    Ok(out)
}

fn query_pairs(q: Option<&str>) -> Result<Vec<(String, String)>, RestError> {
    let mut v = Vec::new();
    for part in q.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, val) = part.split_once('=').unwrap_or((part, ""));
        let k = decode(&k.replace('+', " "))?;
        let val = decode(&val.replace('+', " "))?;
        v.push((
            String::from_utf8_lossy(&k).into_owned(),
            String::from_utf8_lossy(&val).into_owned(),
        ));
    }
    Ok(v)
}

/// Serves one REST request: checks the caller's access to what the body is for, reads the
/// body within the in-flight budget ([`admit`]), then routes it on a blocking task as its
/// caller. Counted in `redbase_rest_requests` and logged when slow.
pub async fn serve(rest: Arc<Rest>, req: Request) -> Response {
    let started = Instant::now();
    let (parts, body) = req.into_parts();
    let method = parts.method.clone();
    let path = parts.uri.path().to_string();
    let caller = parts
        .extensions
        .get::<Caller>()
        .cloned()
        .unwrap_or_else(|| Caller::anonymous(([0, 0, 0, 0], 0).into()));
    let response = admit_and_route(&rest, parts, body, &path, caller).await;
    let took = started.elapsed();
    if let Some(m) = &rest.metrics {
        m.rest_request(method.as_str(), response.status().as_u16(), took);
    }
    if took >= rest.config.slow {
        tracing::warn!(method = %method, path = %path, status = response.status().as_u16(),
            ms = took.as_millis() as u64, "slow REST request");
    }
    response
}

async fn admit_and_route(
    rest: &Arc<Rest>,
    parts: axum::http::request::Parts,
    body: axum::body::Body,
    path: &str,
    caller: Caller,
) -> Response {
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return admit::too_large();
    }
    // A refusal before the body is read closes the connection when a body is on its way.
    let pending = declared.map_or(parts.headers.contains_key(header::TRANSFER_ENCODING), |n| {
        n > 0
    });
    let early = |e: RestError| {
        if pending {
            admit::refuse(e)
        } else {
            e.into_response()
        }
    };
    let query = match query_pairs(parts.uri.query()) {
        Ok(q) => q,
        Err(e) => return early(e),
    };
    let segments = segments(path);
    let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
    let uses = admit::body_use(&parts.method, &seg, &query, &parts.headers);
    // The caller's access first: a refused body is never read.
    if let Err(e) = caller::scope(caller.clone(), || uses.check(rest)) {
        return early(e);
    }
    let received = if uses == admit::BodyUse::Ignored {
        None
    } else {
        match admit::read(
            body,
            declared,
            &rest.config.budget,
            rest.config.body_idle,
            admit::BODY_WAIT,
        )
        .await
        {
            Ok(r) => Some(r),
            Err(refused) => return refused,
        }
    };
    let (bytes, share) = match received {
        Some(r) => (r.bytes, Some(r.share)),
        None => (Bytes::new(), None),
    };
    let r = Req {
        method: parts.method,
        segments,
        query,
        headers: parts.headers,
        body: bytes,
    };
    let rest2 = rest.clone();
    let ran = tokio::task::spawn_blocking(move || {
        // (`coded` decodes a compressed body first, within the body limit, and compresses the
        // answer for a client that accepts gzip.)
        let answer = caller::scope(caller, || {
            encoding::coded(r, MAX_BODY, |r| {
                route(&rest2, r).unwrap_or_else(|e| e.into_response())
            })
        });
        // The body and its part of the budget go together, once the request is done with it.
        drop(share);
        answer
    })
    .await;
    ran.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "REST request task failed");
        RestError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal error\r\nthe request's task failed\r\n",
        )
        .into_response()
    })
}

fn route(rest: &Rest, r: &Req) -> RestResult {
    let seg: Vec<&str> = r.segments.iter().map(String::as_str).collect();
    match seg.as_slice() {
        [] => schema::table_list(rest, r),
        ["version"] | ["version", "rest"] => schema::version(r),
        ["version", "cluster"] => schema::cluster_version(r),
        ["status", "cluster"] => schema::cluster_status(rest, r),
        ["namespaces", rest_of @ ..] => schema::namespaces(rest, r, rest_of),
        [table, "schema"] => schema::table_schema(rest, r, &table_name(table)?),
        [table, "regions"] => schema::regions(rest, r, &table_name(table)?),
        [table, "exists"] => schema::exists(rest, r, &table_name(table)?),
        [table, "scanner"] => scanner::create(rest, r, &table_name(table)?),
        [table, "scanner", id] => scanner::instance(rest, r, &table_name(table)?, id),
        [table, spec @ ..] if !spec.is_empty() => {
            let table = table_name(table)?;
            // HBase's `{multiget: multiget.*}`: the rest of the path may name columns.
            if spec[0].starts_with("multiget") {
                return row::multiget(rest, r, &table, spec);
            }
            if spec.last().is_some_and(|s| s.ends_with('*')) && spec.len() == 1 {
                return scanner::stateless(rest, r, &table, spec[0]);
            }
            row::resource(rest, r, &table, &r.segments[1..])
        }
        _ => Err(RestError::not_found()),
    }
}

fn table_name(seg: &str) -> Result<String, RestError> {
    Ok(String::from_utf8_lossy(&decode(seg)?).into_owned())
}

/// 405 for a method a resource does not have, as Jersey answers.
pub fn not_allowed() -> RestError {
    RestError::new(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed\r\n")
}
