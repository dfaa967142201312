//! MasterService and AdminService: read-only mode, cluster status, splits, flushes,
//! compactions and the switches.

use bytes::Bytes;
use prost::Message;
use redbase::native::pb;
use redbase::server::Config;

use crate::native_support::*;

#[test]
fn read_only_mode_refuses_changes() {
    let config = Config {
        read_only: true,
        ..Config::default()
    };
    let (server, _) = Server::start_with(config, false);
    // The table exists before the server went read-only.
    let d = redbase::engine::TableDescriptor::new(redbase::engine::TableName::parse("t").unwrap())
        .with_family(redbase::engine::FamilyDescriptor::new(b"f"));
    server.engine.create_table(d, &[]).unwrap();
    let mut master = Conn::open(server.addr, "MasterService", false);
    let req = pb::TableNameRequest {
        table_name: table_name("t"),
        ..Default::default()
    };
    let r = master.call_raw("DisableTable", &req.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    let mut c = Conn::open(server.addr, "ClientService", false);
    let name = locate(&mut c, "t", "r");
    let req = pb::MutateRequest {
        region: region(name.clone()),
        mutation: put("r", "v"),
        ..Default::default()
    };
    let r = c.call_raw("Mutate", &req.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    let get = pb::GetRequest {
        region: region(name),
        get: pb::Get {
            row: Bytes::from_static(b"r"),
            ..Default::default()
        },
    };
    let got: pb::GetResponse = c.call("Get", &get);
    assert!(got.result.unwrap().cell.is_empty());
}

#[test]
fn cluster_status_splits_flushes_and_switches_through_master_and_admin_service() {
    let (server, _) = Server::start_with(Config::default(), true);
    let addr = server.addr;
    create_table(addr, "c");
    let mut master = Conn::open(addr, "MasterService", false);
    let mut admin = Conn::open(addr, "AdminService", false);
    let mut client = Conn::open(addr, "ClientService", false);
    // Cluster status: this server live with hbase:meta's region and the table's two.
    let status: pb::GetClusterStatusResponse =
        master.call("GetClusterStatus", &pb::GetClusterStatusRequest::default());
    let s = status.cluster_status;
    assert_eq!(
        s.cluster_id.unwrap().cluster_id,
        server.engine.cluster_id().to_string()
    );
    assert_eq!(s.hbase_version.unwrap().version, "2.6.1");
    assert_eq!(s.live_servers.len(), 1);
    let live = &s.live_servers[0];
    assert_eq!(Some(&live.server), s.master.as_ref());
    assert_eq!(live.server.port, Some(u32::from(addr.port())));
    let names: Vec<_> = live
        .server_load
        .region_loads
        .iter()
        .map(|l| l.region_specifier.value.clone())
        .collect();
    assert_eq!(names[0], Bytes::from_static(b"hbase:meta,,1"));
    assert_eq!(names.iter().filter(|n| n.starts_with(b"c,")).count(), 2);
    // Only what the options ask for (1 = CLUSTER_ID).
    let only: pb::GetClusterStatusResponse = master.call(
        "GetClusterStatus",
        &pb::GetClusterStatusRequest { options: vec![1] },
    );
    assert!(only.cluster_status.cluster_id.is_some());
    assert!(only.cluster_status.live_servers.is_empty());

    // Split the lower region at "f" through MasterService, as Admin.split does.
    let low = locate(&mut client, "c", "apple");
    let info: pb::GetRegionInfoResponse = admin.call(
        "GetRegionInfo",
        &pb::GetRegionInfoRequest {
            region: region(low.clone()),
            compaction_state: Some(true),
            best_split_row: None,
        },
    );
    assert_eq!(info.compaction_state, Some(0), "NONE");
    let split = pb::SplitTableRegionRequest {
        region_info: info.region_info.clone(),
        split_row: Some(Bytes::from_static(b"f")),
        ..Default::default()
    };
    let done: pb::ProcedureResponse = master.call("SplitRegion", &split);
    assert!(done.proc_id.is_some());
    assert_ne!(locate(&mut client, "c", "apple"), low);
    assert_eq!(server.engine.regions("c").unwrap().len(), 3);
    // The old region is gone: its name is not served, and splitting it again is refused.
    let r = admin.call_raw(
        "GetRegionInfo",
        &pb::GetRegionInfoRequest {
            region: region(low),
            ..Default::default()
        }
        .encode_to_vec(),
        &[],
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.NotServingRegionException")
    );
    let r = master.call_raw("SplitRegion", &split.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.UnknownRegionException")
    );
    let online: pb::GetOnlineRegionResponse = admin.call("GetOnlineRegion", &pb::Empty {});
    assert_eq!(online.region_info.len(), 4);

    // Flushes and compactions.
    let flushed: pb::ProcedureResponse = master.call(
        "FlushTable",
        &pb::FlushTableRequest {
            table_name: table_name("c"),
            ..Default::default()
        },
    );
    assert!(flushed.proc_id.is_some());
    let exec = |signature: &str, instance: &str| pb::ExecProcedureRequest {
        procedure: pb::ProcedureDescription {
            signature: signature.into(),
            instance: Some(instance.into()),
            ..Default::default()
        },
    };
    let _: pb::ExecProcedureResponse = master.call("ExecProcedure", &exec("flush-table-proc", "c"));
    let r = master.call_raw(
        "ExecProcedure",
        &exec("online-snapshot", "c").encode_to_vec(),
        &[],
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    let r = master.call_raw(
        "ExecProcedure",
        &exec("flush-table-proc", "missing").encode_to_vec(),
        &[],
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.TableNotFoundException")
    );
    let high = locate(&mut client, "c", "zebra");
    let _: pb::FlushRegionResponse = admin.call(
        "FlushRegion",
        &pb::FlushRegionRequest {
            region: region(high.clone()),
            ..Default::default()
        },
    );
    let before = server.engine.compaction_count();
    let _: pb::Empty = admin.call(
        "CompactRegion",
        &pb::CompactRegionRequest {
            region: region(high),
            major: Some(true),
            family: None,
        },
    );
    assert_eq!(server.engine.compaction_count(), before + 1);

    // Switches: kept, reported, and a switched-off balancer does not run.
    let prev: pb::SwitchResponse = master.call(
        "SetBalancerRunning",
        &pb::SwitchRequest {
            on: false,
            synchronous: Some(true),
        },
    );
    assert_eq!(prev.prev_value, Some(true));
    let on: pb::FlagResponse = master.call("IsBalancerEnabled", &pb::Empty {});
    assert!(!on.value);
    let ran: pb::BalanceResponse = master.call("Balance", &pb::Empty {});
    assert!(!ran.balancer_ran);
    let split_on: pb::FlagResponse = master.call(
        "IsSplitOrMergeEnabled",
        &pb::IsSplitOrMergeEnabledRequest { switch_type: 0 },
    );
    assert!(split_on.value);
    // An AdminService method redbase does not offer: DoNotRetryIOException naming it.
    let r = admin.call_raw("StopServer", &[], &[]);
    let e = r.header.exception.unwrap();
    assert!(e
        .stack_trace
        .unwrap_or_default()
        .contains("AdminService.StopServer"));
}
