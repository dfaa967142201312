//! A full disk takes a region down only while it lasts: writes fail with a clear, retryable
//! error naming the region and the cause, nothing acknowledged is lost, /readyz answers 503
//! naming the region, and once space is back the same region takes writes again without a
//! restart (its redb file is reopened), /readyz answers 200 and the metrics counted the outage.
//!
//! Two ways to fill the disk: the engine's fault switch (`EngineConfig::storage_faults`, every
//! write to a region file fails with ENOSPC while it is on), through a real server on loopback;
//! and a real 4 MiB tmpfs filled up by a file, which needs permission to mount (root): that
//! test says so and skips when `mount` is refused.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use redbase::engine::{
    Durability, Engine, EngineConfig, FamilyDescriptor, Get, MutateError, NamespaceDescriptor, Op,
    RowMutation, Scan, StorageFaults, TableDescriptor, TableName,
};
use redbase::generated::hbase1::{self, HbaseSyncClient, THbaseSyncClient};
use redbase::generated::hbase2::{
    TColumnValue, TGet, THBaseServiceSyncClient, TIOError, TPut, TTHBaseServiceSyncClient,
};
use redbase::server::{self, Config, Listeners};
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{ReadHalf, TIoChannel, TTcpChannel, WriteHalf};

type Client2 = THBaseServiceSyncClient<
    TBinaryInputProtocol<ReadHalf<TTcpChannel>>,
    TBinaryOutputProtocol<WriteHalf<TTcpChannel>>,
>;
type Client1 = HbaseSyncClient<
    TBinaryInputProtocol<ReadHalf<TTcpChannel>>,
    TBinaryOutputProtocol<WriteHalf<TTcpChannel>>,
>;

const TABLE: &str = "t";

/// Everything the process logs at INFO and above (one subscriber for every test here; each
/// test picks its own lines by its data directory).
fn logs() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let sink = Captured(logs.clone());
        let _ = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_max_level(tracing::Level::INFO)
            .with_ansi(false)
            .try_init();
        logs
    })
}

#[derive(Clone)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Log lines mentioning `dir` that contain `text`.
fn log_lines(dir: &Path, text: &str) -> Vec<String> {
    let all = String::from_utf8_lossy(&logs().lock().unwrap()).into_owned();
    let dir = dir.display().to_string();
    all.lines()
        .filter(|l| l.contains(&dir) && l.contains(text))
        .map(str::to_string)
        .collect()
}

