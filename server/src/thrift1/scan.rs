//! Thrift1 scanners.

use crate::engine::{read::prefix_successor, Scan};
use crate::generated::hbase1::*;

use super::convert::*;
use super::data::scan_options;
use super::{table_str, Handler, ScanView};

impl Handler {
    /// Opens lazily, as HBase's Thrift1 gateway does: a missing table fails the first
    /// `scannerGet`, not the open.
    fn open(&self, table: Text, scan: Scan, sorted: bool) -> thrift::Result<ScannerID> {
        let scanner = self.engine.scan_lazily(&table_str(&table), scan);
        self.scanners
            .open(scanner, ScanView { sorted })
            .map_err(|e| io_error(format!("too many open scanners (limit {})", e.0), true))
    }

    pub(super) fn open_with_scan(&self, table: Text, t: TScan) -> thrift::Result<ScannerID> {
        let mut options = scan_options(&t.columns.unwrap_or_default(), t.timestamp);
        if let Some(f) = &t.filter_string {
            // HBase lets ParseFilter's IllegalArgumentException escape the handler, so the
            // client sees a TApplicationException (scannerOpenWithScan declares only IOError);
            // ours carries the message, naming the position and the problem.
            options.filter =
                Some(crate::filter::parse_bytes(f).map_err(|e| {
                    application(format!("invalid filter string {:?}: {e}", text(f)))
                })?);
        }
        let scan = Scan {
            start: t.start_row.unwrap_or_default(),
            stop: t.stop_row.unwrap_or_default(),
            reversed: t.reversed.unwrap_or(false),
            batch: t.batch_size.unwrap_or(0).max(0) as usize,
            caching: t.caching.unwrap_or(0).max(0) as usize,
            limit: 0,
            options,
        };
        self.open(table, scan, t.sort_columns.unwrap_or(false))
    }

    pub(super) fn open_range(
        &self,
        table: Text,
        start: Text,
        stop: Text,
        columns: Vec<Text>,
        ts: Option<i64>,
    ) -> thrift::Result<ScannerID> {
        let scan = Scan {
            start,
            stop,
            options: scan_options(&columns, ts),
            ..Default::default()
        };
        self.open(table, scan, false)
    }

    pub(super) fn open_prefix(
        &self,
        table: Text,
        prefix: Text,
        columns: Vec<Text>,
    ) -> thrift::Result<ScannerID> {
        let stop = prefix_successor(&prefix);
        let scan = Scan {
            start: prefix,
            stop,
            options: scan_options(&columns, None),
            ..Default::default()
        };
        self.open(table, scan, false)
    }

    pub(super) fn scanner_get(&self, id: ScannerID, n: i32) -> thrift::Result<Vec<TRowResult>> {
        let Some(open) = self.scanners.get(id) else {
            return Err(illegal(format!("scanner ID {id} is invalid")));
        };
        let mut open = open.lock().unwrap_or_else(|p| p.into_inner());
        let sorted = open.extra.sorted;
        let rows = open
            .scanner
            .next_batch(n.max(0) as usize)
            .map_err(from_read)?;
        Ok(rows.into_iter().map(|r| row_result(r, sorted)).collect())
    }

    pub(super) fn scanner_close(&self, id: ScannerID) -> thrift::Result<()> {
        if self.scanners.close(id) {
            Ok(())
        } else {
            Err(illegal(format!("scanner ID {id} is invalid")))
        }
    }
}
