//! The Thrift server shared by both gateways: listener, connection limits, shutdown, and the
//! glue between whole messages and a generated Thrift processor.
//!
//! Map: [`frame`] finds whole messages (buffered, framed, HTTP; binary strict or not, compact)
//! and checks every length and count before decoding; [`connection`] serves one connection
//! (an error reply before a close); [`handshake`] tells TLS from plaintext by the first byte and
//! [`gate`] applies the security rules before each call (SASL PLAIN included); [`budget`] is the
//! server-wide in-flight byte budget, [`slots`] a gateway's connections (the idle-longest one is
//! evicted at the cap), [`inline`] the short reads answered on the connection's own worker, and
//! [`outcome`] reads a call's method and outcome back from its reply for the metrics. This file
//! holds the accept loop (eviction at the cap, shutdown) and `process_message`, which gives every
//! call a reply.

pub mod budget;
pub mod connection;
pub mod frame;
mod gate;
pub mod handshake;
pub mod inline;
pub mod outcome;
pub mod slots;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TMessageIdentifier, TMessageType, TOutputProtocol,
};
use thrift::server::TProcessor;

pub use crate::gateway::awaited::PendingReply;
use crate::gateway::wrong_port::{declared_error_reply, WrongPort};
use crate::gateway::Caller;
use crate::security::Security;
use thrift::{ApplicationError, ApplicationErrorKind};
use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc, Semaphore};

pub use budget::Budget;
use connection::{Connection, End};
use frame::Protocol;
pub use inline::InlineCalls;
use slots::Slots;

/// Something that answers one whole Thrift message with one whole reply (empty = no reply).
/// It runs on a blocking thread: engine calls may wait for a disk sync.
pub trait Service: Send + Sync + 'static {
    fn process(&self, message: &[u8], protocol: Protocol) -> Vec<u8>;

    /// As `process`, knowing the caller (for services that log who called). The connection
    /// has made `caller` the thread's current caller ([`crate::gateway::caller::scope`]).
    fn process_from(&self, message: &[u8], protocol: Protocol, _caller: &Caller) -> Vec<u8> {
        self.process(message, protocol)
    }

    /// One line for a browser that sent an HTTP GET to this port (None: the generic refusal).
    fn browser_hint(&self) -> Option<String> {
        None
    }

    /// Whether `method` is a short read (bounded work, never a sync) that may run on the
    /// connection's own task ([`inline`]).
    fn is_short(&self, _method: &str, _message: &[u8], _protocol: Protocol) -> bool {
        false
    }

    /// Starts a call that can await its outcome without a thread (a one-row write waiting for
    /// its commit, [`crate::gateway::awaited`]) on the connection's own task; its reply comes
    /// from the future. None: run the call the usual way.
    fn start(
        self: Arc<Self>,
        _method: &str,
        _message: &[u8],
        _protocol: Protocol,
        _caller: &Caller,
    ) -> Option<PendingReply> {
        None
    }
}

/// What the accept loop and its connections report as they go (the server's metrics). The
/// default methods report nothing, so `()` serves where nobody is listening.
pub trait Observer: Send + Sync + 'static {
    /// A connection was accepted and is being served.
    fn connection_opened(&self) {}
    /// A connection opened earlier has ended, however it ended.
    fn connection_closed(&self) {}
    /// At the connection cap, an idle connection was closed to serve a new one.
    fn connection_evicted(&self) {}
    /// At the connection cap with every connection in a call, a new one was turned away.
    fn connection_refused(&self) {}
    /// A client left its reply unread for the idle timeout and its connection was closed.
    fn connection_stalled(&self) {}
    /// One call was answered: its request, its reply (empty when none was written) and how
    /// long it took from the whole request being read to the reply being ready.
    fn call(&self, _request: &[u8], _reply: &[u8], _protocol: Protocol, _elapsed: Duration) {}
}

impl Observer for () {}

