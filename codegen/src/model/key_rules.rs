//! The row-key rules of a schema: layout, components, hash prefix and salt. Each check names
//! the field it rejects (`tables.<id>.key.components[1].width`, ...).

use std::ops::Range;

use toml::Spanned;

use super::validate::{is_ident, Cx};
use super::*;
use crate::schema::{RawComponent, RawKey};

impl Cx<'_> {
    pub(super) fn key(
        &mut self,
        table: &str,
        k: &RawKey,
        span: Range<usize>,
        path: &str,
    ) -> Option<KeyDesign> {
        let before = self.errors.len();
        let layout = match k.layout.get_ref().as_str() {
            "separated" => match &k.separator {
                None => {
                    self.err(
                        k.layout.span(),
                        &format!("{path}.separator"),
                        "the separated layout needs a separator",
                    );
                    None
                }
                Some(s) => {
                    let mut chars = s.get_ref().chars();
                    match (chars.next(), chars.next()) {
                        (Some(c), None) if c.is_ascii_punctuation() && c != '\\' => {
                            Some(Layout::Separated { separator: c })
                        }
                        _ => {
                            self.err(s.span(), &format!("{path}.separator"), "the separator must be one ASCII punctuation character other than \\");
                            None
                        }
                    }
                }
            },
            "fixed" | "binary" => {
                if let Some(s) = &k.separator {
                    self.err(
                        s.span(),
                        &format!("{path}.separator"),
                        format!("the {} layout has no separator", k.layout.get_ref()),
                    );
                }
                Some(if k.layout.get_ref() == "fixed" {
                    Layout::Fixed
                } else {
                    Layout::Binary
                })
            }
            other => {
                self.err(
                    k.layout.span(),
                    &format!("{path}.layout"),
                    format!("unknown layout {other:?} (separated, fixed or binary)"),
                );
                None
            }
        };
        let layout = layout?;
        if k.components.get_ref().is_empty() {
            self.err(
                k.components.span(),
                &format!("{path}.components"),
                "a key needs at least one component",
            );
        }
        let mut components: Vec<Component> = Vec::new();
        // Components already reported: the hash must not add "no key component named" for them.
        let mut failed: Vec<&str> = Vec::new();
        for (i, c) in k.components.get_ref().iter().enumerate() {
            let cpath = format!("{path}.components[{i}]");
            let comp = self.component(c.get_ref(), c.span(), &cpath, layout);
            if comp.is_none() {
                failed.push(c.get_ref().name.get_ref());
            }
            if let Some(comp) = comp {
                if components.iter().any(|o| o.name == comp.name) {
                    self.err(
                        c.get_ref().name.span(),
                        &format!("{cpath}.name"),
                        format!("duplicate component name {:?}", comp.name),
                    );
                }
                components.push(comp);
            }
        }
        let hash = match &k.hash {
            None => None,
            Some(h) => {
                let hpath = format!("{path}.hash");
                let h_span = h.span();
                let h = h.get_ref();
                let mut idx = Vec::new();
                if h.components.get_ref().is_empty() {
                    self.err(
                        h.components.span(),
                        &format!("{hpath}.components"),
                        "name at least one component to hash",
                    );
                }
                for (i, n) in h.components.get_ref().iter().enumerate() {
                    match components.iter().position(|c| &c.name == n.get_ref()) {
                        None if failed.contains(&n.get_ref().as_str()) => {}
                        None => self.err(
                            n.span(),
                            &format!("{hpath}.components[{i}]"),
                            format!("no key component named {:?}", n.get_ref()),
                        ),
                        Some(p) if idx.contains(&p) => self.err(
                            n.span(),
                            &format!("{hpath}.components[{i}]"),
                            format!("{:?} is named twice", n.get_ref()),
                        ),
                        Some(p) => idx.push(p),
                    }
                }
                let form = match (&h.hex_chars, &h.bytes) {
                    (Some(_), None) => self
                        .int_in(&h.hex_chars, 1, 32, &format!("{hpath}.hex_chars"))
                        .map(|n| HashForm::HexChars(n as u32)),
                    (None, Some(b)) => {
                        if matches!(layout, Layout::Separated { .. }) {
                            self.err(b.span(), &format!("{hpath}.bytes"), "raw hash bytes may contain the separator; use hex_chars in the separated layout");
                        }
                        self.int_in(&h.bytes, 1, 16, &format!("{hpath}.bytes"))
                            .map(|n| HashForm::Bytes(n as u32))
                    }
                    _ => {
                        self.err(h_span, &hpath, "give exactly one of hex_chars or bytes");
                        None
                    }
                };
                let declared = k.components.get_ref().len();
                let keep = h.keep.as_ref().is_none_or(|k| *k.get_ref());
                if let Some(span) = h.keep.as_ref().map(|k| k.span()) {
                    if !keep && failed.is_empty() && idx.len() == declared && declared > 0 {
                        self.err(
                            span,
                            &format!("{hpath}.keep"),
                            "dropping every component leaves only the hash: keys would collide",
                        );
                    }
                }
                form.map(|form| HashPrefix {
                    components: idx,
                    form,
                    keep,
                })
            }
        };
        if let Some(h) = &hash {
            if !h.keep {
                for &i in &h.components {
                    components[i].kept = false;
                }
            }
        }
        let salt = match &k.salt {
            None => None,
            Some(s) => {
                let spath = format!("{path}.salt");
                let s = s.get_ref();
                let form = match (s.encoding.get_ref().as_str(), &s.alphabet) {
                    ("byte", None) => Some(SaltForm::Byte),
                    ("byte", Some(a)) => {
                        self.err(
                            a.span(),
                            &format!("{spath}.alphabet"),
                            "an alphabet applies to encoding = \"char\"",
                        );
                        None
                    }
                    ("char", None) => {
                        self.err(
                            s.encoding.span(),
                            &format!("{spath}.alphabet"),
                            "encoding = \"char\" needs an alphabet",
                        );
                        None
                    }
                    ("char", Some(a)) => {
                        let text = a.get_ref();
                        let ok = !text.is_empty()
                            && text.chars().all(|c| c.is_ascii_graphic())
                            && text.as_bytes().windows(2).all(|w| w[0] < w[1]);
                        if !ok {
                            self.err(a.span(), &format!("{spath}.alphabet"), "the alphabet must be printable ASCII characters in strictly ascending order");
                            None
                        } else if let Some(sep) = layout.separator().filter(|s| text.contains(*s)) {
                            self.err(
                                a.span(),
                                &format!("{spath}.alphabet"),
                                format!("the alphabet contains the separator {sep:?}"),
                            );
                            None
                        } else {
                            Some(SaltForm::Char {
                                alphabet: text.clone(),
                            })
                        }
                    }
                    (other, _) => {
                        self.err(
                            s.encoding.span(),
                            &format!("{spath}.encoding"),
                            format!("unknown salt encoding {other:?} (byte or char)"),
                        );
                        None
                    }
                };
                let max = match &form {
                    Some(SaltForm::Char { alphabet }) => alphabet.len() as i64,
                    _ => 256,
                };
                let buckets = *s.buckets.get_ref();
                if !(2..=max).contains(&buckets) {
                    self.err(
                        s.buckets.span(),
                        &format!("{spath}.buckets"),
                        format!("salt buckets {buckets} out of range 2..={max}"),
                    );
                }
                form.filter(|_| (2..=max).contains(&buckets))
                    .map(|form| Salt {
                        buckets: buckets as u32,
                        form,
                    })
            }
        };
        let _ = span;
        if self.errors.len() > before {
            return None;
        }
        Some(KeyDesign {
            table: table.to_string(),
            layout,
            components,
            hash,
            salt,
        })
    }

    fn component(
        &mut self,
        c: &RawComponent,
        span: Range<usize>,
        path: &str,
        layout: Layout,
    ) -> Option<Component> {
        let before = self.errors.len();
        let name = c.name.get_ref().clone();
        if !is_ident(&name) {
            self.err(
                c.name.span(),
                &format!("{path}.name"),
                "component names must be snake_case ([a-z][a-z0-9_]*)",
            );
        }
        let ty = self.scalar(&c.ty, &format!("{path}.type"))?;
        use ScalarType as T;
        match ty {
            T::Bool | T::Json | T::Counter => {
                self.err(c.ty.span(), &format!("{path}.type"), format!("{} cannot be a key component (string, bytes, i32, i64, f32, f64, timestamp-ms)", ty.name()));
                return None;
            }
            T::F32 | T::F64 if layout != Layout::Binary => {
                self.err(
                    c.ty.span(),
                    &format!("{path}.type"),
                    "float components need the binary layout (text forms do not sort)",
                );
            }
            _ => {}
        }
        let sep = layout.separator();
        let width = match &c.width {
            None => {
                if layout == Layout::Fixed {
                    self.err(
                        span.clone(),
                        &format!("{path}.width"),
                        "every component of the fixed layout needs a width",
                    );
                }
                None
            }
            Some(w) if layout == Layout::Binary => {
                self.err(
                    w.span(),
                    &format!("{path}.width"),
                    "width has no meaning in the binary layout",
                );
                None
            }
            Some(w) if ty.is_integer() => {
                let max = if ty == T::I32 { 10 } else { 19 };
                self.int_in(&c.width, 1, max, &format!("{path}.width"))
                    .map(|v| v as u32)
                    .or_else(|| {
                        let _ = w;
                        None
                    })
            }
            Some(w) if layout == Layout::Fixed => self
                .int_in(&c.width, 1, 1024, &format!("{path}.width"))
                .map(|v| v as u32)
                .or_else(|| {
                    let _ = w;
                    None
                }),
            Some(w) => {
                self.err(
                    w.span(),
                    &format!("{path}.width"),
                    "in the separated layout only integer components take a width",
                );
                None
            }
        };
        let charset = match &c.charset {
            None => Charset::Any,
            Some(cs) if ty != T::String => {
                self.err(
                    cs.span(),
                    &format!("{path}.charset"),
                    "charset applies to string components",
                );
                Charset::Any
            }
            Some(cs) => match cs.get_ref().as_str() {
                "any" => Charset::Any,
                "alnum" => Charset::Alnum,
                "word" => Charset::Word,
                "hex" => Charset::Hex,
                "digits" => Charset::Digits,
                other => {
                    self.err(
                        cs.span(),
                        &format!("{path}.charset"),
                        format!("unknown charset {other:?} (any, alnum, word, hex, digits)"),
                    );
                    Charset::Any
                }
            },
        };
        let escape = c.escape.as_ref().is_some_and(|e| *e.get_ref());
        if let Some(e) = &c.escape {
            if *e.get_ref() && (ty != T::String || sep.is_none()) {
                self.err(
                    e.span(),
                    &format!("{path}.escape"),
                    "escape applies to string components of the separated layout",
                );
            }
        }
        if let (Some(sep), T::String) = (sep, ty) {
            if !escape && charset.allows(sep) {
                let at = c.charset.as_ref().map_or(span.clone(), Spanned::span);
                self.err(at, &format!("{path}.charset"), format!("the separator {sep:?} can appear inside string component {name:?}: declare escape = true or a charset without it"));
            }
        }
        if sep == Some('-') && ty.is_integer() && width.is_none() && c.width.is_none() {
            self.err(span.clone(), &format!("{path}.width"), format!("negative numbers would contain the separator '-': give component {name:?} a width (non-negative, zero-padded)"));
        }
        let desc = match &c.order {
            None => false,
            Some(o) => match o.get_ref().as_str() {
                "asc" => false,
                "desc" => {
                    if layout != Layout::Binary && !(ty.is_integer() && width.is_some()) {
                        self.err(
                            o.span(),
                            &format!("{path}.order"),
                            "desc needs the binary layout, or an integer with a width",
                        );
                    }
                    true
                }
                other => {
                    self.err(
                        o.span(),
                        &format!("{path}.order"),
                        format!("unknown order {other:?} (asc or desc)"),
                    );
                    false
                }
            },
        };
        let reverse = match &c.reverse {
            None => None,
            Some(r) => match (r.get_ref().as_str(), ty) {
                ("chars", T::String) | ("segments", T::String) => Some(if r.get_ref() == "chars" {
                    Reverse::Chars
                } else {
                    Reverse::Segments
                }),
                ("chars", t) if t.is_integer() && width.is_some() => Some(Reverse::Chars),
                ("chars" | "segments", _) => {
                    self.err(r.span(), &format!("{path}.reverse"), "reverse applies to strings (chars or segments) and to integers with a width (chars)");
                    None
                }
                (other, _) => {
                    self.err(
                        r.span(),
                        &format!("{path}.reverse"),
                        format!("unknown reverse {other:?} (chars or segments)"),
                    );
                    None
                }
            },
        };
        let reverse_timestamp = c.reverse_timestamp.as_ref().is_some_and(|r| *r.get_ref());
        if let Some(r) = c.reverse_timestamp.as_ref().filter(|r| *r.get_ref()) {
            if !matches!(ty, T::I64 | T::TimestampMs) {
                self.err(
                    r.span(),
                    &format!("{path}.reverse_timestamp"),
                    "reverse_timestamp applies to i64 and timestamp-ms components",
                );
            } else if layout != Layout::Binary && width != Some(19) {
                self.err(
                    r.span(),
                    &format!("{path}.reverse_timestamp"),
                    "a reverse timestamp in text needs width = 19 to sort",
                );
            }
        }
        let allow_empty = c.allow_empty.as_ref().is_some_and(|a| *a.get_ref());
        if let Some(a) = c.allow_empty.as_ref().filter(|a| *a.get_ref()) {
            if !matches!(ty, T::String | T::Bytes) {
                self.err(
                    a.span(),
                    &format!("{path}.allow_empty"),
                    "allow_empty applies to string and bytes components",
                );
            }
        }
        if self.errors.len() > before {
            return None;
        }
        Some(Component {
            name,
            doc: c.doc.clone().unwrap_or_default().trim().to_string(),
            ty,
            width,
            charset,
            escape,
            desc,
            reverse,
            reverse_timestamp,
            allow_empty,
            kept: true,
        })
    }
}
