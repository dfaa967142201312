//! Hostile bytes against the security paths of a real server (TLS, an auth file, plaintext
//! SASL allowed): mutated SASL negotiations (statuses, lengths, PLAIN payloads, mechanisms),
//! TLS records that are not ClientHellos, and Thrift-over-HTTP requests with broken
//! credentials and headers. Every connection must end promptly once the client stops sending
//! (no hang), and the server must go on answering an authenticated client (no panic, nothing
//! stuck).

mod common;
mod security;

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use common::server::TestServer;
use proptest::prelude::*;
use redbase::security::{hash_password, Auth, LimiterConfig, Security, Tls, TlsFiles, Users};
use redbase::server::Config;
use security::*;

const PASSWORD: &str = "hostile-test pass";

fn server() -> (TestServer, tempfile::TempDir, Ca) {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("hostile CA");
    let leaf = ca.leaf("server");
    let files = TlsFiles {
        cert: write(dir.path(), "server.crt", &leaf.cert),
        key: write(dir.path(), "server.key", &leaf.key),
        client_ca: Some(write(dir.path(), "ca.crt", &ca.pem)),
        require_client_cert: false,
    };
    let text = format!(
        "[users.alice]\npassword = \"{}\"\nsuperuser = true\n",
        hash_password(PASSWORD).unwrap()
    );
    let users = Users::parse(&text, Path::new("users.toml")).unwrap();
    let auth = Arc::new(Auth::new(
        users,
        LimiterConfig {
            // Far more failures than the cases make: the limiter is tested elsewhere.
            max_failures: 1_000_000,
            ..LimiterConfig::default()
        },
    ));
    let server = TestServer::start_with_http(Config {
        security: Security {
            tls: Some(Tls::load(files).unwrap()),
            auth: Some(auth),
            allow_plaintext_auth: true,
            ..Security::default()
        },
        ..Config::default()
    });
    (server, dir, ca)
}

/// Sends `bytes`, stops sending, and reads until the server closes: true when it closed (or
/// reset) within the deadline.
fn ends_promptly(addr: SocketAddr, bytes: &[u8]) -> bool {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return false;
    };
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // The server may close before taking every byte; that is an answer too.
    let _ = s.write_all(bytes);
    let _ = s.shutdown(Shutdown::Write);
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => return false,
            Err(_) => return true,
        }
        if started.elapsed() > Duration::from_secs(10) {
            return false;
        }
    }
}

/// A SASL negotiation frame: status, big-endian length (as claimed), payload.
fn sasl_frame(status: u8, claimed: Option<u32>, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![status];
    f.extend_from_slice(&claimed.unwrap_or(payload.len() as u32).to_be_bytes());
    f.extend_from_slice(payload);
    f
}

fn plain_payload() -> impl Strategy<Value = Vec<u8>> {
    let text = prop_oneof![
        Just(b"alice".to_vec()),
        Just(Vec::new()),
        Just(PASSWORD.as_bytes().to_vec()),
        proptest::collection::vec(any::<u8>(), 0..64),
        Just(vec![b'x'; 70_000]),
        Just(vec![0xff, 0xfe, 0x00, 0xc3]),
    ];
    proptest::collection::vec(text, 0..5).prop_map(|parts| parts.join(&0u8))
}

fn sasl_bytes() -> impl Strategy<Value = Vec<u8>> {
    let mechanism = prop_oneof![
        Just(b"PLAIN".to_vec()),
        Just(b"GSSAPI".to_vec()),
        Just(Vec::new()),
        proptest::collection::vec(any::<u8>(), 0..40),
    ];
    let claimed = prop_oneof![
        3 => Just(None),
        1 => any::<u32>().prop_map(Some),
        1 => Just(Some(u32::MAX)),
    ];
    (
        0u8..=6,
        mechanism,
        claimed,
        any::<u8>(),
        plain_payload(),
        proptest::collection::vec(any::<u8>(), 0..32),
    )
        .prop_map(|(status, mech, claimed, second, plain, tail)| {
            // A START (or another status where START belongs), then a second negotiation
            // message, then whatever follows.
            let mut b = sasl_frame(status, claimed, &mech);
            b.extend(sasl_frame(second % 7, None, &plain));
            b.extend(tail);
            b
        })
}

fn tls_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<u8>(),
        any::<u16>(),
        proptest::collection::vec(any::<u8>(), 0..300),
    )
        .prop_map(|(minor, len, body)| {
            let mut b = vec![0x16, 0x03, minor % 5];
            b.extend_from_slice(&len.to_be_bytes());
            b.extend(body);
            b
        })
}

fn http_bytes() -> impl Strategy<Value = Vec<u8>> {
    let auth = prop_oneof![
        Just("Basic !!!not base64".to_string()),
        proptest::collection::vec(any::<u8>(), 0..80).prop_map(|b| format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(b)
        )),
        Just(format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("alice:{PASSWORD}"))
        )),
        Just(format!("Bearer {}", "t".repeat(9_000))),
        Just("Bearer".to_string()),
        Just("Negotiate abc".to_string()),
        "[ -~]{0,60}".prop_map(|s| s),
    ];
    let content_type = prop_oneof![
        Just("application/x-thrift"),
        Just("text/plain"),
        Just("application/vnd.apache.thrift.compact"),
        Just(""),
    ];
    let origin = prop_oneof![Just(None), Just(Some("http://evil.example"))];
    (
        auth,
        content_type,
        origin,
        proptest::collection::vec(any::<u8>(), 0..200),
    )
        .prop_map(|(auth, ct, origin, body)| {
            let mut head = format!(
                "POST / HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n",
                body.len()
            );
            if let Some(o) = origin {
                head.push_str(&format!("Origin: {o}\r\n"));
            }
            head.push_str("\r\n");
            let mut b = head.into_bytes();
            b.extend(body);
            b
        })
}

/// Still serving: an authenticated SASL PLAIN client gets an answer to `method` (no
/// arguments).
fn still_serves(addr: SocketAddr, method: &str) {
    let mut s = plain(addr);
    assert_eq!(sasl_plain(&mut *s, "alice", PASSWORD), (5, String::new()));
    let (t, body) = framed_call(&mut *s, &message(method, &[])).unwrap();
    assert_eq!(t, 2, "{}", String::from_utf8_lossy(&body));
}

#[test]
fn hostile_security_bytes_never_hang_or_break_the_server() {
    let (server, _dir, _ca) = server();
    let config = ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let t1 = server.thrift1;
    let t2 = server.thrift2;
    let http = server.http.unwrap();
    proptest!(config, |(sasl in sasl_bytes(), tls in tls_bytes(), req in http_bytes())| {
        prop_assert!(ends_promptly(t1, &sasl), "SASL bytes left the connection hanging: {:?}", &sasl[..sasl.len().min(64)]);
        prop_assert!(ends_promptly(t2, &tls), "TLS bytes left the connection hanging: {:?}", &tls[..tls.len().min(64)]);
        prop_assert!(ends_promptly(t2, &req), "HTTP request left the connection hanging: {:?}", String::from_utf8_lossy(&req[..req.len().min(200)]));
        prop_assert!(ends_promptly(http, &req), "operations listener hung on: {:?}", String::from_utf8_lossy(&req[..req.len().min(200)]));
    });
    still_serves(server.thrift1, "getTableNames");
    still_serves(server.thrift2, "getClusterId");
}
