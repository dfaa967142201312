//! How a cell is keyed inside a region file.
//!
//! One redb table per column family holds that family's cells. A key is
//!
//! ```text
//! [row_len: u16 BE][row][kind: u8][qualifier][!ts: u64 BE][!type: u8]
//! ```
//!
//! and [`CellKey::compare`] orders keys by row (bytewise, ascending), then kind (family-wide
//! delete markers, kind 0, before column cells, kind 1), then qualifier (bytewise, ascending),
//! then timestamp descending and type descending (both stored inverted, so a plain byte compare of
//! the last nine bytes gives that order). Delete markers therefore come before puts at the same
//! timestamp, as in HBase. The qualifier needs no length: it is whatever lies between the kind byte
//! and the last nine bytes.

use std::borrow::Cow;
use std::cmp::Ordering;

use redb::TableDefinition;
use smallvec::SmallVec;

use super::cell::CellType;

/// Marker for the redb key type; keys are handled as raw byte slices.
#[derive(Debug)]
pub struct CellKey;

/// Kind byte for family-wide markers (DeleteFamily, DeleteFamilyVersion).
pub const KIND_FAMILY: u8 = 0;
/// Kind byte for column cells (Put, Delete, DeleteColumn).
pub const KIND_COLUMN: u8 = 1;

const TAIL: usize = 9;

/// A decoded view of a cell key, borrowing the encoded bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyParts<'a> {
    pub row: &'a [u8],
    pub kind: u8,
    pub qualifier: &'a [u8],
    pub ts: i64,
    pub cell_type: CellType,
}

/// Encodes a key. `row` must be at most `u16::MAX` bytes (the engine limits it to 32767).
pub fn encode(row: &[u8], kind: u8, qualifier: &[u8], ts: i64, cell_type: CellType) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + row.len() + 1 + qualifier.len() + TAIL);
    out.extend_from_slice(&(row.len() as u16).to_be_bytes());
    out.extend_from_slice(row);
    out.push(kind);
    out.extend_from_slice(qualifier);
    out.extend_from_slice(&(!(ts as u64)).to_be_bytes());
    out.push(!cell_type.code());
    out
}

/// The smallest key of `row`: every key of the row sorts at or after it.
pub fn row_start(row: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + row.len());
    out.extend_from_slice(&(row.len() as u16).to_be_bytes());
    out.extend_from_slice(row);
    out
}

/// Splits an encoded key into its parts. Returns None for bytes that are not a cell key, which
/// only happens with a corrupt file.
pub fn decode(data: &[u8]) -> Option<KeyParts<'_>> {
    let (row, rest) = split_row(data)?;
    if rest.is_empty() {
        // A bare row prefix, used only as a range bound.
        return None;
    }
    if rest.len() < 1 + TAIL {
        return None;
    }
    let kind = rest[0];
    let qualifier = &rest[1..rest.len() - TAIL];
    let tail = &rest[rest.len() - TAIL..];
    let ts = !u64::from_be_bytes(tail[..8].try_into().ok()?) as i64;
    let cell_type = CellType::from_code(!tail[8])?;
    Some(KeyParts {
        row,
        kind,
        qualifier,
        ts,
        cell_type,
    })
}

/// The row of an encoded key (or of a bare row prefix).
pub fn row_of(data: &[u8]) -> &[u8] {
    split_row(data).map(|(r, _)| r).unwrap_or(&[])
}

fn split_row(data: &[u8]) -> Option<(&[u8], &[u8])> {
    if data.len() < 2 {
        return None;
    }
    let len = u16::from_be_bytes([data[0], data[1]]) as usize;
    if data.len() < 2 + len {
        return None;
    }
    Some((&data[2..2 + len], &data[2 + len..]))
}

/// Compares two encoded keys (or bare row prefixes, which sort before every key of their row).
pub fn compare(a: &[u8], b: &[u8]) -> Ordering {
    let (ra, resta) = split_row(a).unwrap_or((a, &[]));
    let (rb, restb) = split_row(b).unwrap_or((b, &[]));
    match ra.cmp(rb) {
        Ordering::Equal => {}
        o => return o,
    }
    match (resta.is_empty(), restb.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    match resta[0].cmp(&restb[0]) {
        Ordering::Equal => {}
        o => return o,
    }
    if resta.len() < 1 + TAIL || restb.len() < 1 + TAIL {
        return resta.cmp(restb);
    }
    let qa = &resta[1..resta.len() - TAIL];
    let qb = &restb[1..restb.len() - TAIL];
    match qa.cmp(qb) {
        Ordering::Equal => resta[resta.len() - TAIL..].cmp(&restb[restb.len() - TAIL..]),
        o => o,
    }
}

impl redb::Value for CellKey {
    type SelfType<'a> = &'a [u8];
    type AsBytes<'a> = &'a [u8];

    fn fixed_width() -> Option<usize> {
        None
    }

    fn from_bytes<'a>(data: &'a [u8]) -> &'a [u8]
    where
        Self: 'a,
    {
        data
    }

    fn as_bytes<'a, 'b: 'a>(value: &'a &'b [u8]) -> &'a [u8]
    where
        Self: 'b,
    {
        value
    }

    fn type_name() -> redb::TypeName {
        redb::TypeName::new("redbase::CellKey/v1")
    }
}

