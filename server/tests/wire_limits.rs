//! The limits a client meets on the Thrift ports, black-box on loopback: the connection cap
//! serves a newcomer by closing the connection idle longest, the in-flight byte budget refuses
//! what it cannot hold with an error reply, messages over the size limit are answered, not
//! silently reset, HTTP heads the server cannot take get a 400 that says why, and a client
//! that stops reading its reply is cut off after the idle timeout instead of holding its
//! connection, and the server's shutdown, forever.

mod common;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::server::TestServer;
use redbase::server::Config;
use redbase::thrift::{Budget, Limits};

/// A strict-binary call with no arguments.
fn call(name: &str) -> Vec<u8> {
    let mut m = vec![0x80, 1, 0, 1];
    m.extend_from_slice(&(name.len() as i32).to_be_bytes());
    m.extend_from_slice(name.as_bytes());
    m.extend_from_slice(&7i32.to_be_bytes());
    m.push(0);
    m
}

/// A Thrift2 `put` of one cell with `value`, strict binary (table "t", row "r", f:q).
fn put_call(value: &[u8]) -> Vec<u8> {
    let mut m = vec![0x80, 1, 0, 1];
    m.extend_from_slice(&3i32.to_be_bytes());
    m.extend_from_slice(b"put");
    m.extend_from_slice(&1i32.to_be_bytes());
    // 1: table
    m.extend_from_slice(&[11, 0, 1]);
    m.extend_from_slice(&1i32.to_be_bytes());
    m.push(b't');
    // 2: TPut { 1: row, 2: list<TColumnValue> }
    m.extend_from_slice(&[12, 0, 2]);
    m.extend_from_slice(&[11, 0, 1]);
    m.extend_from_slice(&1i32.to_be_bytes());
    m.push(b'r');
    m.extend_from_slice(&[15, 0, 2, 12]);
    m.extend_from_slice(&1i32.to_be_bytes());
    for (id, v) in [(1u8, &b"f"[..]), (2, &b"q"[..]), (3, value)] {
        m.extend_from_slice(&[11, 0, id]);
        m.extend_from_slice(&(v.len() as i32).to_be_bytes());
        m.extend_from_slice(v);
    }
    m.push(0); // end TColumnValue
    m.push(0); // end TPut
    m.push(0); // end args
    m
}

fn framed(body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(body);
    out
}

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

/// Reads one framed reply: (message type, the reply's bytes as text for matching).
fn framed_reply(s: &mut TcpStream) -> (u8, String) {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).expect("a framed reply");
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    (body[3], String::from_utf8_lossy(&body).into_owned())
}

/// Sends a buffered call and reads its (small) reply: the message type.
fn buffered_call(s: &mut TcpStream, name: &str) -> u8 {
    s.write_all(&call(name)).unwrap();
    let mut head = [0u8; 4];
    s.read_exact(&mut head).expect("a reply");
    let mut rest = [0u8; 4096];
    let _ = s.read(&mut rest);
    head[3]
}

fn config(limits: Limits) -> Config {
    Config {
        limits,
        ..Config::default()
    }
}

#[test]
fn at_the_cap_a_newcomer_is_served_by_closing_the_idlest_connection() {
    let server = TestServer::start(config(Limits {
        max_connections: 20,
        ..Limits::default()
    }));
    // Twenty clients that connect and then say nothing hold every slot.
    let mut idle: Vec<TcpStream> = (0..20).map(|_| connect(server.thrift1)).collect();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let mut live = connect(server.thrift1);
    assert_eq!(buffered_call(&mut live, "getTableNames"), 2, "a REPLY");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the newcomer waited {:?}",
        started.elapsed()
    );
    // The first idle client was closed to make room; a client that keeps calling stays.
    idle[0]
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut buf = [0u8; 1];
    assert_eq!(
        idle[0].read(&mut buf).unwrap_or(0),
        0,
        "the idlest was closed"
    );
    assert_eq!(buffered_call(&mut live, "getTableNames"), 2);
    // Every newcomer keeps being served, one idle connection at a time.
    for _ in 0..5 {
        let mut c = connect(server.thrift1);
        assert_eq!(buffered_call(&mut c, "getTableNames"), 2);
    }
    assert_eq!(
        buffered_call(&mut live, "getTableNames"),
        2,
        "an active client stays"
    );
    drop(idle);
}

