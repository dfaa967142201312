//! AdminService, the region server's administration calls, on the same port: a region's info
//! and compaction state (Admin.getCompactionState asks each region), the online regions
//! (Admin.getRegions(serverName)), flushes and compactions of one region (Admin.flushRegion,
//! compactRegion; Admin.compact(table) sends one per region), region loads, server info and
//! the compaction switch. Compactions run before the call answers, so the state is NONE
//! whenever a client asks.

use std::sync::atomic::Ordering;

use prost::Message;

use crate::gateway::Need;

use super::cluster;
use super::errors::NativeError;
use super::pb;
use super::regions::{self, Target};
use super::Native;

fn decode<M: Message + Default>(param: &[u8], what: &str) -> Result<M, NativeError> {
    M::decode(param).map_err(|e| NativeError::bad_request(format!("cannot decode {what}: {e}")))
}

/// The region a request names, with the table to check access against (None for hbase:meta).
fn region(ctx: &Native, spec: &pb::RegionSpecifier) -> Result<Target, NativeError> {
    regions::resolve(&ctx.engine, Some(spec))
}

pub fn call(ctx: &Native, method: &str, param: &[u8]) -> Result<Vec<u8>, NativeError> {
    Ok(match method {
        "GetRegionInfo" => {
            let req: pb::GetRegionInfoRequest = decode(param, "GetRegionInfoRequest")?;
            let info = match region(ctx, &req.region)? {
                Target::Meta => regions::meta_region_info(),
                Target::Region(m) => {
                    ctx.access.check(Need::Describe(&m.table))?;
                    regions::region_info(&m)
                }
            };
            pb::GetRegionInfoResponse {
                region_info: info,
                compaction_state: req.compaction_state.unwrap_or(false).then_some(0),
                splittable: Some(true),
                mergeable: Some(true),
                best_split_row: None,
            }
            .encode_to_vec()
        }
        "GetOnlineRegion" => {
            let mut infos = vec![regions::meta_region_info()];
            for t in ctx.engine.list_tables() {
                let table = t.to_string();
                if ctx.access.shows_table(&table) {
                    for r in ctx.engine.regions(&table).unwrap_or_default() {
                        infos.push(regions::region_info(&r.meta));
                    }
                }
            }
            pb::GetOnlineRegionResponse { region_info: infos }.encode_to_vec()
        }
        "FlushRegion" => {
            let req: pb::FlushRegionRequest = decode(param, "FlushRegionRequest")?;
            if let Target::Region(m) = region(ctx, &req.region)? {
                ctx.access.check(Need::AlterTable(&m.table))?;
            }
            cluster::flush(ctx)?;
            pb::FlushRegionResponse {
                last_flush_time: crate::engine::cell::now_ms().unsigned_abs(),
                flushed: Some(true),
                wrote_flush_wal_marker: Some(false),
            }
            .encode_to_vec()
        }
        "CompactRegion" => {
            let req: pb::CompactRegionRequest = decode(param, "CompactRegionRequest")?;
            // hbase:meta is made from the catalog: nothing to compact.
            if let Target::Region(m) = region(ctx, &req.region)? {
                ctx.access.check(Need::AlterTable(&m.table))?;
                if ctx.switches.compactions.load(Ordering::Acquire) {
                    ctx.engine
                        .compact_region(&m.table, m.id, req.major.unwrap_or(false))?;
                }
            }
            pb::Empty {}.encode_to_vec()
        }
        "CompactionSwitch" => {
            let req: pb::CompactionSwitchRequest = decode(param, "CompactionSwitchRequest")?;
            ctx.access.check(Need::Cluster)?;
            let prev = ctx.switches.compactions.swap(req.enabled, Ordering::AcqRel);
            pb::CompactionSwitchResponse { prev_state: prev }.encode_to_vec()
        }
        "GetServerInfo" => pb::GetServerInfoResponse {
            server_info: pb::ServerInfo {
                server_name: ctx.server.pb(),
                webui_port: Some(u32::from(ctx.info_port)),
            },
        }
        .encode_to_vec(),
        "GetRegionLoad" => {
            let req: pb::GetRegionLoadRequest = decode(param, "GetRegionLoadRequest")?;
            let mut loads = cluster::online_loads(ctx);
            if let Some(t) = req.table_name.as_ref().filter(|t| !t.qualifier.is_empty()) {
                let table = regions::display_name(&regions::table_from_pb(t));
                let prefix = format!("{table},").into_bytes();
                loads.retain(|l| l.region_specifier.value.starts_with(&prefix));
            }
            pb::GetRegionLoadResponse {
                region_loads: loads,
            }
            .encode_to_vec()
        }
        // Nothing to reload: redbase's settings are its flags.
        "UpdateConfiguration" => {
            ctx.access.check(Need::Cluster)?;
            pb::Empty {}.encode_to_vec()
        }
        other => return Err(NativeError::unsupported("AdminService", other)),
    })
}
