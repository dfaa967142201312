//! The HTTP listener under hostile clients, through a real server on loopback: half-sent
//! headers give their slots to newcomers, stalled and trickled request bodies are ended with
//! 408, the probes answer while every connection is busy, the lifetime cap cuts a request that
//! makes no progress (and not one that does), oversized headers are refused, and the Thrift
//! gateways keep accepting throughout. Deadlines are made small so each test takes seconds.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::server::TestServer;
use redbase::http::limits::ListenerLimits;
use redbase::server::Config;

fn server(limits: ListenerLimits) -> TestServer {
    TestServer::start_with_http(Config {
        http_limits: limits,
        ..Config::default()
    })
}

/// Status and whole text of one request on a new connection (`None`: no answer).
fn request(addr: SocketAddr, head: &str, body: &[u8]) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(head.as_bytes()).ok()?;
    s.write_all(body).ok()?;
    let mut text = Vec::new();
    let _ = s.read_to_end(&mut text);
    let text = String::from_utf8_lossy(&text).into_owned();
    let code = text.split_whitespace().nth(1)?.parse().ok()?;
    Some((code, text))
}

fn get(addr: SocketAddr, path: &str) -> Option<(u16, String)> {
    request(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: t\r\nAccept: application/json\r\nConnection: close\r\n\r\n"),
        b"",
    )
}

/// A sample's value in /metrics (asked on a new connection).
fn metric(addr: SocketAddr, sample: &str) -> f64 {
    let (code, text) = get(addr, "/metrics").expect("/metrics answers");
    assert_eq!(code, 200, "{text}");
    text.lines()
        .find_map(|l| l.strip_prefix(sample)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no {sample} in /metrics"))
}

/// Whether the server closed `s` (a read ends or fails) within `within`; what it sent first.
fn closed_within(s: &mut TcpStream, within: Duration) -> (bool, String) {
    s.set_read_timeout(Some(within)).unwrap();
    let mut got = Vec::new();
    let mut b = [0u8; 1024];
    let started = Instant::now();
    loop {
        match s.read(&mut b) {
            Ok(0) => return (true, String::from_utf8_lossy(&got).into_owned()),
            Ok(n) => got.extend_from_slice(&b[..n]),
            Err(e) => {
                let timed_out = matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                );
                return (!timed_out, String::from_utf8_lossy(&got).into_owned());
            }
        }
        if started.elapsed() > within {
            return (false, String::from_utf8_lossy(&got).into_owned());
        }
    }
}

fn thrift_answers(addr: SocketAddr) {
    let mut t = TcpStream::connect(addr).unwrap();
    t.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut call = vec![0x80, 1, 0, 1, 0, 0, 0, 13];
    call.extend_from_slice(b"getTableNames");
    call.extend_from_slice(&[0, 0, 0, 1, 0]);
    t.write_all(&call).unwrap();
    let mut head = [0u8; 4];
    t.read_exact(&mut head).unwrap();
    assert_eq!(head, [0x80, 1, 0, 2]);
}

fn create_table(addr: SocketAddr) {
    let schema = br#"{"name":"t","ColumnSchema":[{"name":"cf"}]}"#;
    let (code, text) = request(
        addr,
        &format!("PUT /t/schema HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", schema.len()),
        schema,
    )
    .unwrap();
    assert!(code == 201 || code == 200, "{text}");
}

/// A row put whose body never finishes: a `Content-Length` far past what is sent, or a chunked
/// body without its last chunk.
fn stalled_put(addr: SocketAddr, chunked: bool) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    let head = if chunked {
        "PUT /t/r HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"Row\r\n"
    } else {
        "PUT /t/r HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"Row\": [ "
    };
    s.write_all(head.as_bytes()).unwrap();
    s
}

