//! HBase's native RPC under mutated input, through a real server on loopback: whole
//! connection openings (preamble, connection header, one call) from the seed corpus in
//! `tests/fuzz_corpus/native/`, mutated anywhere or only in the call, sent and half-closed. The
//! server must answer or close, within a bound, never hang; it must go on serving; and once
//! the clients are gone, no connection slot stays held (the open-connections gauge returns to
//! zero).
//!
//! The corpus is the calls HBase's client makes at startup and for reads and writes (the
//! registry, hbase:meta lookups, Admin, Get, Mutate with a KeyValueCodec cell block, Multi,
//! Scan), written by [`seeds`] in the client's framing; `FUZZ_WRITE_CORPUS=1` rewrites it.
//! The run adds the same calls naming the live server's region, so mutations reach the engine.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use bytes::Bytes;
use proptest::prelude::*;
use prost::Message;
use redbase::native::pb;
use redbase::server::Config;

use super::corpus::{self, Mutation};
use super::native_support::{
    call_frame, connection_header, create_table, key_value, locate, metrics, region, table_name,
    Conn, Server,
};
use super::runner::{check, note};

/// How long the server may take to answer or close.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(20);

/// The region name the written corpus uses (a region of table `t` with id 1 << 20).
fn corpus_region() -> Bytes {
    Bytes::from(redbase::native::regions::region_name("t", b"", 1 << 20))
}

fn opening(service: &str, codec: bool, frame: Vec<u8>) -> Vec<u8> {
    let mut out = connection_header(service, codec);
    out.extend_from_slice(&frame);
    out
}

/// The seed openings, by name: what HBase's client sends, naming `region` for table `t`.
pub fn seeds(region_name: &Bytes) -> Vec<(String, Vec<u8>)> {
    let r = || region(region_name.clone());
    let meta = || region(Bytes::from_static(b"hbase:meta,,1"));
    let get = |row: &'static [u8], spec: pb::RegionSpecifier| pb::GetRequest {
        region: spec,
        get: pb::Get {
            row: Bytes::from_static(row),
            ..Default::default()
        },
    };
    let put_with_cells = pb::MutationProto {
        row: Some(Bytes::from_static(b"a")),
        mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
        associated_cell_count: Some(1),
        ..Default::default()
    };
    let cells = key_value(b"a", b"f", b"q", b"v");
    let grant = pb::GrantRequest {
        user_permission: pb::UserPermission {
            user: Bytes::from_static(b"fz"),
            permission: pb::Permission {
                r#type: pb::permission::Type::Table as i32,
                table_permission: Some(pb::TablePermission {
                    table_name: Some(table_name("t")),
                    action: vec![pb::permission::Action::Read as i32],
                    ..Default::default()
                }),
                ..Default::default()
            },
        },
        merge_existing_permissions: Some(true),
    };
    let create = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(table_name("fz")),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"f"),
                ..Default::default()
            }],
            ..Default::default()
        },
        split_keys: vec![Bytes::from_static(b"m")],
        ..Default::default()
    };
    let lookup = pb::ScanRequest {
        region: Some(meta()),
        scan: Some(pb::Scan {
            start_row: Some(Bytes::from_static(b"t,a,99999999999999")),
            stop_row: Some(Bytes::from_static(b"t,,")),
            reversed: Some(true),
            ..Default::default()
        }),
        number_of_rows: Some(1),
        ..Default::default()
    };
    let scan = pb::ScanRequest {
        region: Some(r()),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(10),
        ..Default::default()
    };
    let multi = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: r(),
            action: vec![
                pb::Action {
                    index: Some(0),
                    mutation: Some(put_with_cells.clone()),
                    ..Default::default()
                },
                pb::Action {
                    index: Some(1),
                    get: Some(get(b"a", r()).get),
                    ..Default::default()
                },
            ],
            ..Default::default()
        }],
        ..Default::default()
    };
    let call = |id, method: &str, m: &dyn Fn() -> Vec<u8>| call_frame(id, method, &m(), &[]);
    let mut out = vec![
        ("registry-Regist".to_string(), b"Regist".to_vec()),
        (
            "meta-GetClusterId".into(),
            opening(
                "ClientMetaService",
                false,
                call(1, "GetClusterId", &|| {
                    pb::GetClusterIdRequest {}.encode_to_vec()
                }),
            ),
        ),
        (
            "meta-GetMetaRegionLocations".into(),
            opening(
                "ClientMetaService",
                false,
                call(2, "GetMetaRegionLocations", &|| {
                    pb::GetMetaRegionLocationsRequest {}.encode_to_vec()
                }),
            ),
        ),
        (
            "master-CreateTable".into(),
            opening(
                "MasterService",
                false,
                call(3, "CreateTable", &|| create.encode_to_vec()),
            ),
        ),
        (
            "master-GetTableDescriptors".into(),
            opening(
                "MasterService",
                false,
                call(4, "GetTableDescriptors", &|| {
                    pb::GetTableDescriptorsRequest {
                        table_names: vec![table_name("t")],
                        ..Default::default()
                    }
                    .encode_to_vec()
                }),
            ),
        ),
        (
            "master-GetClusterStatus".into(),
            opening(
                "MasterService",
                false,
                call(5, "GetClusterStatus", &|| {
                    pb::GetClusterStatusRequest::default().encode_to_vec()
                }),
            ),
        ),
        (
            "master-Grant".into(),
            opening(
                "MasterService",
                false,
                call(6, "Grant", &|| grant.encode_to_vec()),
            ),
        ),
        (
            "admin-GetOnlineRegion".into(),
            opening(
                "AdminService",
                false,
                call(7, "GetOnlineRegion", &|| pb::Empty {}.encode_to_vec()),
            ),
        ),
        (
            "client-Get-meta".into(),
            opening(
                "ClientService",
                false,
                call(8, "Get", &|| get(b"t", meta()).encode_to_vec()),
            ),
        ),
        (
            "client-Scan-meta-lookup".into(),
            opening(
                "ClientService",
                true,
                call(9, "Scan", &|| lookup.encode_to_vec()),
            ),
        ),
        (
            "client-Get".into(),
            opening(
                "ClientService",
                false,
                call(10, "Get", &|| get(b"a", r()).encode_to_vec()),
            ),
        ),
        (
            "client-Scan".into(),
            opening(
                "ClientService",
                true,
                call(11, "Scan", &|| scan.encode_to_vec()),
            ),
        ),
    ];
    let mutate = pb::MutateRequest {
        region: r(),
        mutation: put_with_cells,
        ..Default::default()
    };
    out.push((
        "client-Mutate-cellblock".into(),
        opening(
            "ClientService",
            true,
            call_frame(12, "Mutate", &mutate.encode_to_vec(), &cells),
        ),
    ));
    out.push((
        "client-Multi-cellblock".into(),
        opening(
            "ClientService",
            true,
            call_frame(13, "Multi", &multi.encode_to_vec(), &cells),
        ),
    ));
    out
}

