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
use std::collections::VecDeque;
use std::ops::Bound;

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

    /// The low and high keys in meta order (empty: open).
    fn low_high(&self) -> (&[u8], &[u8]) {
        if self.reversed {
            (&self.stop, &self.start)
        } else {
            (&self.start, &self.stop)
        }
    }

    /// The start keys of `table`'s regions whose rows may be in range (each row is checked
    /// with [`MetaRange::contains`] after: this only narrows the window).
    fn start_keys(&self, table: &[u8]) -> (Bound<&[u8]>, Bound<&[u8]>) {
        let (lo, hi) = self.low_high();
        let lo = match parts(lo) {
            (t, Some((start, _))) if !lo.is_empty() && t == table => Bound::Included(start),
            _ => Bound::Unbounded,
        };
        let hi = match parts(hi) {
            (t, Some((start, _))) if !hi.is_empty() && t == table => Bound::Included(start),
            // `table` itself as the high key: its state row only, no region.
            (t, None) if !hi.is_empty() && t == table => Bound::Excluded(&[][..]),
            _ => Bound::Unbounded,
        };
        (lo, hi)
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

/// The rows of hbase:meta a read wants, in the order it reads them (all of them: a get's one
/// row, or a few tables' worth).
pub fn rows(
    engine: &Engine,
    server: &ServerAddress,
    range: &MetaRange,
) -> Result<Vec<RowResult>, NativeError> {
    let mut cursor = MetaRows::open(engine, server, range.clone());
    let mut out = Vec::new();
    while let Some(row) = cursor.next_row() {
        out.push(row);
    }
    Ok(out)
}

/// Region rows made at a time while a read goes through a table.
const WINDOW: usize = 32;

/// hbase:meta's rows for one read, made as they are read: the tables in range in meta order,
/// and within a table its state row and its region rows, a window of regions at a time found
/// by start key. The client's region lookup (a reversed scan from `table,row,99999999999999`
/// that wants one row) so costs a few rows, however many regions the table has.
pub struct MetaRows {
    engine: Engine,
    server: ServerAddress,
    range: MetaRange,
    /// Tables still to read, the next one last.
    tables: Vec<String>,
    /// The table being read and where its next window starts.
    current: Option<TableCursor>,
    /// Rows made and not yet read.
    pending: VecDeque<RowResult>,
}

impl std::fmt::Debug for MetaRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetaRows")
            .field("range", &self.range)
            .field("tables", &self.tables.len())
            .finish()
    }
}

struct TableCursor {
    table: String,
    /// The start key of the last region made (the next window begins past it).
    after: Option<Vec<u8>>,
    /// No region rows remain (the state row may, when reversed).
    regions_done: bool,
    state_done: bool,
}

impl MetaRows {
    pub fn open(engine: &Engine, server: &ServerAddress, range: MetaRange) -> MetaRows {
        let (lo, hi) = range.low_high();
        let (lo_t, hi_t) = (parts(lo).0, parts(hi).0);
        let mut tables: Vec<String> = engine
            .list_tables()
            .into_iter()
            .map(|t| t.to_string())
            .filter(|t| {
                let t = t.as_bytes();
                (lo.is_empty() || t >= lo_t) && (hi.is_empty() || t <= hi_t)
            })
            .collect();
        tables.sort();
        // Popped from the end: forward reads the lowest name first.
        if !range.reversed {
            tables.reverse();
        }
        MetaRows {
            engine: engine.clone(),
            server: server.clone(),
            range,
            tables,
            current: None,
            pending: VecDeque::new(),
        }
    }

    pub fn next_row(&mut self) -> Option<RowResult> {
        loop {
            if let Some(row) = self.pending.pop_front() {
                return Some(row);
            }
            if self.current.is_none() {
                let table = self.tables.pop()?;
                self.current = Some(TableCursor {
                    table,
                    after: None,
                    regions_done: false,
                    state_done: false,
                });
            }
            self.fill();
        }
    }

