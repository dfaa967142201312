//! The same hostile messages through a real server on loopback, wrapped as framed transport
//! and as HTTP POST bodies: a message any protocol claims is answered and the connection then
//! serves a good call; anything else ends in a clean close (or, for HTTP, a 400), never a
//! hang; and the server keeps accepting connections throughout.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

use proptest::prelude::*;
use redbase::engine::{Engine, EngineConfig};
use redbase::server::{self, Config, Listeners};
use redbase::thrift::frame::{detect_protocol, Scan};

use super::calls;
use super::corpus::{self, Proto, Seed};
use super::decode::{check_reply, seed_table};
use super::runner::{check, note};
use super::walker::proto_of;

/// How long a reply may take before the case counts as a hang.
const REPLY_TIMEOUT: Duration = Duration::from_secs(20);

pub struct TestServer {
    pub thrift1: SocketAddr,
    pub thrift2: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl TestServer {
    pub fn start() -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        seed_table(&engine);
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async move {
                let l1 = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let l2 = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx
                    .send((l1.local_addr().unwrap(), l2.local_addr().unwrap()))
                    .unwrap();
                server::run(
                    engine.clone(),
                    Listeners {
                        thrift1: Some(l1),
                        thrift2: Some(l2),
                        http: None,
                    },
                    Config::default(),
                    async move {
                        let _ = stop_rx.await;
                    },
                )
                .await;
                engine.close();
            });
        });
        let (thrift1, thrift2) = addr_rx.recv().unwrap();
        TestServer {
            thrift1,
            thrift2,
            stop: Some(stop),
            thread: Some(thread),
            _dir: dir,
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Wire {
    Framed,
    Http,
}

fn wrap(wire: Wire, body: &[u8]) -> Vec<u8> {
    let mut out = match wire {
        Wire::Framed => (body.len() as u32).to_be_bytes().to_vec(),
        Wire::Http => format!(
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-thrift\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes(),
    };
    out.extend_from_slice(body);
    out
}

/// What came back for one message.
#[derive(Debug)]
enum Answer {
    Reply(Vec<u8>),
    /// HTTP only: the server refused the request with this status.
    Status(u16),
    Closed,
}

fn read_answer(s: &mut TcpStream, wire: Wire) -> Result<Answer, String> {
    let eof = |e: &std::io::Error| {
        matches!(
            e.kind(),
            ErrorKind::UnexpectedEof | ErrorKind::ConnectionReset | ErrorKind::BrokenPipe
        )
    };
    let hang = |e: std::io::Error| format!("no reply and no close within {REPLY_TIMEOUT:?}: {e}");
    match wire {
        Wire::Framed => {
            let mut len = [0u8; 4];
            match s.read_exact(&mut len) {
                Ok(()) => {}
                Err(e) if eof(&e) => return Ok(Answer::Closed),
                Err(e) => return Err(hang(e)),
            }
            let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
            s.read_exact(&mut body)
                .map_err(|e| format!("a cut reply: {e}"))?;
            Ok(Answer::Reply(body))
        }
        Wire::Http => {
            let mut head = Vec::new();
            let mut b = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                match s.read_exact(&mut b) {
                    Ok(()) => head.push(b[0]),
                    Err(e) if eof(&e) && head.is_empty() => return Ok(Answer::Closed),
                    Err(e) if eof(&e) => return Err("a cut HTTP reply head".into()),
                    Err(e) => return Err(hang(e)),
                }
            }
            let head = String::from_utf8_lossy(&head).into_owned();
            let status: u16 = head
                .split(' ')
                .nth(1)
                .and_then(|c| c.parse().ok())
                .ok_or_else(|| format!("a bad status line: {head:?}"))?;
            let len: usize = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse().ok())?
                })
                .ok_or("no Content-Length")?;
            let mut body = vec![0u8; len];
            s.read_exact(&mut body)
                .map_err(|e| format!("a cut reply: {e}"))?;
            if status == 200 {
                Ok(Answer::Reply(body))
            } else {
                Ok(Answer::Status(status))
            }
        }
    }
}

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("the server accepts connections");
    s.set_read_timeout(Some(REPLY_TIMEOUT)).unwrap();
    s
}

