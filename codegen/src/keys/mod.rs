//! The reference implementation of row keys: every SDK must produce these bytes. The rules,
//! byte by byte, are in docs/schema.md ("Row-key encodings"); the shared vectors come from here.

mod field;

use md5::{Digest, Md5};

use crate::error::EncodeError;
use crate::model::{HashForm, KeyDesign, Layout, SaltForm};
use crate::typed_value::Value;

/// What a key's bytes hold: the salt bucket, the hash prefix, the kept components.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedKey {
    pub salt: Option<u32>,
    /// The hash prefix as stored: ASCII hex characters or raw bytes.
    pub hash: Option<Vec<u8>>,
    /// Kept components in key order, by name.
    pub components: Vec<(String, Value)>,
}

/// One component's bytes in the key's layout, or why its rules refuse the value.
pub fn encode_component(
    key: &KeyDesign,
    c: &crate::model::Component,
    v: &Value,
) -> Result<Vec<u8>, EncodeError> {
    field::precheck(&key.table, c, v)?;
    field::encode(key.layout, c, v)
}

/// The full row key for one value per component (declaration order).
pub fn encode_key(key: &KeyDesign, values: &[Value]) -> Result<Vec<u8>, EncodeError> {
    if values.len() != key.components.len() {
        return Err(EncodeError::invalid(
            "key",
            format!(
                "{} components expected, got {}",
                key.components.len(),
                values.len()
            ),
        ));
    }
    let body = body_prefix(key, values)?;
    Ok(match &key.salt {
        None => body,
        Some(s) => {
            let bucket = salt_bucket(&body, s.buckets);
            let mut out = salt_field(key, bucket);
            out.extend_from_slice(&body);
            out
        }
    })
}

/// The key bytes after the salt for the leading components given (all or some, in order):
/// `[hash][sep]kept...`, with a trailing separator when a kept component follows.
fn body_prefix(key: &KeyDesign, leading: &[Value]) -> Result<Vec<u8>, EncodeError> {
    let fields: Vec<Vec<u8>> = key
        .components
        .iter()
        .zip(leading)
        .map(|(c, v)| {
            field::precheck(&key.table, c, v)?;
            field::encode(key.layout, c, v)
        })
        .collect::<Result<_, _>>()?;
    let sep = key.separator().map(|s| s as u8);
    let mut parts: Vec<&[u8]> = Vec::new();
    let hash;
    if let Some(h) = &key.hash {
        if let Some(&missing) = h.components.iter().find(|&&i| i >= fields.len()) {
            return Err(EncodeError::invalid(
                &key.components[missing].name,
                "the hash prefix needs this component",
            ));
        }
        let mut input = Vec::new();
        for (n, &i) in h.components.iter().enumerate() {
            if n > 0 {
                input.extend(sep);
            }
            input.extend_from_slice(&fields[i]);
        }
        hash = hash_prefix(h.form, &input);
        parts.push(&hash);
    }
    for (c, f) in key.components.iter().zip(&fields) {
        if c.kept {
            parts.push(f);
        }
    }
    let more = key.components[fields.len()..].iter().any(|c| c.kept);
    let mut out = Vec::new();
    for (n, p) in parts.iter().enumerate() {
        if n > 0 {
            out.extend(sep);
        }
        out.extend_from_slice(p);
    }
    if more && !parts.is_empty() {
        out.extend(sep);
    }
    Ok(out)
}

/// MD5 of the input, cut to N lowercase hex characters (as ASCII) or N raw bytes.
pub fn hash_prefix(form: HashForm, input: &[u8]) -> Vec<u8> {
    let digest = Md5::digest(input);
    match form {
        HashForm::HexChars(n) => crate::hex::encode(&digest).as_bytes()[..n as usize].to_vec(),
        HashForm::Bytes(n) => digest[..n as usize].to_vec(),
    }
}

/// Bucket = first four bytes of MD5(body) as a big-endian u32, modulo the bucket count.
pub fn salt_bucket(body: &[u8], buckets: u32) -> u32 {
    let d = Md5::digest(body);
    u32::from_be_bytes([d[0], d[1], d[2], d[3]]) % buckets
}

/// The salt as it starts a key: its byte or character, then the separator if there is one.
pub fn salt_field(key: &KeyDesign, bucket: u32) -> Vec<u8> {
    let mut out = match &key.salt {
        Some(s) => match &s.form {
            SaltForm::Byte => vec![bucket as u8],
            SaltForm::Char { alphabet } => vec![alphabet.as_bytes()[bucket as usize]],
        },
        None => Vec::new(),
    };
    out.extend(key.separator().map(|s| s as u8));
    out
}

