//! The JSON filter models of a REST scanner (HBase's `ScannerModel.FilterModel`) that run on
//! the engine's serialized-filter path: row ranges, fuzzy rows, random rows, the null and bit
//! comparators, each through a real server: PUT a scanner with the filter, GET its rows; and
//! ColumnValueFilter, which HBase's REST model lacks, refused as HBase refuses it.

mod rest_support;

use redbase::server::Config;
use rest_support::*;
use serde_json::{json, Value};

fn server() -> Server {
    let s = Server::start(Config::default());
    s.create_table("f", &["cf"]);
    for i in 0..6 {
        s.put_cell("f", &format!("k{i}"), "cf:a", Some(100), &format!("v{i}"));
        s.put_cell("f", &format!("k{i}"), "cf:b", Some(100), "b");
    }
    s
}

/// A cell as (row, column, value) text.
type Cell = (String, String, String);

/// Every cell a scanner with `filter` reads; Err(status, body) when the scanner is refused.
fn scan(s: &Server, filter: Value) -> Result<Vec<Cell>, (u16, String)> {
    let r = s.send_json(
        "PUT",
        "/f/scanner",
        &json!({"filter": filter.to_string(), "maxVersions": 1, "batch": 1000}),
    );
    if r.status != 201 {
        return Err((r.status, r.text()));
    }
    let loc = r.header("location");
    let path = &loc[loc.find("/f/").expect("scanner path")..];
    let got = s.get(path, "application/json");
    let out = if got.status == 204 {
        Vec::new()
    } else {
        cells(&got.json())
            .into_iter()
            .map(|(row, col, _, val)| (row, col, val))
            .collect()
    };
    assert_eq!(s.call("DELETE", path, &[], Vec::new()).status, 200);
    Ok(out)
}

fn rows_of(cells: &[Cell]) -> Vec<String> {
    let mut rows: Vec<String> = cells.iter().map(|c| c.0.clone()).collect();
    rows.dedup();
    rows
}

fn cmp(kind: &str, value: &[u8]) -> Value {
    json!({"type": kind, "value": b64(value)})
}

#[test]
fn row_filters_of_the_json_model_run() {
    let s = server();
    // [k0, k1] and (k3, k9): row ranges with their own inclusive ends.
    let got = scan(
        &s,
        json!({"type": "MultiRowRangeFilter", "ranges": [
            {"startRow": b64(b"k0"), "startRowInclusive": true, "stopRow": b64(b"k1"), "stopRowInclusive": true},
            {"startRow": b64(b"k3"), "startRowInclusive": false, "stopRow": b64(b"k9")}]}),
    )
    .expect("MultiRowRangeFilter");
    assert_eq!(rows_of(&got), ["k0", "k1", "k4", "k5"]);

    // Any first byte, then "3" (mask 1 = free, 0 = fixed).
    let got = scan(
        &s,
        json!({"type": "FuzzyRowFilter", "fuzzyKeys": [{"key": b64(b"?3"), "mask": b64(&[1, 0])}]}),
    )
    .expect("FuzzyRowFilter");
    assert_eq!(rows_of(&got), ["k3"]);

    assert_eq!(
        scan(&s, json!({"type": "RandomRowFilter", "chance": 0.0})).expect("chance 0"),
        []
    );
    assert_eq!(
        rows_of(&scan(&s, json!({"type": "RandomRowFilter", "chance": 1.0})).expect("chance 1"))
            .len(),
        6
    );
}

#[test]
fn comparators_and_column_value_filter_run() {
    let s = server();
    // NullComparator: no stored value is null, so EQUAL keeps nothing and NOT_EQUAL everything.
    let null_cmp = json!({"type": "NullComparator"});
    assert_eq!(
        scan(
            &s,
            json!({"type": "ValueFilter", "op": "EQUAL", "comparator": null_cmp})
        )
        .expect("null"),
        []
    );
    assert_eq!(
        scan(
            &s,
            json!({"type": "ValueFilter", "op": "NOT_EQUAL", "comparator": null_cmp})
        )
        .expect("not null")
        .len(),
        12
    );
    // BitComparator AND with 0x00 0x01: the two-byte values whose second byte is odd.
    let mut bit = cmp("BitComparator", &[0, 1]);
    bit["op"] = json!("AND");
    let got = scan(
        &s,
        json!({"type": "ValueFilter", "op": "EQUAL", "comparator": bit}),
    )
    .expect("BitComparator");
    let values: Vec<&str> = got.iter().map(|c| c.2.as_str()).collect();
    assert_eq!(values, ["v1", "v3", "v5"]);

    // SingleColumnValueFilter reads the latest version unless told otherwise, as HBase's
    // constructor has it: an older matching version does not let the row through.
    s.put_cell("f", "k0", "cf:a", Some(200), "new");
    let got = scan(
        &s,
        json!({"type": "SingleColumnValueFilter", "family": b64(b"cf"), "qualifier": b64(b"a"),
               "op": "EQUAL", "comparator": cmp("BinaryComparator", b"v0"), "ifMissing": true}),
    )
    .expect("SingleColumnValueFilter");
    assert_eq!(rows_of(&got), Vec::<String>::new());
}

#[test]
fn bad_filter_models_are_refused_saying_why() {
    let s = server();
    for (filter, says) in [
        (json!({"type": "NoSuchFilter"}), "unknown filter type"),
        // Not in HBase 2.6.1's REST filter model: HBase answers 400 too.
        (
            json!({"type": "ColumnValueFilter", "family": b64(b"cf"), "qualifier": b64(b"a"),
                   "op": "EQUAL", "comparator": {"type": "BinaryComparator", "value": b64(b"v1")}}),
            "unknown filter type \"ColumnValueFilter\"",
        ),
        (json!({"type": "RandomRowFilter"}), "chance"),
        (
            json!({"type": "MultiRowRangeFilter", "ranges": [{"startRow": b64(b"k9"), "stopRow": b64(b"k1")}]}),
            "invalid row range",
        ),
        (
            json!({"type": "ValueFilter", "op": "EQUAL", "comparator": {"type": "LongComparator", "value": "AA=="}}),
            "unknown comparator type",
        ),
        (
            json!({"type": "FuzzyRowFilter", "fuzzyKeys": [{"key": b64(b"k1")}]}),
            "mask",
        ),
    ] {
        let (status, body) = scan(&s, filter.clone()).expect_err("refused");
        assert_eq!(status, 400, "{filter}: {body}");
        assert!(
            body.starts_with("Bad request") && body.contains(says),
            "{filter}: {body}"
        );
    }
}
