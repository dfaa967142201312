//! One native connection: the preamble, the connection header, then calls. Calls run
//! concurrently (a client multiplexes its threads over one connection, matching answers by
//! call id), at most `calls_per_connection` at once; the reader stops reading while that many
//! are in flight. Each call holds its frame's bytes, then its response's, from the server's
//! in-flight budget; a frame over the size bound is answered RequestTooBigException and the
//! connection closes, as HBase does; a frame the budget cannot hold now is read past and
//! answered CallQueueTooBigException, which the client retries after a pause.
//!
//! A connection may open with a TLS handshake (HBase 2.6's `hbase.client.netty.tls.enabled`;
//! the first byte decides, as on the Thrift ports). With an auth file, the caller is the user
//! its verified client certificate names, and a connection without one (SIMPLE
//! authentication) is refused with AccessDeniedException; every call then runs as that caller
//! through the same access checks as the other gateways.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadHalf};
use tokio::net::TcpStream;
use tokio::sync::{broadcast, mpsc, Semaphore};

use crate::gateway::caller::{self, Caller};
use crate::thrift::budget::Share;
use crate::thrift::handshake::{self, HandshakeError, Io};
use crate::thrift::slots::Slot;

use super::cellblock;
use super::dispatch::{self, Service};
use super::errors::{class, NativeError};
use super::frame::{self, Preamble, NO_CALL};
use super::{pb, registry, Native};

/// How long a call waits for room in the in-flight budget before it is refused.
const BUDGET_WAIT: Duration = Duration::from_secs(2);
/// Security preambles answered on one connection before it is closed.
const MAX_SECURITY_PREAMBLES: usize = 4;
/// Bytes read of an oversized or refused frame to find its call id.
const HEADER_PEEK: usize = 4096;

/// How a connection ended.
#[derive(Debug)]
pub enum End {
    /// The client closed it, or asked only for the registry.
    Closed,
    Idle,
    Shutdown,
    Evicted,
    /// Refused with an error sent first (a bad preamble or header, a frame over the bound).
    Refused(String),
    /// Bytes that are not HBase's RPC; closed without an answer.
    Malformed(String),
    Io(std::io::Error),
}

struct Reader<'a> {
    rd: ReadHalf<Box<dyn Io>>,
    idle: Duration,
    inflight: &'a AtomicUsize,
    shutdown: &'a mut broadcast::Receiver<()>,
    slot: &'a Slot,
}

impl Reader<'_> {
    /// Fills `buf`. At a frame's start (`boundary`) a connection with calls in flight may stay
    /// quiet for as long as they take; otherwise silence for the idle timeout closes it.
    async fn fill(&mut self, buf: &mut [u8], boundary: bool) -> Result<(), End> {
        let mut filled = 0;
        while filled < buf.len() {
            tokio::select! {
                r = tokio::time::timeout(self.idle, self.rd.read(&mut buf[filled..])) => match r {
                    Ok(Ok(0)) if filled == 0 && boundary => return Err(End::Closed),
                    Ok(Ok(0)) => {
                        return Err(End::Malformed("the connection closed inside a frame".into()))
                    }
                    Ok(Ok(n)) => filled += n,
                    Ok(Err(e)) => return Err(End::Io(e)),
                    Err(_) => {
                        if !(boundary && filled == 0 && self.inflight.load(Ordering::Acquire) > 0) {
                            return Err(End::Idle);
                        }
                    }
                },
                _ = self.shutdown.recv(), if boundary && filled == 0 => return Err(End::Shutdown),
                _ = self.slot.evict.notified(), if boundary && filled == 0 => return Err(End::Evicted),
            }
        }
        Ok(())
    }

    async fn u32(&mut self, boundary: bool) -> Result<usize, End> {
        let mut b = [0u8; 4];
        self.fill(&mut b, boundary).await?;
        Ok(u32::from_be_bytes(b) as usize)
    }

    /// Reads and drops `len` bytes, keeping the first few to find the call's header.
    async fn skip(&mut self, len: usize) -> Result<Option<pb::RequestHeader>, End> {
        let mut head = vec![0u8; len.min(HEADER_PEEK)];
        self.fill(&mut head, false).await?;
        let mut left = len - head.len();
        let mut scratch = [0u8; 8192];
        while left > 0 {
            let n = left.min(scratch.len());
            self.fill(&mut scratch[..n], false).await?;
            left -= n;
        }
        Ok(frame::peek_header(&head))
    }
}

