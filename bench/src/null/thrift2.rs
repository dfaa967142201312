//! The null `THBaseService`: canned replies shaped as redbase's.

use std::collections::BTreeSet;
use std::sync::Arc;

use redbase::generated::hbase2::*;

use super::sync_log::SyncLog;
use crate::spec::{row_key, Spec};
use crate::thrift2::{family_descriptor, table_name};

/// Canned replies shaped as redbase's: a get answers one `TResult` with the row and one
/// `TColumnValue` (family, qualifier, value, timestamp, type), a scan 100 of them.
pub struct NullHandler {
    table: TTableName,
    descriptor: TTableDescriptor,
    result: TResult,
    scan: Vec<TResult>,
    /// With a sync log, every put not marked `ASYNC_WAL` or `SKIP_WAL` writes and syncs a record.
    sync: Option<Arc<SyncLog>>,
}

impl NullHandler {
    pub fn new(spec: &Spec, sync: Option<Arc<SyncLog>>) -> NullHandler {
        let result_of = |i: u64| TResult {
            row: Some(row_key(i)),
            column_values: vec![TColumnValue {
                family: spec.family.clone(),
                qualifier: spec.qualifier.clone(),
                value: spec.value.clone(),
                timestamp: Some(1_700_000_000_000),
                tags: None,
                // HBase's Put cell type.
                type_: Some(4),
            }],
            stale: Some(false),
            partial: Some(false),
        };
        NullHandler {
            table: table_name(spec),
            descriptor: TTableDescriptor {
                table_name: table_name(spec),
                columns: Some(vec![family_descriptor(spec)]),
                attributes: None,
                durability: None,
            },
            result: result_of(0),
            scan: (0..spec.scan_rows as u64).map(result_of).collect(),
            sync,
        }
    }

    /// Syncs a record for a put of this durability when the server has a sync log.
    fn sync(&self, durability: Option<TDurability>) -> thrift::Result<()> {
        match (&self.sync, durability) {
            (Some(_), Some(TDurability::ASYNC_WAL | TDurability::SKIP_WAL)) | (None, _) => Ok(()),
            (Some(log), _) => log.write_synced(),
        }
    }

    fn rows(&self, n: i32) -> thrift::Result<Vec<TResult>> {
        Ok(self.scan.iter().take(n.max(0) as usize).cloned().collect())
    }

    fn location(&self) -> THRegionLocation {
        THRegionLocation {
            server_name: TServerName {
                host_name: "localhost".into(),
                port: Some(0),
                start_code: Some(1),
            },
            region_info: THRegionInfo {
                region_id: 1,
                table_name: self.table.qualifier.clone(),
                start_key: Some(Vec::new()),
                end_key: Some(Vec::new()),
                offline: Some(false),
                split: Some(false),
                replica_id: Some(0),
            },
        }
    }

    fn namespace(name: &str) -> TNamespaceDescriptor {
        TNamespaceDescriptor {
            name: name.into(),
            configuration: None,
        }
    }
}

type Row = Vec<u8>;

