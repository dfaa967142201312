//! The Thrift2 reading export, copy and copy's verification share: which cells a run selects
//! (families, versions, time range) as a `TScan` over a row range, a scanner walked to its end
//! with one batch in memory, and a table's descriptor with its split points. One place, so the
//! three read exactly the same cells for the same options.

use super::client::Connection;
use super::descriptor::{table_name, TableDesc};
use crate::generated::hbase2::TTHBaseServiceSyncClient;
use crate::generated::hbase2::{TColumn, TResult, TScan, TTableDescriptor, TTimeRange};

/// What a run reads of each row: the same for every region and both sides of a copy.
#[derive(Debug, Clone)]
pub struct Selection {
    /// Only these families (empty: every family).
    pub families: Vec<Vec<u8>>,
    /// Versions per cell, newest first (`i32::MAX`: every stored version).
    pub max_versions: i32,
    /// `[start, end)` in milliseconds.
    pub time_range: Option<(i64, i64)>,
    /// Rows per scanner call.
    pub caching: i32,
    /// Most cells of one row per result.
    pub batch: i32,
}

impl Selection {
    /// The scan of `[start, stop)` (an empty bound is open).
    pub fn scan(&self, start: &[u8], stop: &[u8]) -> TScan {
        let columns: Option<Vec<TColumn>> = (!self.families.is_empty()).then(|| {
            self.families
                .iter()
                .map(|f| TColumn::new(f.clone(), None, None))
                .collect()
        });
        let bound = |k: &[u8]| (!k.is_empty()).then(|| k.to_vec());
        TScan::new(
            bound(start),
            bound(stop),
            columns,
            self.caching,
            self.max_versions,
            self.time_range.map(|(s, e)| TTimeRange::new(s, e)),
            None,
            self.batch,
            None,
            None,
            None,
            false,
            None,
            None,
            None,
            None,
            None,
            None,
        )
    }
}

/// `--start-time`/`--end-time` as a range, refused when empty.
pub fn time_range(start: Option<i64>, end: Option<i64>) -> Result<Option<(i64, i64)>, String> {
    match (start, end) {
        (None, None) => Ok(None),
        (s, e) => {
            let (s, e) = (s.unwrap_or(0), e.unwrap_or(i64::MAX));
            if s >= e {
                return Err(format!(
                    "--start-time {s} must be before --end-time {e} (the range is [start, end))"
                ));
            }
            Ok(Some((s, e)))
        }
    }
}

/// Opens a scanner on `table` and hands every non-empty result to `each` until the scan ends
/// or `each` fails. The scanner is closed either way (the server's lease would end it too).
pub fn for_each_result(
    conn: &mut Connection,
    table: &str,
    scan: TScan,
    mut each: impl FnMut(TResult) -> Result<(), String>,
) -> Result<(), String> {
    let caching = scan.caching.unwrap_or(100);
    let t = table.as_bytes().to_vec();
    let id = conn
        .call(|c| c.open_scanner(t, scan))
        .map_err(|e| format!("cannot scan {table}: {e}"))?;
    let outcome = loop {
        let batch = match conn.call(|c| c.get_scanner_rows(id, caching)) {
            Ok(b) => b,
            Err(e) => break Err(format!("scanning {table}: {e}")),
        };
        if batch.is_empty() {
            break Ok(());
        }
        if let Err(e) = batch
            .into_iter()
            .filter(|r| !r.column_values.is_empty())
            .try_for_each(&mut each)
        {
            break Err(e);
        }
    };
    let _ = conn.call(|c| c.close_scanner(id));
    outcome
}

/// A table's Thrift2 descriptor, with the error naming the table and the server.
pub fn describe(conn: &mut Connection, name: &str) -> Result<TTableDescriptor, String> {
    conn.call(|c| c.get_table_descriptor(table_name(name)))
        .map_err(|e| format!("table {name}: {e}"))
}

/// The start keys of a table's regions after the first, ascending: its split points.
pub fn split_points(conn: &mut Connection, name: &str) -> Result<Vec<Vec<u8>>, String> {
    let t = name.as_bytes().to_vec();
    let mut splits: Vec<Vec<u8>> = conn
        .call(|c| c.get_all_region_locations(t))
        .map_err(|e| format!("cannot list the regions of {name}: {e}"))?
        .into_iter()
        .filter_map(|l| l.region_info.start_key)
        .filter(|k| !k.is_empty())
        .collect();
    splits.sort();
    splits.dedup();
    Ok(splits)
}

/// The descriptor and split points, after checking that every family of `families` exists.
pub fn table_desc(
    conn: &mut Connection,
    name: &str,
    families: &[Vec<u8>],
) -> Result<TableDesc, String> {
    let desc = describe(conn, name)?;
    for f in families {
        if !has_family(&desc, f) {
            return Err(format!(
                "table {name} has no column family {:?}",
                String::from_utf8_lossy(f)
            ));
        }
    }
    let splits = split_points(conn, name)?;
    Ok(TableDesc::from_thrift(&desc, &splits))
}

pub fn has_family(desc: &TTableDescriptor, family: &[u8]) -> bool {
    desc.columns
        .as_deref()
        .unwrap_or_default()
        .iter()
        .any(|c| c.name == family)
}