pub fn dir() -> PathBuf {
    corpus::dir().join("native")
}

/// The written corpus, by file name.
pub fn load() -> Vec<Vec<u8>> {
    let seeds = corpus::load_from_raw(&dir());
    assert!(!seeds.is_empty(), "the native corpus {}", dir().display());
    seeds
}

/// The corpus files hold what [`seeds`] writes: a change to the framing or the messages
/// shows here. `FUZZ_WRITE_CORPUS=1` rewrites them.
pub fn corpus_is_current() {
    let write = std::env::var_os("FUZZ_WRITE_CORPUS").is_some();
    let dir = dir();
    if write {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let mut stale = Vec::new();
    for (name, bytes) in seeds(&corpus_region()) {
        let file = dir.join(format!("{name}.hex"));
        let mut text = format!(
            "# HBase's native RPC: {name}, a connection's first bytes as hbase-client 2.6 frames \
             them (preamble, connection header, one call).\n"
        );
        for line in bytes.chunks(32) {
            text.push_str(&corpus::hex(line));
            text.push('\n');
        }
        if write {
            std::fs::write(&file, text).unwrap();
        } else if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
            stale.push(file.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "native corpus files differ from what seeds() writes (rerun with FUZZ_WRITE_CORPUS=1): {stale:?}"
    );
}

/// Sends `bytes`, half-closes, and reads until the server closes; false if it neither
/// closes nor stops sending within [`CLOSE_TIMEOUT`].
fn answered_or_closed(addr: SocketAddr, bytes: &[u8]) -> bool {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(CLOSE_TIMEOUT)).unwrap();
    // The server may close before taking every byte (a bad preamble): not a failure.
    let _ = s.write_all(bytes);
    let _ = s.shutdown(Shutdown::Write);
    let started = Instant::now();
    let mut buf = [0u8; 16 * 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) if started.elapsed() < CLOSE_TIMEOUT => {}
            Ok(_) => return false,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted
                ) =>
            {
                return true
            }
            Err(_) => return false,
        }
    }
}

/// The value of `redbase_open_connections{gateway="native"}` in a /metrics text.
fn open_native(text: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with("redbase_open_connections{") && l.contains("gateway=\"native\""))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

/// Where the call starts in an opening (past the preamble and the connection header).
fn call_offset(opening: &[u8]) -> usize {
    if opening.len() < 10 {
        return 0;
    }
    let len = u32::from_be_bytes(opening[6..10].try_into().unwrap()) as usize;
    (10 + len).min(opening.len())
}

pub fn mutated_openings_are_answered_or_closed() {
    let mut config = Config::default();
    config.limits.max_message = 256 * 1024;
    let (server, http) = Server::start_with(config, true);
    let (addr, http) = (server.addr, http.unwrap());
    create_table(addr, "t");
    let live = locate(&mut Conn::open(addr, "ClientService", false), "t", "a");
    let mut all: Vec<Vec<u8>> = load();
    all.extend(seeds(&live).into_iter().map(|(_, b)| b));
    let others: Vec<&[u8]> = all.iter().map(|s| s.as_slice()).collect();
    let strategy = (corpus::mutations(), any::<bool>());
    check(
        "native_mutated_openings",
        1000,
        strategy,
        |((i, muts), whole): ((usize, Vec<Mutation>), bool)| {
            let seed = &all[i % all.len()];
            // Half the cases keep the preamble and header and mutate only the call.
            let bytes = if whole {
                corpus::apply(seed, &muts, &others)
            } else {
                let at = call_offset(seed);
                let mut b = seed[..at].to_vec();
                b.extend(corpus::apply(&seed[at..], &muts, &others));
                b
            };
            note("native opening", &bytes);
            prop_assert!(
                answered_or_closed(addr, &bytes),
                "the server neither answered nor closed: {}",
                corpus::hex(&bytes)
            );
            Ok(())
        },
    );
    // Still serving, and every connection's slot given back.
    let id: pb::GetClusterIdResponse = Conn::open(addr, "ClientMetaService", false)
        .call("GetClusterId", &pb::GetClusterIdRequest {});
    assert!(id.cluster_id.is_some());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let open = open_native(&metrics(http));
        if open == Some(0.0) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "native connections still open after the run: {open:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
