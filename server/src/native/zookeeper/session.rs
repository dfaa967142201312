//! One ZooKeeper connection: the session handshake, then requests answered in order until the
//! client closes its session, goes silent for the session timeout, or breaks the protocol.
//! A packet's length is checked against the bound and the in-flight budget before its bytes
//! are read; a connection that sends a four-letter word instead of a handshake gets its
//! one-line answer.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::broadcast;

use crate::thrift::slots::Slot;

use super::ops;
use super::protocol::{err, op, ConnectRequest, ConnectResponse};
use super::ZooKeeper;

/// The largest ConnectRequest: its fixed fields, a password (16 bytes from every client) with
/// room to spare, and the read-only flag.
const MAX_CONNECT: usize = 512;
/// How long a request waits for room in the in-flight budget before the connection closes.
const BUDGET_WAIT: Duration = Duration::from_secs(2);

/// How a connection ended.
#[derive(Debug)]
pub enum End {
    /// The client closed the connection or its session.
    Closed,
    /// Silent past the session timeout (or the handshake timeout before a session).
    Idle,
    Shutdown,
    Evicted,
    /// The client asked to resume a session this server does not know.
    Expired,
    /// Answered a four-letter word.
    Command,
    /// Bytes that are not ZooKeeper's protocol, or a packet past a bound; closed.
    Refused(String),
    Io(std::io::Error),
}

struct Conn<'a> {
    stream: TcpStream,
    shutdown: &'a mut broadcast::Receiver<()>,
    slot: &'a Slot,
}

impl Conn<'_> {
    /// Fills `buf`, giving up after `idle` of silence. At a packet's start the server's
    /// shutdown or an eviction ends the connection too.
    async fn fill(&mut self, buf: &mut [u8], idle: Duration, boundary: bool) -> Result<(), End> {
        let mut filled = 0;
        while filled < buf.len() {
            tokio::select! {
                r = tokio::time::timeout(idle, self.stream.read(&mut buf[filled..])) => match r {
                    Ok(Ok(0)) if filled == 0 && boundary => return Err(End::Closed),
                    Ok(Ok(0)) => return Err(End::Refused("the connection closed inside a packet".into())),
                    Ok(Ok(n)) => filled += n,
                    Ok(Err(e)) => return Err(End::Io(e)),
                    Err(_) => return Err(End::Idle),
                },
                _ = self.shutdown.recv(), if boundary && filled == 0 => return Err(End::Shutdown),
                _ = self.slot.evict.notified(), if boundary && filled == 0 => return Err(End::Evicted),
            }
        }
        Ok(())
    }

    async fn send(&mut self, bytes: &[u8], idle: Duration) -> Result<(), End> {
        match tokio::time::timeout(idle, self.stream.write_all(bytes)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(End::Io(e)),
            Err(_) => Err(End::Idle),
        }
    }
}

/// The one-line answers to the four-letter words a health check sends.
fn four_letter_word(word: &[u8; 4]) -> Option<&'static [u8]> {
    match word {
        b"ruok" => Some(b"imok"),
        // Answers as a read-write server, as the handshake says (see ConnectResponse).
        b"isro" => Some(b"rw"),
        _ => None,
    }
}

/// Serves one connection until it ends.
pub async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    ctx: Arc<ZooKeeper>,
    slot: Arc<Slot>,
    mut shutdown: broadcast::Receiver<()>,
) -> End {
    let _ = stream.set_nodelay(true);
    let mut conn = Conn {
        stream,
        shutdown: &mut shutdown,
        slot: &slot,
    };
    let handshake = ctx.limits.handshake_timeout;
    let mut head = [0u8; 4];
    if let Err(end) = conn.fill(&mut head, handshake, true).await {
        return end;
    }
    if let Some(answer) = four_letter_word(&head) {
        let _ = conn.send(answer, handshake).await;
        let _ = conn.stream.shutdown().await;
        return End::Command;
    }
    let len = u32::from_be_bytes(head) as usize;
    if len > MAX_CONNECT {
        ctx.metrics.refused("malformed");
        return End::Refused(format!(
            "a handshake of {len} bytes (at most {MAX_CONNECT}): not a ZooKeeper client"
        ));
    }
    let mut body = vec![0u8; len];
    if let Err(end) = conn.fill(&mut body, handshake, false).await {
        return end;
    }
    let began = Instant::now();
    let request = match ConnectRequest::decode(&body) {
        Ok(r) => r,
        Err(e) => {
            ctx.metrics.call("connect", "error", began.elapsed());
            ctx.metrics.refused("malformed");
            return End::Refused(format!("the handshake does not decode: {e}"));
        }
    };
    let Some(session) = ctx.sessions.open(&request, &ctx.limits) else {
        // As ZooKeeper answers a session it does not know: timeout 0, id 0, then closed.
        let expired = ConnectResponse {
            timeout_ms: 0,
            session_id: 0,
            password: vec![0; 16],
            read_only: request.read_only.map(|_| false),
        };
        let _ = conn.send(&expired.encode(), handshake).await;
        let _ = conn.stream.shutdown().await;
        ctx.metrics.call("connect", "error", began.elapsed());
        return End::Expired;
    };
    let response = ConnectResponse {
        timeout_ms: session.timeout.as_millis() as i32,
        session_id: session.id,
        password: session.password.to_vec(),
        read_only: request.read_only.map(|_| false),
    };
    if let Err(end) = conn.send(&response.encode(), handshake).await {
        return end;
    }
    ctx.metrics.call("connect", "ok", began.elapsed());
    tracing::debug!(%peer, session = format!("0x{:x}", session.id), timeout_ms = session.timeout.as_millis() as u64, "zookeeper session");
    // Requests, answered in order.
    let idle = session.timeout;
    let mut share = ctx.limits.budget.share();
    loop {
        let mut head = [0u8; 4];
        if let Err(end) = conn.fill(&mut head, idle, true).await {
            return end;
        }
        let len = u32::from_be_bytes(head) as usize;
        if len < 8 {
            ctx.metrics.refused("malformed");
            return End::Refused(format!("a packet of {len} bytes has no request header"));
        }
        if len > ctx.limits.max_packet {
            ctx.metrics.refused("request_too_big");
            return End::Refused(format!(
                "a packet of {len} bytes is over the bound of {} bytes",
                ctx.limits.max_packet
            ));
        }
        if share.grow_to(len, BUDGET_WAIT).await.is_err() {
            ctx.metrics.refused("budget");
            return End::Refused(format!(
                "the server's in-flight budget cannot hold a packet of {len} bytes now"
            ));
        }
        let mut body = vec![0u8; len];
        if let Err(end) = conn.fill(&mut body, idle, false).await {
            return end;
        }
        slot.call_started();
        let began = Instant::now();
        // The request header: xid and operation (the length was checked to hold them).
        let xid = i32::from_be_bytes([body[0], body[1], body[2], body[3]]);
        let code = i32::from_be_bytes([body[4], body[5], body[6], body[7]]);
        let reply = ops::answer(&ctx.tree, ctx.zxid, peer, xid, code, &body[8..]);
        drop(body);
        share.shrink_to(0);
        let outcome = if reply.err == err::OK { "ok" } else { "error" };
        ctx.metrics.call(op::name(code), outcome, began.elapsed());
        if let Err(end) = conn.send(&reply.bytes, idle).await {
            return end;
        }
        slot.call_finished();
        if reply.close {
            let _ = conn.stream.shutdown().await;
            return if code == op::CLOSE_SESSION {
                End::Closed
            } else {
                End::Refused(format!("operation {code} is not one this server offers"))
            };
        }
    }
}