/// A real server (both Thrift gateways and the HTTP listener) on loopback ports.
struct Server {
    thrift1: SocketAddr,
    thrift2: SocketAddr,
    http: SocketAddr,
    engine: Engine,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start(engine: Engine) -> Server {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let e = engine.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async move {
                let bind = || tokio::net::TcpListener::bind("127.0.0.1:0");
                let (l1, l2, h) = (
                    bind().await.unwrap(),
                    bind().await.unwrap(),
                    bind().await.unwrap(),
                );
                addr_tx
                    .send((
                        l1.local_addr().unwrap(),
                        l2.local_addr().unwrap(),
                        h.local_addr().unwrap(),
                    ))
                    .unwrap();
                let listeners = Listeners {
                    thrift1: Some(l1),
                    thrift2: Some(l2),
                    http: Some(h),
                };
                server::run(e, listeners, Config::default(), async move {
                    let _ = stop_rx.await;
                })
                .await;
            });
        });
        let (thrift1, thrift2, http) = addr_rx.recv().unwrap();
        Server {
            thrift1,
            thrift2,
            http,
            engine,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    fn client2(&self) -> Client2 {
        let mut c = TTcpChannel::new();
        c.open(self.thrift2.to_string()).unwrap();
        let (r, w) = c.split().unwrap();
        THBaseServiceSyncClient::new(
            TBinaryInputProtocol::new(r, true),
            TBinaryOutputProtocol::new(w, true),
        )
    }

    fn client1(&self) -> Client1 {
        let mut c = TTcpChannel::new();
        c.open(self.thrift1.to_string()).unwrap();
        let (r, w) = c.split().unwrap();
        HbaseSyncClient::new(
            TBinaryInputProtocol::new(r, true),
            TBinaryOutputProtocol::new(w, true),
        )
    }

    fn get(&self, path: &str) -> (u16, String) {
        http_get(self.http, path)
    }

    /// The value of an unlabelled sample in /metrics.
    fn metric(&self, name: &str) -> u64 {
        let (code, text) = self.get("/metrics");
        assert_eq!(code, 200);
        text.lines()
            .find_map(|l| {
                let rest = l.strip_prefix(name)?;
                let rest = rest.strip_prefix("{}").unwrap_or(rest);
                rest.strip_prefix(' ')?.parse().ok()
            })
            .unwrap_or_else(|| panic!("no sample {name} in /metrics:\n{text}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.engine.close();
    }
}

/// Status code and body of `GET path` over plain HTTP/1.0.
fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(s, "GET {path} HTTP/1.0\r\nHost: test\r\n\r\n").expect("send");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("read");
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status line");
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (code, body.to_string())
}

fn table(engine: &Engine, split_keys: &[&str]) {
    let desc = TableDescriptor::new(TableName::parse(TABLE).unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    let splits: Vec<Vec<u8>> = split_keys.iter().map(|k| k.as_bytes().to_vec()).collect();
    engine.create_table(desc, &splits).unwrap();
}

fn tput(row: &str, value: &str) -> TPut {
    TPut::new(
        row.as_bytes().to_vec(),
        vec![TColumnValue::new(
            b"f".to_vec(),
            b"q".to_vec(),
            value.as_bytes().to_vec(),
            None,
            None,
            None,
        )],
        None,
        None,
        None,
        None,
    )
}

fn tget(row: &str) -> TGet {
    TGet::new(
        row.as_bytes().to_vec(),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    )
}

/// The TIOError a Thrift2 call failed with: (message, canRetry).
fn tio_error<T: std::fmt::Debug>(r: thrift::Result<T>) -> (String, bool) {
    match r {
        Err(thrift::Error::User(e)) => match e.downcast_ref::<TIOError>() {
            Some(io) => (
                io.message.clone().unwrap_or_default(),
                io.can_retry == Some(true),
            ),
            None => panic!("not a TIOError: {e:?}"),
        },
        other => panic!("expected a TIOError, got {other:?}"),
    }
}

/// Bytes in the redo logs of the test table's regions.
fn redo_log_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir.join("tables/default").join(TABLE))
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().to_string_lossy().contains(".redb.log"))
                .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
                .sum()
        })
        .unwrap_or(0)
}

/// Every row the table holds, with its value, read through the engine.
fn stored(engine: &Engine) -> BTreeMap<String, String> {
    engine
        .scan(TABLE, Scan::default())
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            let value = r.value(b"f", b"q").expect("a cell");
            (
                String::from_utf8(r.row().to_vec()).unwrap(),
                String::from_utf8(value.to_vec()).unwrap(),
            )
        })
        .collect()
}

