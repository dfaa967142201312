//! One key component to bytes and back, in each layout (the rules are in docs/schema.md,
//! "Row-key encodings").

use crate::error::EncodeError;
use crate::model::{Component, Layout, Reverse, ScalarType};
use crate::typed_value::Value;

/// The component's bytes in the layout (without separators).
pub fn encode(layout: Layout, c: &Component, v: &Value) -> Result<Vec<u8>, EncodeError> {
    if !v.fits(c.ty) {
        return Err(EncodeError::invalid(
            &c.name,
            format!("{v:?} is not a {}", c.ty.name()),
        ));
    }
    match layout {
        Layout::Binary => Ok(binary(c, v)),
        Layout::Separated { separator } => text(c, v, Some(separator)),
        Layout::Fixed => text(c, v, None),
    }
}

fn reversed(r: Reverse, s: &str) -> String {
    match r {
        Reverse::Chars => s.chars().rev().collect(),
        Reverse::Segments => s.split('.').rev().collect::<Vec<_>>().join("."),
    }
}

/// reverse_timestamp: `i64::MAX - ts`, defined for `ts >= 0`.
fn stored_int(c: &Component, i: i64) -> Result<i64, EncodeError> {
    if !c.reverse_timestamp {
        return Ok(i);
    }
    if i < 0 {
        return Err(EncodeError::invalid(
            &c.name,
            "a reverse timestamp must be >= 0",
        ));
    }
    Ok(i64::MAX - i)
}

fn check_charset(c: &Component, s: &str) -> Result<(), EncodeError> {
    match s.chars().find(|ch| !c.charset.allows(*ch)) {
        Some(ch) => Err(EncodeError::invalid(
            &c.name,
            format!("{ch:?} is outside charset {:?}", c.charset),
        )),
        None => Ok(()),
    }
}

fn text(c: &Component, v: &Value, sep: Option<char>) -> Result<Vec<u8>, EncodeError> {
    match v {
        Value::Str(s) => {
            check_charset(c, s)?;
            let s = c.reverse.map_or_else(|| s.clone(), |r| reversed(r, s));
            match (sep, c.width) {
                (Some(sep), _) => {
                    let mut out = String::with_capacity(s.len());
                    for ch in s.chars() {
                        if c.escape && (ch == sep || ch == '\\') {
                            out.push('\\');
                        }
                        out.push(ch);
                    }
                    Ok(out.into_bytes())
                }
                (None, Some(w)) => {
                    let mut b = s.into_bytes();
                    if b.contains(&0) || b.len() > w as usize {
                        return Err(EncodeError::invalid(
                            &c.name,
                            format!("needs at most {w} UTF-8 bytes and no 0x00"),
                        ));
                    }
                    b.resize(w as usize, 0);
                    Ok(b)
                }
                (None, None) => Err(EncodeError::invalid(&c.name, "no width")),
            }
        }
        Value::Bytes(b) => match sep {
            Some(_) => Ok(crate::hex::encode(b).into_bytes()),
            None if Some(b.len() as u32) == c.width => Ok(b.clone()),
            None => Err(EncodeError::invalid(
                &c.name,
                format!("needs exactly {:?} bytes, got {}", c.width, b.len()),
            )),
        },
        Value::Int(i) => {
            let i = stored_int(c, *i)?;
            let t = match c.width {
                None => i.to_string(),
                Some(w) => {
                    let limit = 10i128.pow(w);
                    if i < 0 || i as i128 >= limit {
                        return Err(EncodeError::invalid(
                            &c.name,
                            format!("{i} does not fit {w} zero-padded digits"),
                        ));
                    }
                    let i = if c.desc {
                        limit - 1 - i as i128
                    } else {
                        i as i128
                    };
                    let t = format!("{:0width$}", i, width = w as usize);
                    c.reverse.map_or(t.clone(), |r| reversed(r, &t))
                }
            };
            Ok(t.into_bytes())
        }
        _ => Err(EncodeError::invalid(
            &c.name,
            "floats need the binary layout",
        )),
    }
}

