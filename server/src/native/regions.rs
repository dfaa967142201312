//! Regions as HBase's client names them. A region's name is `table,startKey,id.md5.` (HBase's
//! "new format", the md5 being the hex digest of `table,startKey,id`), and the id HBase sees is
//! derived from the engine's region id and end key: a split gives both parts new names even
//! where the engine lets the lower part keep its id, so a client holding the old name hears
//! NotServingRegionException and looks the row up again, as after an HBase split.
//!
//! hbase:meta is one region, `hbase:meta,,1`, as in HBase.

use md5::{Digest, Md5};

use crate::engine::{Engine, RegionMeta, TableName};

use super::errors::NativeError;
use super::pb;

/// The only region of hbase:meta, by HBase's (old-format) name.
pub const META_REGION_NAME: &[u8] = b"hbase:meta,,1";
/// Its encoded name (HBase's Jenkins hash of the name, fixed since HBase 0.96).
pub const META_ENCODED_NAME: &[u8] = b"1588230740";
pub const META_TABLE: &str = "hbase:meta";

/// Bits of the HBase id that come from the end key.
const END_BITS: u32 = 20;

/// The id HBase's client sees for a region: changes when its range does.
pub fn region_id(meta: &RegionMeta) -> u64 {
    // FNV-1a over the end key: stable across restarts and builds.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in &meta.end {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (meta.id.wrapping_shl(END_BITS) | (h & ((1 << END_BITS) - 1))) & (i64::MAX as u64)
}

/// `table,startKey,id.md5.`: HBase's region name in its new format.
pub fn region_name(table: &str, start: &[u8], id: u64) -> Vec<u8> {
    let mut base = Vec::with_capacity(table.len() + start.len() + 24);
    base.extend_from_slice(table.as_bytes());
    base.push(b',');
    base.extend_from_slice(start);
    base.push(b',');
    base.extend_from_slice(itoa_u64(id).as_slice());
    let digest = Md5::digest(&base);
    base.push(b'.');
    // Hex by table, not `format!` per byte: every call naming a region computes its name.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in digest {
        base.push(HEX[usize::from(b >> 4)]);
        base.push(HEX[usize::from(b & 0xf)]);
    }
    base.push(b'.');
    base
}

