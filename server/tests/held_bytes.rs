//! What clients can make the server hold, through the real listeners: REST bodies (the
//! caller's access checked before a byte of the body is read, the bytes within the server's
//! in-flight budget, a stalled upload cut off), XML that spreads without bound, and the bytes
//! open scanners keep on every gateway (one budget, its metric, a clear error at the bound).

mod common;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use common::server::TestServer;
use redbase::generated::{hbase1, hbase2};
use redbase::scanners::{ScannerBytes, ScannerLimits};
use redbase::server::Config;
use redbase::thrift::{Budget, Limits};
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{TIoChannel, TTcpChannel};

/// An HTTP answer: status line and headers as text, then the body.
struct Answer {
    head: String,
    body: String,
}

impl Answer {
    fn status(&self) -> u16 {
        self.head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }

    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
}

/// Reads one answer (its body up to its Content-Length) from `s`.
fn read_answer(s: &mut TcpStream) -> std::io::Result<Answer> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let end = loop {
        if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = s.read(&mut buf)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        got.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&got[..end]).into_owned();
    let mut a = Answer {
        head,
        body: String::new(),
    };
    let len: usize = a
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while got.len() < end + len {
        let n = s.read(&mut buf)?;
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    a.body = String::from_utf8_lossy(&got[end..]).into_owned();
    Ok(a)
}

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

/// The request line and headers of a body of `len` bytes.
fn head(method: &str, path: &str, auth: Option<&str>, ct: &str, len: usize) -> String {
    let auth = auth.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    format!("{method} {path} HTTP/1.1\r\nHost: t\r\n{auth}Content-Type: {ct}\r\nContent-Length: {len}\r\n\r\n")
}

/// One whole request on a connection of its own.
fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    auth: Option<&str>,
    ct: &str,
    body: &[u8],
) -> Answer {
    let mut s = connect(addr);
    s.write_all(head(method, path, auth, ct, body.len()).as_bytes())
        .unwrap();
    s.write_all(body).unwrap();
    read_answer(&mut s).unwrap()
}

fn metric(addr: SocketAddr, line_start: &str) -> f64 {
    let a = call(addr, "GET", "/metrics", None, "text/plain", b"");
    a.body
        .lines()
        .find(|l| l.starts_with(line_start))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {line_start} in {}", a.body))
}

fn b64(b: &[u8]) -> String {
    STANDARD.encode(b)
}

/// A JSON cell set of one cell whose value is `value_len` bytes.
fn cell_set(value_len: usize) -> Vec<u8> {
    format!(
        "{{\"Row\":[{{\"key\":\"{}\",\"Cell\":[{{\"column\":\"{}\",\"$\":\"{}\"}}]}}]}}",
        b64(b"r"),
        b64(b"cf:a"),
        b64(&vec![b'v'; value_len])
    )
    .into_bytes()
}

fn create_table(addr: SocketAddr, auth: Option<&str>, table: &str) {
    let schema = format!("{{\"name\":\"{table}\",\"ColumnSchema\":[{{\"name\":\"cf\"}}]}}");
    let a = call(
        addr,
        "PUT",
        &format!("/{table}/schema"),
        auth,
        "application/json",
        schema.as_bytes(),
    );
    assert_eq!(a.status(), 201, "{}", a.body);
}

