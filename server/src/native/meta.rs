//! hbase:meta as HBase's client reads it, made on demand from the engine's catalog: for each
//! table a state row (`table:state`, the TableState protobuf) keyed by the table's name, and a
//! row per region keyed by the region's name with `info:regioninfo` ("PBUF" + RegionInfo),
//! `info:seqnumDuringOpen`, `info:server` ("host:port"), `info:serverstartcode`, `info:sn` and
//! `info:state`. Nothing is stored: the rows always say what the engine holds now, splits
//! included.
//!
//! Rows sort as HBase's MetaCellComparator sorts them: by table, then start key, then id, each
//! part compared on its own, so `t` < `t,,1` < `t,a,1` whatever bytes the keys hold.

use std::cmp::Ordering;

use bytes::Bytes;
use prost::Message;

use crate::engine::{Cell, CellType, Engine, RegionMeta, RowResult};

use super::errors::NativeError;
use super::pb;
use super::regions;

/// The address every region is served at (this server).
#[derive(Debug, Clone)]
pub struct ServerAddress {
    pub host: String,
    pub port: u16,
    /// When this server started (ms): part of HBase's server name.
    pub start_code: u64,
}

impl ServerAddress {
    pub fn pb(&self) -> pb::ServerName {
        pb::ServerName {
            host_name: self.host.clone(),
            port: Some(u32::from(self.port)),
            start_code: Some(self.start_code),
        }
    }
}

const INFO: &[u8] = b"info";
const TABLE: &[u8] = b"table";

/// A meta row key's start key and id parts (None: the key has no comma).
type Rest<'a> = Option<(&'a [u8], &'a [u8])>;

/// The parts of a meta row key: up to the first comma, between it and the last comma, after it.
fn parts(key: &[u8]) -> (&[u8], Rest<'_>) {
    match key.iter().position(|&b| b == b',') {
        None => (key, None),
        Some(first) => {
            let rest = &key[first + 1..];
            match rest.iter().rposition(|&b| b == b',') {
                None => (&key[..first], Some((rest, &[][..]))),
                Some(last) => (&key[..first], Some((&rest[..last], &rest[last + 1..]))),
            }
        }
    }
}

/// HBase's order of hbase:meta row keys.
pub fn compare(a: &[u8], b: &[u8]) -> Ordering {
    let (ta, ra) = parts(a);
    let (tb, rb) = parts(b);
    ta.cmp(tb).then_with(|| match (ra, rb) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some((sa, ia)), Some((sb, ib))) => sa.cmp(sb).then_with(|| ia.cmp(ib)),
    })
}

/// Which rows a read of hbase:meta wants, in HBase's terms.
#[derive(Debug, Clone, Default)]
pub struct MetaRange {
    pub start: Vec<u8>,
    pub stop: Vec<u8>,
    pub include_start: bool,
    pub include_stop: bool,
    pub reversed: bool,
    /// Families asked for (empty = all).
    pub families: Vec<Vec<u8>>,
}

impl MetaRange {
    /// One row, as a get reads it.
    pub fn row(key: &[u8], families: Vec<Vec<u8>>) -> MetaRange {
        MetaRange {
            start: key.to_vec(),
            stop: key.to_vec(),
            include_start: true,
            include_stop: true,
            reversed: false,
            families,
        }
    }

    fn contains(&self, key: &[u8]) -> bool {
        // Forward, start is the low bound; reversed, the high one.
        let (lo, lo_inc, hi, hi_inc) = if self.reversed {
            (
                &self.stop,
                self.include_stop,
                &self.start,
                self.include_start,
            )
        } else {
            (
                &self.start,
                self.include_start,
                &self.stop,
                self.include_stop,
            )
        };
        let above_lo = lo.is_empty()
            || match compare(key, lo) {
                Ordering::Greater => true,
                Ordering::Equal => lo_inc,
                Ordering::Less => false,
            };
        let below_hi = hi.is_empty()
            || match compare(key, hi) {
                Ordering::Less => true,
                Ordering::Equal => hi_inc,
                Ordering::Greater => false,
            };
        above_lo && below_hi
    }

    fn wants(&self, family: &[u8]) -> bool {
        self.families.is_empty() || self.families.iter().any(|f| f == family)
    }
}

fn cell(row: &Bytes, family: &'static [u8], qualifier: &'static [u8], ts: i64, v: Vec<u8>) -> Cell {
    Cell {
        row: row.clone(),
        family: Bytes::from_static(family),
        qualifier: Bytes::from_static(qualifier),
        timestamp: ts,
        cell_type: CellType::Put,
        value: v.into(),
    }
}

