//! Parsed schemas → `Model`: every check that makes a schema invalid, each error pointing at
//! the file, line and field. All errors of all files are collected, not just the first.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;

use super::*;
use crate::error::{CodegenError, SchemaError};
use crate::schema::{self, RawSchema, RawSplitKey, RawTable};

/// Parses and validates schema texts into one model, tables sorted by id. `package` overrides
/// the files' `package` (which must otherwise agree; default: the first file's stem). Split
/// keys are left to derive (`splits_derived`, no keys) where the schema gives none.
pub(crate) fn validate(
    sources: &[(PathBuf, String)],
    package: Option<&str>,
) -> Result<Model, CodegenError> {
    let mut errors = Vec::new();
    let mut tables: Vec<Table> = Vec::new();
    let mut packages: Vec<(String, SchemaError)> = Vec::new();
    let mut versions: Vec<(String, SchemaError)> = Vec::new();
    let mut go_modules: Vec<(String, SchemaError)> = Vec::new();
    for (file, text) in sources {
        let mut cx = Cx {
            file,
            text,
            errors: Vec::new(),
        };
        // Every unknown, missing or mistyped field first (serde would stop at the first).
        let shape = crate::shape::check(file, text);
        if !shape.is_empty() {
            errors.extend(shape);
            continue;
        }
        match schema::parse(file, text) {
            Err(e) => errors.push(e),
            Ok(raw) => {
                cx.schema(&raw, &mut tables, &mut packages, &mut versions);
                cx.go_module(&raw, &mut go_modules);
                errors.append(&mut cx.errors);
            }
        }
    }
    let package = match package {
        Some(p) => p.to_string(),
        None => {
            let first = packages.first().map(|(p, _)| p.clone()).or_else(|| {
                sources.first().and_then(|(f, _)| {
                    f.file_stem()
                        .map(|s| heck::ToSnakeCase::to_snake_case(&*s.to_string_lossy()))
                })
            });
            for (p, at) in &packages {
                if Some(p) != first.as_ref() {
                    let mut e = at.clone();
                    e.message = format!(
                        "package {p:?} differs from {:?} in another file; pass --package",
                        first.clone().unwrap_or_default()
                    );
                    errors.push(e);
                }
            }
            first.unwrap_or_else(|| "tables".to_string())
        }
    };
    if !is_ident(&package) {
        errors.push(SchemaError {
            file: PathBuf::new(),
            line: 0,
            column: 0,
            field: "package".into(),
            message: format!("package {package:?} must be snake_case ([a-z][a-z0-9_]*)"),
        });
    }
    let version = agreed_version(&versions, &mut errors);
    let go_module = agreed_go_module(&go_modules, &mut errors).unwrap_or_else(|| package.clone());
    if !errors.is_empty() {
        return Err(CodegenError::Schema(errors));
    }
    tables.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Model {
        package,
        version,
        go_module,
        tables,
    })
}

/// The files' `go_module` (every file that gives one must agree; a path of `/`-separated
/// elements of letters, digits and `._~-`, without a `/vN` suffix, which codegen adds).
fn agreed_go_module(
    modules: &[(String, SchemaError)],
    errors: &mut Vec<SchemaError>,
) -> Option<String> {
    let (first, _) = modules.first()?;
    for (m, at) in modules {
        let elements_ok = !m.is_empty()
            && m.split('/').all(|e| {
                !e.is_empty()
                    && e.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._~-".contains(c))
            });
        let last = m.rsplit('/').next().unwrap_or("");
        let versioned = last.len() > 1
            && last.starts_with('v')
            && last[1..].chars().all(|c| c.is_ascii_digit());
        let mut e = at.clone();
        if !elements_ok {
            e.message = format!(
                "go_module {m:?} must be a module path such as \"github.com/acme/logs-sdk\""
            );
        } else if versioned {
            e.message = format!(
                "go_module {m:?} must not end in a major version: codegen appends /vN from the version"
            );
        } else if m != first {
            e.message = format!("go_module {m:?} differs from {first:?} in another file");
        } else {
            continue;
        }
        errors.push(e);
    }
    Some(first.clone())
}