    /// Makes the current table's next rows (a window of regions, or its state row); moves on
    /// to the next table when it has none left.
    fn fill(&mut self) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        let reversed = self.range.reversed;
        // Forward the state row comes first (`t` < `t,...`); reversed, last.
        let state_now = !cur.state_done && (!reversed || cur.regions_done);
        if state_now {
            cur.state_done = true;
            if let Ok(enabled) = self.engine.is_table_enabled(&cur.table) {
                let (key, cells) = state_row(&cur.table, enabled);
                push(&mut self.pending, &self.range, key, cells);
            }
            return;
        }
        if cur.regions_done {
            self.current = None;
            return;
        }
        let (lo, hi) = self.range.start_keys(cur.table.as_bytes());
        let (lo, hi) = match (&cur.after, reversed) {
            (Some(a), false) => (Bound::Excluded(a.as_slice()), hi),
            (Some(a), true) => (lo, Bound::Excluded(a.as_slice())),
            (None, _) => (lo, hi),
        };
        let window = match (lo, hi) {
            (_, Bound::Excluded(b"")) => Vec::new(),
            _ => self
                .engine
                .regions_within(&cur.table, lo, hi, reversed, WINDOW)
                .unwrap_or_default(),
        };
        if window.len() < WINDOW {
            cur.regions_done = true;
        }
        cur.after = window.last().map(|r| r.meta.start.clone());
        for r in &window {
            let (key, cells) = region_row(&r.meta, &self.server);
            push(&mut self.pending, &self.range, key, cells);
        }
    }
}

/// Queues a row the range wants, with the families it asks for.
fn push(pending: &mut VecDeque<RowResult>, range: &MetaRange, key: Vec<u8>, cells: Vec<Cell>) {
    if !range.contains(&key) {
        return;
    }
    let cells: Vec<Cell> = cells
        .into_iter()
        .filter(|c| range.wants(&c.family))
        .collect();
    if !cells.is_empty() {
        pending.push_back(RowResult::from_cells(&key, &cells));
    }
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

    /// Every row of hbase:meta the slow way (all of them made, filtered, sorted), against
    /// which the windowed cursor is checked.
    fn reference(engine: &Engine, server: &ServerAddress, range: &MetaRange) -> Vec<Vec<u8>> {
        let mut keys = Vec::new();
        for t in engine.list_tables() {
            let t = t.to_string();
            keys.push(state_row(&t, true).0);
            for r in engine.regions(&t).unwrap() {
                keys.push(region_row(&r.meta, server).0);
            }
        }
        keys.retain(|k| range.contains(k));
        keys.sort_by(|a, b| compare(a, b));
        if range.reversed {
            keys.reverse();
        }
        keys
    }

    #[test]
    fn windowed_rows_match_every_row_made_and_filtered() {
        use crate::engine::{EngineConfig, FamilyDescriptor, TableDescriptor, TableName};
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        let server = ServerAddress {
            host: "h".into(),
            port: 1,
            start_code: 2,
        };
        for (name, n) in [("t", 70), ("t2", 3), ("u", 0)] {
            let desc = TableDescriptor::new(TableName::parse(name).unwrap())
                .with_family(FamilyDescriptor::new(b"f"));
            let splits: Vec<Vec<u8>> = (1..=n).map(|i| format!("k{i:03}").into_bytes()).collect();
            engine.create_table(desc, &splits).unwrap();
        }
        let name_of = |t: &str, row: &str| {
            regions::name_of(&engine.region_of(t, row.as_bytes()).unwrap().meta)
        };
        let keys: Vec<Vec<u8>> = vec![
            vec![],
            b"t".to_vec(),
            b"t,".to_vec(),
            b"t,,".to_vec(),
            b"t,k040,99999999999999".to_vec(),
            b"t,k040,".to_vec(),
            b"t,k0405,99999999999999".to_vec(),
            name_of("t", "k010"),
            name_of("t", "k069"),
            b"t,zzz,99999999999999".to_vec(),
            b"t2".to_vec(),
            b"t2,k002,99999999999999".to_vec(),
            b"t3".to_vec(),
            b"a".to_vec(),
        ];
        let mut checked = 0;
        for start in &keys {
            for stop in &keys {
                for (reversed, include_start, include_stop) in [
                    (false, true, false),
                    (true, true, true),
                    (false, false, true),
                    (true, false, false),
                ] {
                    let range = MetaRange {
                        start: start.clone(),
                        stop: stop.clone(),
                        include_start,
                        include_stop,
                        reversed,
                        families: vec![],
                    };
                    let got: Vec<Vec<u8>> = rows(&engine, &server, &range)
                        .unwrap()
                        .iter()
                        .map(|r| r.row().to_vec())
                        .collect();
                    assert_eq!(got, reference(&engine, &server, &range), "{range:?}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, keys.len() * keys.len() * 4);
        // The client's lookup wants one row: the region holding the row, found at once.
        let lookup = MetaRange {
            start: b"t,k0405,99999999999999".to_vec(),
            stop: b"t,,".to_vec(),
            include_start: true,
            include_stop: true,
            reversed: true,
            families: vec![],
        };
        let first = MetaRows::open(&engine, &server, lookup).next_row().unwrap();
        assert_eq!(first.row().to_vec(), name_of("t", "k040"));
    }
}