fn region_row(meta: &RegionMeta, server: &ServerAddress) -> (Vec<u8>, Vec<Cell>) {
    let key = regions::name_of(meta);
    let row = Bytes::from(key.clone());
    let ts = meta.id as i64;
    let mut info = b"PBUF".to_vec();
    regions::region_info(meta)
        .encode(&mut info)
        .expect("a Vec grows as needed");
    let host_port = format!("{}:{}", server.host, server.port);
    let sn = format!("{},{},{}", server.host, server.port, server.start_code);
    // Qualifiers in byte order: a Result is searched by binary search.
    let cells = vec![
        cell(&row, INFO, b"regioninfo", ts, info),
        cell(
            &row,
            INFO,
            b"seqnumDuringOpen",
            ts,
            meta.id.to_be_bytes().to_vec(),
        ),
        cell(&row, INFO, b"server", ts, host_port.into_bytes()),
        cell(
            &row,
            INFO,
            b"serverstartcode",
            ts,
            server.start_code.to_be_bytes().to_vec(),
        ),
        cell(&row, INFO, b"sn", ts, sn.into_bytes()),
        cell(&row, INFO, b"state", ts, b"OPEN".to_vec()),
    ];
    (key, cells)
}

fn state_row(table: &str, enabled: bool) -> (Vec<u8>, Vec<Cell>) {
    let key = regions::display_name(table).into_bytes();
    let row = Bytes::from(key.clone());
    let state = pb::TableState {
        state: if enabled {
            pb::table_state::State::Enabled
        } else {
            pb::table_state::State::Disabled
        } as i32,
    };
    (
        key,
        vec![cell(&row, TABLE, b"state", 0, state.encode_to_vec())],
    )
}

/// The rows of hbase:meta a read wants, in the order it reads them.
pub fn rows(
    engine: &Engine,
    server: &ServerAddress,
    range: &MetaRange,
) -> Result<Vec<RowResult>, NativeError> {
    let mut out: Vec<(Vec<u8>, Vec<Cell>)> = Vec::new();
    for name in engine.list_tables() {
        let table = name.to_string();
        // A table's rows all share its name as their first part: skip tables out of range.
        let (lo, hi) = if range.reversed {
            (&range.stop, &range.start)
        } else {
            (&range.start, &range.stop)
        };
        let t = table.as_bytes();
        if (!lo.is_empty() && t < parts(lo).0) || (!hi.is_empty() && t > parts(hi).0) {
            continue;
        }
        let Ok(enabled) = engine.is_table_enabled(&table) else {
            continue;
        };
        let regions = match engine.regions(&table) {
            Ok(r) => r,
            Err(_) => continue,
        };
        let mut candidates = vec![state_row(&table, enabled)];
        candidates.extend(regions.iter().map(|r| region_row(&r.meta, server)));
        for (key, cells) in candidates {
            if !range.contains(&key) {
                continue;
            }
            let cells: Vec<Cell> = cells
                .into_iter()
                .filter(|c| range.wants(&c.family))
                .collect();
            if !cells.is_empty() {
                out.push((key, cells));
            }
        }
    }
    out.sort_by(|a, b| compare(&a.0, &b.0));
    if range.reversed {
        out.reverse();
    }
    Ok(out
        .into_iter()
        .map(|(key, cells)| RowResult::from_cells(&key, &cells))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_order_compares_parts() {
        assert_eq!(compare(b"t", b"t,,1"), Ordering::Less);
        assert_eq!(compare(b"t,,1", b"t,a,1"), Ordering::Less);
        // Plain byte order would put "t,a!" before "t,a,": the parts say otherwise.
        assert_eq!(compare(b"t,a,5", b"t,a!,1"), Ordering::Less);
        assert_eq!(
            compare(b"t,row,99999999999999", b"t,row,1782.x."),
            Ordering::Greater
        );
        assert_eq!(compare(b"t2", b"t,z,1"), Ordering::Greater);
        assert_eq!(compare(b"a,b,c", b"a,b,c"), Ordering::Equal);
    }

    #[test]
    fn ranges_honour_direction_and_inclusion() {
        let r = MetaRange {
            start: b"t,m,99999999999999".to_vec(),
            stop: b"t,,".to_vec(),
            include_start: true,
            include_stop: true,
            reversed: true,
            families: vec![],
        };
        assert!(r.contains(b"t,,17.x."));
        assert!(r.contains(b"t,m,17.x."));
        assert!(!r.contains(b"t,n,17.x."));
        assert!(!r.contains(b"t"));
        assert!(MetaRange::row(b"t", vec![]).contains(b"t"));
        assert!(!MetaRange::row(b"t", vec![]).contains(b"t,,1"));
    }
}
