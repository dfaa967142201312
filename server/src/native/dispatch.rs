//! One call to its handler, by the connection's service and the call's method name. A method
//! a known service does not offer answers a DoNotRetryIOException naming it, as HBase answers
//! a method it does not know; an unknown service is refused at the connection header.

use bytes::Bytes;
use prost::Message;

use super::convert::CellOut;
use super::errors::NativeError;
use super::frame::Call;
use super::{client, master, region_admin, registry, scan, Native};

/// The services a connection can name in its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    Client,
    Master,
    ClientMeta,
    Admin,
}

impl Service {
    pub fn by_name(name: &str) -> Option<Service> {
        Some(match name {
            "ClientService" => Service::Client,
            "MasterService" => Service::Master,
            "ClientMetaService" => Service::ClientMeta,
            "AdminService" => Service::Admin,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Service::Client => "ClientService",
            Service::Master => "MasterService",
            Service::ClientMeta => "ClientMetaService",
            Service::Admin => "AdminService",
        }
    }

    /// The method names the metrics label calls with: the known ones as they are, any
    /// other as "other" (a client must not be able to grow the label set).
    pub fn metric_method(self, method: &str) -> &'static str {
        const CLIENT: [&str; 4] = ["Get", "Mutate", "Scan", "Multi"];
        const META: [&str; 5] = [
            "GetClusterId",
            "GetActiveMaster",
            "GetMasters",
            "GetMetaRegionLocations",
            "GetBootstrapNodes",
        ];
        const ADMIN: [&str; 8] = [
            "GetRegionInfo",
            "GetOnlineRegion",
            "FlushRegion",
            "CompactRegion",
            "CompactionSwitch",
            "GetServerInfo",
            "GetRegionLoad",
            "UpdateConfiguration",
        ];
        const MASTER: [&str; 43] = [
            "IsMasterRunning",
            "CreateTable",
            "DeleteTable",
            "EnableTable",
            "DisableTable",
            "truncateTable",
            "ModifyTable",
            "AddColumn",
            "ModifyColumn",
            "DeleteColumn",
            "GetTableDescriptors",
            "GetTableNames",
            "GetTableState",
            "GetSchemaAlterStatus",
            "CreateNamespace",
            "ModifyNamespace",
            "DeleteNamespace",
            "GetNamespaceDescriptor",
            "ListNamespaceDescriptors",
            "ListNamespaces",
            "ListTableDescriptorsByNamespace",
            "ListTableNamesByNamespace",
            "getProcedureResult",
            "IsProcedureDone",
            "GetClusterStatus",
            "Balance",
            "SplitRegion",
            "FlushTable",
            "ExecProcedure",
            "IsBalancerEnabled",
            "SetBalancerRunning",
            "IsNormalizerEnabled",
            "SetNormalizerRunning",
            "Normalize",
            "IsCatalogJanitorEnabled",
            "EnableCatalogJanitor",
            "RunCatalogScan",
            "IsCleanerChoreEnabled",
            "SetCleanerChoreRunning",
            "RunCleanerChore",
            "IsInMaintenanceMode",
            "IsSplitOrMergeEnabled",
            "SetSplitOrMergeEnabled",
        ];
        let known: &[&'static str] = match self {
            Service::Client => &CLIENT,
            Service::Master => &MASTER,
            Service::ClientMeta => &META,
            Service::Admin => &ADMIN,
        };
        known
            .iter()
            .chain(if self == Service::Master {
                &super::acl::METHODS[..]
            } else {
                &[]
            })
            .find(|m| **m == method)
            .copied()
            .unwrap_or("other")
    }
}

/// Whether a call is a short read (bounded work, no fsync): a Get (of a user region or of
/// hbase:meta) and the registry's lookups. Such a call may run on the connection's own task
/// ([`crate::thrift::inline`]); everything else goes to the blocking threads.
pub fn is_short(service: Service, method: &str) -> bool {
    match service {
        Service::Client => method == "Get",
        Service::ClientMeta => true,
        Service::Master => matches!(method, "IsMasterRunning" | "GetTableState"),
        Service::Admin => false,
    }
}

/// A handled call: its response message and cell block.
pub struct Reply {
    pub message: Vec<u8>,
    pub cells: Vec<u8>,
}

fn decode<M: Message + Default>(param: &Bytes, what: &str) -> Result<M, NativeError> {
    M::decode(param.clone())
        .map_err(|e| NativeError::bad_request(format!("cannot decode {what}: {e}")))
}

/// Runs one call. `codec` says whether the connection named a cell block codec.
pub fn call(
    ctx: &Native,
    service: Service,
    codec: bool,
    call: &Call,
) -> Result<Reply, NativeError> {
    let (method, param, cells) = (call.method(), &call.param, &call.cells);
    let mut out = CellOut::new(codec);
    let message = match service {
        Service::ClientMeta => registry::call(ctx, method)?,
        Service::Master => master::call(ctx, method, param)?,
        Service::Admin => region_admin::call(ctx, method, param)?,
        Service::Client => match method {
            "Get" => client::get(ctx, decode(param, "GetRequest")?, &mut out)?.encode_to_vec(),
            "Mutate" => client::mutate(ctx, decode(param, "MutateRequest")?, cells, &mut out)?
                .encode_to_vec(),
            "Multi" => {
                client::multi(ctx, decode(param, "MultiRequest")?, cells, &mut out)?.encode_to_vec()
            }
            "Scan" => scan::scan(ctx, decode(param, "ScanRequest")?, call.into(), &mut out)?
                .encode_to_vec(),
            other => return Err(NativeError::unsupported("ClientService", other)),
        },
    };
    Ok(Reply {
        message,
        cells: out.into_block(),
    })
}
