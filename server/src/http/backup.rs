//! `POST /api/backup`: an online backup of the whole server, streamed as the response body
//! ([`crate::backup::stream`]). `redbase backup --to DIR` is its client.
//!
//! With an auth file only a superuser may take one (a backup reads every table and the
//! grants). Read-only mode allows it: a backup writes nothing to the server. One backup at a
//! time: a second is answered 409 while the first runs.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use bytes::Bytes;
use hyper::body::Frame;

use super::Shared;
use crate::backup::stream::{frame, TAG_ERROR};
use crate::engine::BackupError;
use crate::gateway::caller::{self, Caller};

/// Frames waiting for the client: with [`crate::backup::stream::DATA_MAX`] per frame, the
/// most a slow client makes the server hold.
const QUEUED_FRAMES: usize = 8;
/// How often a backup waiting for a slow client looks whether the server is stopping.
const SEND_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

pub(super) async fn backup(
    State(s): State<Arc<Shared>>,
    caller: Option<Extension<Caller>>,
) -> Response {
    let access = &s.options.access;
    let allowed = match &caller {
        Some(Extension(c)) => caller::scope(c.clone(), || access.is_superuser()),
        None => access.is_superuser(),
    };
    if s.options.security.auth.is_some() && !allowed {
        return (
            StatusCode::FORBIDDEN,
            "a backup reads every table and grant: only a superuser may take one\n",
        )
            .into_response();
    }
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(QUEUED_FRAMES);
    let engine = s.engine.clone();
    let handle = tokio::runtime::Handle::current();
    let spawned = std::thread::Builder::new()
        .name("backup".into())
        .spawn(move || {
            let point = match engine.backup_point() {
                Ok(p) => p,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let _ = ready_tx.send(Ok(()));
            // Waits while the client is slow, but not past the engine's closing: a stalled
            // client must not hold the DDL lock (and so the shutdown) forever.
            let send = |b: Vec<u8>| loop {
                // The timer is made inside the runtime (it needs its clock).
                let reserved =
                    handle.block_on(async { tokio::time::timeout(SEND_WAIT, tx.reserve()).await });
                match reserved {
                    Ok(Ok(permit)) => {
                        permit.send(Bytes::from(b));
                        return true;
                    }
                    Ok(Err(_)) => return false,
                    Err(_) if engine.is_closing() => return false,
                    Err(_) => {}
                }
            };
            match crate::backup::produce::stream(point, &send) {
                Ok(m) => tracing::info!(
                    files = m.files.len(),
                    tables = m.tables.len(),
                    "backup streamed"
                ),
                Err(e) => {
                    tracing::warn!(error = %e, "backup failed");
                    send(frame(TAG_ERROR, e.to_string().as_bytes()));
                }
            }
        });
    if let Err(e) = spawned {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot start the backup thread: {e}\n"),
        )
            .into_response();
    }
    match ready_rx.await {
        Ok(Ok(())) => (
            [
                (header::CONTENT_TYPE, "application/x-redbase-backup"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            axum::body::Body::new(ChannelBody(rx)),
        )
            .into_response(),
        Ok(Err(e)) => {
            let status = match e {
                BackupError::Busy => StatusCode::CONFLICT,
                BackupError::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            (status, format!("{e}\n")).into_response()
        }
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "the backup thread ended without an answer\n",
        )
            .into_response(),
    }
}

/// The response body: frames as the backup thread sends them. Dropped when the client goes,
/// which makes the thread's next send fail and the backup stop.
struct ChannelBody(tokio::sync::mpsc::Receiver<Bytes>);

impl hyper::body::Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|o| o.map(|b| Ok(Frame::data(b))))
    }
}
