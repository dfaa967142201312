//! A Thrift2 connection as the tools open it: TCP, then TLS when asked, then SASL PLAIN when
//! there are credentials, then the transport and protocol. SASL PLAIN is spoken as Java's
//! `TSaslClientTransport` does (START "PLAIN", COMPLETE with `NUL user NUL password`, the
//! server's COMPLETE), after which every message is a 4-byte length-prefixed frame: with
//! credentials the transport is framed whatever `--transport` says.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TOutputProtocol,
};
use thrift::transport::{
    TBufferedReadTransport, TBufferedWriteTransport, TFramedReadTransport, TFramedWriteTransport,
};

use super::{ClientSecurity, Credentials};

/// How long the TLS handshake and the SASL negotiation may take (calls have no deadline).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// Thrift's SASL negotiation statuses (libthrift's `NegotiationStatus`).
const SASL_START: u8 = 1;
const SASL_OK: u8 = 2;
const SASL_BAD: u8 = 3;
const SASL_ERROR: u8 = 4;
const SASL_COMPLETE: u8 = 5;
/// The largest negotiation message accepted from a server (a reason text).
const MAX_SASL_REPLY: usize = 64 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Transport {
    Buffered,
    Framed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    Binary,
    Compact,
}

pub type Protocols = (
    Box<dyn TInputProtocol + Send>,
    Box<dyn TOutputProtocol + Send>,
);

trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

/// One end of a TLS stream both halves share (the Thrift client writes a call, then reads its
/// reply, so they never wait on each other).
#[derive(Clone)]
struct Shared(Arc<Mutex<Box<dyn Stream>>>);

impl Read for Shared {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).read(buf)
    }
}

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).flush()
    }
}

/// Opens a connection to the Thrift2 server at `addr` (`host:port`), proving `security`'s
/// identity; every failure is a message saying what to do.
pub fn open(
    addr: &str,
    security: &ClientSecurity,
    transport: Transport,
    protocol: Protocol,
) -> Result<Protocols, String> {
    let tcp = TcpStream::connect(addr)
        .map_err(|e| format!("cannot connect to the Thrift2 server at {addr}: {e}"))?;
    let usable = |e: std::io::Error| format!("cannot use the connection to {addr}: {e}");
    // Without it, the last piece of a request the buffered transport writes in several
    // pieces waits for the server's delayed ACK (Nagle): about 40 ms per call, which made a
    // bulk import over the buffered transport 20 times slower than over the framed one.
    tcp.set_nodelay(true).map_err(usable)?;
    type R = Box<dyn Read + Send>;
    type W = Box<dyn Write + Send>;
    let needs_handshake = security.tls.is_some() || security.credentials.is_some();
    if needs_handshake {
        tcp.set_read_timeout(Some(HANDSHAKE_TIMEOUT))
            .map_err(usable)?;
        tcp.set_write_timeout(Some(HANDSHAKE_TIMEOUT))
            .map_err(usable)?;
    }
    let control = tcp.try_clone().map_err(usable)?;
    let (r, w): (R, W) = match &security.tls {
        None => {
            let mut tcp = tcp;
            if let Some(c) = &security.credentials {
                sasl_plain(&mut tcp, c, addr, None)?;
            }
            (Box::new(tcp.try_clone().map_err(usable)?), Box::new(tcp))
        }
        Some(tls) => {
            let name = tls.server_name(addr)?;
            let conn = rustls::ClientConnection::new(tls.config.clone(), name)
                .map_err(|e| format!("cannot set up TLS to {addr}: {e}"))?;
            let mut stream = rustls::StreamOwned::new(conn, tcp);
            while stream.conn.is_handshaking() {
                stream
                    .conn
                    .complete_io(&mut stream.sock)
                    .map_err(|e| tls.explain(&e, addr))?;
            }
            if let Some(c) = &security.credentials {
                sasl_plain(&mut stream, c, addr, Some(tls))?;
            }
            let shared = Shared(Arc::new(Mutex::new(Box::new(stream))));
            (Box::new(shared.clone()), Box::new(shared))
        }
    };
    if needs_handshake {
        control.set_read_timeout(None).map_err(usable)?;
        control.set_write_timeout(None).map_err(usable)?;
    }
    let framed = transport == Transport::Framed || security.credentials.is_some();
    let (r, w): (R, W) = if framed {
        (
            Box::new(TFramedReadTransport::new(r)),
            Box::new(TFramedWriteTransport::new(w)),
        )
    } else {
        (
            Box::new(TBufferedReadTransport::new(r)),
            Box::new(TBufferedWriteTransport::new(w)),
        )
    };
    Ok(match protocol {
        Protocol::Binary => (
            Box::new(TBinaryInputProtocol::new(r, true)),
            Box::new(TBinaryOutputProtocol::new(w, true)),
        ),
        Protocol::Compact => (
            Box::new(TCompactInputProtocol::new(r)),
            Box::new(TCompactOutputProtocol::new(w)),
        ),
    })
}

/// SASL PLAIN's negotiation on `s`; Ok once the server answered COMPLETE.
fn sasl_plain(
    s: &mut dyn Stream,
    c: &Credentials,
    addr: &str,
    tls: Option<&super::tls::ClientTls>,
) -> Result<(), String> {
    let io = |e: std::io::Error| {
        match tls {
        Some(t) if e.get_ref().is_some_and(|i| i.is::<rustls::Error>()) => t.explain(&e, addr),
        _ if e.kind() == std::io::ErrorKind::UnexpectedEof => format!(
            "the server at {addr} closed the connection during SASL authentication: it may not take SASL PLAIN (an HBase gateway without SASL), or it refused the connection"
        ),
        _ => format!("SASL authentication with {addr} failed: {e}"),
    }
    };
    let mut response = Vec::with_capacity(2 + c.user.len() + c.password().len());
    response.push(0);
    response.extend_from_slice(c.user.as_bytes());
    response.push(0);
    response.extend_from_slice(c.password());
    let mut out = message(SASL_START, b"PLAIN");
    out.extend_from_slice(&message(SASL_COMPLETE, &response));
    s.write_all(&out).map_err(io)?;
    s.flush().map_err(io)?;
    let mut head = [0u8; 5];
    s.read_exact(&mut head).map_err(io)?;
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_SASL_REPLY {
        return Err(format!(
            "the server at {addr} answered SASL with a message of {len} bytes: it does not speak Thrift's SASL framing"
        ));
    }
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).map_err(io)?;
    let text = String::from_utf8_lossy(&body);
    match head[0] {
        SASL_COMPLETE => Ok(()),
        SASL_BAD | SASL_ERROR => Err(super::with_hint(&format!(
            "{addr} refused the SASL login as {}: {text}",
            c.user
        ))),
        SASL_OK => Err(format!(
            "the server at {addr} sent a SASL challenge after the PLAIN response: it does not speak SASL PLAIN as redbase and HBase do"
        )),
        other => Err(format!(
            "the server at {addr} answered SASL with status {other}: it does not speak Thrift's SASL framing"
        )),
    }
}

fn message(status: u8, payload: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(5 + payload.len());
    m.push(status);
    m.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    m.extend_from_slice(payload);
    m
}
