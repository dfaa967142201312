//! The Thrift targets: messages over every transport (buffered, framed, HTTP) and protocol
//! (binary, compact), each judged by the server's own frame walker (answer or close).

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use redbase::generated::hbase1::{ColumnDescriptor, HbaseSyncClient, THbaseSyncClient};
use redbase::thrift::frame::{
    detect_protocol, detect_transport, frame_len, message_header, message_len, Protocol, Scan,
    Transport,
};
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};

use crate::corpus::{body, hex, Rng};
use crate::net::{await_close, connect, is_close, is_timeout};
use crate::{add, Run};

// ---------------------------------------------------------------------------------------------
// What the server must do, and what it did
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Wire {
    Buffered,
    Framed,
    Http,
}

/// What the server must do with one message.
enum Expect {
    /// Answer it with a message in this protocol.
    Reply(Protocol),
    /// Drop the connection (the client half-closes so a server waiting for bytes sees the end).
    Close,
}

fn wrap(wire: Wire, body: &[u8]) -> Vec<u8> {
    let mut out = match wire {
        Wire::Buffered => Vec::new(),
        Wire::Framed => (body.len() as u32).to_be_bytes().to_vec(),
        Wire::Http => format!(
            "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-thrift\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes(),
    };
    out.extend_from_slice(body);
    out
}

/// The server's decision for `bytes` (the whole of what this message puts on the wire), as
/// its frame walker makes it; `first` when nothing was sent on the connection before. For a
/// buffered message the bytes may be cut to the message the walker finds.
fn expect(wire: Wire, bytes: &mut Vec<u8>, first: bool, max: usize) -> Expect {
    if first {
        let want = match wire {
            Wire::Buffered => Transport::Buffered,
            Wire::Framed => Transport::Framed,
            Wire::Http => Transport::Http,
        };
        match detect_transport(bytes) {
            Scan::Done(t, _) if t == want => {}
            _ => return Expect::Close,
        }
    }
    let body_protocol = |b: &[u8]| match detect_protocol(b) {
        Scan::Done(p, _) => Expect::Reply(p),
        _ => Expect::Close,
    };
    match wire {
        Wire::Framed => match frame_len(bytes, max) {
            Scan::Done(len, _) => body_protocol(&bytes[4..4 + len]),
            _ => Expect::Close,
        },
        Wire::Http => {
            // The head is `wrap`'s own; the body starts after it.
            let start = http_body_start(bytes).unwrap_or(0);
            if bytes.len() - start > max {
                Expect::Close
            } else {
                body_protocol(&bytes[start..])
            }
        }
        Wire::Buffered => {
            let p = match detect_protocol(bytes) {
                Scan::Done(p, _) => p,
                _ => return Expect::Close,
            };
            match message_len(bytes, p, max) {
                Scan::Done((), n) => {
                    bytes.truncate(n);
                    Expect::Reply(p)
                }
                _ => Expect::Close,
            }
        }
    }
}

/// The value of a `Content-Length` header, if there is one and it is a number.
fn content_length(headers: &[httparse::Header]) -> Option<usize> {
    let h = headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))?;
    std::str::from_utf8(h.value).ok()?.trim().parse().ok()
}

/// Where the body of an HTTP request starts, if `bytes` begins with a whole request head.
fn http_body_start(bytes: &[u8]) -> Option<usize> {
    let mut headers = [httparse::EMPTY_HEADER; 16];
    match httparse::Request::new(&mut headers).parse(bytes) {
        Ok(httparse::Status::Complete(end)) => Some(end),
        _ => None,
    }
}

fn reply_protocol(p: Protocol) -> Protocol {
    match p {
        Protocol::Binary { .. } => Protocol::Binary { strict: true },
        Protocol::Compact => Protocol::Compact,
    }
}

/// The message type of a well-formed reply to `request`, or why it is not one.
fn check_reply(request: &[u8], p: Protocol, reply: &[u8]) -> Result<u8, String> {
    let rp = reply_protocol(p);
    match message_len(reply, rp, reply.len()) {
        Scan::Done((), n) if n == reply.len() => {}
        other => return Err(format!("not one whole message: {other:?}")),
    }
    let kind = match rp {
        Protocol::Binary { .. } if reply.len() > 3 && reply[..2] == [0x80, 1] => reply[3],
        Protocol::Compact if reply.len() > 1 && reply[0] == 0x82 => reply[1] >> 5,
        _ => return Err("not a reply in the call's protocol".into()),
    };
    if kind != 2 && kind != 3 {
        return Err(format!("message type {kind}"));
    }
    let asked = message_header(request, p).unwrap_or_default();
    let answered = message_header(reply, rp).unwrap_or_default();
    if asked != answered {
        return Err(format!("the reply names {answered:?}, the call {asked:?}"));
    }
    Ok(kind)
}

