//! The HTTP listener's own accept loop, with the limits `axum::serve` lacks: a client could
//! otherwise hold thousands of half-sent requests open (one test held 19,800 for 35 s, nearly
//! every file descriptor of the process, so the Thrift gateways could not accept). The numbers
//! are in [`ListenerLimits`]:
//!
//! - at most `max_connections` connections ([`slots`](super::slots)); at the cap a newcomer
//!   takes the slot of the connection waiting longest for a request, so slow headers cannot
//!   keep anyone out for long;
//! - when every one of them is busy with a request, a newcomer gets one of
//!   `probe_connections` kept for `/healthz`, `/readyz` and `/metrics` (one request, a short
//!   header deadline; other paths are answered 503), so probes answer while REST is full;
//!   past both it is closed at once;
//! - a request's headers must arrive within `header_timeout` and fit in [`MAX_HEADER`];
//! - its body must keep coming: no pause longer than `body_timeout`, and at least
//!   `body_min_rate` bytes a second on average after that ([`Deadline`]); a body given up on
//!   is answered 408 and the connection closed;
//! - a connection takes new requests for `max_lifetime` (a scraper simply reconnects); then the
//!   request in flight may finish while it moves `body_min_rate` bytes a second, and is cut
//!   when a `lifetime_grace` passes without that;
//! - accept errors (out of descriptors) are logged once a minute, not per connection.
//!
//! TLS is decided per connection (a ClientHello's first byte), as on the Thrift ports. With
//! `--require-tls` a plaintext connection is answered 400, except from loopback, where only
//! `/healthz` and `/readyz` are served (for the container's `redbase healthcheck`). Each
//! request carries its connection's [`Peer`] for the guard.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper::server::conn::http1;
use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::deadlines::{Counted, Deadline};
use super::guard::Peer;
pub use super::limits::{ListenerLimits, ListenerMetrics, MAX_HEADER};
use super::slots::{Pool, Slot, Tracked};
use crate::security::tls::HANDSHAKE_TIMEOUT;
use crate::security::Security;
use crate::thrift::handshake::{self, Io};

/// The paths a probe connection serves.
pub const PROBE_PATHS: [&str; 3] = ["/healthz", "/readyz", "/metrics"];
/// The paths served over plaintext from loopback under `--require-tls`.
pub const PLAINTEXT_PATHS: [&str; 2] = ["/healthz", "/readyz"];

pub const REQUIRE_TLS: &str =
    "this server requires TLS (--require-tls): use https. Over plaintext only /healthz and /readyz are answered, and only from loopback";

/// Serves `app` on `listener` with the default limits until `shutdown` completes.
pub async fn serve(listener: TcpListener, app: Router, shutdown: impl Future<Output = ()>) {
    serve_with(
        listener,
        app,
        Arc::new(Security::default()),
        ListenerLimits::default(),
        ListenerMetrics::default(),
        shutdown,
    )
    .await
}

/// What every connection of the listener shares.
struct Shared {
    app: Router,
    security: Arc<Security>,
    limits: ListenerLimits,
    metrics: ListenerMetrics,
}

