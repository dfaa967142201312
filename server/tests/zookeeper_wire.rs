//! The ZooKeeper responder spoken byte by byte on loopback ports: a session's handshake, the
//! znodes HBase 2.6's ZKConnectionRegistry reads (decoded as HBase decodes them, then followed
//! to the native listener they name), watches accepted, changes refused with NOTREADONLY,
//! sessions resumed and expired; and hostile input (lying lengths, garbage handshakes, short
//! packets, unknown operations, mutated packets), each answered or closed, the server serving
//! after; the connection cap, the idle timeouts, the packet bound and the metrics; another
//! `zookeeper.znode.parent` (`--zookeeper-znode-parent`), served in process and through the
//! binary, and bad parents refused when the command line is read.

mod native_support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use native_support::{closed, metrics, Conn};
use prost::Message;
use rand::{Rng, SeedableRng};
use redbase::engine::{Engine, EngineConfig};
use redbase::native::pb;
use redbase::native::zookeeper::jute::{Reader, Writer};
use redbase::native::zookeeper::protocol::{
    err, op, ConnectRequest, ConnectResponse, Stat, PING_XID,
};
use redbase::native::zookeeper::{self, ZnodeParent, ZooKeeper, ZooKeeperLimits, ZooKeeperMetrics};
use redbase::native::ServerAddress;
use redbase::server::{self, Config, Listeners, NativeListeners};

/// A server with the native listener, the ZooKeeper responder and the operations listener.
struct Cluster {
    rpc: SocketAddr,
    zk: SocketAddr,
    http: SocketAddr,
    engine: Engine,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Cluster {
    fn start(mut config: Config) -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        config.advertised_host = Some("127.0.0.1".into());
        let (tx, rx) = std::sync::mpsc::channel();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let e = engine.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async move {
                let bind = || tokio::net::TcpListener::bind("127.0.0.1:0");
                let (rpc, zk, http) = (
                    bind().await.unwrap(),
                    bind().await.unwrap(),
                    bind().await.unwrap(),
                );
                tx.send((
                    rpc.local_addr().unwrap(),
                    zk.local_addr().unwrap(),
                    http.local_addr().unwrap(),
                ))
                .unwrap();
                let listeners = Listeners {
                    http: Some(http),
                    ..Listeners::default()
                };
                let native = NativeListeners {
                    rpc: Some(rpc),
                    zookeeper: Some(zk),
                };
                server::run_native(e, listeners, native, config, async move {
                    let _ = stop_rx.await;
                })
                .await;
            });
        });
        let (rpc, zk, http) = rx.recv().unwrap();
        Cluster {
            rpc,
            zk,
            http,
            engine,
            stop: Some(stop),
            thread: Some(thread),
            _dir: dir,
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        self.engine.close();
    }
}

