//! One key component to bytes and back in each layout (docs/schema.md, "Row-key
//! encodings"); `keys` assembles them into whole keys.

use super::error::{Error, Result};
use super::keys::{Charset, Component, KeyType, KeyValue, Reverse};

impl Charset {
    pub(super) fn allows(self, c: char) -> bool {
        match self {
            Charset::Any => true,
            Charset::Alnum => c.is_ascii_alphanumeric(),
            Charset::Word => c.is_ascii_alphanumeric() || c == '_',
            Charset::Hex => c.is_ascii_digit() || ('a'..='f').contains(&c),
            Charset::Digits => c.is_ascii_digit(),
        }
    }
}

pub(super) fn bad(c: &Component, message: impl std::fmt::Display) -> Error {
    Error::key(format!("component {}: {message}", c.name))
}

pub(super) fn reversed(r: Reverse, s: &str) -> String {
    match r {
        Reverse::Chars => s.chars().rev().collect(),
        Reverse::Segments => s.split('.').rev().collect::<Vec<_>>().join("."),
    }
}

pub(super) fn maybe_reversed(c: &Component, s: &str) -> String {
    c.reverse.map_or_else(|| s.to_string(), |r| reversed(r, s))
}

/// The integer as stored: `i64::MAX - v` for reverse timestamps (defined for `v >= 0`).
pub(super) fn stored_int(c: &Component, v: i64) -> Result<i64> {
    if !c.reverse_timestamp {
        return Ok(v);
    }
    if v < 0 {
        return Err(bad(c, "a reverse timestamp must be >= 0"));
    }
    Ok(i64::MAX - v)
}

pub(super) fn unreverse(c: &Component, stored: i64) -> Result<i64> {
    if stored < 0 {
        return Err(bad(c, "not a reverse timestamp"));
    }
    Ok(i64::MAX - stored)
}

