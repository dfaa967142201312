//! Typed scan filters rendered to HBase's filter language (the bytes sent as
//! `TScan.filterString`), so one filter works on redbase and on a real HBase cluster. The
//! rendering is fixed byte for byte (docs/schema.md, "Scan filters"; checked by
//! sdks/vectors/filters.json).
//!
//! Build filters from a table's typed columns (`AccessLogsColumns::HITS.ge(5)`), its key prefix
//! (`AccessLogsKey::prefix().user_id("dave").filter()`) and the constructors here, and combine
//! them with [`Filter::all`] / [`Filter::any`] (or `&` / `|`).

use super::error::{Error, Result};
use super::values::{CellValue, Column, ColumnInfo, ColumnKind, ValueType};

/// How a value filter compares the cell with its operand (as unsigned bytes, as HBase does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CompareOp {
    /// The operator of HBase's filter language.
    pub fn token(self) -> &'static str {
        match self {
            CompareOp::Eq => "=",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        }
    }
}

/// A scan filter. Invalid filters (an empty all-of, a key prefix missing a component, ...) are
/// reported when the scan renders them, before anything is sent.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// `SingleColumnValueFilter`: rows whose cell compares true with the encoded operand (rows
    /// without the cell are left out).
    Value {
        family: Vec<u8>,
        qualifier: Vec<u8>,
        op: CompareOp,
        operand: Vec<u8>,
    },
    /// Rows whose key starts with one of these prefixes (one per salt bucket).
    Prefix(Vec<Vec<u8>>),
    /// At most this many rows per region server.
    Page(i64),
    /// Cells without their values.
    KeyOnly,
    /// Only the first cell of every row.
    FirstKeyOnly,
    /// Only cells with exactly these timestamps.
    Timestamps(Vec<i64>),
    /// Only cells whose qualifier starts with these bytes.
    ColumnPrefix(Vec<u8>),
    /// Every filter passes.
    All(Vec<Filter>),
    /// At least one filter passes.
    Any(Vec<Filter>),
    /// A filter that could not be built, with the reason; rendering fails with it.
    Invalid(String),
}

impl Filter {
    /// Every filter must pass.
    pub fn all(filters: impl IntoIterator<Item = Filter>) -> Filter {
        Filter::All(filters.into_iter().collect())
    }

    /// At least one filter must pass.
    pub fn any(filters: impl IntoIterator<Item = Filter>) -> Filter {
        Filter::Any(filters.into_iter().collect())
    }

    /// At most `n` rows per region server (HBase's `PageFilter`; use the scan's `limit` for an
    /// exact total).
    pub fn page(n: i64) -> Filter {
        Filter::Page(n)
    }

    pub fn key_only() -> Filter {
        Filter::KeyOnly
    }

    pub fn first_key_only() -> Filter {
        Filter::FirstKeyOnly
    }

    pub fn timestamps(ts: impl IntoIterator<Item = i64>) -> Filter {
        Filter::Timestamps(ts.into_iter().collect())
    }

    pub fn column_prefix(prefix: impl Into<Vec<u8>>) -> Filter {
        Filter::ColumnPrefix(prefix.into())
    }

    /// A comparison on a column known only at run time (generic tools): `operand` is the
    /// column's value in the JSON form of the shared vectors (i64 as a decimal string, bytes
    /// and floats as hex). Pattern columns are refused: their qualifier is not one cell.
    pub fn compare_json(column: &ColumnInfo, op: CompareOp, operand: &serde_json::Value) -> Filter {
        let ColumnKind::Fixed { qualifier } = column.kind else {
            return Filter::Invalid(format!(
                "column {} is a pattern column; value filters need a plain column",
                column.field
            ));
        };
        match encode_json(column.ty, operand) {
            Some(Ok(operand)) => Filter::Value {
                family: column.family.to_vec(),
                qualifier: qualifier.to_vec(),
                op,
                operand,
            },
            Some(Err(e)) => Filter::Invalid(format!("column {}: {e}", column.field)),
            None => Filter::Invalid(format!(
                "column {}: the operand {operand} is not a {}",
                column.field,
                column.ty.name()
            )),
        }
    }

