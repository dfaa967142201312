//! HBase's REST API through a real server on loopback, with a real HTTP client (ureq): every
//! resource, its status codes and representations (JSON, XML, protobuf, raw bytes, text), and
//! bad input answered with HBase's 4xx bodies.

mod rest_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use prost::Message;
use redbase::rest::protobuf::{PbCellSet, PbTableList};
use redbase::server::Config;
use rest_support::*;
use serde_json::{json, Value};

#[test]
fn rows_in_every_representation() {
    let s = Server::start(Config::default());
    s.create_table("t", &["cf", "cg"]);
    // Two rows in one cell set, several cells each.
    let set = json!({"Row": [
        {"key": b64(b"r1"), "Cell": [
            {"column": b64(b"cf:a"), "timestamp": 10, "$": b64(b"v10")},
            {"column": b64(b"cf:a"), "timestamp": 20, "$": b64(b"v20")},
            {"column": b64(b"cg:b"), "$": b64(b"bee")}]},
        {"key": b64(b"r2"), "Cell": [{"column": b64(b"cf:a"), "$": b64(b"two")}]}]});
    assert_eq!(s.send_json("PUT", "/t/fakerow", &set).status, 200);

    let r = s.get("/t/r1", "application/json");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), "application/json");
    let got = cells(&r.json());
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(
        (got[0].1.as_str(), got[0].2, got[0].3.as_str()),
        ("cf:a", 20, "v20")
    );
    assert_eq!(got[1].3, "bee");

    // Versions, an exact timestamp, a time range.
    let r = s.get("/t/r1/cf:a?v=5", "application/json");
    let v: Vec<i64> = cells(&r.json()).iter().map(|c| c.2).collect();
    assert_eq!(v, vec![20, 10]);
    let r = s.get("/t/r1/cf:a/11", "application/json");
    assert_eq!(cells(&r.json())[0].3, "v10");
    let r = s.get("/t/r1/cf:a/5,15?v=3", "application/json");
    assert_eq!(cells(&r.json()).len(), 1);

    // XML, with JAXB's declaration and base64 attributes.
    let r = s.get("/t/r2", "text/xml");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), "text/xml");
    let text = r.text();
    assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><CellSet><Row key=\"cjI=\"><Cell column=\"Y2Y6YQ==\""), "{text}");
    assert!(text.contains(">dHdv</Cell></Row></CellSet>"), "{text}");
    // No Accept: Jersey's first offer, XML.
    assert!(s
        .call("GET", "/t/r2", &[], Vec::new())
        .text()
        .contains("<CellSet>"));

    // Protobuf.
    let r = s.get("/t/r1/cg:b", "application/x-protobuf");
    assert_eq!(r.header("content-type"), "application/x-protobuf");
    let pb = PbCellSet::decode(r.body.as_slice()).expect("protobuf CellSet");
    assert_eq!(pb.rows[0].key.as_deref(), Some(&b"r1"[..]));
    assert_eq!(pb.rows[0].values[0].data.as_deref(), Some(&b"bee"[..]));

    // One cell as raw bytes, with its timestamp in a header; several columns are refused.
    let r = s.get("/t/r1/cf:a", "application/octet-stream");
    assert_eq!((r.status, r.body.as_slice()), (200, &b"v20"[..]));
    assert_eq!(r.header("x-timestamp"), "20");
    let r = s.get("/t/r1", "application/octet-stream");
    assert_eq!(r.status, 400);
    assert!(r
        .text()
        .starts_with("Bad request: Default 'GET' method only works if there is exactly 1 column"));

    // A raw-bytes put, and XML and protobuf puts.
    let r = s.call(
        "PUT",
        "/t/r3/cf:raw",
        &[("Content-Type", "application/octet-stream")],
        b"\x00\xffbin".to_vec(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        s.get("/t/r3/cf:raw", "application/octet-stream").body,
        b"\x00\xffbin"
    );
    let xml = format!(
        "<CellSet><Row key=\"{}\"><Cell column=\"{}\">{}</Cell></Row></CellSet>",
        b64(b"r4"),
        b64(b"cf:x"),
        b64(b"from xml")
    );
    let r = s.call(
        "POST",
        "/t/r4",
        &[("Content-Type", "text/xml")],
        xml.into_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        s.get("/t/r4/cf:x", "application/octet-stream").body,
        b"from xml"
    );
    let pb = PbCellSet {
        rows: vec![redbase::rest::protobuf::PbRow {
            key: Some(b"r5".to_vec()),
            values: vec![redbase::rest::protobuf::PbCell {
                row: None,
                column: Some(b"cf:p".to_vec()),
                timestamp: None,
                data: Some(b"from pb".to_vec()),
            }],
        }],
    };
    let r = s.call(
        "PUT",
        "/t/r5",
        &[("Content-Type", "application/x-protobuf")],
        pb.encode_to_vec(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        s.get("/t/r5/cf:p", "application/octet-stream").body,
        b"from pb"
    );

    // Missing rows and tables are 404 with HBase's body.
    let r = s.get("/t/nope", "application/json");
    assert_eq!((r.status, r.text().as_str()), (404, "Not found\r\n"));
    let r = s.get("/missing/r1", "application/json");
    assert_eq!(r.status, 404);
    assert!(r.text().starts_with("Not found\r\n"), "{}", r.text());

    // Multi-get, globbed rows, row ranges.
    let r = s.get("/t/multiget?row=r1&row=r2&row=zz", "application/json");
    let rows: Vec<String> = cells(&r.json()).into_iter().map(|c| c.0).collect();
    assert!(rows.contains(&"r1".to_string()) && rows.contains(&"r2".to_string()));
    assert_eq!(s.get("/t/multiget?row=zz", "application/json").status, 404);
    let r = s.get("/t/r*/cf", "application/json");
    let keys: std::collections::BTreeSet<String> =
        cells(&r.json()).into_iter().map(|c| c.0).collect();
    assert_eq!(keys.len(), 5, "{keys:?}");
    let r = s.get("/t/r2,r4", "application/json");
    let keys: std::collections::BTreeSet<String> =
        cells(&r.json()).into_iter().map(|c| c.0).collect();
    assert_eq!(keys.into_iter().collect::<Vec<_>>(), vec!["r2", "r3"]);

    // Deletes: a column, a family, a row.
    assert_eq!(s.call("DELETE", "/t/r1/cg:b", &[], Vec::new()).status, 200);
    assert_eq!(s.get("/t/r1/cg:b", "application/json").status, 404);
    assert_eq!(s.call("DELETE", "/t/r1/cf/15", &[], Vec::new()).status, 200);
    let left: Vec<i64> = cells(&s.get("/t/r1/cf:a?v=5", "application/json").json())
        .iter()
        .map(|c| c.2)
        .collect();
    assert_eq!(left, vec![20], "a family delete at 15 keeps what is newer");
    assert_eq!(s.call("DELETE", "/t/r1", &[], Vec::new()).status, 200);
    assert_eq!(s.get("/t/r1", "application/json").status, 404);
    assert_eq!(s.call("DELETE", "/missing/r1", &[], Vec::new()).status, 404);
}

#[test]
fn check_and_counters() {
    let s = Server::start(Config::default());
    s.create_table("c", &["cf"]);
    s.put_cell("c", "row", "cf:a", None, "old");
    let cell = |col: &str, v: &str| json!({"column": b64(col.as_bytes()), "$": b64(v.as_bytes())});
    let body = |cells: Vec<Value>| json!({"Row": [{"key": b64(b"row"), "Cell": cells}]});
    // check=put: the last cell is the expected value.
    let r = s.send_json(
        "PUT",
        "/c/row?check=put",
        &body(vec![cell("cf:a", "new"), cell("cf:a", "wrong")]),
    );
    assert_eq!(r.status, 304, "{}", r.text());
    let r = s.send_json(
        "PUT",
        "/c/row?check=put",
        &body(vec![cell("cf:a", "new"), cell("cf:a", "old")]),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        s.get("/c/row/cf:a", "application/octet-stream").body,
        b"new"
    );
    let r = s.send_json("PUT", "/c/row?check=put", &body(vec![cell("cf:a", "x")]));
    assert_eq!(r.status, 400);
    assert_eq!(
        r.text(),
        "Bad request: Either row key is null or no data found for columns specified.\r\n"
    );
    let r = s.send_json("PUT", "/c/row?check=bogus", &body(vec![cell("cf:a", "x")]));
    assert_eq!(
        (r.status, r.text().as_str()),
        (400, "Invalid check value 'bogus'\r\n")
    );
    // check=delete.
    let r = s.send_json(
        "DELETE",
        "/c/row?check=delete",
        &body(vec![cell("cf:a", "old")]),
    );
    // DELETE carries no check in HBase: it deletes the row.
    assert_eq!(r.status, 200);
    s.put_cell("c", "row", "cf:a", None, "v");
    let r = s.send_json(
        "POST",
        "/c/row?check=delete",
        &body(vec![cell("cf:a", "nope")]),
    );
    assert_eq!(r.status, 304);
    let r = s.send_json(
        "POST",
        "/c/row?check=delete",
        &body(vec![cell("cf:a", "v")]),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.get("/c/row/cf:a", "application/json").status, 404);
    // Increment (decimal text) and append, with their results.
    let r = s.send_json(
        "POST",
        "/c/n?check=increment",
        &json!({"Row": [{"key": b64(b"n"), "Cell": [cell("cf:n", "5")]}]}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = s.send_json(
        "POST",
        "/c/n?check=increment",
        &json!({"Row": [{"key": b64(b"n"), "Cell": [cell("cf:n", "2")]}]}),
    );
    assert_eq!(r.status, 200);
    assert_eq!(
        s.get("/c/n/cf:n", "application/octet-stream").body,
        7i64.to_be_bytes()
    );
    let r = s.send_json(
        "POST",
        "/c/n?check=increment",
        &json!({"Row": [{"Cell": [cell("cf:n", "x")]}]}),
    );
    assert_eq!(r.status, 400);
    for part in ["ab", "cd"] {
        let body = json!({"Row": [{"key": b64(b"ap"), "Cell": [cell("cf:s", part)]}]});
        let r = s.send_json("POST", "/c/ap?check=append", &body);
        assert_eq!((r.status, r.body.len()), (200, 0), "{}", r.text());
    }
    assert_eq!(
        s.get("/c/ap/cf:s", "application/octet-stream").body,
        b"abcd"
    );
}

#[test]
fn schema_namespaces_and_cluster() {
    let s = Server::start(Config::default());
    s.create_table("s1", &["cf"]);
    let r = s.get("/s1/schema", "application/json");
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["name"], "s1");
    assert_eq!(v["IS_META"], "false");
    assert_eq!(v["ColumnSchema"][0]["name"], "cf");
    assert_eq!(v["ColumnSchema"][0]["VERSIONS"], "5");
    let r = s.get("/s1/schema", "text/xml");
    assert!(
        r.text().contains("<TableSchema name=\"s1\""),
        "{}",
        r.text()
    );
    assert!(
        r.text().contains("<ColumnSchema name=\"cf\""),
        "{}",
        r.text()
    );
    // POST adds a family and keeps the others; PUT of an existing table answers 201.
    let r = s.send_json(
        "POST",
        "/s1/schema",
        &json!({"name": "s1", "ColumnSchema": [{"name": "cg"}]}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let fams: Vec<String> = s.get("/s1/schema", "application/json").json()["ColumnSchema"]
        .as_array()
        .expect("list")
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(fams, vec!["cf", "cg"]);
    let xml = "<TableSchema name=\"s2\"><ColumnSchema name=\"x\" VERSIONS=\"2\"/></TableSchema>";
    let r = s.call(
        "PUT",
        "/s2/schema",
        &[("Content-Type", "text/xml")],
        xml.into(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        s.get("/s2/schema", "application/json").json()["ColumnSchema"][0]["VERSIONS"],
        "2"
    );
    assert_eq!(s.get("/s2/exists", "application/json").status, 200);
    assert_eq!(s.get("/nope/exists", "application/json").status, 404);

    // The table list: text for */*, JSON, XML, protobuf; the status page for browsers.
    let r = s.call("GET", "/", &[("Accept", "*/*")], Vec::new());
    assert_eq!((r.status, r.text().as_str()), (200, "s1\ns2\n"));
    // No Accept at all (ureq always sends one): the status page, as before REST shared `/`.
    let mut tcp = TcpStream::connect(s.addr).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    write!(tcp, "GET / HTTP/1.0\r\nHost: x\r\n\r\n").expect("send");
    let mut page = String::new();
    tcp.read_to_string(&mut page).expect("read");
    assert!(
        page.to_ascii_lowercase()
            .contains("content-type: text/html"),
        "{page}"
    );
    assert_eq!(
        s.get("/", "application/json").json(),
        json!({"table": [{"name": "s1"}, {"name": "s2"}]})
    );
    assert!(s
        .get("/", "text/xml")
        .text()
        .ends_with("<TableList><table name=\"s1\"/><table name=\"s2\"/></TableList>"));
    let pb = PbTableList::decode(s.get("/", "application/x-protobuf").body.as_slice()).expect("pb");
    assert_eq!(pb.name, vec!["s1", "s2"]);
    let html = s.get("/", "text/html,application/xhtml+xml,*/*;q=0.8");
    assert!(html.header("content-type").starts_with("text/html"));

    // Regions, versions, cluster status.
    let v = s.get("/s1/regions", "application/json").json();
    assert_eq!(v["name"], "s1");
    assert_eq!(v["Region"].as_array().expect("regions").len(), 1);
    assert_eq!(s.get("/nope/regions", "application/json").status, 404);
    assert_eq!(
        s.get("/version/cluster", "application/json").json(),
        json!({"Version": "2.6.1"})
    );
    assert_eq!(s.get("/version/cluster", "text/plain").text(), "2.6.1");
    assert!(s
        .get("/version/cluster", "text/xml")
        .text()
        .ends_with("<ClusterVersion Version=\"2.6.1\"/>"));
    let v = s.get("/version", "application/json").json();
    assert_eq!(
        (&v["REST"], &v["Version"]),
        (&json!("0.0.3"), &json!("2.6.1"))
    );
    let st = s.get("/status/cluster", "application/json").json();
    assert_eq!(st["regions"], 2);
    // Real figures: the process's resident memory and its memory budget, in MB.
    let node = &st["LiveNodes"][0];
    assert!(node["heapSizeMB"].as_u64().expect("heap") > 0, "{st}");
    assert!(
        node["maxHeapSizeMB"].as_u64().expect("max heap") > 0,
        "{st}"
    );
    let region = &node["Region"][0];
    assert_eq!(region["storefiles"], 1, "{st}");
    assert!(region["writeRequestsCount"].as_u64().is_some(), "{st}");
    let pb = redbase::rest::protobuf::PbClusterStatus::decode(
        s.get("/status/cluster", "application/x-protobuf")
            .body
            .as_slice(),
    )
    .expect("status protobuf");
    assert!(pb.live_nodes[0].heap_size_mb.expect("heap") > 0);
    assert_eq!(pb.live_nodes[0].regions.len(), 2);
    let xml = s.get("/status/cluster", "text/xml").text();
    assert!(
        xml.contains("heapSizeMB=\"") && !xml.contains("heapSizeMB=\"0\""),
        "{xml}"
    );
    let text = s.get("/status/cluster", "text/plain").text();
    assert!(
        text.contains("maxHeapSizeMB=") && text.contains("storefiless=1"),
        "{text}"
    );
    assert_eq!(
        st["LiveNodes"][0]["Region"]
            .as_array()
            .expect("regions")
            .len(),
        2
    );

    // Namespaces.
    let r = s.call("POST", "/namespaces/ns1", &[], Vec::new());
    assert_eq!(r.status, 201, "{}", r.text());
    let r = s.call(
        "PUT",
        "/namespaces/ns1",
        &[("Content-Type", "application/json")],
        br#"{"properties":{"k":"v"}}"#.to_vec(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        s.get("/namespaces/ns1", "application/json").json(),
        json!({"properties": {"k": "v"}})
    );
    let list = s.get("/namespaces", "application/json").json();
    assert!(list["Namespace"]
        .as_array()
        .expect("list")
        .contains(&json!("ns1")));
    s.create_table("ns1:t", &["cf"]);
    assert_eq!(
        s.get("/namespaces/ns1/tables", "application/json").json(),
        json!({"table": [{"name": "t"}]})
    );
    assert_eq!(s.get("/namespaces/none", "application/json").status, 404);
    assert_eq!(
        s.call("DELETE", "/ns1:t/schema", &[], Vec::new()).status,
        200
    );
    assert_eq!(
        s.call("DELETE", "/namespaces/ns1", &[], Vec::new()).status,
        200
    );
    assert_eq!(s.get("/namespaces/ns1", "application/json").status, 404);

    // Deleting a table.
    assert_eq!(s.call("DELETE", "/s2/schema", &[], Vec::new()).status, 200);
    assert_eq!(s.get("/s2/schema", "application/json").status, 404);
    assert_eq!(s.call("DELETE", "/s2/schema", &[], Vec::new()).status, 404);

    // Requests are counted.
    let m = s.get("/metrics", "text/plain").text();
    assert!(
        m.contains("redbase_rest_requests_total{method=\"GET\",status=\"200\"}"),
        "{m}"
    );
}

#[test]
fn scanners_stateful_and_stateless() {
    let s = Server::start(Config::default());
    s.create_table("sc", &["cf"]);
    for i in 0..6 {
        s.put_cell("sc", &format!("row{i}"), "cf:a", None, &format!("v{i}"));
        s.put_cell("sc", &format!("row{i}"), "cf:b", None, "b");
    }
    s.put_cell("sc", "other", "cf:a", None, "v9");
    // A stateful scanner, 3 cells a GET, until 204.
    let r = s.send_json(
        "PUT",
        "/sc/scanner",
        &json!({"batch": 3, "startRow": b64(b"row"), "endRow": b64(b"row9")}),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let loc = r.header("location");
    let path = loc
        .split_once("//")
        .and_then(|(_, p)| p.split_once('/'))
        .map(|(_, p)| format!("/{p}"))
        .expect("location");
    assert!(path.starts_with("/sc/scanner/"), "{loc}");
    let mut seen = Vec::new();
    loop {
        let r = s.get(&path, "application/json");
        if r.status == 204 {
            break;
        }
        assert_eq!(r.status, 200, "{}", r.text());
        let got = cells(&r.json());
        assert!(got.len() <= 3);
        seen.extend(got);
    }
    assert_eq!(seen.len(), 12);
    assert_eq!(s.call("DELETE", &path, &[], Vec::new()).status, 200);
    assert_eq!(s.get(&path, "application/json").status, 404);
    assert_eq!(s.get("/sc/scanner/99999", "application/json").status, 404);

    // Filters in HBase's JSON form.
    let filter = json!({"type": "FilterList", "op": "MUST_PASS_ALL", "filters": [
        {"type": "PrefixFilter", "value": b64(b"row")},
        {"type": "QualifierFilter", "op": "EQUAL", "comparator": {"type": "BinaryComparator", "value": b64(b"a")}},
        {"type": "ValueFilter", "op": "NOT_EQUAL", "comparator": {"type": "SubstringComparator", "value": "3"}}]});
    let r = s.send_json(
        "POST",
        "/sc/scanner",
        &json!({"filter": filter.to_string()}),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let path2 = r
        .header("location")
        .split_once("//")
        .and_then(|(_, p)| p.split_once('/'))
        .map(|(_, p)| format!("/{p}"))
        .expect("location");
    let got = cells(&s.get(&path2, "application/json").json());
    let values: Vec<&str> = got.iter().map(|c| c.3.as_str()).collect();
    assert_eq!(values, vec!["v0", "v1", "v2", "v4", "v5"]);
    // XML scanner model, protobuf answer, raw single cells.
    let xml = format!(
        "<Scanner startRow=\"{}\" endRow=\"{}\"><column>{}</column></Scanner>",
        b64(b"row1"),
        b64(b"row3"),
        b64(b"cf:a")
    );
    let r = s.call(
        "PUT",
        "/sc/scanner",
        &[("Content-Type", "text/xml")],
        xml.into_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let path3 = r
        .header("location")
        .split_once("//")
        .and_then(|(_, p)| p.split_once('/'))
        .map(|(_, p)| format!("/{p}"))
        .expect("location");
    let one = s.get(&path3, "application/octet-stream");
    assert_eq!((one.status, one.body.as_slice()), (200, &b"v1"[..]));
    assert_eq!(one.header("x-row"), b64(b"row1"));
    let pb =
        PbCellSet::decode(s.get(&path3, "application/x-protobuf").body.as_slice()).expect("pb");
    assert_eq!(pb.rows[0].key.as_deref(), Some(&b"row2"[..]));
    assert_eq!(s.get(&path3, "application/json").status, 204);
    let m = s.get("/metrics", "text/plain").text();
    assert!(
        m.contains("redbase_open_scanners{gateway=\"rest\"} 2"),
        "{m}"
    );
    // A protobuf scanner model.
    let model = redbase::rest::protobuf::PbScanner {
        start_row: Some(b"row4".to_vec()),
        end_row: Some(b"row5".to_vec()),
        columns: vec![b"cf:b".to_vec()],
        ..Default::default()
    };
    let r = s.call(
        "PUT",
        "/sc/scanner",
        &[("Content-Type", "application/x-protobuf")],
        model.encode_to_vec(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let path4 = r
        .header("location")
        .split_once("//")
        .and_then(|(_, p)| p.split_once('/'))
        .map(|(_, p)| format!("/{p}"))
        .expect("location");
    let got = cells(&s.get(&path4, "application/json").json());
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].0.as_str(), got[0].1.as_str()), ("row4", "cf:b"));
    // Bad filters are 400.
    let r = s.send_json(
        "PUT",
        "/sc/scanner",
        &json!({"filter": "{\"type\":\"NoSuchFilter\"}"}),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    // As HBase, a scanner of a missing table opens; its first read says the table is missing.
    let r = s.send_json("PUT", "/missing/scanner", &json!({}));
    assert_eq!(r.status, 201, "{}", r.text());
    let missing = r
        .header("location")
        .split_once("//")
        .and_then(|(_, p)| p.split_once('/'))
        .map(|(_, p)| format!("/{p}"))
        .expect("location");
    assert_eq!(s.get(&missing, "application/json").status, 404);

    // Stateless scans.
    let keys = |r: Reply| -> Vec<String> {
        let mut k: Vec<String> = cells(&r.json()).into_iter().map(|c| c.0).collect();
        k.dedup();
        k
    };
    assert_eq!(
        keys(s.get("/sc/*?limit=2", "application/json")),
        vec!["other", "row0"]
    );
    assert_eq!(
        keys(s.get("/sc/row*?startrow=row4", "application/json")),
        vec!["row4", "row5"]
    );
    assert_eq!(
        keys(s.get(
            "/sc/*?startrow=row2&endrow=row4&reversed=false",
            "application/json"
        )),
        vec!["row2", "row3"]
    );
    assert_eq!(
        keys(s.get(
            "/sc/*?startrow=row2&reversed=true&limit=2",
            "application/json"
        )),
        vec!["row2", "row1"]
    );
    let r = s.get(
        "/sc/*?filter=ValueFilter(%3D%2C%27binary%3Av5%27)",
        "application/json",
    );
    assert_eq!(keys(r), vec!["row5"]);
    let r = s.get("/sc/*?column=cf:b&limit=1", "text/xml");
    assert!(
        r.text().contains("<CellSet><Row key=\"b3RoZXI=\">")
            || r.text().contains("<Row key=\"cm93MA==\">"),
        "{}",
        r.text()
    );
    assert_eq!(s.get("/sc/*?filter=Bogus(", "application/json").status, 400);
}

#[test]
fn bad_input_gets_clear_errors() {
    let s = Server::start(Config::default());
    s.create_table("b", &["cf"]);
    let put = |ct: &str, body: &[u8]| s.call("PUT", "/b/r", &[("Content-Type", ct)], body.to_vec());
    let r = put("application/json", br#"{"Row":[{"key":"!!!","Cell":[]}]}"#);
    assert_eq!(r.status, 400);
    assert!(
        r.text().starts_with("Bad request\r\n") && r.text().contains("base64"),
        "{}",
        r.text()
    );
    let r = put("application/json", b"{not json");
    assert_eq!(r.status, 400);
    assert!(r.text().contains("malformed JSON"), "{}", r.text());
    let r = put("text/xml", b"<CellSet><Row>");
    assert_eq!(r.status, 400);
    let r = put("application/x-protobuf", b"\xff\xff\xff");
    assert_eq!(r.status, 400);
    let r = put("image/png", b"x");
    assert_eq!(r.status, 415);
    let r = s.send_json("PUT", "/b/r", &json!({"Row": [{"key": b64(b"r"), "Cell": [{"column": b64(b"nofamily:q"), "$": b64(b"v")}]}]}));
    assert_eq!(r.status, 404, "{}", r.text());
    let r = s.send_json("PUT", "/b/r", &json!({"Row": [{"key": b64(b"r"), "Cell": [{"column": b64(b"noqualifier"), "$": b64(b"v")}]}]}));
    assert_eq!((r.status, r.text().as_str()), (400, "Bad request\r\n"));
    // A 406 names what the resource would have answered with.
    let r = s.get("/b/r", "image/png");
    assert_eq!(r.status, 406);
    assert_eq!(
        r.text(),
        "Not Acceptable\r\nAccept \"image/png\" matches none of the types this resource \
         answers with: text/xml, application/json, application/x-protobuf, \
         application/protobuf, application/octet-stream\r\n"
    );
    assert_eq!(
        s.get("/b/r/cf:a/notanumber", "application/json").status,
        400
    );
    assert_eq!(s.get("/b/r%zz", "application/json").status, 400);
    assert_eq!(s.call("PATCH", "/b/schema", &[], Vec::new()).status, 405);
    let r = s.send_json(
        "PUT",
        "/bad%20name/schema",
        &json!({"name": "bad name", "ColumnSchema": [{"name": "cf"}]}),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    let r = s.send_json(
        "PUT",
        "/b2/schema",
        &json!({"name": "b2", "ColumnSchema": [{"name": "cf", "VERSIONS": "many"}]}),
    );
    assert_eq!(r.status, 400, "{}", r.text());

    // A body over the limit is refused before it is read.
    let mut tcp = TcpStream::connect(s.addr).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    write!(tcp, "PUT /b/r HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n{{").expect("send");
    let mut buf = [0u8; 512];
    let n = tcp.read(&mut buf).expect("read");
    let head = String::from_utf8_lossy(&buf[..n]);
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");
}

#[test]
fn read_only_mode_refuses_changes() {
    let s = Server::start(Config {
        read_only: true,
        ..Default::default()
    });
    let r = s.send_json(
        "PUT",
        "/t/schema",
        &json!({"name": "t", "ColumnSchema": [{"name": "cf"}]}),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    let r = s.send_json("PUT", "/t/r", &json!({"Row": []}));
    assert_eq!((r.status, r.text().as_str()), (403, "Forbidden\r\n"));
    assert_eq!(s.call("DELETE", "/t/r", &[], Vec::new()).status, 403);
    assert_eq!(s.get("/", "application/json").status, 200);
}

#[test]
fn credentials_and_acls_apply() {
    use redbase::security::{hash_password, hash_token, Auth, LimiterConfig, Security, Users};
    let text = format!(
        "[users.alice]\npassword = \"{}\"\nsuperuser = true\n[users.bob]\ntokens = [\"{}\"]\n",
        hash_password("alice-secret").expect("hash"),
        hash_token("bob-token-0123456789")
    );
    let users = Users::parse(&text, std::path::Path::new("users.toml")).expect("users");
    let auth = std::sync::Arc::new(Auth::new(users, LimiterConfig::default()));
    let s = Server::start(Config {
        security: Security {
            auth: Some(auth),
            allow_plaintext_auth: true,
            ..Security::default()
        },
        ..Default::default()
    });
    let alice = format!("Basic {}", b64(b"alice:alice-secret"));
    let bob = "Bearer bob-token-0123456789";
    // No credentials: 401 with a challenge; the probes stay open.
    let r = s.get("/", "application/json");
    assert_eq!(r.status, 401);
    assert!(r.header("www-authenticate").starts_with("Basic"));
    assert_eq!(s.get("/healthz", "text/plain").status, 200);
    // A superuser may do everything.
    let schema = json!({"name": "sec", "ColumnSchema": [{"name": "cf"}]});
    let r = s.call(
        "PUT",
        "/sec/schema",
        &[
            ("Authorization", &alice),
            ("Content-Type", "application/json"),
        ],
        schema.to_string().into_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let put =
        json!({"Row": [{"key": b64(b"r"), "Cell": [{"column": b64(b"cf:a"), "$": b64(b"v")}]}]});
    let r = s.call(
        "PUT",
        "/sec/r",
        &[
            ("Authorization", &alice),
            ("Content-Type", "application/json"),
        ],
        put.to_string().into_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // A user with no grant is refused with HBase's denial; the table list hides the table.
    let r = s.call(
        "GET",
        "/sec/r",
        &[("Authorization", bob), ("Accept", "application/json")],
        Vec::new(),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(
        r.text()
            .starts_with("Forbidden\r\norg.apache.hadoop.hbase.security.AccessDeniedException"),
        "{}",
        r.text()
    );
    let r = s.call(
        "GET",
        "/",
        &[("Authorization", bob), ("Accept", "application/json")],
        Vec::new(),
    );
    assert_eq!(r.json(), json!({"table": []}));
    let r = s.call(
        "GET",
        "/",
        &[("Authorization", &alice), ("Accept", "application/json")],
        Vec::new(),
    );
    assert_eq!(r.json(), json!({"table": [{"name": "sec"}]}));
}
