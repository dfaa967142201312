//! HBase's native RPC spoken byte by byte on a loopback port: the registry preamble, the
//! connection header, ClientMetaService, MasterService DDL, a put and a get through
//! ClientService (protobuf cells and KeyValueCodec cell blocks), hbase:meta as the client
//! reads it; and hostile input (another version or auth byte, garbage, lying lengths, a frame
//! over the bound, an unknown service or method, cell blocks that claim more than they hold),
//! each answered with HBase's exception or the connection closed, the server serving after.

mod native_support;
mod security;

use std::io::Write;
use std::time::Duration;

use bytes::Bytes;
use native_support::*;
use prost::Message;
use redbase::native::pb;
use redbase::server::Config;
use redbase::thrift::Budget;

#[test]
fn registry_bootstrap_and_cluster_id() {
    let server = Server::start(1 << 20);
    let cluster_id = server.engine.cluster_id().to_string();
    // The "Regist" preamble: the cluster id as the answer to no call, then the server closes.
    let mut s = stream(server.addr);
    s.write_all(b"Regist").unwrap();
    let r = read_response(&mut s);
    assert_eq!(r.header.call_id, Some(u32::MAX));
    let reg = pb::GetConnectionRegistryResponse::decode(r.message).unwrap();
    assert_eq!(reg.cluster_id, cluster_id);
    assert!(closed(&mut s));

    let mut meta = Conn::open(server.addr, "ClientMetaService", false);
    let id: pb::GetClusterIdResponse = meta.call("GetClusterId", &pb::GetClusterIdRequest {});
    assert_eq!(id.cluster_id.as_deref(), Some(cluster_id.as_str()));
    let master: pb::GetActiveMasterResponse =
        meta.call("GetActiveMaster", &pb::GetActiveMasterRequest {});
    let sn = master.server_name.unwrap();
    assert_eq!(sn.host_name, "127.0.0.1");
    assert_eq!(sn.port, Some(u32::from(server.addr.port())));
    let locs: pb::GetMetaRegionLocationsResponse = meta.call(
        "GetMetaRegionLocations",
        &pb::GetMetaRegionLocationsRequest {},
    );
    assert_eq!(locs.meta_locations.len(), 1);
    assert_eq!(locs.meta_locations[0].region_info.region_id, 1);
    assert_eq!(locs.meta_locations[0].server_name.as_ref(), Some(&sn));
    let nodes: pb::GetBootstrapNodesResponse =
        meta.call("GetBootstrapNodes", &pb::GetBootstrapNodesRequest {});
    assert_eq!(nodes.server_name, vec![sn]);
}

