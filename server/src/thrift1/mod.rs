//! The Thrift1 gateway: HBase's `Hbase` service over the engine.
//!
//! Each method is a handler function here (or in [`data`] / [`scan`]); the generated processor
//! decodes the arguments and encodes the reply or the declared exception.
//! [`methods`] says what each method needs from the caller (the access check), [`convert`] turns
//! column specs and results into Thrift1's types and each engine `ErrorKind` into `IOError`,
//! `IllegalArgument` or `AlreadyExists`. DDL is here; gets, mutations and counters are in `data`.

pub mod convert;
mod data;
pub mod methods;
mod scan;

use std::collections::BTreeMap;
use std::sync::Arc;

use thrift::server::TProcessor;

use crate::engine::{Engine, TableDescriptor, TableName};
use crate::gateway::awaited;
use crate::gateway::grants::{self, AclRequest};
use crate::gateway::requests::table_regions;
use crate::gateway::wrong_port::WrongPort;
use crate::gateway::{Access, Advertised, Caller, Need};
use crate::generated::hbase1::*;
use crate::scanners::{ScannerLimits, Scanners};
use crate::thrift::frame::Protocol;
use crate::thrift::inline::{i32_arg, SHORT_BATCH};
use crate::thrift::{process_message_hinted, PendingReply, Service};
use convert::*;
pub use methods::METHODS;

/// How a Thrift1 scanner presents rows.
#[derive(Clone)]
pub struct ScanView {
    pub sorted: bool,
    /// Who opened the scanner, with authentication on: only they may use it.
    pub owner: Option<String>,
}

pub struct Handler {
    pub(crate) engine: Engine,
    pub(crate) scanners: Scanners<ScanView>,
    pub(crate) advertised: Advertised,
    pub(crate) access: Access,
}

impl Handler {
    pub fn new(
        engine: Engine,
        limits: ScannerLimits,
        advertised: Advertised,
        access: Access,
    ) -> Handler {
        Handler {
            engine,
            scanners: Scanners::new(limits),
            advertised,
            access,
        }
    }

    /// Ok when the caller may make a call needing `need`; a refusal is a non-retryable
    /// IOError.
    pub(crate) fn may(&self, need: Need<'_>) -> thrift::Result<()> {
        self.access.check(need).map_err(from_engine)
    }

    /// grant / revoke: HBase 3's Thrift1 calls; refusals and bad requests are IOErrors.
    fn grant(&self, info: TAccessControlEntity, revoke: bool) -> thrift::Result<bool> {
        let table = info.table_name.as_deref().map(text);
        let req = AclRequest {
            user: &info.username,
            scope: info.scope.0,
            actions: &info.actions,
            table: table.as_deref(),
            namespace: info.ns_name.as_deref(),
        };
        grants::apply(&self.engine, &self.access, &req, revoke)
            .map(|()| true)
            .map_err(|e| io_error(e.to_string(), e.kind().retryable()))
    }
}

/// The Thrift1 service: the generated processor around [`Handler`].
pub struct Thrift1 {
    processor: HbaseSyncProcessor<Arc<Handler>>,
    pub handler: Arc<Handler>,
    /// What a client of the other Thrift service is told (None: the processor's own answer).
    wrong_port: Option<WrongPort>,
}

impl Thrift1 {
    pub fn new(handler: Handler) -> Thrift1 {
        let handler = Arc::new(handler);
        Thrift1 {
            processor: HbaseSyncProcessor::new(handler.clone()),
            handler,
            wrong_port: None,
        }
    }

    /// Answers calls of the other Thrift service's methods with a hint naming its port.
    pub fn with_wrong_port(mut self, wrong_port: WrongPort) -> Self {
        self.wrong_port = Some(wrong_port);
        self
    }
}

impl Service for Thrift1 {
    fn browser_hint(&self) -> Option<String> {
        self.wrong_port.as_ref().map(WrongPort::browser_hint)
    }

