//! The data models of HBase's REST API (`CellSet`, `Row`, `Cell`, `Scanner`) and their JSON
//! and XML forms. Bytes (row keys, columns, values) are base64 in both, as HBase writes them;
//! a cell's column is `family:qualifier` in one string. A bad document is an error naming
//! the field, answered 400.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Map, Value};

use super::xml::Element;

/// HBase's "no timestamp given": the newest time (`HConstants.LATEST_TIMESTAMP`).
pub const LATEST: i64 = i64::MAX;

pub fn b64(b: &[u8]) -> String {
    STANDARD.encode(b)
}

pub fn unb64(field: &str, s: &str) -> Result<Vec<u8>, String> {
    let bad = |e: base64::DecodeError| {
        // The value itself only in part: it may be megabytes.
        let shown: String = s.chars().take(64).collect();
        let more = if shown.len() < s.len() { "..." } else { "" };
        format!("{field} is not valid base64 ({e}): {shown:?}{more}")
    };
    // Java's MIME decoder (what JAXB uses) skips line breaks; clients wrap long values. Only
    // then is a clean copy made.
    if s.bytes().any(|b| b.is_ascii_whitespace()) {
        let clean: String = s.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        return STANDARD.decode(clean.as_bytes()).map_err(bad);
    }
    STANDARD.decode(s.as_bytes()).map_err(bad)
}

/// One cell: its column (`family:qualifier`, None when the path names it), timestamp and value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellM {
    pub column: Option<Vec<u8>>,
    pub timestamp: i64,
    pub value: Vec<u8>,
}

/// One row: its key (None when the path names it) and cells.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowM {
    pub key: Option<Vec<u8>>,
    pub cells: Vec<CellM>,
}

impl RowM {
    /// One `Row` of a JSON cell set, in HBase's field order.
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"key\":\"");
        out.push_str(&b64(self.key.as_deref().unwrap_or_default()));
        out.push_str("\",\"Cell\":[");
        for (j, c) in self.cells.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            out.push_str("{\"column\":\"");
            out.push_str(&b64(c.column.as_deref().unwrap_or_default()));
            out.push_str("\",\"timestamp\":");
            out.push_str(&c.timestamp.to_string());
            out.push_str(",\"$\":\"");
            out.push_str(&b64(&c.value));
            out.push_str("\"}");
        }
        out.push_str("]}");
    }

    /// One `<Row>` of an XML cell set.
    pub fn to_xml(&self) -> Element {
        self.cells.iter().fold(
            Element::new("Row").attr("key", b64(self.key.as_deref().unwrap_or_default())),
            |row, c| {
                row.child(
                    Element::new("Cell")
                        .attr("column", b64(c.column.as_deref().unwrap_or_default()))
                        .attr("timestamp", c.timestamp.to_string())
                        .text(b64(&c.value)),
                )
            },
        )
    }

    /// Bytes the row's cells hold (keys, columns and values, plus a little per cell).
    pub fn size(&self) -> usize {
        self.cells
            .iter()
            .map(|c| c.value.len() + c.column.as_ref().map_or(0, Vec::len) + 32)
            .sum::<usize>()
            + self.key.as_ref().map_or(0, Vec::len)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CellSet {
    pub rows: Vec<RowM>,
}

impl CellSet {
    pub fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let cells: Vec<Value> = r
                    .cells
                    .iter()
                    .map(|c| {
                        json!({
                            "column": b64(c.column.as_deref().unwrap_or_default()),
                            "timestamp": c.timestamp,
                            "$": b64(&c.value),
                        })
                    })
                    .collect();
                json!({"key": b64(r.key.as_deref().unwrap_or_default()), "Cell": cells})
            })
            .collect();
        json!({ "Row": rows })
    }

    /// The JSON text in HBase's field order, written directly: a scan's answer can hold
    /// thousands of cells, and base64 strings need no escaping, so no JSON tree is built.
    pub fn to_json_text(&self) -> String {
        let mut out = String::with_capacity(64 + self.rows.len() * 64);
        out.push_str("{\"Row\":[");
        for (i, r) in self.rows.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            r.write_json(&mut out);
        }
        out.push_str("]}");
        out
    }

    pub fn to_xml(&self) -> Element {
        self.rows
            .iter()
            .fold(Element::new("CellSet"), |set, r| set.child(r.to_xml()))
    }

    pub fn from_json(v: &Value) -> Result<CellSet, String> {
        let obj = v.as_object().ok_or("a CellSet must be a JSON object")?;
        let mut set = CellSet::default();
        for r in list(obj, "Row")? {
            let r = r.as_object().ok_or("each Row must be a JSON object")?;
            let key = opt_b64(r, "key")?;
            let mut cells = Vec::new();
            for c in list(r, "Cell")? {
                let c = c.as_object().ok_or("each Cell must be a JSON object")?;
                cells.push(CellM {
                    column: opt_b64(c, "column")?,
                    timestamp: opt_i64(c, "timestamp")?.unwrap_or(LATEST),
                    value: opt_b64(c, "$")?.unwrap_or_default(),
                });
            }
            set.rows.push(RowM { key, cells });
        }
        Ok(set)
    }

    pub fn from_xml(e: &Element) -> Result<CellSet, String> {
        if e.name != "CellSet" {
            return Err(format!("expected a <CellSet> document, not <{}>", e.name));
        }
        let mut set = CellSet::default();
        for r in e.all("Row") {
            let key = r.get("key").map(|k| unb64("Row key", k)).transpose()?;
            let mut cells = Vec::new();
            for c in r.all("Cell") {
                cells.push(CellM {
                    column: c
                        .get("column")
                        .map(|s| unb64("Cell column", s))
                        .transpose()?,
                    timestamp: match c.get("timestamp") {
                        Some(t) => t
                            .trim()
                            .parse()
                            .map_err(|_| format!("Cell timestamp is not a number: {t:?}"))?,
                        None => LATEST,
                    },
                    value: unb64("Cell value", &c.text)?,
                });
            }
            set.rows.push(RowM { key, cells });
        }
        Ok(set)
    }
}

