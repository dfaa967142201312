//! One client connection: reads bytes, finds whole messages (whatever the transport), hands
//! each to the service on a blocking thread, and writes the reply back the same way.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::frame::{self, Protocol, Scan, Transport};
use super::{Observer, Service};

/// A message found in the buffer, with how it arrived.
struct Request {
    body: Vec<u8>,
    protocol: Protocol,
    /// For HTTP: whether the client asked to keep the connection open.
    keep_alive: bool,
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
    /// The peer sent something that is not a valid message; the connection is dropped.
    Malformed(String),
    Io(io::Error),
}

pub struct Connection {
    stream: TcpStream,
    peer: std::net::SocketAddr,
    buffer: BytesMut,
    transport: Option<Transport>,
    max_message: usize,
}

const MAX_HTTP_HEADER: usize = 64 * 1024;

impl Connection {
    pub fn new(stream: TcpStream, max_message: usize) -> Connection {
        let peer = stream
            .peer_addr()
            .unwrap_or_else(|_| std::net::SocketAddr::from(([0, 0, 0, 0], 0)));
        Connection {
            stream,
            peer,
            buffer: BytesMut::with_capacity(8 * 1024),
            transport: None,
            max_message,
        }
    }

    /// Serves messages until the peer leaves, a limit is hit, or shutdown is signalled while
    /// the connection waits for its next message (a call in flight always finishes).
    pub async fn serve(
        &mut self,
        service: Arc<dyn Service>,
        observer: &dyn Observer,
        idle: Duration,
        shutdown: &mut tokio::sync::broadcast::Receiver<()>,
    ) -> End {
        loop {
            let req = tokio::select! {
                r = tokio::time::timeout(idle, self.read_request()) => match r {
                    Err(_) => return End::Idle,
                    Ok(Ok(Some(req))) => req,
                    Ok(Ok(None)) => return End::Closed,
                    Ok(Err(e)) => return e,
                },
                _ = shutdown.recv() => return End::Shutdown,
            };
            let svc = service.clone();
            let protocol = req.protocol;
            let body = req.body;
            let peer = self.peer;
            let started = std::time::Instant::now();
            let work = move || {
                let reply = svc.process_from(&body, protocol, peer);
                (body, reply)
            };
            let (body, reply) = match tokio::task::spawn_blocking(work).await {
                Ok(r) => r,
                Err(e) => return End::Malformed(format!("handler failed: {e}")),
            };
            observer.call(&body, &reply, protocol, started.elapsed());
            if let Err(e) = self.write_reply(&reply, req.keep_alive).await {
                return End::Io(e);
            }
            if self.transport == Some(Transport::Http) && !req.keep_alive {
                return End::Closed;
            }
        }
    }

    async fn fill(&mut self) -> Result<bool, End> {
        if self.buffer.capacity() - self.buffer.len() < 4096 {
            self.buffer.reserve(8192);
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
                Scan::Incomplete => Ok(None),
                Scan::Invalid(m) => Err(End::Malformed(m)),
                Scan::Done(len, used) => {
                    let body = self.buffer[4..4 + len].to_vec();
                    self.buffer.advance(used);
                    let protocol = protocol_of(&body)?;
                    Ok(Some(Request {
                        body,
                        protocol,
                        keep_alive: true,
                    }))
                }
            },
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
                        }))
                    }
                }
            }
            Transport::Http => self.parse_http(),
        }
    }

    /// An HTTP/1.1 POST whose body is one Thrift message (HBase's HTTP mode).
    fn parse_http(&mut self) -> Result<Option<Request>, End> {
        let Some(end) = find(&self.buffer, b"\r\n\r\n") else {
            if self.buffer.len() > MAX_HTTP_HEADER {
                return Err(End::Malformed("HTTP header too large".into()));
            }
            return Ok(None);
        };
        let head = String::from_utf8_lossy(&self.buffer[..end]).into_owned();
        let mut lines = head.split("\r\n");
        let request_line = lines.next().unwrap_or_default();
        if !request_line.starts_with("POST ") {
            return Err(End::Malformed(format!(
                "only POST carries Thrift over HTTP, got {request_line:?}"
            )));
        }
        let mut content_length = None;
        let mut keep_alive = request_line.ends_with("HTTP/1.1");
        for line in lines {
            if let Some((k, v)) = line.split_once(':') {
                let v = v.trim();
                match k.trim().to_ascii_lowercase().as_str() {
                    "content-length" => content_length = v.parse::<usize>().ok(),
                    "connection" => keep_alive = !v.eq_ignore_ascii_case("close"),
                    "transfer-encoding" if !v.eq_ignore_ascii_case("identity") => {
                        return Err(End::Malformed(
                            "chunked HTTP bodies are not supported: send Content-Length".into(),
                        ))
                    }
                    _ => {}
                }
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
        let start = end + 4;
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
        }))
    }

    async fn write_reply(&mut self, reply: &[u8], keep_alive: bool) -> io::Result<()> {
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

    /// Best effort: tells an HTTP client why it is being dropped.
    pub async fn reject_http(&mut self, why: &str) {
        if self.transport == Some(Transport::Http) {
            let body = why.as_bytes();
            let head = format!(
                "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = self.stream.write_all(head.as_bytes()).await;
            let _ = self.stream.write_all(body).await;
        }
    }
}

fn protocol_of(body: &[u8]) -> Result<Protocol, End> {
    match frame::detect_protocol(body) {
        Scan::Done(p, _) => Ok(p),
        Scan::Incomplete => Err(End::Malformed("empty message".into())),
        Scan::Invalid(m) => Err(End::Malformed(m)),
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
