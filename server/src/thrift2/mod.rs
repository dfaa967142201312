//! The Thrift2 gateway: HBase's `THBaseService` over the engine, beside Thrift1.
//!
//! Data methods live in [`data`], administration in [`admin`]; this file holds the handler,
//! the service glue (slow log timing) and the method table.
//! [`methods`] says what each method needs from the caller (the access check); [`convert`] turns
//! descriptors, requests and results into Thrift2's types and each engine `ErrorKind` into
//! `TIOError` or a `TApplicationException`.

mod admin;
pub mod convert;
mod data;
pub mod methods;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use thrift::protocol::{TBinaryInputProtocol, TCompactInputProtocol, TInputProtocol, TType};
use thrift::server::TProcessor;

use crate::engine::Engine;
use crate::gateway::awaited;
use crate::gateway::grants::{self, AclRequest};
use crate::gateway::wrong_port::WrongPort;
use crate::gateway::{Access, Advertised, Caller, Need};
use crate::generated::hbase2::*;
use crate::scanners::{ScannerLimits, Scanners};
use crate::slowlog::{Record, SlowLog, SlowLogConfig};
use crate::thrift::frame::Protocol;
use crate::thrift::inline::{i32_arg, SHORT_BATCH};
use crate::thrift::{process_message_hinted, PendingReply, Service};
use convert::*;
pub use methods::METHODS;

pub struct Handler {
    pub(crate) engine: Engine,
    /// Each scanner with who opened it (authentication on): only they may use it.
    pub(crate) scanners: Scanners<Option<String>>,
    pub(crate) advertised: Advertised,
    pub(crate) access: Access,
    pub(crate) slow_log: SlowLog,
    /// Server start, reported as the region server's start code.
    pub(crate) start_code: i64,
}

impl Handler {
    pub fn new(
        engine: Engine,
        limits: ScannerLimits,
        advertised: Advertised,
        access: Access,
        slow_log: SlowLogConfig,
    ) -> Handler {
        Handler {
            engine,
            scanners: Scanners::new(limits),
            advertised,
            access,
            slow_log: SlowLog::new(slow_log),
            start_code: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0),
        }
    }

    /// Ok when the caller may make a call needing `need`; a refusal is a non-retryable
    /// TIOError.
    pub(crate) fn may(&self, need: Need<'_>) -> thrift::Result<()> {
        self.access.check(need).map_err(from_admin)
    }

    /// Ok when the scanner is not open (the call then answers as it does for any unknown id)
    /// or the caller opened it.
    pub(crate) fn may_use_scanner(&self, id: i32) -> thrift::Result<()> {
        let Some(open) = self.scanners.get(id) else {
            return Ok(());
        };
        let owner = open.lock().unwrap_or_else(|p| p.into_inner()).extra.clone();
        self.access
            .check_scanner_owner(owner.as_deref())
            .map_err(from_admin)
    }

    /// grant / revoke (HBase 3): refusals and bad requests are TIOErrors.
    fn grant(&self, info: TAccessControlEntity, revoke: bool) -> thrift::Result<bool> {
        let req = AclRequest {
            user: &info.username,
            scope: info.scope.0,
            actions: &info.actions,
            table: info.table_name.as_deref(),
            namespace: info.ns_name.as_deref(),
        };
        grants::apply(&self.engine, &self.access, &req, revoke)
            .map(|()| true)
            .map_err(from_admin)
    }
}

pub struct Thrift2 {
    processor: THBaseServiceSyncProcessor<Arc<Handler>>,
    pub handler: Arc<Handler>,
    /// What a client of the other Thrift service is told (None: the processor's own answer).
    wrong_port: Option<WrongPort>,
}