impl redb::Key for CellKey {
    fn compare(data1: &[u8], data2: &[u8]) -> Ordering {
        compare(data1, data2)
    }

    fn separator<'a>(left: &'a [u8], _right: &'a [u8]) -> Cow<'a, [u8]> {
        Cow::Borrowed(left)
    }
}

/// Stored values are `[flags: u8][cell ttl ms: i64 BE, if flags & 1][value]`.
pub fn encode_value(value: &[u8], ttl_ms: Option<i64>) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + 8 + value.len());
    match ttl_ms {
        Some(ttl) => {
            out.push(1);
            out.extend_from_slice(&ttl.to_be_bytes());
        }
        None => out.push(0),
    }
    out.extend_from_slice(value);
    out
}

/// Splits a stored value into (cell ttl, user value). None for bytes no writer produces.
pub fn decode_value(data: &[u8]) -> Option<(Option<i64>, &[u8])> {
    match data.first()? {
        0 => Some((None, &data[1..])),
        1 if data.len() >= 9 => Some((
            Some(i64::from_be_bytes(data[1..9].try_into().ok()?)),
            &data[9..],
        )),
        _ => None,
    }
}

/// The table of a region file that holds its identity ([`INFO_KEY`]) and size ([`SIZE_KEY`]).
pub(crate) const REGION_TABLE: TableDefinition<&str, &[u8]> = TableDefinition::new("region");
pub(crate) const SIZE_KEY: &str = "size";
pub(crate) const INFO_KEY: &str = "info";

/// The redb table name of a family: `cf:` and the family bytes in hex (names are bytes in HBase).
/// Built on the stack for the usual short family names, since every get and scan opens it.
pub(crate) fn family_table_name(family: &[u8]) -> FamilyTableName {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = SmallVec::with_capacity(3 + family.len() * 2);
    s.extend_from_slice(b"cf:");
    for b in family {
        s.push(HEX[(b >> 4) as usize]);
        s.push(HEX[(b & 15) as usize]);
    }
    FamilyTableName(s)
}

/// A family's redb table name (ASCII by construction); derefs to `str`.
pub(crate) struct FamilyTableName(SmallVec<[u8; 40]>);

impl std::ops::Deref for FamilyTableName {
    type Target = str;

    fn deref(&self) -> &str {
        // Only "cf:" and hex digits are ever pushed, so this never fails.
        std::str::from_utf8(&self.0).unwrap_or("cf:")
    }
}

pub(crate) fn family_def(name: &str) -> TableDefinition<'_, CellKey, &'static [u8]> {
    TableDefinition::new(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_row_kind_qualifier_ts_desc_type_desc() {
        let keys = [
            encode(b"a", KIND_FAMILY, b"", 10, CellType::DeleteFamily),
            encode(b"a", KIND_COLUMN, b"", 5, CellType::Put),
            encode(b"a", KIND_COLUMN, b"q", 9, CellType::DeleteColumn),
            encode(b"a", KIND_COLUMN, b"q", 9, CellType::Put),
            encode(b"a", KIND_COLUMN, b"q", 3, CellType::Put),
            encode(b"a", KIND_COLUMN, b"q\0", 3, CellType::Put),
            encode(b"a\0", KIND_FAMILY, b"", 1, CellType::DeleteFamily),
            encode(b"b", KIND_COLUMN, b"", 1, CellType::Put),
        ];
        for w in keys.windows(2) {
            assert_eq!(
                compare(&w[0], &w[1]),
                Ordering::Less,
                "{:?} < {:?}",
                w[0],
                w[1]
            );
        }
        assert_eq!(compare(&row_start(b"a"), &keys[0]), Ordering::Less);
        assert_eq!(compare(&keys[5], &row_start(b"a\0")), Ordering::Less);
        let d = decode(&keys[3]).unwrap();
        assert_eq!((d.row, d.qualifier, d.ts), (&b"a"[..], &b"q"[..], 9));
        assert_eq!(d.cell_type, CellType::Put);
    }
}
