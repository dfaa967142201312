//! The reference rendering of the SDKs' typed scan filters into HBase's filter language (the
//! bytes a scan sends as Thrift2 `TScan.filterString`), so a filter built in any SDK works on
//! real HBase too. Every SDK must render the same bytes; `vectors` turns this module into
//! `sdks/vectors/filters.json`. The rules are in docs/schema.md ("Scan filters").

use serde_json::{json, Map, Value as Json};

use crate::cells;
use crate::keys;
use crate::model::{Column, Qualifier, ScalarType, Table};
use crate::typed_value::Value;

/// A comparison of a column's value with an operand.
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
    pub const ALL: [CompareOp; 6] = [
        CompareOp::Eq,
        CompareOp::Ne,
        CompareOp::Lt,
        CompareOp::Le,
        CompareOp::Gt,
        CompareOp::Ge,
    ];

    /// The operator token of HBase's filter language.
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

    /// The vector spelling (`eq`, `ne`, ...).
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
        }
    }

    pub fn parse(s: &str) -> Option<CompareOp> {
        CompareOp::ALL.into_iter().find(|o| o.name() == s)
    }
}

/// A typed filter on one table, as an SDK's builder holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// `column <op> operand` on a plain (non-pattern) column, by field name.
    Value {
        column: String,
        op: CompareOp,
        operand: Value,
    },
    /// Rows whose key starts with the typed prefix of these leading components (by name).
    Prefix(Vec<(String, Value)>),
    /// Rows whose leading components equal `given` (by name) and whose string component
    /// `component`, the next one, starts with `prefix` (a key bound's starts-with as a filter).
    StartsWith {
        given: Vec<(String, Value)>,
        component: String,
        prefix: String,
    },
    /// At most this many rows per region server (HBase's PageFilter).
    Page(i64),
    /// Cells without their values.
    KeyOnly,
    /// Only the first cell of each row.
    FirstKeyOnly,
    /// Only cells with exactly these timestamps.
    Timestamps(Vec<i64>),
    /// Only cells whose qualifier starts with these bytes.
    ColumnPrefix(Vec<u8>),
    /// Every filter must pass.
    All(Vec<Filter>),
    /// At least one filter must pass.
    Any(Vec<Filter>),
}

/// A filter that cannot be rendered, with the reason in words every SDK uses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FilterError(pub String);

/// A filter-language string literal: single-quoted, each `'` doubled, other bytes as they are.
pub fn literal(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 2);
    out.push(b'\'');
    for &b in bytes {
        out.push(b);
        if b == b'\'' {
            out.push(b'\'');
        }
    }
    out.push(b'\'');
    out
}

/// The filter-language bytes of `f` on table `t`.
pub fn render(t: &Table, f: &Filter) -> Result<Vec<u8>, FilterError> {
    match f {
        Filter::Value {
            column,
            op,
            operand,
        } => value_filter(t, column, *op, operand),
        Filter::Prefix(given) => {
            let ps = prefix_bytes(t, given)?;
            let parts: Vec<Vec<u8>> = ps
                .iter()
                .map(|p| call("PrefixFilter", &[literal(p)]))
                .collect();
            Ok(join(parts, b" OR "))
        }
        Filter::StartsWith {
            given,
            component,
            prefix,
        } => {
            let ps = starts_with_bytes(t, given, component, prefix)?;
            let parts: Vec<Vec<u8>> = ps
                .iter()
                .map(|p| call("PrefixFilter", &[literal(p)]))
                .collect();
            Ok(join(parts, b" OR "))
        }
        Filter::Page(n) => {
            if *n < 0 {
                return Err(FilterError(format!(
                    "page size must not be negative, got {n}"
                )));
            }
            Ok(format!("PageFilter({n})").into_bytes())
        }
        Filter::KeyOnly => Ok(b"KeyOnlyFilter()".to_vec()),
        Filter::FirstKeyOnly => Ok(b"FirstKeyOnlyFilter()".to_vec()),
        Filter::Timestamps(ts) => {
            if ts.is_empty() {
                return Err(FilterError(
                    "a timestamps filter needs at least one timestamp".into(),
                ));
            }
            if let Some(bad) = ts.iter().find(|t| **t < 0) {
                return Err(FilterError(format!(
                    "timestamps must not be negative, got {bad}"
                )));
            }
            let list: Vec<String> = ts.iter().map(i64::to_string).collect();
            Ok(format!("TimestampsFilter({})", list.join(", ")).into_bytes())
        }
        Filter::ColumnPrefix(p) => Ok(call("ColumnPrefixFilter", &[literal(p)])),
        Filter::All(fs) => combine(t, fs, "all-of", b" AND "),
        Filter::Any(fs) => combine(t, fs, "any-of", b" OR "),
    }
}

