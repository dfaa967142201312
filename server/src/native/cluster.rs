//! MasterService beyond tables and namespaces, answered as the one-server cluster this process
//! is: cluster status (Admin.getClusterMetrics: this server live, every region on it, the
//! cluster id, the master), region splits (Admin.split: run before the answer, like all DDL),
//! table flushes (FlushTable, or ExecProcedure "flush-table-proc" from older clients), and the
//! switches a shell
//! or an operator flips (balancer, normalizer, catalog janitor, cleaner chore, split and
//! merge). The switches are kept for the life of the process and change nothing: with one
//! server there is nothing to balance, normalize or clean, so a run reports that it ran when
//! its switch is on, as HBase reports a run that found nothing to do.

use std::sync::atomic::{AtomicBool, Ordering};

use prost::Message;

use crate::gateway::Need;

use super::errors::{class, NativeError};
use super::pb;
use super::regions;
use super::Native;

/// The switches of a one-server cluster, with HBase's defaults.
#[derive(Debug)]
pub struct Switches {
    balancer: AtomicBool,
    normalizer: AtomicBool,
    catalog_janitor: AtomicBool,
    cleaner_chore: AtomicBool,
    split: AtomicBool,
    merge: AtomicBool,
    /// The region server's compaction switch (AdminService.CompactionSwitch).
    pub compactions: AtomicBool,
}

impl Default for Switches {
    fn default() -> Self {
        Switches {
            balancer: AtomicBool::new(true),
            normalizer: AtomicBool::new(false),
            catalog_janitor: AtomicBool::new(true),
            cleaner_chore: AtomicBool::new(true),
            split: AtomicBool::new(true),
            merge: AtomicBool::new(true),
            compactions: AtomicBool::new(true),
        }
    }
}

/// HBase's version string in cluster status.
const VERSION: &str = crate::rest::meta::HBASE_VERSION;
/// ClusterMetrics.Option numbers.
mod option {
    pub const HBASE_VERSION: i32 = 0;
    pub const CLUSTER_ID: i32 = 1;
    pub const LIVE_SERVERS: i32 = 2;
    pub const MASTER: i32 = 4;
    pub const BALANCER_ON: i32 = 8;
    pub const MASTER_INFO_PORT: i32 = 9;
    pub const SERVERS_NAME: i32 = 10;
    pub const TABLE_TO_REGIONS_COUNT: i32 = 11;
}
/// ProcedureDescription signature of a table flush (HBase's MasterFlushTableProcedureManager).
const FLUSH_TABLE: &str = "flush-table-proc";
const UNKNOWN_REGION: &str = "org.apache.hadoop.hbase.UnknownRegionException";

fn decode<M: Message + Default>(param: &[u8], what: &str) -> Result<M, NativeError> {
    M::decode(param).map_err(|e| NativeError::bad_request(format!("cannot decode {what}: {e}")))
}

fn flag(value: bool) -> Vec<u8> {
    pb::FlagResponse { value }.encode_to_vec()
}

/// Sets a switch from a SwitchRequest, answering its previous value.
fn switch(
    ctx: &Native,
    which: &AtomicBool,
    param: &[u8],
    what: &str,
) -> Result<Vec<u8>, NativeError> {
    let req: pb::SwitchRequest = decode(param, what)?;
    ctx.access.check(Need::Cluster)?;
    let prev = which.swap(req.on, Ordering::AcqRel);
    Ok(pb::SwitchResponse {
        prev_value: Some(prev),
    }
    .encode_to_vec())
}

/// One region's load as cluster status and AdminService.GetRegionLoad report it.
pub fn region_load(
    name: Vec<u8>,
    families: usize,
    info: Option<&crate::engine::RegionInfo>,
) -> pb::RegionLoad {
    const MB: u64 = 1024 * 1024;
    let size_mb = info.map_or(0, |i| i.size.div_ceil(MB)) as u32;
    pb::RegionLoad {
        region_specifier: pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: name.into(),
        },
        stores: Some(families as u32),
        storefiles: Some(u32::from(info.is_some())),
        storefile_size_mb: Some(size_mb),
        read_requests_count: info.map(|i| i.reads),
        write_requests_count: info.map(|i| i.writes),
        last_major_compaction_ts: Some(0),
        compaction_state: Some(0),
        region_size_mb: Some(size_mb),
    }
}

/// Every region this server holds that the caller may see, hbase:meta's first.
pub fn online_loads(ctx: &Native) -> Vec<pb::RegionLoad> {
    let mut loads = vec![region_load(regions::META_REGION_NAME.to_vec(), 2, None)];
    for t in ctx.engine.list_tables() {
        let table = t.to_string();
        if !ctx.access.shows_table(&table) {
            continue;
        }
        let families = ctx
            .engine
            .describe_table(&table)
            .map_or(0, |d| d.families.len());
        for r in ctx.engine.regions(&table).unwrap_or_default() {
            loads.push(region_load(regions::name_of(&r.meta), families, Some(&r)));
        }
    }
    loads
}

