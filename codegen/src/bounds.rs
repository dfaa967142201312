//! The reference for key bounds: the start/stop rows a scan reads for key components given by
//! value, optionally followed by one component given as an inclusive (low, high) range or, for
//! a string component, as a starts-with (every value beginning with a prefix). Every
//! SDK must produce these rows (sdks/vectors/bounds.json); the rules are in docs/schema.md
//! ("Prefixes and ranges").

use crate::error::EncodeError;
use crate::keys;
use crate::model::{Component, KeyDesign, Layout, ScalarType};
use crate::typed_value::Value;

/// One component as given to `bounds`: a value, the values from `low` to `high` inclusive, or
/// (strings) every value starting with a prefix.
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    Value(Value),
    Range { low: Value, high: Value },
    StartsWith(Value),
}

/// A start row (inclusive) and a stop row (exclusive; `None`: to the end of the table).
pub type RowRange = (Vec<u8>, Option<Vec<u8>>);

/// Start and stop rows, one pair per salt bucket (one if unsalted), for `given`: one entry per
/// component in key order (`None`: not given), given by value up to an optional last range.
pub fn bounds(key: &KeyDesign, given: &[Option<Given>]) -> Result<Vec<RowRange>, EncodeError> {
    if given.len() > key.components.len() {
        return Err(EncodeError::invalid("key", "more values than components"));
    }
    let mut fixed: Vec<Value> = Vec::new();
    let mut range: Option<(usize, &Value, &Value)> = None;
    let mut starts: Option<(usize, &Value)> = None;
    for (i, g) in given.iter().enumerate() {
        let later = given[i + 1..]
            .iter()
            .position(Option::is_some)
            .map(|j| key.components[i + 1 + j].name.as_str());
        match g {
            None => {
                if let Some(later) = later {
                    return Err(missing(key, i, later));
                }
                break;
            }
            Some(Given::Range { low, high }) => {
                let name = &key.components[i].name;
                if let Some(later) = later {
                    return Err(EncodeError::invalid(
                        later,
                        format!("only the last component given may be a range ({name} is one)"),
                    ));
                }
                check_ordered(key, i)?;
                range = Some((i, low, high));
                break;
            }
            Some(Given::StartsWith(p)) => {
                let name = &key.components[i].name;
                if let Some(later) = later {
                    return Err(EncodeError::invalid(
                        later,
                        format!(
                            "only the last component given may be a starts-with ({name} is one)"
                        ),
                    ));
                }
                check_starts_with(key, i)?;
                starts = Some((i, p));
                break;
            }
            Some(Given::Value(v)) => fixed.push(v.clone()),
        }
    }
    if let Some((at, p)) = starts {
        return starts_with_ranges(key, &fixed, at, p);
    }
    let Some((at, low, high)) = range else {
        return prefix_ranges(key, &fixed);
    };
    let with = |v: &Value| {
        let mut lead = fixed.clone();
        lead.push(v.clone());
        keys::prefixes(key, &lead)
    };
    let (lows, highs) = (with(low)?, with(high)?);
    if above(low, high) {
        return Err(EncodeError::invalid(
            &key.components[at].name,
            format!(
                "the range's low {} is above its high {}",
                shown(low),
                shown(high)
            ),
        ));
    }
    let whole = ends_after(key, at + 1);
    Ok(lows
        .into_iter()
        .zip(highs)
        .map(|(lo, hi)| {
            // A desc or reverse-timestamp component stores its high values first.
            let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
            // The last component: keys up to `hi` itself (a longer value is a greater one);
            // otherwise every key under `hi`'s prefix (which ends with a separator, a
            // terminator or a fixed width).
            let stop = if whole {
                Some([hi.as_slice(), &[0]].concat())
            } else {
                after(&hi)
            };
            (lo, stop)
        })
        .collect())
}

/// The rows whose leading components equal `leading`. When they make a whole key the stop is
/// that key plus 0x00: in a separated key `...|k` is a byte prefix of `...|k0`, another value.
pub fn prefix_ranges(key: &KeyDesign, leading: &[Value]) -> Result<Vec<RowRange>, EncodeError> {
    let whole = !leading.is_empty() && ends_after(key, leading.len());
    Ok(keys::prefixes(key, leading)?
        .into_iter()
        .map(|p| {
            let stop = if whole {
                Some([p.as_slice(), &[0]].concat())
            } else {
                after(&p)
            };
            (p, stop)
        })
        .collect())
}