/// `Name(arg, arg, ...)`.
fn call(name: &str, args: &[Vec<u8>]) -> Vec<u8> {
    let mut out = name.as_bytes().to_vec();
    out.push(b'(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(a);
    }
    out.push(b')');
    out
}

/// One part bare; several each in parentheses, joined by `sep`.
fn join(parts: Vec<Vec<u8>>, sep: &[u8]) -> Vec<u8> {
    if parts.len() == 1 {
        return parts.into_iter().next().unwrap_or_default();
    }
    let mut out = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(sep);
        }
        out.push(b'(');
        out.extend_from_slice(p);
        out.push(b')');
    }
    out
}

fn combine(t: &Table, fs: &[Filter], what: &str, sep: &[u8]) -> Result<Vec<u8>, FilterError> {
    if fs.is_empty() {
        return Err(FilterError(format!("{what} needs at least one filter")));
    }
    let parts = fs
        .iter()
        .map(|f| render(t, f))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(join(parts, sep))
}

/// The column (and its family) of a field, by name.
pub fn find_column<'a>(t: &'a Table, field: &str) -> Option<(&'a str, &'a Column)> {
    t.families.iter().find_map(|f| {
        f.columns
            .iter()
            .find(|c| c.field == field)
            .map(|c| (f.name.as_str(), c))
    })
}

fn value_filter(
    t: &Table,
    field: &str,
    op: CompareOp,
    operand: &Value,
) -> Result<Vec<u8>, FilterError> {
    let (family, col) = find_column(t, field)
        .ok_or_else(|| FilterError(format!("table {} has no column named {field}", t.id)))?;
    let Qualifier::Fixed { qualifier } = &col.qualifier else {
        return Err(FilterError(format!(
            "column {field} is a pattern column; value filters need a plain column"
        )));
    };
    let bytes = cells::encode_value(col.ty, operand).map_err(|_| {
        FilterError(format!(
            "column {field}: the operand {} is not a {}",
            operand.to_json(col.ty),
            col.ty.name()
        ))
    })?;
    let mut comparator = b"binary:".to_vec();
    comparator.extend_from_slice(&bytes);
    Ok(call(
        "SingleColumnValueFilter",
        &[
            literal(family.as_bytes()),
            literal(qualifier.as_bytes()),
            op.token().as_bytes().to_vec(),
            literal(&comparator),
            b"true".to_vec(),
            b"true".to_vec(),
        ],
    ))
}

/// The key prefixes for components given by name: leading components in key order, every one
/// before the last given present (the error names the first missing one).
pub fn prefix_bytes(t: &Table, given: &[(String, Value)]) -> Result<Vec<Vec<u8>>, FilterError> {
    let comps = &t.key.components;
    if let Some((name, _)) = given
        .iter()
        .find(|(n, _)| !comps.iter().any(|c| &c.name == n))
    {
        return Err(FilterError(format!(
            "the {} key has no component named {name}",
            t.id
        )));
    }
    let value_of = |name: &str| given.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let count = comps
        .iter()
        .rposition(|c| value_of(&c.name).is_some())
        .map_or(0, |i| i + 1);
    let mut lead = Vec::with_capacity(count);
    for (i, c) in comps[..count].iter().enumerate() {
        match value_of(&c.name) {
            Some(v) => lead.push(v.clone()),
            None => {
                let hashed = t
                    .key
                    .hash
                    .as_ref()
                    .is_some_and(|h| h.components.contains(&i));
                let why = if hashed {
                    " (the hash prefix is computed from it)".to_string()
                } else {
                    format!(" before {}", comps[count - 1].name)
                };
                return Err(FilterError(format!(
                    "prefix: {} must be given{why}",
                    c.name
                )));
            }
        }
    }
    keys::prefixes(&t.key, &lead).map_err(|e| FilterError(format!("prefix: {e}")))
}