/// Refuses values of the wrong type, empty where the schema does not allow it (in the key of
/// table `table`), out of range or outside the charset.
pub(super) fn check(table: &'static str, c: &Component, v: &KeyValue) -> Result<()> {
    let ok = matches!(
        (c.ty, v),
        (KeyType::String, KeyValue::Str(_))
            | (KeyType::Bytes, KeyValue::Bytes(_))
            | (
                KeyType::I32 | KeyType::I64 | KeyType::TimestampMs,
                KeyValue::Int(_)
            )
            | (KeyType::F32, KeyValue::F32(_))
            | (KeyType::F64, KeyValue::F64(_))
    );
    if !ok {
        return Err(bad(c, format!("{v:?} is not a {:?}", c.ty)));
    }
    let empty = match v {
        KeyValue::Str(s) => s.is_empty(),
        KeyValue::Bytes(b) => b.is_empty(),
        _ => false,
    };
    if empty && !c.allow_empty {
        return Err(Error::EmptyKeyComponent {
            key: table,
            component: c.name,
        });
    }
    match v {
        KeyValue::Int(i) => {
            if c.ty == KeyType::I32 && i32::try_from(*i).is_err() {
                return Err(bad(c, format!("{i} is out of i32 range")));
            }
            stored_int(c, *i).map(|_| ())
        }
        KeyValue::Str(s) => match s.chars().find(|ch| !c.charset.allows(*ch)) {
            Some(ch) => Err(bad(c, format!("{ch:?} is outside charset {:?}", c.charset))),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// The bytes that start the field of every string starting with `p` (a typed starts-with):
/// the field's encoding without what ends it. Escaping maps each character (separated: the
/// separator and `\`) or byte (binary: 0x00) on its own, so encoding `p` whole never cuts an
/// escape in half. `sep` is the separator in the separated layout; `binary` the binary layout.
pub(super) fn string_prefix(
    c: &Component,
    p: &str,
    sep: Option<u8>,
    binary: bool,
) -> Result<Vec<u8>> {
    if c.ty != KeyType::String {
        return Err(bad(
            c,
            format!("a starts-with applies to string components, not {:?}", c.ty),
        ));
    }
    if let Some(ch) = p.chars().find(|ch| !c.charset.allows(*ch)) {
        return Err(bad(c, format!("{ch:?} is outside charset {:?}", c.charset)));
    }
    if sep.is_some() {
        return text(c, &KeyValue::Str(p.to_string()), sep);
    }
    if !binary {
        let w = c.width.unwrap_or(0) as usize;
        if p.as_bytes().contains(&0) || p.len() > w {
            return Err(bad(c, format!("needs at most {w} UTF-8 bytes and no 0x00")));
        }
        return Ok(p.as_bytes().to_vec());
    }
    let mut out = escaped(p.as_bytes());
    out.truncate(out.len() - 2);
    if c.desc {
        out.iter_mut().for_each(|b| *b = !*b);
    }
    Ok(out)
}

/// 0x00 → 0x00 0xFF, then the terminator 0x00 0x00.
pub(super) fn escaped(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len() + 2);
    for &x in b {
        out.push(x);
        if x == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 0]);
    out
}

pub(super) fn binary(c: &Component, v: &KeyValue) -> Result<Vec<u8>> {
    let mut out = match v {
        KeyValue::Str(s) => escaped(maybe_reversed(c, s).as_bytes()),
        KeyValue::Bytes(b) => escaped(b),
        KeyValue::Int(i) => {
            let i = stored_int(c, *i)?;
            if c.ty == KeyType::I32 {
                ((i as i32 as u32) ^ 0x8000_0000).to_be_bytes().to_vec()
            } else {
                ((i as u64) ^ (1 << 63)).to_be_bytes().to_vec()
            }
        }
        KeyValue::F32(f) => {
            let bits = if f.is_nan() { 0x7FC0_0000 } else { f.to_bits() };
            let bits = if bits >> 31 == 1 {
                !bits
            } else {
                bits ^ (1 << 31)
            };
            bits.to_be_bytes().to_vec()
        }
        KeyValue::F64(f) => {
            let bits = if f.is_nan() {
                0x7FF8_0000_0000_0000
            } else {
                f.to_bits()
            };
            let bits = if bits >> 63 == 1 {
                !bits
            } else {
                bits ^ (1 << 63)
            };
            bits.to_be_bytes().to_vec()
        }
    };
    if c.desc {
        out.iter_mut().for_each(|b| *b = !*b);
    }
    Ok(out)
}

pub(super) fn text(c: &Component, v: &KeyValue, sep: Option<u8>) -> Result<Vec<u8>> {
    match v {
        KeyValue::Str(s) => {
            let s = maybe_reversed(c, s);
            match sep {
                Some(sep) => {
                    let mut out = Vec::with_capacity(s.len());
                    for &b in s.as_bytes() {
                        if c.escape && (b == sep || b == b'\\') {
                            out.push(b'\\');
                        }
                        out.push(b);
                    }
                    Ok(out)
                }
                None => {
                    let w = c.width.unwrap_or(0) as usize;
                    let mut b = s.into_bytes();
                    if b.contains(&0) || b.len() > w {
                        return Err(bad(c, format!("needs at most {w} UTF-8 bytes and no 0x00")));
                    }
                    b.resize(w, 0);
                    Ok(b)
                }
            }
        }
        KeyValue::Bytes(b) => match sep {
            Some(_) => Ok(hex(b).into_bytes()),
            None if Some(b.len()) == c.width.map(|w| w as usize) => Ok(b.clone()),
            None => Err(bad(
                c,
                format!(
                    "needs exactly {} bytes, got {}",
                    c.width.unwrap_or(0),
                    b.len()
                ),
            )),
        },
        KeyValue::Int(i) => {
            let i = stored_int(c, *i)?;
            let t = match c.width {
                None => i.to_string(),
                Some(w) => {
                    let limit = 10i128.pow(w);
                    if i < 0 || i128::from(i) >= limit {
                        return Err(bad(c, format!("{i} does not fit {w} zero-padded digits")));
                    }
                    let n = if c.desc {
                        limit - 1 - i128::from(i)
                    } else {
                        i128::from(i)
                    };
                    maybe_reversed(c, &format!("{n:0width$}", width = w as usize))
                }
            };
            Ok(t.into_bytes())
        }
        KeyValue::F32(_) | KeyValue::F64(_) => Err(bad(c, "floats need the binary layout")),
    }
}

pub(super) fn decode_text(c: &Component, b: &[u8], separated: bool) -> Result<KeyValue> {
    match c.ty {
        KeyType::String => {
            let b = if separated {
                b
            } else {
                &b[..b.iter().rposition(|&x| x != 0).map_or(0, |p| p + 1)]
            };
            let s = std::str::from_utf8(b).map_err(|_| bad(c, "not UTF-8"))?;
            let mut out = String::with_capacity(s.len());
            let mut chars = s.chars();
            while let Some(ch) = chars.next() {
                if c.escape && ch == '\\' {
                    out.push(chars.next().ok_or_else(|| bad(c, "dangling escape"))?);
                } else {
                    out.push(ch);
                }
            }
            Ok(KeyValue::Str(maybe_reversed(c, &out)))
        }
        KeyType::Bytes if separated => unhex(b)
            .map(KeyValue::Bytes)
            .ok_or_else(|| bad(c, "not hex")),
        KeyType::Bytes => Ok(KeyValue::Bytes(b.to_vec())),
        KeyType::F32 | KeyType::F64 => Err(bad(c, "floats need the binary layout")),
        KeyType::I32 | KeyType::I64 | KeyType::TimestampMs => {
            let s = std::str::from_utf8(b).map_err(|_| bad(c, "not a number"))?;
            let s = maybe_reversed(c, s);
            let digits = match c.width {
                Some(_) => s.as_str(),
                None => s.strip_prefix('-').unwrap_or(&s),
            };
            if digits.is_empty()
                || !digits.bytes().all(|x| x.is_ascii_digit())
                || c.width.is_some_and(|w| s.len() != w as usize)
            {
                return Err(bad(c, "not a number of this width"));
            }
            let n: i128 = s.parse().map_err(|_| bad(c, "not a number"))?;
            let n = match (c.desc, c.width) {
                (true, Some(w)) => 10i128.pow(w) - 1 - n,
                _ => n,
            };
            let n = i64::try_from(n).map_err(|_| bad(c, "out of range"))?;
            let n = if c.reverse_timestamp {
                unreverse(c, n)?
            } else {
                n
            };
            if c.ty == KeyType::I32 && i32::try_from(n).is_err() {
                return Err(bad(c, "out of i32 range"));
            }
            Ok(KeyValue::Int(n))
        }
    }
}

/// Reads one binary-layout component from the front of `b`; returns it and the bytes used.
pub(super) fn decode_binary(c: &Component, b: &[u8]) -> Result<(KeyValue, usize)> {
    let flip = |x: u8| if c.desc { !x } else { x };
    let short = || bad(c, "key too short");
    let fixed = |n: usize| -> Result<Vec<u8>> {
        b.get(..n)
            .map(|s| s.iter().map(|&x| flip(x)).collect())
            .ok_or_else(short)
    };
    match c.ty {
        KeyType::String | KeyType::Bytes => {
            let mut out = Vec::new();
            let mut i = 0;
            loop {
                let x = flip(*b.get(i).ok_or_else(short)?);
                if x == 0 {
                    match b.get(i + 1).map(|&y| flip(y)) {
                        Some(0xFF) => out.push(0),
                        Some(0) => break,
                        _ => return Err(bad(c, "bad escape")),
                    }
                    i += 2;
                } else {
                    out.push(x);
                    i += 1;
                }
            }
            let v = if c.ty == KeyType::Bytes {
                KeyValue::Bytes(out)
            } else {
                let s = String::from_utf8(out).map_err(|_| bad(c, "not UTF-8"))?;
                KeyValue::Str(maybe_reversed(c, &s))
            };
            Ok((v, i + 2))
        }
        KeyType::I32 => {
            let a: [u8; 4] = fixed(4)?.try_into().map_err(|_| short())?;
            let u = u32::from_be_bytes(a) ^ 0x8000_0000;
            Ok((KeyValue::Int(i64::from(u as i32)), 4))
        }
        KeyType::F32 => {
            let a: [u8; 4] = fixed(4)?.try_into().map_err(|_| short())?;
            let u = u32::from_be_bytes(a);
            let bits = if u >> 31 == 1 { u ^ (1 << 31) } else { !u };
            Ok((KeyValue::F32(f32::from_bits(bits)), 4))
        }
        KeyType::F64 => {
            let a: [u8; 8] = fixed(8)?.try_into().map_err(|_| short())?;
            let u = u64::from_be_bytes(a);
            let bits = if u >> 63 == 1 { u ^ (1 << 63) } else { !u };
            Ok((KeyValue::F64(f64::from_bits(bits)), 8))
        }
        KeyType::I64 | KeyType::TimestampMs => {
            let a: [u8; 8] = fixed(8)?.try_into().map_err(|_| short())?;
            let i = (u64::from_be_bytes(a) ^ (1 << 63)) as i64;
            let i = if c.reverse_timestamp {
                unreverse(c, i)?
            } else {
                i
            };
            Ok((KeyValue::Int(i), 8))
        }
    }
}

/// Fields between separators not preceded by a backslash escape.
pub(super) fn split_unescaped(b: &[u8], sep: u8) -> Vec<&[u8]> {
    let mut fields = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == sep {
            fields.push(&b[start..i]);
            start = i + 1;
        }
        i += 1;
    }
    fields.push(&b[start.min(b.len())..]);
    fields
}

/// Lowercase hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Bytes from lowercase or uppercase hex, `None` if it is not hex.
pub fn unhex(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    text.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}