/// As [`serve`], with TLS and `--require-tls` from `security`, the bounds of `limits`, counted
/// in `metrics`. Once `shutdown` completes, requests in flight get `lifetime_grace` to finish.
pub async fn serve_with(
    listener: TcpListener,
    app: Router,
    security: Arc<Security>,
    limits: ListenerLimits,
    metrics: ListenerMetrics,
    shutdown: impl Future<Output = ()>,
) {
    let general = Pool::new("general", limits.max_connections, metrics.clone());
    let probes = Pool::new("probe", limits.probe_connections, metrics.clone());
    let shared = Arc::new(Shared {
        app,
        security,
        limits,
        metrics,
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut last_warning: Option<Instant> = None;
    let mut warn_once_a_minute = |what: &str, detail: String| {
        let now = Instant::now();
        if last_warning.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(60)) {
            last_warning = Some(now);
            tracing::warn!(listener = "http", %detail, "{what} (repeats are not logged for a minute)");
        }
    };
    let accept = async {
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(s) => s,
                Err(e) => {
                    warn_once_a_minute("accept failed", e.to_string());
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let (slot, evicted, probe_only) = if let Some((s, e)) = general.take() {
                (s, e, false)
            } else if let Some((s, e)) = probes.take() {
                shared.metrics.probe_connections.inc();
                warn_once_a_minute(
                    "every HTTP connection is busy: new connections are served for probes only",
                    format!("{} connections, newest from {peer}", limits.max_connections),
                );
                (s, e, true)
            } else {
                shared.metrics.refused.inc();
                warn_once_a_minute(
                    "every HTTP connection is busy, probe connections too: new connections are closed",
                    format!(
                        "{} + {} connections, newest from {peer}",
                        limits.max_connections, limits.probe_connections
                    ),
                );
                drop(stream);
                continue;
            };
            if evicted {
                shared.metrics.evicted.inc();
            }
            tokio::spawn(connection(
                shared.clone(),
                stream,
                peer,
                slot,
                probe_only,
                stop_rx.clone(),
            ));
        }
    };
    tokio::select! {
        _ = accept => {}
        _ = shutdown => {}
    }
    let _ = stop_tx.send(true);
    // Requests in flight finish (or are cut after the grace); wait for their connections.
    let deadline = Instant::now() + limits.lifetime_grace + Duration::from_secs(1);
    while !(general.is_empty() && probes.is_empty()) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Why a connection stopped taking requests.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Closing {
    Lifetime,
    Shutdown,
}

/// Serves one connection until it ends, is evicted, or is cut at the lifetime cap.
async fn connection(
    shared: Arc<Shared>,
    stream: TcpStream,
    peer: SocketAddr,
    slot: Slot,
    probe_only: bool,
    mut stop: watch::Receiver<bool>,
) {
    let limits = shared.limits;
    let opening = if probe_only {
        limits.probe_header_timeout
    } else {
        HANDSHAKE_TIMEOUT.max(limits.header_timeout)
    };
    let opened = tokio::select! {
        o = tokio::time::timeout(opening, handshake::open(stream, &shared.security)) => o,
        _ = slot.evicted() => return,
    };
    let (mut io, session): (Box<dyn Io>, _) = match opened {
        Ok(Ok(o)) => o,
        Ok(Err(e)) => {
            tracing::debug!(%peer, error = %e, "HTTP connection closed before a request");
            return;
        }
        Err(_) => return,
    };
    let plaintext_only_health = shared.security.require_tls && !session.tls;
    if plaintext_only_health && !peer.ip().is_loopback() {
        shared.metrics.plaintext_refused.inc();
        let why = format!("{REQUIRE_TLS}\n");
        let reply = format!(
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{why}",
            why.len()
        );
        let _ = io.write_all(reply.as_bytes()).await;
        let _ = io.shutdown().await;
        return;
    }
    let info = Peer {
        addr: peer,
        session,
    };
    let handle = slot.handle();
    let tower = TowerToHyperService::new(shared.app.clone());
    let svc_shared = shared.clone();
    let svc = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let busy = handle.busy();
        let shared = svc_shared.clone();
        let info = info.clone();
        let tower = tower.clone();
        async move {
            let path = req.uri().path();
            if plaintext_only_health && !PLAINTEXT_PATHS.contains(&path) {
                shared.metrics.plaintext_refused.inc();
                let r = refusal(StatusCode::BAD_REQUEST, REQUIRE_TLS.to_string(), None);
                return Ok::<_, Infallible>(r.map(|b| Body::new(Tracked::new(b, busy))));
            }
            if probe_only && !PROBE_PATHS.contains(&path) {
                let why = format!(
                    "every HTTP connection is busy ({} in use): this connection serves only {}; try again shortly",
                    shared.limits.max_connections,
                    PROBE_PATHS.join(", ")
                );
                let r = refusal(StatusCode::SERVICE_UNAVAILABLE, why, Some(1));
                return Ok(r.map(|b| Body::new(Tracked::new(b, busy))));
            }
            let tripped = Arc::new(AtomicBool::new(false));
            let limits = shared.limits;
            let mut req = req.map(|b| {
                Body::new(Deadline::new(
                    b,
                    limits.body_timeout,
                    limits.body_min_rate,
                    tripped.clone(),
                ))
            });
            req.extensions_mut().insert(info);
            let mut response = match tower.call(req).await {
                Ok(r) => r,
                Err(never) => match never {},
            };
            if tripped.load(Ordering::Acquire) {
                shared.metrics.slow_bodies.inc();
                tracing::debug!(peer = %peer, "request body too slow: answered 408, connection closed");
                response = refusal(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the request body came too slowly: each part must follow within {} s, at {} bytes/s or more on average; the connection is closed",
                        limits.body_timeout.as_secs_f64(),
                        limits.body_min_rate
                    ),
                    None,
                );
            }
            Ok(response.map(|b| Body::new(Tracked::new(b, busy))))
        }
    });
    let moved = Arc::new(AtomicU64::new(0));
    let mut builder = http1::Builder::new();
    // Header names written as HBase's Jetty writes them (`X-Timestamp`, not `x-timestamp`),
    // for clients that compare them case-sensitively.
    builder
        .title_case_headers(true)
        .timer(TokioTimer::new())
        .header_read_timeout(if probe_only {
            limits.probe_header_timeout
        } else {
            limits.header_timeout
        })
        .max_buf_size(MAX_HEADER);
    if probe_only {
        builder.keep_alive(false);
    }
    let conn = builder.serve_connection(TokioIo::new(Counted::new(io, moved.clone())), svc);
    let mut conn = std::pin::pin!(conn);
    let lifetime = tokio::time::sleep(limits.max_lifetime);
    let mut lifetime = std::pin::pin!(lifetime);
    let grace = tokio::time::sleep(limits.max_lifetime + limits.lifetime_grace);
    let mut grace = std::pin::pin!(grace);
    let mut closing: Option<Closing> = None;
    let mut moved_at_grace = 0u64;
    // What a request in flight must move per grace once the lifetime is over.
    let must_move = (limits.body_min_rate as f64 * limits.lifetime_grace.as_secs_f64()) as u64;
    loop {
        let why = tokio::select! {
            r = conn.as_mut() => {
                if let Err(e) = r {
                    tracing::debug!(%peer, error = %e, "HTTP connection ended");
                }
                break;
            }
            _ = slot.evicted() => {
                tracing::debug!(%peer, "HTTP connection waiting for a request closed: its slot went to a new connection");
                break;
            }
            _ = stop.changed(), if closing.is_none() => Closing::Shutdown,
            _ = lifetime.as_mut(), if closing.is_none() => Closing::Lifetime,
            _ = grace.as_mut(), if closing.is_some() => {
                let now_moved = moved.load(Ordering::Relaxed);
                if now_moved.saturating_sub(moved_at_grace) < must_move.max(1) {
                    if closing == Some(Closing::Lifetime) {
                        shared.metrics.lifetime_cut.inc();
                    }
                    tracing::debug!(%peer, "HTTP request cut: it made no progress after the connection's lifetime");
                    break;
                }
                moved_at_grace = now_moved;
                grace.as_mut().reset(tokio::time::Instant::now() + limits.lifetime_grace);
                continue;
            }
        };
        // No new requests; the one in flight (if any) has the grace to move on.
        closing = Some(why);
        moved_at_grace = moved.load(Ordering::Relaxed);
        grace
            .as_mut()
            .reset(tokio::time::Instant::now() + limits.lifetime_grace);
        conn.as_mut().graceful_shutdown();
    }
    drop(slot);
}

/// A plain-text refusal that closes the connection.
fn refusal(status: StatusCode, why: String, retry_after: Option<u64>) -> Response {
    let mut r = (status, format!("{why}\n")).into_response();
    let h = r.headers_mut();
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    if let Some(secs) = retry_after {
        h.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    r
}
