//! `filters.json`: scan filters of the example tables with the bytes the reference renderer
//! (`crate::filters`) gives them, or the error they must raise.

use serde_json::{json, Value as Json};

use crate::filters::{self, CompareOp, Filter};
use crate::model::Model;
use crate::typed_value::Value;

/// `filters.json` cases: each filter with its rendered bytes, or the substring its error must
/// contain. Only the example tables the cases name are used; a missing one adds nothing.
pub(super) fn filter_vectors(model: &Model) -> Vec<Json> {
    let mut out = Vec::new();
    for (table, name, f, err) in filter_cases() {
        let Some(t) = model.tables.iter().find(|t| t.id == table) else {
            continue;
        };
        let mut case = json!({"table": table, "name": name, "filter": filters::to_json(t, &f)});
        match (filters::render(t, &f), err) {
            (Ok(b), None) => case["bytes"] = Json::String(crate::hex::encode(&b)),
            (Err(e), Some(sub)) if e.0.contains(sub) => case["error"] = Json::String(sub.into()),
            // A case whose outcome is not the one intended is a bug in the reference: leave it
            // out so the vector test (which checks every case is present) fails.
            _ => continue,
        }
        out.push(case);
    }
    out
}

/// (table, case name, filter, expected error substring).
pub fn filter_cases() -> Vec<(&'static str, &'static str, Filter, Option<&'static str>)> {
    let s = |x: &str| Value::Str(x.to_string());
    let v = |column: &str, op: CompareOp, operand: Value| Filter::Value {
        column: column.to_string(),
        op,
        operand,
    };
    let p = |pairs: &[(&str, Value)]| {
        Filter::Prefix(
            pairs
                .iter()
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect(),
        )
    };
    let dave = || p(&[("user_id", s("dave"))]);
    let hits5 = || v("hits", CompareOp::Ge, Value::Int(5));
    let mut c = Vec::new();
    for op in CompareOp::ALL {
        let name = match op {
            CompareOp::Eq => "counter eq",
            CompareOp::Ne => "counter ne",
            CompareOp::Lt => "counter lt",
            CompareOp::Le => "counter le",
            CompareOp::Gt => "counter gt",
            CompareOp::Ge => "counter ge",
        };
        c.push(("access_logs", name, v("hits", op, Value::Int(5)), None));
    }
    c.extend([
        (
            "access_logs",
            "counter operand holding a quote byte (39)",
            v("hits", CompareOp::Eq, Value::Int(39)),
            None,
        ),
        (
            "access_logs",
            "counter negative operand",
            v("hits", CompareOp::Gt, Value::Int(-1)),
            None,
        ),
        (
            "access_logs",
            "counter i64 max",
            v("hits", CompareOp::Lt, Value::Int(i64::MAX)),
            None,
        ),
        (
            "access_logs",
            "timestamp-ms operand",
            v("last_seen", CompareOp::Ge, Value::Int(1445000000000)),
            None,
        ),
        (
            "access_logs",
            "counter operand of the wrong type",
            v("hits", CompareOp::Eq, s("five")),
            Some("hits"),
        ),
        (
            "access_logs",
            "prefix on the hashed component",
            dave(),
            None,
        ),
        (
            "access_logs",
            "prefix two components",
            p(&[("user_id", s("dave")), ("system_id", s("jericho"))]),
            None,
        ),
        (
            "access_logs",
            "prefix every component",
            p(&[
                ("user_id", s("dave")),
                ("system_id", s("jericho")),
                ("period", Value::Int(201510)),
            ]),
            None,
        ),
        (
            "access_logs",
            "prefix without the hashed component",
            p(&[("period", Value::Int(201510))]),
            Some("user_id"),
        ),
        (
            "access_logs",
            "prefix skipping the hashed component",
            p(&[("system_id", s("jericho"))]),
            Some("user_id"),
        ),
        (
            "access_logs",
            "prefix with an empty component",
            p(&[("user_id", s(""))]),
            Some("must not be empty"),
        ),
        (
            "access_logs",
            "prefix refused by the charset",
            p(&[("user_id", s("da ve"))]),
            Some("user_id"),
        ),
        ("access_logs", "page", Filter::Page(10), None),
        ("access_logs", "page zero", Filter::Page(0), None),
        (
            "access_logs",
            "page negative",
            Filter::Page(-1),
            Some("negative"),
        ),
        ("access_logs", "key only", Filter::KeyOnly, None),
        ("access_logs", "first key only", Filter::FirstKeyOnly, None),
        (
            "access_logs",
            "timestamps",
            Filter::Timestamps(vec![1445000000000, 1445000000001, 0]),
            None,
        ),
        (
            "access_logs",
            "one timestamp",
            Filter::Timestamps(vec![1700000000123]),
            None,
        ),
        (
            "access_logs",
            "timestamps empty",
            Filter::Timestamps(vec![]),
            Some("at least one"),
        ),
        (
            "access_logs",
            "timestamps negative",
            Filter::Timestamps(vec![5, -5]),
            Some("negative"),
        ),
        (
            "access_logs",
            "column prefix",
            Filter::ColumnPrefix(b"h".to_vec()),
            None,
        ),
        (
            "access_logs",
            "column prefix with a quote and non-UTF-8 bytes",
            Filter::ColumnPrefix(vec![0x27, 0xFF, 0x00, 0x27, 0x27]),
            None,
        ),
        (
            "access_logs",
            "all-of two",
            Filter::All(vec![hits5(), dave()]),
            None,
        ),
        (
            "access_logs",
            "all-of one renders bare",
            Filter::All(vec![hits5()]),
            None,
        ),
        (
            "access_logs",
            "any-of one renders bare",
            Filter::Any(vec![Filter::KeyOnly]),
            None,
        ),
        (
            "access_logs",
            "any-of with a nested all-of",
            Filter::Any(vec![
                dave(),
                Filter::All(vec![
                    hits5(),
                    v("last_seen", CompareOp::Lt, Value::Int(1445000000000)),
                ]),
            ]),
            None,
        ),
        (
            "access_logs",
            "all-of nested three deep",
            Filter::All(vec![
                Filter::Any(vec![
                    Filter::All(vec![hits5(), Filter::FirstKeyOnly]),
                    Filter::Page(3),
                ]),
                Filter::Timestamps(vec![1, 2]),
            ]),
            None,
        ),
        (
            "access_logs",
            "all-of empty",
            Filter::All(vec![]),
            Some("at least one"),
        ),
        (
            "access_logs",
            "any-of empty",
            Filter::Any(vec![]),
            Some("at least one"),
        ),
        (
            "access_logs",
            "error nested in an any-of",
            Filter::Any(vec![hits5(), Filter::All(vec![])]),
            Some("at least one"),
        ),
        (
            "access_logs_by_period",
            "prefix i32 component",
            p(&[("period", Value::Int(201510))]),
            None,
        ),
        (
            "access_logs_by_period",
            "prefix skipping a component",
            p(&[("period", Value::Int(201510)), ("user_id", s("dave"))]),
            Some("system_id"),
        ),
        (
            "access_logs_by_period",
            "prefix width overflow",
            p(&[("period", Value::Int(1000000))]),
            Some("period"),
        ),
        (
            "books",
            "string operand",
            v("title", CompareOp::Eq, s("HBase")),
            None,
        ),
        (
            "books",
            "string operand with quotes",
            v("title", CompareOp::Eq, s("O'Reilly's ''guide''")),
            None,
        ),
        (
            "books",
            "string operand UTF-8",
            v("author", CompareOp::Ne, s("日本語")),
            None,
        ),
        (
            "books",
            "string operand empty",
            v("author", CompareOp::Eq, s("")),
            None,
        ),
        (
            "books",
            "string operand of the wrong type",
            v("title", CompareOp::Eq, Value::Int(5)),
            Some("title"),
        ),
        (
            "books",
            "i64 operand",
            v("date", CompareOp::Lt, Value::Int(-1)),
            None,
        ),
        (
            "books",
            "i32 operand",
            v("pages", CompareOp::Ge, Value::Int(100)),
            None,
        ),
        (
            "books",
            "i32 operand min",
            v("pages", CompareOp::Gt, Value::Int(i32::MIN as i64)),
            None,
        ),
        (
            "books",
            "i32 operand out of range",
            v("pages", CompareOp::Eq, Value::Int(3_000_000_000)),
            Some("pages"),
        ),
        (
            "books",
            "f32 operand",
            v("rating", CompareOp::Ge, Value::F32(1.5)),
            None,
        ),
        (
            "books",
            "f64 operand",
            v("price", CompareOp::Le, Value::F64(2.25)),
            None,
        ),
        (
            "books",
            "bool operand true",
            v("in_print", CompareOp::Eq, Value::Bool(true)),
            None,
        ),
        (
            "books",
            "bool operand false",
            v("in_print", CompareOp::Ne, Value::Bool(false)),
            None,
        ),
        (
            "books",
            "bytes operand, non-UTF-8 with a quote",
            v(
                "cover",
                CompareOp::Eq,
                Value::Bytes(vec![0x27, 0xFF, 0x00, 0x80]),
            ),
            None,
        ),
        (
            "books",
            "bytes operand empty",
            v("file", CompareOp::Ne, Value::Bytes(vec![])),
            None,
        ),
        (
            "books",
            "json operand",
            v(
                "tags",
                CompareOp::Eq,
                Value::Json(json!({"a": 1, "b": ["x'y", true]})),
            ),
            None,
        ),
        (
            "books",
            "timestamp-ms operand",
            v("added", CompareOp::Gt, Value::Int(1700000000123)),
            None,
        ),
        (
            "books",
            "prefix binary layout",
            p(&[("isbn", s("978'0"))]),
            None,
        ),
        (
            "books",
            "all-of typed operands",
            Filter::All(vec![
                v("pages", CompareOp::Ge, Value::Int(100)),
                v("in_print", CompareOp::Eq, Value::Bool(true)),
                Filter::ColumnPrefix(b"t".to_vec()),
            ]),
            None,
        ),
        (
            "counters",
            "value filter on a pattern column",
            v("slots", CompareOp::Eq, Value::Int(1)),
            Some("pattern column"),
        ),
        (
            "social_usage",
            "value filter on a pattern column",
            v("fb_usage", CompareOp::Gt, Value::Int(0)),
            Some("pattern column"),
        ),
        (
            "social_usage",
            "value filter in a second family",
            v("tw_total", CompareOp::Ge, Value::Int(10)),
            None,
        ),
        (
            "events",
            "prefix on a salted table (one per bucket)",
            p(&[("event", s("foo0001"))]),
            None,
        ),
        (
            "events",
            "json operand string",
            v("payload", CompareOp::Eq, Value::Json(json!("日本"))),
            None,
        ),
        (
            "device_events",
            "prefix on a binary salted table",
            p(&[("device", s("d'1"))]),
            None,
        ),
        (
            "device_events",
            "prefix binary i64 after a string",
            p(&[("device", s("d1")), ("seq", Value::Int(-2))]),
            None,
        ),
        (
            "device_events",
            "any-of salted prefix and a value",
            Filter::Any(vec![
                p(&[("device", s("d1"))]),
                v("kind", CompareOp::Eq, s("boot")),
            ]),
            None,
        ),
        (
            "metrics",
            "f64 negative zero",
            v("value", CompareOp::Eq, Value::F64(-0.0)),
            None,
        ),
    ]);
    let sw = |given: &[(&str, Value)], component: &str, prefix: &str| Filter::StartsWith {
        given: given
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect(),
        component: component.to_string(),
        prefix: prefix.to_string(),
    };
    c.extend([
        (
            "drive_directories",
            "starts-with: a subtree of escaped paths",
            sw(&[], "path", "/dir1/"),
            None,
        ),
        (
            "drive_directories",
            "starts-with: the separator, a backslash and a quote in the prefix",
            sw(&[], "path", "/it's|\\"),
            None,
        ),
        (
            "metrics",
            "starts-with: an escaped inner component",
            sw(&[("metric", s("cpu"))], "host", "web|"),
            None,
        ),
        (
            "tsdb",
            "starts-with: salted binary, one prefix per bucket",
            sw(&[], "metric", "cpu."),
            None,
        ),
        (
            "tsdb",
            "starts-with: combined with a page filter",
            Filter::All(vec![sw(&[], "metric", "cpu."), Filter::Page(3)]),
            None,
        ),
        (
            "web_pages",
            "starts-with: a reversed component is refused",
            sw(&[], "domain", "www."),
            Some("domain"),
        ),
        (
            "metrics",
            "starts-with: a missing earlier component is named",
            sw(&[], "host", "web"),
            Some("metric"),
        ),
    ]);
    c
}
