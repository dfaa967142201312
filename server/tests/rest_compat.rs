//! HBase 2.6's behaviours the differential oracle and fuzzing found redbase answering otherwise
//! (issue #38), each through a real server on loopback with a real HTTP client: table names
//! on every gateway, namespace listings and refusals, base64 keys, multi-get columns in the
//! path, gzip bodies and answers, the empty qualifier in scans, scanners of a disabled table,
//! header names as HBase writes them, and the statuses of bad requests.

mod common;
mod rest_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::acl::{client1, client2, family1, io_error};
use common::server::TestServer;
use redbase::engine::{AclScope, Actions, TableName};
use redbase::generated::hbase1::THbaseSyncClient;
use redbase::generated::hbase2::{self as h2, TTHBaseServiceSyncClient};
use redbase::server::Config;
use rest_support::*;
use serde_json::json;

const J: &str = "application/json";
const CONSTRAINT: &str = "org.apache.hadoop.hbase.constraint.ConstraintException";

fn schema(name: &str) -> Vec<u8> {
    json!({"name": name, "ColumnSchema": [{"name": "cf"}]})
        .to_string()
        .into_bytes()
}

/// `redbase shell -n -e COMMAND` against a Thrift2 address: (succeeded, stdout + stderr).
fn shell(addr: std::net::SocketAddr, command: &str) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_redbase"))
        .args(["shell", "--thrift2", &addr.to_string(), "-n", "-e", command])
        .output()
        .expect("run redbase shell");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn t2_create(c: &mut common::acl::Client2, ns: &str, q: &str) -> thrift::Result<()> {
    let d = h2::TTableDescriptor::new(
        h2::TTableName::new(Some(ns.as_bytes().to_vec()), q.as_bytes().to_vec()),
        Some(vec![h2::TColumnFamilyDescriptor::new(
            b"cf".to_vec(),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
        )]),
        None,
        None,
    );
    c.create_table(d, Vec::new())
}

/// Item 7: hbase:meta and hbase:namespace are taken (HBase has them): creating either fails
/// on REST, Thrift1, Thrift2 and the shell as HBase fails it; other tables of the hbase
/// namespace are created, as HBase creates them. A name component over 255 bytes is an
/// illegal name with the same message everywhere, not a file-system error.
#[test]
fn system_and_overlong_table_names_fail_alike_on_every_gateway() {
    let s = TestServer::start_with_http(Config::default());
    let http = s.http.expect("http listener");
    let agent = agent();
    let put = |path: &str, body: Vec<u8>| {
        call_at(&agent, http, "PUT", path, &[("Content-Type", J)], body)
    };
    let mut t1 = client1(s.thrift1);
    let mut t2 = client2(s.thrift2);
    for name in ["hbase:meta", "hbase:namespace"] {
        // REST: HBase alters the table it finds there, and refuses to disable hbase:meta.
        let r = put(&format!("/{name}/schema"), schema(name));
        assert_eq!(r.status, 503, "{}", r.text());
        assert_eq!(
            r.text(),
            format!("Unavailable\r\n{CONSTRAINT}: {CONSTRAINT}: Cannot disable {name}\r\n")
        );
        let e = t1
            .create_table(name.as_bytes().to_vec(), vec![family1("cf")])
            .unwrap_err();
        assert!(format!("{e:?}").contains("AlreadyExists"), "{e:?}");
        let (msg, retry) = io_error(t2_create(&mut t2, "hbase", &name[6..]));
        assert_eq!(
            (msg.as_str(), retry),
            (&*format!("table {name} already exists"), false)
        );
        let (ok, out) = shell(s.thrift2, &format!("create '{name}', 'cf'"));
        assert!(
            !ok && out.contains(&format!("table {name} already exists")),
            "{out}"
        );
        assert!(!s_table_listed(&mut t2, name));
    }
    // Other names in the hbase namespace: created, as HBase does.
    let r = put("/hbase:mine/schema", schema("hbase:mine"));
    assert_eq!(r.status, 201, "{}", r.text());

    // 255 bytes is the most a qualifier (or a namespace) may have.
    let longest = "q".repeat(255);
    let r = put(&format!("/{longest}/schema"), schema(&longest));
    assert_eq!(r.status, 201, "{}", r.text());
    let long = "x".repeat(256);
    let why = "the table qualifier is 256 bytes; at most 255 are allowed";
    let r = put(&format!("/{long}/schema"), schema(&long));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r
        .text()
        .starts_with("Bad request\r\njava.lang.IllegalArgumentException: illegal table name"));
    assert!(r.text().contains(why), "{}", r.text());
    let e = t1
        .create_table(long.as_bytes().to_vec(), vec![family1("cf")])
        .unwrap_err();
    assert!(
        format!("{e:?}").contains("IllegalArgument") && format!("{e:?}").contains(why),
        "{e:?}"
    );
    let (msg, retry) = io_error(t2_create(&mut t2, "default", &long));
    assert!(msg.contains(why) && !retry, "{msg}");
    let (ok, out) = shell(s.thrift2, &format!("create '{long}', 'cf'"));
    assert!(!ok && out.contains(why), "{out}");
    let ns = "n".repeat(300);
    let r = call_at(
        &agent,
        http,
        "POST",
        &format!("/namespaces/{ns}"),
        &[],
        Vec::new(),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r
        .text()
        .contains("the namespace name is 300 bytes; at most 255 are allowed"));
    let (msg, _) = io_error(t2_create(&mut t2, &ns, "t"));
    assert!(msg.contains("at most 255 are allowed"), "{msg}");
    for text in [r.text(), msg, out] {
        assert!(!text.contains("os error"), "{text}");
    }
}