    fn process(&self, message: &[u8], protocol: Protocol) -> Vec<u8> {
        process_message_hinted(
            &self.processor as &dyn TProcessor,
            message,
            protocol,
            self.wrong_port.as_ref(),
        )
    }

    /// Point reads of one row, a scanner's next rows (up to [`SHORT_BATCH`]), and opening
    /// (lazily: nothing is read until the first batch) or closing a scanner: bounded work, no
    /// sync.
    /// One-row writes (`mutateRow`, `mutateRowTs`) await their commit on the connection's task.
    fn start(
        self: Arc<Self>,
        method: &str,
        message: &[u8],
        protocol: Protocol,
        caller: &Caller,
    ) -> Option<PendingReply> {
        if !matches!(method, "mutateRow" | "mutateRowTs") {
            return None;
        }
        awaited::start(move |m| self.process(m, protocol), message, caller)
    }

    fn is_short(&self, method: &str, message: &[u8], protocol: Protocol) -> bool {
        if method == "scannerGetList" {
            return i32_arg(message, protocol, 2).is_some_and(|n| n <= SHORT_BATCH);
        }
        matches!(
            method,
            "get"
                | "getVer"
                | "getVerTs"
                | "getRow"
                | "getRowWithColumns"
                | "getRowTs"
                | "getRowWithColumnsTs"
                | "scannerGet"
                | "scannerOpen"
                | "scannerOpenTs"
                | "scannerOpenWithStop"
                | "scannerOpenWithStopTs"
                | "scannerOpenWithPrefix"
                | "scannerOpenWithScan"
                | "scannerClose"
        )
    }
}

pub(crate) fn table_str(name: &[u8]) -> String {
    text(name)
}

