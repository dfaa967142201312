//! Every way a schema can be invalid fails with the file, line and field named.

use std::path::PathBuf;

use redbase_codegen::model::load_sources;
use redbase_codegen::{CodegenError, SchemaError};

/// A valid table; tests splice one bad line in.
const BASE: &str = r#"package = "shop"

[tables.orders]
[tables.orders.families.o]
columns.total = { qualifier = "t", type = "f64" }

[tables.orders.key]
layout = "separated"
separator = "|"
components = [
    { name = "customer", type = "string", charset = "alnum" },
    { name = "day", type = "i32", width = 8 },
]
"#;

fn errors(text: &str) -> Vec<SchemaError> {
    match load_sources(&[(PathBuf::from("shop.toml"), text.to_string())], None) {
        Err(CodegenError::Schema(e)) => e,
        Err(other) => panic!("expected schema errors, got {other}"),
        Ok(_) => panic!("expected schema errors, the schema loaded:\n{text}"),
    }
}

/// The single error of `text`: its field, line and message must match.
fn expect(text: &str, field: &str, line: usize, needle: &str) {
    let errs = errors(text);
    let e = errs
        .iter()
        .find(|e| e.field == field)
        .unwrap_or_else(|| panic!("no error for {field}: {errs:?}"));
    assert_eq!(e.file, PathBuf::from("shop.toml"));
    assert_eq!(e.line, line, "{e}");
    assert!(e.column >= 1, "{e}");
    assert!(e.message.contains(needle), "{e} lacks {needle:?}");
    let shown = e.to_string();
    assert!(shown.starts_with(&format!("shop.toml:{line}:")), "{shown}");
    assert!(shown.contains(field), "{shown}");
}

fn with(old: &str, new: &str) -> String {
    assert!(BASE.contains(old), "{old}");
    BASE.replacen(old, new, 1)
}

#[test]
fn the_base_schema_is_valid() {
    let m = load_sources(&[(PathBuf::from("shop.toml"), BASE.to_string())], None).unwrap();
    assert_eq!(m.package, "shop");
    assert_eq!(m.tables[0].name, "orders");
    assert_eq!(m.tables[0].namespace, "default");
}