#[test]
fn a_caller_without_grants_is_refused_before_the_body_is_read() {
    use redbase::security::{hash_password, hash_token, Auth, LimiterConfig, Security, Users};
    let text = format!(
        "[users.alice]\npassword = \"{}\"\nsuperuser = true\n[users.bob]\ntokens = [\"{}\"]\n",
        hash_password("alice-secret").unwrap(),
        hash_token("bob-token-0123456789")
    );
    let users = Users::parse(&text, std::path::Path::new("users.toml")).unwrap();
    let server = TestServer::start_with_http(Config {
        security: Security {
            auth: Some(Arc::new(Auth::new(users, LimiterConfig::default()))),
            allow_plaintext_auth: true,
            // The test reads the in-flight gauge without credentials.
            metrics_open: true,
            ..Security::default()
        },
        ..Config::default()
    });
    let http = server.http.unwrap();
    let alice = format!("Basic {}", b64(b"alice:alice-secret"));
    let bob = "Bearer bob-token-0123456789";
    create_table(http, Some(&alice), "sec");
    // Only the headers of a 30 MiB cell set, a scanner, a schema change and namespace
    // properties: each is answered 403 with HBase's denial while its body is still unsent.
    for (method, path, action) in [
        ("PUT", "/sec/r", "action=WRITE"),
        ("POST", "/sec/r/cf:a?check=put", "action=READ"),
        ("PUT", "/sec/scanner", "action=READ"),
        ("PUT", "/sec/schema", "action=CREATE"),
        ("POST", "/newtable/schema", "action=CREATE"),
        ("POST", "/namespaces/ns1", "action=ADMIN"),
    ] {
        let mut s = connect(http);
        s.write_all(head(method, path, Some(bob), "application/json", 30 << 20).as_bytes())
            .unwrap();
        let a = read_answer(&mut s).unwrap();
        assert_eq!(a.status(), 403, "{method} {path}: {}", a.head);
        assert!(
            a.body
                .starts_with("Forbidden\r\norg.apache.hadoop.hbase.security.AccessDeniedException"),
            "{method} {path}: {}",
            a.body
        );
        assert!(a.body.contains(action), "{method} {path}: {}", a.body);
        assert_eq!(
            a.header("connection").as_deref(),
            Some("close"),
            "{}",
            a.head
        );
    }
    // Nothing of those bodies was taken into the in-flight budget.
    assert_eq!(metric(http, "redbase_inflight_bytes{} "), 0.0);
    // The same request with its body, from a user who may write, is stored.
    let a = call(
        http,
        "PUT",
        "/sec/r",
        Some(&alice),
        "application/json",
        &cell_set(10),
    );
    assert_eq!(a.status(), 200, "{}", a.body);
}

#[test]
fn bodies_are_held_within_the_in_flight_budget() {
    let server = TestServer::start_with_http(Config {
        limits: Limits {
            budget: Budget::new(1 << 20),
            ..Limits::default()
        },
        ..Config::default()
    });
    let http = server.http.unwrap();
    create_table(http, None, "t");
    // A body larger than the whole budget: 413 at once, saying why.
    let mut s = connect(http);
    s.write_all(head("PUT", "/t/r", None, "application/json", 2 << 20).as_bytes())
        .unwrap();
    let a = read_answer(&mut s).unwrap();
    assert_eq!(a.status(), 413, "{}", a.head);
    assert!(
        a.body.contains("more than the server's whole budget"),
        "{}",
        a.body
    );
    assert!(a.body.contains("--max-inflight-bytes"), "{}", a.body);
    assert_eq!(metric(http, "redbase_inflight_refusals_total{} "), 1.0);

    // One upload holds most of the budget while its body arrives.
    let body = cell_set(500 * 1024);
    let mut first = connect(http);
    first
        .write_all(head("PUT", "/t/r", None, "application/json", body.len()).as_bytes())
        .unwrap();
    first.write_all(&body[..1000]).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(metric(http, "redbase_inflight_bytes{} ") >= body.len() as f64);
    // Another waits for room (5 s), then is answered 503 with Retry-After.
    let mut refused = connect(http);
    refused
        .write_all(head("PUT", "/t/r3", None, "application/json", body.len()).as_bytes())
        .unwrap();
    let a = read_answer(&mut refused).unwrap();
    assert_eq!(a.status(), 503, "{}", a.head);
    assert_eq!(a.header("retry-after").as_deref(), Some("5"), "{}", a.head);
    assert!(
        a.body.contains("cannot hold this connection's"),
        "{}",
        a.body
    );
    assert!(a.body.contains("try again later"), "{}", a.body);
    assert_eq!(metric(http, "redbase_inflight_refusals_total{} "), 2.0);
    // Back-pressure: one more waits while the first holds the budget...
    let mut second = connect(http);
    second
        .write_all(head("PUT", "/t/r2", None, "application/json", body.len()).as_bytes())
        .unwrap();
    second.write_all(&body).unwrap();
    second
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut b = [0u8; 16];
    let early = second.read(&mut b);
    assert!(
        matches!(&early, Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)),
        "the second upload was answered while the first held the budget: {early:?}"
    );
    // ...and when the first finishes, the second gets its bytes and is stored too.
    first.write_all(&body[1000..]).unwrap();
    assert_eq!(read_answer(&mut first).unwrap().status(), 200);
    second
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let a = read_answer(&mut second).unwrap();
    assert_eq!(a.status(), 200, "{}", a.body);
    assert_eq!(metric(http, "redbase_inflight_bytes{} "), 0.0);
}