/// Limits a client cannot raise.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest message (or frame, or HTTP body) accepted.
    pub max_message: usize,
    /// Connections served at once. At the cap a newcomer takes the slot of the connection
    /// idle longest; when every connection is in a call, the newcomer is told so and closed.
    pub max_connections: usize,
    /// A connection with no message for this long is closed, and so is one whose client has
    /// not taken its reply after this long.
    pub idle_timeout: Duration,
    /// Bytes held by messages being received, processed and answered, over every connection of
    /// every gateway that shares this budget (clones share it).
    pub budget: Budget,
    /// Short reads run on the connection's task, up to this many at once ([`inline`]).
    pub inline: InlineCalls,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message: 16 * 1024 * 1024,
            max_connections: 1024,
            idle_timeout: Duration::from_secs(60),
            budget: Budget::default(),
            inline: InlineCalls::default(),
        }
    }
}

/// Runs `processor` for one message: the reply is written in the protocol the request used.
///
/// Every call gets a reply. The message is walked first (no allocation): a length or element
/// count that claims more bytes than the message holds is a protocol error, answered before the
/// generated decoder could reserve memory for it. A decoder or handler error that wrote nothing
/// (a method name that is not UTF-8, a union with no field we know) and a panic are answered
/// with a `TApplicationException` too, so the client never waits for a reply that will not come
/// and the connection stays usable.
pub fn process_message(processor: &dyn TProcessor, message: &[u8], protocol: Protocol) -> Vec<u8> {
    process_message_hinted(processor, message, protocol, None)
}

/// As [`process_message`]; a call of a method this service lacks but the other Thrift service
/// has is answered with `wrong_port`'s hint as that method's declared I/O error.
pub fn process_message_hinted(
    processor: &dyn TProcessor,
    message: &[u8],
    protocol: Protocol,
    wrong_port: Option<&WrongPort>,
) -> Vec<u8> {
    if let Err(why) = check_message(message, protocol) {
        tracing::warn!(reason = %why, "malformed request answered with a protocol error");
        return error_reply(message, protocol, ApplicationErrorKind::ProtocolError, why);
    }
    let mut out = Vec::new();
    let run = std::panic::AssertUnwindSafe(|| match protocol {
        Protocol::Binary { strict } => {
            let mut i = TBinaryInputProtocol::new(message, strict);
            let mut o = TBinaryOutputProtocol::new(&mut out, true);
            processor.process(&mut i, &mut o)
        }
        Protocol::Compact => {
            let mut i = TCompactInputProtocol::new(message);
            let mut o = TCompactOutputProtocol::new(&mut out);
            processor.process(&mut i, &mut o)
        }
    });
    match std::panic::catch_unwind(run) {
        // The processor answers an unknown method with an exception reply of its own.
        Ok(Ok(())) if wrong_port.is_some() && is_exception_reply(&out, protocol) => {
            let (name, seq) = frame::message_header(message, protocol).unwrap_or_default();
            match wrong_port.and_then(|w| w.method_hint(&name)) {
                Some(hint) => {
                    tracing::info!(method = %name, "a call meant for the other Thrift port");
                    declared_error_reply(&name, seq, protocol, &hint)
                }
                None => out,
            }
        }
        Ok(Ok(())) => out,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "request failed");
            if out.is_empty() {
                let kind = match &e {
                    thrift::Error::Protocol(_) => ApplicationErrorKind::ProtocolError,
                    _ => ApplicationErrorKind::InternalError,
                };
                error_reply(
                    message,
                    protocol,
                    kind,
                    format!("cannot process the call: {e}"),
                )
            } else {
                out
            }
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(panic = %what, "request handler panicked");
            error_reply(
                message,
                protocol,
                ApplicationErrorKind::InternalError,
                format!("internal error processing the call: {what}"),
            )
        }
    }
}

/// Whether `reply` (written strict in binary) is an exception message.
fn is_exception_reply(reply: &[u8], protocol: Protocol) -> bool {
    const EXCEPTION: u8 = 3;
    match protocol {
        Protocol::Binary { .. } => reply.len() >= 4 && reply[3] == EXCEPTION,
        Protocol::Compact => reply.len() >= 2 && reply[1] >> 5 == EXCEPTION,
    }
}

/// A whole message must hold every byte its lengths and counts claim.
pub(crate) fn check_message(message: &[u8], protocol: Protocol) -> Result<(), String> {
    match frame::message_len(message, protocol, message.len()) {
        frame::Scan::Done((), _) => Ok(()),
        frame::Scan::Incomplete => Err(format!(
            "the message ends early: a length or element count claims more than its {} bytes",
            message.len()
        )),
        frame::Scan::Invalid(why) => Err(format!("malformed message: {why}")),
    }
}