fn binary(c: &Component, v: &Value) -> Vec<u8> {
    let mut out = match v {
        Value::Str(s) => {
            let s = c.reverse.map_or_else(|| s.clone(), |r| reversed(r, s));
            escaped(s.as_bytes())
        }
        Value::Bytes(b) => escaped(b),
        Value::Int(i) => {
            // reverse_timestamp was checked against negatives by `encode`'s caller below.
            let i = if c.reverse_timestamp {
                i64::MAX - i
            } else {
                *i
            };
            if c.ty == ScalarType::I32 {
                ((i as i32 as u32) ^ 0x8000_0000).to_be_bytes().to_vec()
            } else {
                ((i as u64) ^ (1 << 63)).to_be_bytes().to_vec()
            }
        }
        Value::F32(f) => {
            let bits = if f.is_nan() { 0x7FC0_0000 } else { f.to_bits() };
            let bits = if bits >> 31 == 1 {
                !bits
            } else {
                bits ^ (1 << 31)
            };
            bits.to_be_bytes().to_vec()
        }
        Value::F64(f) => {
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
        Value::Bool(_) | Value::Json(_) => Vec::new(),
    };
    if c.desc {
        out.iter_mut().for_each(|b| *b = !*b);
    }
    out
}

/// The bytes that start the field of every string starting with `p` (a typed starts-with):
/// the field's encoding without what ends it. Escaping maps each character (separated: `\`
/// and the separator) or byte (binary: 0x00) on its own, so the encoding of `p` is a byte
/// prefix of the encoding of every string starting with `p`, and since `p` is encoded whole,
/// never half an escape. Separated: the escaped text; fixed: the UTF-8 without padding (at
/// most `width` bytes, no 0x00); binary: the escaped bytes without the terminator, inverted
/// when `desc`. The caller refuses reversed and hashed components.
pub fn string_prefix(layout: Layout, c: &Component, p: &str) -> Result<Vec<u8>, EncodeError> {
    check_charset(c, p)?;
    match layout {
        Layout::Separated { separator } => text(c, &Value::Str(p.to_string()), Some(separator)),
        Layout::Fixed => {
            let w = c.width.unwrap_or(0) as usize;
            if p.as_bytes().contains(&0) || p.len() > w {
                return Err(EncodeError::invalid(
                    &c.name,
                    format!("needs at most {w} UTF-8 bytes and no 0x00"),
                ));
            }
            Ok(p.as_bytes().to_vec())
        }
        Layout::Binary => {
            let mut out = escaped(p.as_bytes());
            out.truncate(out.len() - 2);
            if c.desc {
                out.iter_mut().for_each(|b| *b = !*b);
            }
            Ok(out)
        }
    }
}

/// 0x00 → 0x00 0xFF, then the terminator 0x00 0x00.
fn escaped(b: &[u8]) -> Vec<u8> {
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

/// Why an empty component is refused, in the words every SDK uses (`table` is the key's table
/// id): an empty field is almost always a forgotten one (a zero value), and `d41d8||201501`
/// would silently stand for it.
pub fn empty_refused(table: &str) -> String {
    format!("must not be empty in the {table} key (the schema does not set allow_empty)")
}

/// Checks that must run before `binary` (which cannot fail); `table` names the key in errors.
pub fn precheck(table: &str, c: &Component, v: &Value) -> Result<(), EncodeError> {
    let empty = match v {
        Value::Str(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        _ => false,
    };
    if empty && !c.allow_empty {
        return Err(EncodeError::invalid(&c.name, empty_refused(table)));
    }
    if let Value::Int(i) = v {
        stored_int(c, *i)?;
    }
    if let Value::Str(s) = v {
        check_charset(c, s)?;
    }
    Ok(())
}

/// Reads one binary-layout component from the front of `b`; returns it and the bytes used.
pub fn decode_binary(c: &Component, b: &[u8]) -> Result<(Value, usize), EncodeError> {
    let flip = |x: u8| if c.desc { !x } else { x };
    let short = || EncodeError::decode(format!("key too short for component {}", c.name));
    let fixed = |n: usize| -> Result<Vec<u8>, EncodeError> {
        b.get(..n)
            .map(|s| s.iter().map(|&x| flip(x)).collect())
            .ok_or_else(short)
    };
    match c.ty {
        ScalarType::String | ScalarType::Bytes => {
            let mut out = Vec::new();
            let mut i = 0;
            loop {
                let x = flip(*b.get(i).ok_or_else(short)?);
                if x == 0 {
                    match b.get(i + 1).map(|&y| flip(y)) {
                        Some(0xFF) => out.push(0),
                        Some(0) => break,
                        _ => {
                            return Err(EncodeError::decode(format!(
                                "bad escape in component {}",
                                c.name
                            )))
                        }
                    }
                    i += 2;
                } else {
                    out.push(x);
                    i += 1;
                }
            }
            let v = if c.ty == ScalarType::Bytes {
                Value::Bytes(out)
            } else {
                let s = String::from_utf8(out).map_err(|_| {
                    EncodeError::decode(format!("component {} is not UTF-8", c.name))
                })?;
                Value::Str(c.reverse.map_or(s.clone(), |r| reversed(r, &s)))
            };
            Ok((v, i + 2))
        }
        ScalarType::I32 => {
            let a = fixed(4)?;
            let u = u32::from_be_bytes([a[0], a[1], a[2], a[3]]) ^ 0x8000_0000;
            Ok((Value::Int(u as i32 as i64), 4))
        }
        ScalarType::F32 => {
            let a = fixed(4)?;
            let u = u32::from_be_bytes([a[0], a[1], a[2], a[3]]);
            let bits = if u >> 31 == 1 { u ^ (1 << 31) } else { !u };
            Ok((Value::F32(f32::from_bits(bits)), 4))
        }
        ScalarType::F64 => {
            let a = fixed(8)?;
            let u = u64::from_be_bytes(a.try_into().map_err(|_| short())?);
            let bits = if u >> 63 == 1 { u ^ (1 << 63) } else { !u };
            Ok((Value::F64(f64::from_bits(bits)), 8))
        }
        _ => {
            let a = fixed(8)?;
            let i = (u64::from_be_bytes(a.try_into().map_err(|_| short())?) ^ (1 << 63)) as i64;
            let i = if c.reverse_timestamp {
                unreverse(c, i)?
            } else {
                i
            };
            Ok((Value::Int(i), 8))
        }
    }
}

/// One text-layout field back to its value (`sep` given for the separated layout).
pub fn decode_text(c: &Component, b: &[u8], sep: Option<char>) -> Result<Value, EncodeError> {
    let bad = |m: &str| EncodeError::decode(format!("component {}: {m}", c.name));
    match c.ty {
        ScalarType::String => {
            let b = if sep.is_none() {
                let end = b.iter().rposition(|&x| x != 0).map_or(0, |p| p + 1);
                &b[..end]
            } else {
                b
            };
            let s = std::str::from_utf8(b).map_err(|_| bad("not UTF-8"))?;
            let s: String = if c.escape {
                let mut out = String::with_capacity(s.len());
                let mut chars = s.chars();
                while let Some(ch) = chars.next() {
                    out.push(if ch == '\\' {
                        chars.next().ok_or_else(|| bad("dangling escape"))?
                    } else {
                        ch
                    });
                }
                out
            } else {
                s.to_string()
            };
            Ok(Value::Str(c.reverse.map_or(s.clone(), |r| reversed(r, &s))))
        }
        ScalarType::Bytes if sep.is_some() => {
            let s = std::str::from_utf8(b).map_err(|_| bad("not hex"))?;
            crate::hex::decode(s)
                .map(Value::Bytes)
                .ok_or_else(|| bad("not hex"))
        }
        ScalarType::Bytes => Ok(Value::Bytes(b.to_vec())),
        _ => {
            let s = std::str::from_utf8(b).map_err(|_| bad("not a number"))?;
            let s = c.reverse.map_or(s.to_string(), |r| reversed(r, s));
            let digits_only = s.bytes().all(|x| x.is_ascii_digit());
            let signed_ok = s
                .strip_prefix('-')
                .unwrap_or(&s)
                .bytes()
                .all(|x| x.is_ascii_digit());
            if s.is_empty()
                || (c.width.is_some() && (!digits_only || s.len() != c.width.unwrap_or(0) as usize))
                || !signed_ok
            {
                return Err(bad("not a number of this width"));
            }
            let n: i128 = s.parse().map_err(|_| bad("not a number"))?;
            let n = match (c.desc, c.width) {
                (true, Some(w)) => 10i128.pow(w) - 1 - n,
                _ => n,
            };
            let n = i64::try_from(n).map_err(|_| bad("out of range"))?;
            let n = if c.reverse_timestamp {
                unreverse(c, n)?
            } else {
                n
            };
            if c.ty == ScalarType::I32 && i32::try_from(n).is_err() {
                return Err(bad("out of i32 range"));
            }
            Ok(Value::Int(n))
        }
    }
}

/// The inverse of `i64::MAX - ts`; a stored value below 0 was never written by `encode`.
fn unreverse(c: &Component, stored: i64) -> Result<i64, EncodeError> {
    if stored < 0 {
        return Err(EncodeError::decode(format!(
            "component {}: not a reverse timestamp",
            c.name
        )));
    }
    Ok(i64::MAX - stored)
}