    /// Whether the server returns cells without values under this filter (it holds a
    /// key-only filter): typed values are then left unset.
    pub fn strips_values(&self) -> bool {
        match self {
            Filter::KeyOnly => true,
            Filter::All(fs) | Filter::Any(fs) => fs.iter().any(Filter::strips_values),
            _ => false,
        }
    }

    /// The filter-language bytes, or why the filter cannot be sent.
    pub fn render(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write(&mut out)?;
        Ok(out)
    }

    fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Filter::Value {
                family,
                qualifier,
                op,
                operand,
            } => {
                out.extend_from_slice(b"SingleColumnValueFilter(");
                literal(out, family);
                out.extend_from_slice(b", ");
                literal(out, qualifier);
                out.extend_from_slice(format!(", {}, ", op.token()).as_bytes());
                let mut comparator = b"binary:".to_vec();
                comparator.extend_from_slice(operand);
                literal(out, &comparator);
                out.extend_from_slice(b", true, true)");
            }
            Filter::Prefix(prefixes) if prefixes.is_empty() => {
                return Err(Error::Filter(
                    "a prefix filter needs at least one prefix".into(),
                ));
            }
            Filter::Prefix(prefixes) => {
                // One prefix bare; several (one per salt bucket) as an any-of.
                let each = prefixes.iter().map(|p| {
                    let mut b = b"PrefixFilter(".to_vec();
                    literal(&mut b, p);
                    b.push(b')');
                    b
                });
                join(out, each.collect(), b" OR ");
            }
            Filter::Page(n) => {
                if *n < 0 {
                    return Err(Error::Filter(format!(
                        "page size must not be negative, got {n}"
                    )));
                }
                out.extend_from_slice(format!("PageFilter({n})").as_bytes());
            }
            Filter::KeyOnly => out.extend_from_slice(b"KeyOnlyFilter()"),
            Filter::FirstKeyOnly => out.extend_from_slice(b"FirstKeyOnlyFilter()"),
            Filter::Timestamps(ts) => {
                if ts.is_empty() {
                    return Err(Error::Filter(
                        "a timestamps filter needs at least one timestamp".into(),
                    ));
                }
                if let Some(bad) = ts.iter().find(|t| **t < 0) {
                    return Err(Error::Filter(format!(
                        "timestamps must not be negative, got {bad}"
                    )));
                }
                let list: Vec<String> = ts.iter().map(i64::to_string).collect();
                out.extend_from_slice(format!("TimestampsFilter({})", list.join(", ")).as_bytes());
            }
            Filter::ColumnPrefix(p) => {
                out.extend_from_slice(b"ColumnPrefixFilter(");
                literal(out, p);
                out.push(b')');
            }
            Filter::All(fs) => combine(out, fs, "all-of", b" AND ")?,
            Filter::Any(fs) => combine(out, fs, "any-of", b" OR ")?,
            Filter::Invalid(why) => return Err(Error::Filter(why.clone())),
        }
        Ok(())
    }
}

impl std::ops::BitAnd for Filter {
    type Output = Filter;
    /// `a & b`: both pass (flattens into an existing all-of on the left).
    fn bitand(self, rhs: Filter) -> Filter {
        match self {
            Filter::All(mut fs) if !fs.is_empty() => {
                fs.push(rhs);
                Filter::All(fs)
            }
            lhs => Filter::All(vec![lhs, rhs]),
        }
    }
}

impl std::ops::BitOr for Filter {
    type Output = Filter;
    /// `a | b`: either passes (flattens into an existing any-of on the left).
    fn bitor(self, rhs: Filter) -> Filter {
        match self {
            Filter::Any(mut fs) if !fs.is_empty() => {
                fs.push(rhs);
                Filter::Any(fs)
            }
            lhs => Filter::Any(vec![lhs, rhs]),
        }
    }
}

/// A quoted literal: `'` doubled, every other byte as it is.
fn literal(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'\'');
    for &b in bytes {
        out.push(b);
        if b == b'\'' {
            out.push(b'\'');
        }
    }
    out.push(b'\'');
}

