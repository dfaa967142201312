//! Key bounds: the rows a scan reads for key components given by value, optionally followed by
//! one component given as an inclusive (low, high) range or, a string, as a starts-with, the
//! same rows in every redbase SDK (docs/schema.md, "Prefixes and ranges"). Typed tables reach
//! this through their prefix builders (`prefix().user_id(..).period_between(..)`,
//! `prefix().path_starts_with(..)`).

use super::error::{Error, Result};
use super::key_fields::{bad, string_prefix};
use super::keys::{KeySpec, KeyType, KeyValue, Layout};
use super::scan::{next_prefix, KeyRange};

/// One key component as bounds give it: one value, every value from the first to the second,
/// both included, or (a string) every value starting with a prefix.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    Eq(KeyValue),
    Between(KeyValue, KeyValue),
    StartsWith(String),
}

impl KeyRange {
    /// The rows (one range per salt bucket) for `given`, one entry per component in
    /// declaration order (`None`: not given): leading components by value, then at most one
    /// range, which must be the last component given. A whole key given by value selects
    /// exactly that row. Refused, naming the component: a gap before a given component, a
    /// component after the range, a range where the key's byte order is not the component's
    /// value order, a low above its high.
    pub fn bounds(spec: &KeySpec, given: Vec<Option<Bound>>) -> Result<KeyRange> {
        if given.len() > spec.components.len() {
            return Err(Error::key("more values than components"));
        }
        let mut fixed = Vec::new();
        let mut range = None;
        for (i, g) in given.iter().enumerate() {
            let later = (i + 1..given.len())
                .find(|&j| given[j].is_some())
                .map(|j| spec.components[j].name);
            match g {
                None => {
                    if let Some(later) = later {
                        return Err(missing(spec, i, later));
                    }
                    break;
                }
                Some(Bound::Between(low, high)) => {
                    if let Some(later) = later {
                        return Err(Error::key(format!(
                            "component {later}: only the last component given may be a range \
                             ({} is one)",
                            spec.components[i].name
                        )));
                    }
                    check_ordered(spec, i)?;
                    range = Some((i, low, high));
                    break;
                }
                Some(Bound::StartsWith(p)) => {
                    if let Some(later) = later {
                        return Err(Error::key(format!(
                            "component {later}: only the last component given may be a \
                             starts-with ({} is one)",
                            spec.components[i].name
                        )));
                    }
                    check_starts_with(spec, i)?;
                    return starts_with_range(spec, &fixed, i, p);
                }
                Some(Bound::Eq(v)) => fixed.push(v.clone()),
            }
        }
        let Some((at, low, high)) = range else {
            return Self::prefix(spec, &fixed);
        };
        let with = |v: &KeyValue| {
            let mut lead = fixed.clone();
            lead.push(v.clone());
            spec.prefixes(&lead)
        };
        let (lows, highs) = (with(low)?, with(high)?);
        if above(low, high) {
            return Err(bad(
                &spec.components[at],
                format!(
                    "the range's low {} is above its high {}",
                    shown(low),
                    shown(high)
                ),
            ));
        }
        let whole = ends_after(spec, at + 1);
        let ranges = lows
            .into_iter()
            .zip(highs)
            .map(|(lo, hi)| {
                // A desc or reverse-timestamp component stores its high values first.
                let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
                // The last component: keys up to `hi` itself (a longer value is a greater
                // one). Otherwise every key under `hi`'s prefix, which ends with a separator,
                // a terminator or a fixed width.
                (lo, stop_after(hi, whole))
            })
            .collect();
        Ok(KeyRange { ranges })
    }

    /// Every row whose leading components equal `leading` (one range per salt bucket). When
    /// they make a whole key, exactly that row: in a separated key `...|k` is a byte prefix of
    /// `...|k0`, another value.
    pub fn prefix(spec: &KeySpec, leading: &[KeyValue]) -> Result<KeyRange> {
        let whole = !leading.is_empty() && ends_after(spec, leading.len());
        Ok(KeyRange {
            ranges: spec
                .prefixes(leading)?
                .into_iter()
                .map(|p| (p.clone(), stop_after(p, whole)))
                .collect(),
        })
    }