/// A `TApplicationException` reply to `message`, naming its method and sequence id where the
/// header can be read (an empty name and id 0 where it cannot).
pub fn error_reply(
    message: &[u8],
    protocol: Protocol,
    kind: ApplicationErrorKind,
    text: impl Into<String>,
) -> Vec<u8> {
    let (name, seq) = frame::message_header(message, protocol).unwrap_or_default();
    let ident = TMessageIdentifier::new(name, TMessageType::Exception, seq);
    let err = ApplicationError::new(kind, text.into());
    let mut out = Vec::new();
    let written = match protocol {
        Protocol::Binary { .. } => {
            let mut o = TBinaryOutputProtocol::new(&mut out, true);
            write_error(&mut o, &ident, &err)
        }
        Protocol::Compact => {
            let mut o = TCompactOutputProtocol::new(&mut out);
            write_error(&mut o, &ident, &err)
        }
    };
    if let Err(e) = written {
        tracing::warn!(error = %e, "cannot write an error reply");
    }
    out
}

fn write_error(
    o: &mut dyn TOutputProtocol,
    ident: &TMessageIdentifier,
    err: &ApplicationError,
) -> thrift::Result<()> {
    o.write_message_begin(ident)?;
    thrift::Error::write_application_error_to_out_protocol(err, o)?;
    o.write_message_end()?;
    o.flush()
}

/// Connections being turned away at once (each reads one request to answer it).
const MAX_REFUSING: usize = 64;

/// Accepts connections on `listener` and serves them with `service` until `shutdown`
/// completes; then stops accepting, lets every in-flight call finish, and returns.
pub async fn run(
    listener: TcpListener,
    service: Arc<dyn Service>,
    name: &'static str,
    limits: Limits,
    observer: Arc<dyn Observer>,
    shutdown: impl Future,
) {
    run_secured(
        listener,
        service,
        name,
        limits,
        observer,
        Arc::new(Security::default()),
        shutdown,
    )
    .await
}

