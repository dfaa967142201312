//! One client connection: reads bytes, finds whole messages (whatever the transport), hands
//! each to the service on a blocking thread, and writes the reply back the same way.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::budget::Share;
use super::frame::{self, Protocol, Scan, Transport};
use super::handshake::{Io, Session};
use super::inline::InlineCalls;
use super::slots::Slot;
use super::{Observer, Service};
use crate::gateway::caller;
use crate::security::Security;

/// A message found in the buffer, with how it arrived.
pub(super) struct Request {
    pub(super) body: Vec<u8>,
    pub(super) protocol: Protocol,
    /// For HTTP: whether the client asked to keep the connection open.
    pub(super) keep_alive: bool,
    /// A SASL negotiation message: its status byte (the body is its payload).
    pub(super) sasl: Option<u8>,
    /// For HTTP: the headers the security checks read.
    pub(super) http: Option<HttpHead>,
}

/// The headers of a Thrift-over-HTTP request that decide whether it is served.
#[derive(Debug, Default)]
pub(super) struct HttpHead {
    pub(super) authorization: Option<Vec<u8>>,
    pub(super) origin: Option<String>,
    pub(super) content_type: Option<String>,
}

/// Why a connection ended.
#[derive(Debug)]
pub enum End {
    /// The peer closed cleanly between messages.
    Closed,
    /// The server is shutting down and the connection was idle.
    Shutdown,
    /// No message arrived within the idle timeout.
    Idle,
    /// The server closed this idle connection to make room for a new one at the cap.
    Evicted,
    /// The peer sent something that is not a valid message; the connection is dropped.
    Malformed(String),
    /// An HTTP request other than a POST (a browser): answered with the service's hint, or
    /// with this text, then dropped.
    NotPost(String),
    /// The server's in-flight byte budget could not hold this connection's message.
    Budget(String),
    /// A security rule refused the connection; the client was told why.
    Refused(String),
    /// The client did not take its reply within the idle timeout: a peer that stops reading
    /// would otherwise hold its slot, its budget share and the server's shutdown forever.
    Stalled,
    Io(io::Error),
}

pub struct Connection {
    pub(super) stream: Box<dyn Io>,
    pub(super) peer: std::net::SocketAddr,
    buffer: BytesMut,
    pub(super) transport: Option<Transport>,
    /// What the connection proved (TLS, a certificate's or SASL's identity).
    pub(super) session: Session,
    pub(super) security: Arc<Security>,
    /// The last HTTP credentials accepted on this connection and their user, so a keep-alive
    /// client is not put through argon2 on every call, with the auth file's generation they
    /// were checked under.
    pub(super) http_identity: Option<(Vec<u8>, String, u64)>,
    /// SASL: the mechanism was accepted, the response is expected next.
    pub(super) sasl_started: bool,
    max_message: usize,
    /// This connection's part of the server's in-flight byte budget.
    share: Share,
    /// Bytes the buffer should reach for the message being read (a frame's announced length).
    want: usize,
    slot: Arc<Slot>,
    /// Short reads may run on this task ([`super::inline`]); none by default.
    inline: InlineCalls,
}

const MAX_HTTP_HEADER: usize = 64 * 1024;
/// The most headers an HTTP request may carry.
const MAX_HTTP_HEADERS: usize = 64;
/// The buffer a connection keeps between messages; a larger one goes back to the allocator.
const IDLE_BUFFER: usize = 8 * 1024;
/// How long a connection waits for the budget before it gives up.
const BUDGET_WAIT: Duration = Duration::from_secs(5);
/// Bytes of an oversized frame read to name the call in the error reply.
const HEADER_PEEK: usize = 512;
/// The largest SASL negotiation message (a mechanism name, or a user name and password).
const MAX_SASL_MESSAGE: usize = 64 * 1024;

impl Connection {
    pub fn new(
        stream: Box<dyn Io>,
        peer: std::net::SocketAddr,
        session: Session,
        security: Arc<Security>,
        max_message: usize,
        share: Share,
        slot: Arc<Slot>,
    ) -> Connection {
        Connection {
            stream,
            peer,
            buffer: BytesMut::new(),
            transport: None,
            session,
            security,
            http_identity: None,
            sasl_started: false,
            max_message,
            share,
            want: 0,
            slot,
            inline: InlineCalls::new(0),
        }
    }

