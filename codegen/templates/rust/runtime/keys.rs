//! Row-key encodings, byte for byte as docs/schema.md ("Row-key encodings") defines them and
//! as every redbase SDK produces them. Generated table modules describe their key with a
//! constant [`KeySpec`]; the typed key structs convert to and from [`KeyValue`]s.

use md5::{Digest, Md5};

use super::error::{Error, Result};
use super::key_fields::{bad, binary, check, decode_binary, decode_text, split_unescaped, text};
pub use super::key_fields::{hex, unhex};

/// One key component's value, whatever its type.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyValue {
    Str(String),
    Bytes(Vec<u8>),
    /// i32, i64 and timestamp-ms components.
    Int(i64),
    F32(f32),
    F64(f64),
}

/// A component's declared type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    String,
    Bytes,
    I32,
    I64,
    TimestampMs,
    F32,
    F64,
}

/// Characters a string component may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    Any,
    Alnum,
    Word,
    Hex,
    Digits,
}

/// How a component is stored reversed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reverse {
    Chars,
    Segments,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Separated(u8),
    Fixed,
    Binary,
}

/// One key component as the schema declares it.
#[derive(Debug, Clone, Copy)]
pub struct Component {
    pub name: &'static str,
    pub ty: KeyType,
    pub width: Option<u32>,
    pub charset: Charset,
    pub escape: bool,
    pub desc: bool,
    pub reverse: Option<Reverse>,
    pub reverse_timestamp: bool,
    /// An empty string or byte string is a value, not a forgotten field.
    pub allow_empty: bool,
    pub kept: bool,
}

/// The MD5 prefix: `HexChars(n)` lowercase hex characters or `Bytes(n)` raw bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashForm {
    HexChars(usize),
    Bytes(usize),
}

#[derive(Debug, Clone, Copy)]
pub struct HashSpec {
    /// Indexes of the hashed components, in hashing order.
    pub components: &'static [usize],
    pub form: HashForm,
    pub keep: bool,
}

#[derive(Debug, Clone, Copy)]
pub struct SaltSpec {
    pub buckets: u32,
    /// `None`: one byte; `Some(alphabet)`: one ASCII character per bucket.
    pub alphabet: Option<&'static str>,
}

/// A decoded hash prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HashPrefix {
    Hex(String),
    Bytes(Vec<u8>),
}

/// What a key's bytes hold: salt bucket, hash prefix, kept components in key order.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub salt: Option<u32>,
    pub hash: Option<HashPrefix>,
    pub components: Vec<(&'static str, KeyValue)>,
}

impl Decoded {
    /// Removes the kept component `name` and converts it to its field type.
    pub fn take_as<T: FromKeyValue>(&mut self, name: &str) -> Result<T> {
        T::from_key_value(self.take(name)?)
    }

    /// Removes and returns the kept component `name` (generated parts types use this).
    pub fn take(&mut self, name: &str) -> Result<KeyValue> {
        let i = self
            .components
            .iter()
            .position(|(n, _)| *n == name)
            .ok_or_else(|| Error::key(format!("component {name} missing")))?;
        Ok(self.components.remove(i).1)
    }
}

/// One table's row-key design, generated from its schema.
#[derive(Debug, Clone, Copy)]
pub struct KeySpec {
    /// The table id, so errors name the key they refuse a value for.
    pub table: &'static str,
    pub layout: Layout,
    pub components: &'static [Component],
    pub hash: Option<HashSpec>,
    pub salt: Option<SaltSpec>,
}

impl KeySpec {
    pub(crate) fn separator(&self) -> Option<u8> {
        match self.layout {
            Layout::Separated(s) => Some(s),
            _ => None,
        }
    }

    /// One component's bytes in this layout (no separators).
    pub fn field(&self, c: &Component, v: &KeyValue) -> Result<Vec<u8>> {
        check(self.table, c, v)?;
        match self.layout {
            Layout::Binary => binary(c, v),
            Layout::Separated(s) => text(c, v, Some(s)),
            Layout::Fixed => text(c, v, None),
        }
    }

    fn join(&self, parts: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for (n, p) in parts.iter().enumerate() {
            if n > 0 {
                out.extend(self.separator());
            }
            out.extend_from_slice(p);
        }
        out
    }

