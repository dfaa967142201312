//! A cell set request body (`PUT`/`POST` of rows) decoded straight into the row model: JSON
//! through serde visitors, XML step by step ([`xml::walk`]), protobuf field by field
//! ([`CellSet::from_pb`]), base64 decoded as each field is met, with no document tree or
//! message structures between. A JSON tree of a cell set took about 8 times its text
//! (each cell a map of strings); this holds the body and the decoded cells only.
//!
//! What is accepted is what [`CellSet::from_json`] and [`CellSet::from_xml`] accept (Jackson's
//! and JAXB's leniencies: a single object where a list belongs, a timestamp written as a
//! string, line breaks in base64), with the same messages.

use std::fmt;

use axum::http::StatusCode;
use prost::encoding::WireType;
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
        f.write_str("a CellSet as a JSON object")
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
        write!(f, "{} as a list of JSON objects", self.0)
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
                f.write_str(concat!("each ", $what, " as a JSON object"))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut $map: A) -> Result<$value, A::Error> $body
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

impl CellSet {
    /// Reads a cell set straight into the row model. prost's message types would hold each
    /// cell twice over for a while (their own structures, then the model's), which for small
    /// cells is several times the body; this reads the same wire format field by field.
    pub fn from_pb(b: &[u8]) -> Result<CellSet, String> {
        let err = |e: String| format!("invalid protobuf CellSet message: {e}");
        let mut set = CellSet::default();
        let mut buf = b;
        while !buf.is_empty() {
            let (tag, wire) = key(&mut buf).map_err(err)?;
            match tag {
                1 => set
                    .rows
                    .push(pb_row(delimited(wire, &mut buf).map_err(err)?).map_err(err)?),
                _ => skip(wire, tag, &mut buf).map_err(err)?,
            }
        }
        Ok(set)
    }
}

fn key(buf: &mut &[u8]) -> Result<(u32, WireType), String> {
    prost::encoding::decode_key(buf).map_err(|e| e.to_string())
}

fn skip(wire: WireType, tag: u32, buf: &mut &[u8]) -> Result<(), String> {
    prost::encoding::skip_field(wire, tag, buf, Default::default()).map_err(|e| e.to_string())
}

fn wire_is(want: WireType, wire: WireType) -> Result<(), String> {
    prost::encoding::check_wire_type(want, wire).map_err(|e| e.to_string())
}

/// A length-delimited field's bytes.
fn delimited<'a>(wire: WireType, buf: &mut &'a [u8]) -> Result<&'a [u8], String> {
    wire_is(WireType::LengthDelimited, wire)?;
    let n = prost::encoding::decode_varint(buf).map_err(|e| e.to_string())?;
    if n > buf.len() as u64 {
        return Err("buffer underflow".into());
    }
    let (field, rest) = buf.split_at(n as usize);
    *buf = rest;
    Ok(field)
}

fn pb_row(mut buf: &[u8]) -> Result<RowM, String> {
    let mut row = RowM::default();
    while !buf.is_empty() {
        let (tag, wire) = key(&mut buf)?;
        match tag {
            1 => row.key = Some(delimited(wire, &mut buf)?.to_vec()),
            2 => row.cells.push(pb_cell(delimited(wire, &mut buf)?)?),
            _ => skip(wire, tag, &mut buf)?,
        }
    }
    Ok(row)
}

fn pb_cell(mut buf: &[u8]) -> Result<CellM, String> {
    let mut cell = CellM {
        column: None,
        timestamp: LATEST,
        value: Vec::new(),
    };
    while !buf.is_empty() {
        let (tag, wire) = key(&mut buf)?;
        match tag {
            2 => cell.column = Some(delimited(wire, &mut buf)?.to_vec()),
            3 => {
                wire_is(WireType::Varint, wire)?;
                let v = prost::encoding::decode_varint(&mut buf).map_err(|e| e.to_string())?;
                cell.timestamp = v as i64;
            }
            4 => cell.value = delimited(wire, &mut buf)?.to_vec(),
            // The cell's row, which HBase's model does not read either.
            1 => {
                delimited(wire, &mut buf)?;
            }
            _ => skip(wire, tag, &mut buf)?,
        }
    }
    Ok(cell)
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
        assert!(msg("[1]").contains("expected a CellSet as a JSON object"));
        assert!(msg("{\"Row\":[1]}").contains("expected each Row as a JSON object"));
        assert!(msg("{\"Row\":\"x\"}").contains("expected Row as a list"));
        assert!(msg("{\"Row\":[{\"key\":1}]}").contains("expected key as a base64 string"));
        assert!(msg("{\"Row\":[{\"key\":\"!!\"}]}").contains("key is not valid base64"));
        assert!(msg("{\"Row\":[{\"Cell\":[{\"timestamp\":1.5}]}]}").contains("whole number"));
        let x = |b: &str| from_xml(b.as_bytes()).unwrap_err();
        assert!(x("<Scanner/>").contains("expected a <CellSet>"));
        assert!(x("<CellSet><Row key='!!'/></CellSet>").contains("base64"));
        assert!(x("<CellSet><Row>").contains("ends before"));
    }

    #[test]
    fn protobuf_is_read_as_prosts_messages_read_it() {
        use crate::rest::protobuf::PbCellSet;
        use prost::Message;
        let set = set();
        // The direct reader reads what prost's messages read, and refuses what they refuse.
        let bytes = set.to_pb();
        let via_prost = |b: &[u8]| {
            PbCellSet::decode(b).map(|m| {
                m.rows
                    .into_iter()
                    .map(|r| {
                        let cells: Vec<(Option<Vec<u8>>, i64, Vec<u8>)> = r
                            .values
                            .into_iter()
                            .map(|c| {
                                (
                                    c.column,
                                    c.timestamp.unwrap_or(LATEST),
                                    c.data.unwrap_or_default(),
                                )
                            })
                            .collect();
                        (r.key, cells)
                    })
                    .collect::<Vec<_>>()
            })
        };
        let direct = |b: &[u8]| {
            CellSet::from_pb(b).map(|s| {
                s.rows
                    .into_iter()
                    .map(|r| {
                        let cells: Vec<(Option<Vec<u8>>, i64, Vec<u8>)> = r
                            .cells
                            .into_iter()
                            .map(|c| (c.column, c.timestamp, c.value))
                            .collect();
                        (r.key, cells)
                    })
                    .collect::<Vec<_>>()
            })
        };
        for cut in 0..=bytes.len() {
            for flip in [None, Some(0x01u8), Some(0x80)] {
                let mut b = bytes[..cut].to_vec();
                if let (Some(x), Some(last)) = (flip, b.last_mut()) {
                    *last ^= x;
                }
                match (via_prost(&b), direct(&b)) {
                    (Ok(p), Ok(d)) => assert_eq!(p, d, "{b:?}"),
                    (Err(_), Err(_)) => {}
                    (p, d) => panic!("prost {p:?}, direct {d:?} for {b:?}"),
                }
            }
        }
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