    /// Lets short reads run on this connection's task, within the server's cap.
    pub fn with_inline(mut self, inline: InlineCalls) -> Connection {
        self.inline = inline;
        self
    }

    /// Serves messages until the peer leaves, a limit is hit, the server needs the slot, or
    /// shutdown is signalled while the connection waits for its next message (a call in flight
    /// always finishes).
    pub async fn serve(
        &mut self,
        service: Arc<dyn Service>,
        observer: &dyn Observer,
        idle: Duration,
        shutdown: &mut tokio::sync::broadcast::Receiver<()>,
    ) -> End {
        let slot = self.slot.clone();
        loop {
            let req = tokio::select! {
                r = tokio::time::timeout(idle, self.read_request()) => match r {
                    Err(_) => return End::Idle,
                    Ok(Ok(Some(req))) => req,
                    Ok(Ok(None)) => return End::Closed,
                    Ok(Err(e)) => return e,
                },
                _ = shutdown.recv() => return End::Shutdown,
                _ = slot.evict.notified() => return End::Evicted,
            };
            if let Some(status) = req.sasl {
                match self.negotiate(status, &req.body).await {
                    Ok(()) => continue,
                    Err(end) => return end,
                }
            }
            let caller = match self.admit(&req).await {
                Ok(c) => c,
                Err(refusal) => return self.refuse(&req, refusal).await,
            };
            slot.call_started();
            let svc = service.clone();
            let protocol = req.protocol;
            let body = req.body;
            let started = std::time::Instant::now();
            let header = frame::message_header(&body, protocol);
            // A one-row write awaits its commit here, holding no thread.
            let awaited = header
                .as_ref()
                .and_then(|(method, _)| svc.clone().start(method, &body, protocol, &caller));
            let (body, reply) = if let Some(pending) = awaited {
                (body, pending.await)
            } else {
                let inline = header
                    .filter(|(method, _)| service.is_short(method, &body, protocol))
                    .and_then(|_| self.inline.try_start());
                let work = move || {
                    let reply = caller::scope(caller.clone(), || {
                        svc.process_from(&body, protocol, &caller)
                    });
                    (body, reply)
                };
                match inline {
                    Some(_running) => work(),
                    None => match tokio::task::spawn_blocking(work).await {
                        Ok(r) => r,
                        Err(e) => return End::Malformed(format!("handler failed: {e}")),
                    },
                }
            };
            observer.call(&body, &reply, protocol, started.elapsed());
            drop(body);
            // The reply exists already; count it while it is written, without waiting.
            let held = self.buffer.capacity() + reply.len();
            let _ = self.share.grow_to(held, Duration::ZERO).await;
            match tokio::time::timeout(idle, self.write_reply(&reply, req.keep_alive)).await {
                Err(_) => return End::Stalled,
                Ok(Err(e)) => return End::Io(e),
                Ok(Ok(())) => {}
            }
            drop(reply);
            self.relax();
            slot.call_finished();
            if self.transport == Some(Transport::Http) && !req.keep_alive {
                return End::Closed;
            }
        }
    }

    /// Between messages: a buffer grown for a large message goes back to the allocator, and
    /// the budget keeps only what the connection still holds.
    fn relax(&mut self) {
        if self.buffer.is_empty() && self.buffer.capacity() > IDLE_BUFFER {
            self.buffer = BytesMut::new();
        }
        self.share.shrink_to(self.buffer.capacity());
    }

