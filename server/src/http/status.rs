//! The status page's data (`/api/status`): tables with their families and settings, and each
//! region with its key range, size, counters and recent rates. The page draws the heat view
//! from it; operators and tests can read it directly.

use serde::Serialize;

use super::rates::Rates;
use crate::engine::{Engine, FamilyDescriptor, KeepDeletedCells, TableDescriptor};

#[derive(Debug, Serialize)]
pub struct Status {
    pub version: &'static str,
    pub uptime_secs: u64,
    pub ready: bool,
    pub commits: u64,
    pub compactions: u64,
    pub splits: u64,
    /// Over how many seconds the region rates are measured.
    pub rate_window_secs: u64,
    pub security: SecurityStatus,
    pub tables: Vec<TableStatus>,
}

/// How the server is protected, and what an operator should know about it.
#[derive(Debug, Serialize)]
pub struct SecurityStatus {
    pub tls: bool,
    pub require_tls: bool,
    pub authentication: bool,
    /// E.g. listening on a non-loopback address with no authentication.
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct TableStatus {
    pub name: String,
    pub enabled: bool,
    /// Why the table cannot serve, when its region files are missing or unreadable.
    pub offline: Option<String>,
    pub families: Vec<FamilyStatus>,
    pub regions: Vec<RegionStatus>,
}

#[derive(Debug, Serialize)]
pub struct FamilyStatus {
    pub name: String,
    pub max_versions: i32,
    pub min_versions: i32,
    /// Seconds; None = forever.
    pub ttl_secs: Option<i32>,
    pub keep_deleted_cells: &'static str,
    pub in_memory: bool,
    pub bloom_filter: String,
    pub compression: String,
    pub block_size: i32,
}

#[derive(Debug, Serialize)]
pub struct RegionStatus {
    pub id: u64,
    pub name: String,
    pub encoded_name: String,
    /// The key range in HBase's printable form (`\xNN` for other bytes); empty = open end.
    pub start_key: String,
    pub end_key: String,
    pub size_bytes: u64,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub reads_per_sec: f64,
    pub writes_per_sec: f64,
}

/// HBase's `Bytes.toStringBinary`: printable ASCII as is, everything else as `\xNN`.
pub fn printable(key: &[u8]) -> String {
    let mut s = String::with_capacity(key.len());
    for &b in key {
        push_printable(&mut s, b);
    }
    s
}

fn push_printable(s: &mut String, b: u8) {
    if (b' '..=b'~').contains(&b) && b != b'\\' {
        s.push(b as char);
    } else {
        s.push_str(&format!("\\x{b:02X}"));
    }
}

/// The longest key label [`printable_bounded`] makes, in characters (with its `...`).
pub const KEY_LABEL_CHARS: usize = 48;

/// [`printable`] cut to at most `max` characters (never inside a `\xNN` escape), ending in
/// `...` when cut: a bounded label for a key of any length (a metric's `start_key`).
pub fn printable_bounded(key: &[u8], max: usize) -> String {
    let full = printable(key);
    if full.len() <= max {
        return full;
    }
    let room = max.saturating_sub(3);
    let mut out = String::with_capacity(max);
    let mut piece = String::new();
    for &b in key {
        piece.clear();
        push_printable(&mut piece, b);
        if out.len() + piece.len() > room {
            break;
        }
        out.push_str(&piece);
    }
    out.push_str("...");
    out
}

fn family(f: &FamilyDescriptor) -> FamilyStatus {
    FamilyStatus {
        name: printable(&f.name),
        max_versions: f.max_versions,
        min_versions: f.min_versions,
        ttl_secs: (f.ttl_seconds > 0 && f.ttl_seconds != i32::MAX).then_some(f.ttl_seconds),
        keep_deleted_cells: match f.keep_deleted_cells {
            KeepDeletedCells::False => "FALSE",
            KeepDeletedCells::True => "TRUE",
            KeepDeletedCells::Ttl => "TTL",
        },
        in_memory: f.in_memory,
        bloom_filter: f.bloom_filter.clone(),
        compression: f.compression.clone(),
        block_size: f.block_size,
    }
}

/// The engine's tables and regions now, with rates from `rates`.
pub fn tables(engine: &Engine, rates: &Rates) -> Vec<TableStatus> {
    let mut out = Vec::new();
    for name in engine.list_tables() {
        let table = name.to_string();
        let desc: Option<TableDescriptor> = engine.describe_table(&table).ok();
        let (regions, offline) = match engine.regions(&table) {
            Ok(r) => (r, None),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        out.push(TableStatus {
            enabled: engine.is_table_enabled(&table).unwrap_or(false),
            offline,
            families: desc
                .map(|d| d.families.values().map(family).collect())
                .unwrap_or_default(),
            regions: regions
                .into_iter()
                .map(|r| {
                    let rate = rates.rate(r.meta.id);
                    RegionStatus {
                        id: r.meta.id,
                        encoded_name: r.meta.encoded_name(),
                        name: r.name,
                        start_key: printable(&r.meta.start),
                        end_key: printable(&r.meta.end),
                        size_bytes: r.size,
                        reads: r.reads,
                        writes: r.writes,
                        read_bytes: r.read_bytes,
                        write_bytes: r.write_bytes,
                        reads_per_sec: rate.reads,
                        writes_per_sec: rate.writes,
                    }
                })
                .collect(),
            name: table,
        });
    }
    out
}

/// Every region's `(id, reads, writes)`, for the rate sampler.
pub fn region_counters(engine: &Engine) -> Vec<(u64, u64, u64)> {
    engine
        .list_tables()
        .iter()
        .flat_map(|t| engine.regions(&t.to_string()).unwrap_or_default())
        .map(|r| (r.meta.id, r.reads, r.writes))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{printable, printable_bounded};

    #[test]
    fn keys_print_as_hbase_does() {
        assert_eq!(printable(b"row-01"), "row-01");
        assert_eq!(printable(b"\x00a\xff\\"), "\\x00a\\xFF\\x5C");
    }

    #[test]
    fn key_labels_are_bounded_and_never_cut_an_escape() {
        assert_eq!(printable_bounded(b"16108|jericho", 48), "16108|jericho");
        assert_eq!(printable_bounded(b"", 48), "");
        let long = vec![b'k'; 10_000];
        let label = printable_bounded(&long, 48);
        assert_eq!(label.len(), 48);
        assert!(label.ends_with("kkk..."));
        // 0xFF prints as four characters: the label stops before one that would not fit.
        let label = printable_bounded(&[b'a', 0xff, 0xff, 0xff], 10);
        assert_eq!(label, "a\\xFF...");
    }
}