/// A JSON field holding a list; Jackson also reads a single object where a list belongs.
pub fn list<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<Vec<&'a Value>, String> {
    Ok(match obj.get(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().collect(),
        Some(v @ Value::Object(_)) => vec![v],
        Some(other) => return Err(format!("{key} must be a list, not {other}")),
    })
}

pub fn opt_str<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!("{key} must be a string, not {other}")),
    }
}

pub fn opt_b64(obj: &Map<String, Value>, key: &str) -> Result<Option<Vec<u8>>, String> {
    opt_str(obj, key)?.map(|s| unb64(key, s)).transpose()
}

/// A number field; Jackson also takes a number written as a string.
pub fn opt_i64(obj: &Map<String, Value>, key: &str) -> Result<Option<i64>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("{key} must be a whole number: {n}")),
        Some(Value::String(s)) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("{key} must be a whole number: {s:?}")),
        Some(other) => Err(format!("{key} must be a number, not {other}")),
    }
}

pub fn opt_bool(obj: &Map<String, Value>, key: &str) -> Result<Option<bool>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(Some(true)),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(Some(false)),
        Some(other) => Err(format!("{key} must be true or false, not {other}")),
    }
}

/// HBase's `Scanner` model: what a stateful scanner reads. Unset fields keep HBase's
/// defaults (whole table, every column, all times, batch and versions unlimited).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScannerM {
    pub start_row: Vec<u8>,
    pub end_row: Vec<u8>,
    pub columns: Vec<Vec<u8>>,
    pub batch: Option<i64>,
    pub caching: Option<i64>,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    pub max_versions: Option<i64>,
    /// The filter in HBase's JSON filter form (see `rest::filter`).
    pub filter: Option<String>,
    pub limit: Option<i64>,
    pub reversed: bool,
}