fn cluster_status(ctx: &Native, options: &[i32]) -> pb::ClusterStatus {
    let wants = |o: i32| options.is_empty() || options.contains(&o);
    let server = ctx.server.pb();
    let mut status = pb::ClusterStatus::default();
    if wants(option::HBASE_VERSION) {
        status.hbase_version = Some(pb::HBaseVersionFileContent {
            version: VERSION.into(),
        });
    }
    if wants(option::CLUSTER_ID) {
        status.cluster_id = Some(pb::ClusterIdMessage {
            cluster_id: ctx.engine.cluster_id().to_string(),
        });
    }
    if wants(option::LIVE_SERVERS) {
        let loads = online_loads(ctx);
        let requests: u64 = loads
            .iter()
            .map(|l| l.read_requests_count.unwrap_or(0) + l.write_requests_count.unwrap_or(0))
            .sum();
        let now = crate::engine::cell::now_ms().unsigned_abs();
        status.live_servers = vec![pb::LiveServerInfo {
            server: server.clone(),
            server_load: pb::ServerLoad {
                number_of_requests: Some(0),
                total_number_of_requests: Some(requests),
                used_heap_mb: Some(0),
                max_heap_mb: Some(0),
                region_loads: loads,
                report_start_time: Some(ctx.server.start_code),
                report_end_time: Some(now),
                info_server_port: Some(u32::from(ctx.info_port)),
            },
        }];
    }
    if wants(option::MASTER) {
        status.master = Some(server.clone());
    }
    if wants(option::BALANCER_ON) {
        status.balancer_on = Some(ctx.switches.balancer.load(Ordering::Acquire));
    }
    if wants(option::MASTER_INFO_PORT) {
        status.master_info_port = Some(i32::from(ctx.info_port));
    }
    if wants(option::SERVERS_NAME) {
        status.servers_name = vec![server];
    }
    if wants(option::TABLE_TO_REGIONS_COUNT) {
        for t in ctx.engine.list_tables() {
            let table = t.to_string();
            if !ctx.access.shows_table(&table) {
                continue;
            }
            let n = ctx.engine.regions(&table).map_or(0, |r| r.len()) as u32;
            status
                .table_region_states_count
                .push(pb::TableRegionStatesCount {
                    table_name: regions::table_name_pb(&table),
                    region_states_count: pb::RegionStatesCount {
                        open_regions: n,
                        split_regions: 0,
                        closed_regions: 0,
                        regions_in_transition: 0,
                        total_regions: n,
                    },
                });
        }
    }
    status
}

/// Splits the region a SplitTableRegionRequest names, at its split row or its middle.
fn split(ctx: &Native, param: &[u8]) -> Result<Vec<u8>, NativeError> {
    let req: pb::SplitTableRegionRequest = decode(param, "SplitTableRegionRequest")?;
    let info = &req.region_info;
    let table = regions::table_from_pb(&info.table_name);
    if table == regions::META_TABLE {
        return Err(NativeError::bad_request(
            "hbase:meta is one region and does not split",
        ));
    }
    ctx.access.check(Need::AlterTable(&table))?;
    if !ctx.switches.split.load(Ordering::Acquire) {
        return Err(NativeError::bad_request(
            "splits are switched off (Admin.splitSwitch): switch them on first",
        ));
    }
    let start = info.start_key.as_deref().unwrap_or_default();
    let region = ctx.engine.region_of(&table, start)?;
    if region.meta.start != start || regions::region_id(&region.meta) != info.region_id {
        return Err(NativeError::final_(
            UNKNOWN_REGION,
            format!(
                "region {} is not a region of {table} now (it was split or merged): look it up \
                 again",
                String::from_utf8_lossy(&regions::region_name(
                    &regions::display_name(&table),
                    start,
                    info.region_id
                ))
            ),
        ));
    }
    let at = req.split_row.as_deref().filter(|r| !r.is_empty());
    ctx.engine.split_region(&table, start, at)?;
    Ok(ctx.procedure())
}

/// FlushTable (HBase 2.6's Admin.flush; older clients send ExecProcedure).
fn flush_table(ctx: &Native, param: &[u8]) -> Result<Vec<u8>, NativeError> {
    let req: pb::FlushTableRequest = decode(param, "FlushTableRequest")?;
    let table = regions::table_from_pb(&req.table_name);
    ctx.access.check(Need::AlterTable(&table))?;
    ctx.engine.regions(&table)?;
    flush(ctx)?;
    Ok(ctx.procedure())
}

