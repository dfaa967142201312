//! How HBase 2.6's client finds the cluster without ZooKeeper (RpcConnectionRegistry with
//! `hbase.client.bootstrap.servers`): first a connection that opens with "Regist" and is
//! answered the cluster id, then ClientMetaService calls for the cluster id, the active
//! master, hbase:meta's location and the bootstrap nodes. This server is all of them: master,
//! the server of hbase:meta and of every region, at the advertised host and port.

use prost::Message;

use super::errors::NativeError;
use super::pb;
use super::regions;
use super::Native;

/// The answer to a "Regist" preamble.
pub fn connection_registry(ctx: &Native) -> Vec<u8> {
    pb::GetConnectionRegistryResponse {
        cluster_id: ctx.engine.cluster_id().to_string(),
    }
    .encode_to_vec()
}

pub fn call(ctx: &Native, method: &str) -> Result<Vec<u8>, NativeError> {
    let server = ctx.server.pb();
    Ok(match method {
        "GetClusterId" => pb::GetClusterIdResponse {
            cluster_id: Some(ctx.engine.cluster_id().to_string()),
        }
        .encode_to_vec(),
        "GetActiveMaster" => pb::GetActiveMasterResponse {
            server_name: Some(server),
        }
        .encode_to_vec(),
        "GetMasters" => pb::GetMastersResponse {
            master_servers: vec![pb::GetMastersResponseEntry {
                server_name: server,
                is_active: true,
            }],
        }
        .encode_to_vec(),
        "GetMetaRegionLocations" => pb::GetMetaRegionLocationsResponse {
            meta_locations: vec![pb::RegionLocation {
                region_info: regions::meta_region_info(),
                server_name: Some(server),
                seq_num: 1,
            }],
        }
        .encode_to_vec(),
        "GetBootstrapNodes" => pb::GetBootstrapNodesResponse {
            server_name: vec![server],
        }
        .encode_to_vec(),
        other => return Err(NativeError::unsupported("ClientMetaService", other)),
    })
}