/// What the connection header settled.
struct Session {
    service: Service,
    codec: bool,
}

fn fatal(class: &'static str, message: String) -> NativeError {
    NativeError::final_(class, message)
}

/// Why a connection without a certificate identity is refused when the auth file is set.
const AUTH_REQUIRED: &str = "authentication required: this server has an --auth-file, and its \
     native RPC takes the caller from a TLS client certificate: connect with \
     hbase.client.netty.tls.enabled=true and a certificate signed by the server's \
     --tls-client-ca (SIMPLE authentication is refused)";
const REQUIRE_TLS: &str = "this server requires TLS (--require-tls): plaintext connections are \
     refused; connect with hbase.client.netty.tls.enabled=true";

fn session(
    ctx: &Native,
    header: &pb::ConnectionHeader,
    caller: &Caller,
) -> Result<Session, NativeError> {
    if ctx.security.auth.is_some() && caller.user.is_none() {
        return Err(NativeError::final_(class::ACCESS_DENIED, AUTH_REQUIRED));
    }
    let name = header.service_name.as_deref().unwrap_or("");
    let service = Service::by_name(name).ok_or_else(|| {
        fatal(
            class::UNKNOWN_SERVICE,
            format!(
                "unknown service {name:?}: redbase serves ClientService, MasterService, \
                 AdminService and ClientMetaService"
            ),
        )
    })?;
    let codec = match header.cell_block_codec_class.as_deref() {
        None | Some("") => false,
        Some(c) if cellblock::CODECS.contains(&c) => true,
        Some(c) => {
            return Err(fatal(
                class::UNSUPPORTED_CELL_CODEC,
                format!(
                    "cell block codec {c} is not supported: use {} (HBase's default)",
                    cellblock::CODECS[0]
                ),
            ))
        }
    };
    if let Some(c) = header
        .cell_block_compressor_class
        .as_deref()
        .filter(|c| !c.is_empty())
    {
        return Err(fatal(
            class::UNSUPPORTED_COMPRESSION,
            format!("cell block compression {c} is not supported: leave it unset"),
        ));
    }
    Ok(Session { service, codec })
}

