//! The null `Hbase` (Thrift1) service: canned replies shaped as redbase's (one cell for a get,
//! one row for a getRow, `--scan-rows` rows for a scanner).

use std::collections::BTreeMap;
use std::sync::Arc;

use redbase::generated::hbase1::*;

use super::sync_log::SyncLog;
use crate::spec::{row_key, Spec};

/// Canned replies for every call of the service.
pub struct NullHandler {
    table: Text,
    cell: TCell,
    row: TRowResult,
    scan: Vec<TRowResult>,
    /// With a sync log, every mutateRow(s) writes and syncs a record (redbase syncs them).
    sync: Option<Arc<SyncLog>>,
}

impl NullHandler {
    pub fn new(spec: &Spec, sync: Option<Arc<SyncLog>>) -> NullHandler {
        let cell = TCell {
            value: Some(spec.value.clone()),
            timestamp: Some(1_700_000_000_000),
        };
        let row_of = |i: u64| TRowResult {
            row: Some(row_key(i)),
            columns: Some(BTreeMap::from([(spec.column.clone(), cell.clone())])),
            sorted_columns: None,
        };
        NullHandler {
            table: spec.table.clone(),
            row: row_of(0),
            scan: (0..spec.scan_rows as u64).map(row_of).collect(),
            cell,
            sync,
        }
    }

    /// Syncs a record for a mutation when the server has a sync log.
    fn sync(&self) -> thrift::Result<()> {
        self.sync.as_ref().map_or(Ok(()), |log| log.write_synced())
    }

    fn cells(&self) -> thrift::Result<Vec<TCell>> {
        Ok(vec![self.cell.clone()])
    }

    fn rows(&self) -> thrift::Result<Vec<TRowResult>> {
        Ok(vec![self.row.clone()])
    }

    fn region(&self) -> TRegionInfo {
        TRegionInfo {
            start_key: Some(Vec::new()),
            end_key: Some(Vec::new()),
            id: Some(1),
            name: Some(b"loadgen,,1.".to_vec()),
            version: Some(1),
            server_name: Some(b"localhost".to_vec()),
            port: Some(0),
        }
    }
}

type Attrs = BTreeMap<Text, Text>;