/// `n` in decimal, without going through the formatter.
fn itoa_u64(mut n: u64) -> smallvec::SmallVec<[u8; 20]> {
    let mut out = smallvec::SmallVec::<[u8; 20]>::new();
    loop {
        out.push(b'0' + (n % 10) as u8);
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    out
}

/// A region's name from its catalog record.
pub fn name_of(meta: &RegionMeta) -> Vec<u8> {
    region_name(&display_name(&meta.table), &meta.start, region_id(meta))
}

/// A table's name as HBase prints it: `name` in the default namespace, `ns:name` elsewhere.
pub fn display_name(table: &str) -> String {
    TableName::parse(table)
        .map(|t| t.to_string())
        .unwrap_or_else(|_| table.to_string())
}

pub fn table_name_pb(table: &str) -> pb::TableName {
    let (ns, q) = match TableName::parse(table) {
        Ok(t) => (t.namespace, t.qualifier),
        Err(_) => ("default".to_string(), table.to_string()),
    };
    pb::TableName {
        namespace: ns.into_bytes().into(),
        qualifier: q.into_bytes().into(),
    }
}

/// The table a protobuf name means, as the engine spells it.
pub fn table_from_pb(t: &pb::TableName) -> String {
    let ns = String::from_utf8_lossy(&t.namespace);
    let q = String::from_utf8_lossy(&t.qualifier);
    if ns.is_empty() || ns == "default" {
        q.into_owned()
    } else {
        format!("{ns}:{q}")
    }
}

pub fn region_info(meta: &RegionMeta) -> pb::RegionInfo {
    pb::RegionInfo {
        region_id: region_id(meta),
        table_name: table_name_pb(&meta.table),
        start_key: Some(meta.start.clone().into()),
        end_key: Some(meta.end.clone().into()),
        offline: Some(false),
        split: Some(false),
        replica_id: Some(0),
    }
}

pub fn meta_region_info() -> pb::RegionInfo {
    pb::RegionInfo {
        region_id: 1,
        table_name: table_name_pb(META_TABLE),
        start_key: Some(Default::default()),
        end_key: Some(Default::default()),
        offline: Some(false),
        split: Some(false),
        replica_id: Some(0),
    }
}

/// What a call's region specifier names.
#[derive(Debug, Clone)]
pub enum Target {
    Meta,
    /// A user region as it is now.
    Region(RegionMeta),
}

/// The region a specifier names, if this server has it now; NotServingRegionException
/// otherwise (a region that was split, or whose table is gone), which sends the client back to
/// hbase:meta.
pub fn resolve(engine: &Engine, spec: Option<&pb::RegionSpecifier>) -> Result<Target, NativeError> {
    let Some(spec) = spec else {
        return Err(NativeError::bad_request("the call names no region"));
    };
    let name = &spec.value[..];
    let encoded =
        spec.r#type == pb::region_specifier::RegionSpecifierType::EncodedRegionName as i32;
    if (!encoded && name == META_REGION_NAME) || (encoded && name == META_ENCODED_NAME) {
        return Ok(Target::Meta);
    }
    let found = if encoded {
        find_encoded(engine, name)
    } else {
        find_named(engine, name)
    };
    found
        .map(Target::Region)
        .ok_or_else(|| NativeError::not_serving(name))
}

/// Splits `table,start,id.md5.` into the table and the start key.
fn parse_name(name: &[u8]) -> Option<(&str, &[u8])> {
    let body = name.strip_suffix(b".")?;
    let (rest, md5) = body.split_at(body.len().checked_sub(32)?);
    if !md5.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let rest = rest.strip_suffix(b".")?;
    let first = rest.iter().position(|&b| b == b',')?;
    let last = rest.iter().rposition(|&b| b == b',')?;
    if last <= first {
        return None;
    }
    let table = std::str::from_utf8(&rest[..first]).ok()?;
    Some((table, &rest[first + 1..last]))
}

fn find_named(engine: &Engine, name: &[u8]) -> Option<RegionMeta> {
    let (table, start) = parse_name(name)?;
    let r = engine.region_of(table, start).ok()?;
    (r.meta.start == start && name_of(&r.meta) == name).then_some(r.meta)
}

fn find_encoded(engine: &Engine, encoded: &[u8]) -> Option<RegionMeta> {
    engine.list_tables().into_iter().find_map(|t| {
        let regions = engine.regions(&t.to_string()).ok()?;
        regions.into_iter().map(|r| r.meta).find(|m| {
            let n = name_of(m);
            n.len() > 34 && &n[n.len() - 33..n.len() - 1] == encoded
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(start: &[u8], end: &[u8], id: u64) -> RegionMeta {
        RegionMeta {
            table: "ns:t".into(),
            id,
            start: start.to_vec(),
            end: end.to_vec(),
            file: String::new(),
        }
    }

    #[test]
    fn names_parse_back_and_change_with_the_range() {
        let m = meta(b"a,b.c", b"z", 1_700_000_000_000);
        let n = name_of(&m);
        // HBase's form, built the slow way: `table,start,id.` then the md5 in hex and `.`.
        for id in [0, 7, region_id(&m), u64::MAX >> 1] {
            let base = format!("ns:t,a,b.c,{id}");
            let want = format!("{base}.{:x}.", Md5::digest(base.as_bytes()));
            assert_eq!(region_name("ns:t", b"a,b.c", id), want.into_bytes());
        }
        assert!(n.starts_with(b"ns:t,a,b.c,"));
        assert!(n.ends_with(b"."));
        assert_eq!(parse_name(&n), Some(("ns:t", &b"a,b.c"[..])));
        // The same engine id with another end key is another region to the client.
        assert_ne!(n, name_of(&meta(b"a,b.c", b"m", 1_700_000_000_000)));
        assert!(region_id(&m) < i64::MAX as u64);
        assert_eq!(parse_name(b"hbase:meta,,1"), None);
        assert_eq!(parse_name(b"junk"), None);
    }
}