/// The rows whose leading components equal `leading` and whose component `at` (a string)
/// starts with `p`: the prefix of the leading components, then the bytes every field of such a
/// string starts with (`keys::string_prefix`), up to their next prefix. One range per salt
/// bucket.
fn starts_with_ranges(
    key: &KeyDesign,
    leading: &[Value],
    at: usize,
    p: &Value,
) -> Result<Vec<RowRange>, EncodeError> {
    let c = &key.components[at];
    let Value::Str(p) = p else {
        return Err(EncodeError::invalid(
            &c.name,
            format!("a starts-with takes a string, not {}", shown(p)),
        ));
    };
    // The hash prefix comes first in the key: every hashed component must be given by value.
    if let Some(h) = &key.hash {
        if let Some(&j) = h.components.iter().find(|&&j| j >= leading.len()) {
            let table = &key.table;
            return Err(EncodeError::invalid(
                &key.components[j].name,
                format!("must be given: the {table} key's hash prefix is computed from it"),
            ));
        }
    }
    let tail = keys::string_prefix(key, c, p)?;
    Ok(keys::prefixes(key, leading)?
        .into_iter()
        .map(|mut start| {
            start.extend_from_slice(&tail);
            let stop = after(&start);
            (start, stop)
        })
        .collect())
}

/// Refuses a starts-with on component `i` unless its stored bytes start with the bytes of
/// every prefix of its value: a string, neither hashed nor reversed.
pub fn check_starts_with(key: &KeyDesign, i: usize) -> Result<(), EncodeError> {
    let c: &Component = &key.components[i];
    let k = format!("the {} key", key.table);
    let refuse = |why: String| Err(EncodeError::invalid(&c.name, why));
    if c.ty != ScalarType::String {
        return refuse(format!(
            "a starts-with applies to string components, and {k} has it as {}",
            c.ty.name()
        ));
    }
    if hashed(key, i) {
        return refuse(format!(
            "is hashed in {k}: its hash is computed from the whole value, so it takes one value, not a starts-with"
        ));
    }
    if let Some(r) = c.reverse {
        let how = match r {
            crate::model::Reverse::Chars => "chars",
            crate::model::Reverse::Segments => "segments",
        };
        return refuse(format!(
            "{k} stores it reversed ({how}), so values starting alike do not share a key prefix: give it one value, not a starts-with"
        ));
    }
    Ok(())
}

/// Whether a key holding the first `n` components ends there (no kept component follows).
pub fn ends_after(key: &KeyDesign, n: usize) -> bool {
    !key.components.iter().skip(n).any(|c| c.kept)
}

/// The smallest row after every row starting with `prefix` (`None`: there is none).
pub fn after(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut b = prefix.to_vec();
    while b.last() == Some(&0xFF) {
        b.pop();
    }
    let last = b.last_mut()?;
    *last += 1;
    Some(b)
}

fn hashed(key: &KeyDesign, i: usize) -> bool {
    key.hash.as_ref().is_some_and(|h| h.components.contains(&i))
}

fn missing(key: &KeyDesign, i: usize, given: &str) -> EncodeError {
    let table = &key.table;
    let why = if hashed(key, i) {
        format!(
            "must be given: the {table} key's hash prefix is computed from it (and {given} follows it in the key)"
        )
    } else {
        format!("must be given: {given} follows it in the {table} key")
    };
    EncodeError::invalid(&key.components[i].name, why)
}

