//! Thrift2 table administration helpers and the slow log view.

use regex::Regex;

use crate::engine::TableName;
use crate::gateway::Need;
use crate::generated::hbase2::*;
use crate::slowlog::LogKind;

use super::convert::*;
use super::{table_name_of, Handler};

/// Java's `Pattern.matches` semantics for a table-name regex: the whole name must match. The
/// regex crate covers the constructs people use in table patterns (classes, `.*`, `|`, groups);
/// Java's `\Q...\E` quoting (what `Pattern.quote` produces) is translated, as the filter
/// comparators do; other Java-only constructs (lookaround) are refused with a clear error.
fn whole_match(pattern: &str) -> thrift::Result<Regex> {
    let translated = crate::filter::compare::translate_java(pattern);
    Regex::new(&format!("^(?:{translated})$"))
        .map_err(|e| io_error(format!("bad table name pattern {pattern:?}: {e}"), false))
}

impl Handler {
    pub(super) fn table_descriptor(&self, t: &TTableName) -> thrift::Result<TTableDescriptor> {
        self.may(Need::Describe(&table_name_of(t)))?;
        let d = self
            .engine
            .describe_table(&table_name_of(t))
            .map_err(from_admin)?;
        Ok(table_to_thrift(&d))
    }

    /// Tables whose name (`ns:name`, or `name` in the default namespace) matches `regex`;
    /// system tables (namespace `hbase`) only when asked for.
    pub(super) fn tables_matching(
        &self,
        regex: &str,
        include_sys: bool,
    ) -> thrift::Result<Vec<TableName>> {
        let re = if regex.is_empty() {
            None
        } else {
            Some(whole_match(regex)?)
        };
        Ok(self
            .engine
            .list_tables()
            .into_iter()
            .filter(|n| include_sys || n.namespace != "hbase")
            .filter(|n| re.as_ref().is_none_or(|re| re.is_match(&n.to_string())))
            .collect())
    }

    pub(super) fn tables_in(&self, ns: &str) -> thrift::Result<Vec<TableName>> {
        self.engine.get_namespace(ns).map_err(from_admin)?;
        Ok(self
            .engine
            .list_tables()
            .into_iter()
            .filter(|n| n.namespace == ns)
            .collect())
    }

    /// Enabled, and (when split keys are given) split exactly at those keys.
    pub(super) fn table_available(
        &self,
        t: &TTableName,
        splits: &[Vec<u8>],
    ) -> thrift::Result<bool> {
        let name = table_name_of(t);
        if !self.engine.is_table_enabled(&name).map_err(from_admin)? {
            return Ok(false);
        }
        if splits.is_empty() {
            return Ok(true);
        }
        let starts: Vec<Vec<u8>> = self
            .engine
            .regions(&name)
            .map_err(from_admin)?
            .into_iter()
            .map(|r| r.meta.start)
            .filter(|s| !s.is_empty())
            .collect();
        let mut want = splits.to_vec();
        want.sort();
        want.dedup();
        Ok(starts == want)
    }

    pub(super) fn slow_log_records(&self, f: &TLogQueryFilter) -> Vec<TOnlineLogRecord> {
        let kind = match f.log_type {
            Some(TLogType::LARGE_LOG) => LogKind::Large,
            _ => LogKind::Slow,
        };
        let and = f.filter_by_operator == Some(TFilterByOperator::AND);
        let limit = f.limit.unwrap_or(10).max(0) as usize;
        self.slow_log
            .records()
            .into_iter()
            .filter(|r| r.kind == kind)
            .filter(|r| {
                let checks: Vec<bool> = [
                    f.client_address.as_ref().map(|a| &r.client_address == a),
                    f.table_name.as_ref().map(|t| &r.table == t),
                    f.region_name.as_ref().map(|_| false),
                    f.user_name.as_ref().map(|u| u.is_empty()),
                ]
                .into_iter()
                .flatten()
                .collect();
                checks.is_empty()
                    || if and {
                        checks.iter().all(|c| *c)
                    } else {
                        checks.iter().any(|c| *c)
                    }
            })
            .take(limit)
            .map(|r| TOnlineLogRecord {
                start_time: r.start_time,
                processing_time: r.processing_ms,
                queue_time: 0,
                response_size: r.response_size,
                client_address: r.client_address,
                server_class: "THBaseService".into(),
                method_name: r.method,
                call_details: String::new(),
                param: r.params,
                user_name: String::new(),
                multi_gets_count: 0,
                multi_mutations_count: 0,
                multi_service_calls: 0,
                region_name: None,
                block_bytes_scanned: None,
                fs_read_time: None,
            })
            .collect()
    }
}