#[test]
fn the_inflight_budget_refuses_what_it_cannot_hold_with_an_error_reply() {
    let server = TestServer::start(config(Limits {
        budget: Budget::new(4 * 1024 * 1024),
        ..Limits::default()
    }));
    let value = vec![b'v'; 3 * 1024 * 1024];
    let whole = framed(&put_call(&value));
    // The first client sends all but the last bytes of a 3 MB frame: the budget holds it.
    let mut first = connect(server.thrift2);
    first.write_all(&whole[..whole.len() - 10]).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // A second one announcing another 3 MB cannot fit: after a short wait it is told why.
    let mut second = connect(server.thrift2);
    second.write_all(&whole[..64 * 1024]).unwrap();
    let (kind, text) = framed_reply(&mut second);
    assert_eq!(kind, 3, "an EXCEPTION reply: {text}");
    assert!(text.contains("max-inflight-bytes"), "{text}");
    // The first completes and is answered (the table does not exist: a TIOError reply, which
    // proves the 3 MB call was read and processed).
    first.write_all(&whole[whole.len() - 10..]).unwrap();
    let (kind, text) = framed_reply(&mut first);
    assert_eq!(kind, 2, "a REPLY: {text}");
    assert!(text.contains("does not exist"), "{text}");
    // Budget given back: a third client's 3 MB call is read now.
    let mut third = connect(server.thrift2);
    third.write_all(&whole).unwrap();
    let (kind, _) = framed_reply(&mut third);
    assert_eq!(kind, 2);
}

#[test]
fn a_message_over_the_size_limit_is_answered_not_reset() {
    let server = TestServer::start(config(Limits {
        max_message: 1024 * 1024,
        ..Limits::default()
    }));
    let big = put_call(&vec![b'v'; 2 * 1024 * 1024]);
    // Framed: the frame header says too much; the client still gets an error reply.
    let mut s = connect(server.thrift2);
    s.write_all(&framed(&big)).unwrap();
    let (kind, text) = framed_reply(&mut s);
    assert_eq!(kind, 3, "an EXCEPTION reply: {text}");
    assert!(text.contains("exceeds the maximum"), "{text}");
    assert!(text.contains("put"), "the reply names the call: {text}");
    // Buffered: the message grows past the limit; the reply names the call too.
    let mut s = connect(server.thrift2);
    let _ = s.write_all(&big);
    let mut head = [0u8; 4];
    s.read_exact(&mut head)
        .expect("an error reply before the close");
    assert_eq!(head, [0x80, 1, 0, 3]);
    // HTTP: 413 with the reason.
    let mut s = connect(server.thrift2);
    let req = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n",
        big.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(text.contains("exceeds the maximum"), "{text}");
}

