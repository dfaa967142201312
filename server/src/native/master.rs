//! MasterService, enough of it for HBase's Admin: tables (create with split keys, delete,
//! enable, disable, truncate, modify, families), descriptors and names, table state and
//! namespaces, and the schema alter status Admin polls after a change. DDL runs to its end
//! before the call answers, so the procedure id each answer carries is already finished:
//! `getProcedureResult` reports FINISHED for every id handed out. The cluster-level methods
//! are in [`super::cluster`], grants in [`super::acl`]; any other method answers a DoNotRetryIOException naming it.

use std::sync::atomic::Ordering;

use prost::Message;

use crate::engine::TableName;
use crate::gateway::Need;

use super::errors::NativeError;
use super::pb;
use super::regions;
use super::schema;
use super::Native;

/// The reply message of a MasterService call.
type Reply = Result<Vec<u8>, NativeError>;

fn decode<M: Message + Default>(param: &[u8], what: &str) -> Result<M, NativeError> {
    M::decode(param).map_err(|e| NativeError::bad_request(format!("cannot decode {what}: {e}")))
}

impl Native {
    /// A new procedure id, for DDL that has already run.
    pub(super) fn procedure(&self) -> Vec<u8> {
        let id = self.procedures.fetch_add(1, Ordering::Relaxed) + 1;
        pb::ProcedureResponse { proc_id: Some(id) }.encode_to_vec()
    }
}

fn table_of(name: &pb::TableName) -> Result<String, NativeError> {
    if name.qualifier.is_empty() {
        return Err(NativeError::bad_request("the call names no table"));
    }
    Ok(regions::table_from_pb(name))
}

/// HBase matches a table-name pattern against the whole name (`Pattern.matches`).
fn pattern(regex: Option<&str>) -> Result<Option<regex::Regex>, NativeError> {
    regex
        .filter(|r| !r.is_empty())
        .map(|r| {
            regex::Regex::new(&format!("^(?:{r})$"))
                .map_err(|e| NativeError::bad_request(format!("bad table name pattern {r:?}: {e}")))
        })
        .transpose()
}

/// The tables a listing shows: by pattern and namespace, each visible to the caller.
fn listed(
    ctx: &Native,
    regex: Option<&str>,
    namespace: Option<&str>,
) -> Result<Vec<TableName>, NativeError> {
    let re = pattern(regex)?;
    Ok(ctx
        .engine
        .list_tables()
        .into_iter()
        .filter(|t| namespace.is_none_or(|ns| ns.is_empty() || t.namespace == ns))
        .filter(|t| re.as_ref().is_none_or(|re| re.is_match(&t.to_string())))
        .filter(|t| ctx.access.shows_table(&t.to_string()))
        .collect())
}

fn schemas(ctx: &Native, tables: impl IntoIterator<Item = String>) -> Vec<pb::TableSchema> {
    tables
        .into_iter()
        .filter_map(|t| ctx.engine.describe_table(&t).ok())
        .map(|d| schema::table_to_pb(&d))
        .collect()
}