impl HbaseSyncHandler for NullHandler {
    fn handle_enable_table(&self, _t: Bytes) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_disable_table(&self, _t: Bytes) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_is_table_enabled(&self, _t: Bytes) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_compact(&self, _t: Bytes) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_major_compact(&self, _t: Bytes) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_get_table_names(&self) -> thrift::Result<Vec<Text>> {
        Ok(vec![self.table.clone()])
    }
    fn handle_get_table_names_with_is_table_enabled(&self) -> thrift::Result<BTreeMap<Text, bool>> {
        Ok(BTreeMap::from([(self.table.clone(), true)]))
    }
    fn handle_get_column_descriptors(
        &self,
        _t: Text,
    ) -> thrift::Result<BTreeMap<Text, ColumnDescriptor>> {
        let name = b"f:".to_vec();
        let d = ColumnDescriptor {
            name: Some(name.clone()),
            max_versions: Some(1),
            ..ColumnDescriptor::default()
        };
        Ok(BTreeMap::from([(name, d)]))
    }
    fn handle_get_table_regions(&self, _t: Text) -> thrift::Result<Vec<TRegionInfo>> {
        Ok(vec![self.region()])
    }
    fn handle_create_table(&self, _t: Text, _f: Vec<ColumnDescriptor>) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_table(&self, _t: Text) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_get(&self, _t: Text, _r: Text, _c: Text, _a: Attrs) -> thrift::Result<Vec<TCell>> {
        self.cells()
    }
    fn handle_get_ver(
        &self,
        _t: Text,
        _r: Text,
        _c: Text,
        _n: i32,
        _a: Attrs,
    ) -> thrift::Result<Vec<TCell>> {
        self.cells()
    }
    fn handle_get_ver_ts(
        &self,
        _t: Text,
        _r: Text,
        _c: Text,
        _ts: i64,
        _n: i32,
        _a: Attrs,
    ) -> thrift::Result<Vec<TCell>> {
        self.cells()
    }
    fn handle_get_row(&self, _t: Text, _r: Text, _a: Attrs) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_row_with_columns(
        &self,
        _t: Text,
        _r: Text,
        _c: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_row_ts(
        &self,
        _t: Text,
        _r: Text,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_row_with_columns_ts(
        &self,
        _t: Text,
        _r: Text,
        _c: Vec<Text>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_rows(
        &self,
        _t: Text,
        _r: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_rows_with_columns(
        &self,
        _t: Text,
        _r: Vec<Text>,
        _c: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_rows_ts(
        &self,
        _t: Text,
        _r: Vec<Text>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_rows_with_columns_ts(
        &self,
        _t: Text,
        _r: Vec<Text>,
        _c: Vec<Text>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_mutate_row(
        &self,
        _t: Text,
        _r: Text,
        _m: Vec<Mutation>,
        _a: Attrs,
    ) -> thrift::Result<()> {
        self.sync()
    }
    fn handle_mutate_row_ts(
        &self,
        _t: Text,
        _r: Text,
        _m: Vec<Mutation>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<()> {
        self.sync()
    }
    fn handle_mutate_rows(
        &self,
        _t: Text,
        _b: Vec<BatchMutation>,
        _a: Attrs,
    ) -> thrift::Result<()> {
        self.sync()
    }
    fn handle_mutate_rows_ts(
        &self,
        _t: Text,
        _b: Vec<BatchMutation>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<()> {
        self.sync()
    }
    fn handle_atomic_increment(&self, _t: Text, _r: Text, _c: Text, v: i64) -> thrift::Result<i64> {
        Ok(v)
    }
    fn handle_delete_all(&self, _t: Text, _r: Text, _c: Text, _a: Attrs) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_all_ts(
        &self,
        _t: Text,
        _r: Text,
        _c: Text,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_all_row(&self, _t: Text, _r: Text, _a: Attrs) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_increment(&self, _i: TIncrement) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_increment_rows(&self, _i: Vec<TIncrement>) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_all_row_ts(
        &self,
        _t: Text,
        _r: Text,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_scanner_open_with_scan(
        &self,
        _t: Text,
        _s: TScan,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_open(
        &self,
        _t: Text,
        _s: Text,
        _c: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_open_with_stop(
        &self,
        _t: Text,
        _s: Text,
        _e: Text,
        _c: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_open_with_prefix(
        &self,
        _t: Text,
        _p: Text,
        _c: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_open_ts(
        &self,
        _t: Text,
        _s: Text,
        _c: Vec<Text>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_open_with_stop_ts(
        &self,
        _t: Text,
        _s: Text,
        _e: Text,
        _c: Vec<Text>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_get(&self, _id: ScannerID) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_scanner_get_list(
        &self,
        _id: ScannerID,
        nb_rows: i32,
    ) -> thrift::Result<Vec<TRowResult>> {
        Ok(self
            .scan
            .iter()
            .take(nb_rows.max(0) as usize)
            .cloned()
            .collect())
    }
    fn handle_scanner_close(&self, _id: ScannerID) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_get_region_info(&self, _r: Text) -> thrift::Result<TRegionInfo> {
        Ok(self.region())
    }
    fn handle_append(&self, _a: TAppend) -> thrift::Result<Vec<TCell>> {
        self.cells()
    }
    fn handle_check_and_put(
        &self,
        _t: Text,
        _r: Text,
        _c: Text,
        _v: Text,
        _m: Mutation,
        _a: Attrs,
    ) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_get_thrift_server_type(&self) -> thrift::Result<TThriftServerType> {
        Ok(TThriftServerType::ONE)
    }
    fn handle_get_cluster_id(&self) -> thrift::Result<String> {
        Ok("null".into())
    }
    fn handle_grant(&self, _info: TAccessControlEntity) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_revoke(&self, _info: TAccessControlEntity) -> thrift::Result<bool> {
        Ok(true)
    }
}