/// Sends `head` with a `getTableNames` call as its body to the Thrift1 port: the status line
/// and whole answer, read to the close (or to the end of one 200 answer).
fn http_exchange(addr: SocketAddr, head: &str) -> String {
    let mut s = connect(addr);
    let mut req = head.as_bytes().to_vec();
    req.extend_from_slice(&call("getTableNames"));
    s.write_all(&req).unwrap();
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Ok(n) = s.read(&mut chunk) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&chunk[..n]);
        if got.starts_with(b"HTTP/1.1 200") && got.ends_with(&[0]) {
            break;
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn http_heads_are_parsed_and_the_ones_refused_get_a_400_saying_why() {
    let server = TestServer::start(Config::default());
    let len = call("getTableNames").len();
    // Header names in any case, values with spaces around them.
    let ok = http_exchange(
        server.thrift1,
        &format!("POST /hbase HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-thrift\r\ncontent-LENGTH:  {len} \r\n\r\n"),
    );
    assert!(ok.starts_with("HTTP/1.1 200 OK"), "{ok}");
    assert!(ok.contains("Connection: keep-alive"), "{ok}");
    // HTTP/1.0 closes after the answer unless the client asks to keep the connection.
    let ok = http_exchange(
        server.thrift1,
        &format!("POST / HTTP/1.0\r\nContent-Type: application/x-thrift\r\nContent-Length: {len}\r\n\r\n"),
    );
    assert!(ok.contains("Connection: close"), "{ok}");
    let ok = http_exchange(
        server.thrift1,
        &format!("POST / HTTP/1.0\r\nConnection: keep-alive\r\nContent-Type: application/x-thrift\r\nContent-Length: {len}\r\n\r\n"),
    );
    assert!(ok.contains("Connection: keep-alive"), "{ok}");
    let many: String = (0..100).map(|i| format!("X-{i}: y\r\n")).collect();
    for (head, why) in [
        (
            format!("POST / HTTP/1.1\r\nno colon here\r\nContent-Length: {len}\r\n\r\n"),
            "malformed HTTP request",
        ),
        (
            format!("POST / HTTP/1.1\r\n{many}Content-Length: {len}\r\n\r\n"),
            "more than 64 HTTP headers",
        ),
        (
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".to_string(),
            "chunked HTTP bodies are not supported",
        ),
        (
            "POST / HTTP/1.1\r\nHost: x\r\n\r\n".to_string(),
            "without Content-Length",
        ),
    ] {
        let answer = http_exchange(server.thrift1, &head);
        assert!(answer.starts_with("HTTP/1.1 400"), "{head:?}: {answer}");
        assert!(answer.contains(why), "{head:?}: {answer}");
    }
}

/// A buffered Thrift1 `getRow(table, row)` call, strict binary, with no attributes.
fn get_row_call(table: &[u8], row: &[u8]) -> Vec<u8> {
    let mut m = vec![0x80, 1, 0, 1];
    m.extend_from_slice(&6i32.to_be_bytes());
    m.extend_from_slice(b"getRow");
    m.extend_from_slice(&9i32.to_be_bytes());
    for (id, v) in [(1u8, table), (2, row)] {
        m.extend_from_slice(&[11, 0, id]);
        m.extend_from_slice(&(v.len() as i32).to_be_bytes());
        m.extend_from_slice(v);
    }
    m.push(0);
    m
}

/// The value of a labelled sample in the operations listener's /metrics.
fn metric(addr: SocketAddr, sample: &str) -> Option<f64> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET /metrics HTTP/1.0\r\nHost: test\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(sample)?.trim().parse().ok())
}

#[test]
fn a_client_that_stops_reading_its_reply_is_cut_after_the_idle_timeout() {
    use redbase::generated::hbase1 as h1;
    use redbase::generated::hbase1::THbaseSyncClient;
    let idle = Duration::from_secs(2);
    let server = TestServer::start_with_http(config(Limits {
        idle_timeout: idle,
        ..Limits::default()
    }));
    let http = server.http.unwrap();
    // A row of 48 cells of 1 MiB: its reply is far more than loopback's socket buffers hold.
    let mut c1 = common::acl::client1(server.thrift1);
    c1.create_table(b"t".to_vec(), vec![common::acl::family1("f")])
        .unwrap();
    for i in 0..48 {
        let m = h1::Mutation {
            is_delete: Some(false),
            column: Some(format!("f:q{i:02}").into_bytes()),
            value: Some(vec![b'v'; 1024 * 1024]),
            write_to_w_a_l: Some(true),
        };
        c1.mutate_row(b"t".to_vec(), b"r".to_vec(), vec![m], BTreeMap::new())
            .unwrap();
    }
    // The client asks for the row and never reads.
    let mut stuck = connect(server.thrift1);
    stuck.write_all(&get_row_call(b"t", b"r")).unwrap();
    let asked = Instant::now();
    let sample = "redbase_connections_stalled_total{gateway=\"thrift1\"}";
    while metric(http, sample) != Some(1.0) {
        assert!(
            asked.elapsed() < idle + Duration::from_secs(15),
            "the stalled connection was not cut: {:?}",
            metric(http, sample)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        asked.elapsed() >= idle,
        "cut before the idle timeout: {:?}",
        asked.elapsed()
    );
    // What the client finds when it reads at last: part of the reply, then the end.
    let mut got = Vec::new();
    let _ = stuck.read_to_end(&mut got);
    assert!(
        got.len() < 48 * 1024 * 1024,
        "the whole reply arrived: {}",
        got.len()
    );
    // Other clients are served (a new one: the first was idle past the timeout), and the
    // server stops at once.
    let mut c1 = common::acl::client1(server.thrift1);
    let tables = c1.get_table_names().unwrap();
    assert_eq!(tables, vec![b"t".to_vec()]);
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(server);
        let _ = done_tx.send(());
    });
    assert!(
        done_rx.recv_timeout(Duration::from_secs(10)).is_ok(),
        "the server did not stop"
    );
}
