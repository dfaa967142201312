//! A cell set request body (`PUT`/`POST` of rows) decoded straight into the row model: JSON
//! through serde visitors and XML step by step ([`xml::walk`]), base64 decoded as each field is
//! met, with no document tree between. A JSON tree of a cell set took about 8 times its text
//! (each cell a map of strings); this holds the body and the decoded cells only.
//!
//! What is accepted is what [`CellSet::from_json`] and [`CellSet::from_xml`] accept (Jackson's
//! and JAXB's leniencies: a single object where a list belongs, a timestamp written as a
//! string, line breaks in base64), with the same messages.

use std::fmt;

use axum::http::StatusCode;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::media::Media;
use super::model::{unb64, CellM, CellSet, RowM, LATEST};
use super::xml::{self, Step};
use super::{Req, RestError};

/// The cell set in the request's body, in its `Content-Type`.
pub fn cell_set(r: &Req) -> Result<CellSet, RestError> {
    match r.content()? {
        Media::Json => from_json(&r.body),
        Media::Xml => from_xml(&r.body).map_err(RestError::bad),
        Media::Protobuf | Media::ProtobufIetf => CellSet::from_pb(&r.body).map_err(RestError::bad),
        Media::Text | Media::Binary => Err(RestError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type\r\nthis resource reads text/xml, application/json or application/x-protobuf\r\n",
        )),
    }
}

/// A JSON cell set; a document that is not JSON is "malformed JSON", one of the wrong shape
/// says which field is wrong.
pub fn from_json(body: &[u8]) -> Result<CellSet, RestError> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let set = de
        .deserialize_any(SetV)
        .and_then(|set| de.end().map(|()| set))
        .map_err(|e| match e.classify() {
            serde_json::error::Category::Data => RestError::bad(e),
            _ => RestError::bad(format!("malformed JSON: {e}")),
        })?;
    Ok(set)
}

/// A value that must be an object, `what` naming it in the error.
fn not_object<E: de::Error>(what: &str) -> E {
    E::custom(format!("{what} must be a JSON object"))
}

/// A field name of the cell set model, read without allocating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Row,
    Key,
    Cell,
    Column,
    Timestamp,
    Value,
    Other,
}

impl<'de> serde::Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Field, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                Ok(match v {
                    "Row" => Field::Row,
                    "key" => Field::Key,
                    "Cell" => Field::Cell,
                    "column" => Field::Column,
                    "timestamp" => Field::Timestamp,
                    "$" => Field::Value,
                    _ => Field::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

struct SetV;