/// ExecProcedure: a table flush is the only procedure offered.
fn exec_procedure(ctx: &Native, param: &[u8]) -> Result<Vec<u8>, NativeError> {
    let req: pb::ExecProcedureRequest = decode(param, "ExecProcedureRequest")?;
    let p = &req.procedure;
    if p.signature != FLUSH_TABLE {
        return Err(NativeError::bad_request(format!(
            "java.lang.UnsupportedOperationException: redbase runs no procedure {:?}; it offers \
             {FLUSH_TABLE} (Admin.flush)",
            p.signature
        )));
    }
    let table = p.instance.clone().unwrap_or_default();
    ctx.access.check(Need::AlterTable(&table))?;
    ctx.engine.regions(&table)?;
    flush(ctx)?;
    Ok(pb::ExecProcedureResponse {
        expected_timeout: Some(60_000),
        return_data: None,
    }
    .encode_to_vec())
}

/// Makes every acknowledged write durable in its region's file (HBase flushes memstores).
pub fn flush(ctx: &Native) -> Result<(), NativeError> {
    ctx.engine
        .flush_all()
        .map_err(|e| NativeError::retry(class::IO, format!("flush failed: {e}")))
}

/// The cluster-level MasterService methods; None for a method that is not one of them.
pub fn call(ctx: &Native, method: &str, param: &[u8]) -> Option<Result<Vec<u8>, NativeError>> {
    let s = &ctx.switches;
    let on = |b: &AtomicBool| b.load(Ordering::Acquire);
    Some(match method {
        "GetClusterStatus" => decode::<pb::GetClusterStatusRequest>(param, method).map(|req| {
            pb::GetClusterStatusResponse {
                cluster_status: cluster_status(ctx, &req.options),
            }
            .encode_to_vec()
        }),
        "SplitRegion" => split(ctx, param),
        "FlushTable" => flush_table(ctx, param),
        "ExecProcedure" => exec_procedure(ctx, param),
        "IsBalancerEnabled" => Ok(flag(on(&s.balancer))),
        "SetBalancerRunning" => switch(ctx, &s.balancer, param, "SetBalancerRunningRequest"),
        "Balance" => ctx
            .access
            .check(Need::Cluster)
            .map_err(Into::into)
            .map(|_| {
                pb::BalanceResponse {
                    balancer_ran: on(&s.balancer),
                    moves_calculated: Some(0),
                    moves_executed: Some(0),
                }
                .encode_to_vec()
            }),
        "IsNormalizerEnabled" => Ok(flag(on(&s.normalizer))),
        "SetNormalizerRunning" => switch(ctx, &s.normalizer, param, "SetNormalizerRunningRequest"),
        "Normalize" => ctx
            .access
            .check(Need::Cluster)
            .map_err(Into::into)
            .map(|_| flag(on(&s.normalizer))),
        "IsCatalogJanitorEnabled" => Ok(flag(on(&s.catalog_janitor))),
        "EnableCatalogJanitor" => switch(
            ctx,
            &s.catalog_janitor,
            param,
            "EnableCatalogJanitorRequest",
        ),
        "RunCatalogScan" => ctx
            .access
            .check(Need::Cluster)
            .map_err(Into::into)
            .map(|_| {
                pb::RunCatalogScanResponse {
                    scan_result: Some(0),
                }
                .encode_to_vec()
            }),
        "IsCleanerChoreEnabled" => Ok(flag(on(&s.cleaner_chore))),
        "SetCleanerChoreRunning" => switch(
            ctx,
            &s.cleaner_chore,
            param,
            "SetCleanerChoreRunningRequest",
        ),
        "RunCleanerChore" => ctx
            .access
            .check(Need::Cluster)
            .map_err(Into::into)
            .map(|_| flag(on(&s.cleaner_chore))),
        "IsInMaintenanceMode" => Ok(flag(false)),
        "IsSplitOrMergeEnabled" => {
            decode::<pb::IsSplitOrMergeEnabledRequest>(param, method).map(|req| {
                flag(on(if req.switch_type == 1 {
                    &s.merge
                } else {
                    &s.split
                }))
            })
        }
        "SetSplitOrMergeEnabled" => decode::<pb::SetSplitOrMergeEnabledRequest>(param, method)
            .and_then(|req| {
                ctx.access.check(Need::Cluster)?;
                let prev_value = req
                    .switch_types
                    .iter()
                    .map(|t| {
                        let which = if *t == 1 { &s.merge } else { &s.split };
                        which.swap(req.enabled, Ordering::AcqRel)
                    })
                    .collect();
                Ok(pb::SetSplitOrMergeEnabledResponse { prev_value }.encode_to_vec())
            }),
        _ => return None,
    })
}