/// One part bare; several each in parentheses, joined by `sep`.
fn join(out: &mut Vec<u8>, parts: Vec<Vec<u8>>, sep: &[u8]) {
    if parts.len() == 1 {
        out.extend_from_slice(&parts[0]);
        return;
    }
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(sep);
        }
        out.push(b'(');
        out.extend_from_slice(p);
        out.push(b')');
    }
}

fn combine(out: &mut Vec<u8>, fs: &[Filter], what: &str, sep: &[u8]) -> Result<()> {
    if fs.is_empty() {
        return Err(Error::Filter(format!("{what} needs at least one filter")));
    }
    let parts = fs.iter().map(Filter::render).collect::<Result<Vec<_>>>()?;
    join(out, parts, sep);
    Ok(())
}

/// Value comparisons on a typed column: the operand is encoded with the column's codec, so
/// `HITS.ge(5)` compares 8-byte big-endian longs (byte-wise: negative numbers sort after
/// positive ones, as in HBase).
impl<T: CellValue, Tbl> Column<T, Tbl> {
    /// `op` against `value`.
    pub fn compare(&self, op: CompareOp, value: impl Into<T>) -> Filter {
        match value.into().encode_cell() {
            Ok(operand) => Filter::Value {
                family: self.family.to_vec(),
                qualifier: self.qualifier.to_vec(),
                op,
                operand,
            },
            Err(e) => Filter::Invalid(format!("column {}: {e}", self.field)),
        }
    }

    /// The cell equals `value`.
    pub fn equals(&self, value: impl Into<T>) -> Filter {
        self.compare(CompareOp::Eq, value)
    }

    /// The cell differs from `value`.
    pub fn not_equals(&self, value: impl Into<T>) -> Filter {
        self.compare(CompareOp::Ne, value)
    }

    pub fn lt(&self, value: impl Into<T>) -> Filter {
        self.compare(CompareOp::Lt, value)
    }

    pub fn le(&self, value: impl Into<T>) -> Filter {
        self.compare(CompareOp::Le, value)
    }

    pub fn gt(&self, value: impl Into<T>) -> Filter {
        self.compare(CompareOp::Gt, value)
    }

    pub fn ge(&self, value: impl Into<T>) -> Filter {
        self.compare(CompareOp::Ge, value)
    }
}

impl ValueType {
    /// The schema's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::String => "string",
            ValueType::Bytes => "bytes",
            ValueType::I32 => "i32",
            ValueType::I64 => "i64",
            ValueType::F32 => "f32",
            ValueType::F64 => "f64",
            ValueType::Bool => "bool",
            ValueType::Json => "json",
            ValueType::TimestampMs => "timestamp-ms",
            ValueType::Counter => "counter",
        }
    }
}

/// Cell bytes of a value in its vector JSON form; `None` when the JSON is not a `ty`.
pub fn encode_json(ty: ValueType, j: &serde_json::Value) -> Option<Result<Vec<u8>>> {
    let hex = |s: &str| -> Option<Vec<u8>> {
        if s.len() % 2 != 0 {
            return None;
        }
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
            .collect()
    };
    Some(match ty {
        ValueType::String => j.as_str()?.to_string().encode_cell(),
        ValueType::Bytes => hex(j.as_str()?)?.encode_cell(),
        ValueType::I32 => i32::try_from(j.as_i64()?).ok()?.encode_cell(),
        ValueType::I64 | ValueType::TimestampMs | ValueType::Counter => {
            j.as_str()?.parse::<i64>().ok()?.encode_cell()
        }
        ValueType::F32 => {
            let b: [u8; 4] = hex(j.as_str()?)?.try_into().ok()?;
            f32::from_bits(u32::from_be_bytes(b)).encode_cell()
        }
        ValueType::F64 => {
            let b: [u8; 8] = hex(j.as_str()?)?.try_into().ok()?;
            f64::from_bits(u64::from_be_bytes(b)).encode_cell()
        }
        ValueType::Bool => j.as_bool()?.encode_cell(),
        ValueType::Json => j.encode_cell(),
    })
}