#[test]
fn a_stalled_upload_is_cut_off_and_gives_its_bytes_back() {
    let server = TestServer::start_with_http(Config {
        limits: Limits {
            idle_timeout: Duration::from_millis(500),
            ..Limits::default()
        },
        ..Config::default()
    });
    let http = server.http.unwrap();
    create_table(http, None, "t");
    let mut s = connect(http);
    s.write_all(head("PUT", "/t/r", None, "application/json", 1 << 20).as_bytes())
        .unwrap();
    s.write_all(b"{\"Row\":[").unwrap();
    let a = read_answer(&mut s).unwrap();
    assert_eq!(a.status(), 408, "{}", a.head);
    assert!(
        a.body.contains("no part of the request body arrived"),
        "{}",
        a.body
    );
    assert_eq!(metric(http, "redbase_inflight_bytes{} "), 0.0);
}

#[test]
fn xml_attributes_are_bounded_per_element() {
    let server = TestServer::start_with_http(Config::default());
    let http = server.http.unwrap();
    create_table(http, None, "t");
    // 200,000 attributes on one element (2.6 MB): refused at the 1025th, for a schema and
    // for a cell set alike.
    let attrs: String = (0..200_000).map(|i| format!(" a{i}=\"v\"")).collect();
    let schema =
        format!("<TableSchema name=\"t2\"{attrs}><ColumnSchema name=\"cf\"/></TableSchema>");
    let a = call(
        http,
        "PUT",
        "/t2/schema",
        None,
        "text/xml",
        schema.as_bytes(),
    );
    assert_eq!(a.status(), 400, "{}", a.head);
    assert!(
        a.body
            .contains("<TableSchema> has more than 1024 attributes"),
        "{}",
        a.body
    );
    let cells = format!(
        "<CellSet><Row key=\"{}\"><Cell column=\"{}\"{attrs}>dg==</Cell></Row></CellSet>",
        b64(b"r"),
        b64(b"cf:a")
    );
    let a = call(http, "PUT", "/t/r", None, "text/xml", cells.as_bytes());
    assert_eq!(a.status(), 400, "{}", a.head);
    assert!(
        a.body.contains("<Cell> has more than 1024 attributes"),
        "{}",
        a.body
    );
    // Within the bound, a schema's settings are read as before.
    let attrs: String = (0..1000).map(|i| format!(" A{i}=\"v\"")).collect();
    let schema =
        format!("<TableSchema name=\"t3\"{attrs}><ColumnSchema name=\"cf\"/></TableSchema>");
    let a = call(
        http,
        "PUT",
        "/t3/schema",
        None,
        "text/xml",
        schema.as_bytes(),
    );
    assert_eq!(a.status(), 201, "{}", a.body);
    // A cell set in XML is still stored and read back.
    let cells = format!(
        "<CellSet><Row key=\"{}\"><Cell column=\"{}\">{}</Cell></Row></CellSet>",
        b64(b"r"),
        b64(b"cf:a"),
        b64(b"xml value")
    );
    assert_eq!(
        call(http, "PUT", "/t/r", None, "text/xml", cells.as_bytes()).status(),
        200
    );
    let mut s = connect(http);
    s.write_all(b"GET /t/r/cf:a HTTP/1.1\r\nHost: t\r\nAccept: application/octet-stream\r\n\r\n")
        .unwrap();
    assert_eq!(read_answer(&mut s).unwrap().body, "xml value");
}

