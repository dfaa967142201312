//! The Thrift1 server in-process on 127.0.0.1:0, driven by the client generated from
//! idl/hbase1.thrift: wire types match the IDL, limits hold, shutdown is graceful.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use redbase::engine::{Engine, EngineConfig};
use redbase::generated::hbase1::*;
use redbase::scanners::ScannerLimits;
use redbase::server::{self, Config, Listeners};
use redbase::thrift::Limits;
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{ReadHalf, TIoChannel, TTcpChannel, WriteHalf};

type Client = HbaseSyncClient<
    TBinaryInputProtocol<ReadHalf<TTcpChannel>>,
    TBinaryOutputProtocol<WriteHalf<TTcpChannel>>,
>;

struct TestServer {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl TestServer {
    fn start(config: Config) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async move {
                let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx.send(l.local_addr().unwrap()).unwrap();
                server::run(
                    engine.clone(),
                    Listeners {
                        thrift1: Some(l),
                        thrift2: None,
                        http: None,
                    },
                    config,
                    async move {
                        let _ = stop_rx.await;
                    },
                )
                .await;
                engine.close();
            });
        });
        TestServer {
            addr: addr_rx.recv().unwrap(),
            stop: Some(stop),
            thread: Some(thread),
            _dir: dir,
        }
    }

    fn client(&self) -> Client {
        let mut c = TTcpChannel::new();
        c.open(self.addr.to_string()).unwrap();
        let (r, w) = c.split().unwrap();
        HbaseSyncClient::new(
            TBinaryInputProtocol::new(r, true),
            TBinaryOutputProtocol::new(w, true),
        )
    }

    fn stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A descriptor with the IDL's defaults (the Rust generator's `Default` does not apply them).
fn family(name: &str) -> ColumnDescriptor {
    ColumnDescriptor {
        name: Some(name.as_bytes().to_vec()),
        max_versions: Some(3),
        compression: Some("NONE".into()),
        in_memory: Some(false),
        bloom_filter_type: Some("NONE".into()),
        bloom_filter_vector_size: Some(0),
        bloom_filter_nb_hashes: Some(0),
        block_cache_enabled: Some(false),
        time_to_live: Some(i32::MAX),
    }
}

fn put(col: &str, v: &str) -> Mutation {
    Mutation {
        is_delete: Some(false),
        column: Some(col.as_bytes().to_vec()),
        value: Some(v.as_bytes().to_vec()),
        write_to_w_a_l: Some(true),
    }
}

#[test]
fn generated_types_match_the_idl() {
    let out = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = std::process::Command::new(root.join("idl/generate.sh"))
        .arg(out.path())
        .status()
        .expect("idl/generate.sh needs the thrift compiler (Debian: thrift-compiler)");
    assert!(status.success());
    for f in ["hbase1.rs", "hbase2.rs"] {
        let fresh = std::fs::read_to_string(out.path().join(f)).unwrap();
        let committed = std::fs::read_to_string(root.join("server/src/generated").join(f)).unwrap();
        assert!(
            fresh == committed,
            "server/src/generated/{f} is stale: run idl/generate.sh"
        );
    }
}

#[test]
fn a_generated_client_round_trips() {
    let server = TestServer::start(Config::default());
    let mut c = server.client();
    c.create_table(b"t".to_vec(), vec![family("f:")]).unwrap();
    c.mutate_row(
        b"t".to_vec(),
        b"r".to_vec(),
        vec![put("f:a", "1")],
        BTreeMap::new(),
    )
    .unwrap();
    let cells = c
        .get(
            b"t".to_vec(),
            b"r".to_vec(),
            b"f:a".to_vec(),
            BTreeMap::new(),
        )
        .unwrap();
    assert_eq!(cells[0].value.as_deref(), Some(&b"1"[..]));
    assert_eq!(c.get_thrift_server_type().unwrap(), TThriftServerType::ONE);
    match c.create_table(b"t".to_vec(), vec![family("f:")]) {
        Err(thrift::Error::User(e)) => assert!(e.downcast_ref::<AlreadyExists>().is_some()),
        other => panic!("expected AlreadyExists, got {other:?}"),
    }
    match c.scanner_get(12345) {
        Err(thrift::Error::User(e)) => assert!(e.downcast_ref::<IllegalArgument>().is_some()),
        other => panic!("expected IllegalArgument, got {other:?}"),
    }
}

/// Sends raw bytes and returns what the server answered before closing (or the timeout).
fn raw_exchange(addr: SocketAddr, bytes: &[u8]) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(bytes).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