    /// `[hash][sep]kept...` for the leading components given, with a trailing separator when
    /// a kept component follows.
    fn body(&self, leading: &[KeyValue]) -> Result<Vec<u8>> {
        let fields = self
            .components
            .iter()
            .zip(leading)
            .map(|(c, v)| self.field(c, v))
            .collect::<Result<Vec<_>>>()?;
        let mut parts: Vec<&[u8]> = Vec::new();
        let hash;
        if let Some(h) = &self.hash {
            if let Some(&missing) = h.components.iter().find(|&&i| i >= fields.len()) {
                let c = &self.components[missing];
                return Err(bad(c, "the hash prefix needs this component"));
            }
            let input: Vec<&[u8]> = h.components.iter().map(|&i| fields[i].as_slice()).collect();
            let digest = Md5::digest(self.join(&input));
            hash = match h.form {
                HashForm::HexChars(n) => hex(&digest).into_bytes()[..n].to_vec(),
                HashForm::Bytes(n) => digest[..n].to_vec(),
            };
            parts.push(&hash);
        }
        for (c, f) in self.components.iter().zip(&fields) {
            if c.kept {
                parts.push(f);
            }
        }
        let mut out = self.join(&parts);
        let more = self.components[fields.len()..].iter().any(|c| c.kept);
        if more && !parts.is_empty() {
            out.extend(self.separator());
        }
        Ok(out)
    }

    /// How many bytes the salt takes at the start of every key (0 unsalted): a salted scan
    /// merges its buckets by the key after them.
    pub fn salt_width(&self) -> usize {
        self.salt_field(0).len()
    }

    /// The salt as it starts a key: its byte or character, then the separator if any.
    pub fn salt_field(&self, bucket: u32) -> Vec<u8> {
        let mut out = match &self.salt {
            None => return Vec::new(),
            Some(SaltSpec { alphabet: None, .. }) => vec![bucket as u8],
            Some(SaltSpec {
                alphabet: Some(a), ..
            }) => vec![a.as_bytes()[bucket as usize]],
        };
        out.extend(self.separator());
        out
    }

    /// The row key for one value per component, in declaration order.
    pub fn encode(&self, values: &[KeyValue]) -> Result<Vec<u8>> {
        if values.len() != self.components.len() {
            return Err(Error::key(format!(
                "{} components expected, got {}",
                self.components.len(),
                values.len()
            )));
        }
        let body = self.body(values)?;
        Ok(match &self.salt {
            None => body,
            Some(s) => {
                let mut out = self.salt_field(salt_bucket(&body, s.buckets));
                out.extend_from_slice(&body);
                out
            }
        })
    }

    /// Prefixes of the keys whose leading components equal `leading`: one per salt bucket
    /// (bucket order), else one.
    pub fn prefixes(&self, leading: &[KeyValue]) -> Result<Vec<Vec<u8>>> {
        if leading.len() > self.components.len() {
            return Err(Error::key("more values than components"));
        }
        let body = if leading.is_empty() {
            Vec::new()
        } else {
            self.body(leading)?
        };
        Ok(match &self.salt {
            None => vec![body],
            Some(s) => (0..s.buckets)
                .map(|b| {
                    let mut p = self.salt_field(b);
                    p.extend_from_slice(&body);
                    p
                })
                .collect(),
        })
    }

    /// Salt, hash prefix and kept components of a key.
    pub fn decode(&self, key: &[u8]) -> Result<Decoded> {
        let sep = self.separator();
        let mut rest = key;
        fn take<'a>(n: usize, what: &str, rest: &mut &'a [u8]) -> Result<&'a [u8]> {
            let head = rest
                .get(..n)
                .ok_or_else(|| Error::key(format!("key too short for the {what}")))?;
            *rest = &rest[n..];
            Ok(head)
        }
        let expect_sep = |rest: &mut &[u8]| -> Result<()> {
            if let Some(s) = sep {
                if rest.first() != Some(&s) {
                    return Err(Error::key("separator expected"));
                }
                *rest = &rest[1..];
            }
            Ok(())
        };
        let kept: Vec<&Component> = self.components.iter().filter(|c| c.kept).collect();
        let salt = match &self.salt {
            None => None,
            Some(s) => {
                let b = take(1, "salt", &mut rest)?[0];
                let bucket = match s.alphabet {
                    None => u32::from(b),
                    Some(a) => a
                        .bytes()
                        .position(|x| x == b)
                        .ok_or_else(|| Error::key("unknown salt character"))?
                        as u32,
                };
                if bucket >= s.buckets {
                    return Err(Error::key("salt bucket out of range"));
                }
                expect_sep(&mut rest)?;
                Some(bucket)
            }
        };
        let hash = match &self.hash {
            None => None,
            Some(h) => {
                let prefix = match h.form {
                    HashForm::HexChars(n) => HashPrefix::Hex(
                        String::from_utf8_lossy(take(n, "hash prefix", &mut rest)?).into_owned(),
                    ),
                    HashForm::Bytes(n) => {
                        HashPrefix::Bytes(take(n, "hash prefix", &mut rest)?.to_vec())
                    }
                };
                if !kept.is_empty() {
                    expect_sep(&mut rest)?;
                }
                Some(prefix)
            }
        };
        let mut components = Vec::with_capacity(kept.len());
        match self.layout {
            Layout::Separated(s) => {
                let fields = split_unescaped(rest, s);
                if fields.len() != kept.len() {
                    return Err(Error::key(format!(
                        "{} fields expected after the prefixes, found {}",
                        kept.len(),
                        fields.len()
                    )));
                }
                for (c, f) in kept.iter().zip(fields) {
                    components.push((c.name, decode_text(c, f, true)?));
                }
            }
            Layout::Fixed => {
                for c in &kept {
                    let f = take(c.width.unwrap_or(0) as usize, c.name, &mut rest)?;
                    components.push((c.name, decode_text(c, f, false)?));
                }
            }
            Layout::Binary => {
                for c in &kept {
                    let (v, used) = decode_binary(c, rest)?;
                    rest = &rest[used..];
                    components.push((c.name, v));
                }
            }
        }
        if !matches!(self.layout, Layout::Separated(_)) && !rest.is_empty() {
            return Err(Error::key("trailing bytes after the last component"));
        }
        Ok(Decoded {
            salt,
            hash,
            components,
        })
    }
}