    /// Rows whose leading components equal those given before `at` and whose string component
    /// `at` starts with `prefix` (`leading` holds one optional value per component; the one at
    /// `at` is replaced by the starts-with): [`KeyRange::bounds`].
    pub fn starts_with_values(
        spec: &KeySpec,
        leading: Vec<Option<KeyValue>>,
        at: usize,
        prefix: String,
    ) -> Result<KeyRange> {
        let mut given: Vec<Option<Bound>> = leading.into_iter().map(|v| v.map(Bound::Eq)).collect();
        if given.len() <= at {
            given.resize(at + 1, None);
        }
        given[at] = Some(Bound::StartsWith(prefix));
        Self::bounds(spec, given)
    }

    /// Rows whose leading components equal those given before `at` and whose component `at`
    /// lies between `low` and `high`, both inclusive (`leading` holds one optional value per
    /// component; the one at `at` is replaced by the range): [`KeyRange::bounds`].
    pub fn between_values(
        spec: &KeySpec,
        leading: Vec<Option<KeyValue>>,
        at: usize,
        low: KeyValue,
        high: KeyValue,
    ) -> Result<KeyRange> {
        let mut given: Vec<Option<Bound>> = leading.into_iter().map(|v| v.map(Bound::Eq)).collect();
        if given.len() <= at {
            given.resize(at + 1, None);
        }
        given[at] = Some(Bound::Between(low, high));
        Self::bounds(spec, given)
    }
}

/// The rows whose leading components equal `fixed` and whose string component `at` starts with
/// `p`: the leading prefix, then the bytes every field of such a string starts with, up to
/// their next prefix (one range per salt bucket).
fn starts_with_range(spec: &KeySpec, fixed: &[KeyValue], at: usize, p: &str) -> Result<KeyRange> {
    if let Some(h) = spec.hash {
        if let Some(&j) = h.components.iter().find(|&&j| j >= fixed.len()) {
            return Err(bad(
                &spec.components[j],
                format!(
                    "must be given: the {} key's hash prefix is computed from it",
                    spec.table
                ),
            ));
        }
    }
    let sep = match spec.layout {
        Layout::Separated(sep) => Some(sep),
        _ => None,
    };
    let binary = matches!(spec.layout, Layout::Binary);
    let tail = string_prefix(&spec.components[at], p, sep, binary)?;
    let ranges = spec
        .prefixes(fixed)?
        .into_iter()
        .map(|mut start| {
            start.extend_from_slice(&tail);
            let stop = next_prefix(&start);
            (start, stop)
        })
        .collect();
    Ok(KeyRange { ranges })
}

/// Refuses a starts-with on component `i` unless its stored bytes start with the bytes of every
/// prefix of its value: a string, neither hashed nor reversed.
fn check_starts_with(spec: &KeySpec, i: usize) -> Result<()> {
    let c = &spec.components[i];
    let key = format!("the {} key", spec.table);
    if c.ty != KeyType::String {
        return Err(bad(
            c,
            format!(
                "a starts-with applies to string components, and {key} has it as {:?}",
                c.ty
            ),
        ));
    }
    if hashed(spec, i) {
        return Err(Error::key(format!(
            "component {} is hashed in {key}: its hash is computed from the whole value, so it \
             takes one value, not a starts-with",
            c.name
        )));
    }
    if let Some(r) = c.reverse {
        let how = format!("{r:?}").to_lowercase();
        return Err(bad(
            c,
            format!(
                "{key} stores it reversed ({how}), so values starting alike do not share a key \
                 prefix: give it one value, not a starts-with"
            ),
        ));
    }
    Ok(())
}