/// Table administration methods.
impl Handler {
    fn enable_table(&self, name: Bytes) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_str(&name)))?;
        self.engine
            .enable_table(&table_str(&name))
            .map_err(from_engine)
    }

    fn disable_table(&self, name: Bytes) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_str(&name)))?;
        self.engine
            .disable_table(&table_str(&name))
            .map_err(from_engine)
    }

    fn is_table_enabled(&self, name: Bytes) -> thrift::Result<bool> {
        self.engine
            .is_table_enabled(&table_str(&name))
            .map_err(from_engine)
    }

    /// Accepts a table name or a region name (`table,start,id.`); compacts the table.
    fn compact(&self, name: Bytes, major: bool) -> thrift::Result<()> {
        let s = table_str(&name);
        let table = if self.engine.table_exists(&s) {
            s
        } else {
            s.split(',').next().unwrap_or_default().to_string()
        };
        self.may(Need::AlterTable(&table))?;
        self.engine
            .compact(&table, major)
            .map(|_| ())
            .map_err(|e| io_error(e.to_string(), false))
    }

    fn get_table_names(&self) -> thrift::Result<Vec<Text>> {
        Ok(self
            .engine
            .list_tables()
            .into_iter()
            .map(|t| t.to_string())
            .filter(|t| self.access.shows_table(t))
            .map(String::into_bytes)
            .collect())
    }

    fn get_table_names_with_is_table_enabled(&self) -> thrift::Result<BTreeMap<Text, bool>> {
        let mut out = BTreeMap::new();
        for t in self.engine.list_tables() {
            let name = t.to_string();
            if !self.access.shows_table(&name) {
                continue;
            }
            let enabled = self.engine.is_table_enabled(&name).map_err(from_engine)?;
            out.insert(name.into_bytes(), enabled);
        }
        Ok(out)
    }

    fn get_column_descriptors(
        &self,
        name: Text,
    ) -> thrift::Result<BTreeMap<Text, ColumnDescriptor>> {
        self.may(Need::Describe(&table_str(&name)))?;
        let d = self
            .engine
            .describe_table(&table_str(&name))
            .map_err(from_engine)?;
        Ok(d.families
            .values()
            .map(|f| {
                let c = family_to_thrift(f);
                (c.name.clone().unwrap_or_default(), c)
            })
            .collect())
    }

    fn region_info(&self, r: &crate::engine::RegionInfo) -> TRegionInfo {
        TRegionInfo {
            start_key: Some(r.meta.start.clone()),
            end_key: Some(r.meta.end.clone()),
            id: Some(r.meta.id as i64),
            name: Some(r.name.clone().into_bytes()),
            version: Some(1),
            server_name: Some(self.advertised.host.clone().into_bytes()),
            port: Some(self.advertised.port),
        }
    }

    /// HBase answers an empty list for a table that does not exist.
    fn get_table_regions(&self, name: Text) -> thrift::Result<Vec<TRegionInfo>> {
        let regions = table_regions(&self.engine, &table_str(&name)).map_err(from_engine)?;
        Ok(regions.iter().map(|r| self.region_info(r)).collect())
    }

    fn create_table(&self, name: Text, families: Vec<ColumnDescriptor>) -> thrift::Result<()> {
        self.may(Need::CreateTable(&table_str(&name)))?;
        let name = TableName::parse(&table_str(&name)).map_err(|e| illegal(e.to_string()))?;
        if families.is_empty() {
            return Err(illegal(format!(
                "table {name} needs at least one column family"
            )));
        }
        let mut d = TableDescriptor::new(name);
        for c in &families {
            let f = family_from_thrift(c);
            if d.families.contains_key(&f.name) {
                return Err(illegal(format!(
                    "column family {} is listed twice",
                    f.name_str()
                )));
            }
            d = d.with_family(f);
        }
        let created = d.name.to_string();
        self.engine.create_table(d, &[]).map_err(from_engine)?;
        grants::grant_owner(&self.engine, &self.access, &created);
        Ok(())
    }

    /// HBase 2.6.1 answers deleteTable of a missing table with a retryable IOError (observed;
    /// other calls on a missing table say canRetry=false).
    fn delete_table(&self, name: Text) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_str(&name)))?;
        self.engine
            .delete_table(&table_str(&name))
            .map_err(|e| match e {
                crate::engine::TableError::NotFound(_) => io_error(e.to_string(), true),
                other => from_engine(other),
            })
    }

    /// `row` is a catalog row key, `table,row[,suffix]`: answers the region holding that row.
    fn get_region_info(&self, row: Text) -> thrift::Result<TRegionInfo> {
        let s = row.as_slice();
        let Some(first) = s.iter().position(|&b| b == b',') else {
            return Err(io_error(
                format!("{:?} is not a region search key (table,row)", text(s)),
                false,
            ));
        };
        let table = text(&s[..first]);
        let rest = &s[first + 1..];
        let key = match rest.iter().rposition(|&b| b == b',') {
            Some(i) => &rest[..i],
            None => rest,
        };
        let r = self.engine.region_of(&table, key).map_err(from_engine)?;
        Ok(self.region_info(&r))
    }
}

