//! The SDK generator's schema loader (`redbase_codegen::model::load_sources`: TOML parse and
//! validation): arbitrary and mutated schema text gives a model or errors with positions,
//! never a panic. A model that loads is rendered for every language too.

use std::path::PathBuf;

use proptest::prelude::*;
use redbase_codegen::{generate, languages, model::load_sources};

use super::corpus;
use super::runner::{check, note};

fn examples() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../sdks/schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("sdks/schemas")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// Pieces of schema syntax, inserted at random places.
const FRAGMENTS: &[&str] = &[
    "\n[tables.x]\n",
    "\n[tables.x.key]\nlayout = \"fixed\"\ncomponents = []\n",
    "\n[tables.x.families.f]\n",
    "{ name = \"a\", type = \"i64\" }",
    "{ name = \"b\", type = \"string\", width = -1 }",
    "type = \"bytes\"",
    "width = 9223372036854775807",
    "buckets = 0",
    "hex_chars = 99",
    "separator = \"\"",
    "separator = \"\u{1f600}\"",
    "qualifier = \"{x}{y}\"",
    "qualifier = \"{\"",
    "keys = [{ hex = \"zz\" }, \"a\"]",
    "reverse = \"chars\"",
    "order = \"desc\"",
    "charset = \"word\"",
    "= ",
    "\"",
    "'''",
    "[[",
    "]]",
    "\u{e9}",
    "\r\n",
    "#",
];

fn load(text: &str) {
    let sources = [(PathBuf::from("fuzz.toml"), text.to_string())];
    match load_sources(&sources, None) {
        Ok(model) => {
            for lang in languages() {
                let _ = generate(&model, *lang);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

#[test]
fn schema_examples_load() {
    for text in examples() {
        let sources = [(PathBuf::from("example.toml"), text)];
        load_sources(&sources, None).unwrap();
    }
}

#[test]
fn schema_arbitrary_and_mutated_text() {
    let seeds = examples();
    let refs: Vec<&[u8]> = seeds.iter().map(|s| s.as_bytes()).collect();
    check(
        "schema_arbitrary_and_mutated_text",
        400,
        prop_oneof![
            3 => (corpus::mutations(), prop::collection::vec((any::<usize>(), prop::sample::select(FRAGMENTS)), 0..4))
                .prop_map(Ok),
            1 => prop::collection::vec(any::<u8>(), 0..300).prop_map(Err),
        ],
        |input| {
            let bytes = match input {
                Ok(((i, muts), inserts)) => {
                    let mut b = corpus::apply(refs[i % refs.len()], &muts, &refs);
                    for (at, frag) in inserts {
                        let at = at % (b.len() + 1);
                        b.splice(at..at, frag.bytes());
                    }
                    b
                }
                Err(bytes) => bytes,
            };
            note("schema", &bytes);
            load(&String::from_utf8_lossy(&bytes));
            Ok(())
        },
    );
}