fn s_table_listed(t2: &mut common::acl::Client2, name: &str) -> bool {
    t2.get_table_names_by_namespace("hbase".into())
        .unwrap()
        .iter()
        .any(|t| format!("hbase:{}", String::from_utf8_lossy(&t.qualifier)) == name)
}

/// Item 8: `/namespaces/{ns}/tables` lists only the tables the caller may see.
#[test]
fn namespace_table_lists_show_only_what_the_caller_may_see() {
    use redbase::security::{hash_password, Auth, LimiterConfig, Security, Users};
    let text = format!(
        "[users.root]\npassword = \"{}\"\nsuperuser = true\n[users.bob]\npassword = \"{}\"\n",
        hash_password("root-secret").expect("hash"),
        hash_password("bob-secret").expect("hash")
    );
    let users = Users::parse(&text, std::path::Path::new("users.toml")).expect("users");
    let s = Server::start(Config {
        security: Security {
            auth: Some(std::sync::Arc::new(Auth::new(
                users,
                LimiterConfig::default(),
            ))),
            allow_plaintext_auth: true,
            ..Security::default()
        },
        ..Default::default()
    });
    let root = format!("Basic {}", b64(b"root:root-secret"));
    let bob = format!("Basic {}", b64(b"bob:bob-secret"));
    let as_root = |m: &str, p: &str, body: Vec<u8>| {
        s.call(m, p, &[("Authorization", &root), ("Content-Type", J)], body)
    };
    assert_eq!(as_root("POST", "/namespaces/app", Vec::new()).status, 201);
    for t in ["app:seen", "app:hidden"] {
        assert_eq!(
            as_root("PUT", &format!("/{t}/schema"), schema(t)).status,
            201
        );
    }
    s.engine
        .grant(
            "bob",
            AclScope::Table(TableName::parse("app:seen").unwrap()),
            Actions::parse("R").unwrap(),
        )
        .unwrap();
    let list = |auth: &str| {
        s.call(
            "GET",
            "/namespaces/app/tables",
            &[("Authorization", auth), ("Accept", J)],
            Vec::new(),
        )
        .json()
    };
    assert_eq!(list(&bob), json!({"table": [{"name": "seen"}]}));
    assert_eq!(
        list(&root),
        json!({"table": [{"name": "hidden"}, {"name": "seen"}]})
    );
}