/// The key prefixes (one per salt bucket) of the rows whose leading components equal `given`
/// and whose component `component` starts with `prefix`: the starts of `bounds::bounds` for
/// them, refused as bounds refuse them (the error names the component).
pub fn starts_with_bytes(
    t: &Table,
    given: &[(String, Value)],
    component: &str,
    prefix: &str,
) -> Result<Vec<Vec<u8>>, FilterError> {
    let comps = &t.key.components;
    let index = |name: &str| {
        comps
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| FilterError(format!("the {} key has no component named {name}", t.id)))
    };
    let mut slots: Vec<Option<crate::bounds::Given>> = vec![None; comps.len()];
    for (name, v) in given {
        slots[index(name)?] = Some(crate::bounds::Given::Value(v.clone()));
    }
    slots[index(component)?] = Some(crate::bounds::Given::StartsWith(Value::Str(
        prefix.to_string(),
    )));
    while slots.last().is_some_and(Option::is_none) {
        slots.pop();
    }
    crate::bounds::bounds(&t.key, &slots)
        .map(|rs| rs.into_iter().map(|(start, _)| start).collect())
        .map_err(|e| FilterError(format!("prefix: {e}")))
}

/// The vector form of a filter (see docs/schema.md, "Scan filters").
pub fn to_json(t: &Table, f: &Filter) -> Json {
    match f {
        Filter::Value {
            column,
            op,
            operand,
        } => {
            let ty = find_column(t, column).map_or(ScalarType::Bytes, |(_, c)| c.ty);
            json!({"value": {"column": column, "op": op.name(), "operand": operand_json(ty, operand)}})
        }
        Filter::Prefix(given) => {
            let mut m = Map::new();
            for (name, v) in given {
                let ty = t
                    .key
                    .components
                    .iter()
                    .find(|c| &c.name == name)
                    .map_or(ScalarType::Bytes, |c| c.ty);
                m.insert(name.clone(), v.to_json(ty));
            }
            json!({ "prefix": m })
        }
        Filter::StartsWith {
            given,
            component,
            prefix,
        } => {
            let mut m = Map::new();
            for (name, v) in given {
                let ty = t
                    .key
                    .components
                    .iter()
                    .find(|c| &c.name == name)
                    .map_or(ScalarType::Bytes, |c| c.ty);
                m.insert(name.clone(), v.to_json(ty));
            }
            m.insert(component.clone(), json!({ "starts_with": prefix }));
            json!({ "prefix": m })
        }
        Filter::Page(n) => json!({ "page": n }),
        Filter::KeyOnly => json!({"key_only": true}),
        Filter::FirstKeyOnly => json!({"first_key_only": true}),
        Filter::Timestamps(ts) => json!({ "timestamps": ts }),
        Filter::ColumnPrefix(p) => json!({"column_prefix": crate::hex::encode(p)}),
        Filter::All(fs) => json!({"all": fs.iter().map(|f| to_json(t, f)).collect::<Vec<_>>()}),
        Filter::Any(fs) => json!({"any": fs.iter().map(|f| to_json(t, f)).collect::<Vec<_>>()}),
    }
}

/// An operand's vector form: the column type's form when it fits, else the plain JSON of what
/// it is (a number for an integer, a string for a string), so a wrong-typed operand stays wrong.
fn operand_json(ty: ScalarType, v: &Value) -> Json {
    match v {
        _ if v.fits(ty) => v.to_json(ty),
        Value::Int(i) => Json::from(*i),
        Value::Str(s) => Json::String(s.clone()),
        Value::Bool(b) => Json::Bool(*b),
        Value::Json(j) => j.clone(),
        other => other.to_json(ScalarType::Bytes),
    }
}