/// Copies the files of `from` (recursively) into `to`, leaving out redo logs.
fn copy_without_logs(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_without_logs(&e.path(), &target);
        } else if !e.file_name().to_string_lossy().contains(".redb.log") {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// An engine in a fresh directory with the full-disk switch in front of its region files.
fn engine_with_faults() -> (tempfile::TempDir, Engine, StorageFaults) {
    let dir = tempfile::tempdir().unwrap();
    let faults = StorageFaults::new();
    let config = EngineConfig {
        storage_faults: Some(faults.clone()),
        ..EngineConfig::default()
    };
    let engine = Engine::open(dir.path(), config).unwrap();
    (dir, engine, faults)
}

/// A table whose region files cannot be made on a full disk is not created, and leaves no
/// directory or file behind; once there is room, the same table is made.
#[test]
fn a_table_that_cannot_be_made_leaves_nothing_behind() {
    let (dir, engine, faults) = engine_with_faults();
    let table_dir = dir.path().join("tables/default").join(TABLE);
    faults.set_disk_full(true);
    let desc = TableDescriptor::new(TableName::parse(TABLE).unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    let err = engine
        .create_table(desc.clone(), &[b"m".to_vec()])
        .unwrap_err();
    assert!(err.kind().retryable(), "a full disk may clear: {err}");
    assert!(engine.regions(TABLE).is_err(), "no table: {err}");
    assert!(
        !table_dir.exists(),
        "{} was left behind: {:?}",
        table_dir.display(),
        std::fs::read_dir(&table_dir)
            .map(|d| d.map(|e| e.unwrap().file_name()).collect::<Vec<_>>())
    );
    faults.set_disk_full(false);
    engine.create_table(desc, &[b"m".to_vec()]).unwrap();
    assert_eq!(engine.regions(TABLE).unwrap().len(), 2);
    engine.close();
}

/// When only the redo log cannot be written (its device is full), writes still succeed: each
/// batch is committed durably to its region file instead, which also persists the async
/// writes logged before. A copy of the data directory without any log opens with all of them.
#[test]
fn a_full_log_falls_back_to_durable_commits_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let faults = StorageFaults::new();
    let config = EngineConfig {
        storage_faults: Some(faults.clone()),
        async_flush: Duration::from_secs(3600),
        ..EngineConfig::default()
    };
    let engine = Engine::open(dir.path(), config.clone()).unwrap();
    table(&engine, &[]);
    let put = |row: &str, durability: Durability| {
        let mut m = RowMutation::new(row.as_bytes()).with(Op::put(b"f", b"q", row.as_bytes()));
        m.durability = durability;
        engine.mutate_row(TABLE, m)
    };
    put("logged-async", Durability::AsyncWal).unwrap();
    assert!(redo_log_bytes(dir.path()) > 0);
    faults.set_log_full(true);
    let syncs = engine.redo_log_syncs();
    put("durable", Durability::Sync).unwrap();
    put("async", Durability::AsyncWal).unwrap();
    assert!(faults.refused_writes() >= 2, "the log refused both");
    assert_eq!(
        engine.redo_log_syncs(),
        syncs,
        "nothing was synced in the log"
    );
    assert!(engine.failed_regions().is_empty());

    let copy = tempfile::tempdir().unwrap();
    copy_without_logs(dir.path(), copy.path());
    faults.set_log_full(false);
    engine.close();
    drop(engine);
    let reopened = Engine::open(copy.path(), EngineConfig::default()).unwrap();
    let rows: Vec<String> = stored(&reopened).into_keys().collect();
    assert_eq!(rows, ["async", "durable", "logged-async"]);
    reopened.close();
}

#[test]
fn a_full_disk_fails_writes_clearly_and_the_region_recovers_without_restart() {
    logs();
    let dir = tempfile::tempdir().unwrap();
    let faults = StorageFaults::new();
    let config = EngineConfig {
        storage_faults: Some(faults.clone()),
        async_flush: Duration::from_millis(50),
        ..EngineConfig::default()
    };
    let engine = Engine::open(dir.path(), config).unwrap();
    // Two regions: "a..." rows and "n..." rows.
    table(&engine, &["n"]);
    let s = Server::start(engine.clone());
    let mut c2 = s.client2();
    let mut acked: BTreeMap<String, String> = BTreeMap::new();
    for i in 0..20 {
        let (row, value) = (format!("a{i:02}"), format!("v{i}"));
        c2.put(TABLE.into(), tput(&row, &value)).unwrap();
        acked.insert(row, value);
    }
    c2.put(TABLE.into(), tput("n00", "other region")).unwrap();
    acked.insert("n00".into(), "other region".into());
    assert_eq!(s.get("/readyz"), (200, "ready\n".to_string()));
    assert_eq!(s.metric("redbase_region_storage_errors_total"), 0);
    assert_eq!(s.metric("redbase_failed_regions"), 0);
    // Both region files catch up with their redo logs (the background flush), so the only
    // write to meet the full disk is the one below; a region with writes still to flush would
    // meet it in that flush and go down too, as it should.
    let deadline = Instant::now() + Duration::from_secs(10);
    while redo_log_bytes(dir.path()) > 0 {
        assert!(
            Instant::now() < deadline,
            "the redo logs were never flushed"
        );
        std::thread::sleep(Duration::from_millis(10));
    }

    // The disk fills up: the write that hits it fails, naming the region and the cause.
    faults.set_disk_full(true);
    let (message, retry) = tio_error(c2.put(TABLE.into(), tput("a50", "lost")));
    assert!(retry, "a full disk is retryable: {message}");
    assert!(message.contains("No space left on device"), "{message}");
    assert!(
        message.contains("region t,,"),
        "names the region: {message}"
    );
    assert!(message.contains("unavailable"), "{message}");
    assert!(faults.refused_writes() > 0);
    let failed = engine.failed_regions();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].region.starts_with("t,,"), "{failed:?}");

    // While it lasts, every write to the region fails the same way, through both gateways.
    for i in 0..5 {
        let (message, retry) = tio_error(c2.put(TABLE.into(), tput(&format!("a6{i}"), "lost")));
        assert!(
            retry && message.contains("No space left on device"),
            "{message}"
        );
    }
    let mut c1 = s.client1();
    match c1.mutate_row(
        TABLE.as_bytes().to_vec(),
        b"a70".to_vec(),
        vec![hbase1::Mutation::new(
            false,
            b"f:q".to_vec(),
            b"lost".to_vec(),
            true,
        )],
        BTreeMap::new(),
    ) {
        Err(thrift::Error::User(e)) => {
            let io = e
                .downcast_ref::<hbase1::IOError>()
                .unwrap_or_else(|| panic!("not an IOError: {e:?}"));
            let m = io.message.clone().unwrap_or_default();
            assert!(m.contains("unavailable") && m.contains("region t,,"), "{m}");
        }
        other => panic!("expected an IOError, got {other:?}"),
    }
    let (code, body) = s.get("/readyz");
    assert_eq!(code, 503, "{body}");
    assert!(body.contains("region t,,"), "{body}");
    assert!(body.contains("No space left on device"), "{body}");
    assert_eq!(s.metric("redbase_region_storage_errors_total"), 1);
    assert_eq!(s.metric("redbase_failed_regions"), 1);
    // The background retries fail while the disk is full, and stay quiet about it.
    let deadline = Instant::now() + Duration::from_secs(10);
    while engine.failed_regions().first().map(|f| f.attempts) == Some(0) {
        assert!(Instant::now() < deadline, "no reopen attempt was made");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(engine.failed_regions().len(), 1);
    assert_eq!(s.get("/readyz").0, 503);

    // Space is back: the same region takes writes again, without a restart.
    faults.set_disk_full(false);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match c2.put(TABLE.into(), tput("a80", "after")) {
            Ok(()) => break,
            Err(e) => {
                let (message, retry) = tio_error::<()>(Err(e));
                assert!(retry, "{message}");
                assert!(
                    Instant::now() < deadline,
                    "the region never recovered: {message}"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    acked.insert("a80".into(), "after".into());
    for i in 0..20 {
        let (row, value) = (format!("a9{i:02}"), format!("w{i}"));
        c2.put(TABLE.into(), tput(&row, &value)).unwrap();
        acked.insert(row, value);
    }
    assert_eq!(s.get("/readyz"), (200, "ready\n".to_string()));
    assert!(engine.failed_regions().is_empty());
    assert_eq!(s.metric("redbase_region_storage_errors_total"), 1);
    assert_eq!(s.metric("redbase_failed_regions"), 0);

    // Every acknowledged row is there, through the gateway and the engine; no failed one is.
    for (row, value) in &acked {
        let r = c2.get(TABLE.into(), tget(row)).unwrap();
        assert_eq!(r.column_values.len(), 1, "row {row}");
        assert_eq!(r.column_values[0].value, value.as_bytes(), "row {row}");
    }
    assert_eq!(stored(&engine), acked);

    // One log line for the outage and one for the recovery, not one per refused write or
    // failed reopen attempt.
    let down = log_lines(dir.path(), "region unavailable until its file is reopened");
    assert_eq!(down.len(), 1, "{down:#?}");
    assert!(down[0].contains("ERROR") && down[0].contains("No space left on device"));
    let up = log_lines(dir.path(), "region file reopened");
    assert_eq!(up.len(), 1, "{up:#?}");
    assert!(up[0].contains("WARN"), "{up:#?}");
}

/// Writers and readers keep going while the disk fills and empties several times: every write
/// either is acknowledged (and then readable, forever) or fails with the retryable error, and
/// no read ever returns a wrong value.
#[test]
fn readers_and_writers_in_flight_survive_outages() {
    let (_dir, engine, faults) = engine_with_faults();
    table(&engine, &[]);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let acked = Arc::new(std::sync::Mutex::new(BTreeMap::<String, String>::new()));
    let mut threads = Vec::new();
    for w in 0..4 {
        let (engine, stop, acked) = (engine.clone(), stop.clone(), acked.clone());
        threads.push(std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let row = format!("w{w}-{n:06}");
                let value = format!("value {w} {n}");
                let m =
                    RowMutation::new(row.as_bytes()).with(Op::put(b"f", b"q", value.as_bytes()));
                match engine.mutate_row(TABLE, m) {
                    Ok(()) => {
                        acked.lock().unwrap().insert(row, value);
                    }
                    Err(MutateError::Storage(e)) => {
                        assert!(
                            e.message.contains("unavailable")
                                || e.message.contains("No space left on device"),
                            "{e}"
                        );
                    }
                    Err(e) => panic!("unexpected error {e}"),
                }
                n += 1;
            }
        }));
    }
    for _ in 0..2 {
        let (engine, stop, acked) = (engine.clone(), stop.clone(), acked.clone());
        threads.push(std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let sample: Vec<(String, String)> = {
                    let a = acked.lock().unwrap();
                    a.iter()
                        .rev()
                        .take(20)
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                };
                for (row, value) in sample {
                    match engine.get(TABLE, Get::new(row.as_bytes())) {
                        Ok(Some(r)) => {
                            assert_eq!(r.value(b"f", b"q"), Some(value.as_bytes()), "row {row}");
                        }
                        Ok(None) => panic!("acknowledged row {row} is missing"),
                        // The region is down or its file was just reopened: retryable.
                        Err(redbase::engine::ReadError::Storage(_)) => {}
                        Err(e) => panic!("unexpected read error {e}"),
                    }
                }
            }
        }));
    }
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(200));
        faults.set_disk_full(true);
        std::thread::sleep(Duration::from_millis(200));
        faults.set_disk_full(false);
        let deadline = Instant::now() + Duration::from_secs(30);
        while !engine.failed_regions().is_empty() {
            assert!(Instant::now() < deadline, "the region never recovered");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    std::thread::sleep(Duration::from_millis(200));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    assert!(engine.storage_error_count() >= 1);
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() > 10,
        "too few writes went through: {}",
        acked.len()
    );
    let stored = stored(&engine);
    for (row, value) in &acked {
        assert_eq!(stored.get(row), Some(value), "acknowledged row {row}");
    }
    engine.close();
}