/// Sends `body` on a fresh connection; checks the answer; if the connection is still open,
/// a good call on it must be answered too.
fn round_trip(addr: SocketAddr, service: u8, wire: Wire, body: &[u8]) -> Result<(), TestCaseError> {
    note(&format!("{wire:?} body"), body);
    let mut s = connect(addr);
    s.write_all(&wrap(wire, body)).unwrap();
    let protocol = match detect_protocol(body) {
        Scan::Done(p, _) => Some(p),
        _ => None,
    };
    if protocol.is_none() {
        // No protocol claims it: the server drops the connection. Half-close so that a server
        // still waiting for bytes (a body that starts like a buffered message) sees the end.
        let _ = s.shutdown(Shutdown::Write);
    }
    let answer = read_answer(&mut s, wire).map_err(TestCaseError::fail)?;
    match (protocol, answer) {
        (Some(p), Answer::Reply(reply)) => {
            check_reply(body, p, &reply)
                .map_err(|why| TestCaseError::fail(format!("{why}: body {}", corpus::hex(body))))?;
            let proto = match p {
                redbase::thrift::frame::Protocol::Compact => Proto::Compact,
                _ => Proto::Binary,
            };
            s.write_all(&wrap(wire, &calls::server_type(service, proto)))
                .unwrap();
            match read_answer(&mut s, wire).map_err(TestCaseError::fail)? {
                Answer::Reply(r) => prop_assert_eq!(
                    check_reply(&calls::server_type(service, proto), proto_of(proto), &r),
                    Ok(2)
                ),
                other => prop_assert!(false, "the connection stopped serving: {other:?}"),
            }
        }
        (Some(_), other) => {
            prop_assert!(
                false,
                "a message was not answered: {other:?}: {}",
                corpus::hex(body)
            )
        }
        (None, Answer::Reply(r)) => prop_assert!(
            false,
            "a reply to bytes no protocol claims: {}",
            corpus::hex(&r)
        ),
        (None, Answer::Closed) => {}
        (None, Answer::Status(code)) => prop_assert_eq!(code, 400),
    }
    Ok(())
}

/// Mutated seeds and arbitrary bytes, each as a framed message and as an HTTP body.
#[test]
fn wire_framed_and_http_through_a_real_server() {
    let server = TestServer::start();
    let seeds: Vec<Seed> = corpus::load();
    let bodies: Vec<&[u8]> = seeds.iter().map(|s| s.message.as_slice()).collect();
    check(
        "wire_framed_and_http_through_a_real_server",
        400,
        (
            prop_oneof![
                3 => corpus::mutations().prop_map(Some),
                1 => Just(None),
            ],
            prop::collection::vec(any::<u8>(), 1..200),
            any::<bool>(),
        ),
        |(mutated, random, http)| {
            let wire = if http { Wire::Http } else { Wire::Framed };
            let (service, body) = match mutated {
                Some((i, muts)) => {
                    let seed = &seeds[i % seeds.len()];
                    (seed.service, corpus::apply(&seed.message, &muts, &bodies))
                }
                None => (1 + random[0] % 2, random),
            };
            if body.is_empty() {
                return Ok(());
            }
            let addr = if service == 1 {
                server.thrift1
            } else {
                server.thrift2
            };
            round_trip(addr, service, wire, &body)
        },
    );
    // Every corpus file as it is, on both wires, and the server still takes connections.
    for seed in &seeds {
        let addr = if seed.service == 1 {
            server.thrift1
        } else {
            server.thrift2
        };
        for wire in [Wire::Framed, Wire::Http] {
            round_trip(addr, seed.service, wire, &seed.message)
                .unwrap_or_else(|e| panic!("{} over {wire:?}: {e}", seed.file));
        }
    }
}