/// Bucket = first four bytes of MD5(body) as a big-endian u32, modulo the bucket count.
pub fn salt_bucket(body: &[u8], buckets: u32) -> u32 {
    let d = Md5::digest(body);
    u32::from_be_bytes([d[0], d[1], d[2], d[3]]) % buckets
}

/// The region a key falls in: how many split keys are <= it.
pub fn region_index(splits: &[&[u8]], key: &[u8]) -> usize {
    splits.iter().filter(|s| **s <= key).count()
}

/// The values up to the first `None`; a value after a `None` is an error naming the missing
/// component.
pub fn leading(spec: &KeySpec, values: Vec<Option<KeyValue>>) -> Result<Vec<KeyValue>> {
    let n = values.iter().take_while(|v| v.is_some()).count();
    if let Some(later) = values[n..].iter().position(Option::is_some) {
        let given = spec.components.get(n + later).map_or("?", |c| c.name);
        return Err(super::bounds::missing(spec, n, given));
    }
    Ok(values.into_iter().flatten().collect())
}

/// The next value of `values` as a `T`, `None` when there is none (or it is `None`).
pub fn next_value<T: FromKeyValue>(
    values: &mut impl Iterator<Item = Option<KeyValue>>,
) -> Result<Option<T>> {
    values.next().flatten().map(T::from_key_value).transpose()
}

/// Conversions between typed key fields and [`KeyValue`]s, used by generated code.
pub trait FromKeyValue: Sized {
    fn from_key_value(v: KeyValue) -> Result<Self>;
}

impl FromKeyValue for String {
    fn from_key_value(v: KeyValue) -> Result<Self> {
        match v {
            KeyValue::Str(s) => Ok(s),
            other => Err(Error::key(format!("{other:?} is not a string"))),
        }
    }
}

impl FromKeyValue for Vec<u8> {
    fn from_key_value(v: KeyValue) -> Result<Self> {
        match v {
            KeyValue::Bytes(b) => Ok(b),
            other => Err(Error::key(format!("{other:?} is not bytes"))),
        }
    }
}

impl FromKeyValue for i64 {
    fn from_key_value(v: KeyValue) -> Result<Self> {
        match v {
            KeyValue::Int(i) => Ok(i),
            other => Err(Error::key(format!("{other:?} is not an integer"))),
        }
    }
}

impl FromKeyValue for i32 {
    fn from_key_value(v: KeyValue) -> Result<Self> {
        let i = i64::from_key_value(v)?;
        i32::try_from(i).map_err(|_| Error::key(format!("{i} is out of i32 range")))
    }
}

impl FromKeyValue for f32 {
    fn from_key_value(v: KeyValue) -> Result<Self> {
        match v {
            KeyValue::F32(f) => Ok(f),
            other => Err(Error::key(format!("{other:?} is not an f32"))),
        }
    }
}

impl FromKeyValue for f64 {
    fn from_key_value(v: KeyValue) -> Result<Self> {
        match v {
            KeyValue::F64(f) => Ok(f),
            other => Err(Error::key(format!("{other:?} is not an f64"))),
        }
    }
}

impl From<String> for KeyValue {
    fn from(s: String) -> Self {
        KeyValue::Str(s)
    }
}

impl From<Vec<u8>> for KeyValue {
    fn from(b: Vec<u8>) -> Self {
        KeyValue::Bytes(b)
    }
}

