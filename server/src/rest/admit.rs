//! What a REST request passes before its body is read. Without it a caller with no grants
//! could make the server read and parse a 64 MiB body before the 403, and a few slow uploads
//! held hundreds of megabytes outside every budget.
//!
//! 1. The method and path say what the body is for ([`body_use`]), so the caller's access to
//!    the table (or namespace) in the path is checked first, with the handler's own `Need`
//!    and answer; a body no resource reads is not read at all.
//! 2. The body's bytes come from the server-wide in-flight budget the Thrift gateways use
//!    (`--max-inflight-bytes`): its declared length up front, or chunk by chunk when it has
//!    none. When the budget is spent the request waits [`BODY_WAIT`] for others to finish,
//!    then is answered 503 with `Retry-After` (413 for a body larger than the whole budget).
//! 3. Each part of the body must arrive within the idle timeout (`--idle-timeout-secs`), so an
//!    upload that stalls gives its bytes back; it is answered 408.

use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::BodyExt;

use super::media::{self, Media};
use super::{decode, Rest, RestError, MAX_BODY};
use crate::gateway::Need;
use crate::thrift::budget::{Budget, Exhausted, Share};

/// How long a body waits for room in the in-flight budget before it is refused.
pub const BODY_WAIT: Duration = Duration::from_secs(5);
/// Seconds a refused client is told to wait (`Retry-After`).
pub const RETRY_AFTER_SECS: u64 = 5;

/// What a request's body is for, by the permission its resource checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyUse {
    /// No resource at this method and path reads a body: it is not read.
    Ignored,
    /// A scanner model (`PUT`/`POST /{table}/scanner`): R on the table.
    Read(String),
    /// A cell set, or one raw value: W on the table.
    Write(String),
    /// A cell set with `check=put` or `check=delete`: R and W on the table.
    CheckAndWrite(String),
    /// A table schema: A or C on the table when it exists, on its namespace when not.
    Schema(String),
    /// Namespace properties: global A.
    Namespace(String),
}

fn name(seg: &str) -> Option<String> {
    decode(seg)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// What the body of `method` at `seg` (the path's still-encoded segments) is for, as
/// `rest::route` dispatches it.
pub fn body_use(
    method: &Method,
    seg: &[&str],
    query: &[(String, String)],
    headers: &HeaderMap,
) -> BodyUse {
    if method != Method::PUT && method != Method::POST {
        return BodyUse::Ignored;
    }
    let named = |s: &str, f: fn(String) -> BodyUse| name(s).map_or(BodyUse::Ignored, f);
    match seg {
        [] | ["version"] | ["version", "rest"] | ["version", "cluster"] | ["status", "cluster"] => {
            BodyUse::Ignored
        }
        // (`/namespaces/{ns}/tables` takes a PUT or POST as the namespace's own resource, as
        // HBase serves it: rest::schema::namespaces)
        ["namespaces", ns] | ["namespaces", ns, "tables"] => named(ns, BodyUse::Namespace),
        ["namespaces", ..] => BodyUse::Ignored,
        [_, "regions"] | [_, "exists"] | [_, "scanner", _] => BodyUse::Ignored,
        [table, "schema"] => named(table, BodyUse::Schema),
        [table, "scanner"] => named(table, BodyUse::Read),
        [table, spec @ ..] if !spec.is_empty() => {
            let one = spec.len() == 1;
            if one && (spec[0].starts_with("multiget") || spec[0].ends_with('*')) {
                return BodyUse::Ignored;
            }
            let binary = media::content_type(headers.get(header::CONTENT_TYPE))
                .is_ok_and(|m| m == Media::Binary);
            let check = query
                .iter()
                .find(|(k, _)| k == "check")
                .map(|(_, v)| v.to_ascii_lowercase());
            let conditional = matches!(check.as_deref(), Some("put" | "delete"));
            if conditional && !binary {
                named(table, BodyUse::CheckAndWrite)
            } else {
                named(table, BodyUse::Write)
            }
        }
        _ => BodyUse::Ignored,
    }
}

impl BodyUse {
    /// Ok when the current caller may send this body; else the answer its handler would give.
    pub fn check(&self, rest: &Rest) -> Result<(), RestError> {
        match self {
            BodyUse::Ignored => Ok(()),
            BodyUse::Read(t) => rest.may(Need::Read(t)),
            BodyUse::Write(t) => rest.may(Need::Write(t)),
            BodyUse::CheckAndWrite(t) => rest.may(Need::CheckAndWrite(t)),
            BodyUse::Schema(t) => {
                if rest.engine.table_exists(t) {
                    rest.may(Need::AlterTable(t))
                } else {
                    rest.may(Need::CreateTable(t))
                }
            }
            BodyUse::Namespace(ns) => rest.may(Need::AlterNamespace(ns)),
        }
    }
}

/// A body read whole, with its part of the in-flight budget (held until both are dropped).
pub struct Received {
    pub bytes: Bytes,
    pub share: Share,
}

/// A refusal answered before the body was read: the connection closes after it, since the
/// body the client may still be sending is not read.
pub fn refuse(e: RestError) -> Response {
    let mut r = e.into_response();
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// The in-flight budget could not hold the body: 503 with `Retry-After` when it may later,
/// 413 when the body is larger than the whole budget.
fn busy(why: Exhausted) -> Response {
    if why.wanted > why.total {
        return refuse(RestError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("Payload too large\r\n{why}\r\n"),
        ));
    }
    let mut r = refuse(RestError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("Unavailable\r\n{why}\r\n"),
    ));
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
    r
}

/// 413: the body is over [`MAX_BODY`].
pub fn too_large() -> Response {
    refuse(RestError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload too large\r\nthe request body exceeds {MAX_BODY} bytes\r\n"),
    ))
}