/// A tmpfs mounted for the test, unmounted when dropped.
struct Mount(PathBuf);

impl Mount {
    /// Mounts a tmpfs of `size` at `dir`; Err with mount's complaint when not permitted.
    fn tmpfs(dir: &Path, size: &str) -> Result<Mount, String> {
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(Mount(dir.to_path_buf()))
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fills the file system holding `path` up with one file, until the write that finds no space.
fn fill(path: &Path) -> std::fs::File {
    let mut f = std::fs::File::create(path).unwrap();
    let chunk = vec![0xA5u8; 64 * 1024];
    loop {
        match f.write(&chunk) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(28) => break,
            Err(e) => panic!("filling the tmpfs: {e}"),
        }
    }
    let _ = f.sync_all();
    f
}

#[test]
fn a_real_full_tmpfs() {
    logs();
    let mnt = tempfile::tempdir().unwrap();
    let _mount = match Mount::tmpfs(mnt.path(), "8m") {
        Ok(m) => m,
        Err(why) => {
            eprintln!(
                "SKIPPED disk_full::a_real_full_tmpfs: mounting a tmpfs is not permitted here \
                 ({why}); the fault-switch tests cover the same path"
            );
            return;
        }
    };
    let data = mnt.path().join("data");
    let engine = Engine::open(&data, EngineConfig::default()).unwrap();
    table(&engine, &[]);
    let mut acked: BTreeMap<String, String> = BTreeMap::new();
    for i in 0..20 {
        let (row, value) = (format!("r{i:04}"), format!("v{i}"));
        let m = RowMutation::new(row.as_bytes()).with(Op::put(b"f", b"q", value.as_bytes()));
        engine.mutate_row(TABLE, m).unwrap();
        acked.insert(row, value);
    }
    let filler_path = mnt.path().join("filler");
    let filler = fill(&filler_path);

    // Write 16 KiB values until the region file needs space that is not there.
    let big = "x".repeat(16 * 1024);
    let mut failure = None;
    for i in 0..2000 {
        let row = format!("s{i:04}");
        let m = RowMutation::new(row.as_bytes()).with(Op::put(b"f", b"q", big.as_bytes()));
        match engine.mutate_row(TABLE, m) {
            Ok(()) => {
                acked.insert(row, big.clone());
            }
            Err(e) => {
                failure = Some(e.to_string());
                break;
            }
        }
    }
    let failure = failure.expect("no write failed on a full tmpfs");
    assert!(failure.contains("No space left on device"), "{failure}");
    assert!(failure.contains("unavailable"), "{failure}");
    assert_eq!(engine.failed_regions().len(), 1);
    assert_eq!(engine.storage_error_count(), 1);
    let m = RowMutation::new(b"s9999".as_slice()).with(Op::put(b"f", b"q", b"v"));
    let e = engine.mutate_row(TABLE, m).unwrap_err().to_string();
    assert!(e.contains("unavailable"), "{e}");
    // The catalog is on the same full disk: a namespace cannot be created (the tmpfs may
    // still have a page for a small commit, so write until it fails).
    let mut catalog_failed = false;
    for i in 0..200 {
        if let Err(e) = engine.create_namespace(NamespaceDescriptor::new(&format!("ns{i}"))) {
            let e = e.to_string();
            assert!(e.contains("No space left on device"), "{e}");
            catalog_failed = true;
            break;
        }
    }
    assert!(catalog_failed, "the catalog never hit the full disk");

    // Free the space: the same region takes writes again.
    drop(filler);
    std::fs::remove_file(&filler_path).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let m = RowMutation::new(b"t0000".as_slice()).with(Op::put(b"f", b"q", b"after"));
        match engine.mutate_row(TABLE, m) {
            Ok(()) => break,
            Err(e) => {
                assert!(Instant::now() < deadline, "never recovered: {e}");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    acked.insert("t0000".into(), "after".into());
    assert!(engine.failed_regions().is_empty());
    assert_eq!(stored(&engine), acked);
    // And the catalog takes DDL again, without a restart.
    engine
        .create_namespace(NamespaceDescriptor::new("after_the_full_disk"))
        .unwrap();
    let desc = TableDescriptor::new(TableName::parse("after_the_full_disk:t2").unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    engine.create_table(desc, &[]).unwrap();
    let reopened = log_lines(mnt.path(), "catalog reopened after a storage I/O error");
    assert_eq!(reopened.len(), 1, "{reopened:#?}");
    engine.close();
    drop(engine);
}

/// The engine closes while a region is down; the next engine (a restart, in the same process
/// here) opens the file, repaired, with every acknowledged row, and the old engine's retries
/// never take the file back.
#[test]
fn a_region_down_at_shutdown_opens_normally_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let faults = StorageFaults::new();
    let config = EngineConfig {
        storage_faults: Some(faults.clone()),
        ..EngineConfig::default()
    };
    let engine = Engine::open(dir.path(), config.clone()).unwrap();
    table(&engine, &[]);
    let mut acked = BTreeMap::new();
    for i in 0..10 {
        let (row, value) = (format!("r{i}"), format!("v{i}"));
        let m = RowMutation::new(row.as_bytes()).with(Op::put(b"f", b"q", value.as_bytes()));
        engine.mutate_row(TABLE, m).unwrap();
        acked.insert(row, value);
    }
    faults.set_disk_full(true);
    let m = RowMutation::new(b"lost".as_slice()).with(Op::put(b"f", b"q", b"x"));
    assert!(engine.mutate_row(TABLE, m).is_err());
    assert_eq!(engine.failed_regions().len(), 1);
    engine.close();
    assert!(
        engine.failed_regions().is_empty(),
        "a closed region is not reported"
    );
    faults.set_disk_full(false);
    // Give the old engine's retry thread time to (wrongly) reopen the file, were it to.
    std::thread::sleep(Duration::from_millis(300));
    drop(engine);

    let engine = Engine::open(dir.path(), config).unwrap();
    assert!(
        engine.offline_tables().is_empty(),
        "{:?}",
        engine.offline_tables()
    );
    assert_eq!(stored(&engine), acked);
    let m = RowMutation::new(b"after".as_slice()).with(Op::put(b"f", b"q", b"y"));
    engine.mutate_row(TABLE, m).unwrap();
    acked.insert("after".into(), "y".into());
    assert_eq!(stored(&engine), acked);
    engine.close();
}
