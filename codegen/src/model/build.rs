//! Raw schema → `Model`: every check that makes a schema invalid, each error pointing at the
//! file, line and field. All errors of all files are collected, not just the first.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;

use super::*;
use crate::error::{CodegenError, SchemaError};
use crate::schema::{self, RawFamily, RawSchema, RawSplitKey, RawTable};

/// Reads, parses and validates schema files into one model. `package` overrides the
/// files' `package` (which must otherwise agree; default: the first file's stem).
pub fn load(files: &[PathBuf], package: Option<&str>) -> Result<Model, CodegenError> {
    let mut sources = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|source| CodegenError::Io {
            path: file.clone(),
            source,
        })?;
        sources.push((file.clone(), text));
    }
    load_sources(&sources, package)
}

/// `load` over texts already in memory (tests, tools).
pub fn load_sources(
    sources: &[(PathBuf, String)],
    package: Option<&str>,
) -> Result<Model, CodegenError> {
    let mut errors = Vec::new();
    let mut tables: Vec<Table> = Vec::new();
    let mut packages: Vec<(String, SchemaError)> = Vec::new();
    for (file, text) in sources {
        let mut cx = Cx {
            file,
            text,
            errors: Vec::new(),
        };
        match schema::parse(file, text) {
            Err(e) => errors.push(e),
            Ok(raw) => {
                cx.schema(&raw, &mut tables, &mut packages);
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
    if !errors.is_empty() {
        return Err(CodegenError::Schema(errors));
    }
    tables.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Model { package, tables })
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

    fn schema(
        &mut self,
        raw: &RawSchema,
        tables: &mut Vec<Table>,
        packages: &mut Vec<(String, SchemaError)>,
    ) {
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
        let key = self.key(t.key.get_ref(), t.key.span(), &format!("{path}.key"));
        let (splits, splits_derived) = match (&t.splits, &key) {
            (Some(s), _) => (
                self.splits(&s.get_ref().keys, s.span(), &format!("{path}.splits.keys")),
                false,
            ),
            (None, Some(k)) => (crate::splits::derive(k), true),
            (None, None) => (Vec::new(), true),
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

    fn family(
        &mut self,
        name: &str,
        f: &RawFamily,
        span: Range<usize>,
        path: &str,
    ) -> Option<Family> {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
        {
            self.err(
                span.clone(),
                path,
                format!("family name {name:?} must be [A-Za-z0-9_.-]+"),
            );
        }
        let max_versions = self
            .int_in(
                &f.max_versions,
                1,
                i32::MAX as i64,
                &format!("{path}.max_versions"),
            )
            .map(|v| v as i32);
        let min_versions = self
            .int_in(
                &f.min_versions,
                0,
                i32::MAX as i64,
                &format!("{path}.min_versions"),
            )
            .map(|v| v as i32);
        if let (Some(min), Some(max), Some(at)) = (min_versions, max_versions, &f.min_versions) {
            if min > max {
                self.err(
                    at.span(),
                    &format!("{path}.min_versions"),
                    format!("min_versions {min} exceeds max_versions {max}"),
                );
            }
        }
        let ttl_seconds = self
            .int_in(
                &f.ttl_seconds,
                1,
                i32::MAX as i64,
                &format!("{path}.ttl_seconds"),
            )
            .map(|v| v as i32);
        let keep_deleted_cells = match &f.keep_deleted_cells {
            None => None,
            Some(k) => match k.get_ref() {
                toml::Value::Boolean(true) => Some("TRUE".into()),
                toml::Value::Boolean(false) => Some("FALSE".into()),
                toml::Value::String(v) if v == "ttl" => Some("TTL".into()),
                _ => {
                    self.err(
                        k.span(),
                        &format!("{path}.keep_deleted_cells"),
                        "must be true, false or \"ttl\"",
                    );
                    None
                }
            },
        };
        let in_memory = f.in_memory;
        let block_cache = f.block_cache;
        let block_size = self
            .int_in(
                &f.block_size,
                1,
                i32::MAX as i64,
                &format!("{path}.block_size"),
            )
            .map(|v| v as i32);
        let bloom_filter = self.choice(
            &f.bloom_filter,
            &["none", "row", "rowcol", "rowprefix_fixed_length"],
            &format!("{path}.bloom_filter"),
        );
        let compression = self.choice(
            &f.compression,
            &["none", "gz", "snappy", "lz4", "zstd", "lzo", "bzip2"],
            &format!("{path}.compression"),
        );
        let data_block_encoding = self.choice(
            &f.data_block_encoding,
            &["none", "prefix", "diff", "fast_diff", "row_index_v1"],
            &format!("{path}.data_block_encoding"),
        );
        let scope = self
            .int_in(&f.scope, 0, 1, &format!("{path}.scope"))
            .map(|v| v as i32);
        let dfs_replication = self
            .int_in(
                &f.dfs_replication,
                1,
                i16::MAX as i64,
                &format!("{path}.dfs_replication"),
            )
            .map(|v| v as i16);
        let configuration = f
            .configuration
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let s = FamilySettings {
            max_versions,
            min_versions,
            ttl_seconds,
            keep_deleted_cells,
            in_memory,
            block_cache,
            block_size,
            bloom_filter,
            compression,
            data_block_encoding,
            scope,
            dfs_replication,
            configuration,
        };

        let mut columns = Vec::new();
        let mut qualifiers = BTreeSet::new();
        let mut patterns = 0;
        for (field, c) in &f.columns {
            let cpath = format!("{path}.columns.{field}");
            let c_span = c.span();
            let c = c.get_ref();
            if !is_ident(field) {
                self.err(
                    c_span.clone(),
                    &cpath,
                    "column field names must be snake_case ([a-z][a-z0-9_]*)",
                );
                continue;
            }
            let Some(ty) = self.scalar(&c.ty, &format!("{cpath}.type")) else {
                continue;
            };
            let qtext = c
                .qualifier
                .as_ref()
                .map_or(field.clone(), |q| q.get_ref().clone());
            let qspan = c.qualifier.as_ref().map_or(c_span.clone(), Spanned::span);
            let qualifier = if qtext.contains('{') || qtext.contains('}') {
                patterns += 1;
                if patterns > 1 {
                    self.err(
                        qspan.clone(),
                        &format!("{cpath}.qualifier"),
                        "a family may have at most one qualifier pattern",
                    );
                }
                let Some((prefix, part_name, suffix)) = split_pattern(&qtext) else {
                    self.err(
                        qspan,
                        &format!("{cpath}.qualifier"),
                        "a pattern holds exactly one {name} with name [a-z][a-z0-9_]*",
                    );
                    continue;
                };
                let part_type = match &c.part_type {
                    None => ScalarType::String,
                    Some(p) => match ScalarType::parse(p.get_ref()) {
                        Some(t @ (ScalarType::String | ScalarType::I32 | ScalarType::I64)) => t,
                        _ => {
                            self.err(
                                p.span(),
                                &format!("{cpath}.part_type"),
                                format!("unknown part type {:?} (string, i32 or i64)", p.get_ref()),
                            );
                            continue;
                        }
                    },
                };
                let part_width = match &c.part_width {
                    Some(w) if part_type == ScalarType::String => {
                        self.err(
                            w.span(),
                            &format!("{cpath}.part_width"),
                            "part_width applies to i32 and i64 parts",
                        );
                        None
                    }
                    Some(_) => {
                        let max = if part_type == ScalarType::I32 { 10 } else { 19 };
                        self.int_in(&c.part_width, 1, max, &format!("{cpath}.part_width"))
                            .map(|v| v as u32)
                    }
                    None => None,
                };
                Qualifier::Pattern {
                    prefix,
                    part_name,
                    part_type,
                    part_width,
                    suffix,
                }
            } else {
                for (name, v) in [
                    ("part_type", c.part_type.as_ref().map(Spanned::span)),
                    ("part_width", c.part_width.as_ref().map(Spanned::span)),
                ] {
                    if let Some(at) = v {
                        self.err(
                            at,
                            &format!("{cpath}.{name}"),
                            format!("{name} applies to qualifier patterns only"),
                        );
                    }
                }
                if !qualifiers.insert(qtext.clone()) {
                    self.err(
                        qspan,
                        &format!("{cpath}.qualifier"),
                        format!("duplicate qualifier {qtext:?} in family {name}"),
                    );
                }
                Qualifier::Fixed { qualifier: qtext }
            };
            columns.push(Column {
                field: field.clone(),
                doc: c.doc.clone().unwrap_or_default().trim().to_string(),
                ty,
                qualifier,
            });
        }
        Some(Family {
            name: name.to_string(),
            doc: f.doc.clone().unwrap_or_default().trim().to_string(),
            settings: s,
            columns,
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

    fn choice(
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

pub(super) fn layout_sep(layout: Layout) -> Option<char> {
    match layout {
        Layout::Separated { separator } => Some(separator),
        _ => None,
    }
}

fn valid_table_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['.', '-'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// `prefix{name}suffix` → its three parts, if there is exactly one well-formed placeholder.
fn split_pattern(q: &str) -> Option<(String, String, String)> {
    let open = q.find('{')?;
    let close = q.find('}')?;
    if close < open || q[close + 1..].contains(['{', '}']) || q[..open].contains('}') {
        return None;
    }
    let name = &q[open + 1..close];
    is_ident(name).then(|| {
        (
            q[..open].to_string(),
            name.to_string(),
            q[close + 1..].to_string(),
        )
    })
}