/// As [`run`], with TLS, authentication and the HTTP rules of `security`.
pub async fn run_secured(
    listener: TcpListener,
    service: Arc<dyn Service>,
    name: &'static str,
    limits: Limits,
    observer: Arc<dyn Observer>,
    security: Arc<Security>,
    shutdown: impl Future,
) {
    let (notify_shutdown, _) = broadcast::channel::<()>(1);
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let slots = Arc::new(Slots::default());
    let refusing = Arc::new(Semaphore::new(MAX_REFUSING));
    let mut quiet = QuietLog::default();
    let accept = async {
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(s) => s,
                Err(e) => {
                    // Out of descriptors, most likely: wait for some to close. Logged once a
                    // minute at most, not per failed accept.
                    quiet.warn("accept failed", || {
                        tracing::warn!(service = name, error = %e, "accept failed (repeats are not logged for a minute)")
                    });
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            if slots.len() >= limits.max_connections {
                match slots.evict_idlest() {
                    Some((victim, idle)) => {
                        observer.connection_evicted();
                        quiet.warn("evict", || {
                            tracing::warn!(service = name, %victim, idle_ms = idle.as_millis() as u64, max_connections = limits.max_connections,
                                "connection limit reached: closed the connection idle longest to serve a new one (repeats are counted in metrics, logged once a minute)")
                        });
                    }
                    None => {
                        observer.connection_refused();
                        quiet.warn("refuse", || {
                            tracing::warn!(service = name, %peer, max_connections = limits.max_connections,
                                "connection limit reached with every connection in a call: new connection refused (repeats are counted in metrics, logged once a minute)")
                        });
                        if let Ok(permit) = refusing.clone().try_acquire_owned() {
                            let limits = limits.clone();
                            let security = security.clone();
                            tokio::spawn(async move {
                                refuse(stream, peer, &limits, security).await;
                                drop(permit);
                            });
                        }
                        continue;
                    }
                }
            }
            let _ = stream.set_nodelay(true);
            let slot = slots.add(peer);
            let slots = slots.clone();
            let service = service.clone();
            let mut shutdown_rx = notify_shutdown.subscribe();
            let done = done_tx.clone();
            let limits = limits.clone();
            let observer = observer.clone();
            let security = security.clone();
            tokio::spawn(async move {
                // Per-connection lines are debug: at scale they would drown everything else.
                tracing::debug!(service = name, %peer, "connection opened");
                observer.connection_opened();
                let opened = tokio::select! {
                    r = tokio::time::timeout(limits.idle_timeout, handshake::open(stream, &security)) => r.ok(),
                    _ = shutdown_rx.recv() => None,
                    _ = slot.evict.notified() => None,
                };
                let (io, session) = match opened {
                    Some(Ok(o)) => o,
                    Some(Err(e)) => {
                        tracing::debug!(service = name, %peer, error = %e, "connection closed before its first message");
                        slots.remove(&slot);
                        observer.connection_closed();
                        drop(done);
                        return;
                    }
                    None => {
                        slots.remove(&slot);
                        observer.connection_closed();
                        drop(done);
                        return;
                    }
                };
                let mut conn = Connection::new(
                    io,
                    peer,
                    session,
                    security,
                    limits.max_message,
                    limits.budget.share(),
                    slot.clone(),
                )
                .with_inline(limits.inline.clone());
                let browser_hint = service.browser_hint();
                let end = conn
                    .serve(service, &*observer, limits.idle_timeout, &mut shutdown_rx)
                    .await;
                slots.remove(&slot);
                observer.connection_closed();
                match &end {
                    End::Malformed(why) | End::Budget(why) => {
                        tracing::warn!(service = name, %peer, reason = %why, "connection dropped");
                        conn.reject(why).await;
                    }
                    End::NotPost(why) => {
                        tracing::debug!(service = name, %peer, reason = %why, "not a Thrift call");
                        let hint = browser_hint.unwrap_or_else(|| why.clone());
                        conn.reject(&format!("{hint}\n")).await;
                    }
                    End::Io(e) => {
                        tracing::debug!(service = name, %peer, error = %e, "connection error")
                    }
                    End::Stalled => {
                        observer.connection_stalled();
                        tracing::debug!(
                            service = name,
                            %peer,
                            idle_timeout_secs = limits.idle_timeout.as_secs(),
                            "connection closed: the client did not read its reply"
                        )
                    }
                    End::Refused(why) => {
                        tracing::debug!(service = name, %peer, reason = %why, "connection refused by a security rule")
                    }
                    End::Idle => tracing::debug!(
                        service = name,
                        %peer,
                        idle_timeout_secs = limits.idle_timeout.as_secs(),
                        "idle connection closed"
                    ),
                    other => {
                        tracing::debug!(service = name, %peer, end = ?other, "connection closed")
                    }
                }
                drop(done);
            });
        }
    };
    tokio::select! {
        _ = accept => {}
        _ = shutdown => {
            tracing::info!(service = name, "shutting down: no new connections");
        }
    }
    drop(notify_shutdown);
    drop(done_tx);
    let _ = done_rx.recv().await;
}

/// Answers one request of a connection the server has no room for, then closes it.
async fn refuse(
    stream: tokio::net::TcpStream,
    peer: std::net::SocketAddr,
    limits: &Limits,
    security: Arc<Security>,
) {
    let why = format!(
        "the server is at its connection limit ({}) with every connection in a call; \
         try again later",
        limits.max_connections
    );
    let answer = async {
        let Ok((io, session)) = handshake::open(stream, &security).await else {
            return;
        };
        // A budget and a slot of its own: it holds at most one small message.
        let mut conn = Connection::new(
            io,
            peer,
            session,
            security.clone(),
            64 * 1024,
            Budget::new(64 * 1024).share(),
            Arc::new(Slots::default()).add(std::net::SocketAddr::from(([0, 0, 0, 0], 0))),
        );
        conn.reject_call(&why).await;
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), answer).await;
}

/// Logs a repeated event once a minute at most.
#[derive(Default)]
struct QuietLog {
    last: std::collections::HashMap<&'static str, std::time::Instant>,
}

impl QuietLog {
    fn warn(&mut self, what: &'static str, log: impl FnOnce()) {
        let now = std::time::Instant::now();
        match self.last.get(what) {
            Some(t) if now.duration_since(*t) < Duration::from_secs(60) => {}
            _ => {
                self.last.insert(what, now);
                log();
            }
        }
    }
}