impl<'de> Visitor<'de> for SetV {
    type Value = CellSet;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a CellSet object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CellSet, A::Error> {
        let mut set = CellSet::default();
        while let Some(k) = map.next_key::<Field>()? {
            if k == Field::Row {
                set.rows = map.next_value_seed(List("Row", RowSeed))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(set)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<CellSet, A::Error> {
        Err(not_object("a CellSet"))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<CellSet, E> {
        Err(not_object("a CellSet"))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<CellSet, E> {
        Err(not_object("a CellSet"))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<CellSet, E> {
        Err(not_object("a CellSet"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<CellSet, E> {
        Err(not_object("a CellSet"))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<CellSet, E> {
        Err(not_object("a CellSet"))
    }
    fn visit_unit<E: de::Error>(self) -> Result<CellSet, E> {
        Err(not_object("a CellSet"))
    }
}

/// A list of `T` under key `.0`; Jackson also reads one object where a list belongs, and
/// `null` as none.
struct List<S>(&'static str, S);

impl<'de, S: DeserializeSeed<'de> + Copy> DeserializeSeed<'de> for List<S> {
    type Value = Vec<S::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, S: DeserializeSeed<'de> + Copy> Visitor<'de> for List<S> {
    type Value = Vec<S::Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} as a list", self.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = seq.next_element_seed(self.1)? {
            v.push(x);
        }
        Ok(v)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(vec![self
            .1
            .deserialize(de::value::MapAccessDeserializer::new(map))?])
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a list, not {v:?}", self.0)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a list, not {v}", self.0)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a list, not {v}", self.0)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a list, not {v}", self.0)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a list, not {v}", self.0)))
    }
}

/// One object of a list, of a kind that says what it must be.
macro_rules! object_seed {
    ($seed:ident, $value:ty, $what:literal, |$map:ident| $body:block) => {
        #[derive(Clone, Copy)]
        struct $seed;

        impl<'de> DeserializeSeed<'de> for $seed {
            type Value = $value;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<$value, D::Error> {
                d.deserialize_any(self)
            }
        }

        impl<'de> Visitor<'de> for $seed {
            type Value = $value;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str($what)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut $map: A) -> Result<$value, A::Error> $body
            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<$value, A::Error> {
                Err(not_object(concat!("each ", $what)))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<$value, E> {
                Err(not_object(concat!("each ", $what)))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<$value, E> {
                Err(not_object(concat!("each ", $what)))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<$value, E> {
                Err(not_object(concat!("each ", $what)))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<$value, E> {
                Err(not_object(concat!("each ", $what)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<$value, E> {
                Err(not_object(concat!("each ", $what)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<$value, E> {
                Err(not_object(concat!("each ", $what)))
            }
        }
    };
}

object_seed!(RowSeed, RowM, "Row", |map| {
    let mut row = RowM::default();
    while let Some(k) = map.next_key::<Field>()? {
        match k {
            Field::Key => row.key = map.next_value_seed(B64("key"))?,
            Field::Cell => row.cells = map.next_value_seed(List("Cell", CellSeed))?,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(row)
});

object_seed!(CellSeed, CellM, "Cell", |map| {
    let mut cell = CellM {
        column: None,
        timestamp: LATEST,
        value: Vec::new(),
    };
    while let Some(k) = map.next_key::<Field>()? {
        match k {
            Field::Column => cell.column = map.next_value_seed(B64("column"))?,
            Field::Timestamp => {
                cell.timestamp = map.next_value_seed(Number("timestamp"))?.unwrap_or(LATEST)
            }
            Field::Value => cell.value = map.next_value_seed(B64("$"))?.unwrap_or_default(),
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(cell)
});

/// A base64 string field (None for `null`), decoded as it is read.
#[derive(Clone, Copy)]
struct B64(&'static str);

impl<'de> DeserializeSeed<'de> for B64 {
    type Value = Option<Vec<u8>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for B64 {
    type Value = Option<Vec<u8>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} as a base64 string", self.0)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        unb64(self.0, v).map(Some).map_err(E::custom)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a string, not {v}", self.0)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a string, not {v}", self.0)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a string, not {v}", self.0)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a string, not {v}", self.0)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::custom(format!(
            "{} must be a string, not a list",
            self.0
        )))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::custom(format!(
            "{} must be a string, not an object",
            self.0
        )))
    }
}

/// A whole number field (None for `null`); Jackson also takes one written as a string.
#[derive(Clone, Copy)]
struct Number(&'static str);

impl<'de> DeserializeSeed<'de> for Number {
    type Value = Option<i64>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Number {
    type Value = Option<i64>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} as a whole number", self.0)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        i64::try_from(v)
            .map(Some)
            .map_err(|_| E::custom(format!("{} must be a whole number: {v}", self.0)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a whole number: {v}", self.0)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        v.trim()
            .parse()
            .map(Some)
            .map_err(|_| E::custom(format!("{} must be a whole number: {v:?}", self.0)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Err(E::custom(format!("{} must be a number, not {v}", self.0)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::custom(format!(
            "{} must be a number, not a list",
            self.0
        )))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::custom(format!(
            "{} must be a number, not an object",
            self.0
        )))
    }
}

/// An XML cell set, step by step: `<Row key>` children of `<CellSet>`, `<Cell column
/// timestamp>` children of a row with the value as their text; other elements are skipped.
pub fn from_xml(body: &[u8]) -> Result<CellSet, String> {
    let mut set = CellSet::default();
    // The names of the open elements, and the row and cell being read.
    let mut open: Vec<String> = Vec::new();
    let mut row: Option<RowM> = None;
    let mut cell: Option<(CellM, String)> = None;
    xml::walk(body, |step| {
        match step {
            Step::Open(e) => {
                match (open.len(), e.name.as_str()) {
                    (0, "CellSet") => {}
                    (0, other) => {
                        return Err(format!("expected a <CellSet> document, not <{other}>"))
                    }
                    (1, "Row") => {
                        let key = e.get("key").map(|k| unb64("Row key", k)).transpose()?;
                        row = Some(RowM {
                            key,
                            cells: Vec::new(),
                        });
                    }
                    (2, "Cell") if open[1] == "Row" => {
                        let column = e
                            .get("column")
                            .map(|s| unb64("Cell column", s))
                            .transpose()?;
                        let timestamp = match e.get("timestamp") {
                            Some(t) => t
                                .trim()
                                .parse()
                                .map_err(|_| format!("Cell timestamp is not a number: {t:?}"))?,
                            None => LATEST,
                        };
                        let c = CellM {
                            column,
                            timestamp,
                            value: Vec::new(),
                        };
                        cell = Some((c, String::new()));
                    }
                    _ => {}
                }
                open.push(e.name);
            }
            Step::Text(t) => {
                if open.len() == 3 && open[1] == "Row" && open[2] == "Cell" {
                    if let Some((_, text)) = &mut cell {
                        text.push_str(&t);
                    }
                }
            }
            Step::Close => {
                let closing = open.pop().unwrap_or_default();
                match (open.len(), closing.as_str()) {
                    (2, "Cell") if open[1] == "Row" => {
                        if let (Some((mut c, text)), Some(r)) = (cell.take(), row.as_mut()) {
                            c.value = unb64("Cell value", &text)?;
                            r.cells.push(c);
                        }
                    }
                    (1, "Row") => set.rows.extend(row.take()),
                    _ => {}
                }
            }
        }
        Ok(())
    })?;
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set() -> CellSet {
        CellSet {
            rows: vec![
                RowM {
                    key: Some(b"r1".to_vec()),
                    cells: vec![
                        CellM {
                            column: Some(b"cf:a".to_vec()),
                            timestamp: 7,
                            value: vec![0, 255, 1],
                        },
                        CellM {
                            column: Some(b"cf:b".to_vec()),
                            timestamp: LATEST,
                            value: Vec::new(),
                        },
                    ],
                },
                RowM {
                    key: None,
                    cells: Vec::new(),
                },
            ],
        }
    }

    #[test]
    fn decodes_what_the_tree_readers_decode() {
        let s = set();
        let text = s.to_json().to_string();
        assert_eq!(from_json(text.as_bytes()).unwrap(), s.clone().keyed());
        let doc = xml::write(&s.to_xml());
        assert_eq!(
            from_xml(&doc).unwrap(),
            CellSet::from_xml(&xml::parse(&doc).unwrap()).unwrap()
        );
        // Jackson's leniencies: one object for a list, a timestamp as a string, null values.
        let v = json!({"Row": {"key": "cjE=", "Cell": {"column": "Y2Y6YQ==", "timestamp": "7", "$": "AP8B"}}, "other": [1, {"x": 2}]});
        let want = CellSet::from_json(&v).unwrap();
        assert_eq!(from_json(v.to_string().as_bytes()).unwrap(), want);
        let v = json!({"Row": [{"key": null, "Cell": null}], "x": null});
        assert_eq!(
            from_json(v.to_string().as_bytes()).unwrap(),
            CellSet::from_json(&v).unwrap()
        );
    }

    #[test]
    fn bad_documents_say_what_is_wrong() {
        let msg = |b: &str| from_json(b.as_bytes()).unwrap_err().body;
        assert!(msg("{not json").contains("malformed JSON"));
        assert!(msg("{\"Row\":[]} x").contains("malformed JSON"));
        assert!(msg("[1]").contains("a CellSet must be a JSON object"));
        assert!(msg("{\"Row\":[1]}").contains("each Row must be a JSON object"));
        assert!(msg("{\"Row\":\"x\"}").contains("Row must be a list"));
        assert!(msg("{\"Row\":[{\"key\":\"!!\"}]}").contains("key is not valid base64"));
        assert!(msg("{\"Row\":[{\"Cell\":[{\"timestamp\":1.5}]}]}").contains("whole number"));
        let x = |b: &str| from_xml(b.as_bytes()).unwrap_err();
        assert!(x("<Scanner/>").contains("expected a <CellSet>"));
        assert!(x("<CellSet><Row key='!!'/></CellSet>").contains("base64"));
        assert!(x("<CellSet><Row>").contains("ends before"));
    }

    #[test]
    fn damaged_documents_are_errors_never_panics() {
        let json = set().to_json().to_string().into_bytes();
        let xml_doc = xml::write(&set().to_xml());
        for doc in [json, xml_doc] {
            for cut in 0..doc.len() {
                let _ = from_json(&doc[..cut]);
                let _ = from_xml(&doc[..cut]);
                let mut flipped = doc.clone();
                flipped[cut] ^= 0x55;
                let _ = from_json(&flipped);
                let _ = from_xml(&flipped);
            }
        }
    }

    impl CellSet {
        /// As JSON writes it: every row with a key (None written as "").
        fn keyed(mut self) -> CellSet {
            for r in &mut self.rows {
                r.key.get_or_insert_with(Vec::new);
                for c in &mut r.cells {
                    c.column.get_or_insert_with(Vec::new);
                }
            }
            self
        }
    }
}
