//! `bounds.json`: key bounds (components by value, then at most one inclusive range) of the
//! example tables with the start/stop rows the reference (`crate::bounds`) gives them, or the
//! substring their error must contain (the component it names).

use serde_json::{json, Value as Json};

use crate::bounds::{self, Given};
use crate::model::Model;
use crate::typed_value::Value;

/// One case: table, name, the components given (in key order), the expected error substring.
pub type BoundsCase = (
    &'static str,
    &'static str,
    Vec<(&'static str, Given)>,
    Option<&'static str>,
);

/// `bounds.json` cases with their rows or error. A case whose outcome is not the one intended
/// is a bug in the reference: it is left out, so the vector test (every case present) fails.
pub(super) fn bounds_vectors(model: &Model) -> Vec<Json> {
    let mut out = Vec::new();
    for (table, name, given, err) in bounds_cases() {
        let Some(t) = model.tables.iter().find(|t| t.id == table) else {
            continue;
        };
        let mut slots: Vec<Option<Given>> = vec![None; t.key.components.len()];
        let mut shown = Vec::new();
        let mut known = true;
        for (comp, g) in &given {
            let Some(i) = t.key.components.iter().position(|c| c.name == *comp) else {
                known = false;
                break;
            };
            let ty = t.key.components[i].ty;
            shown.push(match g {
                Given::Value(v) => json!([comp, v.to_json(ty)]),
                Given::Range { low, high } => {
                    json!([comp, {"low": low.to_json(ty), "high": high.to_json(ty)}])
                }
                Given::StartsWith(p) => json!([comp, {"starts_with": p.to_json(ty)}]),
            });
            slots[i] = Some(g.clone());
        }
        if !known {
            continue;
        }
        while slots.last().is_some_and(Option::is_none) {
            slots.pop();
        }
        let mut case = json!({"table": table, "name": name, "given": shown});
        match (bounds::bounds(&t.key, &slots), err) {
            (Ok(rs), None) => {
                case["ranges"] = rs
                    .iter()
                    .map(|(start, stop)| {
                        json!([
                            crate::hex::encode(start),
                            stop.as_ref().map(|s| crate::hex::encode(s))
                        ])
                    })
                    .collect();
            }
            (Err(e), Some(sub)) if e.to_string().contains(sub) => {
                case["error"] = Json::String(sub.into())
            }
            _ => continue,
        }
        out.push(case);
    }
    out
}

/// Every case, by table: R1 (by value, whole keys), R2 (ranges), R3 (refused ranges), R4 (low
/// above high), R5 (gaps, a range before another component), then starts-with on strings.
pub fn bounds_cases() -> Vec<BoundsCase> {
    let s = |x: &str| Given::Value(Value::Str(x.into()));
    let i = |x: i64| Given::Value(Value::Int(x));
    let b = |x: &[u8]| Given::Value(Value::Bytes(x.to_vec()));
    let sr = |lo: &str, hi: &str| Given::Range {
        low: Value::Str(lo.into()),
        high: Value::Str(hi.into()),
    };
    let ir = |lo: i64, hi: i64| Given::Range {
        low: Value::Int(lo),
        high: Value::Int(hi),
    };
    let br = |lo: &[u8], hi: &[u8]| Given::Range {
        low: Value::Bytes(lo.to_vec()),
        high: Value::Bytes(hi.to_vec()),
    };
    let f32r = |lo: f32, hi: f32| Given::Range {
        low: Value::F32(lo),
        high: Value::F32(hi),
    };
    let f64r = |lo: f64, hi: f64| Given::Range {
        low: Value::F64(lo),
        high: Value::F64(hi),
    };
    let file = |n: u8| {
        let mut v = vec![0u8; 16];
        v[15] = n;
        v
    };
    let ts = 1_445_000_000_000i64;
    let mut cases = vec![
        // Separated, a width-6 number first.
        (
            "access_logs_by_period",
            "nothing given: every row",
            vec![],
            None,
        ),
        (
            "access_logs_by_period",
            "first component by value",
            vec![("period", i(201510))],
            None,
        ),
        (
            "access_logs_by_period",
            "two components by value",
            vec![("period", i(201510)), ("system_id", s("jericho"))],
            None,
        ),
        (
            "access_logs_by_period",
            "whole key by value stops at key + 00",
            vec![
                ("period", i(201510)),
                ("system_id", s("jericho")),
                ("user_id", s("dave")),
            ],
            None,
        ),
        (
            "access_logs_by_period",
            "range on a number with a width, more follow",
            vec![("period", ir(201501, 201512))],
            None,
        ),
        (
            "access_logs_by_period",
            "range of one value",
            vec![("period", ir(201510, 201510))],
            None,
        ),
        (
            "access_logs_by_period",
            "string range on the last component excludes k0",
            vec![
                ("period", i(201510)),
                ("system_id", s("jericho")),
                ("user_id", sr("j", "k")),
            ],
            None,
        ),
        (
            "access_logs_by_period",
            "string range followed by more is refused",
            vec![("period", i(201510)), ("system_id", sr("a", "m"))],
            Some("system_id"),
        ),
        (
            "access_logs_by_period",
            "low above high is refused",
            vec![("period", ir(201512, 201501))],
            Some("period"),
        ),
        (
            "access_logs_by_period",
            "string low above high is refused",
            vec![
                ("period", i(201510)),
                ("system_id", s("jericho")),
                ("user_id", sr("k", "j")),
            ],
            Some("user_id"),
        ),
        (
            "access_logs_by_period",
            "gap before a given component is refused",
            vec![("period", i(201510)), ("user_id", s("dave"))],
            Some("system_id"),
        ),
        (
            "access_logs_by_period",
            "component after a range is refused",
            vec![("period", ir(201501, 201512)), ("system_id", s("jericho"))],
            Some("system_id"),
        ),
        (
            "access_logs_by_period",
            "range value outside the charset is refused",
            vec![
                ("period", i(201510)),
                ("system_id", s("jericho")),
                ("user_id", sr("a-b", "k")),
            ],
            Some("user_id"),
        ),
        // Separated, the number last.
        (
            "access_logs_by_user",
            "user then period range stops at high + 00",
            vec![
                ("user_id", s("dave")),
                ("system_id", s("jericho")),
                ("period", ir(201501, 201512)),
            ],
            None,
        ),
        (
            "access_logs_by_user",
            "user by value",
            vec![("user_id", s("dave"))],
            None,
        ),
        (
            "access_logs_by_user",
            "period range without the system is refused",
            vec![("user_id", s("dave")), ("period", ir(201501, 201512))],
            Some("system_id"),
        ),
        (
            "access_logs_by_system",
            "system then user by value",
            vec![("system_id", s("jericho")), ("user_id", s("dave"))],
            None,
        ),
        // Separated with a hash prefix of user_id (not kept).
        (
            "access_logs",
            "hashed component by value",
            vec![("user_id", s("dave"))],
            None,
        ),
        (
            "access_logs",
            "hashed key, whole key by value",
            vec![
                ("user_id", s("dave")),
                ("system_id", s("jericho")),
                ("period", i(201510)),
            ],
            None,
        ),
        (
            "access_logs",
            "hashed key, range on the last component",
            vec![
                ("user_id", s("dave")),
                ("system_id", s("jericho")),
                ("period", ir(201501, 201512)),
            ],
            None,
        ),
        (
            "access_logs",
            "range on a hashed component is refused",
            vec![("user_id", sr("a", "m"))],
            Some("user_id"),
        ),
        (
            "access_logs",
            "hashed component missing is refused",
            vec![("system_id", s("jericho"))],
            Some("user_id"),
        ),
        (
            "access_logs",
            "range without the hashed component is refused",
            vec![("system_id", s("jericho")), ("period", ir(201501, 201512))],
            Some("user_id"),
        ),
        // Separated, one word component.
        (
            "social_usage",
            "whole key by value excludes dave0",
            vec![("user_id", s("dave"))],
            None,
        ),
        (
            "social_usage",
            "string range excludes k0",
            vec![("user_id", sr("j", "k"))],
            None,
        ),
        (
            "social_usage",
            "empty range value is refused",
            vec![("user_id", sr("", "k"))],
            Some("user_id"),
        ),
        // Separated, escaped strings whose charset holds the separator.
        (
            "counters",
            "escaped string by value",
            vec![("name", s("a|b"))],
            None,
        ),
        (
            "counters",
            "range on an escaped string is refused",
            vec![("name", sr("a", "b"))],
            Some("name"),
        ),
        (
            "drive_directories",
            "range on an escaped path is refused",
            vec![("path", sr("/home/a", "/home/b"))],
            Some("path"),
        ),
        (
            "web_pages",
            "reversed domain by value",
            vec![("domain", s("www.example.com"))],
            None,
        ),
        (
            "web_pages",
            "whole key with an empty path",
            vec![("domain", s("www.example.com")), ("path", s(""))],
            None,
        ),
        (
            "web_pages",
            "range on a reversed component is refused",
            vec![("domain", sr("a.com", "b.com"))],
            Some("domain"),
        ),
        (
            "web_pages",
            "range on an escaped last component is refused",
            vec![("domain", s("example.com")), ("path", sr("/a", "/b"))],
            Some("path"),
        ),
        // Separated with a reverse timestamp (width 19).
        (
            "metrics",
            "reverse timestamp range swaps its ends",
            vec![
                ("metric", s("cpu")),
                ("host", s("web-1")),
                ("ts", ir(ts, ts + 60_000)),
            ],
            None,
        ),
        (
            "metrics",
            "metric and host by value",
            vec![("metric", s("cpu")), ("host", s("web|1"))],
            None,
        ),
        (
            "metrics",
            "string range followed by more is refused",
            vec![("metric", sr("a", "m"))],
            Some("metric"),
        ),
        (
            "metrics",
            "escaped string range followed by more is refused",
            vec![("metric", s("cpu")), ("host", sr("a", "m"))],
            Some("host"),
        ),
        (
            "metrics",
            "reverse timestamp low above high is refused",
            vec![
                ("metric", s("cpu")),
                ("host", s("web-1")),
                ("ts", ir(ts + 60_000, ts)),
            ],
            Some("ts"),
        ),
        // Salted separated (4 buckets as characters).
        ("events", "salted: nothing given", vec![], None),
        (
            "events",
            "salted whole key by value",
            vec![("event", s("foo0001"))],
            None,
        ),
        (
            "events",
            "salted range, one pair per bucket",
            vec![("event", sr("foo0001", "foo0003"))],
            None,
        ),
        // Binary.
        (
            "books",
            "binary whole key by value",
            vec![("isbn", s("978-0"))],
            None,
        ),
        (
            "books",
            "binary string range on the last component",
            vec![("isbn", sr("j", "k"))],
            None,
        ),
        (
            "device_events",
            "salted binary: device by value",
            vec![("device", s("dev-1"))],
            None,
        ),
        (
            "device_events",
            "salted binary range on the last component",
            vec![("device", s("dev-1")), ("seq", ir(10, 20))],
            None,
        ),
        (
            "device_events",
            "binary string range followed by more",
            vec![("device", sr("j", "k"))],
            None,
        ),
        (
            "device_events",
            "binary whole key by value",
            vec![("device", s("dev-1")), ("seq", i(7))],
            None,
        ),
        (
            "leaderboard",
            "desc range followed by more swaps its ends",
            vec![("game", s("chess")), ("score", ir(100, 200))],
            None,
        ),
        (
            "leaderboard",
            "desc range low above high is refused",
            vec![("game", s("chess")), ("score", ir(200, 100))],
            Some("score"),
        ),
        (
            "leaderboard",
            "range on the last binary string",
            vec![
                ("game", s("chess")),
                ("score", i(150)),
                ("name", sr("j", "k")),
            ],
            None,
        ),
        (
            "sensor_readings",
            "binary number range followed by more",
            vec![("sensor", ir(-5, 5))],
            None,
        ),
        (
            "sensor_readings",
            "binary reverse timestamp range",
            vec![("sensor", i(7)), ("ts", ir(ts, ts + 1000))],
            None,
        ),
        (
            "all_types",
            "desc bytes range",
            vec![("s", s("")), ("b", br(&[0x00], &[0xFF, 0x01]))],
            None,
        ),
        (
            "all_types",
            "f32 range",
            vec![
                ("s", s("x")),
                ("b", b(&[1])),
                ("i", i(-3)),
                ("l", i(9)),
                ("f", f32r(-1.5, 2.5)),
            ],
            None,
        ),
        (
            "all_types",
            "desc f64 range",
            vec![
                ("s", s("x")),
                ("b", b(&[1])),
                ("i", i(-3)),
                ("l", i(9)),
                ("f", Given::Value(Value::F32(0.5))),
                ("d", f64r(-2.25, 1e10)),
            ],
            None,
        ),
        // Fixed layout.
        (
            "drive_files",
            "fixed whole key by value",
            vec![("file_id", b(&file(1)))],
            None,
        ),
        (
            "drive_files",
            "fixed bytes range",
            vec![("file_id", br(&file(1), &file(9)))],
            None,
        ),
        (
            "drive_files",
            "fixed bytes low above high is refused",
            vec![("file_id", br(&file(9), &file(1)))],
            Some("file_id"),
        ),
        (
            "fixed_orders",
            "fixed whole key by value",
            vec![
                ("region", s("emea")),
                ("order_no", i(42)),
                ("account", i(123456)),
            ],
            None,
        ),
        (
            "fixed_orders",
            "range on a hashed component is refused",
            vec![
                ("region", s("emea")),
                ("order_no", i(42)),
                ("account", ir(1, 2)),
            ],
            Some("account"),
        ),
        (
            "fixed_orders",
            "range needing the hashed component is refused",
            vec![("region", s("emea")), ("order_no", ir(1, 2))],
            Some("account"),
        ),
    ];
    cases.extend(starts_with_cases());
    cases
}

/// Starts-with on string components: escaped separated paths (seed 004's subtree), inner
/// components, binary and salted keys, and every refusal.
fn starts_with_cases() -> Vec<BoundsCase> {
    let s = |x: &str| Given::Value(Value::Str(x.into()));
    let i = |x: i64| Given::Value(Value::Int(x));
    let sw = |x: &str| Given::StartsWith(Value::Str(x.into()));
    vec![
        (
            "drive_directories",
            "starts-with: a subtree of an escaped path",
            vec![("path", sw("/dir1/"))],
            None,
        ),
        (
            "drive_directories",
            "starts-with: the separator and backslash in the prefix are escaped whole",
            vec![("path", sw("/a|b\\"))],
            None,
        ),
        (
            "drive_directories",
            "starts-with: an empty prefix is every value",
            vec![("path", sw(""))],
            None,
        ),
        (
            "metrics",
            "starts-with: an escaped inner component",
            vec![("metric", s("cpu")), ("host", sw("web|"))],
            None,
        ),
        (
            "metrics",
            "starts-with: the first component, more follow",
            vec![("metric", sw("cp"))],
            None,
        ),
        (
            "metrics",
            "starts-with: a missing earlier component is named",
            vec![("host", sw("web"))],
            Some("metric"),
        ),
        (
            "metrics",
            "starts-with: a component given after it is refused",
            vec![("metric", sw("c")), ("host", s("web"))],
            Some("host"),
        ),
        (
            "metrics",
            "starts-with: not on a number",
            vec![("metric", s("cpu")), ("host", s("web")), ("ts", sw("1"))],
            Some("ts"),
        ),
        (
            "tsdb",
            "starts-with: binary and salted, one range per bucket",
            vec![("metric", sw("cpu."))],
            None,
        ),
        (
            "leaderboard",
            "starts-with: binary last component",
            vec![("game", s("chess")), ("score", i(300)), ("name", sw("a"))],
            None,
        ),
        (
            "all_types",
            "starts-with: a 0x00 in a binary prefix is escaped whole",
            vec![("s", sw("a\u{0}"))],
            None,
        ),
        (
            "access_logs",
            "starts-with: after the hashed component by value",
            vec![("user_id", s("dave")), ("system_id", sw("jer"))],
            None,
        ),
        (
            "access_logs",
            "starts-with: a hashed component is refused",
            vec![("user_id", sw("da"))],
            Some("user_id"),
        ),
        (
            "fixed_orders",
            "starts-with: the hash needs a later component",
            vec![("region", sw("em"))],
            Some("account"),
        ),
        (
            "web_pages",
            "starts-with: a reversed component is refused",
            vec![("domain", sw("www."))],
            Some("domain"),
        ),
        (
            "web_pages",
            "starts-with: an escaped path that may be empty",
            vec![("domain", s("example.com")), ("path", sw("/a"))],
            None,
        ),
        (
            "events",
            "starts-with: salted characters",
            vec![("event", sw("foo00"))],
            None,
        ),
        (
            "events",
            "starts-with: a character outside the charset is refused",
            vec![("event", sw("foo-"))],
            Some("event"),
        ),
        (
            "drive_files",
            "starts-with: not on bytes",
            vec![("file_id", sw("ab"))],
            Some("file_id"),
        ),
    ]
}