/// Serves one connection until it ends.
pub async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    ctx: Arc<Native>,
    slot: Arc<Slot>,
    mut shutdown: broadcast::Receiver<()>,
) -> End {
    let _ = stream.set_nodelay(true);
    // TLS or plaintext, by the first byte; a TLS handshake that cannot be completed cannot be
    // answered in HBase's framing either, so the connection just closes.
    let opened = tokio::select! {
        r = tokio::time::timeout(
            ctx.limits.idle_timeout,
            handshake::open(stream, &ctx.security),
        ) => r,
        _ = shutdown.recv() => return End::Shutdown,
        _ = slot.evict.notified() => return End::Evicted,
    };
    let (io, tls) = match opened {
        Err(_) => return End::Idle,
        Ok(Err(HandshakeError::Closed)) => return End::Closed,
        Ok(Err(e)) => return End::Refused(e.to_string()),
        Ok(Ok(opened)) => opened,
    };
    let caller = tls.caller(peer);
    let (rd, mut wr) = tokio::io::split(io);
    let inflight = Arc::new(AtomicUsize::new(0));
    let mut reader = Reader {
        rd,
        idle: ctx.limits.idle_timeout,
        inflight: &inflight,
        shutdown: &mut shutdown,
        slot: &slot,
    };
    // The preamble (a registry or security preamble may come first).
    let mut securities = 0;
    loop {
        let mut pre = [0u8; 6];
        if let Err(end) = reader.fill(&mut pre, true).await {
            return end;
        }
        if ctx.security.require_tls && !caller.tls {
            return refuse(
                &mut wr,
                NativeError::final_(class::FATAL_CONNECTION, REQUIRE_TLS),
            )
            .await;
        }
        let answer = match frame::preamble(&pre) {
            Preamble::Rpc => break,
            Preamble::Registry => {
                let msg = registry::connection_registry(&ctx);
                let _ = wr
                    .write_all(&frame::response(NO_CALL, Some(&msg), &[]))
                    .await;
                let _ = wr.shutdown().await;
                return End::Closed;
            }
            Preamble::Security if securities < MAX_SECURITY_PREAMBLES => {
                securities += 1;
                let e = NativeError::retry(class::SECURITY_NOT_ENABLED, "security is not enabled");
                if wr
                    .write_all(&frame::error_response(NO_CALL, &e))
                    .await
                    .is_err()
                {
                    return End::Closed;
                }
                continue;
            }
            Preamble::Security => NativeError::final_(
                class::FATAL_CONNECTION,
                "too many security preambles".to_string(),
            ),
            Preamble::Refused(e) => e,
        };
        return refuse(&mut wr, answer).await;
    }
    // The connection header.
    let len = match reader.u32(false).await {
        Ok(l) => l,
        Err(end) => return end,
    };
    if len > frame::MAX_CONNECTION_HEADER {
        let e = fatal(
            class::FATAL_CONNECTION,
            format!(
                "connection header of {len} bytes is over the bound of {}",
                frame::MAX_CONNECTION_HEADER
            ),
        );
        return refuse(&mut wr, e).await;
    }
    let mut buf = vec![0u8; len];
    if let Err(end) = reader.fill(&mut buf, false).await {
        return end;
    }
    let session = match pb::ConnectionHeader::decode(&buf[..]) {
        Ok(h) => session(&ctx, &h, &caller),
        Err(e) => Err(fatal(
            class::FATAL_CONNECTION,
            format!("cannot decode the connection header: {e}"),
        )),
    };
    let session = match session {
        Ok(s) => s,
        Err(e) => return refuse(&mut wr, e).await,
    };
    drop(buf);
    // Calls.
    let calls = Arc::new(Semaphore::new(ctx.limits.calls_per_connection.max(1)));
    let (tx, mut rx) = mpsc::channel::<(Vec<u8>, Share)>(ctx.limits.calls_per_connection.max(1));
    let idle = ctx.limits.idle_timeout;
    let writer = tokio::spawn(async move {
        while let Some((bytes, share)) = rx.recv().await {
            match tokio::time::timeout(idle, wr.write_all(&bytes)).await {
                Ok(Ok(())) => drop(share),
                Ok(Err(e)) => return Some(End::Io(e)),
                Err(_) => return Some(End::Idle),
            }
        }
        let _ = wr.shutdown().await;
        None
    });
    let end = loop {
        if tx.is_closed() {
            // The writer gave up: the client stopped taking its answers.
            break End::Idle;
        }
        let permit = tokio::select! {
            p = calls.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break End::Closed,
            },
            _ = reader.shutdown.recv() => break End::Shutdown,
            _ = slot.evict.notified() => break End::Evicted,
        };
        let len = match reader.u32(true).await {
            Ok(l) => l,
            Err(end) => break end,
        };
        if len > ctx.limits.max_frame {
            let header = match reader.skip(len.min(HEADER_PEEK)).await {
                Ok(h) => h,
                Err(end) => break end,
            };
            let e = NativeError::final_(
                class::REQUEST_TOO_BIG,
                format!(
                    "RPC data length of {len} received from {peer} is greater than max allowed \
                     {} (--max-message-size)",
                    ctx.limits.max_frame
                ),
            );
            ctx.metrics.refused("request_too_big");
            if let Some(h) = header {
                let bytes = frame::error_response(h.call_id.unwrap_or(0), &e);
                let _ = tx.send((bytes, ctx.limits.budget.share())).await;
            }
            break End::Refused(e.message);
        }
        let mut share = ctx.limits.budget.share();
        if share.grow_to(4 + len, BUDGET_WAIT).await.is_err() {
            let header = match reader.skip(len).await {
                Ok(h) => h,
                Err(end) => break end,
            };
            ctx.metrics.refused("budget");
            let Some(h) = header else {
                break End::Malformed("a call whose header cannot be read".into());
            };
            let e = NativeError::retry(
                class::CALL_QUEUE_TOO_BIG,
                format!(
                    "the server's budget for requests in flight ({} bytes, \
                     --max-inflight-bytes) cannot hold this call now; retry later",
                    ctx.limits.budget.total()
                ),
            );
            let _ = tx
                .send((frame::error_response(h.call_id.unwrap_or(0), &e), share))
                .await;
            continue;
        }
        let mut body = vec![0u8; len];
        if let Err(end) = reader.fill(&mut body, false).await {
            break end;
        }
        let call = match frame::parse_call(Bytes::from(body)) {
            Ok(c) => c,
            Err(bad) => {
                ctx.metrics
                    .call(session.service, "", "error", Duration::ZERO);
                match bad.call_id {
                    Some(id) => {
                        let _ = tx
                            .send((frame::error_response(id, &bad.error), share))
                            .await;
                        continue;
                    }
                    None => break End::Malformed(bad.error.message),
                }
            }
        };
        if inflight.fetch_add(1, Ordering::AcqRel) == 0 {
            slot.call_started();
        }
        let service = session.service;
        let codec = session.codec;
        // A short read runs here, on the connection's task, while the server-wide inline cap
        // allows: handing it to a blocking thread and back costs more than the read (as on
        // the Thrift gateways, `crate::thrift::inline`).
        let inline = dispatch::is_short(service, call.method())
            .then(|| ctx.limits.inline.try_start())
            .flatten();
        if let Some(running) = inline {
            let began = Instant::now();
            let (bytes, outcome) = answer(&ctx, service, codec, caller.clone(), &call);
            drop(running);
            ctx.metrics
                .call(service, call.method(), outcome, began.elapsed());
            let (bytes, share) = fit(&ctx, call.id(), bytes, share).await;
            let _ = tx.send((bytes, share)).await;
            drop(permit);
            if inflight.fetch_sub(1, Ordering::AcqRel) == 1 {
                slot.call_finished();
            }
            continue;
        }
        let (ctx, tx, inflight, slot, caller) = (
            ctx.clone(),
            tx.clone(),
            inflight.clone(),
            slot.clone(),
            caller.clone(),
        );
        tokio::spawn(async move {
            let began = Instant::now();
            let id = call.id();
            let task_ctx = ctx.clone();
            let run = tokio::task::spawn_blocking(move || {
                let (bytes, outcome) = answer(&task_ctx, service, codec, caller, &call);
                (bytes, outcome, call)
            })
            .await;
            let bytes = match run {
                Ok((bytes, outcome, call)) => {
                    ctx.metrics
                        .call(service, call.method(), outcome, began.elapsed());
                    bytes
                }
                Err(e) => {
                    tracing::error!(service = service.name(), error = %e, "native call failed");
                    let e = NativeError::retry(
                        class::IO,
                        format!("the call failed on the server: {e}"),
                    );
                    ctx.metrics.call(service, "", "exception", began.elapsed());
                    frame::error_response(id, &e)
                }
            };
            let (bytes, share) = fit(&ctx, id, bytes, share).await;
            let _ = tx.send((bytes, share)).await;
            drop(permit);
            if inflight.fetch_sub(1, Ordering::AcqRel) == 1 {
                slot.call_finished();
            }
        });
    };
    // No new calls; the answers of those in flight are still written.
    drop(tx);
    match writer.await {
        Ok(Some(e)) => e,
        _ => end,
    }
}

