//! A scanner model's `filter`: HBase's JSON filter form (`ScannerModel.FilterModel`, e.g.
//! `{"type":"PrefixFilter","value":"cm93"}`) turned into HBase's filter language and built by
//! [`crate::filter`], so REST scans filter exactly as Thrift scans do. Bytes (prefixes, binary
//! comparator values, families) are base64 in the JSON form; regex and substring comparator
//! values are plain text, as HBase writes them.

use serde_json::{Map, Value};

use super::model::{opt_bool, opt_i64, opt_str, unb64};
use crate::engine::Filter;

/// Deepest filter-list nesting read (bounds recursion on hostile input).
const MAX_DEPTH: usize = 32;

/// Builds the filter a JSON filter model describes.
pub fn from_json(text: &str) -> Result<Box<dyn Filter>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("malformed filter JSON: {e}"))?;
    let expr = to_language(&v, 0)?;
    crate::filter::parse_bytes(&expr)
        .map_err(|e| format!("invalid filter {:?}: {e}", String::from_utf8_lossy(&expr)))
}

/// A filter-language string literal: single quotes, a quote inside doubled.
fn quoted(b: &[u8]) -> Vec<u8> {
    let mut out = vec![b'\''];
    for &c in b {
        if c == b'\'' {
            out.push(b'\'');
        }
        out.push(c);
    }
    out.push(b'\'');
    out
}

fn field_b64(o: &Map<String, Value>, key: &str, filter: &str) -> Result<Vec<u8>, String> {
    let s = opt_str(o, key)?.ok_or_else(|| format!("{filter} needs {key}"))?;
    unb64(key, s)
}

fn op_symbol(op: &str) -> Result<&'static str, String> {
    Ok(match op {
        "LESS" => "<",
        "LESS_OR_EQUAL" => "<=",
        "EQUAL" => "=",
        "NOT_EQUAL" => "!=",
        "GREATER_OR_EQUAL" => ">=",
        "GREATER" => ">",
        other => return Err(format!("unknown compare operator {other:?}")),
    })
}

/// `'type:value'` for the filter language.
fn comparator(o: &Map<String, Value>) -> Result<Vec<u8>, String> {
    let c = o
        .get("comparator")
        .and_then(Value::as_object)
        .ok_or("the filter needs a comparator")?;
    let kind = opt_str(c, "type")?.ok_or("the comparator needs a type")?;
    let value = opt_str(c, "value")?.unwrap_or_default();
    let (prefix, bytes): (&[u8], Vec<u8>) = match kind {
        "BinaryComparator" => (b"binary:", unb64("comparator value", value)?),
        "BinaryPrefixComparator" => (b"binaryprefix:", unb64("comparator value", value)?),
        "RegexStringComparator" => (b"regexstring:", value.as_bytes().to_vec()),
        "SubstringComparator" => (b"substring:", value.as_bytes().to_vec()),
        other => {
            return Err(format!(
                "comparator {other} is not supported in REST filters"
            ))
        }
    };
    let mut spec = prefix.to_vec();
    spec.extend_from_slice(&bytes);
    Ok(quoted(&spec))
}

fn join(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.join(&b", "[..])
}

fn call(name: &str, args: &[Vec<u8>]) -> Vec<u8> {
    let mut out = name.as_bytes().to_vec();
    out.push(b'(');
    out.extend_from_slice(&join(args));
    out.push(b')');
    out
}

fn num(o: &Map<String, Value>, key: &str, filter: &str) -> Result<Vec<u8>, String> {
    Ok(opt_i64(o, key)?
        .ok_or_else(|| format!("{filter} needs {key}"))?
        .to_string()
        .into_bytes())
}

fn boolean(o: &Map<String, Value>, key: &str) -> Result<Vec<u8>, String> {
    Ok(opt_bool(o, key)?.unwrap_or(false).to_string().into_bytes())
}