fn put_row(s: &Server, table: &str, row: &[u8], cells: &[(&str, &str)]) {
    let cells: Vec<_> = cells
        .iter()
        .map(|(c, v)| json!({"column": b64(c.as_bytes()), "$": b64(v.as_bytes())}))
        .collect();
    let r = s.send_json(
        "PUT",
        &format!("/{table}/fakerow"),
        &json!({"Row": [{"key": b64(row), "Cell": cells}]}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

fn url_b64(s: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s)
}

/// Items 12 and 13: row keys and columns in base64 (`?e=b64` or the `Encoding` header) on
/// row, column and multi-get paths, and a multi-get's columns in its path.
#[test]
fn base64_keys_and_multiget_columns_in_the_path() {
    let s = Server::start(Config::default());
    s.create_table("t", &["a", "b"]);
    put_row(&s, "t", b"row1", &[("a:q1", "v1"), ("b:x", "bx1")]);
    put_row(
        &s,
        "t",
        b"row2",
        &[("a:q1", "v2"), ("b:", "empty"), ("b:y", "by2")],
    );
    // A key no path could carry plainly.
    put_row(&s, "t", b"k/\xff?", &[("a:q1", "odd")]);

    let r = s.get("/t/cm93MQ/YTpxMQ?e=b64", J);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        cells(&r.json()),
        vec![(
            "row1".into(),
            "a:q1".into(),
            cells(&r.json())[0].2,
            "v1".into()
        )]
    );
    let r = s.call(
        "GET",
        "/t/cm93MQ",
        &[("Accept", J), ("Encoding", "b64")],
        Vec::new(),
    );
    assert_eq!(cells(&r.json()).len(), 2);
    let odd = url_b64(b"k/\xff?");
    let r = s.get(
        &format!("/t/{odd}/{}?e=b64", url_b64(b"a:q1")),
        "application/octet-stream",
    );
    assert_eq!((r.status, r.body.as_slice()), (200, &b"odd"[..]));
    // The standard alphabet, padded, under its own name.
    let r = s.get("/t/cm93Mg==/Yjo=?e=b64basic", J);
    assert_eq!(cells(&r.json())[0].3, "empty");
    let r = s.get("/t/multiget/?row=cm93MQ&row=cm93Mg&e=b64", J);
    assert_eq!(r.status, 200, "{}", r.text());
    let keys: Vec<String> = cells(&r.json()).into_iter().map(|c| c.0).collect();
    assert_eq!(keys, ["row1", "row1", "row2", "row2", "row2"]);
    let r = s.call(
        "GET",
        &format!("/t/multiget?row={odd}"),
        &[("Accept", J), ("Encoding", "b64")],
        Vec::new(),
    );
    let row = &r.json()["Row"][0];
    assert_eq!(unb64(&row["key"]), b"k/\xff?");
    assert_eq!(unb64(&row["Cell"][0]["$"]), b"odd");
    let r = s.get("/t/cm93MQ?e=rot13", J);
    assert_eq!(r.status, 400);
    assert!(
        r.text().contains("unknown key encoding 'rot13'"),
        "{}",
        r.text()
    );
    assert_eq!(s.get("/t/!!!?e=b64", J).status, 400);

    // Columns in a multi-get's path apply to every row (and are never base64).
    let r = s.get("/t/multiget/a:q1,b?row=row1&row=row2", J);
    assert_eq!(r.status, 200, "{}", r.text());
    let got: Vec<(String, String)> = cells(&r.json()).into_iter().map(|c| (c.0, c.1)).collect();
    let want = [
        ("row1", "a:q1"),
        ("row1", "b:x"),
        ("row2", "a:q1"),
        ("row2", "b:"),
        ("row2", "b:y"),
    ];
    assert_eq!(got, want.map(|(a, b)| (a.to_string(), b.to_string())));
    let r = s.get("/t/multiget/b:?row=cm93MQ&row=cm93Mg&e=b64", J);
    let got: Vec<String> = cells(&r.json()).into_iter().map(|c| c.3).collect();
    assert_eq!(got, ["empty"]);
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data)
        .read_to_end(&mut out)
        .expect("a gzip answer");
    out
}