    async fn fill(&mut self) -> Result<bool, End> {
        if self.buffer.capacity() - self.buffer.len() < IDLE_BUFFER / 2 {
            // A frame's announced size, else double (a buffered message's size is unknown until
            // it has all arrived), capped by the message limit.
            let len = self.buffer.len();
            let target = if self.want > len {
                self.want
            } else {
                (len + len.max(IDLE_BUFFER)).min(self.max_message.saturating_add(IDLE_BUFFER))
            };
            // Within the budget first, then the memory, allocated to the byte so the budget
            // counts what is really held.
            self.share
                .grow_to(target, BUDGET_WAIT)
                .await
                .map_err(|e| End::Budget(e.to_string()))?;
            let mut grown = BytesMut::with_capacity(target);
            grown.extend_from_slice(&self.buffer);
            self.buffer = grown;
        }
        match self.stream.read_buf(&mut self.buffer).await {
            Ok(0) => Ok(false),
            Ok(_) => Ok(true),
            Err(e) => Err(End::Io(e)),
        }
    }

    /// Reads until one whole message is buffered. None when the peer closed between messages.
    async fn read_request(&mut self) -> Result<Option<Request>, End> {
        loop {
            match self.parse()? {
                Some(r) => return Ok(Some(r)),
                None => {
                    if !self.fill().await? {
                        return if self.buffer.is_empty() {
                            Ok(None)
                        } else {
                            Err(End::Malformed(format!(
                                "connection closed inside a message ({} bytes buffered)",
                                self.buffer.len()
                            )))
                        };
                    }
                }
            }
        }
    }

    fn parse(&mut self) -> Result<Option<Request>, End> {
        let transport = match self.transport {
            Some(t) => t,
            None => match frame::detect_transport(&self.buffer) {
                Scan::Done(t, _) => {
                    self.transport = Some(t);
                    t
                }
                Scan::Incomplete => return Ok(None),
                Scan::Invalid(m) => return Err(End::Malformed(m)),
            },
        };
        match transport {
            Transport::Framed => match frame::frame_len(&self.buffer, self.max_message) {
                Scan::Incomplete => {
                    if self.buffer.len() >= 4 {
                        let len = i32::from_be_bytes([
                            self.buffer[0],
                            self.buffer[1],
                            self.buffer[2],
                            self.buffer[3],
                        ]);
                        self.want = 4 + len.max(0) as usize;
                    }
                    Ok(None)
                }
                Scan::Invalid(m) => Err(End::Malformed(m)),
                Scan::Done(len, used) => {
                    self.want = 0;
                    let body = self.buffer[4..4 + len].to_vec();
                    self.buffer.advance(used);
                    let protocol = protocol_of(&body)?;
                    Ok(Some(Request {
                        body,
                        protocol,
                        keep_alive: true,
                        sasl: None,
                        http: None,
                    }))
                }
            },
            Transport::Sasl => self.parse_sasl(),
            Transport::Buffered => {
                let protocol = match frame::detect_protocol(&self.buffer) {
                    Scan::Done(p, _) => p,
                    Scan::Incomplete => return Ok(None),
                    Scan::Invalid(m) => return Err(End::Malformed(m)),
                };
                match frame::message_len(&self.buffer, protocol, self.max_message) {
                    Scan::Incomplete => Ok(None),
                    Scan::Invalid(m) => Err(End::Malformed(m)),
                    Scan::Done((), len) => {
                        let body = self.buffer.split_to(len).to_vec();
                        Ok(Some(Request {
                            body,
                            protocol,
                            keep_alive: true,
                            sasl: None,
                            http: None,
                        }))
                    }
                }
            }
            Transport::Http => self.parse_http(),
        }
    }