/// Reads `body` whole within `budget` (its `declared` length up front, else as it arrives),
/// each part within `idle` of the last, waiting up to `wait` for room in the budget.
pub async fn read(
    mut body: Body,
    declared: Option<u64>,
    budget: &Budget,
    idle: Duration,
    wait: Duration,
) -> Result<Received, Response> {
    let mut share = budget.share();
    let mut buf: Vec<u8> = Vec::new();
    if let Some(n) = declared {
        // Checked against MAX_BODY by the caller.
        let n = n as usize;
        share.grow_to(n, wait).await.map_err(busy)?;
        buf.reserve_exact(n);
    }
    loop {
        let frame = match tokio::time::timeout(idle, body.frame()).await {
            Err(_) => {
                return Err(refuse(RestError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "Request timeout\r\nno part of the request body arrived for {:?} \
                         (after {} bytes); send it without pauses\r\n",
                        idle,
                        buf.len()
                    ),
                )))
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err(refuse(RestError::bad(format!(
                    "cannot read the request body: {e}"
                ))))
            }
            Ok(Some(Ok(f))) => f,
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        let needed = buf.len() + data.len();
        if needed > MAX_BODY {
            return Err(too_large());
        }
        if needed > buf.capacity() {
            // No declared length (or a body longer than it said): grow by doubling, the
            // budget first, then the memory, so the budget counts what is really held.
            let cap = needed.max(buf.capacity().saturating_mul(2)).min(MAX_BODY);
            share.grow_to(cap, wait).await.map_err(busy)?;
            buf.reserve_exact(cap - buf.len());
        }
        buf.extend_from_slice(&data);
    }
    share.shrink_to(buf.capacity());
    Ok(Received {
        bytes: Bytes::from(buf),
        share,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn use_of(method: Method, path: &str, query: &[(&str, &str)], ct: &str) -> BodyUse {
        let seg: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let seg: Vec<&str> = seg.into_iter().filter(|s| !s.is_empty()).collect();
        let q: Vec<(String, String)> = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_str(ct).unwrap());
        body_use(&method, &seg, &q, &h)
    }

    #[test]
    fn bodies_are_for_what_the_route_does_with_them() {
        let json = "application/json";
        let w = |t: &str| BodyUse::Write(t.into());
        assert_eq!(use_of(Method::PUT, "/t/r", &[], json), w("t"));
        assert_eq!(use_of(Method::POST, "/t/r/cf:a", &[], json), w("t"));
        assert_eq!(use_of(Method::PUT, "/ns%3At/r", &[], json), w("ns:t"));
        assert_eq!(
            use_of(Method::PUT, "/t/r", &[("check", "PUT")], json),
            BodyUse::CheckAndWrite("t".into())
        );
        assert_eq!(
            use_of(
                Method::PUT,
                "/t/r",
                &[("check", "put")],
                "application/octet-stream"
            ),
            w("t")
        );
        assert_eq!(
            use_of(Method::PUT, "/t/r", &[("check", "increment")], json),
            w("t")
        );
        assert_eq!(
            use_of(Method::PUT, "/t/scanner", &[], json),
            BodyUse::Read("t".into())
        );
        assert_eq!(
            use_of(Method::PUT, "/t/schema", &[], json),
            BodyUse::Schema("t".into())
        );
        assert_eq!(
            use_of(Method::POST, "/namespaces/ns", &[], json),
            BodyUse::Namespace("ns".into())
        );
        assert_eq!(
            use_of(Method::PUT, "/namespaces/ns/tables", &[], json),
            BodyUse::Namespace("ns".into())
        );
        for (m, p) in [
            (Method::GET, "/t/r"),
            (Method::DELETE, "/t/r"),
            (Method::PUT, "/"),
            (Method::POST, "/version"),
            (Method::PUT, "/status/cluster"),
            (Method::PUT, "/namespaces"),
            (Method::PUT, "/t/regions"),
            (Method::PUT, "/t/exists"),
            (Method::PUT, "/t/scanner/12"),
            (Method::PUT, "/t/multiget"),
            (Method::PUT, "/t/*"),
            (Method::PUT, "/t/pre*"),
            (Method::PUT, "/t%zz/r"),
        ] {
            assert_eq!(use_of(m.clone(), p, &[], json), BodyUse::Ignored, "{m} {p}");
        }
    }

    #[tokio::test]
    async fn bodies_take_and_give_back_the_budget() {
        let budget = Budget::new(1000);
        let got = read(
            Body::from(vec![7u8; 600]),
            Some(600),
            &budget,
            idle(),
            Duration::from_millis(50),
        )
        .await
        .map_err(|r| r.status())
        .unwrap();
        assert_eq!(got.bytes.len(), 600);
        assert_eq!(budget.held(), 600);
        // A second body the budget cannot hold as well: refused after the wait, with a hint.
        let r = read(
            Body::from(vec![7u8; 600]),
            Some(600),
            &budget,
            idle(),
            Duration::from_millis(50),
        )
        .await;
        let r = r.err().expect("refused");
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[header::RETRY_AFTER], "5");
        drop(got);
        assert_eq!(budget.held(), 0);
        // No declared length: the share grows with the body and ends at its size.
        let got = read(
            Body::from(vec![1u8; 900]),
            None,
            &budget,
            idle(),
            Duration::from_millis(50),
        )
        .await
        .map_err(|r| r.status())
        .unwrap();
        assert_eq!(got.bytes.len(), 900);
        assert_eq!(budget.held(), 900);
    }

    fn idle() -> Duration {
        Duration::from_secs(5)
    }
}
