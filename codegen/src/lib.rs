//! redbase's SDK generator: table schema files (TOML) → a validated model → typed client SDKs
//! whose row-key helpers produce the same bytes in every language.
//!
//! Stages: `schema` (the file as written, with spans) → `model` (validated, sorted) → `splits`
//! (derived split keys; `load` runs these three) → `render` (a typed template context, then one
//! naming provider and one template folder per language). `keys` (row keys) and `cells` (cell
//! values, pattern qualifiers) are the reference encodings every SDK must match, over the
//! `typed_value::Value`s SDKs hold; `vectors` turns them into the shared test vectors.
//! `filters` renders the SDKs' typed filters into HBase's filter language, `bounds` gives the
//! start and stop rows of key bounds by component, `merge` orders salted scans by the key
//! without its salt, `drift` holds the schema-drift rules and `shape` the whole-file shape check
//! of schemas: all references the SDKs are tested against. `vectors` writes `keys.json`,
//! `values.json`, `filters.json`, `bounds.json` and `merge.json`.
#![forbid(unsafe_code)]

pub mod bounds;
pub mod cells;
pub mod drift;
pub mod error;
pub mod filters;
pub mod hex;
pub mod keys;
mod load;
pub mod merge;
pub mod model;
pub mod schema;
mod shape;
pub mod splits;
pub mod typed_value;
pub mod vectors;

pub use error::{CodegenError, EncodeError, SchemaError};
pub use load::{load, load_sources};
pub use model::Model;
pub use typed_value::Value;
pub mod render;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use render::{generate, language, languages, write_files, Language};

/// The package the example SDKs under `sdks/` are generated as.
pub const EXAMPLES_PACKAGE: &str = "redbase_examples";

/// What the `redbase codegen` command was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Schema files (one SDK from all of them).
    pub schemas: Vec<PathBuf>,
    /// Target language (`python`, ...).
    pub lang: Option<String>,
    /// Output directory of the SDK.
    pub out: Option<PathBuf>,
    /// Package name overriding the schemas' `package`.
    pub package: Option<String>,
    /// Regenerate everything under `<root>/sdks/` from `<root>/sdks/schemas/*.toml`.
    pub all: bool,
    /// The repository root for `all`.
    pub root: PathBuf,
    /// Change nothing; fail if any file would change.
    pub check: bool,
}

/// Runs the command; returns the files written (or, with `check`, that would be).
pub fn run(opts: &Options) -> Result<Vec<PathBuf>, CodegenError> {
    let (out, files) = if opts.all {
        let sdks = opts.root.join("sdks");
        (sdks, examples(&opts.root)?)
    } else {
        let lang = language(
            opts.lang
                .as_deref()
                .ok_or_else(|| CodegenError::Usage("--lang is required (or --all)".into()))?,
        )?;
        let out = opts
            .out
            .clone()
            .ok_or_else(|| CodegenError::Usage("--out is required (or --all)".into()))?;
        if opts.schemas.is_empty() {
            return Err(CodegenError::Usage("give at least one --schema".into()));
        }
        let model = load(&opts.schemas, opts.package.as_deref())?;
        (out, generate(&model, lang)?)
    };
    if opts.check {
        Ok(differences(&out, &files))
    } else {
        write_files(&out, &files)
    }
}

/// The example schemas, sorted: `<root>/sdks/schemas/*.toml`.
pub fn example_schemas(root: &Path) -> Result<Vec<PathBuf>, CodegenError> {
    let dir = root.join("sdks/schemas");
    let entries = std::fs::read_dir(&dir).map_err(|source| CodegenError::Io {
        path: dir.clone(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Everything under `sdks/` that the example schemas generate, relative to `sdks/`:
/// `<lang>/...` for every language and `vectors/*.json`.
pub fn examples(root: &Path) -> Result<BTreeMap<PathBuf, String>, CodegenError> {
    let schemas = example_schemas(root)?;
    // Paths in the model (and so in errors) relative to the root, the same on every machine.
    let rel: Vec<PathBuf> = schemas
        .iter()
        .map(|p| p.strip_prefix(root).map_or(p.clone(), Path::to_path_buf))
        .collect();
    let mut sources = Vec::new();
    for (abs, rel) in schemas.iter().zip(rel) {
        let text = std::fs::read_to_string(abs).map_err(|source| CodegenError::Io {
            path: abs.clone(),
            source,
        })?;
        sources.push((rel, text));
    }
    let model = load_sources(&sources, Some(EXAMPLES_PACKAGE))?;
    let mut all = BTreeMap::new();
    for lang in languages() {
        for (path, text) in generate(&model, *lang)? {
            all.insert(Path::new(lang.name()).join(path), text);
        }
    }
    for (path, text) in vectors::build(&model) {
        all.insert(Path::new("vectors").join(path), text);
    }
    Ok(all)
}

/// Paths under `out` whose content differs from `files`, and generated files there that
/// `files` no longer has.
pub fn differences(out: &Path, files: &BTreeMap<PathBuf, String>) -> Vec<PathBuf> {
    let mut diff: Vec<PathBuf> = files
        .iter()
        .filter(|(rel, text)| {
            std::fs::read_to_string(out.join(rel)).ok().as_deref() != Some(text.as_str())
        })
        .map(|(rel, _)| rel.clone())
        .collect();
    diff.extend(render::stale_generated(out, files));
    diff
}