/// A typed value from its vector form, or `None` when the JSON is not a `ty`.
pub fn value_from_json(ty: ScalarType, j: &Json) -> Option<Value> {
    let bits = |n: usize| {
        let b = crate::hex::decode(j.as_str()?)?;
        (b.len() == n).then_some(b)
    };
    Some(match ty {
        ScalarType::String => Value::Str(j.as_str()?.to_string()),
        ScalarType::Bytes => Value::Bytes(crate::hex::decode(j.as_str()?)?),
        ScalarType::I32 => Value::Int(j.as_i64()?),
        ScalarType::I64 | ScalarType::TimestampMs | ScalarType::Counter => {
            Value::Int(j.as_str()?.parse().ok()?)
        }
        ScalarType::F32 => {
            let b = bits(4)?;
            Value::F32(f32::from_bits(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
        }
        ScalarType::F64 => {
            let b = bits(8)?;
            let mut a = [0u8; 8];
            a.copy_from_slice(&b);
            Value::F64(f64::from_bits(u64::from_be_bytes(a)))
        }
        ScalarType::Bool => Value::Bool(j.as_bool()?),
        ScalarType::Json => Value::Json(j.clone()),
    })
}

/// Parses the vector form back into a filter (the inverse of `to_json`); an operand whose JSON
/// is not of the column's type is kept in a form `render` refuses.
pub fn from_json(t: &Table, j: &Json) -> Result<Filter, FilterError> {
    let bad = || FilterError(format!("not a filter: {j}"));
    let obj = j.as_object().filter(|o| o.len() == 1).ok_or_else(bad)?;
    let (kind, body) = obj.iter().next().ok_or_else(bad)?;
    let list = |b: &Json| -> Result<Vec<Filter>, FilterError> {
        b.as_array()
            .ok_or_else(bad)?
            .iter()
            .map(|f| from_json(t, f))
            .collect()
    };
    Ok(match kind.as_str() {
        "value" => {
            let column = body["column"].as_str().ok_or_else(bad)?.to_string();
            let op = body["op"]
                .as_str()
                .and_then(CompareOp::parse)
                .ok_or_else(bad)?;
            let ty = find_column(t, &column).map_or(ScalarType::Bytes, |(_, c)| c.ty);
            let operand = value_from_json(ty, &body["operand"])
                .unwrap_or_else(|| Value::Json(body["operand"].clone()));
            Filter::Value {
                column,
                op,
                operand,
            }
        }
        "prefix" => {
            let mut given = Vec::new();
            let mut starts = None;
            for (name, v) in body.as_object().ok_or_else(bad)? {
                if let Some(p) = v.get("starts_with") {
                    starts = Some((name.clone(), p.as_str().ok_or_else(bad)?.to_string()));
                    continue;
                }
                let ty = t
                    .key
                    .components
                    .iter()
                    .find(|c| &c.name == name)
                    .map_or(ScalarType::Bytes, |c| c.ty);
                given.push((name.clone(), value_from_json(ty, v).ok_or_else(bad)?));
            }
            match starts {
                Some((component, prefix)) => Filter::StartsWith {
                    given,
                    component,
                    prefix,
                },
                None => Filter::Prefix(given),
            }
        }
        "page" => Filter::Page(body.as_i64().ok_or_else(bad)?),
        "key_only" => Filter::KeyOnly,
        "first_key_only" => Filter::FirstKeyOnly,
        "timestamps" => Filter::Timestamps(
            body.as_array()
                .ok_or_else(bad)?
                .iter()
                .map(|x| x.as_i64().ok_or_else(bad))
                .collect::<Result<_, _>>()?,
        ),
        "column_prefix" => {
            Filter::ColumnPrefix(body.as_str().and_then(crate::hex::decode).ok_or_else(bad)?)
        }
        "all" => Filter::All(list(body)?),
        "any" => Filter::Any(list(body)?),
        _ => return Err(bad()),
    })
}