type T1 = hbase1::HbaseSyncClient<
    TBinaryInputProtocol<thrift::transport::ReadHalf<TTcpChannel>>,
    TBinaryOutputProtocol<thrift::transport::WriteHalf<TTcpChannel>>,
>;
type T2 = hbase2::THBaseServiceSyncClient<
    TBinaryInputProtocol<thrift::transport::ReadHalf<TTcpChannel>>,
    TBinaryOutputProtocol<thrift::transport::WriteHalf<TTcpChannel>>,
>;

fn channel(
    addr: SocketAddr,
) -> (
    TBinaryInputProtocol<thrift::transport::ReadHalf<TTcpChannel>>,
    TBinaryOutputProtocol<thrift::transport::WriteHalf<TTcpChannel>>,
) {
    let mut c = TTcpChannel::new();
    c.open(addr.to_string()).unwrap();
    let (r, w) = c.split().unwrap();
    (
        TBinaryInputProtocol::new(r, true),
        TBinaryOutputProtocol::new(w, true),
    )
}

/// The message of a Thrift1 IOError or a Thrift2 TIOError, with its retry flag.
fn io_error(e: thrift::Error) -> (String, Option<bool>) {
    match e {
        thrift::Error::User(u) => {
            if let Some(e) = u.downcast_ref::<hbase1::IOError>() {
                return (e.message.clone().unwrap_or_default(), e.can_retry);
            }
            if let Some(e) = u.downcast_ref::<hbase2::TIOError>() {
                return (e.message.clone().unwrap_or_default(), e.can_retry);
            }
            panic!("not an IOError: {u:?}")
        }
        other => panic!("not an IOError: {other:?}"),
    }
}

#[test]
fn open_scanners_share_one_byte_budget_on_every_gateway() {
    use hbase1::THbaseSyncClient;
    use hbase2::TTHBaseServiceSyncClient;
    let bytes = ScannerBytes::new(1 << 20);
    let server = TestServer::start_with_http(Config {
        scanners: ScannerLimits {
            bytes: bytes.clone(),
            ..ScannerLimits::default()
        },
        ..Config::default()
    });
    let http = server.http.unwrap();
    create_table(http, None, "t");
    // Each scanner's filter compares with 200 KB: it is counted for about 400 KB.
    let value = "x".repeat(200 * 1024);
    let text = format!("ValueFilter(=, 'binary:{value}')");
    let (i, o) = channel(server.thrift1);
    let mut t1: T1 = hbase1::HbaseSyncClient::new(i, o);
    let scan1 = || hbase1::TScan {
        filter_string: Some(text.clone().into_bytes()),
        ..Default::default()
    };
    let first = t1
        .scanner_open_with_scan(b"t".to_vec(), scan1(), BTreeMap::new())
        .unwrap();
    t1.scanner_open_with_scan(b"t".to_vec(), scan1(), BTreeMap::new())
        .unwrap();
    let held = metric(http, "redbase_scanner_bytes{} ");
    assert!(held > 800_000.0 && held <= (1 << 20) as f64, "{held}");
    assert_eq!(held as usize, bytes.held());
    assert_eq!(
        metric(http, "redbase_scanner_bytes_max{} "),
        (1 << 20) as f64
    );
    // The budget is spent: Thrift1, Thrift2 and REST each refuse the next, saying why.
    let (msg, retry) = io_error(
        t1.scanner_open_with_scan(b"t".to_vec(), scan1(), BTreeMap::new())
            .unwrap_err(),
    );
    assert!(msg.contains("open scanners hold too much memory"), "{msg}");
    assert!(msg.contains("--max-scanner-bytes"), "{msg}");
    assert_eq!(retry, Some(true));
    let (i, o) = channel(server.thrift2);
    let mut t2: T2 = hbase2::THBaseServiceSyncClient::new(i, o);
    let scan2 = || hbase2::TScan {
        filter_string: Some(text.clone().into_bytes()),
        filter_bytes: None,
        ..Default::default()
    };
    let (msg, retry) = io_error(t2.open_scanner(b"t".to_vec(), scan2()).unwrap_err());
    assert!(msg.contains("open scanners hold too much memory"), "{msg}");
    assert_eq!(retry, Some(true));
    let filter = format!(
        "{{\"type\":\"ValueFilter\",\"op\":\"EQUAL\",\"comparator\":{{\"type\":\"BinaryComparator\",\"value\":\"{}\"}}}}",
        b64(value.as_bytes())
    );
    let model = serde_json::json!({ "filter": filter }).to_string();
    let a = call(
        http,
        "PUT",
        "/t/scanner",
        None,
        "application/json",
        model.as_bytes(),
    );
    assert_eq!(a.status(), 503, "{}", a.head);
    assert!(
        a.body.contains("open scanners hold too much memory"),
        "{}",
        a.body
    );
    assert_eq!(
        metric(http, "redbase_scanner_refusals_total{bound=\"bytes\"} "),
        3.0
    );
    // A scanner closed gives its bytes back: the next open, on another gateway, succeeds.
    t1.scanner_close(first).unwrap();
    let id = t2.open_scanner(b"t".to_vec(), scan2()).unwrap();
    assert!(t2.get_scanner_rows(id, 10).unwrap().is_empty());
    t2.close_scanner(id).unwrap();
    let a = call(
        http,
        "PUT",
        "/t/scanner",
        None,
        "application/json",
        model.as_bytes(),
    );
    assert_eq!(a.status(), 201, "{}", a.body);
    let location = a.header("location").unwrap();
    let path = &location[location.find("/t/scanner").unwrap()..];
    let a = call(http, "DELETE", path, None, "text/plain", b"");
    assert_eq!(a.status(), 200, "{}", a.body);
    // One Thrift1 scanner is left.
    assert_eq!(
        metric(http, "redbase_scanner_bytes{} ") as usize,
        bytes.held()
    );
    assert!(bytes.held() < 500_000, "{}", bytes.held());
}