#[test]
fn put_and_get_through_client_service() {
    let server = Server::start(1 << 20);
    create_table(server.addr, "t");
    // Protobuf cells (no codec).
    let mut client = Conn::open(server.addr, "ClientService", false);
    let low = locate(&mut client, "t", "apple");
    let high = locate(&mut client, "t", "zebra");
    assert_ne!(low, high, "split at m: two regions");
    let req = pb::MutateRequest {
        region: region(low.clone()),
        mutation: put("apple", "red"),
        ..Default::default()
    };
    let resp: pb::MutateResponse = client.call("Mutate", &req);
    assert_eq!(resp.processed, Some(true));
    let get = pb::GetRequest {
        region: region(low.clone()),
        get: pb::Get {
            row: Bytes::from_static(b"apple"),
            ..Default::default()
        },
    };
    let got: pb::GetResponse = client.call("Get", &get);
    let cells = got.result.unwrap().cell;
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].value.as_deref(), Some(&b"red"[..]));
    // A row outside the region named: the client must look the region up again.
    let wrong = pb::MutateRequest {
        region: region(low.clone()),
        mutation: put("zebra", "striped"),
        ..Default::default()
    };
    let r = client.call_raw("Mutate", &wrong.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.NotServingRegionException")
    );

    // Cell blocks (KeyValueCodec): a batched put's cells in the request, a get's in the answer.
    let mut coded = Conn::open(server.addr, "ClientService", true);
    let multi = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region(high.clone()),
            action: vec![pb::Action {
                index: Some(0),
                mutation: Some(pb::MutationProto {
                    mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
                    associated_cell_count: Some(1),
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let cells = key_value(b"zebra", b"f", b"q", b"striped");
    let r = coded.call_raw("Multi", &multi.encode_to_vec(), &cells);
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let m = pb::MultiResponse::decode(r.message).unwrap();
    assert!(m.region_action_result[0].result_or_exception[0]
        .exception
        .is_none());
    let get = pb::GetRequest {
        region: region(high),
        get: pb::Get {
            row: Bytes::from_static(b"zebra"),
            ..Default::default()
        },
    };
    let r = coded.call_raw("Get", &get.encode_to_vec(), &[]);
    let result = pb::GetResponse::decode(r.message).unwrap().result.unwrap();
    assert_eq!(result.associated_cell_count, Some(1));
    assert!(result.cell.is_empty());
    let kv = &r.cells[4..];
    assert!(kv.ends_with(b"striped"));
    assert_eq!(
        u32::from_be_bytes(r.cells[..4].try_into().unwrap()) as usize,
        kv.len()
    );
}

#[test]
fn hostile_preambles_and_headers_are_refused() {
    let server = Server::start(64 * 1024);
    let addr = server.addr;
    assert_eq!(
        refused(addr, b"HBas\x01\x50").as_deref(),
        Some("org.apache.hadoop.hbase.ipc.WrongVersionException")
    );
    assert_eq!(
        refused(addr, b"HBas\x00\x51").as_deref(),
        Some("org.apache.hadoop.hbase.ipc.BadAuthException")
    );
    assert_eq!(
        refused(addr, b"GET / HTTP/1.1\r\n\r\n").as_deref(),
        Some("org.apache.hadoop.hbase.ipc.FatalConnectionException")
    );
    // A connection header that is not a protobuf, one over its bound, an unknown service, a
    // codec the server does not have.
    let mut garbage = b"HBas\x00\x50".to_vec();
    garbage.extend_from_slice(&6u32.to_be_bytes());
    garbage.extend_from_slice(&[0xff; 6]);
    assert_eq!(
        refused(addr, &garbage).as_deref(),
        Some("org.apache.hadoop.hbase.ipc.FatalConnectionException")
    );
    let mut huge = b"HBas\x00\x50".to_vec();
    huge.extend_from_slice(&u32::MAX.to_be_bytes());
    assert!(refused(addr, &huge).is_some());
    assert_eq!(
        refused(addr, &connection_header("NoSuchService", false)).as_deref(),
        Some("org.apache.hadoop.hbase.ipc.UnknownServiceException")
    );
    let h = pb::ConnectionHeader {
        service_name: Some("ClientService".into()),
        cell_block_codec_class: Some("com.example.Codec".into()),
        ..Default::default()
    };
    let mut bad_codec = b"HBas\x00\x50".to_vec();
    bad_codec.extend_from_slice(&(h.encoded_len() as u32).to_be_bytes());
    h.encode(&mut bad_codec).unwrap();
    assert_eq!(
        refused(addr, &bad_codec).as_deref(),
        Some("org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException")
    );
    // A client that leaves mid-preamble or mid-header.
    let mut s = stream(addr);
    s.write_all(b"HBa").unwrap();
    drop(s);
    let mut s = stream(addr);
    s.write_all(b"HBas\x00\x50\x00\x00\x01\x00partial").unwrap();
    drop(s);

    // Still serving.
    let mut meta = Conn::open(addr, "ClientMetaService", false);
    let id: pb::GetClusterIdResponse = meta.call("GetClusterId", &pb::GetClusterIdRequest {});
    assert!(id.cluster_id.is_some());
}

#[test]
fn hostile_calls_are_answered_or_closed() {
    let server = Server::start(64 * 1024);
    let addr = server.addr;
    create_table(addr, "t");
    let mut c = Conn::open(addr, "ClientService", true);
    // An unknown method: a DoNotRetryIOException naming it; the connection goes on.
    let r = c.call_raw("NoSuchMethod", &[], &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    assert!(r.header.exception.as_ref().unwrap().do_not_retry == Some(true));
    assert!(r
        .header
        .exception
        .unwrap()
        .stack_trace
        .unwrap()
        .contains("NoSuchMethod"));
    // A parameter that is not the method's message.
    let r = c.call_raw("Get", &[0xff, 0xff, 0xff], &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    // A cell block that claims more than the frame holds: the header says 1 MB.
    let header = pb::RequestHeader {
        call_id: Some(77),
        method_name: Some("Multi".into()),
        request_param: Some(true),
        cell_block_meta: Some(pb::CellBlockMeta {
            length: Some(1 << 20),
        }),
        ..Default::default()
    };
    let mut body = Vec::new();
    header.encode_length_delimited(&mut body).unwrap();
    body.push(0);
    body.extend_from_slice(b"tiny");
    let mut frame = (body.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    c.s.write_all(&frame).unwrap();
    let r = read_response(&mut c.s);
    assert_eq!(r.header.call_id, Some(77));
    assert!(r.header.exception.is_some());
    // A cell inside the block that claims more than the block holds, and one whose row
    // length runs past its key.
    let multi = pb::MultiRequest::default().encode_to_vec();
    let mut lying = key_value(b"r", b"f", b"q", b"v");
    lying[0..4].copy_from_slice(&u32::MAX.to_be_bytes());
    let r = c.call_raw("Multi", &multi, &lying);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    let mut bad_row = key_value(b"r", b"f", b"q", b"v");
    bad_row[12] = 0xff;
    assert!(c
        .call_raw("Multi", &multi, &bad_row)
        .header
        .exception
        .is_some());
    // A scanner id nobody opened.
    let next = pb::ScanRequest {
        scanner_id: Some(12345),
        number_of_rows: Some(10),
        ..Default::default()
    };
    let r = c.call_raw("Scan", &next.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.UnknownScannerException")
    );
    // A region nobody serves.
    let get = pb::GetRequest {
        region: region(Bytes::from_static(
            b"t,,1.0123456789abcdef0123456789abcdef.",
        )),
        get: pb::Get {
            row: Bytes::from_static(b"r"),
            ..Default::default()
        },
    };
    let r = c.call_raw("Get", &get.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.NotServingRegionException")
    );
    assert_eq!(r.header.exception.unwrap().do_not_retry, Some(false));

    // A header whose length lies: nothing to answer, the connection closes.
    let mut s = Conn::open(addr, "ClientService", false);
    s.s.write_all(&[0, 0, 0, 2, 0x7f, 0x01]).unwrap();
    assert!(closed(&mut s.s));
    // A frame over the bound: RequestTooBigException for its call, then closed.
    let mut s = Conn::open(addr, "ClientService", false);
    let big = call_frame(9, "Get", &vec![0u8; 100 * 1024], &[]);
    s.s.write_all(&big[..8 * 1024]).unwrap();
    let r = read_response(&mut s.s);
    assert_eq!(r.header.call_id, Some(9));
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.exceptions.RequestTooBigException")
    );
    assert!(closed(&mut s.s));
    // A 4 GB frame length with nothing after it.
    let mut s = Conn::open(addr, "ClientService", false);
    s.s.write_all(&u32::MAX.to_be_bytes()).unwrap();
    drop(s);
    // A client gone in the middle of a frame.
    let mut s = Conn::open(addr, "ClientService", false);
    s.s.write_all(&call_frame(3, "Get", &[1, 2, 3], &[])[..6])
        .unwrap();
    drop(s);

    // Still serving, on a new connection and on the old one.
    let mut meta = Conn::open(addr, "ClientMetaService", false);
    let id: pb::GetClusterIdResponse = meta.call("GetClusterId", &pb::GetClusterIdRequest {});
    assert!(id.cluster_id.is_some());
    let mut plain = Conn::open(addr, "ClientService", false);
    assert!(!locate(&mut plain, "t", "a").is_empty());
    let r = c.call_raw("Scan", &next.encode_to_vec(), &[]);
    assert!(r.header.exception.is_some());
}

#[test]
fn a_split_region_answers_not_serving_and_scanners_span_the_split() {
    let server = Server::start(1 << 20);
    create_table(server.addr, "t");
    let mut c = Conn::open(server.addr, "ClientService", false);
    let low = locate(&mut c, "t", "a");
    for row in ["a", "b", "c", "d", "e", "g", "h", "i"] {
        let req = pb::MutateRequest {
            region: region(low.clone()),
            mutation: put(row, row),
            ..Default::default()
        };
        let _: pb::MutateResponse = c.call("Mutate", &req);
    }
    // A scanner opened before the split reads its region's old range to the end.
    let open = pb::ScanRequest {
        region: Some(region(low.clone())),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(2),
        ..Default::default()
    };
    let first: pb::ScanResponse = c.call("Scan", &open);
    assert_eq!(first.results.len(), 2);
    assert_eq!(first.more_results_in_region, Some(true));
    let id = first.scanner_id.unwrap();

    server.engine.split_region("t", b"a", Some(b"f")).unwrap();

    let next = pb::ScanRequest {
        scanner_id: Some(id),
        number_of_rows: Some(100),
        next_call_seq: Some(0),
        ..Default::default()
    };
    let rest: pb::ScanResponse = c.call("Scan", &next);
    let rows: Vec<_> = rest
        .results
        .iter()
        .map(|r| r.cell[0].row.clone().unwrap())
        .collect();
    assert_eq!(
        rows,
        ["c", "d", "e", "g", "h", "i"].map(|r| Bytes::from(r.as_bytes()))
    );
    assert_eq!(rest.more_results_in_region, Some(false));
    // The same next again: the scanner closed at its region's end, and a call on a scanner the
    // server closed is answered with nothing (HBase's closedScanners), not an error.
    let again: pb::ScanResponse = c.call("Scan", &next);
    assert!(again.results.is_empty());
    assert_eq!(again.more_results_in_region, None);
    // An id no scanner ever had: UnknownScannerException.
    let unknown = pb::ScanRequest {
        scanner_id: Some(7),
        ..next.clone()
    };
    let r = c.call_raw("Scan", &unknown.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.UnknownScannerException")
    );

    // The old name is gone: NotServingRegionException, then the client finds the new region.
    let get = |name: Bytes, row: &'static [u8]| pb::GetRequest {
        region: region(name),
        get: pb::Get {
            row: Bytes::from_static(row),
            ..Default::default()
        },
    };
    let r = c.call_raw("Get", &get(low.clone(), b"b").encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.NotServingRegionException")
    );
    let lower = locate(&mut c, "t", "b");
    let upper = locate(&mut c, "t", "g");
    assert!(lower != low && upper != low && lower != upper);
    let got: pb::GetResponse = c.call("Get", &get(upper.clone(), b"g"));
    assert_eq!(
        got.result.unwrap().cell[0].value.as_deref(),
        Some(&b"g"[..])
    );
    // A next_call_seq out of order closes the scanner.
    let open = pb::ScanRequest {
        region: Some(region(upper)),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(1),
        ..Default::default()
    };
    let s: pb::ScanResponse = c.call("Scan", &open);
    let skipped = pb::ScanRequest {
        scanner_id: s.scanner_id,
        number_of_rows: Some(1),
        next_call_seq: Some(5),
        ..Default::default()
    };
    let r = c.call_raw("Scan", &skipped.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException")
    );
}

#[test]
fn connection_cap_budget_and_metrics() {
    let mut config = Config::default();
    config.limits.max_connections = 2;
    config.limits.max_message = 64 * 1024;
    config.limits.budget = Budget::new(4096);
    let (server, http) = Server::start_with(config, true);
    let addr = server.addr;
    let ask = |c: &mut Conn| {
        let id: pb::GetClusterIdResponse = c.call("GetClusterId", &pb::GetClusterIdRequest {});
        assert!(id.cluster_id.is_some());
    };
    // At the cap, a newcomer takes the slot of the connection idle longest.
    let mut a = Conn::open(addr, "ClientMetaService", false);
    ask(&mut a);
    std::thread::sleep(Duration::from_millis(20));
    let mut b = Conn::open(addr, "ClientMetaService", false);
    ask(&mut b);
    let mut c = Conn::open(addr, "ClientMetaService", false);
    ask(&mut c);
    assert!(closed(&mut a.s), "the idlest connection was closed");
    ask(&mut b);
    // A call the in-flight budget cannot hold: CallQueueTooBigException (the client retries
    // it later); the connection goes on.
    let r = c.call_raw("GetClusterId", &vec![0u8; 8 * 1024], &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.CallQueueTooBigException")
    );
    assert_eq!(r.header.exception.unwrap().do_not_retry, Some(false));
    ask(&mut c);
    let r = c.call_raw("NoSuchMethod", &[], &[]);
    assert!(r.header.exception.is_some());

    let text = metrics(http.unwrap());
    for want in [
        "redbase_native_refused_total{reason=\"budget\"} 1",
        "redbase_connections_evicted_total{gateway=\"native\"} 1",
        "redbase_open_connections{gateway=\"native\"} 2",
        "gateway=\"native\",method=\"ClientMetaService.GetClusterId\",outcome=\"ok\"",
        "gateway=\"native\",method=\"ClientMetaService.other\",outcome=\"error\"",
        "redbase_open_scanners{gateway=\"native\"} 0",
    ] {
        assert!(text.contains(want), "/metrics lacks {want}:\n{text}");
    }
}

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

/// A native connection over TLS presenting `client`'s certificate (none: no client auth).
fn tls_conn(
    addr: std::net::SocketAddr,
    ca: &str,
    client: Option<&security::Leaf>,
    service: &str,
) -> Box<dyn security::Stream> {
    let mut s = security::tls(addr, ca, client);
    s.write_all(&connection_header(service, false)).unwrap();
    s
}

fn tls_call(s: &mut dyn security::Stream, id: u32, method: &str, param: &[u8]) -> Response {
    s.write_all(&call_frame(id, method, param, &[])).unwrap();
    let r = read_response(s);
    assert_eq!(r.header.call_id, Some(id));
    r
}

/// The exception class of a connection's first answer.
fn first_exception(s: &mut dyn security::Stream) -> Option<String> {
    read_response(s).exception_class()
}

#[test]
fn with_an_auth_file_callers_come_from_client_certificates() {
    use redbase::engine::{AclScope, Actions, TableName};
    use redbase::security::{hash_token, Auth, LimiterConfig, Security, Tls, TlsFiles, Users};
    let dir = tempfile::tempdir().unwrap();
    let ca = security::Ca::new("native test CA");
    let server_leaf = ca.leaf("localhost");
    let (alice, carol) = (ca.leaf("alice"), ca.leaf("carol"));
    let tls = Tls::load(TlsFiles {
        cert: security::write(dir.path(), "server.crt", &server_leaf.cert),
        key: security::write(dir.path(), "server.key", &server_leaf.key),
        client_ca: Some(security::write(dir.path(), "ca.crt", &ca.pem)),
        require_client_cert: false,
    })
    .unwrap();
    let text = format!(
        "[users.alice]\ntokens = [\"{}\"]\nsuperuser = true\n[users.carol]\ntokens = [\"{}\"]\n",
        hash_token("alice-token-0123456789"),
        hash_token("carol-token-0123456789")
    );
    let users = Users::parse(&text, std::path::Path::new("users.toml")).unwrap();
    let config = Config {
        security: Security {
            tls: Some(tls.clone()),
            auth: Some(std::sync::Arc::new(Auth::new(
                users,
                LimiterConfig::default(),
            ))),
            ..Security::default()
        },
        ..Config::default()
    };
    let (server, _) = Server::start_with(config, false);
    let addr = server.addr;
    // SIMPLE (plaintext, or TLS without a certificate) is refused on every service.
    for service in [
        "ClientService",
        "MasterService",
        "ClientMetaService",
        "AdminService",
    ] {
        assert_eq!(
            refused(addr, &connection_header(service, true)).as_deref(),
            Some("org.apache.hadoop.hbase.security.AccessDeniedException"),
            "{service}"
        );
        let mut anon = tls_conn(addr, &ca.pem, None, service);
        assert_eq!(
            first_exception(&mut *anon).as_deref(),
            Some("org.apache.hadoop.hbase.security.AccessDeniedException")
        );
    }
    // The registry preamble tells only the cluster id, to anyone (as HBase's does).
    let mut s = stream(addr);
    s.write_all(b"Regist").unwrap();
    assert_eq!(read_response(&mut s).header.call_id, Some(u32::MAX));

    // alice (a superuser by her certificate's name) creates a table and writes to it.
    let mut master = tls_conn(addr, &ca.pem, Some(&alice), "MasterService");
    let create = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(table_name("secret")),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"f"),
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    };
    let r = tls_call(&mut *master, 1, "CreateTable", &create.encode_to_vec());
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let name = server.engine.regions("secret").unwrap()[0].meta.clone();
    let region_name = Bytes::from(redbase::native::regions::name_of(&name));
    let mut client = tls_conn(addr, &ca.pem, Some(&alice), "ClientService");
    let put = pb::MutateRequest {
        region: region(region_name.clone()),
        mutation: put("r", "v"),
        ..Default::default()
    };
    let r = tls_call(&mut *client, 1, "Mutate", &put.encode_to_vec());
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let scan = pb::ScanRequest {
        region: Some(region(region_name.clone())),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(0),
        ..Default::default()
    };
    let r = tls_call(&mut *client, 2, "Scan", &scan.encode_to_vec());
    let alices_scanner = pb::ScanResponse::decode(r.message).unwrap().scanner_id;

    // carol has no grant: her certificate gets her in, the ACL keeps her out.
    let mut carols = tls_conn(addr, &ca.pem, Some(&carol), "ClientService");
    let get = pb::GetRequest {
        region: region(region_name.clone()),
        get: pb::Get {
            row: Bytes::from_static(b"r"),
            ..Default::default()
        },
    };
    let r = tls_call(&mut *carols, 1, "Get", &get.encode_to_vec());
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    assert!(format!("{:?}", r.header.exception).contains("carol"));
    let mut carols_master = tls_conn(addr, &ca.pem, Some(&carol), "MasterService");
    let r = tls_call(
        &mut *carols_master,
        1,
        "SetBalancerRunning",
        &pb::SwitchRequest {
            on: false,
            synchronous: None,
        }
        .encode_to_vec(),
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    // With a read grant she reads, but she cannot go on with alice's scanner.
    server
        .engine
        .grant(
            "carol",
            AclScope::Table(TableName::parse("secret").unwrap()),
            Actions::parse("R").unwrap(),
        )
        .unwrap();
    let r = tls_call(&mut *carols, 2, "Get", &get.encode_to_vec());
    let got = pb::GetResponse::decode(r.message).unwrap();
    assert_eq!(got.result.unwrap().cell.len(), 1);
    let next = pb::ScanRequest {
        scanner_id: alices_scanner,
        number_of_rows: Some(10),
        next_call_seq: Some(0),
        ..Default::default()
    };
    let r = tls_call(&mut *carols, 3, "Scan", &next.encode_to_vec());
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.UnknownScannerException")
    );
    let r = tls_call(&mut *client, 3, "Scan", &next.encode_to_vec());
    assert_eq!(
        pb::ScanResponse::decode(r.message).unwrap().results.len(),
        1
    );
    // A write needs W.
    let r = tls_call(&mut *carols, 4, "Mutate", &put.encode_to_vec());
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
}

#[test]
fn require_tls_refuses_plaintext_native_connections() {
    use redbase::security::{Security, Tls, TlsFiles};
    let dir = tempfile::tempdir().unwrap();
    let ca = security::Ca::new("native test CA");
    let leaf = ca.leaf("localhost");
    let tls = Tls::load(TlsFiles {
        cert: security::write(dir.path(), "server.crt", &leaf.cert),
        key: security::write(dir.path(), "server.key", &leaf.key),
        client_ca: None,
        require_client_cert: false,
    })
    .unwrap();
    let config = Config {
        security: Security {
            tls: Some(tls),
            require_tls: true,
            ..Security::default()
        },
        ..Config::default()
    };
    let (server, _) = Server::start_with(config, false);
    assert_eq!(
        refused(server.addr, &connection_header("ClientMetaService", false)).as_deref(),
        Some("org.apache.hadoop.hbase.ipc.FatalConnectionException")
    );
    assert_eq!(
        refused(server.addr, b"Regist").as_deref(),
        Some("org.apache.hadoop.hbase.ipc.FatalConnectionException")
    );
    // Without an auth file a TLS connection runs anonymously, as plaintext would.
    let mut meta = tls_conn(server.addr, &ca.pem, None, "ClientMetaService");
    let r = tls_call(
        &mut *meta,
        1,
        "GetClusterId",
        &pb::GetClusterIdRequest {}.encode_to_vec(),
    );
    let id = pb::GetClusterIdResponse::decode(r.message).unwrap();
    assert_eq!(id.cluster_id.as_deref(), Some(server.engine.cluster_id()));
}

/// Mutated frames of real calls (bytes flipped, inserted, cut; lengths changed), each on its own
/// connection whose client then stops sending: the server answers or closes every one within
/// seconds, never hangs or dies, and serves a good call after all of them.
#[test]
fn mutated_frames_are_answered_or_closed() {
    use rand::{Rng, SeedableRng};
    let server = Server::start(256 * 1024);
    let addr = server.addr;
    create_table(addr, "t");
    let mut c = Conn::open(addr, "ClientService", false);
    let low = locate(&mut c, "t", "a");
    let get = pb::GetRequest {
        region: region(low.clone()),
        get: pb::Get {
            row: Bytes::from_static(b"a"),
            ..Default::default()
        },
    };
    let multi = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region(low.clone()),
            action: vec![pb::Action {
                index: Some(0),
                mutation: Some(pb::MutationProto {
                    mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
                    associated_cell_count: Some(1),
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let scan = pb::ScanRequest {
        region: Some(region(low)),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(10),
        ..Default::default()
    };
    let seeds: Vec<Vec<u8>> = vec![
        call_frame(5, "Get", &get.encode_to_vec(), &[]),
        call_frame(
            6,
            "Multi",
            &multi.encode_to_vec(),
            &key_value(b"a", b"f", b"q", b"v"),
        ),
        call_frame(7, "Scan", &scan.encode_to_vec(), &[]),
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(39);
    let started = std::time::Instant::now();
    for case in 0..300 {
        let mut frame = seeds[case % seeds.len()].clone();
        match rng.random_range(0..5) {
            0 => {
                for _ in 0..rng.random_range(1..8) {
                    let i = rng.random_range(0..frame.len());
                    frame[i] = rng.random();
                }
            }
            1 => frame.truncate(rng.random_range(0..frame.len())),
            2 => {
                let at = rng.random_range(4..frame.len());
                let junk: Vec<u8> = (0..rng.random_range(1..64)).map(|_| rng.random()).collect();
                frame.splice(at..at, junk);
            }
            3 => {
                let len: u32 = rng.random_range(0..1 << 20);
                frame[..4].copy_from_slice(&len.to_be_bytes());
            }
            _ => {
                // A good frame followed by random bytes.
                frame.extend((0..rng.random_range(1..32)).map(|_| rng.random::<u8>()));
            }
        }
        let mut s = stream(addr);
        let mut bytes = connection_header("ClientService", case % 2 == 0);
        bytes.extend_from_slice(&frame);
        let _ = s.write_all(&bytes);
        let _ = s.shutdown(std::net::Shutdown::Write);
        // Whatever comes back, the server must end the connection.
        let mut sink = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match std::io::Read::read(&mut s, &mut buf) {
                Ok(0) => break,
                Ok(n) => sink.extend_from_slice(&buf[..n]),
                Err(e) => panic!("case {case}: the server neither answered nor closed: {e}"),
            }
        }
    }
    assert!(started.elapsed() < Duration::from_secs(120));
    let id: pb::GetClusterIdResponse = Conn::open(addr, "ClientMetaService", false)
        .call("GetClusterId", &pb::GetClusterIdRequest {});
    assert!(id.cluster_id.is_some());
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

/// A server with TLS and an auth file: alice is a superuser, carol and dave plain users.
fn secured_server() -> (Server, security::Ca, tempfile::TempDir) {
    use redbase::security::{hash_token, Auth, LimiterConfig, Security, Tls, TlsFiles, Users};
    let dir = tempfile::tempdir().unwrap();
    let ca = security::Ca::new("native acl CA");
    let leaf = ca.leaf("localhost");
    let tls = Tls::load(TlsFiles {
        cert: security::write(dir.path(), "server.crt", &leaf.cert),
        key: security::write(dir.path(), "server.key", &leaf.key),
        client_ca: Some(security::write(dir.path(), "ca.crt", &ca.pem)),
        require_client_cert: false,
    })
    .unwrap();
    let mut text = format!(
        "[users.alice]\ntokens = [\"{}\"]\nsuperuser = true\n",
        hash_token("alice-token-0123456789")
    );
    for u in ["carol", "dave"] {
        text += &format!(
            "[users.{u}]\ntokens = [\"{}\"]\n",
            hash_token(&format!("{u}-token-0123456789"))
        );
    }
    let users = Users::parse(&text, std::path::Path::new("users.toml")).unwrap();
    let config = Config {
        security: Security {
            tls: Some(tls),
            auth: Some(std::sync::Arc::new(Auth::new(
                users,
                LimiterConfig::default(),
            ))),
            ..Security::default()
        },
        ..Config::default()
    };
    (Server::start_with(config, false).0, ca, dir)
}

fn table_permission(table: &str, actions: &[pb::permission::Action]) -> pb::Permission {
    pb::Permission {
        r#type: pb::permission::Type::Table as i32,
        table_permission: Some(pb::TablePermission {
            table_name: Some(table_name(table)),
            action: actions.iter().map(|a| *a as i32).collect(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn grant_request(user: &str, permission: pb::Permission, merge: bool) -> Vec<u8> {
    pb::GrantRequest {
        user_permission: pb::UserPermission {
            user: Bytes::from(user.to_string()),
            permission,
        },
        merge_existing_permissions: Some(merge),
    }
    .encode_to_vec()
}

#[test]
fn grants_through_master_service_follow_hbases_rules() {
    use pb::permission::Action::{Admin, Read, Write};
    let (server, ca, _dir) = secured_server();
    let addr = server.addr;
    let alice = ca.leaf("alice");
    let carol = ca.leaf("carol");
    let mut admin = tls_conn(addr, &ca.pem, Some(&alice), "MasterService");
    let create = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(table_name("g")),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"f"),
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    };
    let r = tls_call(&mut *admin, 1, "CreateTable", &create.encode_to_vec());
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);

    // alice (a superuser) grants carol R, then W merged into it.
    let r = tls_call(
        &mut *admin,
        2,
        "Grant",
        &grant_request("carol", table_permission("g", &[Read]), false),
    );
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let r = tls_call(
        &mut *admin,
        3,
        "Grant",
        &grant_request("carol", table_permission("g", &[Write]), true),
    );
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let table = redbase::engine::AclScope::Table(redbase::engine::TableName::parse("g").unwrap());
    let carols: Vec<_> = server
        .engine
        .grants()
        .into_iter()
        .filter(|g| g.user == "carol")
        .collect();
    assert_eq!(carols.len(), 1);
    assert_eq!(
        (carols[0].scope.clone(), carols[0].actions.to_string()),
        (table, "RW".into())
    );

    // The listing at the table's scope, for one user.
    let list = pb::GetUserPermissionsRequest {
        r#type: Some(pb::permission::Type::Table as i32),
        table_name: Some(table_name("g")),
        user_name: Some(Bytes::from_static(b"carol")),
        ..Default::default()
    };
    let r = tls_call(&mut *admin, 4, "GetUserPermissions", &list.encode_to_vec());
    let got = pb::GetUserPermissionsResponse::decode(r.message).unwrap();
    assert_eq!(got.user_permission.len(), 1);
    let tp = got.user_permission[0]
        .permission
        .table_permission
        .clone()
        .unwrap();
    assert_eq!(tp.action, vec![Read as i32, Write as i32]);
    assert_eq!(tp.table_name, Some(table_name("g")));

    // carol: no A on the table, so she may neither grant nor list; she may ask about herself.
    let mut carols = tls_conn(addr, &ca.pem, Some(&carol), "MasterService");
    let r = tls_call(
        &mut *carols,
        1,
        "Grant",
        &grant_request("dave", table_permission("g", &[Read]), false),
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    let r = tls_call(&mut *carols, 2, "GetUserPermissions", &list.encode_to_vec());
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    let ask = |user: Option<&str>| pb::HasUserPermissionsRequest {
        user_name: user.map(|u| Bytes::from(u.to_string())),
        permission: vec![
            table_permission("g", &[Read]),
            table_permission("g", &[Read, Write]),
            table_permission("g", &[Admin]),
        ],
    };
    let r = tls_call(
        &mut *carols,
        3,
        "HasUserPermissions",
        &ask(None).encode_to_vec(),
    );
    let has = pb::HasUserPermissionsResponse::decode(r.message).unwrap();
    assert_eq!(has.has_user_permission, vec![true, true, false]);
    let r = tls_call(
        &mut *carols,
        4,
        "HasUserPermissions",
        &ask(Some("dave")).encode_to_vec(),
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    // alice asks about dave (nothing) and about herself (a superuser: everything).
    let r = tls_call(
        &mut *admin,
        5,
        "HasUserPermissions",
        &ask(Some("dave")).encode_to_vec(),
    );
    let has = pb::HasUserPermissionsResponse::decode(r.message).unwrap();
    assert_eq!(has.has_user_permission, vec![false, false, false]);
    let r = tls_call(
        &mut *admin,
        6,
        "HasUserPermissions",
        &ask(None).encode_to_vec(),
    );
    let has = pb::HasUserPermissionsResponse::decode(r.message).unwrap();
    assert_eq!(has.has_user_permission, vec![true, true, true]);

    // Revoke W: R remains; a superuser's grants cannot be changed.
    let revoke = pb::RevokeRequest {
        user_permission: pb::UserPermission {
            user: Bytes::from_static(b"carol"),
            permission: table_permission("g", &[Write]),
        },
    };
    let r = tls_call(&mut *admin, 7, "Revoke", &revoke.encode_to_vec());
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let r = tls_call(
        &mut *carols,
        5,
        "HasUserPermissions",
        &ask(None).encode_to_vec(),
    );
    let has = pb::HasUserPermissionsResponse::decode(r.message).unwrap();
    assert_eq!(has.has_user_permission, vec![true, false, false]);
    let r = tls_call(
        &mut *admin,
        8,
        "Grant",
        &grant_request("alice", table_permission("g", &[Read]), false),
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );

    // What redbase's grants cannot hold, and what is not one, is refused naming why.
    let mut column = table_permission("g", &[Read]);
    column.table_permission.as_mut().unwrap().family = Some(Bytes::from_static(b"f"));
    let bad_action = pb::Permission {
        r#type: pb::permission::Type::Global as i32,
        global_permission: Some(pb::GlobalPermission { action: vec![9] }),
        ..Default::default()
    };
    let missing = table_permission("nope", &[Read]);
    for (i, (p, class, says)) in [
        (
            column,
            "DoNotRetryIOException",
            "column family or qualifier",
        ),
        (
            bad_action,
            "DoNotRetryIOException",
            "unknown permission action 9",
        ),
        (missing, "TableNotFoundException", "nope"),
    ]
    .into_iter()
    .enumerate()
    {
        let r = tls_call(
            &mut *admin,
            20 + i as u32,
            "Grant",
            &grant_request("carol", p, false),
        );
        let e = r.header.exception.unwrap();
        assert!(
            e.exception_class_name.as_deref().unwrap().ends_with(class),
            "{e:?}"
        );
        assert!(format!("{e:?}").contains(says), "{e:?}");
    }
    // Merges: the engine never merges regions, and says so.
    let merge = pb::MergeTableRegionsRequest::default();
    let r = tls_call(&mut *admin, 30, "MergeTableRegions", &merge.encode_to_vec());
    let e = r.header.exception.unwrap();
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    assert!(format!("{e:?}").contains("MergeTableRegions"), "{e:?}");
}

#[test]
fn grants_without_authentication_are_kept_and_listed() {
    use pb::permission::Action::{Admin, Read};
    let server = Server::start(1 << 20);
    let mut master = Conn::open(server.addr, "MasterService", false);
    let ns = pb::Permission {
        r#type: pb::permission::Type::Namespace as i32,
        namespace_permission: Some(pb::NamespacePermission {
            namespace_name: Some(Bytes::from_static(b"default")),
            action: vec![Read as i32, Admin as i32],
        }),
        ..Default::default()
    };
    let r = master.call_raw("Grant", &grant_request("erin", ns, false), &[]);
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let list: pb::GetUserPermissionsResponse = master.call(
        "GetUserPermissions",
        &pb::GetUserPermissionsRequest {
            r#type: Some(pb::permission::Type::Namespace as i32),
            namespace_name: Some(Bytes::from_static(b"default")),
            ..Default::default()
        },
    );
    assert_eq!(list.user_permission.len(), 1);
    assert_eq!(list.user_permission[0].user, Bytes::from_static(b"erin"));
    let np = list.user_permission[0]
        .permission
        .namespace_permission
        .clone()
        .unwrap();
    assert_eq!(np.action, vec![Read as i32, Admin as i32]);
    // The global listing holds no namespace grant.
    let global: pb::GetUserPermissionsResponse = master.call(
        "GetUserPermissions",
        &pb::GetUserPermissionsRequest::default(),
    );
    assert!(global.user_permission.is_empty());
    // A parameter that is not a GrantRequest: DoNotRetryIOException, the connection goes on.
    let r = master.call_raw("Grant", b"\xff\xff\xff", &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    let _: pb::IsMasterRunningResponse =
        master.call("IsMasterRunning", &pb::IsMasterRunningRequest {});
}