impl ScannerM {
    pub fn from_json(v: &Value) -> Result<ScannerM, String> {
        // `null` or `""`: the default scanner (what starbase sends for a whole-table scan).
        if v.is_null() || v.as_str() == Some("") {
            return Ok(ScannerM::default());
        }
        let o = v.as_object().ok_or("a Scanner must be a JSON object")?;
        let mut m = ScannerM {
            start_row: opt_b64(o, "startRow")?.unwrap_or_default(),
            end_row: opt_b64(o, "endRow")?.unwrap_or_default(),
            batch: opt_i64(o, "batch")?,
            caching: opt_i64(o, "caching")?,
            start_time: opt_i64(o, "startTime")?,
            end_time: opt_i64(o, "endTime")?,
            max_versions: opt_i64(o, "maxVersions")?,
            limit: opt_i64(o, "limit")?,
            reversed: opt_bool(o, "reversed")?.unwrap_or(false),
            ..Default::default()
        };
        for c in list(o, "column")? {
            let s = c.as_str().ok_or("each column must be a base64 string")?;
            m.columns.push(unb64("column", s)?);
        }
        m.filter = match o.get("filter") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            // A filter given as an object rather than as a string holding one.
            Some(v @ Value::Object(_)) => Some(v.to_string()),
            Some(other) => return Err(format!("filter must be a string, not {other}")),
        };
        Ok(m)
    }

    pub fn from_xml(e: &Element) -> Result<ScannerM, String> {
        if e.name != "Scanner" {
            return Err(format!("expected a <Scanner> document, not <{}>", e.name));
        }
        let num = |k: &str| -> Result<Option<i64>, String> {
            e.get(k)
                .map(|v| {
                    v.trim()
                        .parse()
                        .map_err(|_| format!("{k} must be a whole number: {v:?}"))
                })
                .transpose()
        };
        let mut m = ScannerM {
            start_row: e
                .get("startRow")
                .map(|s| unb64("startRow", s))
                .transpose()?
                .unwrap_or_default(),
            end_row: e
                .get("endRow")
                .map(|s| unb64("endRow", s))
                .transpose()?
                .unwrap_or_default(),
            batch: num("batch")?,
            caching: num("caching")?,
            start_time: num("startTime")?,
            end_time: num("endTime")?,
            max_versions: num("maxVersions")?,
            limit: num("limit")?,
            reversed: e
                .get("reversed")
                .is_some_and(|v| v.eq_ignore_ascii_case("true")),
            ..Default::default()
        };
        for c in e.all("column") {
            m.columns.push(unb64("column", &c.text)?);
        }
        m.filter = e
            .first("filter")
            .map(|f| f.text.clone())
            .filter(|f| !f.is_empty());
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_sets_round_trip_through_json_and_xml() {
        let set = CellSet {
            rows: vec![RowM {
                key: Some(b"r1".to_vec()),
                cells: vec![CellM {
                    column: Some(b"cf:a".to_vec()),
                    timestamp: 7,
                    value: vec![0, 255, 1],
                }],
            }],
        };
        assert_eq!(CellSet::from_json(&set.to_json()).unwrap(), set);
        assert_eq!(CellSet::from_xml(&set.to_xml()).unwrap(), set);
        assert_eq!(
            set.to_json_text(),
            r#"{"Row":[{"key":"cjE=","Cell":[{"column":"Y2Y6YQ==","timestamp":7,"$":"AP8B"}]}]}"#
        );
        let parsed: Value = serde_json::from_str(&set.to_json_text()).unwrap();
        assert_eq!(parsed, set.to_json());
    }

    #[test]
    fn bad_base64_names_the_field() {
        let v: Value = serde_json::from_str(r#"{"Row":[{"key":"!!","Cell":[]}]}"#).unwrap();
        let e = CellSet::from_json(&v).unwrap_err();
        assert!(e.contains("key"), "{e}");
    }
}
