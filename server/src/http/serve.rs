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

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};

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
            tokio::spawn(async move {
                let conn = http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .max_buf_size(MAX_HEADER)
                    .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app));
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
