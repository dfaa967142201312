//! The redo log's record format ([`super::redo`]): encoding a batch's changes and parsing a
//! log file's current generation back.
//!
//! Integers are little-endian. A log file starts with the 8 bytes [`MAGIC`], then records:
//!
//! ```text
//! u32   body length
//! u32   CRC-32 (IEEE) of the body
//! body: u64 sequence number, u64 base (the generation's first sequence number),
//!       u64 region size after the batch (the value under SIZE_KEY), u32 change count,
//!       then per change:
//!       u8 op (1 = insert, 0 = remove), u32 + family bytes, u32 + key bytes,
//!       and for an insert u32 + value bytes
//! ```
//!
//! A record that is cut short or fails its checksum (a write torn by a power loss) was never
//! acknowledged: parsing stops there. A log without the magic is one written before logs were
//! reused (records from offset 0, no base in the body); it still parses.

use std::io;

/// Bytes before a record's body: its length and checksum.
pub(crate) const HEADER: usize = 8;
/// The fixed part of a body: sequence number, base, size, change count.
const BODY_FIXED: usize = 28;
/// The fixed part of a body in a log without [`MAGIC`]: no base.
const BODY_FIXED_V1: usize = 20;
/// The first bytes of a log file. As a record's length (the first 4 bytes of a log without
/// it) they would say 1.3 GiB, far past any batch, so the two kinds cannot be confused.
pub(crate) const MAGIC: [u8; 8] = *b"\xffRBREDO2";

/// One physical change of a batch to a family table: `Some(value)` inserted, `None` removed.
#[derive(Debug)]
pub(crate) struct Change {
    pub family: Vec<u8>,
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

/// One record as parsed, borrowing the log's bytes.
pub(crate) struct Record<'a> {
    pub seq: u64,
    pub base: u64,
    pub size: u64,
    pub changes: Vec<RawChange<'a>>,
}

pub(crate) struct RawChange<'a> {
    pub family: &'a [u8],
    pub key: &'a [u8],
    pub value: Option<&'a [u8]>,
}

pub(crate) fn encode(seq: u64, base: u64, size: u64, changes: &[Change]) -> io::Result<Vec<u8>> {
    let too_big = || io::Error::new(io::ErrorKind::InvalidInput, "batch too large to log");
    let len32 = |n: usize| u32::try_from(n).map_err(|_| too_big());
    let body_len: usize = BODY_FIXED
        + changes
            .iter()
            .map(|c| 9 + c.family.len() + c.key.len() + c.value.as_ref().map_or(0, |v| 4 + v.len()))
            .sum::<usize>();
    let mut out = Vec::with_capacity(HEADER + body_len);
    out.extend_from_slice(&len32(body_len)?.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&len32(changes.len())?.to_le_bytes());
    for c in changes {
        out.push(u8::from(c.value.is_some()));
        for part in [Some(&c.family), Some(&c.key), c.value.as_ref()]
            .into_iter()
            .flatten()
        {
            out.extend_from_slice(&len32(part.len())?.to_le_bytes());
            out.extend_from_slice(part);
        }
    }
    let crc = crc32(&out[HEADER..]);
    out[4..HEADER].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// The current generation's records: the whole valid records from the start of the log's
/// records that share the first one's base, with growing numbers. Whatever follows (a torn
/// record, zeros, an older generation's records) is not part of it.
pub(crate) fn parse(bytes: &[u8]) -> Vec<Record<'_>> {
    let (mut at, reused) = match bytes.strip_prefix(&MAGIC) {
        Some(_) => (MAGIC.len(), true),
        None => (0, false),
    };
    let mut records: Vec<Record<'_>> = Vec::new();
    while let Some((rec, next)) = parse_one(bytes, at, reused) {
        let fits = match records.last() {
            None => !reused || rec.base == rec.seq,
            Some(p) => p.seq < rec.seq && p.base == rec.base,
        };
        if !fits {
            break;
        }
        records.push(rec);
        at = next;
    }
    records
}

fn parse_one(bytes: &[u8], at: usize, with_base: bool) -> Option<(Record<'_>, usize)> {
    let mut r = Reader {
        bytes: bytes.get(at..)?,
    };
    let len = r.u32()? as usize;
    let crc = r.u32()?;
    let body = r.take(len)?;
    let fixed = if with_base { BODY_FIXED } else { BODY_FIXED_V1 };
    if len < fixed || crc32(body) != crc {
        return None;
    }
    let mut b = Reader { bytes: body };
    let seq = b.u64()?;
    // A log from before reuse is one generation: every record shares base 0.
    let base = if with_base { b.u64()? } else { 0 };
    let size = b.u64()?;
    let n = b.u32()? as usize;
    let mut changes = Vec::with_capacity(n.min(body.len() / 9));
    for _ in 0..n {
        let op = b.take(1)?[0];
        let family = b.chunk()?;
        let key = b.chunk()?;
        let value = match op {
            1 => Some(b.chunk()?),
            0 => None,
            _ => return None,
        };
        changes.push(RawChange { family, key, value });
    }
    if !b.bytes.is_empty() {
        return None;
    }
    Some((
        Record {
            seq,
            base,
            size,
            changes,
        },
        at + HEADER + len,
    ))
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn chunk(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

/// CRC-32 (IEEE 802.3), the checksum of each record's body.
pub(crate) fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn records_round_trip_and_a_torn_tail_is_dropped() {
        let changes = vec![
            Change {
                family: b"f".to_vec(),
                key: b"k1".to_vec(),
                value: Some(b"v1".to_vec()),
            },
            Change {
                family: b"g".to_vec(),
                key: b"k2".to_vec(),
                value: None,
            },
        ];
        let mut log = MAGIC.to_vec();
        log.extend(encode(1, 1, 10, &changes).unwrap());
        let first = log.len();
        log.extend(encode(2, 1, 20, &changes[..1]).unwrap());
        let recs = parse(&log);
        assert_eq!(recs.len(), 2);
        assert_eq!((recs[0].seq, recs[0].base, recs[0].size), (1, 1, 10));
        assert_eq!(recs[0].changes[1].value, None);
        assert_eq!(recs[1].changes[0].value, Some(&b"v1"[..]));
        for cut in first..log.len() {
            assert_eq!(parse(&log[..cut]).len(), 1, "cut at {cut}");
        }
        log[first + HEADER + 3] ^= 1;
        assert_eq!(parse(&log).len(), 1, "a flipped bit fails the checksum");
        let mut zeros = MAGIC.to_vec();
        zeros.extend([0u8; 64]);
        assert_eq!(parse(&zeros).len(), 0, "zeros are no record");
    }
}
