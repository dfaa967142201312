//! Cell blocks in HBase's KeyValueCodec: cells outside the protobufs, each as a 4-byte
//! big-endian length followed by the cell as a KeyValue (key length, value length, row length,
//! row, family length, family, qualifier, timestamp, type byte, value). Requests carry the
//! cells of batched mutations this way, responses the cells of results.
//!
//! Decoding checks every length against the block before slicing: a cell that claims more
//! than the block holds, or a key too short for its parts, is an error naming the cell.

use bytes::{BufMut, Bytes};

use crate::engine::{CellType, CellView};

use super::errors::NativeError;

/// The codec HBase's client names by default, and the one with tags (the same bytes when a
/// cell has no tags, and requests' tags are ignored).
pub const CODECS: [&str; 2] = [
    "org.apache.hadoop.hbase.codec.KeyValueCodec",
    "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags",
];

/// Key bytes besides the row, family and qualifier: row length (2), family length (1),
/// timestamp (8), type (1).
const KEY_FIXED: usize = 2 + 1 + 8 + 1;

/// One cell of a request's block, as slices of the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockCell {
    pub row: Bytes,
    pub family: Bytes,
    pub qualifier: Bytes,
    pub timestamp: i64,
    /// The KeyValue type code (4 put, 8 delete, 10 delete family version, 12 delete column,
    /// 14 delete family).
    pub type_code: u8,
    pub value: Bytes,
}

impl BlockCell {
    pub fn cell_type(&self) -> Option<CellType> {
        CellType::from_code(self.type_code)
    }
}

fn be_u32(b: &[u8]) -> usize {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize
}

/// Every cell of a block, in order.
pub fn decode(block: &Bytes) -> Result<Vec<BlockCell>, NativeError> {
    let mut cells = Vec::new();
    let mut at = 0usize;
    while at < block.len() {
        let n = cells.len();
        let bad = |why: String| {
            NativeError::bad_request(format!("cell {n} of the request's cell block: {why}"))
        };
        if block.len() - at < 4 {
            return Err(bad("the block ends inside a cell's length".into()));
        }
        let len = be_u32(&block[at..]);
        at += 4;
        if len > block.len() - at {
            return Err(bad(format!(
                "it claims {len} bytes but the block holds {} after its length",
                block.len() - at
            )));
        }
        let kv = block.slice(at..at + len);
        at += len;
        if kv.len() < 8 {
            return Err(bad("too short for its key and value lengths".into()));
        }
        let (klen, vlen) = (be_u32(&kv), be_u32(&kv[4..]));
        if klen < KEY_FIXED || klen.saturating_add(vlen) > kv.len() - 8 {
            return Err(bad(format!(
                "key length {klen} and value length {vlen} do not fit its {} bytes",
                kv.len()
            )));
        }
        let key = kv.slice(8..8 + klen);
        let rlen = u16::from_be_bytes([key[0], key[1]]) as usize;
        if 2 + rlen + 1 > klen - 9 {
            return Err(bad(format!("row length {rlen} does not fit its key")));
        }
        let flen = key[2 + rlen] as usize;
        let fam_at = 3 + rlen;
        if fam_at + flen > klen - 9 {
            return Err(bad(format!("family length {flen} does not fit its key")));
        }
        let ts_at = klen - 9;
        let timestamp = i64::from_be_bytes(key[ts_at..ts_at + 8].try_into().expect("8 bytes"));
        cells.push(BlockCell {
            row: key.slice(2..2 + rlen),
            family: key.slice(fam_at..fam_at + flen),
            qualifier: key.slice(fam_at + flen..ts_at),
            timestamp,
            type_code: key[klen - 1],
            // Anything after the value is tags (KeyValueCodecWithTags): not kept.
            value: kv.slice(8 + klen..8 + klen + vlen),
        });
    }
    Ok(cells)
}

/// Bytes one cell takes in a block.
pub fn encoded_len(c: &CellView<'_>) -> usize {
    4 + 8 + KEY_FIXED + c.row.len() + c.family.len() + c.qualifier.len() + c.value.len()
}

/// Appends one cell to a block. Rows and families longer than a KeyValue can hold never reach
/// here: the engine refuses rows over 32767 bytes and families are short names.
pub fn encode(out: &mut Vec<u8>, c: &CellView<'_>) {
    let klen = KEY_FIXED + c.row.len() + c.family.len() + c.qualifier.len();
    out.reserve(encoded_len(c));
    out.put_u32((8 + klen + c.value.len()) as u32);
    out.put_u32(klen as u32);
    out.put_u32(c.value.len() as u32);
    out.put_u16(c.row.len() as u16);
    out.put_slice(c.row);
    out.put_u8(c.family.len() as u8);
    out.put_slice(c.family);
    out.put_slice(c.qualifier);
    out.put_i64(c.timestamp);
    out.put_u8(c.cell_type.code());
    out.put_slice(c.value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_round_trip_and_bad_lengths_are_named() {
        let a = CellView {
            row: b"row1",
            family: b"f",
            qualifier: b"q",
            timestamp: 42,
            cell_type: CellType::Put,
            value: b"value",
        };
        let b = CellView {
            row: b"r",
            family: b"fam",
            qualifier: b"",
            timestamp: i64::MAX,
            cell_type: CellType::DeleteFamily,
            value: b"",
        };
        let mut block = Vec::new();
        encode(&mut block, &a);
        encode(&mut block, &b);
        assert_eq!(block.len(), encoded_len(&a) + encoded_len(&b));
        let cells = decode(&Bytes::from(block.clone())).unwrap();
        assert_eq!(cells.len(), 2);
        assert_eq!(&cells[0].row[..], b"row1");
        assert_eq!(&cells[0].qualifier[..], b"q");
        assert_eq!(&cells[0].value[..], b"value");
        assert_eq!((cells[0].timestamp, cells[0].type_code), (42, 4));
        assert_eq!(&cells[1].family[..], b"fam");
        assert_eq!(cells[1].cell_type(), Some(CellType::DeleteFamily));
        // Every truncation is an error, never a panic.
        for cut in 1..block.len() {
            let r = decode(&Bytes::from(block[..cut].to_vec()));
            assert!(r.is_err() || cut == encoded_len(&a), "cut at {cut}");
        }
        // A row length past its key.
        let mut bad = block[..encoded_len(&a)].to_vec();
        bad[12] = 0xff;
        assert!(decode(&Bytes::from(bad)).is_err());
        // A huge claimed length.
        assert!(decode(&Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0])).is_err());
    }
}