/// Row-key prefixes matching every key whose leading components equal `leading`: one per salt
/// bucket (bucket order) for salted tables, else one. With a hash prefix, `leading` must cover
/// every hashed component (or be empty).
pub fn prefixes(key: &KeyDesign, leading: &[Value]) -> Result<Vec<Vec<u8>>, EncodeError> {
    if leading.len() > key.components.len() {
        return Err(EncodeError::invalid("key", "more values than components"));
    }
    let body = if leading.is_empty() {
        Vec::new()
    } else {
        body_prefix(key, leading)?
    };
    Ok(match &key.salt {
        None => vec![body],
        Some(s) => (0..s.buckets)
            .map(|b| {
                let mut p = salt_field(key, b);
                p.extend_from_slice(&body);
                p
            })
            .collect(),
    })
}

/// The bytes every field of a string starting with `p` starts with, in the key's layout
/// (`field::string_prefix`).
pub fn string_prefix(
    key: &KeyDesign,
    c: &crate::model::Component,
    p: &str,
) -> Result<Vec<u8>, EncodeError> {
    field::string_prefix(key.layout, c, p)
}

/// Splits a key into salt, hash and kept components; the inverse of `encode_key` for
/// everything the layout keeps.
pub fn decode_key(key: &KeyDesign, bytes: &[u8]) -> Result<DecodedKey, EncodeError> {
    let sep = key.separator().map(|s| s as u8);
    let mut rest = bytes;
    let take = |n: usize, what: &str, rest: &mut &[u8]| -> Result<Vec<u8>, EncodeError> {
        let head = rest
            .get(..n)
            .ok_or_else(|| EncodeError::decode(format!("key too short for the {what}")))?
            .to_vec();
        *rest = &rest[n..];
        Ok(head)
    };
    let more_fields = key.components.iter().any(|c| c.kept);
    let salt = match &key.salt {
        None => None,
        Some(s) => {
            let b = take(1, "salt", &mut rest)?[0];
            let bucket = match &s.form {
                SaltForm::Byte => b as u32,
                SaltForm::Char { alphabet } => alphabet
                    .bytes()
                    .position(|a| a == b)
                    .ok_or_else(|| EncodeError::decode("unknown salt character"))?
                    as u32,
            };
            if bucket >= s.buckets {
                return Err(EncodeError::decode("salt bucket out of range"));
            }
            expect_sep(sep, &mut rest)?;
            Some(bucket)
        }
    };
    let hash = match &key.hash {
        None => None,
        Some(h) => {
            let n = match h.form {
                HashForm::HexChars(n) | HashForm::Bytes(n) => n as usize,
            };
            let v = take(n, "hash prefix", &mut rest)?;
            if more_fields {
                expect_sep(sep, &mut rest)?;
            }
            Some(v)
        }
    };
    let kept: Vec<_> = key.components.iter().filter(|c| c.kept).collect();
    let mut components = Vec::new();
    match key.layout {
        Layout::Separated { separator } => {
            let fields = split_unescaped(rest, separator as u8);
            if fields.len() != kept.len() {
                return Err(EncodeError::decode(format!(
                    "{} fields expected after the prefixes, found {}",
                    kept.len(),
                    fields.len()
                )));
            }
            for (c, f) in kept.iter().zip(fields) {
                components.push((c.name.clone(), field::decode_text(c, f, Some(separator))?));
            }
        }
        Layout::Fixed => {
            for c in kept {
                let w = c.width.unwrap_or(0) as usize;
                let f = take(w, &c.name, &mut rest)?;
                components.push((c.name.clone(), field::decode_text(c, &f, None)?));
            }
            if !rest.is_empty() {
                return Err(EncodeError::decode(
                    "trailing bytes after the last component",
                ));
            }
        }
        Layout::Binary => {
            for c in kept {
                let (v, used) = field::decode_binary(c, rest)?;
                rest = &rest[used..];
                components.push((c.name.clone(), v));
            }
            if !rest.is_empty() {
                return Err(EncodeError::decode(
                    "trailing bytes after the last component",
                ));
            }
        }
    }
    Ok(DecodedKey {
        salt,
        hash,
        components,
    })
}

fn expect_sep(sep: Option<u8>, rest: &mut &[u8]) -> Result<(), EncodeError> {
    if let Some(s) = sep {
        if rest.first() != Some(&s) {
            return Err(EncodeError::decode("separator expected"));
        }
        *rest = &rest[1..];
    }
    Ok(())
}

/// Fields between separators not preceded by a backslash escape.
fn split_unescaped(b: &[u8], sep: u8) -> Vec<&[u8]> {
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

/// The region a key falls in: how many split keys are <= it (region 0 starts at the empty key).
pub fn region_index(splits: &[Vec<u8>], key: &[u8]) -> usize {
    splits.iter().filter(|s| s.as_slice() <= key).count()
}
