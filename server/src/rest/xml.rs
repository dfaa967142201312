//! A small element tree over quick-xml: the REST models read and write XML through it, so
//! each model says its shape once (elements, attributes, text) and the escaping, the
//! declaration and the checks on hostile input live here. Bodies are bounded before they get
//! here (`rest::MAX_BODY`); so are the depth, the attributes of an element and the size of a
//! parsed tree, so no input nests, spreads or grows without limit.

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

/// Most attributes one element may carry (HBase's models have a few; a table schema's
/// attributes are its settings). Checked as they are read, so a start tag of 200,000 attributes
/// is refused at the first one past it.
pub const MAX_ATTRIBUTES: usize = 1024;

/// How much more than its body a document's element tree ([`parse`]) may hold, plus
/// [`TREE_FLOOR`]: a document of many tiny elements or attributes is refused rather than
/// grown into a tree tens of times its size.
const TREE_FACTOR: usize = 4;
const TREE_FLOOR: usize = 1024 * 1024;

/// One step of a document, as [`walk`] meets it.
pub enum Step {
    /// An element opens: its name and attributes (no children or text yet).
    Open(Element),
    /// Text (or CDATA, or a character reference) directly inside the innermost open element.
    Text(String),
    /// The innermost open element closes.
    Close,
}

/// Reads a request document step by step, with the checks on hostile input: DTDs are refused
/// (no entity tricks), nesting is bounded ([`MAX_DEPTH`]), and so are an element's attributes
/// ([`MAX_ATTRIBUTES`], duplicates refused, in time linear in their number). Stops after the
/// root element closes. A message says what is wrong and where.
pub fn walk(body: &[u8], mut step: impl FnMut(Step) -> Result<(), String>) -> Result<(), String> {
    let mut reader = Reader::from_reader(body);
    reader.config_mut().trim_text(true);
    let mut depth = 0usize;
    let mut buf = Vec::new();
    loop {
        let pos = reader.buffer_position();
        let ev = reader
            .read_event_into(&mut buf)
            .map_err(|e| format!("malformed XML at byte {pos}: {e}"))?;
        let in_root = depth > 0;
        match ev {
            Event::Start(s) => {
                if depth >= MAX_DEPTH {
                    return Err(format!("XML nested deeper than {MAX_DEPTH} elements"));
                }
                step(Step::Open(start_element(&s)?))?;
                depth += 1;
            }
            Event::Empty(s) => {
                step(Step::Open(start_element(&s)?))?;
                step(Step::Close)?;
                if depth == 0 {
                    return Ok(());
                }
            }
            Event::End(_) => {
                if depth == 0 {
                    return Err("XML end tag without a start tag".into());
                }
                step(Step::Close)?;
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            }
            Event::Text(t) if in_root => {
                let s = t.decode().map_err(|e| format!("bad text in XML: {e}"))?;
                let s =
                    quick_xml::escape::unescape(&s).map_err(|e| format!("bad text in XML: {e}"))?;
                step(Step::Text(s.into_owned()))?;
            }
            Event::CData(t) if in_root => {
                step(Step::Text(String::from_utf8_lossy(&t).into_owned()))?;
            }
            Event::GeneralRef(r) if in_root => {
                let name = String::from_utf8_lossy(&r).into_owned();
                let reference = format!("&{name};");
                let s = quick_xml::escape::unescape(&reference)
                    .map_err(|e| format!("bad entity reference in XML: {e}"))?;
                step(Step::Text(s.into_owned()))?;
            }
            Event::DocType(_) => return Err("XML with a DOCTYPE is not accepted".into()),
            Event::Eof => return Err("XML document ends before its root element closes".into()),
            Event::Text(_) | Event::CData(_) | Event::GeneralRef(_) => {}
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
        }
        buf.clear();
    }
}

/// Parses a request document into its root element (for the small models: schemas,
/// scanners, namespaces; cell sets are read step by step, [`walk`]). The tree may hold at most
/// a few times the body.
pub fn parse(body: &[u8]) -> Result<Element, String> {
    let limit = body.len().saturating_mul(TREE_FACTOR) + TREE_FLOOR;
    let mut held = 0usize;
    let mut stack: Vec<Element> = Vec::new();
    let mut root = None;
    walk(body, |step| {
        match step {
            Step::Open(e) => {
                held += std::mem::size_of::<Element>()
                    + e.name.len()
                    + e.attrs
                        .iter()
                        .map(|(k, v)| std::mem::size_of::<(String, String)>() + k.len() + v.len())
                        .sum::<usize>();
                stack.push(e);
            }
            Step::Text(t) => {
                held += t.len();
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t);
                }
            }
            Step::Close => {
                let done = stack.pop().ok_or("XML end tag without a start tag")?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(done),
                    None => root = Some(done),
                }
            }
        }
        if held > limit {
            return Err(format!(
                "XML document too complex: its elements and attributes would take over {limit} \
                 bytes for a {}-byte body",
                body.len()
            ));
        }
        Ok(())
    })?;
    root.ok_or_else(|| "XML document has no root element".to_string())
}

fn start_element(s: &BytesStart<'_>) -> Result<Element, String> {
    let name = String::from_utf8_lossy(s.local_name().as_ref()).into_owned();
    let mut e = Element::new(&name);
    // quick-xml's own duplicate check compares each attribute with every earlier one
    // (quadratic: 80,000 attributes took 20 s); a set does it in linear time.
    let mut attributes = s.attributes();
    attributes.with_checks(false);
    let mut seen = std::collections::HashSet::new();
    for a in attributes {
        let a = a.map_err(|e| format!("bad attribute in <{name}>: {e}"))?;
        if e.attrs.len() >= MAX_ATTRIBUTES {
            return Err(format!(
                "<{name}> has more than {MAX_ATTRIBUTES} attributes"
            ));
        }
        if !seen.insert(a.key.as_ref().to_vec()) {
            return Err(format!(
                "bad attribute in <{name}>: {:?} is given twice",
                String::from_utf8_lossy(a.key.as_ref())
            ));
        }
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
        assert!(parse(b"<a x='1' x='2'/>").unwrap_err().contains("twice"));
    }

    #[test]
    fn attributes_are_bounded_per_element() {
        let many = |n: usize| {
            let attrs: String = (0..n).map(|i| format!(" a{i}=\"v\"")).collect();
            format!("<TableSchema{attrs}/>")
        };
        let ok = parse(many(MAX_ATTRIBUTES).as_bytes()).unwrap();
        assert_eq!(ok.attrs.len(), MAX_ATTRIBUTES);
        let e = parse(many(200_000).as_bytes()).unwrap_err();
        assert!(e.contains("more than 1024 attributes"), "{e}");
    }

    #[test]
    fn a_tree_of_tiny_elements_is_refused() {
        let doc = format!("<r>{}</r>", "<a/>".repeat(200_000));
        let e = parse(doc.as_bytes()).unwrap_err();
        assert!(e.contains("too complex"), "{e}");
        // The same elements with room to spare parse.
        let doc = format!("<r>{}</r>", "<a/>".repeat(1000));
        assert_eq!(parse(doc.as_bytes()).unwrap().children.len(), 1000);
    }
}
