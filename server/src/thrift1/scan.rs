//! Thrift1 scanners.

use crate::engine::{read::prefix_successor, Scan};
use crate::gateway::requests::filter_string;
use crate::generated::hbase1::*;
use crate::scanners::{scan_bytes, Reservation};

use super::convert::*;
use super::data::scan_options;
use super::{table_str, Handler, ScanView};
use crate::gateway::Need;

impl Handler {
    /// Opens lazily, as HBase's Thrift1 gateway does: a missing table fails the first
    /// `scannerGet`, not the open.
    fn open(
        &self,
        table: Text,
        scan: Scan,
        sorted: bool,
        held: Reservation,
    ) -> thrift::Result<ScannerID> {
        let scanner = self.engine.scan_lazily(&table_str(&table), scan);
        let owner = self.access.owner();
        self.scanners
            .open(scanner, ScanView { sorted, owner }, held)
            .map_err(from_engine)
    }

    /// The scanner budget's bytes for a scan of these keys, columns and filter text, taken
    /// before the filter is parsed.
    fn reserve(
        &self,
        filter: usize,
        keys: &[&[u8]],
        columns: &[Text],
    ) -> thrift::Result<Reservation> {
        let keys = keys.iter().map(|k| k.len());
        let columns = columns.iter().map(Vec::len);
        self.scanners
            .reserve(scan_bytes(filter, keys.chain(columns)))
            .map_err(from_engine)
    }

    pub(super) fn open_with_scan(&self, table: Text, t: TScan) -> thrift::Result<ScannerID> {
        self.may(Need::Read(&table_str(&table)))?;
        let held = self.reserve(
            t.filter_string.as_ref().map_or(0, Vec::len),
            &[
                t.start_row.as_deref().unwrap_or_default(),
                t.stop_row.as_deref().unwrap_or_default(),
            ],
            t.columns.as_deref().unwrap_or_default(),
        )?;
        let mut options = scan_options(&t.columns.unwrap_or_default(), t.timestamp);
        if let Some(f) = &t.filter_string {
            options.filter = Some(filter_string(f)?);
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
        self.open(table, scan, t.sort_columns.unwrap_or(false), held)
    }

    pub(super) fn open_range(
        &self,
        table: Text,
        start: Text,
        stop: Text,
        columns: Vec<Text>,
        ts: Option<i64>,
    ) -> thrift::Result<ScannerID> {
        self.may(Need::Read(&table_str(&table)))?;
        let held = self.reserve(0, &[&start, &stop], &columns)?;
        let scan = Scan {
            start,
            stop,
            options: scan_options(&columns, ts),
            ..Default::default()
        };
        self.open(table, scan, false, held)
    }

    pub(super) fn open_prefix(
        &self,
        table: Text,
        prefix: Text,
        columns: Vec<Text>,
    ) -> thrift::Result<ScannerID> {
        self.may(Need::Read(&table_str(&table)))?;
        let stop = prefix_successor(&prefix);
        let held = self.reserve(0, &[&prefix, &stop], &columns)?;
        let scan = Scan {
            start: prefix,
            stop,
            options: scan_options(&columns, None),
            ..Default::default()
        };
        self.open(table, scan, false, held)
    }

    /// Ok when the scanner is not open (the call then answers its own error) or the caller
    /// opened it.
    fn may_use(&self, id: ScannerID) -> thrift::Result<()> {
        let Some(open) = self.scanners.get(id) else {
            return Ok(());
        };
        let owner = open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extra
            .owner
            .clone();
        self.access
            .check_scanner_owner(owner.as_deref())
            .map_err(from_engine)
    }

    pub(super) fn scanner_get(&self, id: ScannerID, n: i32) -> thrift::Result<Vec<TRowResult>> {
        self.may_use(id)?;
        let Some((rows, view)) = self.scanners.next_batch(id, n) else {
            return Err(illegal(format!("scanner ID {id} is invalid")));
        };
        let rows = rows.map_err(from_read)?;
        Ok(rows
            .into_iter()
            .map(|r| row_result(r, view.sorted))
            .collect())
    }

    pub(super) fn scanner_close(&self, id: ScannerID) -> thrift::Result<()> {
        self.may_use(id)?;
        if self.scanners.close(id) {
            Ok(())
        } else {
            Err(illegal(format!("scanner ID {id} is invalid")))
        }
    }
}