/// Runs one call as `caller` and frames its answer; a handler that panics is answered as a
/// retryable IOException (the connection goes on).
fn answer(
    ctx: &Native,
    service: Service,
    codec: bool,
    caller: Caller,
    call: &frame::Call,
) -> (Vec<u8>, &'static str) {
    let id = call.id();
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        caller::scope(caller, || dispatch::call(ctx, service, codec, call))
    }));
    match run {
        Ok(Ok(reply)) => (
            frame::response(id, Some(&reply.message), &reply.cells),
            "ok",
        ),
        Ok(Err(e)) => (frame::error_response(id, &e), "error"),
        Err(_) => {
            tracing::error!(
                service = service.name(),
                method = call.method(),
                "native call panicked"
            );
            let e = NativeError::retry(
                class::IO,
                "the call failed on the server (a handler panicked)",
            );
            (frame::error_response(id, &e), "exception")
        }
    }
}

/// Holds an answer's bytes in the in-flight budget, or, when the budget cannot hold them in
/// time, answers CallQueueTooBigException instead.
async fn fit(ctx: &Native, id: u32, bytes: Vec<u8>, mut share: Share) -> (Vec<u8>, Share) {
    if share.grow_to(bytes.len(), BUDGET_WAIT).await.is_err() {
        ctx.metrics.refused("budget");
        let e = NativeError::retry(
            class::CALL_QUEUE_TOO_BIG,
            "the answer does not fit the server's in-flight budget now; retry later",
        );
        return (frame::error_response(id, &e), share);
    }
    (bytes, share)
}

/// Sends a fatal error (as the answer to no call) and closes.
async fn refuse(wr: &mut (impl AsyncWrite + Unpin), e: NativeError) -> End {
    let _ = wr.write_all(&frame::error_response(NO_CALL, &e)).await;
    let _ = wr.shutdown().await;
    End::Refused(e.to_string())
}