fn to_language(v: &Value, depth: usize) -> Result<Vec<u8>, String> {
    if depth > MAX_DEPTH {
        return Err(format!("filters nested deeper than {MAX_DEPTH}"));
    }
    let o = v.as_object().ok_or("a filter must be a JSON object")?;
    let kind = opt_str(o, "type")?.ok_or("a filter needs a type")?;
    let children = || -> Result<Vec<Vec<u8>>, String> {
        let list = o
            .get("filters")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{kind} needs filters"))?;
        list.iter().map(|f| to_language(f, depth + 1)).collect()
    };
    Ok(match kind {
        "KeyOnlyFilter" | "FirstKeyOnlyFilter" => call(kind, &[]),
        "PrefixFilter" | "ColumnPrefixFilter" | "InclusiveStopFilter" => {
            call(kind, &[quoted(&field_b64(o, "value", kind)?)])
        }
        "PageFilter" => {
            let n = opt_str(o, "value")?
                .map(str::to_string)
                .or_else(|| opt_i64(o, "value").ok().flatten().map(|n| n.to_string()))
                .ok_or("PageFilter needs value")?;
            n.trim()
                .parse::<i64>()
                .map_err(|_| format!("PageFilter value must be a number: {n:?}"))?;
            call(kind, &[n.trim().as_bytes().to_vec()])
        }
        "ColumnCountGetFilter" => call(kind, &[num(o, "limit", kind)?]),
        "ColumnPaginationFilter" => call(kind, &[num(o, "limit", kind)?, num(o, "offset", kind)?]),
        "MultipleColumnPrefixFilter" => {
            let list = o
                .get("prefixes")
                .and_then(Value::as_array)
                .ok_or("MultipleColumnPrefixFilter needs prefixes")?;
            let mut args = Vec::new();
            for p in list {
                let s = p.as_str().ok_or("each prefix must be a base64 string")?;
                args.push(quoted(&unb64("prefix", s)?));
            }
            call(kind, &args)
        }
        "TimestampsFilter" => {
            let list = o
                .get("timestamps")
                .and_then(Value::as_array)
                .ok_or("TimestampsFilter needs timestamps")?;
            let mut args = Vec::new();
            for t in list {
                let n = t.as_i64().ok_or("each timestamp must be a number")?;
                args.push(n.to_string().into_bytes());
            }
            call(kind, &args)
        }
        "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => {
            let op = op_symbol(opt_str(o, "op")?.ok_or_else(|| format!("{kind} needs op"))?)?;
            call(kind, &[op.as_bytes().to_vec(), comparator(o)?])
        }
        "ColumnRangeFilter" => call(
            kind,
            &[
                quoted(&field_b64(o, "minColumn", kind)?),
                boolean(o, "minColumnInclusive")?,
                quoted(&field_b64(o, "maxColumn", kind)?),
                boolean(o, "maxColumnInclusive")?,
            ],
        ),
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
            let op = op_symbol(opt_str(o, "op")?.ok_or_else(|| format!("{kind} needs op"))?)?;
            let qualifier = match opt_str(o, "qualifier")? {
                Some(q) => unb64("qualifier", q)?,
                None => Vec::new(),
            };
            call(
                kind,
                &[
                    quoted(&field_b64(o, "family", kind)?),
                    quoted(&qualifier),
                    op.as_bytes().to_vec(),
                    comparator(o)?,
                    boolean(o, "ifMissing")?,
                    boolean(o, "latestVersion")?,
                ],
            )
        }
        "DependentColumnFilter" => {
            let op = op_symbol(opt_str(o, "op")?.ok_or("DependentColumnFilter needs op")?)?;
            let qualifier = match opt_str(o, "qualifier")? {
                Some(q) => unb64("qualifier", q)?,
                None => Vec::new(),
            };
            call(
                kind,
                &[
                    quoted(&field_b64(o, "family", kind)?),
                    quoted(&qualifier),
                    boolean(o, "dropDependentColumn")?,
                    op.as_bytes().to_vec(),
                    comparator(o)?,
                ],
            )
        }
        "FilterList" => {
            let glue: &[u8] = match opt_str(o, "op")?.unwrap_or("MUST_PASS_ALL") {
                "MUST_PASS_ALL" => b" AND ",
                "MUST_PASS_ONE" => b" OR ",
                other => return Err(format!("unknown FilterList operator {other:?}")),
            };
            let parts: Vec<Vec<u8>> = children()?
                .into_iter()
                .map(|p| [&b"("[..], &p, &b")"[..]].concat())
                .collect();
            if parts.is_empty() {
                return Err("FilterList needs at least one filter".into());
            }
            [&b"("[..], &parts.join(glue), &b")"[..]].concat()
        }
        "SkipFilter" | "WhileMatchFilter" => {
            let word: &[u8] = if kind == "SkipFilter" {
                b"SKIP ("
            } else {
                b"WHILE ("
            };
            let mut inner = children()?;
            if inner.len() != 1 {
                return Err(format!("{kind} wraps exactly one filter"));
            }
            [word, &inner.remove(0), &b")"[..]].concat()
        }
        other => {
            return Err(format!(
                "filter type {other} is not supported in REST filters"
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lang(json: &str) -> String {
        let v: Value = serde_json::from_str(json).unwrap();
        String::from_utf8(to_language(&v, 0).unwrap()).unwrap()
    }

    #[test]
    fn common_filters_become_filter_language() {
        assert_eq!(
            lang(r#"{"type":"PrefixFilter","value":"cm93"}"#),
            "PrefixFilter('row')"
        );
        assert_eq!(
            lang(
                r#"{"type":"ValueFilter","op":"EQUAL","comparator":{"type":"BinaryComparator","value":"eCd5"}}"#
            ),
            "ValueFilter(=, 'binary:x''y')"
        );
        assert_eq!(
            lang(
                r#"{"type":"FilterList","op":"MUST_PASS_ONE","filters":[{"type":"KeyOnlyFilter"},{"type":"PageFilter","value":"2"}]}"#
            ),
            "((KeyOnlyFilter()) OR (PageFilter(2)))"
        );
        assert!(from_json(r#"{"type":"RowFilter","op":"EQUAL","comparator":{"type":"SubstringComparator","value":"ow"}}"#).is_ok());
        assert!(from_json(r#"{"type":"NoSuchFilter"}"#).is_err());
        assert!(from_json("{").is_err());
    }
}

/// Hostile request bodies: every decoder answers, none panics.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use crate::rest::meta::{NamespacePropsM, TableSchemaM};
    use crate::rest::model::{CellSet, ScannerM};

    fn json_like() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "{",
                "}",
                "[",
                "]",
                ",",
                ":",
                "\"Row\"",
                "\"Cell\"",
                "\"key\"",
                "\"$\"",
                "\"column\"",
                "\"type\"",
                "\"filters\"",
                "\"FilterList\"",
                "\"op\"",
                "null",
                "\"AAAA\"",
                "\"!!\"",
                "1",
                "-9223372036854775808",
                "true",
                "\"value\"",
            ]),
            0..40,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn decoders_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200), text in json_like()) {
            let _ = crate::rest::xml::parse(&bytes);
            let _ = CellSet::from_pb(&bytes);
            let _ = ScannerM::from_pb(&bytes);
            let _ = TableSchemaM::from_pb(&bytes);
            let _ = NamespacePropsM::from_pb(&bytes);
            let _ = super::from_json(&text);
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                let _ = CellSet::from_json(&v);
                let _ = ScannerM::from_json(&v);
                let _ = TableSchemaM::from_json(&v);
                let _ = NamespacePropsM::from_json(&v);
            }
            if let Ok(e) = crate::rest::xml::parse(text.as_bytes()) {
                let _ = CellSet::from_xml(&e);
                let _ = ScannerM::from_xml(&e);
                let _ = TableSchemaM::from_xml(&e);
            }
        }
    }
}
