//! The operations listener's own accept loop, with the limits `axum::serve` lacks: a client
//! could otherwise hold thousands of half-sent requests open (one test held 19,800 for 35 s,
//! nearly every file descriptor of the process, so the Thrift gateways could not accept).
//!
//! - at most [`MAX_CONNECTIONS`] connections; a newcomer past it is closed at once;
//! - a request's headers must arrive within [`HEADER_TIMEOUT`] and fit in [`MAX_HEADER`];
//! - a connection lives at most [`MAX_LIFETIME`] (a scraper simply reconnects);
//! - accept errors (out of descriptors) are logged once a minute, not per connection.
//!
//! The endpoints take no request bodies: a body is never read into memory.
//!
//! TLS is decided per connection (a ClientHello's first byte), as on the Thrift ports; with
//! `--require-tls` a plaintext request is answered 400, except from loopback, so the
//! container's `redbase healthcheck` keeps working. Each request carries its connection's
//! [`Peer`] for the guard.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use hyper::server::conn::http1;
use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};

use super::guard::Peer;
use crate::security::tls::HANDSHAKE_TIMEOUT;
use crate::security::Security;
use crate::thrift::handshake::{self, Io};

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 256;
/// Time a client has to send a request's headers (also bounds an idle keep-alive connection).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// Bytes of request line and headers a connection may buffer.
pub const MAX_HEADER: usize = 16 * 1024;
/// Longest a connection is kept, however busy.
pub const MAX_LIFETIME: Duration = Duration::from_secs(300);

/// Serves `app` on `listener` until `shutdown` completes, then lets requests in flight finish.
pub async fn serve(listener: TcpListener, app: Router, shutdown: impl Future<Output = ()>) {
    serve_with(listener, app, Arc::new(Security::default()), shutdown).await
}

/// As [`serve`], with TLS and `--require-tls` from `security`.
pub async fn serve_with(
    listener: TcpListener,
    app: Router,
    security: Arc<Security>,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
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
            let Ok(permit) = permits.clone().try_acquire_owned() else {
                warn_once_a_minute(
                    "connection limit reached: new connections are closed",
                    format!("{MAX_CONNECTIONS} connections, newest from {peer}"),
                );
                drop(stream);
                continue;
            };
            let app = app.clone();
            let mut stop = stop_rx.clone();
            let security = security.clone();
            tokio::spawn(async move {
                let opened =
                    tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake::open(stream, &security))
                        .await;
                let (mut io, session): (Box<dyn Io>, _) = match opened {
                    Ok(Ok(o)) => o,
                    Ok(Err(e)) => {
                        tracing::debug!(%peer, error = %e, "HTTP connection closed before a request");
                        return;
                    }
                    Err(_) => return,
                };
                if security.require_tls && !session.tls && !peer.ip().is_loopback() {
                    let why = "this server requires TLS (--require-tls): use https\n";
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
                let svc = TowerToHyperService::new(app);
                let svc = hyper::service::service_fn(
                    move |mut req: hyper::Request<hyper::body::Incoming>| {
                        req.extensions_mut().insert(info.clone());
                        svc.call(req)
                    },
                );
                // Header names written as HBase's Jetty writes them (`X-Timestamp`, not
                // `x-timestamp`), for clients that compare them case-sensitively.
                let conn = http1::Builder::new()
                    .title_case_headers(true)
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .max_buf_size(MAX_HEADER)
                    .serve_connection(TokioIo::new(io), svc);
                let mut conn = std::pin::pin!(conn);
                let lifetime = tokio::time::sleep(MAX_LIFETIME);
                let mut lifetime = std::pin::pin!(lifetime);
                let mut closing = false;
                loop {
                    tokio::select! {
                        r = conn.as_mut() => {
                            if let Err(e) = r {
                                tracing::debug!(%peer, error = %e, "HTTP connection ended");
                            }
                            break;
                        }
                        _ = stop.changed(), if !closing => {
                            closing = true;
                            conn.as_mut().graceful_shutdown();
                        }
                        _ = lifetime.as_mut(), if !closing => {
                            closing = true;
                            conn.as_mut().graceful_shutdown();
                        }
                    }
                }
                drop(permit);
            });
        }
    };
    tokio::select! {
        _ = accept => {}
        _ = shutdown => {}
    }
    let _ = stop_tx.send(true);
    // Requests in flight finish (each is short); wait for their connections to close.
    let _ = tokio::time::timeout(
        Duration::from_secs(10),
        permits.acquire_many(MAX_CONNECTIONS as u32),
    )
    .await;
}
