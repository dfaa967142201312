//! REST answers of many rows are streamed, as HBase's REST server streams them: a row range,
//! globbed rows, a multi-get and a stateless scan far larger than the server's chunk size
//! (`--rest-chunk-size`, set small here) arrive complete, in chunked transfer encoding, in
//! chunks no larger than the chunk size and one row. The HTTP exchange is read off the
//! socket so that the chunks themselves can be measured. An answer that fits in one chunk is
//! still sent whole, with its length.

mod rest_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use prost::Message;
use redbase::rest::protobuf::PbCellSet;
use redbase::rest::StreamLimits;
use redbase::server::Config;
use rest_support::*;
use serde_json::{json, Value};

/// The server's chunk size in these tests.
const CHUNK: usize = 16 * 1024;
/// Rows written, each with one value of VALUE bytes: about 30 chunks' worth.
const ROWS: usize = 120;
const VALUE: usize = 4096;

/// An HTTP answer read off the socket: status, headers (lower-case names), and the body with
/// the size of each chunk it came in (empty when it was sent whole).
struct Raw {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    chunks: Vec<usize>,
}

impl Raw {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn raw_get(s: &Server, path: &str, accept: &str) -> Raw {
    let mut c = TcpStream::connect(s.addr).expect("connect");
    c.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    write!(
        c,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept: {accept}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut all = Vec::new();
    c.read_to_end(&mut all).expect("read");
    let split = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("end of headers");
    let head = String::from_utf8_lossy(&all[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &all[split + 4..];
    let mut raw = Raw {
        status,
        headers,
        body: Vec::new(),
        chunks: Vec::new(),
    };
    if raw.header("transfer-encoding") != Some("chunked") {
        raw.body = rest.to_vec();
        return raw;
    }
    // Chunked: size line, data, CRLF; a 0 chunk ends it. An answer cut short has no 0 chunk.
    let mut i = 0;
    loop {
        let eol = rest[i..]
            .windows(2)
            .position(|w| w == b"\r\n")
            .unwrap_or_else(|| {
                panic!(
                    "unterminated chunked body after {} chunks",
                    raw.chunks.len()
                )
            });
        let size_text = String::from_utf8_lossy(&rest[i..i + eol]).into_owned();
        let size = usize::from_str_radix(size_text.trim(), 16).expect("chunk size");
        i += eol + 2;
        if size == 0 {
            break;
        }
        raw.body.extend_from_slice(&rest[i..i + size]);
        raw.chunks.push(size);
        i += size + 2;
    }
    raw
}

fn value_of(i: usize) -> Vec<u8> {
    let mut v = format!("value-{i:04}-").into_bytes();
    v.resize(VALUE, b'a' + (i % 26) as u8);
    v
}

fn key_of(i: usize) -> String {
    format!("r{i:04}")
}

fn server_with_rows() -> Server {
    let s = Server::start(Config {
        rest_stream: StreamLimits {
            chunk: CHUNK,
            time: Duration::from_secs(60),
        },
        ..Config::default()
    });
    s.create_table("big", &["cf"]);
    for batch in (0..ROWS).collect::<Vec<_>>().chunks(20) {
        let rows: Vec<Value> = batch
            .iter()
            .map(|&i| {
                json!({"key": b64(key_of(i).as_bytes()), "Cell": [
                    {"column": b64(b"cf:v"), "timestamp": 5, "$": b64(&value_of(i))}]})
            })
            .collect();
        let r = s.send_json("PUT", "/big/fakerow", &json!({ "Row": rows }));
        assert_eq!(r.status, 200, "{}", r.text());
    }
    s
}

/// The answer came in chunks, each at most the chunk size and one row's encoding, many of
/// them; the whole of it was far larger than a chunk.
fn assert_streamed(what: &str, raw: &Raw) {
    assert_streamed_within(what, raw, CHUNK + 2 * VALUE)
}

fn assert_streamed_within(what: &str, raw: &Raw, bound: usize) {
    assert_eq!(
        raw.status,
        200,
        "{what}: {}",
        String::from_utf8_lossy(&raw.body)
    );
    assert_eq!(
        raw.header("transfer-encoding"),
        Some("chunked"),
        "{what}: a large answer is streamed, not sent whole ({:?})",
        raw.headers
    );
    assert!(raw.header("content-length").is_none(), "{what}");
    assert!(
        raw.chunks.iter().all(|&c| c <= bound),
        "{what}: a chunk over {bound} bytes: {:?}",
        raw.chunks
    );
    assert!(raw.chunks.len() >= 10, "{what}: {:?}", raw.chunks);
    assert!(
        raw.body.len() > 10 * CHUNK,
        "{what}: {} bytes",
        raw.body.len()
    );
}

/// The rows of a JSON cell set are exactly rows `from..to`.
fn assert_json_rows(what: &str, body: &[u8], from: usize, to: usize) {
    let v: Value = serde_json::from_slice(body).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"));
    let rows = v["Row"].as_array().expect("Row list");
    assert_eq!(rows.len(), to - from, "{what}");
    for (row, i) in rows.iter().zip(from..to) {
        assert_eq!(unb64(&row["key"]), key_of(i).as_bytes(), "{what}");
        assert_eq!(unb64(&row["Cell"][0]["$"]), value_of(i), "{what}: row {i}");
    }
}

#[test]
fn large_answers_arrive_whole_in_bounded_chunks() {
    let s = server_with_rows();

    // A row range and globbed rows, in JSON.
    let raw = raw_get(&s, "/big/r0000,r9999", "application/json");
    assert_streamed("row range", &raw);
    assert_json_rows("row range", &raw.body, 0, ROWS);
    let raw = raw_get(&s, "/big/r00*", "application/json");
    assert_streamed("globbed rows", &raw);
    assert_json_rows("globbed rows", &raw.body, 0, 100);

    // A multi-get of every row: each `row` is a spec of its own, read in turn.
    let query: Vec<String> = (0..ROWS).map(|i| format!("row={}", key_of(i))).collect();
    let raw = raw_get(
        &s,
        &format!("/big/multiget?{}", query.join("&")),
        "application/json",
    );
    assert_streamed("multiget", &raw);
    assert_json_rows("multiget", &raw.body, 0, ROWS);

    // A stateless scan, in JSON, XML and HBase's chunked protobuf.
    let raw = raw_get(&s, "/big/*", "application/json");
    assert_streamed("stateless scan", &raw);
    assert_json_rows("stateless scan", &raw.body, 0, ROWS);
    let raw = raw_get(&s, "/big/*?startrow=r0010", "text/xml");
    assert_streamed("stateless scan, XML", &raw);
    let xml = String::from_utf8(raw.body.clone()).expect("utf8");
    assert!(
        xml.starts_with("<?xml") && xml.ends_with("</CellSet>"),
        "XML document"
    );
    assert_eq!(xml.matches("<Row ").count(), ROWS - 10);
    // HBase's format holds 10 rows per length-prefixed cell set: a chunk ends after one.
    let raw = raw_get(&s, "/big/*", "application/x-protobuf");
    assert_streamed_within("stateless scan, protobuf", &raw, CHUNK + 12 * VALUE);
    let mut i = 0;
    let mut keys = Vec::new();
    while i < raw.body.len() {
        let n = u16::from_be_bytes([raw.body[i], raw.body[i + 1]]) as usize;
        let set = PbCellSet::decode(&raw.body[i + 2..i + 2 + n]).expect("cell set");
        assert!(set.rows.len() <= 10, "HBase's fetch size per cell set");
        keys.extend(set.rows.into_iter().map(|r| r.key.expect("key")));
        i += 2 + n;
    }
    let want: Vec<Vec<u8>> = (0..ROWS).map(|i| key_of(i).into_bytes()).collect();
    assert_eq!(keys, want);

    // A row range in protobuf: one CellSet message, written row by row.
    let raw = raw_get(&s, "/big/r0000,r9999", "application/x-protobuf");
    assert_streamed("row range, protobuf", &raw);
    let set = PbCellSet::decode(raw.body.as_slice()).expect("one cell set");
    assert_eq!(set.rows.len(), ROWS);
    assert_eq!(
        set.rows[77].values[0].data.as_deref(),
        Some(&value_of(77)[..])
    );

    // The stateless scan's limit still bounds what a client asks for.
    let raw = raw_get(&s, "/big/*?limit=3", "application/json");
    assert_json_rows("limited scan", &raw.body, 0, 3);
}

#[test]
fn small_answers_are_sent_whole() {
    let s = server_with_rows();
    let raw = raw_get(&s, "/big/r0001,r0003", "application/json");
    assert_eq!(raw.status, 200);
    assert!(raw.chunks.is_empty(), "sent whole: {:?}", raw.headers);
    assert_eq!(
        raw.header("content-length"),
        Some(raw.body.len().to_string().as_str())
    );
    assert_json_rows("small range", &raw.body, 1, 3);
    // No rows: HBase's 404s, decided before anything is sent.
    assert_eq!(raw_get(&s, "/big/x0,x9", "application/json").status, 404);
    assert_eq!(
        raw_get(&s, "/big/multiget?row=zz", "application/json").status,
        404
    );
    assert_eq!(raw_get(&s, "/nope/*", "application/json").status, 404);
}

/// A `/metrics` value (0 when the line is missing).
fn metric(s: &Server, name: &str) -> f64 {
    let text = s.get("/metrics", "text/plain").text();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

/// Polls `/metrics` until `name` reads `want`, for up to 20 s.
fn await_metric(s: &Server, name: &str, want: f64) {
    let until = std::time::Instant::now() + Duration::from_secs(20);
    while metric(s, name) != want {
        assert!(
            std::time::Instant::now() < until,
            "{name} stayed at {} (wanted {want})",
            metric(s, name)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Streamed answers are counted while open, and one cut at the time limit (a client that
/// stopped reading) is counted as cut; an answer sent to its end is not.
#[test]
fn streamed_answers_are_counted_open_and_cut() {
    let s = Server::start(Config {
        rest_stream: StreamLimits {
            chunk: CHUNK,
            time: Duration::from_secs(2),
        },
        ..Config::default()
    });
    s.create_table("huge", &["cf"]);
    // About 24 MiB of values (32 MiB of JSON): more than loopback's socket buffers hold, so a
    // client that does not read holds the producer up.
    let value = vec![b'x'; 20 * 1024];
    for batch in (0..1200).collect::<Vec<usize>>().chunks(100) {
        let rows = batch
            .iter()
            .map(|i| {
                redbase::engine::RowMutation::new(key_of(*i).as_bytes())
                    .with(redbase::engine::Op::put(b"cf", b"v", &value))
            })
            .collect();
        assert!(s.engine.mutate_rows("huge", rows).iter().all(|r| r.is_ok()));
    }

    let raw = raw_get(&s, "/huge/r0000,r0100", "application/json");
    // Chunks here are bounded by the chunk size plus one 20 KiB row (27 KiB in base64).
    assert_streamed_within("a row range", &raw, CHUNK + 2 * 28 * 1024);
    let v: Value = serde_json::from_slice(&raw.body).expect("JSON");
    assert_eq!(v["Row"].as_array().expect("rows").len(), 100);
    await_metric(&s, "redbase_rest_streams_open", 0.0);
    assert_eq!(metric(&s, "redbase_rest_streams_cut_total"), 0.0);

    let mut c = TcpStream::connect(s.addr).expect("connect");
    write!(
        c,
        "GET /huge/* HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n"
    )
    .expect("send");
    await_metric(&s, "redbase_rest_streams_open", 1.0);
    // Not read: past the 2 s limit the answer is cut and counted.
    await_metric(&s, "redbase_rest_streams_cut_total", 1.0);
    await_metric(&s, "redbase_rest_streams_open", 0.0);
    drop(c);
}