    /// An HTTP/1.1 POST whose body is one Thrift message (HBase's HTTP mode); the head is
    /// parsed by `httparse`.
    fn parse_http(&mut self) -> Result<Option<Request>, End> {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HTTP_HEADERS];
        let mut head = httparse::Request::new(&mut headers);
        let start = match head.parse(&self.buffer) {
            Ok(httparse::Status::Complete(start)) => start,
            Ok(httparse::Status::Partial) => {
                if self.buffer.len() > MAX_HTTP_HEADER {
                    return Err(End::Malformed("HTTP header too large".into()));
                }
                return Ok(None);
            }
            Err(httparse::Error::TooManyHeaders) => {
                return Err(End::Malformed(format!(
                    "more than {MAX_HTTP_HEADERS} HTTP headers"
                )))
            }
            Err(e) => return Err(End::Malformed(format!("a malformed HTTP request: {e}"))),
        };
        if head.method != Some("POST") {
            return Err(End::NotPost(format!(
                "only POST carries Thrift over HTTP, got {} {}",
                head.method.unwrap_or_default(),
                head.path.unwrap_or_default()
            )));
        }
        let mut content_length = None;
        let mut keep_alive = head.version == Some(1);
        let mut http = HttpHead::default();
        for h in head.headers.iter() {
            let v = String::from_utf8_lossy(h.value);
            let v = v.trim();
            if h.name.eq_ignore_ascii_case("authorization") {
                http.authorization = Some(h.value.to_vec());
            } else if h.name.eq_ignore_ascii_case("origin") {
                http.origin = Some(v.to_string());
            } else if h.name.eq_ignore_ascii_case("content-type") {
                http.content_type = Some(v.to_string());
            } else if h.name.eq_ignore_ascii_case("content-length") {
                content_length = v.parse::<usize>().ok();
            } else if h.name.eq_ignore_ascii_case("connection") {
                keep_alive = !v.eq_ignore_ascii_case("close");
            } else if h.name.eq_ignore_ascii_case("transfer-encoding")
                && !v.eq_ignore_ascii_case("identity")
            {
                return Err(End::Malformed(
                    "chunked HTTP bodies are not supported: send Content-Length".into(),
                ));
            }
        }
        let Some(len) = content_length else {
            return Err(End::Malformed("HTTP request without Content-Length".into()));
        };
        if len > self.max_message {
            return Err(End::Malformed(format!(
                "HTTP body of {len} bytes exceeds the maximum of {} bytes",
                self.max_message
            )));
        }
        if self.buffer.len() < start + len {
            return Ok(None);
        }
        let body = self.buffer[start..start + len].to_vec();
        self.buffer.advance(start + len);
        let protocol = protocol_of(&body)?;
        Ok(Some(Request {
            body,
            protocol,
            keep_alive,
            sasl: None,
            http: Some(http),
        }))
    }

    /// One SASL negotiation message: status byte, 4-byte big-endian length, payload.
    fn parse_sasl(&mut self) -> Result<Option<Request>, End> {
        if self.buffer.len() < 5 {
            return Ok(None);
        }
        let status = self.buffer[0];
        let len = u32::from_be_bytes([
            self.buffer[1],
            self.buffer[2],
            self.buffer[3],
            self.buffer[4],
        ]) as usize;
        if len > MAX_SASL_MESSAGE {
            return Err(End::Malformed(format!(
                "a SASL negotiation message of {len} bytes exceeds the maximum of {MAX_SASL_MESSAGE}"
            )));
        }
        if self.buffer.len() < 5 + len {
            return Ok(None);
        }
        let body = self.buffer[5..5 + len].to_vec();
        self.buffer.advance(5 + len);
        Ok(Some(Request {
            body,
            protocol: Protocol::Binary { strict: true },
            keep_alive: true,
            sasl: Some(status),
            http: None,
        }))
    }

    pub(super) async fn write_reply(&mut self, reply: &[u8], keep_alive: bool) -> io::Result<()> {
        match self.transport {
            Some(Transport::Framed) => {
                let mut out = Vec::with_capacity(4 + reply.len());
                out.extend_from_slice(&(reply.len() as i32).to_be_bytes());
                out.extend_from_slice(reply);
                self.stream.write_all(&out).await?;
            }
            Some(Transport::Http) => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/x-thrift\r\nContent-Length: {}\r\nConnection: {}\r\n\r\n",
                    reply.len(),
                    if keep_alive { "keep-alive" } else { "close" }
                );
                let mut out = head.into_bytes();
                out.extend_from_slice(reply);
                self.stream.write_all(&out).await?;
            }
            _ => {
                if !reply.is_empty() {
                    self.stream.write_all(reply).await?;
                }
            }
        }
        self.stream.flush().await
    }

    /// Best effort, before the connection closes: tells the client why. HTTP gets a 400 (413
    /// for a body over the limit); framed and buffered clients get a `TApplicationException`
    /// reply to the call they were sending, when enough of it arrived to name it. For a frame
    /// over the limit, the rest of the frame is read and thrown away (up to its announced
    /// length, for a few seconds) so the reply is not lost to a reset.
    pub async fn reject(&mut self, why: &str) {
        match self.transport {
            Some(Transport::Http) => {
                let status = if why.contains("exceeds the maximum") {
                    "413 Payload Too Large"
                } else {
                    "400 Bad Request"
                };
                let body = why.as_bytes();
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = self.stream.write_all(head.as_bytes()).await;
                let _ = self.stream.write_all(body).await;
            }
            Some(Transport::Framed) if self.buffer.len() >= 4 => {
                let announced = i32::from_be_bytes([
                    self.buffer[0],
                    self.buffer[1],
                    self.buffer[2],
                    self.buffer[3],
                ])
                .max(0) as usize;
                // Enough of the frame to read the call's name and sequence id.
                let peek = announced.min(HEADER_PEEK);
                let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
                while self.buffer.len() < 4 + peek {
                    let read =
                        tokio::time::timeout_at(deadline, self.stream.read_buf(&mut self.buffer));
                    match read.await {
                        Ok(Ok(n)) if n > 0 => {}
                        _ => break,
                    }
                }
                let body = &self.buffer[4..self.buffer.len().min(4 + peek)];
                let Some(reply) = error_reply_for(body, why) else {
                    return;
                };
                let mut out = (reply.len() as i32).to_be_bytes().to_vec();
                out.extend_from_slice(&reply);
                if self.stream.write_all(&out).await.is_err() {
                    return;
                }
                let _ = self.stream.flush().await;
                self.discard(announced.saturating_sub(self.buffer.len() - 4))
                    .await;
            }
            Some(Transport::Buffered) => {
                if let Some(reply) = error_reply_for(&self.buffer, why) {
                    let _ = self.stream.write_all(&reply).await;
                    let _ = self.stream.flush().await;
                    // What the client still sends of this message is read and dropped, so
                    // closing does not reset the connection before the reply is read.
                    self.discard(self.max_message).await;
                }
            }
            _ => {}
        }
    }

    /// Reads one call and answers it with an error saying `why`: for a connection the server
    /// has no room for, so its client learns why instead of meeting a reset.
    pub async fn reject_call(&mut self, why: &str) {
        match self.read_request().await {
            Ok(Some(req)) => {
                let reply = super::error_reply(
                    &req.body,
                    req.protocol,
                    thrift::ApplicationErrorKind::Unknown,
                    why,
                );
                let _ = self.write_reply(&reply, false).await;
            }
            Ok(None) => {}
            Err(_) => self.reject(why).await,
        }
    }

    /// Reads and drops up to `n` bytes, for a few seconds at most, holding no more than a
    /// small buffer.
    async fn discard(&mut self, mut n: usize) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        let mut sink = [0u8; 8192];
        while n > 0 {
            let want = n.min(sink.len());
            // Half a second of silence: the client has sent what it will.
            let quiet = tokio::time::Instant::now() + Duration::from_millis(500);
            let read = self.stream.read(&mut sink[..want]);
            match tokio::time::timeout_at(deadline.min(quiet), read).await {
                Ok(Ok(got)) if got > 0 => n -= got,
                _ => return,
            }
        }
    }
}

/// A `TApplicationException` reply to the call at the start of `message`, if its protocol and
/// header can be read.
fn error_reply_for(message: &[u8], why: &str) -> Option<Vec<u8>> {
    let Scan::Done(protocol, _) = frame::detect_protocol(message) else {
        return None;
    };
    frame::message_header(message, protocol)?;
    Some(super::error_reply(
        message,
        protocol,
        thrift::ApplicationErrorKind::ProtocolError,
        why,
    ))
}

fn protocol_of(body: &[u8]) -> Result<Protocol, End> {
    match frame::detect_protocol(body) {
        Scan::Done(p, _) => Ok(p),
        Scan::Incomplete => Err(End::Malformed("empty message".into())),
        Scan::Invalid(m) => Err(End::Malformed(m)),
    }
}