enum Got {
    Reply(Vec<u8>),
    Status(u16),
    Closed,
    Hang,
    Broken(String),
}

/// What `process_message` answers when a handler or decoder panicked.
const PANIC_TEXT: &[u8] = b"internal error processing the call";

/// Reads one answer; `buf` keeps bytes read past it (none are expected).
fn read_answer(s: &mut TcpStream, wire: Wire, p: Protocol, buf: &mut Vec<u8>) -> Got {
    let mut chunk = [0u8; 16 * 1024];
    loop {
        // Is a whole answer buffered?
        match wire {
            Wire::Buffered => {
                if let Scan::Done((), n) = message_len(buf, reply_protocol(p), usize::MAX >> 1) {
                    let r = buf[..n].to_vec();
                    buf.drain(..n);
                    return Got::Reply(r);
                }
            }
            Wire::Framed => {
                if buf.len() >= 4 {
                    let n = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize;
                    if buf.len() >= 4 + n {
                        let r = buf[4..4 + n].to_vec();
                        buf.drain(..4 + n);
                        return Got::Reply(r);
                    }
                }
            }
            Wire::Http => {
                let mut headers = [httparse::EMPTY_HEADER; 16];
                let mut head = httparse::Response::new(&mut headers);
                match head.parse(buf) {
                    Ok(httparse::Status::Complete(end)) => {
                        let len = content_length(head.headers);
                        let (Some(status), Some(len)) = (head.code, len) else {
                            let head = String::from_utf8_lossy(&buf[..end]);
                            return Got::Broken(format!("a bad HTTP head: {head:?}"));
                        };
                        if buf.len() >= end + len {
                            let r = buf[end..end + len].to_vec();
                            buf.drain(..end + len);
                            return if status == 200 {
                                Got::Reply(r)
                            } else {
                                Got::Status(status)
                            };
                        }
                    }
                    Ok(httparse::Status::Partial) => {}
                    Err(e) => {
                        let head = String::from_utf8_lossy(buf);
                        return Got::Broken(format!("a bad HTTP head ({e}): {head:?}"));
                    }
                }
            }
        }
        match s.read(&mut chunk) {
            Ok(0) => {
                return if buf.is_empty() {
                    Got::Closed
                } else {
                    Got::Broken(format!("closed inside an answer: {}", hex(buf)))
                }
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if is_close(&e) => return Got::Closed,
            Err(e) if is_timeout(&e) => return Got::Hang,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Got::Broken(e.to_string()),
        }
    }
}

pub fn worker(run: Arc<Run>, id: u64) {
    let mut rng = Rng::new(run.cli.seed ^ (id + 1).wrapping_mul(0x1234_5678_9abc_def1));
    let c = &run.counts;
    let max = run.cli.max_message_size;
    while !run.stop.load(Ordering::Relaxed) && Instant::now() < run.deadline {
        let service = 1 + rng.below(2) as u8;
        let wire = [Wire::Buffered, Wire::Framed, Wire::Http][rng.below(3)];
        let addr = if service == 1 {
            run.cli.thrift1
        } else {
            run.cli.thrift2
        };
        let label = format!("t{service} {wire:?}");
        let Some(mut s) = connect(&run, addr) else {
            return;
        };
        add(&c.connections);
        let mut buf = Vec::new();
        let per_conn = 1 + rng.below(run.cli.messages_per_connection as usize) as u64;
        for i in 0..per_conn {
            if c.sent.fetch_add(1, Ordering::Relaxed) >= run.cli.messages
                || Instant::now() >= run.deadline
            {
                run.stop.store(true, Ordering::Relaxed);
                c.sent.fetch_sub(1, Ordering::Relaxed);
                return;
            }
            let b = body(&mut rng, &run.seeds, service);
            let mut bytes = wrap(wire, &b);
            let e = expect(wire, &mut bytes, i == 0, max);
            // The request as the server's processor sees it (for checking the reply's header).
            let request = match wire {
                Wire::Buffered => bytes.clone(),
                _ => b,
            };
            if let Err(err) = s.write_all(&bytes) {
                // The server may close first on a connection it already judged.
                if !is_close(&err) {
                    run.finding("write-error", &label, &bytes, &err.to_string());
                }
                add(&c.expected_closes);
                break;
            }
            match e {
                Expect::Close => {
                    if await_close(&mut s) {
                        add(&c.expected_closes);
                    } else {
                        add(&c.hangs);
                        run.finding("hang-no-close", &label, &bytes, "");
                    }
                    break;
                }
                Expect::Reply(p) => match read_answer(&mut s, wire, p, &mut buf) {
                    Got::Reply(r) => match check_reply(&request, p, &r) {
                        Ok(2) => add(&c.replies),
                        Ok(_) => {
                            add(&c.exceptions);
                            if r.windows(PANIC_TEXT.len()).any(|w| w == PANIC_TEXT) {
                                add(&c.panics);
                                run.finding("panic", &label, &bytes, &String::from_utf8_lossy(&r));
                            }
                        }
                        Err(why) => {
                            add(&c.bad_replies);
                            run.finding(
                                "bad-reply",
                                &label,
                                &bytes,
                                &format!("{why}: {}", hex(&r)),
                            );
                            break;
                        }
                    },
                    Got::Status(code) => {
                        add(&c.http_400);
                        run.finding("http-status", &label, &bytes, &code.to_string());
                        break;
                    }
                    Got::Closed => {
                        add(&c.unanswered);
                        run.finding("unanswered", &label, &bytes, "closed instead");
                        break;
                    }
                    Got::Hang => {
                        add(&c.hangs);
                        run.finding("hang-no-reply", &label, &bytes, "");
                        break;
                    }
                    Got::Broken(why) => {
                        add(&c.bad_replies);
                        run.finding("broken-answer", &label, &bytes, &why);
                        break;
                    }
                },
            }
        }
    }
}

/// Makes sure table `t` with family `f` (what the corpus calls name) exists and is enabled,
/// so valid and lightly mutated calls reach the engine. Hostile calls may delete or disable it;
/// this runs again at every report.
pub fn setup(addr: SocketAddr) {
    let Ok(s) = TcpStream::connect_timeout(&addr, Duration::from_secs(5)) else {
        return;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(r) = s.try_clone() else {
        return;
    };
    let mut c = HbaseSyncClient::new(
        TBinaryInputProtocol::new(r, true),
        TBinaryOutputProtocol::new(s, true),
    );
    let family = ColumnDescriptor {
        name: Some(b"f:".to_vec()),
        max_versions: Some(3),
        compression: None,
        in_memory: None,
        bloom_filter_type: None,
        bloom_filter_vector_size: None,
        bloom_filter_nb_hashes: None,
        block_cache_enabled: None,
        time_to_live: None,
    };
    let _ = c.create_table(b"t".to_vec(), vec![family]);
    let _ = c.enable_table(b"t".to_vec());
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    #[test]
    fn an_http_request_body_starts_after_its_head() {
        let bytes = wrap(Wire::Http, b"\x82\x21\x01\x03get");
        let start = http_body_start(&bytes).expect("a whole head");
        assert_eq!(&bytes[start..], b"\x82\x21\x01\x03get");
        assert_eq!(http_body_start(b"POST / HTTP/1.1\r\nHost: x\r\n"), None);
    }

    #[test]
    fn http_answers_are_read_by_their_head() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut server, _) = l.accept().unwrap();
        let p = Protocol::Compact;
        let mut buf = Vec::new();
        // Two answers in one write, the header names in any case.
        server
            .write_all(
                b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabc\
                  HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nCONTENT-LENGTH: 2\r\n\r\nno",
            )
            .unwrap();
        assert!(
            matches!(read_answer(&mut client, Wire::Http, p, &mut buf), Got::Reply(r) if r == b"abc")
        );
        assert!(matches!(
            read_answer(&mut client, Wire::Http, p, &mut buf),
            Got::Status(400)
        ));
        assert!(buf.is_empty());
        // No length, then no HTTP at all.
        server.write_all(b"HTTP/1.1 200 OK\r\n\r\n").unwrap();
        assert!(
            matches!(read_answer(&mut client, Wire::Http, p, &mut buf), Got::Broken(m) if m.contains("bad HTTP head"))
        );
        buf.clear();
        server.write_all(b"\x00garbage\r\n\r\n").unwrap();
        assert!(
            matches!(read_answer(&mut client, Wire::Http, p, &mut buf), Got::Broken(m) if m.contains("bad HTTP head"))
        );
    }
}
