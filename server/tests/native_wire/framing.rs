//! The framing byte by byte: the registry preamble, bad preambles and connection headers,
//! hostile calls (lying lengths, frames over the bound, unknown services and methods, cell
//! blocks that claim more than they hold), mutated frames, the connection cap and the
//! in-flight budget, each answered with HBase's exception or the connection closed.

use std::io::Write;
use std::time::Duration;

use bytes::Bytes;
use prost::Message;
use redbase::native::pb;
use redbase::server::Config;
use redbase::thrift::Budget;

use crate::native_support::*;

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