impl THBaseServiceSyncHandler for NullHandler {
    fn handle_exists(&self, _t: Row, _g: TGet) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_exists_all(&self, _t: Row, g: Vec<TGet>) -> thrift::Result<Vec<bool>> {
        Ok(vec![true; g.len()])
    }
    fn handle_get(&self, _t: Row, _g: TGet) -> thrift::Result<TResult> {
        Ok(self.result.clone())
    }
    fn handle_get_multiple(&self, _t: Row, g: Vec<TGet>) -> thrift::Result<Vec<TResult>> {
        Ok(vec![self.result.clone(); g.len()])
    }
    fn handle_put(&self, _t: Row, p: TPut) -> thrift::Result<()> {
        self.sync(p.durability)
    }
    fn handle_check_and_put(
        &self,
        _t: Row,
        _r: Row,
        _f: Row,
        _q: Row,
        _v: Row,
        _p: TPut,
    ) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_put_multiple(&self, _t: Row, p: Vec<TPut>) -> thrift::Result<()> {
        self.sync(p.first().and_then(|p| p.durability))
    }
    fn handle_delete_single(&self, _t: Row, _d: TDelete) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_multiple(&self, _t: Row, _d: Vec<TDelete>) -> thrift::Result<Vec<TDelete>> {
        Ok(Vec::new())
    }
    fn handle_check_and_delete(
        &self,
        _t: Row,
        _r: Row,
        _f: Row,
        _q: Row,
        _v: Row,
        _d: TDelete,
    ) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_increment(&self, _t: Row, _i: TIncrement) -> thrift::Result<TResult> {
        Ok(self.result.clone())
    }
    fn handle_append(&self, _t: Row, _a: TAppend) -> thrift::Result<TResult> {
        Ok(self.result.clone())
    }
    fn handle_open_scanner(&self, _t: Row, _s: TScan) -> thrift::Result<i32> {
        Ok(1)
    }
    fn handle_get_scanner_rows(&self, _id: i32, n: i32) -> thrift::Result<Vec<TResult>> {
        self.rows(n)
    }
    fn handle_close_scanner(&self, _id: i32) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_mutate_row(&self, _t: Row, _m: TRowMutations) -> thrift::Result<()> {
        self.sync(None)
    }
    fn handle_get_scanner_results(
        &self,
        _t: Row,
        _s: TScan,
        n: i32,
    ) -> thrift::Result<Vec<TResult>> {
        self.rows(n)
    }
    fn handle_get_region_location(
        &self,
        _t: Row,
        _r: Row,
        _reload: bool,
    ) -> thrift::Result<THRegionLocation> {
        Ok(self.location())
    }
    fn handle_get_all_region_locations(&self, _t: Row) -> thrift::Result<Vec<THRegionLocation>> {
        Ok(vec![self.location()])
    }
    fn handle_check_and_mutate(
        &self,
        _t: Row,
        _r: Row,
        _f: Row,
        _q: Row,
        _op: TCompareOperator,
        _v: Row,
        _m: TRowMutations,
    ) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_get_table_descriptor(&self, _t: TTableName) -> thrift::Result<TTableDescriptor> {
        Ok(self.descriptor.clone())
    }
    fn handle_get_table_descriptors(
        &self,
        t: Vec<TTableName>,
    ) -> thrift::Result<Vec<TTableDescriptor>> {
        Ok(vec![self.descriptor.clone(); t.len()])
    }
    fn handle_table_exists(&self, _t: TTableName) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_get_table_descriptors_by_pattern(
        &self,
        _regex: String,
        _sys: bool,
    ) -> thrift::Result<Vec<TTableDescriptor>> {
        Ok(vec![self.descriptor.clone()])
    }
    fn handle_get_table_descriptors_by_namespace(
        &self,
        _ns: String,
    ) -> thrift::Result<Vec<TTableDescriptor>> {
        Ok(vec![self.descriptor.clone()])
    }
    fn handle_get_table_names_by_pattern(
        &self,
        _regex: String,
        _sys: bool,
    ) -> thrift::Result<Vec<TTableName>> {
        Ok(vec![self.table.clone()])
    }
    fn handle_get_table_names_by_namespace(&self, _ns: String) -> thrift::Result<Vec<TTableName>> {
        Ok(vec![self.table.clone()])
    }
    fn handle_create_table(&self, _d: TTableDescriptor, _s: Vec<Row>) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_table(&self, _t: TTableName) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_truncate_table(&self, _t: TTableName, _keep: bool) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_enable_table(&self, _t: TTableName) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_disable_table(&self, _t: TTableName) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_is_table_enabled(&self, _t: TTableName) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_is_table_disabled(&self, _t: TTableName) -> thrift::Result<bool> {
        Ok(false)
    }
    fn handle_is_table_available(&self, _t: TTableName) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_is_table_available_with_split(
        &self,
        _t: TTableName,
        _s: Vec<Row>,
    ) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_add_column_family(
        &self,
        _t: TTableName,
        _c: TColumnFamilyDescriptor,
    ) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_column_family(&self, _t: TTableName, _c: Row) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_modify_column_family(
        &self,
        _t: TTableName,
        _c: TColumnFamilyDescriptor,
    ) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_modify_table(&self, _d: TTableDescriptor) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_create_namespace(&self, _d: TNamespaceDescriptor) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_modify_namespace(&self, _d: TNamespaceDescriptor) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_namespace(&self, _name: String) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_get_namespace_descriptor(
        &self,
        name: String,
    ) -> thrift::Result<TNamespaceDescriptor> {
        Ok(Self::namespace(&name))
    }
    fn handle_list_namespace_descriptors(&self) -> thrift::Result<Vec<TNamespaceDescriptor>> {
        Ok(vec![Self::namespace("default"), Self::namespace("hbase")])
    }
    fn handle_list_namespaces(&self) -> thrift::Result<Vec<String>> {
        Ok(vec!["default".into(), "hbase".into()])
    }
    fn handle_get_thrift_server_type(&self) -> thrift::Result<TThriftServerType> {
        Ok(TThriftServerType::TWO)
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
    fn handle_get_slow_log_responses(
        &self,
        _s: BTreeSet<TServerName>,
        _f: TLogQueryFilter,
    ) -> thrift::Result<Vec<TOnlineLogRecord>> {
        Ok(Vec::new())
    }
    fn handle_clear_slow_log_responses(
        &self,
        s: BTreeSet<TServerName>,
    ) -> thrift::Result<Vec<bool>> {
        Ok(vec![true; s.len()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::ServiceKind;
    use crate::null::sync_log::RECORD;
    use crate::spec::spec_of;

    /// Durable puts (durability unset, SYNC_WAL, FSYNC_WAL) each sync a record; ASYNC_WAL and
    /// SKIP_WAL puts do not.
    #[test]
    fn only_durable_puts_sync_a_record() {
        let dir = tempfile::tempdir().unwrap();
        let log = Arc::new(SyncLog::create(&dir.path().join("s")).unwrap());
        let h = NullHandler::new(&spec_of(ServiceKind::Thrift2, &[]), Some(log.clone()));
        let put = |d: Option<TDurability>| TPut {
            row: b"r".to_vec(),
            column_values: Vec::new(),
            timestamp: None,
            attributes: None,
            durability: d,
            cell_visibility: None,
        };
        for d in [
            None,
            Some(TDurability::SYNC_WAL),
            Some(TDurability::FSYNC_WAL),
        ] {
            h.handle_put(b"t".to_vec(), put(d)).unwrap();
        }
        assert_eq!(log.position(), 3 * RECORD as u64);
        for d in [Some(TDurability::ASYNC_WAL), Some(TDurability::SKIP_WAL)] {
            h.handle_put(b"t".to_vec(), put(d)).unwrap();
        }
        assert_eq!(log.position(), 3 * RECORD as u64);
        h.handle_put_multiple(b"t".to_vec(), vec![put(None), put(None)])
            .unwrap();
        assert_eq!(log.position(), 4 * RECORD as u64);
    }
}
