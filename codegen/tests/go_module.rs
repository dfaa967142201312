//! The schema's `go_module`: the Go SDK's module path, checked and agreed between files.

use std::path::PathBuf;

use redbase_codegen::model::load_sources;
use redbase_codegen::CodegenError;

const TABLE: &str = r#"
[tables.orders.families.o]
columns.total = { qualifier = "t", type = "f64" }

[tables.orders.key]
layout = "separated"
separator = "|"
components = [{ name = "customer", type = "string", charset = "alnum" }]
"#;

fn load(files: &[(&str, &str)]) -> Result<redbase_codegen::model::Model, CodegenError> {
    let sources: Vec<(PathBuf, String)> = files
        .iter()
        .enumerate()
        .map(|(i, (name, head))| {
            let table = TABLE.replace("tables.orders", &format!("tables.orders{i}"));
            (PathBuf::from(name), format!("{head}\n{table}"))
        })
        .collect();
    load_sources(&sources, None)
}

fn error(files: &[(&str, &str)]) -> String {
    match load(files) {
        Err(CodegenError::Schema(e)) => {
            assert_eq!(e.len(), 1, "{e:?}");
            assert_eq!(e[0].field, "go_module");
            e[0].to_string()
        }
        other => panic!("expected a go_module error, got {other:?}"),
    }
}

#[test]
fn defaults_to_the_package_and_takes_the_schema_path() {
    let m = load(&[("a.toml", "package = \"shop\"")]).unwrap();
    assert_eq!(m.go_module, "shop");
    let m = load(&[(
        "a.toml",
        "package = \"shop\"\ngo_module = \"github.com/acme/shop-sdk\"",
    )])
    .unwrap();
    assert_eq!(m.go_module, "github.com/acme/shop-sdk");
}

#[test]
fn refuses_bad_paths_major_suffixes_and_disagreement() {
    let e = error(&[(
        "a.toml",
        "package = \"shop\"\ngo_module = \"github.com/acme shop\"",
    )]);
    assert!(e.contains("a.toml:2") && e.contains("module path"), "{e}");
    let e = error(&[(
        "a.toml",
        "package = \"shop\"\ngo_module = \"github.com/acme/shop/v2\"",
    )]);
    assert!(e.contains("major version"), "{e}");
    let e = error(&[
        (
            "a.toml",
            "package = \"shop\"\ngo_module = \"example.com/a\"",
        ),
        (
            "b.toml",
            "package = \"shop\"\ngo_module = \"example.com/b\"",
        ),
    ]);
    assert!(e.contains("b.toml") && e.contains("differs"), "{e}");
}
