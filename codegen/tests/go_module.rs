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

/// The generated Go README tells how to get the module: `go get` for a path with a dot in its
/// first element, a replace directive for one without (which `go get` cannot fetch), and its
/// quick start dials redbase's Thrift2 port (9091), not Thrift1's 9090.
#[test]
fn the_go_readme_says_how_to_get_the_module_and_dials_thrift2() {
    let readme = |head: &str| {
        let m = load(&[("a.toml", head)]).unwrap();
        let files =
            redbase_codegen::generate(&m, redbase_codegen::language("go").unwrap()).unwrap();
        files[&PathBuf::from("README.md")].clone()
    };
    let local = readme("package = \"clouddrive\"");
    assert!(!local.contains("go get clouddrive"), "{local}");
    assert!(
        local.contains("-replace=clouddrive=") && local.contains("no dot"),
        "{local}"
    );
    assert!(
        local.contains("sdk.Dial(ctx, \"127.0.0.1:9091\", nil)"),
        "{local}"
    );
    assert!(!local.contains("127.0.0.1:9090"), "{local}");
    let hosted = readme("package = \"shop\"\ngo_module = \"github.com/acme/shop-sdk\"");
    assert!(
        hosted.contains("go get github.com/acme/shop-sdk@v0.1.0"),
        "{hosted}"
    );
    assert!(!hosted.contains("-replace="), "{hosted}");
}
