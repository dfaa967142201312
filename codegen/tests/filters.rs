//! The reference filter rendering (HBase's filter language) and its shared vectors.

use std::path::PathBuf;

use redbase_codegen::filters::{from_json, literal, render, to_json, CompareOp, Filter};
use redbase_codegen::model::{load_sources, Table};
use redbase_codegen::{Model, Value};

fn examples() -> &'static Model {
    static MODEL: std::sync::OnceLock<Model> = std::sync::OnceLock::new();
    MODEL.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let files = redbase_codegen::example_schemas(&root).unwrap();
        let sources: Vec<_> = files
            .iter()
            .map(|f| (f.clone(), std::fs::read_to_string(f).unwrap()))
            .collect();
        load_sources(&sources, Some("redbase_examples")).unwrap()
    })
}

fn table(id: &str) -> &'static Table {
    examples().tables.iter().find(|t| t.id == id).unwrap()
}

fn text(t: &str, f: &Filter) -> String {
    String::from_utf8(render(table(t), f).unwrap()).unwrap()
}

fn err(t: &str, f: &Filter) -> String {
    render(table(t), f).unwrap_err().0
}

fn val(column: &str, op: CompareOp, operand: Value) -> Filter {
    Filter::Value {
        column: column.into(),
        op,
        operand,
    }
}

fn prefix(pairs: &[(&str, Value)]) -> Filter {
    Filter::Prefix(
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect(),
    )
}

#[test]
fn literals_double_quotes_and_keep_bytes_raw() {
    assert_eq!(literal(b""), b"''");
    assert_eq!(literal(b"it's"), b"'it''s'");
    assert_eq!(
        literal(&[0xFF, b'\'', 0]),
        vec![b'\'', 0xFF, b'\'', b'\'', 0, b'\'']
    );
}

#[test]
fn value_comparisons_encode_the_operand_with_the_column_codec() {
    assert_eq!(
        text("access_logs", &val("hits", CompareOp::Ge, Value::Int(5))),
        "SingleColumnValueFilter('t', 'h', >=, 'binary:\0\0\0\0\0\0\0\u{5}', true, true)"
    );
    // 39 is the byte of `'`: doubled inside the literal.
    assert_eq!(
        text("access_logs", &val("hits", CompareOp::Ne, Value::Int(39))),
        "SingleColumnValueFilter('t', 'h', !=, 'binary:\0\0\0\0\0\0\0''', true, true)"
    );
    assert_eq!(
        text(
            "books",
            &val("title", CompareOp::Eq, Value::Str("O'Reilly".into()))
        ),
        "SingleColumnValueFilter('b', 't', =, 'binary:O''Reilly', true, true)"
    );
    assert_eq!(
        text("books", &val("in_print", CompareOp::Lt, Value::Bool(false))),
        "SingleColumnValueFilter('b', 'ip', <, 'binary:\0', true, true)"
    );
    let bytes = render(
        table("books"),
        &val("cover", CompareOp::Le, Value::Bytes(vec![0xFF, 0x80])),
    )
    .unwrap();
    assert!(bytes.ends_with(b"'binary:\xFF\x80', true, true)"));
    assert_eq!(
        text("books", &val("pages", CompareOp::Gt, Value::Int(1))),
        "SingleColumnValueFilter('b', 'p', >, 'binary:\0\0\0\u{1}', true, true)"
    );
}

#[test]
fn value_comparison_errors_name_the_problem() {
    assert!(err("counters", &val("slots", CompareOp::Eq, Value::Int(1))).contains("pattern column"));
    assert!(err("books", &val("pages", CompareOp::Eq, Value::Int(1 << 40))).contains("pages"));
    assert!(err("books", &val("title", CompareOp::Eq, Value::Int(1))).contains("title"));
    assert!(err("books", &val("nope", CompareOp::Eq, Value::Int(1))).contains("nope"));
}

