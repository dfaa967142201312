//! `scan` and `count`: a Thrift2 scanner read in batches, printed as rows arrive. Both check
//! the Ctrl-C flag between batches, so an interrupt stops the scan (and closes its scanner)
//! but not the shell.

use super::args::{
    arity, boolean, bytes, bytes_list, int, int32, show_table, table_name, text, CmdError,
    CmdResult, Opts,
};
use super::dml::{column, filter, print_cells, time_range};
use super::parser::Command;
use super::Session;
use crate::generated::hbase2::TTHBaseServiceSyncClient as _;
use crate::generated::hbase2::{TResult, TScan};

const SCAN_KEYS: &[&str] = &[
    "STARTROW",
    "STOPROW",
    "ROWPREFIXFILTER",
    "COLUMNS",
    "COLUMN",
    "LIMIT",
    "REVERSED",
    "VERSIONS",
    "TIMERANGE",
    "TIMESTAMP",
    "FILTER",
    "RAW",
    "CACHE",
    "BATCH",
    "CACHE_BLOCKS",
];

/// A scan with nothing set (the generated `Default` fills every optional field in).
fn empty_scan() -> TScan {
    TScan {
        start_row: None,
        stop_row: None,
        columns: None,
        caching: None,
        max_versions: None,
        time_range: None,
        filter_string: None,
        batch_size: None,
        attributes: None,
        authorizations: None,
        reversed: None,
        cache_blocks: None,
        col_fam_time_range_map: None,
        read_type: None,
        limit: None,
        consistency: None,
        target_replica_id: None,
        filter_bytes: None,
    }
}

/// The first key after every key starting with `prefix` (empty: no end), as HBase's
/// `Scan.setRowPrefixFilter` computes it.
pub fn prefix_stop(prefix: &[u8]) -> Vec<u8> {
    let mut p = prefix.to_vec();
    while let Some(&last) = p.last() {
        if last == 0xff {
            p.pop();
        } else {
            let n = p.len();
            p[n - 1] = last + 1;
            return p;
        }
    }
    Vec::new()
}

/// Runs a scanner to its end (or `limit` rows, or Ctrl-C), handing each row to `each`.
/// Returns the rows seen and whether Ctrl-C stopped it.
fn run_scanner(
    s: &mut Session,
    table: Vec<u8>,
    scan: TScan,
    batch: i32,
    limit: Option<usize>,
    mut each: impl FnMut(&mut Session, &TResult, usize),
) -> Result<(usize, bool), CmdError> {
    let id = s.call(|c| c.open_scanner(table, scan))?;
    let mut rows = 0usize;
    let mut stopped = false;
    let outcome = loop {
        if s.was_interrupted() {
            stopped = true;
            break Ok(());
        }
        let batch = match s.call(|c| c.get_scanner_rows(id, batch)) {
            Ok(b) => b,
            // Ctrl-C can cut the call itself short; that is a stop, not a failure.
            Err(_) if s.was_interrupted() => {
                stopped = true;
                break Ok(());
            }
            Err(e) => break Err(e),
        };
        if batch.is_empty() {
            break Ok(());
        }
        let mut done = false;
        for r in &batch {
            rows += 1;
            each(s, r, rows);
            if limit.is_some_and(|l| rows >= l) {
                done = true;
                break;
            }
        }
        s.out.flush();
        if done {
            break Ok(());
        }
    };
    let _ = s.call(|c| c.close_scanner(id));
    outcome.map(|()| (rows, stopped))
}