/// The responder alone with `limits`, describing a server at 127.0.0.1:16020.
struct Responder {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Responder {
    fn start(limits: ZooKeeperLimits) -> Responder {
        let (tx, rx) = std::sync::mpsc::channel();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async move {
                let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(l.local_addr().unwrap()).unwrap();
                let server = ServerAddress {
                    host: "127.0.0.1".into(),
                    port: 16020,
                    start_code: 1,
                };
                let zk = ZooKeeper::new(
                    &ZnodeParent::default(),
                    "cid",
                    &server,
                    0,
                    limits,
                    ZooKeeperMetrics::default(),
                );
                zookeeper::run(l, Arc::new(zk), async move {
                    let _ = stop_rx.await;
                })
                .await;
            });
        });
        Responder {
            addr: rx.recv().unwrap(),
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Responder {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

fn stream(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

fn read_packet(s: &mut TcpStream) -> Vec<u8> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).unwrap();
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    body
}

fn connect_request(session_id: i64, password: Vec<u8>, read_only: Option<bool>) -> Vec<u8> {
    ConnectRequest {
        protocol_version: 0,
        last_zxid_seen: 0,
        timeout_ms: 90_000,
        session_id,
        password,
        read_only,
    }
    .encode()
}

/// One ZooKeeper session, past its handshake.
struct Zk {
    s: TcpStream,
    xid: i32,
    session: ConnectResponse,
}

/// A reply: its header and record.
struct ZkReply {
    xid: i32,
    zxid: i64,
    err: i32,
    body: Vec<u8>,
}

impl Zk {
    fn open(addr: SocketAddr) -> Zk {
        let mut s = stream(addr);
        s.write_all(&connect_request(0, vec![0; 16], Some(false)))
            .unwrap();
        let session = ConnectResponse::decode(&read_packet(&mut s)).unwrap();
        Zk { s, xid: 0, session }
    }

    fn send(&mut self, xid: i32, code: i32, record: &Writer) -> ZkReply {
        let mut packet = Writer::new();
        packet.int(xid).int(code).raw(record.as_bytes());
        self.s.write_all(&packet.packet()).unwrap();
        let body = read_packet(&mut self.s);
        let mut r = Reader::new(&body);
        let reply = ZkReply {
            xid: r.int("xid").unwrap(),
            zxid: r.long("zxid").unwrap(),
            err: r.int("err").unwrap(),
            body: body[16..].to_vec(),
        };
        assert_eq!(reply.xid, xid);
        reply
    }

    fn request(&mut self, code: i32, record: &Writer) -> ZkReply {
        self.xid += 1;
        self.send(self.xid, code, record)
    }

    fn path_op(&mut self, code: i32, path: &str) -> ZkReply {
        let mut w = Writer::body();
        w.string(path).bool(true);
        self.request(code, &w)
    }

    fn data(&mut self, path: &str) -> (Vec<u8>, Stat) {
        let r = self.path_op(op::GET_DATA, path);
        assert_eq!(r.err, err::OK, "getData {path}");
        let mut rd = Reader::new(&r.body);
        let data = rd.buffer("data").unwrap().to_vec();
        (data, Stat::read(&mut rd).unwrap())
    }

    fn children(&mut self, path: &str) -> Vec<String> {
        let r = self.path_op(op::GET_CHILDREN, path);
        assert_eq!(r.err, err::OK, "getChildren {path}");
        let mut rd = Reader::new(&r.body);
        let c = rd.strings("children").unwrap();
        c.into_iter().map(String::from).collect()
    }
}

/// What HBase's ZKMetadata.removeMetaData and the PBUF check leave of a znode's value.
fn hbase_payload(v: &[u8]) -> &[u8] {
    assert_eq!(v[0], 0xff, "HBase's metadata magic");
    let id = u32::from_be_bytes(v[1..5].try_into().unwrap()) as usize;
    let rest = &v[5 + id..];
    assert_eq!(&rest[..4], b"PBUF");
    &rest[4..]
}

#[test]
fn a_session_reads_what_hbase_reads_and_finds_the_native_listener() {
    let c = Cluster::start(Config::default());
    let mut zk = Zk::open(c.zk);
    // HBase asks for 90 s; a ZooKeeper with the default tick grants at most 40 s.
    assert_eq!(zk.session.timeout_ms, 40_000);
    assert_ne!(zk.session.session_id, 0);
    assert_eq!(zk.session.password.len(), 16);
    assert_eq!(zk.session.read_only, Some(false));

    let base = zk.children("/hbase");
    for want in ["hbaseid", "master", "meta-region-server", "rs", "running"] {
        assert!(
            base.iter().any(|c| c == want),
            "/hbase lacks {want}: {base:?}"
        );
    }
    let (id, stat) = zk.data("/hbase/hbaseid");
    assert_eq!(stat.data_length as usize, id.len());
    let id = pb::ClusterIdZnode::decode(hbase_payload(&id)).unwrap();
    assert_eq!(id.cluster_id, c.engine.cluster_id());
    let (master, stat) = zk.data("/hbase/master");
    assert_ne!(stat.ephemeral_owner, 0, "the master's node is ephemeral");
    let master = pb::MasterZnode::decode(hbase_payload(&master)).unwrap();
    assert_eq!(master.master.host_name, "127.0.0.1");
    assert_eq!(master.master.port, Some(u32::from(c.rpc.port())));
    assert_eq!(master.info_port, Some(u32::from(c.http.port())));
    let (meta, _) = zk.data("/hbase/meta-region-server");
    let meta = pb::MetaRegionServerZnode::decode(hbase_payload(&meta)).unwrap();
    assert_eq!(meta.server, master.master);
    assert_eq!(meta.state, Some(3), "OPEN");
    let rs = zk.children("/hbase/rs");
    let sn = &meta.server;
    assert_eq!(
        rs,
        vec![format!(
            "{},{},{}",
            sn.host_name,
            sn.port.unwrap(),
            sn.start_code.unwrap()
        )]
    );
    let (info, _) = zk.data(&format!("/hbase/rs/{}", rs[0]));
    let info = pb::RegionServerInfoZnode::decode(hbase_payload(&info)).unwrap();
    assert_eq!(info.version_info.unwrap().version.as_deref(), Some("2.6.1"));
    let (up, _) = zk.data("/hbase/running");
    assert!(!pb::ClusterUpZnode::decode(hbase_payload(&up))
        .unwrap()
        .start_date
        .is_empty());
    assert_eq!(zk.children("/"), vec!["hbase", "zookeeper"]);

    // The address the znodes name answers HBase's RPC with the same cluster id.
    let addr: SocketAddr = format!("{}:{}", sn.host_name, sn.port.unwrap())
        .parse()
        .unwrap();
    let mut meta_service = Conn::open(addr, "ClientMetaService", false);
    let got: pb::GetClusterIdResponse =
        meta_service.call("GetClusterId", &pb::GetClusterIdRequest {});
    assert_eq!(got.cluster_id.as_deref(), Some(c.engine.cluster_id()));

    // exists: a Stat, or NONODE (a watch asked for is accepted either way).
    let r = zk.path_op(op::EXISTS, "/hbase/master");
    assert_eq!(r.err, err::OK);
    assert_eq!(
        Stat::read(&mut Reader::new(&r.body)).unwrap().data_length,
        stat.data_length
    );
    assert_eq!(zk.path_op(op::EXISTS, "/hbase/nope").err, err::NO_NODE);
    assert_eq!(zk.path_op(op::GET_DATA, "/hbase/nope").err, err::NO_NODE);
    assert_eq!(zk.path_op(op::GET_CHILDREN, "/nope").err, err::NO_NODE);
    // getChildren2 adds the parent's Stat.
    let r = zk.path_op(op::GET_CHILDREN2, "/hbase");
    let mut rd = Reader::new(&r.body);
    let kids = rd.strings("children").unwrap().len();
    assert_eq!(Stat::read(&mut rd).unwrap().num_children as usize, kids);
    // getACL: world-readable.
    let mut w = Writer::body();
    w.string("/hbase");
    let r = zk.request(op::GET_ACL, &w);
    let mut rd = Reader::new(&r.body);
    assert_eq!(rd.int("n").unwrap(), 1);
    assert_eq!(rd.int("perms").unwrap(), 1);
    assert_eq!(rd.string("scheme").unwrap(), "world");
    // sync answers its path.
    let r = zk.request(op::SYNC, &w);
    assert_eq!(Reader::new(&r.body).string("path").unwrap(), "/hbase");
    // A ping is answered with the ping xid; watches and auth are accepted.
    let ping = zk.send(PING_XID, op::PING, &Writer::body());
    assert_eq!((ping.xid, ping.err), (PING_XID, err::OK));
    let mut watches = Writer::body();
    watches
        .long(0)
        .strings(&["/hbase/master"])
        .strings(&["/hbase/nope"])
        .strings(&["/hbase"]);
    assert_eq!(zk.send(-8, op::SET_WATCHES, &watches).err, err::OK);
    let mut auth = Writer::body();
    auth.int(0).string("digest").buffer(b"u:p");
    assert_eq!(zk.send(-4, op::AUTH, &auth).err, err::OK);
    // Changes: NOTREADONLY, the connection goes on.
    let mut create = Writer::body();
    create.string("/hbase/x").buffer(b"v").int(0).int(0);
    assert_eq!(zk.request(op::CREATE, &create).err, err::NOT_READ_ONLY);
    let mut set = Writer::body();
    set.string("/hbase/master").buffer(b"v").int(-1);
    assert_eq!(zk.request(op::SET_DATA, &set).err, err::NOT_READ_ONLY);
    let mut delete = Writer::body();
    delete.string("/hbase/master").int(-1);
    let r = zk.request(op::DELETE, &delete);
    assert_eq!(r.err, err::NOT_READ_ONLY);
    assert!(r.zxid > 0);
    assert_eq!(zk.data("/hbase/master").0.len(), stat.data_length as usize);
    // closeSession: answered, then closed.
    assert_eq!(zk.request(op::CLOSE_SESSION, &Writer::body()).err, err::OK);
    assert!(closed(&mut zk.s));
}

#[test]
fn sessions_resume_with_their_password_and_expire_without_it() {
    let c = Cluster::start(Config::default());
    let zk = Zk::open(c.zk);
    let (id, password) = (zk.session.session_id, zk.session.password.clone());
    drop(zk);
    // A client that lost its connection resumes its session.
    let mut s = stream(c.zk);
    s.write_all(&connect_request(id, password, Some(false)))
        .unwrap();
    let again = ConnectResponse::decode(&read_packet(&mut s)).unwrap();
    assert_eq!(again.session_id, id);
    assert_eq!(again.timeout_ms, 40_000);
    // Someone else's id with a wrong password: expired (timeout 0, id 0), then closed.
    let mut s = stream(c.zk);
    s.write_all(&connect_request(id, vec![7; 16], Some(false)))
        .unwrap();
    let expired = ConnectResponse::decode(&read_packet(&mut s)).unwrap();
    assert_eq!((expired.timeout_ms, expired.session_id), (0, 0));
    assert!(closed(&mut s));
    // A client from before ZooKeeper 3.4 sends no read-only flag and gets none back.
    let mut s = stream(c.zk);
    s.write_all(&connect_request(0, vec![0; 16], None)).unwrap();
    let old = ConnectResponse::decode(&read_packet(&mut s)).unwrap();
    assert_eq!(old.read_only, None);
    assert_ne!(old.session_id, 0);
}

#[test]
fn hostile_input_is_answered_or_closed() {
    let c = Cluster::start(Config::default());
    let addr = c.zk;
    let send_closed = |bytes: &[u8]| {
        let mut s = stream(addr);
        s.write_all(bytes).unwrap();
        closed(&mut s)
    };
    // A handshake claiming 4 GiB, one claiming more than a handshake can be, one that is not
    // a ConnectRequest, a client leaving mid-handshake.
    assert!(send_closed(&u32::MAX.to_be_bytes()));
    assert!(send_closed(&100_000u32.to_be_bytes()));
    assert!(send_closed(&[0, 0, 0, 3, 1, 2, 3]));
    {
        let mut s = stream(addr);
        s.write_all(&[0, 0, 0, 40, 0, 0]).unwrap();
    }
    // HTTP on the wrong port.
    assert!(send_closed(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    // A health check's four-letter word.
    let mut s = stream(addr);
    s.write_all(b"ruok").unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert_eq!(answer, "imok");

    let mut zk = Zk::open(addr);
    // A path whose length lies, a path that is not UTF-8, a vector count no packet can hold:
    // MARSHALLINGERROR, and the session goes on.
    let mut lying = Writer::body();
    lying.int(1000).raw(b"/hbase");
    assert_eq!(zk.request(op::GET_DATA, &lying).err, err::MARSHALLING_ERROR);
    let mut bad_utf8 = Writer::body();
    bad_utf8.buffer(&[0xff, 0xfe]).bool(false);
    assert_eq!(
        zk.request(op::EXISTS, &bad_utf8).err,
        err::MARSHALLING_ERROR
    );
    let mut many = Writer::body();
    many.long(0).int(i32::MAX);
    assert_eq!(
        zk.send(-8, op::SET_WATCHES, &many).err,
        err::MARSHALLING_ERROR
    );
    assert_eq!(zk.children("/hbase/rs").len(), 1);
    // An operation ZooKeeper does not have: UNIMPLEMENTED, then closed (as ZooKeeper does).
    assert_eq!(zk.request(9999, &Writer::body()).err, err::UNIMPLEMENTED);
    assert!(closed(&mut zk.s));
    // A packet too short for a request header, one over the bound: closed.
    let mut zk = Zk::open(addr);
    zk.s.write_all(&[0, 0, 0, 4, 0, 0, 0, 1]).unwrap();
    assert!(closed(&mut zk.s));
    let mut zk = Zk::open(addr);
    zk.s.write_all(&(1u32 << 30).to_be_bytes()).unwrap();
    assert!(closed(&mut zk.s));

    // 300 mutated requests of a real session (bytes flipped, cut, lengths changed), each
    // answered or closed; a fixed seed keeps the run the same every time.
    let mut rng = rand::rngs::StdRng::seed_from_u64(39);
    let started = Instant::now();
    for i in 0..300 {
        let mut w = Writer::new();
        w.int(i)
            .int([op::GET_DATA, op::GET_CHILDREN2, op::EXISTS, op::SET_WATCHES][i as usize % 4]);
        w.string("/hbase/meta-region-server").bool(true);
        let mut packet = w.packet();
        match rng.random_range(0..4) {
            0 => {
                let at = rng.random_range(4..packet.len());
                packet[at] ^= rng.random::<u8>() | 1;
            }
            1 => {
                let keep = rng.random_range(4..packet.len());
                let len = (keep - 4) as u32;
                packet.truncate(keep);
                packet[..4].copy_from_slice(&len.to_be_bytes());
            }
            2 => {
                let at = rng.random_range(0..4);
                packet[at] = rng.random();
            }
            _ => {
                let at = rng.random_range(12..packet.len());
                packet.insert(at, rng.random());
                let len = (packet.len() - 4) as u32;
                packet[..4].copy_from_slice(&len.to_be_bytes());
            }
        }
        let mut s = stream(addr);
        s.set_read_timeout(Some(Duration::from_millis(150)))
            .unwrap();
        s.write_all(&connect_request(0, vec![0; 16], Some(false)))
            .unwrap();
        let _ = read_packet(&mut s);
        let _ = s.write_all(&packet);
        // An answer, a close, or (a length claiming more than was sent) silence until the
        // client gives up; never a crash.
        let mut buf = [0u8; 64];
        let _ = s.read(&mut buf);
    }
    assert!(started.elapsed() < Duration::from_secs(60));
    // Still serving.
    let mut zk = Zk::open(addr);
    assert!(!zk.data("/hbase/hbaseid").0.is_empty());
}

#[test]
fn idle_sessions_close_and_the_connection_cap_makes_room() {
    let z = Responder::start(ZooKeeperLimits {
        max_connections: 2,
        max_packet: 1024,
        handshake_timeout: Duration::from_millis(300),
        min_session_timeout: Duration::from_millis(400),
        max_session_timeout: Duration::from_millis(400),
        ..ZooKeeperLimits::default()
    });
    // No handshake within its timeout: closed.
    let mut s = stream(z.addr);
    let began = Instant::now();
    assert!(closed(&mut s));
    assert!(began.elapsed() < Duration::from_secs(5));
    // A session granted 400 ms that stays silent is closed; one that pings stays open.
    let mut quiet = Zk::open(z.addr);
    assert_eq!(quiet.session.timeout_ms, 400);
    let mut pinging = Zk::open(z.addr);
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(150));
        assert_eq!(
            pinging.send(PING_XID, op::PING, &Writer::body()).err,
            err::OK
        );
    }
    assert!(closed(&mut quiet.s));
    // A packet over the bound (1 KiB here): closed.
    let mut big = Zk::open(z.addr);
    let mut w = Writer::body();
    w.string(&"x".repeat(2000)).bool(false);
    let mut packet = Writer::new();
    packet.int(1).int(op::GET_DATA).extend(w);
    big.s.write_all(&packet.packet()).unwrap();
    assert!(closed(&mut big.s));
    // At the cap of 2, a newcomer takes the slot of the session idle longest.
    let mut a = Zk::open(z.addr);
    std::thread::sleep(Duration::from_millis(20));
    let mut b = Zk::open(z.addr);
    assert_eq!(b.children("/hbase/rs").len(), 1);
    let mut c = Zk::open(z.addr);
    assert_eq!(c.children("/hbase/rs").len(), 1);
    assert!(closed(&mut a.s), "the idlest session was closed");
    assert_eq!(b.children("/hbase/rs").len(), 1);
    drop(pinging);
}

#[test]
fn metrics_count_requests_connections_and_refusals() {
    let c = Cluster::start(Config::default());
    let mut zk = Zk::open(c.zk);
    zk.data("/hbase/hbaseid");
    zk.children("/hbase");
    let mut create = Writer::body();
    create.string("/x").buffer(b"").int(0).int(0);
    zk.request(op::CREATE, &create);
    let mut s = stream(c.zk);
    s.write_all(&u32::MAX.to_be_bytes()).unwrap();
    assert!(closed(&mut s));
    let text = metrics(c.http);
    for want in [
        "gateway=\"zookeeper\",method=\"getData\",outcome=\"ok\"",
        "gateway=\"zookeeper\",method=\"getChildren\",outcome=\"ok\"",
        "gateway=\"zookeeper\",method=\"connect\",outcome=\"ok\"",
        "gateway=\"zookeeper\",method=\"write\",outcome=\"error\"",
        "redbase_open_connections{gateway=\"zookeeper\"} 1",
        "redbase_zookeeper_refused_total{reason=\"malformed\"} 1",
    ] {
        assert!(text.contains(want), "/metrics lacks {want}:\n{text}");
    }
}

#[test]
fn a_nested_parent_serves_every_node_under_it_and_nothing_under_hbase() {
    let parent = ZnodeParent::parse("/apps/hbase-unsecure").unwrap();
    let c = Cluster::start(Config {
        znode_parent: parent.clone(),
        ..Config::default()
    });
    let mut zk = Zk::open(c.zk);
    // The ancestors lead down to the parent, as a ZooKeeper tree's would.
    assert_eq!(zk.children("/"), vec!["apps", "zookeeper"]);
    assert_eq!(zk.children("/apps"), vec!["hbase-unsecure"]);
    let r = zk.path_op(op::GET_CHILDREN2, "/apps");
    let mut rd = Reader::new(&r.body);
    assert_eq!(rd.strings("children").unwrap().len(), 1);
    assert_eq!(Stat::read(&mut rd).unwrap().num_children, 1);
    assert_eq!(zk.data("/apps").0, Vec::<u8>::new());
    let mut base = zk.children("/apps/hbase-unsecure");
    base.sort();
    assert_eq!(
        base,
        vec![
            "backup-masters",
            "hbaseid",
            "master",
            "meta-region-server",
            "rs",
            "running",
            "table"
        ]
    );
    let (id, _) = zk.data("/apps/hbase-unsecure/hbaseid");
    let id = pb::ClusterIdZnode::decode(hbase_payload(&id)).unwrap();
    assert_eq!(id.cluster_id, c.engine.cluster_id());
    let (master, stat) = zk.data("/apps/hbase-unsecure/master");
    let master = pb::MasterZnode::decode(hbase_payload(&master)).unwrap();
    assert_eq!(master.master.port, Some(u32::from(c.rpc.port())));
    let r = zk.path_op(op::EXISTS, "/apps/hbase-unsecure/master");
    assert_eq!(r.err, err::OK);
    assert_eq!(
        Stat::read(&mut Reader::new(&r.body)).unwrap().data_length,
        stat.data_length
    );
    let (meta, _) = zk.data("/apps/hbase-unsecure/meta-region-server");
    let meta = pb::MetaRegionServerZnode::decode(hbase_payload(&meta)).unwrap();
    assert_eq!(meta.server, master.master);
    let rs = zk.children("/apps/hbase-unsecure/rs");
    assert_eq!(rs.len(), 1);
    let (info, _) = zk.data(&format!("/apps/hbase-unsecure/rs/{}", rs[0]));
    assert!(pb::RegionServerInfoZnode::decode(hbase_payload(&info)).is_ok());
    let (up, _) = zk.data("/apps/hbase-unsecure/running");
    assert!(pb::ClusterUpZnode::decode(hbase_payload(&up)).is_ok());
    // The default parent is not served beside it.
    for path in ["/hbase", "/hbase/master", "/hbase/hbaseid", "/hbase/rs"] {
        for code in [op::EXISTS, op::GET_DATA, op::GET_CHILDREN] {
            assert_eq!(zk.path_op(code, path).err, err::NO_NODE, "{code} {path}");
        }
    }
    assert_eq!(zk.path_op(op::GET_DATA, "/apps/nope").err, err::NO_NODE);
}

/// `redbase serve` with the native gateway and every listener on port 0, the environment's
/// REDBASE_* settings removed; JSON logs, to read the ZooKeeper responder's address from.
fn serve_native(data: &std::path::Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_redbase"));
    for (k, _) in std::env::vars() {
        if k.starts_with("REDBASE_") {
            c.env_remove(k);
        }
    }
    c.args(["--log-format", "json", "serve", "--gateways", "native"])
        .arg("--data-dir")
        .arg(data);
    for flag in ["--hbase-rpc-addr", "--zookeeper-addr", "--http-addr"] {
        c.args([flag, "127.0.0.1:0"]);
    }
    c
}

#[test]
fn a_parent_zookeeper_would_refuse_stops_the_start_and_names_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    for (bad, why) in [
        ("hbase-unsecure", "did you mean /hbase-unsecure?"),
        ("/hbase/", "did you mean /hbase?"),
        ("/", "the root cannot be the parent"),
        ("/apps//hbase", "empty name"),
        ("/apps/../hbase", "\"..\" is not allowed"),
        ("/hb\u{1}ase", "U+0001"),
    ] {
        for by_env in [false, true] {
            let mut c = serve_native(&data);
            if by_env {
                c.env("REDBASE_ZOOKEEPER_ZNODE_PARENT", bad);
            } else {
                c.args(["--zookeeper-znode-parent", bad]);
            }
            let out = c.output().unwrap();
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(out.status.code(), Some(2), "{bad:?}: {all}");
            assert!(all.contains("--zookeeper-znode-parent"), "{bad:?}: {all}");
            assert!(all.contains("expected a ZooKeeper path"), "{bad:?}: {all}");
            assert!(all.contains(why), "{bad:?}: {all}");
        }
    }
    assert!(
        !data.exists(),
        "nothing is created before the flags are checked"
    );
}

