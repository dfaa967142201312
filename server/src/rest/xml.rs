//! A small element tree over quick-xml: the REST models read and write XML through it, so
//! each model says its shape once (elements, attributes, text) and the escaping, the
//! declaration and the checks on hostile input live here. Bodies are bounded before they get
//! here (`rest::MAX_BODY`); the depth is bounded too, so no input nests without limit.

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::{Reader, Writer};

/// Deepest nesting a request document may have (HBase's deepest model, a scanner's filter
/// list inside a filter list, is far below this).
const MAX_DEPTH: usize = 64;

/// One XML element: its name, attributes in order, child elements and text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub text: String,
}

impl Element {
    pub fn new(name: &str) -> Element {
        Element {
            name: name.to_string(),
            ..Default::default()
        }
    }

    pub fn attr(mut self, key: &str, value: impl Into<String>) -> Element {
        self.attrs.push((key.to_string(), value.into()));
        self
    }

    pub fn child(mut self, e: Element) -> Element {
        self.children.push(e);
        self
    }

    pub fn text(mut self, t: impl Into<String>) -> Element {
        self.text = t.into();
        self
    }

    /// The value of attribute `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Child elements named `name`.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    pub fn first(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

/// The document `root` as HBase's JAXB writes it: the standalone declaration, then the
/// element with no whitespace between tags.
pub fn write(root: &Element) -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    // Writing into a Vec cannot fail; errors are ignored rather than unwrapped.
    let _ = w.write_event(Event::Decl(BytesDecl::new(
        "1.0",
        Some("UTF-8"),
        Some("yes"),
    )));
    write_element(&mut w, root);
    w.into_inner()
}

/// One element with no declaration (a part of a document written piece by piece).
pub fn write_fragment(e: &Element) -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    write_element(&mut w, e);
    w.into_inner()
}

/// The declaration [`write`] starts a document with.
pub fn declaration() -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    let _ = w.write_event(Event::Decl(BytesDecl::new(
        "1.0",
        Some("UTF-8"),
        Some("yes"),
    )));
    w.into_inner()
}

fn write_element(w: &mut Writer<Vec<u8>>, e: &Element) {
    let mut start = BytesStart::new(e.name.as_str());
    for (k, v) in &e.attrs {
        start.push_attribute((k.as_str(), v.as_str()));
    }
    if e.children.is_empty() && e.text.is_empty() {
        let _ = w.write_event(Event::Empty(start));
        return;
    }
    let _ = w.write_event(Event::Start(start));
    if !e.text.is_empty() {
        let _ = w.write_event(Event::Text(BytesText::new(&e.text)));
    }
    for c in &e.children {
        write_element(w, c);
    }
    let _ = w.write_event(Event::End(BytesEnd::new(e.name.as_str())));
}

/// Parses a request document into its root element. DTDs are refused (no entity tricks);
/// a message says what is wrong and where.
pub fn parse(body: &[u8]) -> Result<Element, String> {
    let mut reader = Reader::from_reader(body);
    reader.config_mut().trim_text(true);
    let mut stack: Vec<Element> = Vec::new();
    let mut buf = Vec::new();
    loop {
        let pos = reader.buffer_position();
        let ev = reader
            .read_event_into(&mut buf)
            .map_err(|e| format!("malformed XML at byte {pos}: {e}"))?;
        match ev {
            Event::Start(s) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(format!("XML nested deeper than {MAX_DEPTH} elements"));
                }
                stack.push(start_element(&s)?);
            }
            Event::Empty(s) => {
                let e = start_element(&s)?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(e),
                    None => return Ok(e),
                }
            }
            Event::End(_) => {
                let Some(done) = stack.pop() else {
                    return Err("XML end tag without a start tag".into());
                };
                match stack.last_mut() {
                    Some(parent) => parent.children.push(done),
                    None => return Ok(done),
                }
            }
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    let s = t.decode().map_err(|e| format!("bad text in XML: {e}"))?;
                    let s = quick_xml::escape::unescape(&s)
                        .map_err(|e| format!("bad text in XML: {e}"))?;
                    top.text.push_str(&s);
                }
            }
            Event::CData(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&String::from_utf8_lossy(&t));
                }
            }
            Event::GeneralRef(r) => {
                if let Some(top) = stack.last_mut() {
                    let name = String::from_utf8_lossy(&r).into_owned();
                    let reference = format!("&{name};");
                    let s = quick_xml::escape::unescape(&reference)
                        .map_err(|e| format!("bad entity reference in XML: {e}"))?;
                    top.text.push_str(&s);
                }
            }
            Event::DocType(_) => return Err("XML with a DOCTYPE is not accepted".into()),
            Event::Eof => return Err("XML document ends before its root element closes".into()),
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
        }
        buf.clear();
    }
}

fn start_element(s: &BytesStart<'_>) -> Result<Element, String> {
    let name = String::from_utf8_lossy(s.local_name().as_ref()).into_owned();
    let mut e = Element::new(&name);
    for a in s.attributes() {
        let a = a.map_err(|e| format!("bad attribute in <{name}>: {e}"))?;
        let key = String::from_utf8_lossy(a.key.local_name().as_ref()).into_owned();
        let value = a
            .unescape_value()
            .map_err(|e| format!("bad attribute value in <{name}>: {e}"))?
            .into_owned();
        e.attrs.push((key, value));
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_escapes() {
        let doc = Element::new("CellSet").child(
            Element::new("Row")
                .attr("key", "a<b")
                .child(Element::new("Cell").attr("column", "x&y").text("v\"1")),
        );
        let bytes = write(&doc);
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"));
        assert_eq!(parse(&bytes).unwrap(), doc);
    }

    #[test]
    fn hostile_documents_are_errors() {
        assert!(parse(b"<a><b></a>").is_err());
        assert!(parse(b"<a>").is_err());
        assert!(parse(b"").is_err());
        assert!(parse(b"<!DOCTYPE x [<!ENTITY e 'x'>]><a>&e;</a>").is_err());
        let deep = "<a>".repeat(100) + &"</a>".repeat(100);
        assert!(parse(deep.as_bytes()).is_err());
    }
}