pub fn call(ctx: &Native, method: &str, param: &[u8]) -> Reply {
    match method {
        "IsMasterRunning" => Ok(pb::IsMasterRunningResponse {
            is_master_running: true,
        }
        .encode_to_vec()),
        "CreateTable" => {
            let req: pb::CreateTableRequest = decode(param, "CreateTableRequest")?;
            let desc = schema::table_from_pb(&req.table_schema)?;
            ctx.access
                .check(Need::CreateTable(&desc.name.to_string()))?;
            let keys: Vec<Vec<u8>> = req.split_keys.iter().map(|k| k.to_vec()).collect();
            let created = desc.name.to_string();
            ctx.engine.create_table(desc, &keys)?;
            // With authentication on, the creator holds every permission on it (its owner).
            crate::gateway::grants::grant_owner(&ctx.engine, &ctx.access, &created);
            Ok(ctx.procedure())
        }
        "DeleteTable" | "EnableTable" | "DisableTable" => {
            let req: pb::TableNameRequest = decode(param, method)?;
            let table = table_of(&req.table_name)?;
            ctx.access.check(Need::AlterTable(&table))?;
            match method {
                "DeleteTable" => ctx.engine.delete_table(&table)?,
                "EnableTable" => ctx.engine.enable_table(&table)?,
                _ => ctx.engine.disable_table(&table)?,
            }
            Ok(ctx.procedure())
        }
        "truncateTable" => {
            let req: pb::TruncateTableRequest = decode(param, "TruncateTableRequest")?;
            let table = table_of(&req.table_name)?;
            ctx.access.check(Need::AlterTable(&table))?;
            ctx.engine
                .truncate_table(&table, req.preserve_splits.unwrap_or(false))?;
            Ok(ctx.procedure())
        }
        "ModifyTable" => {
            let req: pb::ModifyTableRequest = decode(param, "ModifyTableRequest")?;
            let table = table_of(&req.table_name)?;
            ctx.access.check(Need::AlterTable(&table))?;
            ctx.engine
                .modify_table(schema::table_from_pb(&req.table_schema)?)?;
            Ok(ctx.procedure())
        }
        "AddColumn" | "ModifyColumn" => {
            let req: pb::ColumnRequest = decode(param, method)?;
            let table = table_of(&req.table_name)?;
            ctx.access.check(Need::AlterTable(&table))?;
            let family = schema::family_from_pb(&req.column_families)?;
            if method == "AddColumn" {
                ctx.engine.add_family(&table, family)?;
            } else {
                ctx.engine.modify_family(&table, family)?;
            }
            Ok(ctx.procedure())
        }
        "DeleteColumn" => {
            let req: pb::DeleteColumnRequest = decode(param, "DeleteColumnRequest")?;
            let table = table_of(&req.table_name)?;
            ctx.access.check(Need::AlterTable(&table))?;
            ctx.engine.delete_family(&table, &req.column_name)?;
            Ok(ctx.procedure())
        }
        "GetTableDescriptors" => {
            let req: pb::GetTableDescriptorsRequest = decode(param, "GetTableDescriptorsRequest")?;
            let names: Vec<String> = if req.table_names.is_empty() {
                listed(ctx, req.regex.as_deref(), req.namespace.as_deref())?
                    .into_iter()
                    .map(|t| t.to_string())
                    .collect()
            } else {
                req.table_names
                    .iter()
                    .map(regions::table_from_pb)
                    .filter(|t| ctx.access.check(Need::Describe(t)).is_ok())
                    .collect()
            };
            Ok(pb::GetTableDescriptorsResponse {
                table_schema: schemas(ctx, names),
            }
            .encode_to_vec())
        }
        "GetTableNames" => {
            let req: pb::GetTableNamesRequest = decode(param, "GetTableNamesRequest")?;
            let names = listed(ctx, req.regex.as_deref(), req.namespace.as_deref())?;
            Ok(pb::GetTableNamesResponse {
                table_names: names
                    .iter()
                    .map(|t| regions::table_name_pb(&t.to_string()))
                    .collect(),
            }
            .encode_to_vec())
        }
        "GetTableState" => {
            let req: pb::GetTableStateRequest = decode(param, "GetTableStateRequest")?;
            let table = table_of(&req.table_name)?;
            let enabled = ctx.engine.is_table_enabled(&table)?;
            use pb::table_state::State;
            Ok(pb::GetTableStateResponse {
                table_state: pb::TableState {
                    state: if enabled {
                        State::Enabled
                    } else {
                        State::Disabled
                    } as i32,
                },
            }
            .encode_to_vec())
        }
        "GetSchemaAlterStatus" => {
            let req: pb::GetTableStateRequest = decode(param, "GetSchemaAlterStatusRequest")?;
            let table = table_of(&req.table_name)?;
            let regions = ctx.engine.regions(&table)?;
            Ok(pb::GetSchemaAlterStatusResponse {
                yet_to_update_regions: Some(0),
                total_regions: Some(regions.len() as u32),
            }
            .encode_to_vec())
        }
        "CreateNamespace" | "ModifyNamespace" => {
            let req: pb::NamespaceRequest = decode(param, method)?;
            let ns = schema::namespace_from_pb(&req.namespace_descriptor);
            ctx.access.check(Need::AlterNamespace(&ns.name))?;
            if method == "CreateNamespace" {
                ctx.engine.create_namespace(ns)?;
            } else {
                ctx.engine.modify_namespace(ns)?;
            }
            Ok(ctx.procedure())
        }
        "DeleteNamespace" => {
            let req: pb::NamespaceNameRequest = decode(param, "DeleteNamespaceRequest")?;
            ctx.access
                .check(Need::AlterNamespace(&req.namespace_name))?;
            ctx.engine.delete_namespace(&req.namespace_name)?;
            Ok(ctx.procedure())
        }
        "GetNamespaceDescriptor" => {
            let req: pb::NamespaceNameRequest = decode(param, "GetNamespaceDescriptorRequest")?;
            ctx.access
                .check(Need::DescribeNamespace(&req.namespace_name))?;
            let ns = ctx.engine.get_namespace(&req.namespace_name)?;
            Ok(pb::GetNamespaceDescriptorResponse {
                namespace_descriptor: schema::namespace_to_pb(&ns),
            }
            .encode_to_vec())
        }
        "ListNamespaceDescriptors" => Ok(pb::ListNamespaceDescriptorsResponse {
            namespace_descriptor: ctx
                .engine
                .list_namespaces()
                .iter()
                .map(schema::namespace_to_pb)
                .collect(),
        }
        .encode_to_vec()),
        "ListNamespaces" => Ok(pb::ListNamespacesResponse {
            namespace_name: ctx
                .engine
                .list_namespaces()
                .into_iter()
                .map(|n| n.name)
                .collect(),
        }
        .encode_to_vec()),
        "ListTableDescriptorsByNamespace" => {
            let req: pb::NamespaceNameRequest = decode(param, method)?;
            ctx.engine.get_namespace(&req.namespace_name)?;
            let names = listed(ctx, None, Some(&req.namespace_name))?;
            Ok(pb::ListTableDescriptorsByNamespaceResponse {
                table_schema: schemas(ctx, names.iter().map(|t| t.to_string())),
            }
            .encode_to_vec())
        }
        "ListTableNamesByNamespace" => {
            let req: pb::NamespaceNameRequest = decode(param, method)?;
            ctx.engine.get_namespace(&req.namespace_name)?;
            let names = listed(ctx, None, Some(&req.namespace_name))?;
            Ok(pb::ListTableNamesByNamespaceResponse {
                table_name: names
                    .iter()
                    .map(|t| regions::table_name_pb(&t.to_string()))
                    .collect(),
            }
            .encode_to_vec())
        }
        "getProcedureResult" => {
            let req: pb::GetProcedureResultRequest = decode(param, "GetProcedureResultRequest")?;
            use pb::get_procedure_result_response::State;
            let known = req.proc_id >= 1 && req.proc_id <= ctx.procedures.load(Ordering::Relaxed);
            let now = crate::engine::cell::now_ms() as u64;
            Ok(pb::GetProcedureResultResponse {
                state: if known {
                    State::Finished
                } else {
                    State::NotFound
                } as i32,
                submitted_time: known.then_some(now),
                last_update: known.then_some(now),
                result: None,
            }
            .encode_to_vec())
        }
        "IsProcedureDone" => Ok(pb::IsProcedureDoneResponse {
            done: Some(true),
            snapshot: None,
        }
        .encode_to_vec()),
        other => super::acl::call(ctx, other, param)
            .or_else(|| super::cluster::call(ctx, other, param))
            .unwrap_or_else(|| Err(NativeError::unsupported("MasterService", other))),
    }
}