#[test]
fn prefixes_follow_the_key_rules_and_name_the_missing_component() {
    let s = |x: &str| Value::Str(x.into());
    assert_eq!(
        text("access_logs", &prefix(&[("user_id", s("dave"))])),
        "PrefixFilter('16108|')"
    );
    assert_eq!(
        text(
            "access_logs_by_period",
            &prefix(&[("period", Value::Int(201510))])
        ),
        "PrefixFilter('201510|')"
    );
    let e = err("access_logs", &prefix(&[("period", Value::Int(201510))]));
    assert!(
        e.contains("user_id must be given") && e.contains("hash"),
        "{e}"
    );
    let e = err(
        "access_logs_by_period",
        &prefix(&[("period", Value::Int(1)), ("user_id", s("x"))]),
    );
    assert!(e.contains("system_id must be given"), "{e}");
    assert!(err("access_logs", &prefix(&[("user_id", s(""))])).contains("must not be empty"));
    // A salted table: one prefix per bucket, any of them.
    assert_eq!(
        text("events", &prefix(&[("event", s("foo1"))])),
        "(PrefixFilter('a-foo1')) OR (PrefixFilter('b-foo1')) OR (PrefixFilter('c-foo1')) OR (PrefixFilter('d-foo1'))"
    );
}

#[test]
fn simple_filters() {
    assert_eq!(text("books", &Filter::Page(7)), "PageFilter(7)");
    assert_eq!(text("books", &Filter::KeyOnly), "KeyOnlyFilter()");
    assert_eq!(text("books", &Filter::FirstKeyOnly), "FirstKeyOnlyFilter()");
    assert_eq!(
        text("books", &Filter::Timestamps(vec![3, 1, 2])),
        "TimestampsFilter(3, 1, 2)"
    );
    assert_eq!(
        text("books", &Filter::ColumnPrefix(b"a'b".to_vec())),
        "ColumnPrefixFilter('a''b')"
    );
    assert!(err("books", &Filter::Page(-1)).contains("negative"));
    assert!(err("books", &Filter::Timestamps(vec![])).contains("at least one"));
    assert!(err("books", &Filter::Timestamps(vec![1, -1])).contains("negative"));
}

#[test]
fn all_and_any_parenthesise_every_operand() {
    let a = Filter::KeyOnly;
    let b = Filter::Page(1);
    let c = Filter::FirstKeyOnly;
    assert_eq!(
        text("books", &Filter::All(vec![a.clone(), b.clone()])),
        "(KeyOnlyFilter()) AND (PageFilter(1))"
    );
    assert_eq!(
        text(
            "books",
            &Filter::Any(vec![a.clone(), Filter::All(vec![b.clone(), c.clone()])])
        ),
        "(KeyOnlyFilter()) OR ((PageFilter(1)) AND (FirstKeyOnlyFilter()))"
    );
    assert_eq!(text("books", &Filter::Any(vec![c])), "FirstKeyOnlyFilter()");
    assert!(err("books", &Filter::All(vec![])).contains("all-of needs at least one filter"));
    assert!(err("books", &Filter::Any(vec![a, Filter::Any(vec![])])).contains("any-of"));
}

/// Every case the generator intends is in filters.json with the intended outcome, and each
/// vector's JSON filter parses back to a filter that renders the same bytes (or error).
#[test]
fn vectors_hold_every_case_and_round_trip() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("sdks/vectors/filters.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["format"], 1);
    let cases = doc["cases"].as_array().unwrap();
    let intended = redbase_codegen::vectors::filter_cases();
    assert_eq!(
        cases.len(),
        intended.len(),
        "a case did not turn out as intended"
    );
    let mut kinds = std::collections::BTreeSet::new();
    for (case, (tid, name, f, error)) in cases.iter().zip(&intended) {
        assert_eq!(case["table"], *tid);
        assert_eq!(case["name"], *name);
        let t = table(tid);
        assert_eq!(case["filter"], to_json(t, f), "{name}");
        let parsed = from_json(t, &case["filter"]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = render(t, &parsed);
        match error {
            Some(sub) => {
                assert_eq!(case["error"], *sub);
                assert!(got.unwrap_err().0.contains(sub), "{name}");
            }
            None => assert_eq!(
                case["bytes"].as_str().unwrap(),
                redbase_codegen::hex::encode(&got.unwrap()),
                "{name}"
            ),
        }
        kinds.insert(
            case["filter"]
                .as_object()
                .unwrap()
                .keys()
                .next()
                .unwrap()
                .clone(),
        );
    }
    let all = [
        "value",
        "prefix",
        "page",
        "key_only",
        "first_key_only",
        "timestamps",
        "column_prefix",
        "all",
        "any",
    ];
    assert_eq!(kinds, all.iter().map(|k| k.to_string()).collect());
}