impl Thrift2 {
    pub fn new(handler: Handler) -> Thrift2 {
        let handler = Arc::new(handler);
        Thrift2 {
            processor: THBaseServiceSyncProcessor::new(handler.clone()),
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

/// The method name and, when the first argument is a binary (the table for data methods),
/// that argument, read from a request's header without decoding the rest.
fn describe(message: &[u8], protocol: Protocol) -> (String, String) {
    fn read(p: &mut dyn TInputProtocol) -> Option<(String, String)> {
        let m = p.read_message_begin().ok()?;
        p.read_struct_begin().ok()?;
        let f = p.read_field_begin().ok()?;
        let table = if f.id == Some(1) && f.field_type == TType::String {
            String::from_utf8_lossy(&p.read_bytes().ok()?).into_owned()
        } else {
            String::new()
        };
        Some((m.name, table))
    }
    let r = match protocol {
        Protocol::Binary { strict } => read(&mut TBinaryInputProtocol::new(message, strict)),
        Protocol::Compact => read(&mut TCompactInputProtocol::new(message)),
    };
    r.unwrap_or_default()
}

impl Service for Thrift2 {
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

    /// Point reads of one row, opening a scanner (nothing is read until its first batch), a
    /// scanner's next rows and a one-call scan's rows (up to [`SHORT_BATCH`]), and closing a
    /// scanner: bounded work, no sync.
    fn is_short(&self, method: &str, message: &[u8], protocol: Protocol) -> bool {
        match method {
            "getScannerRows" => i32_arg(message, protocol, 2).is_some_and(|n| n <= SHORT_BATCH),
            "getScannerResults" => i32_arg(message, protocol, 3).is_some_and(|n| n <= SHORT_BATCH),
            _ => matches!(method, "get" | "exists" | "openScanner" | "closeScanner"),
        }
    }

    fn process_from(&self, message: &[u8], protocol: Protocol, caller: &Caller) -> Vec<u8> {
        let started = Instant::now();
        let reply = self.process(message, protocol);
        self.note_if_slow(message, protocol, caller, started, &reply);
        reply
    }

    /// One-row writes (`put`, `deleteSingle`) await their commit on the connection's task.
    fn start(
        self: Arc<Self>,
        method: &str,
        message: &[u8],
        protocol: Protocol,
        caller: &Caller,
    ) -> Option<PendingReply> {
        if !matches!(method, "put" | "deleteSingle") {
            return None;
        }
        let started = Instant::now();
        let who = caller.clone();
        awaited::start(
            move |m| {
                let reply = self.process(m, protocol);
                self.note_if_slow(m, protocol, &who, started, &reply);
                reply
            },
            message,
            caller,
        )
    }
}

impl Thrift2 {
    /// Records a call in the slow log when it took long or answered with much.
    fn note_if_slow(
        &self,
        message: &[u8],
        protocol: Protocol,
        caller: &Caller,
        started: Instant,
        reply: &[u8],
    ) {
        let elapsed = started.elapsed();
        let Some(kind) = self.handler.slow_log.classify(elapsed, reply.len()) else {
            return;
        };
        let (method, table) = describe(message, protocol);
        let start_time = std::time::SystemTime::now()
            .checked_sub(elapsed)
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        self.handler.slow_log.record(
            Record {
                kind,
                start_time,
                processing_ms: 0,
                response_size: reply.len() as i64,
                client_address: caller.peer.to_string(),
                method,
                params: format!("{} bytes", message.len()),
                table,
            },
            kind,
            elapsed,
        );
    }
}

impl THBaseServiceSyncHandler for Arc<Handler> {
    fn handle_exists(&self, table: Vec<u8>, tget: TGet) -> thrift::Result<bool> {
        self.exists(&table, tget)
    }
    fn handle_exists_all(&self, table: Vec<u8>, tgets: Vec<TGet>) -> thrift::Result<Vec<bool>> {
        tgets.into_iter().map(|g| self.exists(&table, g)).collect()
    }
    fn handle_get(&self, table: Vec<u8>, tget: TGet) -> thrift::Result<TResult> {
        self.get(&table, tget)
    }
    fn handle_get_multiple(
        &self,
        table: Vec<u8>,
        tgets: Vec<TGet>,
    ) -> thrift::Result<Vec<TResult>> {
        tgets.into_iter().map(|g| self.get(&table, g)).collect()
    }
    fn handle_put(&self, table: Vec<u8>, tput: TPut) -> thrift::Result<()> {
        self.put(&table, vec![tput], false)
    }
    fn handle_check_and_put(
        &self,
        table: Vec<u8>,
        row: Vec<u8>,
        family: Vec<u8>,
        qualifier: Vec<u8>,
        value: Vec<u8>,
        tput: TPut,
    ) -> thrift::Result<bool> {
        let m = put_mutation(&tput)?;
        self.check_and_mutate(
            &table,
            row,
            family,
            qualifier,
            TCompareOperator::EQUAL,
            value,
            m,
        )
    }
    fn handle_put_multiple(&self, table: Vec<u8>, tputs: Vec<TPut>) -> thrift::Result<()> {
        self.put(&table, tputs, true)
    }
    fn handle_delete_single(&self, table: Vec<u8>, tdelete: TDelete) -> thrift::Result<()> {
        self.delete(&table, vec![tdelete], false)
    }
    fn handle_delete_multiple(
        &self,
        table: Vec<u8>,
        tdeletes: Vec<TDelete>,
    ) -> thrift::Result<Vec<TDelete>> {
        self.delete(&table, tdeletes, true).map(|()| Vec::new())
    }
    fn handle_check_and_delete(
        &self,
        table: Vec<u8>,
        row: Vec<u8>,
        family: Vec<u8>,
        qualifier: Vec<u8>,
        value: Vec<u8>,
        tdelete: TDelete,
    ) -> thrift::Result<bool> {
        let m = delete_mutation(&tdelete)?;
        self.check_and_mutate(
            &table,
            row,
            family,
            qualifier,
            TCompareOperator::EQUAL,
            value,
            m,
        )
    }
    fn handle_increment(&self, table: Vec<u8>, tincrement: TIncrement) -> thrift::Result<TResult> {
        self.increment(&table, tincrement)
    }
    fn handle_append(&self, table: Vec<u8>, tappend: TAppend) -> thrift::Result<TResult> {
        self.append(&table, tappend)
    }
    fn handle_open_scanner(&self, table: Vec<u8>, tscan: TScan) -> thrift::Result<i32> {
        self.open_scanner(&table, tscan)
    }
    fn handle_get_scanner_rows(
        &self,
        scanner_id: i32,
        num_rows: i32,
    ) -> thrift::Result<Vec<TResult>> {
        self.scanner_rows(scanner_id, num_rows)
    }
    fn handle_close_scanner(&self, scanner_id: i32) -> thrift::Result<()> {
        self.may_use_scanner(scanner_id)?;
        // HBase answers success for an id it does not know.
        self.scanners.close(scanner_id);
        Ok(())
    }
    fn handle_mutate_row(
        &self,
        table: Vec<u8>,
        trow_mutations: TRowMutations,
    ) -> thrift::Result<()> {
        self.mutate_row(&table, trow_mutations)
    }
    fn handle_get_scanner_results(
        &self,
        table: Vec<u8>,
        tscan: TScan,
        num_rows: i32,
    ) -> thrift::Result<Vec<TResult>> {
        self.scanner_results(&table, tscan, num_rows)
    }
    fn handle_get_region_location(
        &self,
        table: Vec<u8>,
        row: Vec<u8>,
        _reload: bool,
    ) -> thrift::Result<THRegionLocation> {
        self.region_location(&table, &row)
    }
    fn handle_get_all_region_locations(
        &self,
        table: Vec<u8>,
    ) -> thrift::Result<Vec<THRegionLocation>> {
        self.all_region_locations(&table)
    }
    fn handle_check_and_mutate(
        &self,
        table: Vec<u8>,
        row: Vec<u8>,
        family: Vec<u8>,
        qualifier: Vec<u8>,
        compare_operator: TCompareOperator,
        value: Vec<u8>,
        row_mutations: TRowMutations,
    ) -> thrift::Result<bool> {
        let m = self.row_mutations(&row_mutations)?;
        self.check_and_mutate(&table, row, family, qualifier, compare_operator, value, m)
    }
    fn handle_get_table_descriptor(&self, table: TTableName) -> thrift::Result<TTableDescriptor> {
        self.table_descriptor(&table)
    }
    fn handle_get_table_descriptors(
        &self,
        tables: Vec<TTableName>,
    ) -> thrift::Result<Vec<TTableDescriptor>> {
        tables.iter().map(|t| self.table_descriptor(t)).collect()
    }
    fn handle_table_exists(&self, table_name: TTableName) -> thrift::Result<bool> {
        Ok(self.engine.table_exists(&table_name_of(&table_name)))
    }
    fn handle_get_table_descriptors_by_pattern(
        &self,
        regex: String,
        include_sys_tables: bool,
    ) -> thrift::Result<Vec<TTableDescriptor>> {
        self.tables_matching(&regex, include_sys_tables)?
            .iter()
            .filter(|n| self.access.shows(Need::Describe(&n.to_string())))
            .map(|n| self.table_descriptor(&ttable_name(n)))
            .collect()
    }
    fn handle_get_table_descriptors_by_namespace(
        &self,
        name: String,
    ) -> thrift::Result<Vec<TTableDescriptor>> {
        self.tables_in(&name)?
            .iter()
            .filter(|n| self.access.shows(Need::Describe(&n.to_string())))
            .map(|n| self.table_descriptor(&ttable_name(n)))
            .collect()
    }
    fn handle_get_table_names_by_pattern(
        &self,
        regex: String,
        include_sys_tables: bool,
    ) -> thrift::Result<Vec<TTableName>> {
        Ok(self
            .tables_matching(&regex, include_sys_tables)?
            .iter()
            .filter(|n| self.access.shows_table(&n.to_string()))
            .map(ttable_name)
            .collect())
    }
    fn handle_get_table_names_by_namespace(&self, name: String) -> thrift::Result<Vec<TTableName>> {
        Ok(self
            .tables_in(&name)?
            .iter()
            .filter(|n| self.access.shows_table(&n.to_string()))
            .map(ttable_name)
            .collect())
    }
    fn handle_create_table(
        &self,
        desc: TTableDescriptor,
        split_keys: Vec<Vec<u8>>,
    ) -> thrift::Result<()> {
        self.may(Need::CreateTable(&table_name_of(&desc.table_name)))?;
        let d = table_from_thrift(&desc)?;
        let created = d.name.to_string();
        self.engine
            .create_table(d, &split_keys)
            .map_err(from_admin)?;
        grants::grant_owner(&self.engine, &self.access, &created);
        Ok(())
    }
    fn handle_delete_table(&self, table_name: TTableName) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_name_of(&table_name)))?;
        self.engine
            .delete_table(&table_name_of(&table_name))
            .map_err(from_admin)
    }
    fn handle_truncate_table(
        &self,
        table_name: TTableName,
        preserve_splits: bool,
    ) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_name_of(&table_name)))?;
        self.engine
            .truncate_table(&table_name_of(&table_name), preserve_splits)
            .map_err(from_admin)
    }
    fn handle_enable_table(&self, table_name: TTableName) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_name_of(&table_name)))?;
        self.engine
            .enable_table(&table_name_of(&table_name))
            .map_err(from_admin)
    }
    fn handle_disable_table(&self, table_name: TTableName) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_name_of(&table_name)))?;
        self.engine
            .disable_table(&table_name_of(&table_name))
            .map_err(from_admin)
    }
    fn handle_is_table_enabled(&self, table_name: TTableName) -> thrift::Result<bool> {
        self.engine
            .is_table_enabled(&table_name_of(&table_name))
            .map_err(from_admin)
    }
    fn handle_is_table_disabled(&self, table_name: TTableName) -> thrift::Result<bool> {
        self.engine
            .is_table_enabled(&table_name_of(&table_name))
            .map(|e| !e)
            .map_err(from_admin)
    }
    fn handle_is_table_available(&self, table_name: TTableName) -> thrift::Result<bool> {
        self.table_available(&table_name, &[])
    }
    fn handle_is_table_available_with_split(
        &self,
        table_name: TTableName,
        split_keys: Vec<Vec<u8>>,
    ) -> thrift::Result<bool> {
        self.table_available(&table_name, &split_keys)
    }
    fn handle_add_column_family(
        &self,
        table_name: TTableName,
        column: TColumnFamilyDescriptor,
    ) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_name_of(&table_name)))?;
        let f = family_from_thrift(&column)?;
        self.engine
            .add_family(&table_name_of(&table_name), f)
            .map_err(from_admin)
    }
    fn handle_delete_column_family(
        &self,
        table_name: TTableName,
        column: Vec<u8>,
    ) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_name_of(&table_name)))?;
        self.engine
            .delete_family(&table_name_of(&table_name), &column)
            .map_err(from_admin)
    }
    fn handle_modify_column_family(
        &self,
        table_name: TTableName,
        column: TColumnFamilyDescriptor,
    ) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_name_of(&table_name)))?;
        let f = family_from_thrift(&column)?;
        self.engine
            .modify_family(&table_name_of(&table_name), f)
            .map_err(from_admin)
    }
    fn handle_modify_table(&self, desc: TTableDescriptor) -> thrift::Result<()> {
        self.may(Need::AlterTable(&table_name_of(&desc.table_name)))?;
        let d = table_from_thrift(&desc)?;
        self.engine.modify_table(d).map_err(from_admin)
    }
    fn handle_create_namespace(&self, namespace_desc: TNamespaceDescriptor) -> thrift::Result<()> {
        self.may(Need::AlterNamespace(&namespace_desc.name))?;
        self.engine
            .create_namespace(namespace_from_thrift(&namespace_desc))
            .map_err(from_admin)
    }
    fn handle_modify_namespace(&self, namespace_desc: TNamespaceDescriptor) -> thrift::Result<()> {
        self.may(Need::AlterNamespace(&namespace_desc.name))?;
        self.engine
            .modify_namespace(namespace_from_thrift(&namespace_desc))
            .map_err(from_admin)
    }
    fn handle_delete_namespace(&self, name: String) -> thrift::Result<()> {
        self.may(Need::AlterNamespace(&name))?;
        self.engine.delete_namespace(&name).map_err(from_admin)
    }
    fn handle_get_namespace_descriptor(
        &self,
        name: String,
    ) -> thrift::Result<TNamespaceDescriptor> {
        self.may(Need::DescribeNamespace(&name))?;
        self.engine
            .get_namespace(&name)
            .map(|n| namespace_to_thrift(&n))
            .map_err(from_admin)
    }
    fn handle_list_namespace_descriptors(&self) -> thrift::Result<Vec<TNamespaceDescriptor>> {
        Ok(self
            .engine
            .list_namespaces()
            .iter()
            .filter(|n| self.access.shows(Need::DescribeNamespace(&n.name)))
            .map(namespace_to_thrift)
            .collect())
    }
    fn handle_list_namespaces(&self) -> thrift::Result<Vec<String>> {
        Ok(self
            .engine
            .list_namespaces()
            .into_iter()
            .map(|n| n.name)
            .filter(|n| self.access.shows(Need::DescribeNamespace(n)))
            .collect())
    }
    fn handle_get_thrift_server_type(&self) -> thrift::Result<TThriftServerType> {
        Ok(TThriftServerType::TWO)
    }
    fn handle_get_cluster_id(&self) -> thrift::Result<String> {
        Ok(self.engine.cluster_id().to_string())
    }
    fn handle_get_slow_log_responses(
        &self,
        _server_names: BTreeSet<TServerName>,
        filter: TLogQueryFilter,
    ) -> thrift::Result<Vec<TOnlineLogRecord>> {
        self.may(Need::ReadSlowLog)?;
        Ok(self.slow_log_records(&filter))
    }
    fn handle_clear_slow_log_responses(
        &self,
        server_names: BTreeSet<TServerName>,
    ) -> thrift::Result<Vec<bool>> {
        self.may(Need::ClearSlowLog)?;
        // One answer per server named, as HBase gives.
        self.slow_log.clear();
        Ok(vec![true; server_names.len()])
    }
    fn handle_grant(&self, info: TAccessControlEntity) -> thrift::Result<bool> {
        self.grant(info, false)
    }
    fn handle_revoke(&self, info: TAccessControlEntity) -> thrift::Result<bool> {
        self.grant(info, true)
    }
}

pub(crate) fn table_name_of(t: &TTableName) -> String {
    table_name(t)
}
