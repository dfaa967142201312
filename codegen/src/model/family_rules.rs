//! A family's rules: descriptor settings in HBase's ranges, columns with known types, unique
//! qualifiers, at most one qualifier pattern.

use std::collections::BTreeSet;
use std::ops::Range;

use toml::Spanned;

use super::validate::{is_ident, Cx};
use super::*;
use crate::schema::RawFamily;

impl Cx<'_> {
    pub(super) fn family(
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