/// A running `redbase serve`, stopped with SIGTERM and waited for by [`Running::stop`], or
/// when dropped (a test that failed first).
struct Running(std::process::Child);

impl Running {
    fn stop(&mut self) -> std::process::ExitStatus {
        // Only a child not yet waited for: a reaped one's id may be another process's.
        if let Ok(None) = self.0.try_wait() {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &self.0.id().to_string()])
                .status();
        }
        self.0.wait().unwrap()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

#[test]
fn the_binary_serves_the_parent_its_variable_names() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let mut c = serve_native(&dir.path().join("data"));
    c.env("REDBASE_ZOOKEEPER_ZNODE_PARENT", "/hbase-secure")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let mut server = Running(c.spawn().unwrap());
    let stdout = server.0.stdout.take().unwrap();
    // The responder's "gateway listening" line says where it is and what parent it serves.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if v["gateway"] == "zookeeper" && v["message"] == "gateway listening" {
                let _ = tx.send(v);
            }
        }
    });
    let v = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the responder's listening line");
    assert_eq!(v["znode_parent"], "/hbase-secure", "{v}");
    let addr: SocketAddr = v["addr"].as_str().unwrap().parse().unwrap();
    let mut zk = Zk::open(addr);
    let base = zk.children("/hbase-secure");
    assert!(base.iter().any(|c| c == "meta-region-server"), "{base:?}");
    let (id, _) = zk.data("/hbase-secure/hbaseid");
    assert!(!pb::ClusterIdZnode::decode(hbase_payload(&id))
        .unwrap()
        .cluster_id
        .is_empty());
    assert_eq!(zk.path_op(op::EXISTS, "/hbase").err, err::NO_NODE);
    assert_eq!(zk.children("/"), vec!["hbase-secure", "zookeeper"]);
    drop(zk);
    let status = server.stop();
    assert!(status.success(), "a clean stop: {status:?}");
}
