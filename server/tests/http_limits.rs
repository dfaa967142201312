//! The operations listener under a slow-header attack: connections past its cap are closed at
//! once, half-sent requests are dropped after the header timeout, oversized headers are
//! refused, and the Thrift gateways keep accepting throughout.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::server::TestServer;
use redbase::http::serve::{HEADER_TIMEOUT, MAX_CONNECTIONS};
use redbase::server::Config;

fn healthz(addr: SocketAddr) -> Option<String> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    Some(text)
}

/// Whether the server closed `s` (a read ends or fails) within `within`.
fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    s.set_read_timeout(Some(within)).unwrap();
    let mut b = [0u8; 256];
    loop {
        match s.read(&mut b) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) => {
                return !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                )
            }
        }
    }
}

#[test]
fn half_sent_requests_cannot_hold_the_listener_or_starve_the_gateways() {
    let server = TestServer::start_with_http(Config::default());
    let http = server.http.unwrap();
    assert!(healthz(http).unwrap().starts_with("HTTP/1.1 200"));
    // Fill every slot with requests that never finish their headers.
    let mut slow: Vec<TcpStream> = (0..MAX_CONNECTIONS)
        .map(|_| {
            let mut s = TcpStream::connect(http).unwrap();
            s.write_all(b"GET /healthz HTTP/1.1\r\nHo").unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // One more is closed at once.
    let mut extra = TcpStream::connect(http).unwrap();
    extra.write_all(b"GET /healthz HTTP/1.1\r\n").unwrap();
    assert!(
        closed_within(&mut extra, Duration::from_secs(2)),
        "past the cap"
    );
    // The Thrift gateway accepts and answers all the while.
    let mut t = TcpStream::connect(server.thrift1).unwrap();
    t.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut call = vec![0x80, 1, 0, 1, 0, 0, 0, 13];
    call.extend_from_slice(b"getTableNames");
    call.extend_from_slice(&[0, 0, 0, 1, 0]);
    t.write_all(&call).unwrap();
    let mut head = [0u8; 4];
    t.read_exact(&mut head).unwrap();
    assert_eq!(head, [0x80, 1, 0, 2]);
    // The half-sent requests are dropped after the header timeout, and probes work again.
    let started = Instant::now();
    assert!(closed_within(
        &mut slow[0],
        HEADER_TIMEOUT + Duration::from_secs(5)
    ));
    assert!(started.elapsed() <= HEADER_TIMEOUT + Duration::from_secs(5));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if healthz(http).is_some_and(|t| t.starts_with("HTTP/1.1 200")) {
            break;
        }
        assert!(Instant::now() < deadline, "the listener did not recover");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(slow);
}

#[test]
fn oversized_headers_are_refused() {
    let server = TestServer::start_with_http(Config::default());
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
    assert!(healthz(http).unwrap().starts_with("HTTP/1.1 200"));
}