impl From<i32> for KeyValue {
    fn from(i: i32) -> Self {
        KeyValue::Int(i64::from(i))
    }
}

impl From<i64> for KeyValue {
    fn from(i: i64) -> Self {
        KeyValue::Int(i)
    }
}

impl From<f32> for KeyValue {
    fn from(f: f32) -> Self {
        KeyValue::F32(f)
    }
}

impl From<f64> for KeyValue {
    fn from(f: f64) -> Self {
        KeyValue::F64(f)
    }
}

impl From<&String> for KeyValue {
    fn from(v: &String) -> Self {
        KeyValue::Str(v.clone())
    }
}

impl From<&Vec<u8>> for KeyValue {
    fn from(v: &Vec<u8>) -> Self {
        KeyValue::Bytes(v.clone())
    }
}

impl From<&i32> for KeyValue {
    fn from(v: &i32) -> Self {
        KeyValue::Int(i64::from(*v))
    }
}

impl From<&i64> for KeyValue {
    fn from(v: &i64) -> Self {
        KeyValue::Int(*v)
    }
}

impl From<&f32> for KeyValue {
    fn from(v: &f32) -> Self {
        KeyValue::F32(*v)
    }
}

impl From<&f64> for KeyValue {
    fn from(v: &f64) -> Self {
        KeyValue::F64(*v)
    }
}

impl KeyValue {
    /// A kept component's name and value, as `Decoded::components` holds them.
    pub fn named<T>(name: &'static str, v: &T) -> (&'static str, KeyValue)
    where
        for<'a> KeyValue: From<&'a T>,
    {
        (name, KeyValue::from(v))
    }

    /// The value of a prefix builder's field, if it is set.
    pub fn from_option<T>(v: &Option<T>) -> Option<KeyValue>
    where
        for<'a> KeyValue: From<&'a T>,
    {
        v.as_ref().map(KeyValue::from)
    }
}

/// A typed row key of one table: what generic code (scans, the vector runner) needs.
pub trait RowKey: Sized {
    /// The decoded form: what the key's bytes keep.
    type Parts: KeyParts;
    /// The table's key design.
    const SPEC: KeySpec;
    /// Every component, in declaration order.
    fn to_key_values(&self) -> Vec<KeyValue>;
    /// The key from one value per component, in declaration order.
    fn from_key_values(values: Vec<KeyValue>) -> Result<Self>;
    /// The rows whose leading components equal those given (one optional value per
    /// component, in declaration order; a gap is an error): the typed prefix builder's range.
    fn prefix_range(leading: Vec<Option<KeyValue>>) -> Result<super::scan::KeyRange>;
    /// The rows for components given by value, then at most one range (one optional bound
    /// per component, in declaration order): the typed prefix builder's `range` or, for a
    /// range, its `<component>_between`. See [`super::scan::KeyRange::bounds`].
    fn bounds(given: Vec<Option<super::bounds::Bound>>) -> Result<super::scan::KeyRange>;
    /// The typed prefix builder's filter for the same leading values.
    fn prefix_filter(leading: Vec<Option<KeyValue>>) -> super::filter::Filter;
    /// A `PrefixFilter` (one per salt bucket) on the rows of `bounds(given)`: components by
    /// value, then optionally a starts-with (the typed builder's `<component>_starts_with_filter`);
    /// a range has no prefix and is refused.
    fn bounds_filter(given: Vec<Option<super::bounds::Bound>>) -> super::filter::Filter {
        use super::bounds::Bound;
        use super::filter::Filter;
        if let Some(i) = given
            .iter()
            .position(|g| matches!(g, Some(Bound::Between(..))))
        {
            let name = Self::SPEC.components[i].name;
            return Filter::Invalid(format!(
                "component {name}: a key prefix filter takes components by value (and a starts-with), not a range"
            ));
        }
        match Self::bounds(given) {
            Ok(r) => Filter::Prefix(r.ranges.into_iter().map(|(start, _)| start).collect()),
            Err(e) => Filter::Invalid(e.to_string()),
        }
    }
    /// The row key's bytes.
    fn encode_row(&self) -> Result<Vec<u8>> {
        Self::SPEC.encode(&self.to_key_values())
    }
    /// The table the key belongs to.
    fn table() -> &'static super::client::TableDef;
}

/// The typed result of decoding a row key.
pub trait KeyParts: Sized {
    /// The table's key design.
    const SPEC: KeySpec;
    fn from_decoded(d: Decoded) -> Result<Self>;
    fn to_decoded(&self) -> Decoded;
    /// Decodes a row key of the table.
    fn decode_row(row: &[u8]) -> Result<Self> {
        Self::from_decoded(Self::SPEC.decode(row)?)
    }
}