impl HbaseSyncHandler for Arc<Handler> {
    fn handle_enable_table(&self, table_name: Bytes) -> thrift::Result<()> {
        self.enable_table(table_name)
    }
    fn handle_disable_table(&self, table_name: Bytes) -> thrift::Result<()> {
        self.disable_table(table_name)
    }
    fn handle_is_table_enabled(&self, table_name: Bytes) -> thrift::Result<bool> {
        self.is_table_enabled(table_name)
    }
    fn handle_compact(&self, name: Bytes) -> thrift::Result<()> {
        self.compact(name, false)
    }
    fn handle_major_compact(&self, name: Bytes) -> thrift::Result<()> {
        self.compact(name, true)
    }
    fn handle_get_table_names(&self) -> thrift::Result<Vec<Text>> {
        self.get_table_names()
    }
    fn handle_get_table_names_with_is_table_enabled(&self) -> thrift::Result<BTreeMap<Text, bool>> {
        self.get_table_names_with_is_table_enabled()
    }
    fn handle_get_column_descriptors(
        &self,
        table_name: Text,
    ) -> thrift::Result<BTreeMap<Text, ColumnDescriptor>> {
        self.get_column_descriptors(table_name)
    }
    fn handle_get_table_regions(&self, table_name: Text) -> thrift::Result<Vec<TRegionInfo>> {
        self.get_table_regions(table_name)
    }
    fn handle_create_table(
        &self,
        table_name: Text,
        column_families: Vec<ColumnDescriptor>,
    ) -> thrift::Result<()> {
        self.create_table(table_name, column_families)
    }
    fn handle_delete_table(&self, table_name: Text) -> thrift::Result<()> {
        self.delete_table(table_name)
    }
    fn handle_get(
        &self,
        t: Text,
        row: Text,
        column: Text,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TCell>> {
        self.get_cells(t, row, column, None, 1)
    }
    fn handle_get_ver(
        &self,
        t: Text,
        row: Text,
        column: Text,
        n: i32,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TCell>> {
        self.get_cells(t, row, column, None, n)
    }
    fn handle_get_ver_ts(
        &self,
        t: Text,
        row: Text,
        column: Text,
        ts: i64,
        n: i32,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TCell>> {
        self.get_cells(t, row, column, Some(ts), n)
    }
    fn handle_get_row(
        &self,
        t: Text,
        row: Text,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.get_rows(t, vec![row], Vec::new(), None)
    }
    fn handle_get_row_with_columns(
        &self,
        t: Text,
        row: Text,
        columns: Vec<Text>,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.get_rows(t, vec![row], columns, None)
    }
    fn handle_get_row_ts(
        &self,
        t: Text,
        row: Text,
        ts: i64,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.get_rows(t, vec![row], Vec::new(), Some(ts))
    }
    fn handle_get_row_with_columns_ts(
        &self,
        t: Text,
        row: Text,
        columns: Vec<Text>,
        ts: i64,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.get_rows(t, vec![row], columns, Some(ts))
    }
    fn handle_get_rows(
        &self,
        t: Text,
        rows: Vec<Text>,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.get_rows(t, rows, Vec::new(), None)
    }
    fn handle_get_rows_with_columns(
        &self,
        t: Text,
        rows: Vec<Text>,
        columns: Vec<Text>,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.get_rows(t, rows, columns, None)
    }
    fn handle_get_rows_ts(
        &self,
        t: Text,
        rows: Vec<Text>,
        ts: i64,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.get_rows(t, rows, Vec::new(), Some(ts))
    }
    fn handle_get_rows_with_columns_ts(
        &self,
        t: Text,
        rows: Vec<Text>,
        columns: Vec<Text>,
        ts: i64,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.get_rows(t, rows, columns, Some(ts))
    }
    fn handle_mutate_row(
        &self,
        t: Text,
        row: Text,
        m: Vec<Mutation>,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<()> {
        self.mutate_rows(t, vec![(row, m)], None, false)
    }
    fn handle_mutate_row_ts(
        &self,
        t: Text,
        row: Text,
        m: Vec<Mutation>,
        ts: i64,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<()> {
        self.mutate_rows(t, vec![(row, m)], Some(ts), false)
    }
    fn handle_mutate_rows(
        &self,
        t: Text,
        batches: Vec<BatchMutation>,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<()> {
        self.mutate_rows(t, data::batches(batches), None, true)
    }
    fn handle_mutate_rows_ts(
        &self,
        t: Text,
        batches: Vec<BatchMutation>,
        ts: i64,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<()> {
        self.mutate_rows(t, data::batches(batches), Some(ts), true)
    }
    fn handle_atomic_increment(
        &self,
        t: Text,
        row: Text,
        column: Text,
        value: i64,
    ) -> thrift::Result<i64> {
        self.atomic_increment(t, row, column, value)
    }
    fn handle_delete_all(
        &self,
        t: Text,
        row: Text,
        column: Text,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<()> {
        self.delete_all(t, row, Some(column), None)
    }
    fn handle_delete_all_ts(
        &self,
        t: Text,
        row: Text,
        column: Text,
        ts: i64,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<()> {
        self.delete_all(t, row, Some(column), Some(ts))
    }
    fn handle_delete_all_row(
        &self,
        t: Text,
        row: Text,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<()> {
        self.delete_all(t, row, None, None)
    }
    fn handle_increment(&self, increment: TIncrement) -> thrift::Result<()> {
        self.increment(vec![increment])
    }
    fn handle_increment_rows(&self, increments: Vec<TIncrement>) -> thrift::Result<()> {
        self.increment(increments)
    }
    fn handle_delete_all_row_ts(
        &self,
        t: Text,
        row: Text,
        ts: i64,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<()> {
        self.delete_all(t, row, None, Some(ts))
    }
    fn handle_scanner_open_with_scan(
        &self,
        t: Text,
        scan: TScan,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<ScannerID> {
        self.open_with_scan(t, scan)
    }
    fn handle_scanner_open(
        &self,
        t: Text,
        start: Text,
        columns: Vec<Text>,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<ScannerID> {
        self.open_range(t, start, Vec::new(), columns, None)
    }
    fn handle_scanner_open_with_stop(
        &self,
        t: Text,
        start: Text,
        stop: Text,
        columns: Vec<Text>,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<ScannerID> {
        self.open_range(t, start, stop, columns, None)
    }
    fn handle_scanner_open_with_prefix(
        &self,
        t: Text,
        prefix: Text,
        columns: Vec<Text>,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<ScannerID> {
        self.open_prefix(t, prefix, columns)
    }
    fn handle_scanner_open_ts(
        &self,
        t: Text,
        start: Text,
        columns: Vec<Text>,
        ts: i64,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<ScannerID> {
        self.open_range(t, start, Vec::new(), columns, Some(ts))
    }
    fn handle_scanner_open_with_stop_ts(
        &self,
        t: Text,
        start: Text,
        stop: Text,
        columns: Vec<Text>,
        ts: i64,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<ScannerID> {
        self.open_range(t, start, stop, columns, Some(ts))
    }
    fn handle_scanner_get(&self, id: ScannerID) -> thrift::Result<Vec<TRowResult>> {
        self.scanner_get(id, 1)
    }
    fn handle_scanner_get_list(&self, id: ScannerID, n: i32) -> thrift::Result<Vec<TRowResult>> {
        self.scanner_get(id, n)
    }
    fn handle_scanner_close(&self, id: ScannerID) -> thrift::Result<()> {
        self.scanner_close(id)
    }
    fn handle_get_region_info(&self, row: Text) -> thrift::Result<TRegionInfo> {
        self.get_region_info(row)
    }
    fn handle_append(&self, append: TAppend) -> thrift::Result<Vec<TCell>> {
        self.append(append)
    }
    fn handle_check_and_put(
        &self,
        t: Text,
        row: Text,
        column: Text,
        value: Text,
        mput: Mutation,
        _a: BTreeMap<Text, Text>,
    ) -> thrift::Result<bool> {
        self.check_and_put(t, row, column, value, mput)
    }
    fn handle_get_thrift_server_type(&self) -> thrift::Result<TThriftServerType> {
        Ok(TThriftServerType::ONE)
    }
    fn handle_get_cluster_id(&self) -> thrift::Result<String> {
        Ok(self.engine.cluster_id().to_string())
    }
    fn handle_grant(&self, info: TAccessControlEntity) -> thrift::Result<bool> {
        self.grant(info, false)
    }
    fn handle_revoke(&self, info: TAccessControlEntity) -> thrift::Result<bool> {
        self.grant(info, true)
    }
}