#[test]
fn a_large_cell_set_is_written_in_batches_and_only_when_all_of_it_is_good() {
    let server = TestServer::start_with_http(Config::default());
    let http = server.http.unwrap();
    create_table(http, None, "t");
    // Rows of 3 MiB values: more than one write batch. The last row names no qualifier, so
    // nothing of the set is stored.
    let value = b64(&vec![b'v'; 3 << 20]);
    let rows = |last_column: &[u8]| {
        let mut rows: Vec<String> = (0..3)
            .map(|i| {
                format!(
                    "{{\"key\":\"{}\",\"Cell\":[{{\"column\":\"{}\",\"$\":\"{value}\"}}]}}",
                    b64(format!("row{i}").as_bytes()),
                    b64(b"cf:a")
                )
            })
            .collect();
        rows.push(format!(
            "{{\"key\":\"{}\",\"Cell\":[{{\"column\":\"{}\",\"$\":\"{}\"}}]}}",
            b64(b"row3"),
            b64(last_column),
            b64(b"small")
        ));
        format!("{{\"Row\":[{}]}}", rows.join(",")).into_bytes()
    };
    let a = call(
        http,
        "PUT",
        "/t/row0",
        None,
        "application/json",
        &rows(b"cf"),
    );
    assert_eq!((a.status(), a.body.as_str()), (400, "Bad request\r\n"));
    let get = |row: &str| {
        let mut s = connect(http);
        s.write_all(
            format!(
                "GET /t/{row}/cf:a HTTP/1.1\r\nHost: t\r\nAccept: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        )
        .unwrap();
        read_answer(&mut s).unwrap()
    };
    assert_eq!(get("row0").status(), 404);
    // The same set with a good last row: every row is stored.
    let a = call(
        http,
        "PUT",
        "/t/row0",
        None,
        "application/json",
        &rows(b"cf:a"),
    );
    assert_eq!(a.status(), 200, "{}", a.body);
    for row in ["row0", "row1", "row2"] {
        let a = get(row);
        assert_eq!((a.status(), a.body.len()), (200, 3 << 20), "{row}");
    }
    assert_eq!(get("row3").body, "small");
}