pub fn scan(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 2, "scan")?;
    let table = table_name(&cmd.args[0])?;
    let opts = match cmd.args.get(1) {
        Some(v) => Opts::new(v, SCAN_KEYS, "scan")?,
        None => Opts::empty(),
    };
    if let Some(v) = opts.get("RAW") {
        if boolean(v, "RAW")? {
            return Err(CmdError::at(
                v.pos,
                "RAW scans are not available over Thrift2 (its TScan has no raw flag)",
            ));
        }
    }
    let mut ts = empty_scan();
    ts.start_row = opts
        .get("STARTROW")
        .map(|v| bytes(v, "STARTROW"))
        .transpose()?;
    ts.stop_row = opts
        .get("STOPROW")
        .map(|v| bytes(v, "STOPROW"))
        .transpose()?;
    if let Some(v) = opts.get("ROWPREFIXFILTER") {
        let p = bytes(v, "ROWPREFIXFILTER")?;
        ts.stop_row = Some(prefix_stop(&p));
        ts.start_row = Some(p);
    }
    let mut cols = Vec::new();
    for key in ["COLUMNS", "COLUMN"] {
        if let Some(v) = opts.get(key) {
            cols.extend(bytes_list(v, key)?);
        }
    }
    if !cols.is_empty() {
        ts.columns = Some(cols.iter().map(|c| column(c)).collect());
    }
    let limit = opts.get("LIMIT").map(|v| int(v, "LIMIT")).transpose()?;
    if let Some(l) = limit {
        if l <= 0 {
            return Err(CmdError::usage("LIMIT must be positive"));
        }
        ts.limit = i32::try_from(l).ok();
    }
    ts.reversed = opts
        .get("REVERSED")
        .map(|v| boolean(v, "REVERSED"))
        .transpose()?;
    ts.max_versions = opts
        .get("VERSIONS")
        .map(|v| int32(v, "VERSIONS"))
        .transpose()?;
    ts.time_range = opts.get("TIMERANGE").map(time_range).transpose()?;
    if let Some(v) = opts.get("TIMESTAMP") {
        let t = int(v, "TIMESTAMP")?;
        ts.time_range = Some(crate::generated::hbase2::TTimeRange {
            min_stamp: t,
            max_stamp: t.saturating_add(1),
        });
    }
    ts.filter_string = opts.get("FILTER").map(filter).transpose()?;
    ts.batch_size = opts.get("BATCH").map(|v| int32(v, "BATCH")).transpose()?;
    ts.cache_blocks = opts
        .get("CACHE_BLOCKS")
        .map(|v| boolean(v, "CACHE_BLOCKS"))
        .transpose()?;
    let cache = opts
        .get("CACHE")
        .map(|v| int32(v, "CACHE"))
        .transpose()?
        .unwrap_or(100)
        .max(1);
    ts.caching = Some(cache);
    s.out.header("ROW", "COLUMN+CELL");
    let name = show_table(&table).into_bytes();
    let limit = limit.map(|l| l as usize);
    let (rows, stopped) =
        run_scanner(s, name, ts, cache, limit, |s, r, _| print_cells(s, r, true))?;
    if stopped {
        s.out.text("Scan interrupted (Ctrl-C).");
    }
    s.out.text(&format!("{rows} row(s)"));
    Ok(())
}

pub fn count(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 2, "count")?;
    let table = table_name(&cmd.args[0])?;
    let opts = match cmd.args.get(1) {
        Some(v) => Opts::new(v, &["INTERVAL", "CACHE", "FILTER", "COLUMNS"], "count")?,
        None => Opts::empty(),
    };
    let interval = opts
        .get("INTERVAL")
        .map(|v| int(v, "INTERVAL"))
        .transpose()?
        .unwrap_or(1000);
    if interval <= 0 {
        return Err(CmdError::usage("INTERVAL must be positive"));
    }
    let cache = opts
        .get("CACHE")
        .map(|v| int32(v, "CACHE"))
        .transpose()?
        .unwrap_or(10)
        .max(1);
    let mut ts = empty_scan();
    ts.caching = Some(cache);
    // Only each row's first cell is needed to count it, as HBase's count does.
    let user = opts.get("FILTER").map(|v| text(v, "FILTER")).transpose()?;
    ts.filter_string = Some(match user {
        Some(f) => format!("({f}) AND FirstKeyOnlyFilter()").into_bytes(),
        None => b"FirstKeyOnlyFilter()".to_vec(),
    });
    if let Some(v) = opts.get("COLUMNS") {
        ts.columns = Some(
            bytes_list(v, "COLUMNS")?
                .iter()
                .map(|c| column(c))
                .collect(),
        );
    }
    let name = show_table(&table).into_bytes();
    let interval = interval as usize;
    let (rows, stopped) = run_scanner(s, name, ts, cache, None, |s, r, n| {
        if n % interval == 0 && !s.out.json {
            let row = super::format::to_string_binary(r.row.as_deref().unwrap_or_default());
            s.out.line(&format!("Current count: {n}, row: {row}"));
        }
    })?;
    if s.out.json {
        s.out
            .json(serde_json::json!({"count": rows, "interrupted": stopped}));
        return Ok(());
    }
    if stopped {
        s.out.line("Count interrupted (Ctrl-C).");
    }
    s.out.line(&format!("{rows} row(s)"));
    s.ret = Some(rows.to_string());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::prefix_stop;

    #[test]
    fn prefix_ends() {
        assert_eq!(prefix_stop(b"abc"), b"abd");
        assert_eq!(prefix_stop(&[b'a', 0xff]), b"b");
        assert_eq!(prefix_stop(&[0xff, 0xff]), b"");
    }
}