#[test]
fn malformed_input_drops_only_that_connection() {
    let server = TestServer::start(Config {
        limits: Limits {
            max_message: 1024,
            ..Limits::default()
        },
        ..Config::default()
    });
    // Garbage, an oversized frame, a lying string length, an unsupported HTTP method.
    for bad in [
        &b"\x16\x03\x01\x02\x00garbage"[..],
        &[0, 0, 0x10, 0, 0x80, 1, 0, 1][..],
        &[0x80, 1, 0, 1, 0x7f, 0xff, 0xff, 0xff][..],
        &b"GET / HTTP/1.1\r\n\r\n"[..],
    ] {
        let reply = raw_exchange(server.addr, bad);
        assert!(
            reply.is_empty() || reply.starts_with(b"HTTP/1.1 400"),
            "unexpected reply {reply:?}"
        );
    }
    // A truncated message then close.
    {
        let mut s = TcpStream::connect(server.addr).unwrap();
        s.write_all(&[0x80, 1, 0, 1, 0, 0, 0, 3, b'g']).unwrap();
    }
    // The server still serves.
    let mut c = server.client();
    assert!(c.get_table_names().unwrap().is_empty());
}

#[test]
fn an_unknown_method_gets_an_application_exception() {
    let server = TestServer::start(Config::default());
    let mut msg = vec![0x80, 1, 0, 1];
    msg.extend_from_slice(&6i32.to_be_bytes());
    msg.extend_from_slice(b"nosuch");
    msg.extend_from_slice(&9i32.to_be_bytes());
    msg.push(0);
    let mut s = TcpStream::connect(server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(&msg).unwrap();
    let mut head = [0u8; 4];
    s.read_exact(&mut head).unwrap();
    assert_eq!(head, [0x80, 1, 0, 3], "an EXCEPTION reply");
    // The connection stays usable.
    let mut ok = vec![0x80, 1, 0, 1];
    ok.extend_from_slice(&13i32.to_be_bytes());
    ok.extend_from_slice(b"getTableNames");
    ok.extend_from_slice(&10i32.to_be_bytes());
    ok.push(0);
    s.write_all(&ok).unwrap();
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).unwrap();
    assert!(n > 0);
}

#[test]
fn idle_connections_are_closed() {
    let server = TestServer::start(Config {
        limits: Limits {
            idle_timeout: Duration::from_millis(300),
            ..Limits::default()
        },
        ..Config::default()
    });
    let mut s = TcpStream::connect(server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = [0u8; 1];
    assert_eq!(s.read(&mut buf).unwrap(), 0, "closed by the server");
}

#[test]
fn scanner_leases_expire() {
    let server = TestServer::start(Config {
        scanners: ScannerLimits {
            lease: Duration::from_millis(200),
            max_open: 2,
            ..ScannerLimits::default()
        },
        ..Config::default()
    });
    let mut c = server.client();
    c.create_table(b"t".to_vec(), vec![family("f")]).unwrap();
    let a = c
        .scanner_open(b"t".to_vec(), vec![], vec![], BTreeMap::new())
        .unwrap();
    let _b = c
        .scanner_open(b"t".to_vec(), vec![], vec![], BTreeMap::new())
        .unwrap();
    assert!(c
        .scanner_open(b"t".to_vec(), vec![], vec![], BTreeMap::new())
        .is_err());
    std::thread::sleep(Duration::from_millis(300));
    assert!(c.scanner_get(a).is_err(), "expired scanner");
    // Expired scanners free their slots.
    assert!(c
        .scanner_open(b"t".to_vec(), vec![], vec![], BTreeMap::new())
        .is_ok());
}

#[test]
fn shutdown_finishes_in_flight_calls_and_stops_accepting() {
    let mut server = TestServer::start(Config::default());
    let mut c = server.client();
    c.create_table(b"t".to_vec(), vec![family("f")]).unwrap();
    let addr = server.addr;
    let writer = std::thread::spawn(move || {
        let mut c = {
            let mut ch = TTcpChannel::new();
            ch.open(addr.to_string()).unwrap();
            let (r, w) = ch.split().unwrap();
            HbaseSyncClient::new(
                TBinaryInputProtocol::new(r, true),
                TBinaryOutputProtocol::new(w, true),
            )
        };
        let mut acked = 0;
        for i in 0..10_000 {
            let row = format!("r{i}").into_bytes();
            match c.mutate_row(b"t".to_vec(), row, vec![put("f:a", "v")], BTreeMap::new()) {
                Ok(()) => acked += 1,
                Err(_) => break,
            }
        }
        acked
    });
    std::thread::sleep(Duration::from_millis(300));
    server.stop();
    let acked = writer.join().unwrap();
    assert!(acked > 0);
    assert!(TcpStream::connect(addr).is_err(), "listener closed");
}