/// The files' `version` (every file that gives one must agree, each `MAJOR.MINOR.PATCH` with
/// no leading zeros, as semver and every package registry accept), default `0.1.0`.
fn agreed_version(versions: &[(String, SchemaError)], errors: &mut Vec<SchemaError>) -> String {
    let Some((first, _)) = versions.first() else {
        return "0.1.0".to_string();
    };
    for (v, at) in versions {
        let mut e = at.clone();
        if !is_semver(v) {
            e.message = format!("version {v:?} must be MAJOR.MINOR.PATCH (e.g. \"1.4.0\")");
            errors.push(e);
        } else if v != first {
            e.message = format!("version {v:?} differs from {first:?} in another file");
            errors.push(e);
        }
    }
    first.clone()
}

/// `MAJOR.MINOR.PATCH`, decimal, no leading zeros.
pub(crate) fn is_semver(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 9
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        })
}

/// Lowercase identifier: `[a-z][a-z0-9_]*`.
pub(crate) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

pub(super) struct Cx<'a> {
    file: &'a Path,
    text: &'a str,
    pub(super) errors: Vec<SchemaError>,
}

impl Cx<'_> {
    pub(super) fn err(&mut self, span: Range<usize>, field: &str, message: impl Into<String>) {
        let (line, column) = schema::line_col(self.text, span.start);
        self.errors.push(SchemaError {
            file: self.file.to_path_buf(),
            line,
            column,
            field: field.to_string(),
            message: message.into(),
        });
    }

    /// Collects the file's `go_module`, with where it is for errors.
    fn go_module(&mut self, raw: &RawSchema, modules: &mut Vec<(String, SchemaError)>) {
        if let Some(m) = &raw.go_module {
            let (line, column) = schema::line_col(self.text, m.span().start);
            modules.push((
                m.get_ref().clone(),
                SchemaError {
                    file: self.file.to_path_buf(),
                    line,
                    column,
                    field: "go_module".into(),
                    message: String::new(),
                },
            ));
        }
    }

    fn schema(
        &mut self,
        raw: &RawSchema,
        tables: &mut Vec<Table>,
        packages: &mut Vec<(String, SchemaError)>,
        versions: &mut Vec<(String, SchemaError)>,
    ) {
        if let Some(v) = &raw.version {
            let (line, column) = schema::line_col(self.text, v.span().start);
            versions.push((
                v.get_ref().clone(),
                SchemaError {
                    file: self.file.to_path_buf(),
                    line,
                    column,
                    field: "version".into(),
                    message: String::new(),
                },
            ));
        }
        if let Some(p) = &raw.package {
            let (line, column) = schema::line_col(self.text, p.span().start);
            packages.push((
                p.get_ref().clone(),
                SchemaError {
                    file: self.file.to_path_buf(),
                    line,
                    column,
                    field: "package".into(),
                    message: String::new(),
                },
            ));
        }
        if raw.tables.is_empty() {
            self.err(0..0, "tables", "the schema declares no tables");
        }
        for (id, t) in &raw.tables {
            let path = format!("tables.{id}");
            if !is_ident(id) {
                self.err(
                    t.span(),
                    &path,
                    "table ids must be snake_case ([a-z][a-z0-9_]*)",
                );
                continue;
            }
            if let Some(table) = self.table(id, t.get_ref(), t.span(), &path) {
                if let Some(other) = tables.iter().find(|o| {
                    o.id == table.id || (o.namespace == table.namespace && o.name == table.name)
                }) {
                    let msg = format!(
                        "duplicate table: {}:{} is already declared as tables.{} in {}",
                        table.namespace,
                        table.name,
                        other.id,
                        other.source.display()
                    );
                    self.err(t.span(), &path, msg);
                } else {
                    tables.push(table);
                }
            }
        }
    }

    fn table(&mut self, id: &str, t: &RawTable, span: Range<usize>, path: &str) -> Option<Table> {
        let before = self.errors.len();
        let name = t
            .name
            .as_ref()
            .map_or(id.replace('_', "-"), |n| n.get_ref().clone());
        if !valid_table_name(&name) {
            let at = t.name.as_ref().map_or(span.clone(), Spanned::span);
            self.err(
                at,
                &format!("{path}.name"),
                format!("{name:?} is not an HBase table name ([A-Za-z0-9_.-], not starting with . or -)"),
            );
        }
        let namespace = t
            .namespace
            .as_ref()
            .map_or("default".to_string(), |n| n.get_ref().clone());
        if namespace.is_empty()
            || !namespace
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            let at = t.namespace.as_ref().map_or(span.clone(), Spanned::span);
            self.err(
                at,
                &format!("{path}.namespace"),
                format!("{namespace:?} is not an HBase namespace ([A-Za-z0-9_]+)"),
            );
        }
        if t.families.is_empty() {
            self.err(
                span.clone(),
                &format!("{path}.families"),
                "a table needs at least one family",
            );
        }
        let mut families = Vec::new();
        let mut fields: BTreeMap<String, String> = BTreeMap::new();
        for (fname, f) in &t.families {
            let fpath = format!("{path}.families.{fname}");
            if let Some(fam) = self.family(fname, f.get_ref(), f.span(), &fpath) {
                for c in &fam.columns {
                    if c.field == "key" {
                        self.err(
                            f.span(),
                            &format!("{fpath}.columns.key"),
                            "`key` is reserved for the row key",
                        );
                    }
                    if let Some(other) = fields.insert(c.field.clone(), fname.clone()) {
                        self.err(
                            f.span(),
                            &format!("{fpath}.columns.{}", c.field),
                            format!(
                                "duplicate field name {:?}: also a column of family {other}",
                                c.field
                            ),
                        );
                    }
                }
                families.push(fam);
            }
        }
        let key = self.key(id, t.key.get_ref(), t.key.span(), &format!("{path}.key"));
        let (splits, splits_derived) = match &t.splits {
            Some(s) => (
                self.splits(&s.get_ref().keys, s.span(), &format!("{path}.splits.keys")),
                false,
            ),
            None => (Vec::new(), true),
        };
        if self.errors.len() > before {
            return None;
        }
        Some(Table {
            id: id.to_string(),
            namespace,
            name,
            doc: t.doc.clone().unwrap_or_default().trim().to_string(),
            source: self.file.to_path_buf(),
            families,
            key: key?,
            splits,
            splits_derived,
        })
    }

    fn splits(
        &mut self,
        keys: &[Spanned<RawSplitKey>],
        _span: Range<usize>,
        path: &str,
    ) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            let bytes = match k.get_ref() {
                RawSplitKey::Text(t) => t.as_bytes().to_vec(),
                RawSplitKey::Hex { hex } => match crate::hex::decode(hex) {
                    Some(b) => b,
                    None => {
                        self.err(
                            k.span(),
                            &format!("{path}[{i}]"),
                            format!("{hex:?} is not hex"),
                        );
                        continue;
                    }
                },
            };
            if bytes.is_empty() {
                self.err(
                    k.span(),
                    &format!("{path}[{i}]"),
                    "a split key cannot be empty",
                );
            } else if out.last().is_some_and(|p| *p >= bytes) {
                self.err(
                    k.span(),
                    &format!("{path}[{i}]"),
                    "split keys must be strictly ascending",
                );
            }
            out.push(bytes);
        }
        out
    }

    pub(super) fn scalar(&mut self, ty: &Spanned<String>, path: &str) -> Option<ScalarType> {
        let t = ScalarType::parse(ty.get_ref());
        if t.is_none() {
            let names: Vec<_> = ScalarType::ALL.iter().map(|t| t.name()).collect();
            self.err(
                ty.span(),
                path,
                format!(
                    "unknown type {:?} (one of {})",
                    ty.get_ref(),
                    names.join(", ")
                ),
            );
        }
        t
    }

    pub(super) fn int_in(
        &mut self,
        v: &Option<Spanned<i64>>,
        min: i64,
        max: i64,
        path: &str,
    ) -> Option<i64> {
        let v = v.as_ref()?;
        if (min..=max).contains(v.get_ref()) {
            Some(*v.get_ref())
        } else {
            self.err(
                v.span(),
                path,
                format!("{} out of range {min}..={max}", v.get_ref()),
            );
            None
        }
    }

    pub(super) fn choice(
        &mut self,
        v: &Option<Spanned<String>>,
        allowed: &[&str],
        path: &str,
    ) -> Option<String> {
        let v = v.as_ref()?;
        if allowed.contains(&v.get_ref().as_str()) {
            Some(v.get_ref().to_uppercase())
        } else {
            self.err(
                v.span(),
                path,
                format!(
                    "unknown value {:?} (one of {})",
                    v.get_ref(),
                    allowed.join(", ")
                ),
            );
            None
        }
    }
}

fn valid_table_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['.', '-'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}
