//! The reference key bounds (rules R1–R5 of docs/schema.md, "Prefixes and ranges") and their
//! shared vectors, sdks/vectors/bounds.json.

use std::path::PathBuf;

use redbase_codegen::bounds::{bounds, Given};
use redbase_codegen::model::{load_sources, Table};
use redbase_codegen::vectors::bounds_cases;
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

fn s(x: &str) -> Option<Given> {
    Some(Given::Value(Value::Str(x.into())))
}

fn srange(lo: &str, hi: &str) -> Option<Given> {
    Some(Given::Range {
        low: Value::Str(lo.into()),
        high: Value::Str(hi.into()),
    })
}

#[test]
fn every_case_is_in_the_vectors() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("sdks/vectors/bounds.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = json["cases"].as_array().unwrap();
    for (table, name, _, err) in bounds_cases() {
        let case = cases
            .iter()
            .find(|c| c["table"] == table && c["name"] == name)
            .unwrap_or_else(|| panic!("{table}: {name}: not produced as intended"));
        assert_eq!(
            case.get("error").is_some(),
            err.is_some(),
            "{table}: {name}"
        );
    }
}

#[test]
fn a_whole_key_stops_before_longer_values() {
    // `dave` then 0x00: `dave0` (another user) is not in the range.
    let r = bounds(&table("social_usage").key, &[s("dave")]).unwrap();
    assert_eq!(r, vec![(b"dave".to_vec(), Some(b"dave\0".to_vec()))]);
    let r = bounds(&table("social_usage").key, &[srange("j", "k")]).unwrap();
    assert_eq!(r, vec![(b"j".to_vec(), Some(b"k\0".to_vec()))]);
}

#[test]
fn a_prefix_stops_at_the_next_prefix() {
    let r = bounds(&table("access_logs_by_user").key, &[s("dave")]).unwrap();
    assert_eq!(r, vec![(b"dave|".to_vec(), Some(b"dave}".to_vec()))]);
}

#[test]
fn refusals_name_the_component() {
    let key = &table("access_logs_by_user").key;
    let e = bounds(key, &[s("dave"), None, s("x")]).unwrap_err();
    assert!(e.to_string().contains("system_id"), "{e}");
    let e = bounds(key, &[srange("a", "b")]).unwrap_err();
    assert!(e.to_string().contains("more components follow"), "{e}");
    let e = bounds(&table("social_usage").key, &[srange("k", "j")]).unwrap_err();
    assert!(e.to_string().contains("above its high"), "{e}");
    let e = bounds(&table("counters").key, &[srange("a", "b")]).unwrap_err();
    assert!(e.to_string().contains("escapes"), "{e}");
}

/// The refusals the example schemas have no table for: a separated number without a width, a
/// separated bytes component followed by another, an escaped string whose charset cannot hold
/// the separator (accepted).
#[test]
fn refusals_beyond_the_examples() {
    let schema = r#"
package = "bounds_test"

[tables.loose]
[tables.loose.families.f]
columns.v = { qualifier = "v", type = "string" }

[tables.loose.key]
layout = "separated"
separator = "|"
components = [
    { name = "blob", type = "bytes" },
    { name = "code", type = "string", charset = "word", escape = true },
    { name = "count", type = "i64" },
]
"#;
    let model = load_sources(&[(PathBuf::from("loose.toml"), schema.to_string())], None).unwrap();
    let key = &model.tables[0].key;
    let range = |lo: i64, hi: i64| {
        Some(Given::Range {
            low: Value::Int(lo),
            high: Value::Int(hi),
        })
    };
    let blob = Some(Given::Value(Value::Bytes(vec![0xAB])));
    let e = bounds(key, &[blob.clone(), s("x"), range(1, 9)]).unwrap_err();
    assert!(
        e.to_string().contains("component count: ") && e.to_string().contains("without a width"),
        "{e}"
    );
    let e = bounds(
        key,
        &[Some(Given::Range {
            low: Value::Bytes(vec![1]),
            high: Value::Bytes(vec![2]),
        })],
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("component blob: ")
            && e.to_string().contains("more components follow"),
        "{e}"
    );
    // `code` is followed by `count`, so it is refused as text followed by more; its escape
    // alone would not refuse it (word characters exclude '|').
    let e = bounds(key, &[blob.clone(), srange("a", "b")]).unwrap_err();
    assert!(e.to_string().contains("more components follow"), "{e}");
    let r = bounds(key, &[blob, s("x"), Some(Given::Value(Value::Int(-3)))]).unwrap();
    assert_eq!(r, vec![(b"ab|x|-3".to_vec(), Some(b"ab|x|-3\0".to_vec()))]);
}