/// Item 14: a gzip body is stored decoded, never as it came; a coding not decoded is 415; a
/// bomb stops at the body limit (413); answers are compressed for a client that asks.
#[test]
fn gzip_bodies_are_decoded_and_answers_compressed_on_request() {
    let s = Server::start(Config {
        rest_stream: redbase::rest::StreamLimits {
            chunk: 4096,
            ..Default::default()
        },
        ..Default::default()
    });
    s.create_table("g", &["cf"]);
    let cellset = json!({"Row": [{"key": b64(b"r"), "Cell": [{"column": b64(b"cf:j"), "$": b64(b"from json")}]}]});
    let r = s.call(
        "PUT",
        "/g/r",
        &[("Content-Type", J), ("Content-Encoding", "gzip")],
        gzip(cellset.to_string().as_bytes()),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = s.call(
        "PUT",
        "/g/r/cf:raw",
        &[
            ("Content-Type", "application/octet-stream"),
            ("Content-Encoding", "gzip"),
        ],
        gzip(b"raw bytes"),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let raw = |col: &str| {
        s.get(&format!("/g/r/{col}"), "application/octet-stream")
            .body
    };
    assert_eq!(raw("cf:j"), b"from json");
    assert_eq!(raw("cf:raw"), b"raw bytes");

    // Not decoded, never stored: deflate is refused, bad gzip is a 400, a bomb a 413.
    let bin = |enc: &str, body: Vec<u8>| {
        s.call(
            "PUT",
            "/g/r/cf:bad",
            &[
                ("Content-Type", "application/octet-stream"),
                ("Content-Encoding", enc),
            ],
            body,
        )
    };
    let r = bin("deflate", b"x\x9c+J,\x07\x00\x02\x92\x01K".to_vec());
    assert_eq!(r.status, 415, "{}", r.text());
    assert!(
        r.text().contains("Content-Encoding \"deflate\""),
        "{}",
        r.text()
    );
    assert_eq!(bin("gzip", b"not gzip at all".to_vec()).status, 400);
    // Gzip members one after another are one body: 65 of 1 MiB of zeros each inflate past
    // the 64 MiB limit from about 65 KiB.
    let member = gzip(&vec![0u8; 1024 * 1024]);
    let bomb = member.repeat(redbase::rest::MAX_BODY / (1024 * 1024) + 1);
    assert!(bomb.len() < 1024 * 1024, "{}", bomb.len());
    let r = bin("gzip", bomb);
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(s.get("/g/r/cf:bad", "application/octet-stream").status, 404);

    // Answers: compressed when asked (whole ones and streamed ones), plain otherwise.
    let r = s.call(
        "GET",
        "/g/r/cf:j",
        &[
            ("Accept", "application/octet-stream"),
            ("Accept-Encoding", "gzip"),
        ],
        Vec::new(),
    );
    assert_eq!(r.header("content-encoding"), "gzip");
    assert_eq!(gunzip(&r.body), b"from json");
    for i in 0..200 {
        put_row(
            &s,
            "g",
            format!("row{i:03}").as_bytes(),
            &[("cf:v", &"v".repeat(100))],
        );
    }
    let plain = s.get("/g/*", J);
    let r = s.call(
        "GET",
        "/g/*",
        &[("Accept", J), ("Accept-Encoding", "br, gzip")],
        Vec::new(),
    );
    assert_eq!(r.header("content-encoding"), "gzip");
    assert!(plain.body.len() > 4096 * 4, "streamed in chunks");
    assert!(r.body.len() < plain.body.len() / 4, "{}", r.body.len());
    assert_eq!(gunzip(&r.body), plain.body);
    assert_eq!(plain.header("content-encoding"), "");
}

/// Item 15: `column=f:` is the empty qualifier alone, in stateless and stateful scans.
#[test]
fn a_family_with_a_colon_is_the_empty_qualifier_in_scans() {
    let s = Server::start(Config::default());
    s.create_table("e", &["b"]);
    put_row(&s, "e", b"r1", &[("b:", "empty"), ("b:q", "named")]);
    let values = |r: Reply| -> Vec<String> { cells(&r.json()).into_iter().map(|c| c.3).collect() };
    assert_eq!(values(s.get("/e/*?column=b:", J)), ["empty"]);
    assert_eq!(values(s.get("/e/*?column=b", J)), ["empty", "named"]);
    let r = s.send_json("PUT", "/e/scanner", &json!({"column": [b64(b"b:")]}));
    assert_eq!(r.status, 201);
    let loc = r.header("location");
    let path = &loc[loc.find("/e/").unwrap()..];
    assert_eq!(values(s.get(path, J)), ["empty"]);
}

/// Item 16: reading a scanner whose table was disabled since it opened is 410, and the
/// scanner is gone after it.
#[test]
fn a_scanner_of_a_disabled_table_is_gone() {
    let s = Server::start(Config::default());
    s.create_table("d", &["cf"]);
    for i in 0..3 {
        put_row(&s, "d", format!("r{i}").as_bytes(), &[("cf:a", "v")]);
    }
    let r = s.send_json("PUT", "/d/scanner", &json!({"batch": 1}));
    let loc = r.header("location");
    let path = loc[loc.find("/d/").unwrap()..].to_string();
    assert_eq!(s.get(&path, J).status, 200);
    s.engine.disable_table("d").unwrap();
    let r = s.get(&path, J);
    assert_eq!((r.status, r.text().as_str()), (410, "Gone\r\n"));
    assert_eq!(s.get(&path, J).status, 404);
}

/// Item 17: header names go out as HBase's Jetty writes them, `X-Timestamp` included.
#[test]
fn header_names_are_written_as_hbase_writes_them() {
    let s = Server::start(Config::default());
    s.create_table("h", &["cf"]);
    put_row(&s, "h", b"r", &[("cf:a", "v")]);
    let mut tcp = TcpStream::connect(s.addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(tcp, "GET /h/r/cf:a HTTP/1.1\r\nHost: x\r\nAccept: application/octet-stream\r\nConnection: close\r\n\r\n").unwrap();
    let mut head = String::new();
    tcp.read_to_string(&mut head).unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(head.contains("\r\nX-Timestamp: "), "{head}");
    assert!(
        head.contains("\r\nContent-Type: application/octet-stream\r\n"),
        "{head}"
    );
}

/// Items 18 and 19: HBase's statuses and exceptions for namespace refusals, an illegal table
/// name in a scanner's path, a counter past i64::MAX and XML holding a NUL.
#[test]
fn refusals_have_hbase_statuses_and_exceptions() {
    let s = Server::start(Config::default());
    let constraint = format!("Unavailable\r\n{CONSTRAINT}: {CONSTRAINT}: ");
    for ns in ["default", "hbase"] {
        let r = s.call("DELETE", &format!("/namespaces/{ns}"), &[], Vec::new());
        assert_eq!(
            (r.status, r.text()),
            (
                503,
                format!("{constraint}Reserved namespace {ns} cannot be removed.\r\n")
            )
        );
    }
    assert_eq!(
        s.call("POST", "/namespaces/full", &[], Vec::new()).status,
        201
    );
    s.create_table("full:t", &["cf"]);
    for path in ["/namespaces/full", "/namespaces/full/tables"] {
        let r = s.call("DELETE", path, &[], Vec::new());
        assert_eq!(
            (r.status, r.text()),
            (503, format!("{constraint}Only empty namespaces can be removed. Namespace full has 1 tables\r\n"))
        );
    }
    let r = s.call("DELETE", "/namespaces/none", &[], Vec::new());
    assert_eq!(
        (r.status, r.text().as_str()),
        (
            404,
            "Namespace 'none' does not exists.  Cannot drop namespace."
        )
    );
    let r = s.call("PUT", "/namespaces/none", &[], Vec::new());
    assert_eq!(r.status, 403, "{}", r.text());
    let r = s.call("POST", "/namespaces/full", &[], Vec::new());
    assert_eq!(r.status, 403, "{}", r.text());
    // An alteration answers with its URL as text, as HBase does.
    let r = s.call("PUT", "/namespaces/full", &[], Vec::new());
    assert_eq!(
        (r.status, r.text()),
        (200, format!("http://{}/namespaces/full", s.addr))
    );
    // The tables sub-path acts on the namespace for every method but GET, as in HBase.
    assert_eq!(
        s.call("DELETE", "/full:t/schema", &[], Vec::new()).status,
        200
    );
    assert_eq!(
        s.call("DELETE", "/namespaces/full/tables", &[], Vec::new())
            .status,
        200
    );
    assert_eq!(s.get("/namespaces/full", J).status, 404);

    let r = s.send_json("PUT", "/*/scanner", &json!({}));
    assert_eq!((r.status, r.text().as_str()), (400, "Bad request\r\n"));

    // Counters wrap past i64::MAX, as HBase's Java longs do.
    s.create_table("c", &["cf"]);
    let incr = |v: &str| {
        s.send_json(
            "POST",
            "/c/n?check=increment",
            &json!({"Row": [{"key": b64(b"n"), "Cell": [{"column": b64(b"cf:n"), "$": b64(v.as_bytes())}]}]}),
        )
    };
    assert_eq!(incr(&(i64::MAX - 1).to_string()).status, 200);
    assert_eq!(incr("5").status, 200);
    let r = s.get("/c/n/cf:n", "application/octet-stream");
    assert_eq!(r.body, (i64::MIN + 3).to_be_bytes());

    let xml = format!(
        "<CellSet><Row key=\"{}\"><Cell column=\"{}\">{}\0</Cell></Row></CellSet>",
        b64(b"x"),
        b64(b"cf:x"),
        b64(b"v")
    );
    let r = s.call(
        "PUT",
        "/c/x",
        &[("Content-Type", "text/xml")],
        xml.into_bytes(),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(s.get("/c/x", J).status, 404);
}

/// `?rr=true` (HBase's returnResult): an append answers the row's new cells; an increment
/// echoes the request's own row, as HBase 2.6.1's RowResource does (oracle: rest_diff).
#[test]
fn return_result_answers_appends_and_echoes_increments() {
    let s = Server::start(Config::default());
    s.create_table("rr", &["cf"]);
    let cells = |row: &[u8], col: &[u8], v: &[u8]| json!({"Row": [{"key": b64(row), "Cell": [{"column": b64(col), "$": b64(v)}]}]});
    let post = |query: &str, body: &serde_json::Value| {
        s.call(
            "POST",
            &format!("/rr/a?{query}"),
            &[("Content-Type", J), ("Accept", J)],
            serde_json::to_vec(body).unwrap(),
        )
    };
    assert_eq!(
        post("check=append", &cells(b"a", b"cf:s", b"ab")).status,
        200
    );
    let r = post("check=append&rr=TRUE", &cells(b"a", b"cf:s", b"cd"));
    assert_eq!(r.status, 200, "{}", r.text());
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["Row"][0]["key"], b64(b"a"));
    assert_eq!(v["Row"][0]["Cell"][0]["column"], b64(b"cf:s"));
    assert_eq!(v["Row"][0]["Cell"][0]["$"], b64(b"abcd"));
    assert!(v["Row"][0]["Cell"][0]["timestamp"].as_i64().unwrap() > 0);

    let r = post("check=increment&rr=true", &cells(b"a", b"cf:n", b"7"));
    assert_eq!(r.status, 200, "{}", r.text());
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        v["Row"][0]["Cell"][0]["$"],
        b64(b"7"),
        "the request's own amount"
    );
    assert_eq!(v["Row"][0]["Cell"][0]["timestamp"], i64::MAX);
    // anything but "true" is false: no body
    let r = post("check=increment&rr=1", &cells(b"a", b"cf:n", b"1"));
    assert_eq!((r.status, r.body.len()), (200, 0));
    let r = s.get("/rr/a/cf:n", "application/octet-stream");
    assert_eq!(r.body, 8i64.to_be_bytes());
}
