//! `merge.json`: the order a scan yields the rows of its per-bucket scanners (`crate::merge`).
//! Each case gives every bucket's rows as its scanner returns them and the rows the SDK's
//! merge must yield, for merged and bucket order, forward and reversed, with and without a
//! limit.

use serde_json::{json, Value as Json};

use crate::keys;
use crate::merge;
use crate::model::{Model, Table};
use crate::typed_value::Value;

/// The cases of every salted example table (and one unsalted one: a single bucket).
pub(super) fn merge_vectors(model: &Model) -> Vec<Json> {
    let mut out = Vec::new();
    for (table, rows) in sample_rows(model) {
        let Some(t) = model.tables.iter().find(|t| t.id == table) else {
            continue;
        };
        for (reversed, bucket_order, limit) in [
            (false, false, None),
            (true, false, None),
            (false, false, Some(3)),
            (true, false, Some(3)),
            (false, true, None),
            (true, true, Some(4)),
        ] {
            out.push(case(t, &rows, reversed, bucket_order, limit));
        }
    }
    // Two keys with the same body under different salts (raw puts can make them): ties come
    // in bucket order, and reversed in the reverse of that.
    if let Some(t) = model.tables.iter().find(|t| t.id == "events") {
        let rows: Vec<Vec<u8>> = ["a-x", "b-x", "c-w", "d-y"]
            .iter()
            .map(|r| r.as_bytes().to_vec())
            .collect();
        for reversed in [false, true] {
            out.push(case(t, &rows, reversed, false, None));
        }
    }
    out
}

fn case(
    t: &Table,
    rows: &[Vec<u8>],
    reversed: bool,
    bucket_order: bool,
    limit: Option<usize>,
) -> Json {
    let n = t.key.salt.as_ref().map_or(1, |s| s.buckets as usize);
    let width = merge::salt_width(&t.key);
    let mut buckets: Vec<Vec<Vec<u8>>> = vec![Vec::new(); n];
    for r in rows {
        let b = match keys::decode_key(&t.key, r) {
            Ok(d) => d.salt.unwrap_or(0) as usize,
            // A raw row: its first byte names the bucket (alphabet position).
            Err(_) => (0..n)
                .find(|&b| width > 0 && keys::salt_field(&t.key, b as u32)[0] == r[0])
                .unwrap_or(0),
        };
        buckets[b].push(r.clone());
    }
    for b in &mut buckets {
        b.sort();
        if reversed {
            b.reverse();
        }
    }
    let want = merge::merged(&t.key, &buckets, reversed, bucket_order, limit);
    let hex =
        |rs: &[Vec<u8>]| -> Vec<String> { rs.iter().map(|r| crate::hex::encode(r)).collect() };
    let order = if bucket_order {
        "bucket order"
    } else {
        "merged"
    };
    let dir = if reversed { "reversed" } else { "forward" };
    let lim = limit.map_or(String::new(), |l| format!(", limit {l}"));
    json!({
        "table": t.id,
        "name": format!("{order}, {dir}{lim}"),
        "salt_width": width,
        "reversed": reversed,
        "bucket_order": bucket_order,
        "limit": limit,
        "buckets": buckets.iter().map(|b| hex(b)).collect::<Vec<_>>(),
        "rows": hex(&want),
    })
}

/// Rows of each table the cases merge: keys encoded from component values.
fn sample_rows(model: &Model) -> Vec<(&'static str, Vec<Vec<u8>>)> {
    let s = |x: &str| Value::Str(x.into());
    let i = Value::Int;
    let mut tables: Vec<(&'static str, Vec<Vec<Value>>)> = vec![
        (
            "events",
            (1..=12).map(|n| vec![s(&format!("foo{n:04}"))]).collect(),
        ),
        (
            "device_events",
            ["d1", "d2", "d10"]
                .iter()
                .flat_map(|d| [-1, 0, 3, 1 << 40].map(|q| vec![s(d), i(q)]))
                .collect(),
        ),
        (
            "metrics",
            [1_000, 3_000, 2_000]
                .iter()
                .map(|&ts| vec![s("cpu"), s("host|1"), i(ts)])
                .collect(),
        ),
    ];
    let now = 1_700_000_000_000i64;
    tables.push((
        "tsdb",
        ["cpu.load", "mem.used"]
            .iter()
            .flat_map(|m| {
                (0..10).flat_map(move |k| {
                    ["web1", "web2"].map(|h| vec![s(m), i(now - 1_000 * (k * 4 + 1)), s(h)])
                })
            })
            .collect(),
    ));
    tables
        .into_iter()
        .filter_map(|(id, values)| {
            let t = model.tables.iter().find(|t| t.id == id)?;
            let rows = values
                .iter()
                .filter_map(|v| keys::encode_key(&t.key, v).ok())
                .collect();
            Some((id, rows))
        })
        .collect()
}