#[test]
fn unknown_column_type() {
    expect(
        &with(r#"type = "f64""#, r#"type = "float64""#),
        "tables.orders.families.o.columns.total.type",
        5,
        "unknown type \"float64\"",
    );
}

#[test]
fn unknown_component_type() {
    expect(
        &with(r#"type = "i32""#, r#"type = "int""#),
        "tables.orders.key.components[1].type",
        12,
        "unknown type",
    );
}

#[test]
fn unknown_field_is_a_syntax_error_with_position() {
    let errs = errors(&with(
        "layout = \"separated\"",
        "layout = \"separated\"\ncolour = 1",
    ));
    assert_eq!(errs[0].line, 9, "{}", errs[0]);
    assert!(errs[0].message.contains("colour"), "{}", errs[0]);
}

#[test]
fn duplicate_component_names() {
    expect(
        &with(r#"name = "day""#, r#"name = "customer""#),
        "tables.orders.key.components[1].name",
        12,
        "duplicate component name",
    );
}

#[test]
fn duplicate_table_names_across_files() {
    let other = BASE
        .replace("[tables.orders", "[tables.orders2")
        .replace("[tables.orders2]", "[tables.orders2]\nname = \"orders\"");
    let e = match load_sources(
        &[
            (PathBuf::from("shop.toml"), BASE.to_string()),
            (PathBuf::from("more.toml"), other),
        ],
        None,
    ) {
        Err(CodegenError::Schema(e)) => e,
        _ => panic!("expected a duplicate"),
    };
    assert_eq!(e[0].file, PathBuf::from("more.toml"));
    assert_eq!(e[0].field, "tables.orders2");
    assert!(e[0].message.contains("duplicate table"), "{}", e[0]);
}

#[test]
fn duplicate_qualifiers_and_fields() {
    let text = with(
        "columns.total = { qualifier = \"t\", type = \"f64\" }",
        "columns.total = { qualifier = \"t\", type = \"f64\" }\ncolumns.tax = { qualifier = \"t\", type = \"f64\" }",
    );
    expect(
        &text,
        "tables.orders.families.o.columns.total.qualifier",
        5,
        "duplicate qualifier",
    );
}

#[test]
fn hash_over_a_missing_component() {
    let text = with(
        "layout = \"separated\"",
        "layout = \"separated\"\nhash = { components = [\"nobody\"], hex_chars = 4, keep = true }",
    );
    expect(
        &text,
        "tables.orders.key.hash.components[0]",
        9,
        "no key component named \"nobody\"",
    );
}

#[test]
fn separator_inside_an_unescaped_string() {
    expect(
        &with(r#"charset = "alnum""#, r#"charset = "any""#),
        "tables.orders.key.components[0].charset",
        11,
        "can appear inside string component",
    );
}

#[test]
fn salt_buckets_out_of_range() {
    let text = with(
        "layout = \"separated\"",
        "layout = \"separated\"\nsalt = { buckets = 300, encoding = \"byte\" }",
    );
    expect(
        &text,
        "tables.orders.key.salt.buckets",
        9,
        "out of range 2..=256",
    );
    let text = with(
        "layout = \"separated\"",
        "layout = \"separated\"\nsalt = { buckets = 5, encoding = \"char\", alphabet = \"abcd\" }",
    );
    expect(
        &text,
        "tables.orders.key.salt.buckets",
        9,
        "out of range 2..=4",
    );
}

#[test]
fn salt_alphabet_with_the_separator() {
    let text = with(
        "layout = \"separated\"",
        "layout = \"separated\"\nsalt = { buckets = 2, encoding = \"char\", alphabet = \"a|\" }",
    );
    expect(
        &text,
        "tables.orders.key.salt.alphabet",
        9,
        "contains the separator",
    );
}

#[test]
fn width_that_does_not_fit_the_type() {
    expect(
        &with("width = 8", "width = 11"),
        "tables.orders.key.components[1].width",
        12,
        "out of range 1..=10",
    );
}

#[test]
fn floats_need_the_binary_layout() {
    expect(
        &with(r#"type = "i32", width = 8"#, r#"type = "f64""#),
        "tables.orders.key.components[1].type",
        12,
        "binary layout",
    );
}

#[test]
fn desc_on_a_text_string() {
    expect(
        &with(
            r#"charset = "alnum""#,
            r#"charset = "alnum", order = "desc""#,
        ),
        "tables.orders.key.components[0].order",
        11,
        "desc needs the binary layout",
    );
}

#[test]
fn raw_hash_bytes_in_the_separated_layout() {
    let text = with(
        "layout = \"separated\"",
        "layout = \"separated\"\nhash = { components = [\"customer\"], bytes = 4, keep = false }",
    );
    expect(&text, "tables.orders.key.hash.bytes", 9, "use hex_chars");
}

#[test]
fn bad_family_settings() {
    let text = with(
        "[tables.orders.families.o]",
        "[tables.orders.families.o]\nmax_versions = 0\ncompression = \"zip\"",
    );
    expect(
        &text,
        "tables.orders.families.o.max_versions",
        5,
        "out of range",
    );
    expect(
        &text,
        "tables.orders.families.o.compression",
        6,
        "unknown value \"zip\"",
    );
}

#[test]
fn split_keys_must_ascend() {
    let text = format!("{BASE}\n[tables.orders.splits]\nkeys = [\"b\", \"a\"]\n");
    expect(
        &text,
        "tables.orders.splits.keys[1]",
        16,
        "strictly ascending",
    );
}

#[test]
fn fixed_layout_needs_widths() {
    expect(
        &with(
            "layout = \"separated\"\nseparator = \"|\"",
            "layout = \"fixed\"",
        ),
        "tables.orders.key.components[0].width",
        10,
        "needs a width",
    );
}

#[test]
fn several_errors_are_all_reported() {
    let text = with(r#"type = "f64""#, r#"type = "money""#).replace("width = 8", "width = 0");
    assert!(errors(&text).len() >= 2);
}

/// All errors of `text`, as the command prints them.
fn shown(text: &str) -> Vec<String> {
    errors(text).iter().map(ToString::to_string).collect()
}

#[test]
fn a_missing_field_names_its_full_path() {
    let text = with(
        r#"{ name = "day", type = "i32", width = 8 }"#,
        r#"{ type = "i32", width = 8 }"#,
    );
    assert_eq!(
        shown(&text),
        ["shop.toml:12:5: tables.orders.key.components[1].name: missing field `name`"]
    );
    // A table declared by a [header] is found by its header.
    assert_eq!(
        shown(&with("layout = \"separated\"\n", "")),
        ["shop.toml:7:1: tables.orders.key.layout: missing field `layout`"]
    );
}

#[test]
fn shape_errors_name_the_field() {
    assert_eq!(
        shown(&with("width = 8", "width = \"8\"")),
        ["shop.toml:12:43: tables.orders.key.components[1].width: invalid type: string \"8\", expected i64"]
    );
    let unknown = shown(&with(
        "layout = \"separated\"",
        "layout = \"separated\"\ncolour = 1",
    ));
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert!(
        unknown[0].starts_with("shop.toml:9:1: tables.orders.key.colour: unknown field `colour`"),
        "{unknown:?}"
    );
}

/// The issue's case: access-logs' hashed `user_id` without a charset is one error, at the
/// charset, not also "no key component named" from the hash that names it.
#[test]
fn a_refused_component_has_no_follow_on_errors() {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sdks/schemas/access_logs.toml"
    ))
    .unwrap();
    let hashed = "[tables.access_logs.key]\nlayout = \"separated\"\nseparator = \"|\"\ncomponents = [\n    { name = \"user_id\", type = \"string\", charset = \"word\" },";
    assert!(base.contains(hashed));
    let text = base.replace(
        hashed,
        &hashed.replace(r#", charset = "word" },"#, r#" },"#),
    );
    // The component's line: four lines below the key table's header, wherever that is.
    let line = text[..text.find("[tables.access_logs.key]").unwrap()]
        .lines()
        .count()
        + 5;
    assert_eq!(
        shown(&text),
        [format!(
            "shop.toml:{line}:5: tables.access_logs.key.components[0].charset: the separator '|' \
             can appear inside string component \"user_id\": declare escape = true or a charset \
             without it"
        )]
    );
}

#[test]
fn a_refused_component_does_not_make_the_hash_drop_every_component() {
    let text = with(
        r#"{ name = "day", type = "i32", width = 8 }"#,
        r#"{ name = "day", type = "i32", width = 11 }"#,
    )
    .replace(
        "layout = \"separated\"",
        "layout = \"separated\"\nhash = { components = [\"customer\"], hex_chars = 4, keep = false }",
    );
    assert_eq!(
        shown(&text),
        ["shop.toml:13:43: tables.orders.key.components[1].width: 11 out of range 1..=10"]
    );
}

#[test]
fn allow_empty_applies_to_strings_and_bytes() {
    expect(
        &with("width = 8", "width = 8, allow_empty = true"),
        "tables.orders.key.components[1].allow_empty",
        12,
        "allow_empty applies to string and bytes components",
    );
    let m = load_sources(
        &[(
            PathBuf::from("shop.toml"),
            with(
                r#"charset = "alnum""#,
                r#"charset = "alnum", allow_empty = true"#,
            ),
        )],
        None,
    )
    .unwrap();
    assert!(m.tables[0].key.components[0].allow_empty);
    assert!(!m.tables[0].key.components[1].allow_empty);
}

#[test]
fn version_defaults_and_comes_from_the_schema() {
    let m = load_sources(&[(PathBuf::from("shop.toml"), BASE.to_string())], None).unwrap();
    assert_eq!(m.version, "0.1.0");
    let text = with(
        "package = \"shop\"",
        "package = \"shop\"\nversion = \"2.10.3\"",
    );
    let m = load_sources(&[(PathBuf::from("shop.toml"), text)], None).unwrap();
    assert_eq!(m.version, "2.10.3");
}

#[test]
fn version_must_be_major_minor_patch() {
    for bad in ["1.0", "1.0.0-beta", "01.2.3", "v1.2.3", "1..3"] {
        let text = with(
            "package = \"shop\"",
            &format!("package = \"shop\"\nversion = \"{bad}\""),
        );
        expect(&text, "version", 2, "must be MAJOR.MINOR.PATCH");
    }
}

#[test]
fn versions_of_one_sdk_must_agree() {
    let a = with(
        "package = \"shop\"",
        "package = \"shop\"\nversion = \"1.2.0\"",
    );
    let b = a
        .replace("1.2.0", "1.3.0")
        .replace("tables.orders", "tables.carts");
    let errs = match load_sources(
        &[
            (PathBuf::from("shop.toml"), a),
            (PathBuf::from("carts.toml"), b),
        ],
        None,
    ) {
        Err(CodegenError::Schema(e)) => e,
        other => panic!("expected schema errors, got {:?}", other.map(|m| m.version)),
    };
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].file, PathBuf::from("carts.toml"));
    assert!(
        errs[0].message.contains("differs from \"1.2.0\""),
        "{}",
        errs[0]
    );
}

/// Every shape error (unknown, missing and mistyped fields) of every file comes at once, each
/// with its line and full path, as the docs promise; serde alone stopped at the first.
#[test]
fn every_shape_error_of_every_file_at_once() {
    let one = with(
        r#"{ name = "day", type = "i32", width = 8 }"#,
        r#"{ type = "i32", width = "8", colour = "red" }"#,
    )
    .replace(
        "layout = \"separated\"\n",
        "layout = \"separated\"\nshape = 1\n",
    );
    let two = with(
        "columns.total = { qualifier = \"t\", type = \"f64\" }",
        "columns.total = { qualifier = 7 }",
    );
    let sources = [
        (PathBuf::from("one.toml"), one),
        (PathBuf::from("two.toml"), two),
    ];
    let errs = match load_sources(&sources, None) {
        Err(CodegenError::Schema(e)) => e,
        other => panic!("expected schema errors, got {other:?}"),
    };
    let shown: Vec<String> = errs.iter().map(ToString::to_string).collect();
    for want in [
        "one.toml:9:1: tables.orders.key.shape: unknown field `shape`",
        "one.toml:13:5: tables.orders.key.components[1].name: missing field `name`",
        "one.toml:13:29: tables.orders.key.components[1].width: invalid type: string \"8\", expected i64",
        "one.toml:13:34: tables.orders.key.components[1].colour: unknown field `colour`",
        "two.toml:5:17: tables.orders.families.o.columns.total.type: missing field `type`",
        "two.toml:5:31: tables.orders.families.o.columns.total.qualifier: invalid type: integer `7`, expected a string",
    ] {
        assert!(
            shown.iter().any(|s| s.starts_with(want)),
            "no error {want:?} in {shown:#?}"
        );
    }
    assert_eq!(shown.len(), 6, "{shown:#?}");
    let mut sorted = shown.clone();
    sorted.sort_by_key(|s| {
        let mut parts = s.split(':');
        let file = parts.next().unwrap_or_default().to_string();
        let n = |p: Option<&str>| p.and_then(|x| x.parse::<usize>().ok()).unwrap_or(0);
        (file, n(parts.next()), n(parts.next()))
    });
    assert_eq!(shown, sorted, "each file's errors in line order");
}

/// `keep` is optional and defaults to true: the hashed components stay in the key after the
/// prefix (seed 003's hashing); `keep = false` (seed 000's Table 4) drops them.
#[test]
fn hash_keep_defaults_to_true() {
    let text = with(
        "separator = \"|\"\n",
        "separator = \"|\"\nhash = { components = [\"customer\"], hex_chars = 4 }\n",
    );
    let m = load_sources(&[(PathBuf::from("shop.toml"), text)], None).unwrap();
    let key = &m.tables[0].key;
    assert!(key.hash.as_ref().unwrap().keep);
    assert!(key.components.iter().all(|c| c.kept), "nothing dropped");
}