#[test]
fn half_sent_headers_give_their_slots_to_newcomers() {
    let limits = ListenerLimits {
        header_timeout: Duration::from_secs(2),
        ..ListenerLimits::default()
    };
    let server = server(limits);
    let http = server.http.unwrap();
    assert_eq!(get(http, "/healthz").unwrap().0, 200);
    // Fill every slot with requests that never finish their headers.
    let mut slow: Vec<TcpStream> = (0..limits.max_connections)
        .map(|_| {
            let mut s = TcpStream::connect(http).unwrap();
            s.write_all(b"GET /healthz HTTP/1.1\r\nHo").unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // Newcomers are served at once, each in the slot of the oldest half-sent request: probes
    // and the REST API alike.
    assert_eq!(get(http, "/healthz").unwrap().0, 200);
    let (code, text) = get(http, "/").unwrap();
    assert_eq!(code, 200, "{text}");
    let (closed, _) = closed_within(&mut slow[0], Duration::from_secs(1));
    assert!(
        closed,
        "the oldest half-sent request was closed for the newcomer"
    );
    assert!(metric(http, "redbase_http_connections_evicted_total") >= 1.0);
    thrift_answers(server.thrift1);
    // The others are dropped at the header timeout.
    let started = Instant::now();
    let (closed, _) = closed_within(slow.last_mut().unwrap(), Duration::from_secs(6));
    assert!(closed, "dropped at the header timeout");
    assert!(started.elapsed() <= limits.header_timeout + Duration::from_secs(3));
}

#[test]
fn stalled_bodies_end_in_408_and_probes_answer_while_every_slot_is_busy() {
    let limits = ListenerLimits {
        body_timeout: Duration::from_secs(3),
        ..ListenerLimits::default()
    };
    let server = server(limits);
    let http = server.http.unwrap();
    create_table(http);
    let mut stalled: Vec<TcpStream> = (0..limits.max_connections)
        .map(|i| stalled_put(http, i % 2 == 1))
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // Half-sent headers fill the connections kept for probes too...
    let _slow: Vec<TcpStream> = (0..limits.probe_connections)
        .map(|_| {
            let mut s = TcpStream::connect(http).unwrap();
            s.write_all(b"GET /healthz HTTP/1.1\r\nHo").unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    // ...yet with every general connection in a request, the probes are answered (each in the
    // slot of a probe connection still waiting for its headers); other paths get 503 there.
    let (code, text) = get(http, "/healthz").unwrap();
    assert_eq!((code, text.ends_with("ok\n")), (200, true), "{text}");
    assert_eq!(get(http, "/readyz").unwrap().0, 200);
    assert_eq!(
        metric(http, "redbase_http_connections_open{pool=\"general\"}"),
        limits.max_connections as f64
    );
    let (code, text) = get(http, "/").unwrap();
    assert_eq!(code, 503, "{text}");
    assert!(text.contains("every HTTP connection is busy"), "{text}");
    assert!(metric(http, "redbase_http_probe_connections_total") >= 4.0);
    thrift_answers(server.thrift1);
    // At the body timeout each stalled request is answered 408 and its connection closed.
    let started = Instant::now();
    for s in &mut stalled {
        let (closed, text) = closed_within(s, Duration::from_secs(8));
        assert!(closed, "a stalled body kept its connection");
        assert!(text.starts_with("HTTP/1.1 408"), "{text}");
        assert!(text.contains("too slowly"), "{text}");
    }
    assert!(started.elapsed() < limits.body_timeout + Duration::from_secs(4));
    assert_eq!(
        metric(http, "redbase_http_slow_bodies_total"),
        limits.max_connections as f64
    );
    // The slots are free again: REST answers.
    assert_eq!(get(http, "/").unwrap().0, 200);
}

#[test]
fn a_trickled_body_is_ended_below_the_minimum_rate() {
    let limits = ListenerLimits {
        body_timeout: Duration::from_secs(1),
        body_min_rate: 1000,
        ..ListenerLimits::default()
    };
    let server = server(limits);
    let http = server.http.unwrap();
    create_table(http);
    let mut s = TcpStream::connect(http).unwrap();
    s.write_all(b"PUT /t/r HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n").unwrap();
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    // One byte every 200 ms: never a pause as long as the timeout, far below the rate.
    let started = Instant::now();
    let mut answer = Vec::new();
    for _ in 0..40 {
        if s.write_all(b" ").is_err() {
            break;
        }
        let mut b = [0u8; 1024];
        match s.read(&mut b) {
            Ok(0) => break,
            Ok(n) => {
                answer.extend_from_slice(&b[..n]);
                break;
            }
            Err(_) => {}
        }
    }
    let (_, rest) = closed_within(&mut s, Duration::from_secs(3));
    let text = String::from_utf8_lossy(&answer).into_owned() + &rest;
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(metric(http, "redbase_http_slow_bodies_total"), 1.0);
}

#[test]
fn the_lifetime_cap_cuts_a_stuck_request_but_not_a_moving_one() {
    let limits = ListenerLimits {
        max_lifetime: Duration::from_secs(1),
        lifetime_grace: Duration::from_secs(1),
        body_timeout: Duration::from_secs(60),
        body_min_rate: 100,
        ..ListenerLimits::default()
    };
    let server = server(limits);
    let http = server.http.unwrap();
    create_table(http);
    // Stuck: ten bytes of a million, then nothing; the body timeout is far off.
    let started = Instant::now();
    let mut stuck = stalled_put(http, false);
    let (closed, text) = closed_within(&mut stuck, Duration::from_secs(8));
    assert!(closed, "the stuck request outlived the lifetime cap");
    assert!(text.is_empty(), "{text}");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1900) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert_eq!(metric(http, "redbase_http_lifetime_cut_total"), 1.0);
    // Moving: a 600-byte body at 300 bytes/s outlives the lifetime and is answered.
    let row = format!(
        r#"{{"Row":[{{"key":"cg==","Cell":[{{"column":"Y2Y6YQ==","$":"{}"}}]}}]}}"#,
        "dg".repeat(260)
    );
    let mut s = TcpStream::connect(http).unwrap();
    write!(s, "PUT /t/r HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", row.len()).unwrap();
    for part in row.as_bytes().chunks(30) {
        s.write_all(part).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    let (closed, text) = closed_within(&mut s, Duration::from_secs(5));
    assert!(closed);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert_eq!(metric(http, "redbase_http_lifetime_cut_total"), 1.0);
}

#[test]
fn oversized_headers_are_refused() {
    let server = server(ListenerLimits::default());
    let http = server.http.unwrap();
    let mut s = TcpStream::connect(http).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut req = b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: ".to_vec();
    req.extend(std::iter::repeat_n(b'a', 64 * 1024));
    req.extend_from_slice(b"\r\n\r\n");
    let _ = s.write_all(&req);
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    assert!(
        text.is_empty() || text.starts_with("HTTP/1.1 431") || text.starts_with("HTTP/1.1 400"),
        "{text}"
    );
    assert_eq!(get(http, "/healthz").unwrap().0, 200);
}
