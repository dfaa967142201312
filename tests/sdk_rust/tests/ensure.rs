//! `ensure()` at start-up against a real Thrift2 gateway (REDBASE_SDK_TARGET): it creates a
//! missing table, adds missing families and sets drifted family settings as the schema says,
//! and fails with `Error::SchemaDrift`, listing every difference it will not fix (a family the
//! schema lacks, other split points). The drift is made behind the SDK's back with
//! `redbase shell` (REDBASE_BIN, default target/debug/redbase).

use std::process::Command;
use std::sync::{Mutex, MutexGuard};

use redbase_examples::*;

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn shell(command: &str) {
    let bin = std::env::var("REDBASE_BIN").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/debug/redbase").to_string()
    });
    let (host, port) = sdk_rust_tests::target();
    let out = Command::new(bin)
        .args([
            "shell",
            "-n",
            "--thrift2",
            &format!("{host}:{port}"),
            "-e",
            command,
        ])
        .output()
        .expect("run redbase shell");
    assert!(
        out.status.success(),
        "{command}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The table's name on the suite's connections (with the suite's table prefix).
fn name_of(def: &redbase_examples::runtime::client::TableDef) -> String {
    let prefix = std::env::var("REDBASE_SDK_TABLE_PREFIX").unwrap_or_default();
    format!("{prefix}{}", def.name)
}

/// Drops the table if it exists, without creating it.
fn missing<'c, T: TypedTable<'c>>(conn: &'c mut Connection) -> T {
    let mut t = T::new(conn);
    if t.exists().unwrap() {
        t.drop_table().unwrap();
    }
    t
}

#[test]
fn ensure_creates_sets_and_adds_but_never_drops() {
    let _g = serial();
    let mut conn = sdk_rust_tests::connect();
    let name = name_of(&redbase_examples::social_usage::DEFINITION);
    let shown = format!("default:{name}");
    let mut social: SocialUsageTable = missing(&mut conn);
    assert_eq!(
        social.ensure().unwrap(),
        [format!(
            "{shown}: created the table with its families and split keys"
        )]
    );
    assert!(social.ensure().unwrap().is_empty());
    shell(&format!(
        "alter '{name}', {{NAME => 'fb', VERSIONS => 7, TTL => 60}}, {{NAME => 'tw', METHOD => 'delete'}}"
    ));
    assert_eq!(
        social.ensure().unwrap(),
        [
            format!("{shown}: family fb: VERSIONS was 7, set to 1"),
            format!("{shown}: family fb: TTL was 60, set to FOREVER"),
            format!("{shown}: added family tw"),
        ]
    );
    assert!(social.ensure().unwrap().is_empty(), "the table matches now");
    shell(&format!("alter '{name}', {{NAME => 'x'}}"));
    match social.ensure() {
        Err(Error::SchemaDrift { drifts, .. }) => {
            assert_eq!(drifts, ["extra family x (not in the schema)"])
        }
        other => panic!("expected schema drift, got {other:?}"),
    }
    social.drop_table().unwrap();
}

#[test]
fn ensure_refuses_other_split_points() {
    let _g = serial();
    let mut conn = sdk_rust_tests::connect();
    let name = name_of(&redbase_examples::events::DEFINITION);
    let mut events: EventsTable = missing(&mut conn);
    shell(&format!("create '{name}', 'e', SPLITS => ['m']"));
    let e = events.ensure().unwrap_err();
    assert!(
        e.to_string()
            .contains("split points are ['m'], the schema says ['b', 'c', 'd']"),
        "{e}"
    );
    events.drop_table().unwrap();
}