/// Refuses a range on component `i` where the key's byte order is not its value order: start
/// and stop rows could then only select the wrong rows.
pub fn check_ordered(key: &KeyDesign, i: usize) -> Result<(), EncodeError> {
    let c: &Component = &key.components[i];
    let k = format!("the {} key", key.table);
    let refuse = |why: String| Err(EncodeError::invalid(&c.name, why));
    if hashed(key, i) {
        return refuse(format!(
            "is hashed in {k}: rows are not in its order, so it takes one value, not a range"
        ));
    }
    if let Some(r) = c.reverse {
        let how = match r {
            crate::model::Reverse::Chars => "chars",
            crate::model::Reverse::Segments => "segments",
        };
        return refuse(format!(
            "{k} stores it reversed ({how}), so rows are not in its value order: give it one value, not a range"
        ));
    }
    let Layout::Separated { separator: sep } = key.layout else {
        return Ok(());
    };
    let text = matches!(c.ty, ScalarType::String | ScalarType::Bytes);
    if text && !ends_after(key, i + 1) {
        return refuse(format!(
            "{k} is separated and more components follow it, so rows are not in its value order \
             ('k0{sep}' sorts before 'k{sep}'): a range works on the last component or on a number with a width"
        ));
    }
    if c.ty == ScalarType::String && c.escape && c.charset.allows(sep) {
        return refuse(format!(
            "{k} escapes '{sep}' and '\\' in it, so rows are not in its value order \
             ('a\\{sep}' sorts before 'a]'): give it one value, not a range"
        ));
    }
    if !text && c.width.is_none() {
        return refuse(format!(
            "{k} is separated and writes it without a width, so rows are not in its value order \
             ('10' sorts before '9'): give it one value, not a range"
        ));
    }
    Ok(())
}

/// Whether `a` is above `b` in value order (code point order for strings, as UTF-8 sorts).
fn above(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Str(a), Value::Str(b)) => a > b,
        (Value::Bytes(a), Value::Bytes(b)) => a > b,
        (Value::Int(a), Value::Int(b)) => a > b,
        (Value::F32(a), Value::F32(b)) => a > b,
        (Value::F64(a), Value::F64(b)) => a > b,
        _ => false, // mixed types: encoding has refused them already
    }
}

fn shown(v: &Value) -> String {
    match v {
        Value::Str(s) => format!("{s:?}"),
        Value::Bytes(b) => format!("0x{}", crate::hex::encode(b)),
        Value::Int(i) => i.to_string(),
        Value::F32(f) => f.to_string(),
        Value::F64(f) => f.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Json(j) => j.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Charset, Component};

    fn component(name: &str, width: Option<u32>, desc: bool) -> Component {
        Component {
            name: name.into(),
            doc: String::new(),
            ty: ScalarType::String,
            width,
            charset: Charset::Any,
            escape: false,
            desc,
            reverse: None,
            reverse_timestamp: false,
            allow_empty: false,
            kept: true,
        }
    }

    fn key(layout: Layout, c: Component) -> KeyDesign {
        KeyDesign {
            table: "t".into(),
            layout,
            components: vec![c],
            hash: None,
            salt: None,
        }
    }

    fn starts(k: &KeyDesign, p: &str) -> Vec<RowRange> {
        bounds(k, &[Some(Given::StartsWith(Value::Str(p.into())))]).unwrap()
    }

    #[test]
    fn starts_with_in_the_fixed_layout_is_the_unpadded_utf8() {
        let k = key(Layout::Fixed, component("region", Some(4), false));
        assert_eq!(starts(&k, "eu"), [(b"eu".to_vec(), Some(b"ev".to_vec()))]);
        assert!(bounds(&k, &[Some(Given::StartsWith(Value::Str("eu-west".into())))]).is_err());
    }

    #[test]
    fn starts_with_on_a_desc_binary_string_is_the_inverted_prefix() {
        let k = key(Layout::Binary, component("name", None, true));
        let got = starts(&k, "a\0");
        assert_eq!(
            got,
            [(vec![!b'a', 0xFF, 0x00], Some(vec![!b'a', 0xFF, 0x01]))]
        );
        // Every key of a value starting with the prefix starts with its bytes.
        let full = crate::keys::encode_key(&k, &[Value::Str("a\0b".into())]).unwrap();
        assert!(full.starts_with(&got[0].0));
    }

    #[test]
    fn after_strips_ff_and_increments() {
        assert_eq!(after(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(after(&[0x61, 0xFF, 0xFF]), Some(vec![0x62]));
        assert_eq!(after(&[0xFF]), None);
        assert_eq!(after(&[]), None);
    }
}