/// The stop row after `last`: `last` + 0x00 when it is a whole key, else its next prefix.
fn stop_after(mut last: Vec<u8>, whole: bool) -> Option<Vec<u8>> {
    if whole {
        last.push(0);
        Some(last)
    } else {
        next_prefix(&last)
    }
}

/// Whether a key holding the first `n` components ends there (no kept component follows).
fn ends_after(spec: &KeySpec, n: usize) -> bool {
    !spec.components.iter().skip(n).any(|c| c.kept)
}

fn hashed(spec: &KeySpec, i: usize) -> bool {
    spec.hash.is_some_and(|h| h.components.contains(&i))
}

/// Component `i` is missing although `given`, a later one, is given.
pub(super) fn missing(spec: &KeySpec, i: usize, given: &str) -> Error {
    let table = spec.table;
    let name = spec.components[i].name;
    Error::key(if hashed(spec, i) {
        format!(
            "component {name} must be given: the {table} key's hash prefix is computed from it \
             (and {given} follows it in the key)"
        )
    } else {
        format!("component {name} must be given: {given} follows it in the {table} key")
    })
}

/// Refuses a range on component `i` where the key's byte order is not its value order: start
/// and stop rows could then only select the wrong rows.
fn check_ordered(spec: &KeySpec, i: usize) -> Result<()> {
    let c = &spec.components[i];
    let key = format!("the {} key", spec.table);
    let refuse = |why: String| Err(bad(c, why));
    if hashed(spec, i) {
        return refuse(format!(
            "is hashed in {key}: rows are not in its order, so it takes one value, not a range"
        ));
    }
    if let Some(r) = c.reverse {
        let how = format!("{r:?}").to_lowercase();
        return refuse(format!(
            "{key} stores it reversed ({how}), so rows are not in its value order: give it one \
             value, not a range"
        ));
    }
    let Layout::Separated(sep) = spec.layout else {
        return Ok(());
    };
    let sep = char::from(sep);
    let text = matches!(c.ty, KeyType::String | KeyType::Bytes);
    if text && !ends_after(spec, i + 1) {
        return refuse(format!(
            "{key} is separated and more components follow it, so rows are not in its value \
             order ('k0{sep}' sorts before 'k{sep}'): a range works on the last component or on \
             a number with a width"
        ));
    }
    if c.ty == KeyType::String && c.escape && c.charset.allows(sep) {
        return refuse(format!(
            "{key} escapes '{sep}' and '\\' in it, so rows are not in its value order \
             ('a\\{sep}' sorts before 'a]'): give it one value, not a range"
        ));
    }
    if !text && c.width.is_none() {
        return refuse(format!(
            "{key} is separated and writes it without a width, so rows are not in its value \
             order ('10' sorts before '9'): give it one value, not a range"
        ));
    }
    Ok(())
}

/// Whether `a` is above `b` in value order (code point order for strings, as UTF-8 sorts).
fn above(a: &KeyValue, b: &KeyValue) -> bool {
    match (a, b) {
        (KeyValue::Str(a), KeyValue::Str(b)) => a > b,
        (KeyValue::Bytes(a), KeyValue::Bytes(b)) => a > b,
        (KeyValue::Int(a), KeyValue::Int(b)) => a > b,
        (KeyValue::F32(a), KeyValue::F32(b)) => a > b,
        (KeyValue::F64(a), KeyValue::F64(b)) => a > b,
        _ => false, // mixed types: encoding has refused them already
    }
}

/// A value as an error message shows it.
fn shown(v: &KeyValue) -> String {
    match v {
        KeyValue::Str(s) => format!("{s:?}"),
        KeyValue::Bytes(b) => format!("0x{}", super::keys::hex(b)),
        KeyValue::Int(i) => i.to_string(),
        KeyValue::F32(f) => f.to_string(),
        KeyValue::F64(f) => f.to_string(),
    }
}
