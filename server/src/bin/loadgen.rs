//! `loadgen`: a load generator for the Thrift1 and Thrift2 gateways.
//!
//! `loadgen [bench]` drives N client connections (one thread and one connection each) with
//! get / put / scan / mixed work against two servers started in this process on loopback: the
//! real redbase gateway (`redbase::server::run` over an engine in a temporary directory) and a
//! *null* server (the same `redbase::thrift::run` with a handler that returns canned replies).
//! Both sides take turns in short rounds, so the ratio of their throughputs shows how close
//! redbase gets to the RPC limit of this transport and protocol on a noisy machine. `--addr`
//! points the redbase side at an external server instead.
//!
//! `--service thrift1` (the default) measures the Thrift1 `Hbase` service with the generated
//! `HbaseSyncClient`; `--service thrift2` measures `THBaseService` with the generated
//! `THBaseServiceSyncClient` (see the `t2` module); `--service both` runs the one, then the
//! other, each with its own pair of servers.
//!
//! `loadgen startup --bin target/release/redbase` runs the real binary on a fresh data
//! directory and measures the time from exec to the first answered request, the idle RSS
//! before and after some load, and a clean exit on SIGTERM.

use std::collections::{BTreeMap, HashMap};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Barrier};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::{Args, Parser, Subcommand, ValueEnum};
use redbase::engine::{Engine, EngineConfig};
use redbase::generated::hbase1::*;
use redbase::server::{self, Config, Listeners};
use redbase::thrift::frame::Protocol;
use redbase::thrift::{self as rthrift, process_message, Limits, Service};
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TOutputProtocol,
};
use thrift::server::TProcessor;
use thrift::transport::{
    TBufferedReadTransport, TBufferedWriteTransport, TFramedReadTransport, TFramedWriteTransport,
    TIoChannel, TReadTransport, TTcpChannel, TWriteTransport,
};

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------

#[derive(Parser, Debug)]
#[command(
    name = "loadgen",
    about = "Thrift1 / Thrift2 load generator: redbase vs a null server, and start-up / RSS measurement",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
    #[command(flatten)]
    bench: BenchArgs,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Throughput and latency, redbase vs the null server (the default).
    Bench(BenchArgs),
    /// Start-up time, idle RSS and SIGTERM exit of the `redbase serve` binary.
    Startup(StartupArgs),
}

#[derive(Args, Debug, Clone)]
struct ClientArgs {
    /// Thrift transport the clients use (the server detects it).
    #[arg(long, value_enum, default_value_t = TransportKind::Buffered)]
    transport: TransportKind,
    /// Thrift protocol the clients use (the server detects it).
    #[arg(long, value_enum, default_value_t = ProtocolKind::Binary)]
    protocol: ProtocolKind,
    /// Table the work goes to (created if missing).
    #[arg(long, default_value = "loadgen")]
    table: String,
    /// Rows preloaded for gets and scans (keys r00000000, r00000001, ...).
    #[arg(long, default_value_t = 10_000)]
    rows: u64,
    /// Value size of every cell, in bytes.
    #[arg(long, default_value_t = 100)]
    value_size: usize,
    /// Rows per scan: one scannerOpenWithStop, one scannerGetList of this many rows, one
    /// scannerClose.
    #[arg(long, default_value_t = 100)]
    scan_rows: u32,
    /// The mixed workload: weights of get, getrow, put and scan.
    #[arg(long, default_value = "get=80,put=15,scan=5")]
    mix: String,
}

#[derive(Args, Debug, Clone)]
struct BenchArgs {
    #[command(flatten)]
    client: ClientArgs,
    /// Gateway to measure: Thrift1 (`Hbase`), Thrift2 (`THBaseService`), or both one after the
    /// other (each with its own servers).
    #[arg(long, value_enum, default_value_t = ServiceKind::Thrift1)]
    service: ServiceKind,
    /// How a Thrift2 scan op reads its rows: `scanner` is openScanner + getScannerRows +
    /// closeScanner (three calls, as the Thrift1 scan); `results` is one getScannerResults.
    #[arg(long, value_enum, default_value_t = T2Scan::Scanner)]
    thrift2_scan: T2Scan,
    /// Drive an already running redbase at this (loopback) address instead of starting one in
    /// this process. The null server still runs in-process.
    #[arg(long)]
    addr: Option<String>,
    /// Connection counts to measure, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1usize, 16])]
    connections: Vec<usize>,
    /// Workloads to measure, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = vec![Workload::Get, Workload::Put, Workload::Scan, Workload::Mix])]
    workloads: Vec<Workload>,
    /// Measuring time of each side (redbase, null) of each workload and connection count, in
    /// seconds, split over the rounds.
    #[arg(long, default_value_t = 3.0)]
    secs: f64,
    /// Rounds: every side of every cell runs once per round; the order alternates.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Unrecorded warm-up per side and cell before the first round, in seconds.
    #[arg(long, default_value_t = 0.2)]
    warmup_secs: f64,
    /// Skip the null server (absolute numbers only).
    #[arg(long)]
    no_null: bool,
    /// Gets at 16 connections must reach this fraction of the null server.
    #[arg(long, default_value_t = 0.70)]
    target: f64,
    /// Thrift2 only: the `TDurability` every measured put carries (default: none set, so the
    /// table's default applies, which is durable). Thrift1's `mutateRow` has no such field.
    #[arg(long, value_enum)]
    durability: Option<DurabilityKind>,
    /// `always`: create the table if missing and write the `--rows` rows before measuring;
    /// `skip`: the table and its rows are there already (checked: the last row must exist);
    /// `only`: create and write, then exit without measuring (to load a server once for many
    /// runs).
    #[arg(long, value_enum, default_value_t = Preload::Always)]
    preload: Preload,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Preload {
    Always,
    Skip,
    Only,
}

/// Thrift2's `TDurability` values a put can carry (USE_DEFAULT is the same as not setting it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DurabilityKind {
    /// SKIP_WAL (1).
    #[value(name = "skip-wal")]
    Skip,
    /// ASYNC_WAL (2).
    #[value(name = "async-wal")]
    Async,
    /// SYNC_WAL (3).
    #[value(name = "sync-wal")]
    Sync,
    /// FSYNC_WAL (4).
    #[value(name = "fsync-wal")]
    Fsync,
}

#[derive(Args, Debug, Clone)]
struct StartupArgs {
    #[command(flatten)]
    client: ClientArgs,
    /// The redbase binary (default: `redbase` next to this executable). Build it first:
    /// `cargo build --release --bin redbase`.
    #[arg(long)]
    bin: Option<PathBuf>,
    /// Start-ups measured (each on a fresh data directory, then once more on that data).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Seconds of mixed load between the two idle RSS readings.
    #[arg(long, default_value_t = 5.0)]
    load_secs: f64,
    /// Connections driving that load.
    #[arg(long, default_value_t = 16)]
    load_connections: usize,
    /// Seconds to let the server settle before reading an idle RSS.
    #[arg(long, default_value_t = 1.0)]
    settle_secs: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ServiceKind {
    Thrift1,
    Thrift2,
    Both,
}

impl ServiceKind {
    fn name(self) -> &'static str {
        match self {
            ServiceKind::Thrift1 => "Thrift1",
            ServiceKind::Thrift2 => "Thrift2",
            ServiceKind::Both => "Thrift1 and Thrift2",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum T2Scan {
    /// openScanner + getScannerRows + closeScanner.
    Scanner,
    /// One getScannerResults.
    Results,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TransportKind {
    Buffered,
    Framed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ProtocolKind {
    Binary,
    Compact,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Workload {
    /// `get` of one cell of a random preloaded row (Thrift2: `get` of a TGet naming f:q).
    Get,
    /// `getRow` of a random preloaded row (one cell) (Thrift2: `get` of a TGet of the row).
    Getrow,
    /// `mutateRow` of one cell to a random new row (durable) (Thrift2: `put` of a TPut).
    Put,
    /// scannerOpenWithStop + scannerGetList + scannerClose over consecutive preloaded rows
    /// (Thrift2: openScanner + getScannerRows + closeScanner, or getScannerResults).
    Scan,
    /// The `--mix` blend.
    Mix,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::Get => "get",
            Workload::Getrow => "getrow",
            Workload::Put => "put",
            Workload::Scan => "scan",
            Workload::Mix => "mix",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpKind {
    Get,
    GetRow,
    Put,
    Scan,
}

fn parse_mix(s: &str) -> Result<Vec<(OpKind, u32)>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, w) = part
            .split_once('=')
            .ok_or_else(|| format!("--mix: {part:?} is not name=weight"))?;
        let kind = match k.trim() {
            "get" => OpKind::Get,
            "getrow" => OpKind::GetRow,
            "put" => OpKind::Put,
            "scan" => OpKind::Scan,
            other => return Err(format!("--mix: unknown operation {other:?}")),
        };
        let w: u32 = w
            .trim()
            .parse()
            .map_err(|_| format!("--mix: bad weight in {part:?}"))?;
        if w > 0 {
            out.push((kind, w));
        }
    }
    if out.is_empty() {
        return Err("--mix needs at least one positive weight".into());
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/// splitmix64: a tiny deterministic generator (the crate has no runtime dependency on rand).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

fn seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(42)
        ^ ((std::process::id() as u64) << 32)
}

fn row_key(i: u64) -> Vec<u8> {
    format!("r{i:08}").into_bytes()
}

/// A directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(what: &str) -> Result<TempDir, String> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let p = std::env::temp_dir().join(format!(
            "redbase-loadgen-{what}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&p).map_err(|e| format!("cannot create {}: {e}", p.display()))?;
        Ok(TempDir(p))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn loopback(addr: &str) -> Result<SocketAddr, String> {
    let a = addr
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {addr}: {e}"))?
        .next()
        .ok_or_else(|| format!("{addr} resolves to nothing"))?;
    if !a.ip().is_loopback() {
        return Err(format!(
            "{addr} ({a}) is not a loopback address; loadgen only drives local servers"
        ));
    }
    Ok(a)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

// ---------------------------------------------------------------------------------------------
// Clients
// ---------------------------------------------------------------------------------------------

type InProt = Box<dyn TInputProtocol + Send>;
type OutProt = Box<dyn TOutputProtocol + Send>;
type Client = HbaseSyncClient<InProt, OutProt>;

/// One connection's protocol pair, for either generated client.
fn open_protocols(
    addr: SocketAddr,
    transport: TransportKind,
    protocol: ProtocolKind,
) -> Result<(InProt, OutProt), String> {
    let s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .map_err(|e| format!("connect {addr}: {e}"))?;
    s.set_nodelay(true).map_err(|e| e.to_string())?;
    let (r, w) = TTcpChannel::with_stream(s)
        .split()
        .map_err(|e| e.to_string())?;
    let (r, w): (
        Box<dyn TReadTransport + Send>,
        Box<dyn TWriteTransport + Send>,
    ) = match transport {
        TransportKind::Buffered => (
            Box::new(TBufferedReadTransport::new(r)),
            Box::new(TBufferedWriteTransport::new(w)),
        ),
        TransportKind::Framed => (
            Box::new(TFramedReadTransport::new(r)),
            Box::new(TFramedWriteTransport::new(w)),
        ),
    };
    Ok(match protocol {
        ProtocolKind::Binary => (
            Box::new(TBinaryInputProtocol::new(r, true)),
            Box::new(TBinaryOutputProtocol::new(w, true)),
        ),
        ProtocolKind::Compact => (
            Box::new(TCompactInputProtocol::new(r)),
            Box::new(TCompactOutputProtocol::new(w)),
        ),
    })
}

fn connect(
    addr: SocketAddr,
    transport: TransportKind,
    protocol: ProtocolKind,
) -> Result<Client, String> {
    let (i, o) = open_protocols(addr, transport, protocol)?;
    Ok(HbaseSyncClient::new(i, o))
}

/// A connection of the gateway being measured.
enum Session {
    T1(Client),
    T2(t2::Client),
}

/// What every client needs to know about the work.
struct Spec {
    /// `Thrift1` or `Thrift2`, never `Both`.
    service: ServiceKind,
    t2_scan: T2Scan,
    table: Vec<u8>,
    family: Vec<u8>,
    qualifier: Vec<u8>,
    column: Vec<u8>,
    rows: u64,
    scan_rows: u32,
    value: Vec<u8>,
    mix: Vec<(OpKind, u32)>,
    transport: TransportKind,
    protocol: ProtocolKind,
    /// Thrift2 puts only: the durability measured puts carry (preloading never sets one).
    durability: Option<DurabilityKind>,
}

impl Spec {
    fn new(a: &ClientArgs, service: ServiceKind, t2_scan: T2Scan) -> Result<Spec, String> {
        if service == ServiceKind::Both {
            return Err("one Spec per service".into());
        }
        if a.rows <= a.scan_rows as u64 {
            return Err(format!(
                "--rows ({}) must exceed --scan-rows ({})",
                a.rows, a.scan_rows
            ));
        }
        if a.scan_rows == 0 || a.scan_rows > i32::MAX as u32 {
            return Err("--scan-rows must be positive".into());
        }
        Ok(Spec {
            service,
            t2_scan,
            table: a.table.as_bytes().to_vec(),
            family: b"f".to_vec(),
            qualifier: b"q".to_vec(),
            column: b"f:q".to_vec(),
            rows: a.rows,
            scan_rows: a.scan_rows,
            value: (0..a.value_size).map(|i| b'a' + (i % 26) as u8).collect(),
            mix: parse_mix(&a.mix)?,
            transport: a.transport,
            protocol: a.protocol,
            durability: None,
        })
    }

    /// A Thrift1 client (start-up polling).
    fn connect(&self, addr: SocketAddr) -> Result<Client, String> {
        connect(addr, self.transport, self.protocol)
    }

    /// A client of the measured gateway.
    fn session(&self, addr: SocketAddr) -> Result<Session, String> {
        Ok(match self.service {
            ServiceKind::Thrift2 => Session::T2(t2::connect(self, addr)?),
            _ => Session::T1(self.connect(addr)?),
        })
    }

    /// One operation on the measured gateway.
    fn op(&self, c: &mut Session, kind: OpKind, rng: &mut Rng) -> Result<(), String> {
        match c {
            Session::T1(c) => self.op1(c, kind, rng),
            Session::T2(c) => t2::op(self, c, kind, rng),
        }
    }

    /// Creates the table (if missing) and loads the rows gets and scans read, through the
    /// measured gateway.
    fn prepare(&self, addr: SocketAddr) -> Result<(), String> {
        match self.service {
            ServiceKind::Thrift2 => t2::prepare(self, addr),
            _ => self.prepare1(addr),
        }
    }

    /// `--preload skip`: checks that an earlier run loaded the rows (the last one exists).
    fn check_loaded(&self, addr: SocketAddr) -> Result<(), String> {
        let mut s = self.session(addr)?;
        let last = self.rows - 1;
        let r = match &mut s {
            Session::T1(c) => c
                .get(
                    self.table.clone(),
                    row_key(last),
                    self.column.clone(),
                    BTreeMap::new(),
                )
                .map_err(|e| format!("get: {e}"))
                .map(|cells| cells.len() == 1),
            Session::T2(c) => t2::has_row(self, c, row_key(last)),
        };
        match r {
            Ok(true) => Ok(()),
            Ok(false) => Err(format!(
                "--preload skip: row {} is missing; load the table first (--preload only)",
                String::from_utf8_lossy(&row_key(last))
            )),
            Err(e) => Err(format!("--preload skip: {e}")),
        }
    }

    fn pick(&self, workload: Workload, rng: &mut Rng) -> OpKind {
        match workload {
            Workload::Get => OpKind::Get,
            Workload::Getrow => OpKind::GetRow,
            Workload::Put => OpKind::Put,
            Workload::Scan => OpKind::Scan,
            Workload::Mix => {
                let total: u64 = self.mix.iter().map(|m| m.1 as u64).sum();
                let mut x = rng.below(total);
                for &(k, w) in &self.mix {
                    if x < w as u64 {
                        return k;
                    }
                    x -= w as u64;
                }
                self.mix[0].0
            }
        }
    }

    fn put(&self, value: &[u8]) -> Mutation {
        Mutation {
            is_delete: Some(false),
            column: Some(self.column.clone()),
            value: Some(value.to_vec()),
            write_to_w_a_l: Some(true),
        }
    }

    /// One Thrift1 operation; replies are checked so that neither side can win by answering
    /// less.
    fn op1(&self, c: &mut Client, kind: OpKind, rng: &mut Rng) -> Result<(), String> {
        let e = |what: &str, err: thrift::Error| format!("{what}: {err}");
        match kind {
            OpKind::Get => {
                let row = row_key(rng.below(self.rows));
                let cells = c
                    .get(
                        self.table.clone(),
                        row,
                        self.column.clone(),
                        BTreeMap::new(),
                    )
                    .map_err(|x| e("get", x))?;
                let ok = cells.len() == 1
                    && cells[0].value.as_ref().map(Vec::len) == Some(self.value.len());
                if !ok {
                    return Err(format!("get returned {} cells, not one", cells.len()));
                }
            }
            OpKind::GetRow => {
                let row = row_key(rng.below(self.rows));
                let rows = c
                    .get_row(self.table.clone(), row, BTreeMap::new())
                    .map_err(|x| e("getRow", x))?;
                if rows.len() != 1 {
                    return Err(format!("getRow returned {} rows, not one", rows.len()));
                }
            }
            OpKind::Put => {
                let row = format!("w{:016x}", rng.next()).into_bytes();
                c.mutate_row(
                    self.table.clone(),
                    row,
                    vec![self.put(&self.value)],
                    BTreeMap::new(),
                )
                .map_err(|x| e("mutateRow", x))?;
            }
            OpKind::Scan => {
                let n = self.scan_rows as u64;
                let start = rng.below(self.rows - n);
                let id = c
                    .scanner_open_with_stop(
                        self.table.clone(),
                        row_key(start),
                        row_key(start + n),
                        vec![self.column.clone()],
                        BTreeMap::new(),
                    )
                    .map_err(|x| e("scannerOpenWithStop", x))?;
                let rows = c
                    .scanner_get_list(id, self.scan_rows as i32)
                    .map_err(|x| e("scannerGetList", x))?;
                c.scanner_close(id).map_err(|x| e("scannerClose", x))?;
                if rows.len() as u64 != n {
                    return Err(format!("scan returned {} rows, not {n}", rows.len()));
                }
            }
        }
        Ok(())
    }

    /// `prepare` over Thrift1.
    fn prepare1(&self, addr: SocketAddr) -> Result<(), String> {
        let mut c = self.connect(addr)?;
        let exists = c
            .get_table_names()
            .map_err(|e| format!("getTableNames: {e}"))?
            .contains(&self.table);
        if !exists {
            let family = ColumnDescriptor {
                name: Some(self.family.clone()),
                max_versions: Some(1),
                compression: Some("NONE".into()),
                in_memory: Some(false),
                bloom_filter_type: Some("NONE".into()),
                bloom_filter_vector_size: Some(0),
                bloom_filter_nb_hashes: Some(0),
                // HBase honours this: false would make every HBase read miss its block cache
                block_cache_enabled: Some(true),
                time_to_live: Some(i32::MAX),
            };
            c.create_table(self.table.clone(), vec![family])
                .map_err(|e| format!("createTable: {e}"))?;
        }
        let mut i = 0;
        while i < self.rows {
            let end = (i + 1000).min(self.rows);
            let batch = (i..end)
                .map(|r| BatchMutation {
                    row: Some(row_key(r)),
                    mutations: Some(vec![self.put(&self.value)]),
                })
                .collect();
            c.mutate_rows(self.table.clone(), batch, BTreeMap::new())
                .map_err(|e| format!("mutateRows: {e}"))?;
            i = end;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// CPU time per thread group (from /proc/self/task/*/stat)
// ---------------------------------------------------------------------------------------------

const CLIENT_THREAD: &str = "lg-client";
const NULL_THREAD: &str = "rt-null";

/// CPU ticks used in an interval by: client threads, null server threads, everything else (the
/// redbase runtime and the engine's own threads).
///
/// The kernel reports each thread's time in whole clock ticks, which loses most of the time of
/// short-lived threads, so the client share is the process total (which also keeps the time of
/// threads that have exited) minus the server threads, which are long-lived.
#[derive(Clone, Copy, Default, Debug)]
struct Cpu {
    client: u64,
    null: u64,
    other: u64,
}

/// Per-thread CPU ticks at one moment, and the process total.
struct CpuSnap {
    total: u64,
    /// Server threads only: thread id -> (is a null server thread, ticks).
    threads: HashMap<String, (bool, u64)>,
}

/// utime + stime of a `/proc/.../stat` line, and the thread or process name.
fn stat_ticks(stat: &str) -> Option<(&str, u64)> {
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    // After "(comm)" comes field 3 (state); utime and stime are fields 14 and 15.
    let f: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    let utime = f.get(11)?.parse::<u64>().ok()?;
    let stime = f.get(12)?.parse::<u64>().ok()?;
    Some((&stat[open + 1..close], utime + stime))
}

impl CpuSnap {
    fn now() -> CpuSnap {
        let total = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .and_then(|s| stat_ticks(&s).map(|x| x.1))
            .unwrap_or(0);
        let mut threads = HashMap::new();
        if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
            for t in dir.flatten() {
                let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else {
                    continue;
                };
                let Some((name, ticks)) = stat_ticks(&stat) else {
                    continue;
                };
                if !name.starts_with(CLIENT_THREAD) {
                    let tid = t.file_name().to_string_lossy().into_owned();
                    threads.insert(tid, (name.starts_with(NULL_THREAD), ticks));
                }
            }
        }
        CpuSnap { total, threads }
    }

    /// The interval from `before` to this snapshot. A server thread that exited in between
    /// loses its share to the client column (tokio retires idle blocking threads after 10 s).
    fn since(&self, before: &CpuSnap) -> Cpu {
        let mut cpu = Cpu::default();
        for (tid, &(null, ticks)) in &self.threads {
            let d = ticks.saturating_sub(before.threads.get(tid).map_or(0, |x| x.1));
            if null {
                cpu.null += d;
            } else {
                cpu.other += d;
            }
        }
        cpu.client = self
            .total
            .saturating_sub(before.total)
            .saturating_sub(cpu.null + cpu.other);
        cpu
    }
}

fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|t| *t > 0.0)
        .unwrap_or(100.0)
}

// ---------------------------------------------------------------------------------------------
// One measuring phase: N connections, one workload, one server
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct Sample {
    ops: u64,
    errors: u64,
    first_error: Option<String>,
    wall: Duration,
    lat_ns: Vec<u64>,
    cpu: Cpu,
}

impl Sample {
    fn add(&mut self, o: Sample) {
        self.ops += o.ops;
        self.errors += o.errors;
        if self.first_error.is_none() {
            self.first_error = o.first_error;
        }
        self.wall += o.wall;
        self.lat_ns.extend(o.lat_ns);
        self.cpu.client += o.cpu.client;
        self.cpu.null += o.cpu.null;
        self.cpu.other += o.cpu.other;
    }

    fn rate(&self) -> f64 {
        if self.wall.is_zero() {
            0.0
        } else {
            self.ops as f64 / self.wall.as_secs_f64()
        }
    }

    /// Latency percentile in milliseconds (sorts in place).
    fn pct(&mut self, p: f64) -> f64 {
        if self.lat_ns.is_empty() {
            return f64::NAN;
        }
        self.lat_ns.sort_unstable();
        let i = ((p / 100.0) * (self.lat_ns.len() - 1) as f64).round() as usize;
        self.lat_ns[i.min(self.lat_ns.len() - 1)] as f64 / 1e6
    }
}

struct WorkerOut {
    ops: u64,
    errors: u64,
    first_error: Option<String>,
    last_end: Option<Instant>,
    lat_ns: Vec<u64>,
}

fn run_phase(
    addr: SocketAddr,
    spec: &Arc<Spec>,
    workload: Workload,
    conns: usize,
    dur: Duration,
    seed: u64,
) -> Sample {
    let ready = Arc::new(Barrier::new(conns + 1));
    let finished = Arc::new(Barrier::new(conns + 1));
    let release = Arc::new(Barrier::new(conns + 1));
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::with_capacity(conns);
    for w in 0..conns {
        let (spec, ready, finished, release, stop) = (
            spec.clone(),
            ready.clone(),
            finished.clone(),
            release.clone(),
            stop.clone(),
        );
        let mut rng = Rng(seed ^ (w as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F));
        let h = thread::Builder::new()
            .name(format!("{CLIENT_THREAD}-{w}"))
            .spawn(move || {
                let client = spec.session(addr);
                ready.wait();
                let mut out = WorkerOut {
                    ops: 0,
                    errors: 0,
                    first_error: None,
                    last_end: None,
                    lat_ns: Vec::with_capacity(4096),
                };
                match client {
                    Err(e) => {
                        out.errors = 1;
                        out.first_error = Some(e);
                    }
                    Ok(mut c) => {
                        while !stop.load(Ordering::Relaxed) {
                            let kind = spec.pick(workload, &mut rng);
                            let t = Instant::now();
                            let r = spec.op(&mut c, kind, &mut rng);
                            let end = Instant::now();
                            match r {
                                Ok(()) => {
                                    out.ops += 1;
                                    out.lat_ns.push((end - t).as_nanos() as u64);
                                    out.last_end = Some(end);
                                }
                                Err(e) => {
                                    out.errors += 1;
                                    out.first_error = Some(e);
                                    break;
                                }
                            }
                        }
                    }
                }
                // Stay alive until the main thread has read this thread's CPU time.
                finished.wait();
                release.wait();
                out
            })
            .expect("spawn a client thread");
        workers.push(h);
    }
    ready.wait();
    let cpu0 = CpuSnap::now();
    let t0 = Instant::now();
    thread::sleep(dur);
    stop.store(true, Ordering::Relaxed);
    finished.wait();
    let cpu = CpuSnap::now().since(&cpu0);
    release.wait();
    let mut s = Sample {
        cpu,
        ..Sample::default()
    };
    let mut last = t0;
    for h in workers {
        let o = h.join().expect("client thread panicked");
        s.ops += o.ops;
        s.errors += o.errors;
        if s.first_error.is_none() {
            s.first_error = o.first_error;
        }
        if let Some(e) = o.last_end {
            last = last.max(e);
        }
        s.lat_ns.extend(o.lat_ns);
    }
    s.wall = last - t0;
    s
}

// ---------------------------------------------------------------------------------------------
// The null server: same transport detection and processor glue, canned replies
// ---------------------------------------------------------------------------------------------

struct NullHandler {
    table: Text,
    cell: TCell,
    row: TRowResult,
    scan: Vec<TRowResult>,
}

impl NullHandler {
    fn new(spec: &Spec) -> NullHandler {
        let cell = TCell {
            value: Some(spec.value.clone()),
            timestamp: Some(1_700_000_000_000),
        };
        let row_of = |i: u64| TRowResult {
            row: Some(row_key(i)),
            columns: Some(BTreeMap::from([(spec.column.clone(), cell.clone())])),
            sorted_columns: None,
        };
        NullHandler {
            table: spec.table.clone(),
            row: row_of(0),
            scan: (0..spec.scan_rows as u64).map(row_of).collect(),
            cell,
        }
    }

    fn cells(&self) -> thrift::Result<Vec<TCell>> {
        Ok(vec![self.cell.clone()])
    }

    fn rows(&self) -> thrift::Result<Vec<TRowResult>> {
        Ok(vec![self.row.clone()])
    }

    fn region(&self) -> TRegionInfo {
        TRegionInfo {
            start_key: Some(Vec::new()),
            end_key: Some(Vec::new()),
            id: Some(1),
            name: Some(b"loadgen,,1.".to_vec()),
            version: Some(1),
            server_name: Some(b"localhost".to_vec()),
            port: Some(0),
        }
    }
}

type Attrs = BTreeMap<Text, Text>;

impl HbaseSyncHandler for NullHandler {
    fn handle_enable_table(&self, _t: Bytes) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_disable_table(&self, _t: Bytes) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_is_table_enabled(&self, _t: Bytes) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_compact(&self, _t: Bytes) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_major_compact(&self, _t: Bytes) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_get_table_names(&self) -> thrift::Result<Vec<Text>> {
        Ok(vec![self.table.clone()])
    }
    fn handle_get_table_names_with_is_table_enabled(&self) -> thrift::Result<BTreeMap<Text, bool>> {
        Ok(BTreeMap::from([(self.table.clone(), true)]))
    }
    fn handle_get_column_descriptors(
        &self,
        _t: Text,
    ) -> thrift::Result<BTreeMap<Text, ColumnDescriptor>> {
        let name = b"f:".to_vec();
        let d = ColumnDescriptor {
            name: Some(name.clone()),
            max_versions: Some(1),
            ..ColumnDescriptor::default()
        };
        Ok(BTreeMap::from([(name, d)]))
    }
    fn handle_get_table_regions(&self, _t: Text) -> thrift::Result<Vec<TRegionInfo>> {
        Ok(vec![self.region()])
    }
    fn handle_create_table(&self, _t: Text, _f: Vec<ColumnDescriptor>) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_table(&self, _t: Text) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_get(&self, _t: Text, _r: Text, _c: Text, _a: Attrs) -> thrift::Result<Vec<TCell>> {
        self.cells()
    }
    fn handle_get_ver(
        &self,
        _t: Text,
        _r: Text,
        _c: Text,
        _n: i32,
        _a: Attrs,
    ) -> thrift::Result<Vec<TCell>> {
        self.cells()
    }
    fn handle_get_ver_ts(
        &self,
        _t: Text,
        _r: Text,
        _c: Text,
        _ts: i64,
        _n: i32,
        _a: Attrs,
    ) -> thrift::Result<Vec<TCell>> {
        self.cells()
    }
    fn handle_get_row(&self, _t: Text, _r: Text, _a: Attrs) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_row_with_columns(
        &self,
        _t: Text,
        _r: Text,
        _c: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_row_ts(
        &self,
        _t: Text,
        _r: Text,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_row_with_columns_ts(
        &self,
        _t: Text,
        _r: Text,
        _c: Vec<Text>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_rows(
        &self,
        _t: Text,
        _r: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_rows_with_columns(
        &self,
        _t: Text,
        _r: Vec<Text>,
        _c: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_rows_ts(
        &self,
        _t: Text,
        _r: Vec<Text>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_get_rows_with_columns_ts(
        &self,
        _t: Text,
        _r: Vec<Text>,
        _c: Vec<Text>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_mutate_row(
        &self,
        _t: Text,
        _r: Text,
        _m: Vec<Mutation>,
        _a: Attrs,
    ) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_mutate_row_ts(
        &self,
        _t: Text,
        _r: Text,
        _m: Vec<Mutation>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_mutate_rows(
        &self,
        _t: Text,
        _b: Vec<BatchMutation>,
        _a: Attrs,
    ) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_mutate_rows_ts(
        &self,
        _t: Text,
        _b: Vec<BatchMutation>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_atomic_increment(&self, _t: Text, _r: Text, _c: Text, v: i64) -> thrift::Result<i64> {
        Ok(v)
    }
    fn handle_delete_all(&self, _t: Text, _r: Text, _c: Text, _a: Attrs) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_all_ts(
        &self,
        _t: Text,
        _r: Text,
        _c: Text,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_all_row(&self, _t: Text, _r: Text, _a: Attrs) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_increment(&self, _i: TIncrement) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_increment_rows(&self, _i: Vec<TIncrement>) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_delete_all_row_ts(
        &self,
        _t: Text,
        _r: Text,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_scanner_open_with_scan(
        &self,
        _t: Text,
        _s: TScan,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_open(
        &self,
        _t: Text,
        _s: Text,
        _c: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_open_with_stop(
        &self,
        _t: Text,
        _s: Text,
        _e: Text,
        _c: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_open_with_prefix(
        &self,
        _t: Text,
        _p: Text,
        _c: Vec<Text>,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_open_ts(
        &self,
        _t: Text,
        _s: Text,
        _c: Vec<Text>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_open_with_stop_ts(
        &self,
        _t: Text,
        _s: Text,
        _e: Text,
        _c: Vec<Text>,
        _ts: i64,
        _a: Attrs,
    ) -> thrift::Result<ScannerID> {
        Ok(1)
    }
    fn handle_scanner_get(&self, _id: ScannerID) -> thrift::Result<Vec<TRowResult>> {
        self.rows()
    }
    fn handle_scanner_get_list(
        &self,
        _id: ScannerID,
        nb_rows: i32,
    ) -> thrift::Result<Vec<TRowResult>> {
        Ok(self
            .scan
            .iter()
            .take(nb_rows.max(0) as usize)
            .cloned()
            .collect())
    }
    fn handle_scanner_close(&self, _id: ScannerID) -> thrift::Result<()> {
        Ok(())
    }
    fn handle_get_region_info(&self, _r: Text) -> thrift::Result<TRegionInfo> {
        Ok(self.region())
    }
    fn handle_append(&self, _a: TAppend) -> thrift::Result<Vec<TCell>> {
        self.cells()
    }
    fn handle_check_and_put(
        &self,
        _t: Text,
        _r: Text,
        _c: Text,
        _v: Text,
        _m: Mutation,
        _a: Attrs,
    ) -> thrift::Result<bool> {
        Ok(true)
    }
    fn handle_get_thrift_server_type(&self) -> thrift::Result<TThriftServerType> {
        Ok(TThriftServerType::ONE)
    }
    fn handle_get_cluster_id(&self) -> thrift::Result<String> {
        Ok("null".into())
    }
}

struct NullService {
    processor: HbaseSyncProcessor<NullHandler>,
}

impl Service for NullService {
    fn process(&self, message: &[u8], protocol: Protocol) -> Vec<u8> {
        process_message(&self.processor as &dyn TProcessor, message, protocol)
    }
}

// ---------------------------------------------------------------------------------------------
// In-process servers
// ---------------------------------------------------------------------------------------------

/// A server on its own Tokio runtime (multi-threaded, as in the `redbase` binary).
struct InProc {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl InProc {
    fn start<F, Fut>(thread_name: &'static str, serve: F) -> Result<InProc, String>
    where
        F: FnOnce(tokio::net::TcpListener, tokio::sync::oneshot::Receiver<()>) -> Fut
            + Send
            + 'static,
        Fut: std::future::Future<Output = ()>,
    {
        let (addr_tx, addr_rx) = mpsc::channel::<Result<SocketAddr, String>>();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = thread::Builder::new()
            .name(thread_name.into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .enable_all()
                    .thread_name(thread_name)
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = addr_tx.send(Err(format!("runtime: {e}")));
                        return;
                    }
                };
                rt.block_on(async move {
                    let l = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = addr_tx.send(Err(format!("bind 127.0.0.1:0: {e}")));
                            return;
                        }
                    };
                    let _ = addr_tx.send(l.local_addr().map_err(|e| e.to_string()));
                    serve(l, stop_rx).await;
                });
            })
            .map_err(|e| e.to_string())?;
        let addr = addr_rx
            .recv()
            .map_err(|_| "server thread died".to_string())??;
        Ok(InProc {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    fn stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for InProc {
    fn drop(&mut self) {
        self.stop();
    }
}

/// redbase serving only the gateway `service` on the listener.
fn start_redbase(dir: &Path, service: ServiceKind) -> Result<InProc, String> {
    let engine = Engine::open(dir, EngineConfig::default())
        .map_err(|e| format!("cannot open the engine in {}: {e}", dir.display()))?;
    InProc::start("rt-redbase", move |l, stop| async move {
        let (thrift1, thrift2) = match service {
            ServiceKind::Thrift2 => (None, Some(l)),
            _ => (Some(l), None),
        };
        server::run(
            engine.clone(),
            Listeners {
                thrift1,
                thrift2,
                http: None,
            },
            Config::default(),
            async move {
                let _ = stop.await;
            },
        )
        .await;
        engine.close();
    })
}

fn start_null(spec: &Spec) -> Result<InProc, String> {
    let service: Arc<dyn Service> = match spec.service {
        ServiceKind::Thrift2 => t2::null_service(spec),
        _ => Arc::new(NullService {
            processor: HbaseSyncProcessor::new(NullHandler::new(spec)),
        }),
    };
    InProc::start(NULL_THREAD, move |l, stop| async move {
        rthrift::run(
            l,
            service,
            "null",
            Limits::default(),
            std::sync::Arc::new(()),
            async move {
                let _ = stop.await;
            },
        )
        .await;
    })
}

// ---------------------------------------------------------------------------------------------
// bench
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Redbase,
    Null,
}

struct Cell {
    workload: Workload,
    conns: usize,
    redbase: Sample,
    null: Sample,
    /// Per round: (redbase ops/s, null ops/s).
    rounds: Vec<(f64, f64)>,
}

fn bench(a: BenchArgs) -> Result<bool, String> {
    if a.connections.is_empty() || a.connections.contains(&0) {
        return Err("--connections needs positive counts".into());
    }
    if a.rounds == 0 || a.secs.is_nan() || a.secs <= 0.0 {
        return Err("--rounds and --secs must be positive".into());
    }
    if a.service != ServiceKind::Both {
        return bench_one(&a, a.service).map(|v| v != Some(false));
    }
    if a.addr.is_some() {
        return Err("--addr is one gateway's address: use --service thrift1 or thrift2".into());
    }
    let mut verdicts = Vec::new();
    for s in [ServiceKind::Thrift1, ServiceKind::Thrift2] {
        println!("## {}", s.name());
        println!();
        verdicts.push((s, bench_one(&a, s)?));
        println!();
    }
    for (s, v) in &verdicts {
        println!(
            "{}: gets at 16 connections >= {:.0}% of the null server: {}",
            s.name(),
            a.target * 100.0,
            match v {
                Some(true) => "pass",
                Some(false) => "FAIL",
                None => "not measured",
            }
        );
    }
    Ok(verdicts.iter().all(|v| v.1 != Some(false)))
}

/// One gateway, redbase vs its null server: the verdict on the target, if measured.
fn bench_one(a: &BenchArgs, service: ServiceKind) -> Result<Option<bool>, String> {
    let mut spec = Spec::new(&a.client, service, a.thrift2_scan)?;
    if let Some(d) = a.durability {
        if service != ServiceKind::Thrift2 {
            return Err(format!(
                "--durability {d:?} needs --service thrift2: Thrift1's mutateRow cannot carry one"
            ));
        }
        spec.durability = Some(d);
    }
    let spec = Arc::new(spec);
    let ticks = clock_ticks();
    let cores = thread::available_parallelism().map_or(0, |n| n.get());
    let load_before = loadavg();

    let dir;
    let mut redbase_srv = None;
    let redbase_addr = match &a.addr {
        Some(addr) => loopback(addr)?,
        None => {
            dir = TempDir::new("data")?;
            let s = start_redbase(dir.path(), service)?;
            let addr = s.addr;
            redbase_srv = Some(s);
            addr
        }
    };
    let mut null_srv = if a.no_null || a.preload == Preload::Only {
        None
    } else {
        Some(start_null(&spec)?)
    };
    let null_addr = null_srv.as_ref().map(|s| s.addr);

    println!(
        "loadgen: {} gateway: redbase at {redbase_addr}{}, null server at {}; transport {:?}, protocol {:?}{}",
        service.name(),
        if a.addr.is_some() {
            " (external)"
        } else {
            " (in-process)"
        },
        null_addr.map_or("-".to_string(), |x| x.to_string()),
        spec.transport,
        spec.protocol,
        match (service, a.thrift2_scan) {
            (ServiceKind::Thrift2, T2Scan::Scanner) =>
                "; scans: openScanner + getScannerRows + closeScanner",
            (ServiceKind::Thrift2, T2Scan::Results) => "; scans: getScannerResults",
            _ => "",
        }
    );
    println!(
        "loadgen: {} rows of {} B, scans of {} rows, mix {:?}; {} s per side and cell in {} rounds; {} cores; load average {}",
        spec.rows, spec.value.len(), spec.scan_rows, a.client.mix, a.secs, a.rounds, cores, load_before
    );
    let t = Instant::now();
    if a.preload == Preload::Skip {
        spec.check_loaded(redbase_addr)?;
        println!("loadgen: not preloading (--preload skip): the table holds its rows");
    } else {
        spec.prepare(redbase_addr)?;
        println!(
            "loadgen: preloaded {} rows in {:.2} s",
            spec.rows,
            t.elapsed().as_secs_f64()
        );
    }
    if a.preload == Preload::Only {
        return Ok(None);
    }
    if let Some(d) = spec.durability {
        println!("loadgen: measured puts carry durability {d:?} (TDurability)");
    }

    let mut cells: Vec<Cell> = Vec::new();
    for &w in &a.workloads {
        for &c in &a.connections {
            cells.push(Cell {
                workload: w,
                conns: c,
                redbase: Sample::default(),
                null: Sample::default(),
                rounds: Vec::new(),
            });
        }
    }
    let sides = |first_redbase: bool| -> Vec<Side> {
        let mut v = Vec::new();
        if first_redbase {
            v.push(Side::Redbase);
        }
        if null_addr.is_some() {
            v.push(Side::Null);
        }
        if !first_redbase {
            v.push(Side::Redbase);
        }
        v
    };
    let addr_of = |s: Side| match s {
        Side::Redbase => redbase_addr,
        Side::Null => null_addr.expect("null server"),
    };

    let mut rng = Rng(seed());
    if a.warmup_secs > 0.0 {
        let d = Duration::from_secs_f64(a.warmup_secs);
        for cell in &cells {
            for s in sides(true) {
                let _ = run_phase(addr_of(s), &spec, cell.workload, cell.conns, d, rng.next());
            }
        }
    }
    let per_round = Duration::from_secs_f64(a.secs / a.rounds as f64);
    let started = Instant::now();
    let mut failed = false;
    for round in 0..a.rounds {
        for (i, cell) in cells.iter_mut().enumerate() {
            let mut rates = (0.0, 0.0);
            for s in sides((round + i) % 2 == 0) {
                let sample = run_phase(
                    addr_of(s),
                    &spec,
                    cell.workload,
                    cell.conns,
                    per_round,
                    rng.next(),
                );
                if let Some(e) = &sample.first_error {
                    if !failed {
                        eprintln!(
                            "loadgen: {} at {} connections against {}: {} errors, first: {e}",
                            cell.workload.name(),
                            cell.conns,
                            if s == Side::Redbase {
                                "redbase"
                            } else {
                                "null"
                            },
                            sample.errors
                        );
                    }
                    failed = true;
                }
                match s {
                    Side::Redbase => {
                        rates.0 = sample.rate();
                        cell.redbase.add(sample);
                    }
                    Side::Null => {
                        rates.1 = sample.rate();
                        cell.null.add(sample);
                    }
                }
            }
            cell.rounds.push(rates);
        }
        eprintln!(
            "loadgen: round {}/{} done ({:.1} s, load average {})",
            round + 1,
            a.rounds,
            started.elapsed().as_secs_f64(),
            loadavg()
        );
    }
    let load_after = loadavg();
    if let Some(s) = null_srv.as_mut() {
        s.stop();
    }
    if let Some(mut s) = redbase_srv.take() {
        s.stop();
    }

    // The report.
    let external = a.addr.is_some();
    println!();
    println!(
        "| workload | conns | redbase ops/s | redbase p50 / p99 ms | null ops/s | null p50 / p99 ms | ratio (per-round range) | server CPU us/op redbase / null | client CPU us/op redbase / null | target | result |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|---:|---:|---|---|");
    let mut verdict: Option<bool> = None;
    let us_per_op = |ticks_used: u64, ops: u64| {
        if ops == 0 {
            f64::NAN
        } else {
            ticks_used as f64 / ticks * 1e6 / ops as f64
        }
    };
    for cell in &mut cells {
        let r = &mut cell.redbase;
        let (r50, r99) = (r.pct(50.0), r.pct(99.0));
        let r_rate = r.rate();
        let r_srv = if external {
            "-".to_string()
        } else {
            format!("{:.0}", us_per_op(r.cpu.other, r.ops))
        };
        let r_cli = us_per_op(r.cpu.client, r.ops);
        let (n_rate, n_lat, ratio, range, srv, cli) = if null_addr.is_some() {
            let n = &mut cell.null;
            let (n50, n99) = (n.pct(50.0), n.pct(99.0));
            let n_rate = n.rate();
            let ratio = r_rate / n_rate;
            let per: Vec<f64> = cell
                .rounds
                .iter()
                .filter(|x| x.1 > 0.0)
                .map(|x| x.0 / x.1)
                .collect();
            let lo = per.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = per.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (
                format!("{n_rate:.0}"),
                format!("{n50:.3} / {n99:.3}"),
                Some(ratio),
                format!("{ratio:.2} ({lo:.2}–{hi:.2})"),
                format!("{r_srv} / {:.0}", us_per_op(n.cpu.null, n.ops)),
                format!("{r_cli:.0} / {:.0}", us_per_op(n.cpu.client, n.ops)),
            )
        } else {
            (
                "-".into(),
                "-".into(),
                None,
                "-".into(),
                r_srv,
                format!("{r_cli:.0}"),
            )
        };
        let is_target = cell.workload == Workload::Get && cell.conns == 16;
        let (target, result) = match (is_target, ratio) {
            (true, Some(x)) => {
                let pass = x >= a.target;
                verdict = Some(pass);
                (
                    format!(">= {:.0}% of null", a.target * 100.0),
                    if pass { "pass" } else { "FAIL" }.to_string(),
                )
            }
            _ => ("-".into(), "-".into()),
        };
        println!(
            "| {} | {} | {r_rate:.0} | {r50:.3} / {r99:.3} | {n_rate} | {n_lat} | {range} | {srv} | {cli} | {target} | {result} |",
            cell.workload.name(),
            cell.conns,
        );
    }
    println!();
    println!(
        "load average before {load_before}, after {load_after}; {cores} cores; CPU from /proc/self/task (clock tick {:.0} Hz)",
        ticks
    );
    // Thrift1's line is as it always was; Thrift2's names the gateway.
    let which = if service == ServiceKind::Thrift2 {
        "Thrift2 "
    } else {
        ""
    };
    match verdict {
        Some(true) => println!(
            "target: {which}gets at 16 connections >= {:.0}% of the null server: pass",
            a.target * 100.0
        ),
        Some(false) => println!(
            "target: {which}gets at 16 connections >= {:.0}% of the null server: FAIL",
            a.target * 100.0
        ),
        None => println!(
            "target: not measured (needs the get workload at 16 connections and the null server)"
        ),
    }
    if failed {
        return Err("some operations failed (see above)".into());
    }
    Ok(verdict)
}

// ---------------------------------------------------------------------------------------------
// startup
// ---------------------------------------------------------------------------------------------

fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let p = l.local_addr().map_err(|e| e.to_string())?.port();
    Ok(p)
}

/// VmRSS and VmHWM of a process, in KiB.
fn rss_kib(pid: u32) -> Result<(u64, u64), String> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    let field = |name: &str| {
        s.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Ok((field("VmRSS:"), field("VmHWM:")))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

struct Child {
    child: std::process::Child,
    t0: Instant,
}

impl Child {
    /// Runs `bin serve` with Thrift1 on `addr`; every other gateway the binary has (Thrift2)
    /// is kept on, as by default, but on a free loopback port.
    fn spawn(
        bin: &Path,
        data: &Path,
        log: &Path,
        addr: SocketAddr,
        thrift2: bool,
    ) -> Result<Child, String> {
        let log = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
        let mut cmd = Command::new(bin);
        cmd.arg("serve")
            .arg("--data-dir")
            .arg(data)
            .arg("--thrift1-addr")
            .arg(addr.to_string())
            // The operations listener stays on, as by default, off the shared port 8080.
            .arg("--http-addr")
            .arg("127.0.0.1:0");
        if thrift2 {
            cmd.arg("--thrift2-addr")
                .arg(format!("127.0.0.1:{}", free_port()?));
        }
        let t0 = Instant::now();
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        Ok(Child { child, t0 })
    }

    /// Polls until a Thrift call is answered: (time to the first accepted TCP connection, time
    /// to the first answer), both from exec.
    fn wait_ready(
        &mut self,
        spec: &Spec,
        addr: SocketAddr,
    ) -> Result<(Duration, Duration), String> {
        let mut connected = None;
        loop {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Err(format!("redbase exited during start-up: {st}"));
            }
            if self.t0.elapsed() > Duration::from_secs(30) {
                return Err("redbase did not answer within 30 s".into());
            }
            if let Ok(mut c) = spec.connect(addr) {
                connected.get_or_insert_with(|| self.t0.elapsed());
                if c.get_table_names().is_ok() {
                    let answered = self.t0.elapsed();
                    return Ok((connected.unwrap_or(answered), answered));
                }
            }
            thread::sleep(Duration::from_micros(200));
        }
    }

    /// SIGTERM, then waits: (time to exit, exit code).
    fn terminate(mut self) -> Result<(Duration, Option<i32>), String> {
        let pid = self.child.id();
        let t = Instant::now();
        let st = Command::new("kill")
            .arg("-TERM")
            .arg(pid.to_string())
            .status()
            .map_err(|e| format!("kill: {e}"))?;
        if !st.success() {
            return Err(format!("kill -TERM {pid} failed"));
        }
        loop {
            if let Some(st) = self.child.try_wait().map_err(|e| e.to_string())? {
                return Ok((t.elapsed(), st.code()));
            }
            if t.elapsed() > Duration::from_secs(60) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return Err("redbase did not exit within 60 s of SIGTERM".into());
            }
            thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

struct StartupRun {
    connect: Duration,
    answer: Duration,
    rss_start: u64,
    load_rate: f64,
    load_p99: f64,
    rss_loaded: u64,
    hwm: u64,
    stop: Duration,
    code: Option<i32>,
    re_connect: Duration,
    re_answer: Duration,
    re_rss: u64,
    re_stop: Duration,
    re_code: Option<i32>,
}

fn startup_run(
    a: &StartupArgs,
    spec: &Arc<Spec>,
    bin: &Path,
    thrift2: bool,
) -> Result<StartupRun, String> {
    let tmp = TempDir::new("startup")?;
    let data = tmp.path().join("data");
    let settle = Duration::from_secs_f64(a.settle_secs);

    let addr = loopback(&format!("127.0.0.1:{}", free_port()?))?;
    let mut child = Child::spawn(bin, &data, &tmp.path().join("server.log"), addr, thrift2)?;
    let pid = child.child.id();
    let (connect, answer) = child.wait_ready(spec, addr)?;
    thread::sleep(settle);
    let (rss_start, _) = rss_kib(pid)?;
    spec.prepare(addr)?;
    let mut load = run_phase(
        addr,
        spec,
        Workload::Mix,
        a.load_connections,
        Duration::from_secs_f64(a.load_secs),
        seed(),
    );
    if let Some(e) = &load.first_error {
        return Err(format!("load failed: {e}"));
    }
    thread::sleep(settle);
    let (rss_loaded, hwm) = rss_kib(pid)?;
    let (stop, code) = child.terminate()?;

    // Once more on the data just written.
    let addr = loopback(&format!("127.0.0.1:{}", free_port()?))?;
    let mut child = Child::spawn(bin, &data, &tmp.path().join("server2.log"), addr, thrift2)?;
    let pid = child.child.id();
    let (re_connect, re_answer) = child.wait_ready(spec, addr)?;
    thread::sleep(settle);
    let (re_rss, _) = rss_kib(pid)?;
    let (re_stop, re_code) = child.terminate()?;
    Ok(StartupRun {
        connect,
        answer,
        rss_start,
        load_rate: load.rate(),
        load_p99: load.pct(99.0),
        rss_loaded,
        hwm,
        stop,
        code,
        re_connect,
        re_answer,
        re_rss,
        re_stop,
        re_code,
    })
}

fn startup(a: StartupArgs) -> Result<bool, String> {
    let spec = Arc::new(Spec::new(&a.client, ServiceKind::Thrift1, T2Scan::Scanner)?);
    let bin = match &a.bin {
        Some(b) => b.clone(),
        None => std::env::current_exe()
            .map_err(|e| e.to_string())?
            .with_file_name("redbase"),
    };
    let meta = std::fs::metadata(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    let age = meta
        .modified()
        .ok()
        .and_then(|m| SystemTime::now().duration_since(m).ok())
        .map_or("?".to_string(), |d| format!("{:.0} s", d.as_secs_f64()));
    // Newer binaries also serve Thrift2 (by default on 0.0.0.0:9091): keep it on loopback.
    let help = Command::new(&bin)
        .args(["serve", "--help"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    let thrift2 = String::from_utf8_lossy(&help.stdout).contains("--thrift2-addr");
    println!(
        "startup: {} (built {age} ago{}); {} runs; load: mix {:?}, {} connections, {} s; load average {}",
        bin.display(),
        if thrift2 {
            "; Thrift2 gateway on too, on a loopback port"
        } else {
            ""
        },
        a.runs,
        a.client.mix,
        a.load_connections,
        a.load_secs,
        loadavg()
    );
    println!();
    println!("| run | exec → TCP accept ms | exec → first answer ms | idle RSS after start-up MiB | load ops/s (p99 ms) | idle RSS after load MiB | peak RSS MiB | SIGTERM → exit ms | exit code | restart on that data: first answer ms | idle RSS MiB | exit code |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut all_ok = true;
    let mut answers = Vec::new();
    let mut re_answers = Vec::new();
    for run in 1..=a.runs {
        let r = startup_run(&a, &spec, &bin, thrift2)?;
        let ok = r.code == Some(0) && r.re_code == Some(0);
        all_ok &= ok;
        answers.push(ms(r.answer));
        re_answers.push(ms(r.re_answer));
        let code = |c: Option<i32>| c.map_or("signal".to_string(), |c| c.to_string());
        println!(
            "| {run} | {:.1} | {:.1} | {:.1} | {:.0} ({:.2}) | {:.1} | {:.1} | {:.1} | {} | {:.1} (TCP {:.1}) | {:.1} | {} (SIGTERM → exit {:.1} ms) |",
            ms(r.connect),
            ms(r.answer),
            mib(r.rss_start),
            r.load_rate,
            r.load_p99,
            mib(r.rss_loaded),
            mib(r.hwm),
            ms(r.stop),
            code(r.code),
            ms(r.re_answer),
            ms(r.re_connect),
            mib(r.re_rss),
            code(r.re_code),
            ms(r.re_stop),
        );
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    println!();
    println!(
        "exec → first answer: median {:.1} ms fresh, {:.1} ms on existing data; exit status on SIGTERM: {}; load average {}",
        median(&mut answers),
        median(&mut re_answers),
        if all_ok { "0 every time" } else { "NOT always 0" },
        loadavg()
    );
    Ok(all_ok)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Some(Cmd::Startup(a)) => startup(a),
        Some(Cmd::Bench(a)) => bench(a),
        None => bench(cli.bench),
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        // A missed target is a result, not an error, but scripts can see it.
        Ok(false) => ExitCode::from(2),
        Err(e) => {
            eprintln!("loadgen: {e}");
            ExitCode::FAILURE
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Thrift2: the client side of each operation, and the null `THBaseService`
// ---------------------------------------------------------------------------------------------

/// Thrift2 (`THBaseService`) clients and the null Thrift2 server. Kept apart from the Thrift1
/// code because both generated modules define `TScan`, `TIncrement` and more.
mod t2 {
    use std::collections::BTreeSet;
    use std::net::SocketAddr;
    use std::sync::Arc;

    use redbase::generated::hbase2::*;
    use redbase::thrift::frame::Protocol;
    use redbase::thrift::{process_message, Service};
    use thrift::server::TProcessor;

    use super::{
        open_protocols, row_key, DurabilityKind, InProt, OpKind, OutProt, Rng, Spec, T2Scan,
    };

    pub(super) type Client = THBaseServiceSyncClient<InProt, OutProt>;

    pub(super) fn connect(spec: &Spec, addr: SocketAddr) -> Result<Client, String> {
        let (i, o) = open_protocols(addr, spec.transport, spec.protocol)?;
        Ok(THBaseServiceSyncClient::new(i, o))
    }

    fn table_name(spec: &Spec) -> TTableName {
        TTableName {
            ns: None,
            qualifier: spec.table.clone(),
        }
    }

    /// The one column every row has (`f:q`).
    fn column(spec: &Spec) -> TColumn {
        TColumn {
            family: spec.family.clone(),
            qualifier: Some(spec.qualifier.clone()),
            timestamp: None,
        }
    }

    fn tget(row: Vec<u8>, columns: Option<Vec<TColumn>>) -> TGet {
        TGet {
            row,
            columns,
            timestamp: None,
            time_range: None,
            max_versions: None,
            filter_string: None,
            attributes: None,
            authorizations: None,
            consistency: None,
            target_replica_id: None,
            cache_blocks: None,
            store_limit: None,
            store_offset: None,
            existence_only: None,
            filter_bytes: None,
        }
    }

    /// One cell at `f:q`, with the table's default durability (durable, as Thrift1's puts).
    fn tput(spec: &Spec, row: Vec<u8>) -> TPut {
        TPut {
            row,
            column_values: vec![TColumnValue {
                family: spec.family.clone(),
                qualifier: spec.qualifier.clone(),
                value: spec.value.clone(),
                timestamp: None,
                tags: None,
                type_: None,
            }],
            timestamp: None,
            attributes: None,
            durability: None,
            cell_visibility: None,
        }
    }

    fn tscan(spec: &Spec, start: Vec<u8>, stop: Vec<u8>) -> TScan {
        TScan {
            start_row: Some(start),
            stop_row: Some(stop),
            columns: Some(vec![column(spec)]),
            caching: Some(spec.scan_rows as i32),
            max_versions: None,
            time_range: None,
            filter_string: None,
            batch_size: None,
            attributes: None,
            authorizations: None,
            reversed: None,
            cache_blocks: None,
            col_fam_time_range_map: None,
            read_type: None,
            limit: None,
            consistency: None,
            target_replica_id: None,
            filter_bytes: None,
        }
    }

    /// A get must return the row and exactly its one cell of the full value size.
    fn check_one(spec: &Spec, r: &TResult, what: &str) -> Result<(), String> {
        let ok = r.row.is_some()
            && r.column_values.len() == 1
            && r.column_values[0].value.len() == spec.value.len();
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{what} returned {} cells (row {}), not one of {} B",
                r.column_values.len(),
                if r.row.is_some() { "set" } else { "unset" },
                spec.value.len()
            ))
        }
    }

    /// One operation; replies are checked so that neither side can win by answering less.
    pub(super) fn op(
        spec: &Spec,
        c: &mut Client,
        kind: OpKind,
        rng: &mut Rng,
    ) -> Result<(), String> {
        let e = |what: &str, err: thrift::Error| format!("{what}: {err}");
        match kind {
            OpKind::Get => {
                let row = row_key(rng.below(spec.rows));
                let r = c
                    .get(spec.table.clone(), tget(row, Some(vec![column(spec)])))
                    .map_err(|x| e("get", x))?;
                check_one(spec, &r, "get")?;
            }
            OpKind::GetRow => {
                let row = row_key(rng.below(spec.rows));
                let r = c
                    .get(spec.table.clone(), tget(row, None))
                    .map_err(|x| e("get (whole row)", x))?;
                check_one(spec, &r, "get (whole row)")?;
            }
            OpKind::Put => {
                let row = format!("w{:016x}", rng.next()).into_bytes();
                let mut p = tput(spec, row);
                p.durability = spec.durability.map(|d| match d {
                    DurabilityKind::Skip => TDurability::SKIP_WAL,
                    DurabilityKind::Async => TDurability::ASYNC_WAL,
                    DurabilityKind::Sync => TDurability::SYNC_WAL,
                    DurabilityKind::Fsync => TDurability::FSYNC_WAL,
                });
                c.put(spec.table.clone(), p).map_err(|x| e("put", x))?;
            }
            OpKind::Scan => {
                let n = spec.scan_rows as u64;
                let start = rng.below(spec.rows - n);
                let scan = tscan(spec, row_key(start), row_key(start + n));
                let rows = match spec.t2_scan {
                    T2Scan::Scanner => {
                        let id = c
                            .open_scanner(spec.table.clone(), scan)
                            .map_err(|x| e("openScanner", x))?;
                        let rows = c
                            .get_scanner_rows(id, spec.scan_rows as i32)
                            .map_err(|x| e("getScannerRows", x))?;
                        c.close_scanner(id).map_err(|x| e("closeScanner", x))?;
                        rows
                    }
                    T2Scan::Results => c
                        .get_scanner_results(spec.table.clone(), scan, spec.scan_rows as i32)
                        .map_err(|x| e("getScannerResults", x))?,
                };
                if rows.len() as u64 != n {
                    return Err(format!("scan returned {} rows, not {n}", rows.len()));
                }
            }
        }
        Ok(())
    }

    /// Whether `row` has the one cell of the full value size.
    pub(super) fn has_row(spec: &Spec, c: &mut Client, row: Vec<u8>) -> Result<bool, String> {
        let r = c
            .get(spec.table.clone(), tget(row, Some(vec![column(spec)])))
            .map_err(|e| format!("get: {e}"))?;
        Ok(check_one(spec, &r, "get").is_ok())
    }

    /// Creates the table (if missing) and loads the rows gets and scans read.
    pub(super) fn prepare(spec: &Spec, addr: SocketAddr) -> Result<(), String> {
        let mut c = connect(spec, addr)?;
        let exists = c
            .table_exists(table_name(spec))
            .map_err(|e| format!("tableExists: {e}"))?;
        if !exists {
            let desc = TTableDescriptor {
                table_name: table_name(spec),
                columns: Some(vec![family_descriptor(spec)]),
                attributes: None,
                durability: None,
            };
            c.create_table(desc, Vec::new())
                .map_err(|e| format!("createTable: {e}"))?;
        }
        let mut i = 0;
        while i < spec.rows {
            let end = (i + 1000).min(spec.rows);
            let batch = (i..end).map(|r| tput(spec, row_key(r))).collect();
            c.put_multiple(spec.table.clone(), batch)
                .map_err(|e| format!("putMultiple: {e}"))?;
            i = end;
        }
        Ok(())
    }

    fn family_descriptor(spec: &Spec) -> TColumnFamilyDescriptor {
        TColumnFamilyDescriptor {
            name: spec.family.clone(),
            attributes: None,
            configuration: None,
            block_size: None,
            bloomn_filter_type: None,
            compression_type: None,
            dfs_replication: None,
            data_block_encoding: None,
            keep_deleted_cells: None,
            max_versions: Some(1),
            min_versions: None,
            scope: None,
            time_to_live: None,
            block_cache_enabled: None,
            cache_blooms_on_write: None,
            cache_data_on_write: None,
            cache_indexes_on_write: None,
            compress_tags: None,
            evict_blocks_on_close: None,
            in_memory: None,
        }
    }

    // -----------------------------------------------------------------------------------------
    // The null server
    // -----------------------------------------------------------------------------------------

    /// Canned replies shaped as redbase's: a get answers one `TResult` with the row and one
    /// `TColumnValue` (family, qualifier, value, timestamp, type), a scan 100 of them.
    struct NullHandler {
        table: TTableName,
        descriptor: TTableDescriptor,
        result: TResult,
        scan: Vec<TResult>,
    }

    impl NullHandler {
        fn new(spec: &Spec) -> NullHandler {
            let result_of = |i: u64| TResult {
                row: Some(row_key(i)),
                column_values: vec![TColumnValue {
                    family: spec.family.clone(),
                    qualifier: spec.qualifier.clone(),
                    value: spec.value.clone(),
                    timestamp: Some(1_700_000_000_000),
                    tags: None,
                    // HBase's Put cell type.
                    type_: Some(4),
                }],
                stale: Some(false),
                partial: Some(false),
            };
            NullHandler {
                table: table_name(spec),
                descriptor: TTableDescriptor {
                    table_name: table_name(spec),
                    columns: Some(vec![family_descriptor(spec)]),
                    attributes: None,
                    durability: None,
                },
                result: result_of(0),
                scan: (0..spec.scan_rows as u64).map(result_of).collect(),
            }
        }

        fn rows(&self, n: i32) -> thrift::Result<Vec<TResult>> {
            Ok(self.scan.iter().take(n.max(0) as usize).cloned().collect())
        }

        fn location(&self) -> THRegionLocation {
            THRegionLocation {
                server_name: TServerName {
                    host_name: "localhost".into(),
                    port: Some(0),
                    start_code: Some(1),
                },
                region_info: THRegionInfo {
                    region_id: 1,
                    table_name: self.table.qualifier.clone(),
                    start_key: Some(Vec::new()),
                    end_key: Some(Vec::new()),
                    offline: Some(false),
                    split: Some(false),
                    replica_id: Some(0),
                },
            }
        }

        fn namespace(name: &str) -> TNamespaceDescriptor {
            TNamespaceDescriptor {
                name: name.into(),
                configuration: None,
            }
        }
    }

    type Row = Vec<u8>;

    impl THBaseServiceSyncHandler for NullHandler {
        fn handle_exists(&self, _t: Row, _g: TGet) -> thrift::Result<bool> {
            Ok(true)
        }
        fn handle_exists_all(&self, _t: Row, g: Vec<TGet>) -> thrift::Result<Vec<bool>> {
            Ok(vec![true; g.len()])
        }
        fn handle_get(&self, _t: Row, _g: TGet) -> thrift::Result<TResult> {
            Ok(self.result.clone())
        }
        fn handle_get_multiple(&self, _t: Row, g: Vec<TGet>) -> thrift::Result<Vec<TResult>> {
            Ok(vec![self.result.clone(); g.len()])
        }
        fn handle_put(&self, _t: Row, _p: TPut) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_check_and_put(
            &self,
            _t: Row,
            _r: Row,
            _f: Row,
            _q: Row,
            _v: Row,
            _p: TPut,
        ) -> thrift::Result<bool> {
            Ok(true)
        }
        fn handle_put_multiple(&self, _t: Row, _p: Vec<TPut>) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_delete_single(&self, _t: Row, _d: TDelete) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_delete_multiple(
            &self,
            _t: Row,
            _d: Vec<TDelete>,
        ) -> thrift::Result<Vec<TDelete>> {
            Ok(Vec::new())
        }
        fn handle_check_and_delete(
            &self,
            _t: Row,
            _r: Row,
            _f: Row,
            _q: Row,
            _v: Row,
            _d: TDelete,
        ) -> thrift::Result<bool> {
            Ok(true)
        }
        fn handle_increment(&self, _t: Row, _i: TIncrement) -> thrift::Result<TResult> {
            Ok(self.result.clone())
        }
        fn handle_append(&self, _t: Row, _a: TAppend) -> thrift::Result<TResult> {
            Ok(self.result.clone())
        }
        fn handle_open_scanner(&self, _t: Row, _s: TScan) -> thrift::Result<i32> {
            Ok(1)
        }
        fn handle_get_scanner_rows(&self, _id: i32, n: i32) -> thrift::Result<Vec<TResult>> {
            self.rows(n)
        }
        fn handle_close_scanner(&self, _id: i32) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_mutate_row(&self, _t: Row, _m: TRowMutations) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_get_scanner_results(
            &self,
            _t: Row,
            _s: TScan,
            n: i32,
        ) -> thrift::Result<Vec<TResult>> {
            self.rows(n)
        }
        fn handle_get_region_location(
            &self,
            _t: Row,
            _r: Row,
            _reload: bool,
        ) -> thrift::Result<THRegionLocation> {
            Ok(self.location())
        }
        fn handle_get_all_region_locations(
            &self,
            _t: Row,
        ) -> thrift::Result<Vec<THRegionLocation>> {
            Ok(vec![self.location()])
        }
        fn handle_check_and_mutate(
            &self,
            _t: Row,
            _r: Row,
            _f: Row,
            _q: Row,
            _op: TCompareOperator,
            _v: Row,
            _m: TRowMutations,
        ) -> thrift::Result<bool> {
            Ok(true)
        }
        fn handle_get_table_descriptor(&self, _t: TTableName) -> thrift::Result<TTableDescriptor> {
            Ok(self.descriptor.clone())
        }
        fn handle_get_table_descriptors(
            &self,
            t: Vec<TTableName>,
        ) -> thrift::Result<Vec<TTableDescriptor>> {
            Ok(vec![self.descriptor.clone(); t.len()])
        }
        fn handle_table_exists(&self, _t: TTableName) -> thrift::Result<bool> {
            Ok(true)
        }
        fn handle_get_table_descriptors_by_pattern(
            &self,
            _regex: String,
            _sys: bool,
        ) -> thrift::Result<Vec<TTableDescriptor>> {
            Ok(vec![self.descriptor.clone()])
        }
        fn handle_get_table_descriptors_by_namespace(
            &self,
            _ns: String,
        ) -> thrift::Result<Vec<TTableDescriptor>> {
            Ok(vec![self.descriptor.clone()])
        }
        fn handle_get_table_names_by_pattern(
            &self,
            _regex: String,
            _sys: bool,
        ) -> thrift::Result<Vec<TTableName>> {
            Ok(vec![self.table.clone()])
        }
        fn handle_get_table_names_by_namespace(
            &self,
            _ns: String,
        ) -> thrift::Result<Vec<TTableName>> {
            Ok(vec![self.table.clone()])
        }
        fn handle_create_table(&self, _d: TTableDescriptor, _s: Vec<Row>) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_delete_table(&self, _t: TTableName) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_truncate_table(&self, _t: TTableName, _keep: bool) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_enable_table(&self, _t: TTableName) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_disable_table(&self, _t: TTableName) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_is_table_enabled(&self, _t: TTableName) -> thrift::Result<bool> {
            Ok(true)
        }
        fn handle_is_table_disabled(&self, _t: TTableName) -> thrift::Result<bool> {
            Ok(false)
        }
        fn handle_is_table_available(&self, _t: TTableName) -> thrift::Result<bool> {
            Ok(true)
        }
        fn handle_is_table_available_with_split(
            &self,
            _t: TTableName,
            _s: Vec<Row>,
        ) -> thrift::Result<bool> {
            Ok(true)
        }
        fn handle_add_column_family(
            &self,
            _t: TTableName,
            _c: TColumnFamilyDescriptor,
        ) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_delete_column_family(&self, _t: TTableName, _c: Row) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_modify_column_family(
            &self,
            _t: TTableName,
            _c: TColumnFamilyDescriptor,
        ) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_modify_table(&self, _d: TTableDescriptor) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_create_namespace(&self, _d: TNamespaceDescriptor) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_modify_namespace(&self, _d: TNamespaceDescriptor) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_delete_namespace(&self, _name: String) -> thrift::Result<()> {
            Ok(())
        }
        fn handle_get_namespace_descriptor(
            &self,
            name: String,
        ) -> thrift::Result<TNamespaceDescriptor> {
            Ok(Self::namespace(&name))
        }
        fn handle_list_namespace_descriptors(&self) -> thrift::Result<Vec<TNamespaceDescriptor>> {
            Ok(vec![Self::namespace("default"), Self::namespace("hbase")])
        }
        fn handle_list_namespaces(&self) -> thrift::Result<Vec<String>> {
            Ok(vec!["default".into(), "hbase".into()])
        }
        fn handle_get_thrift_server_type(&self) -> thrift::Result<TThriftServerType> {
            Ok(TThriftServerType::TWO)
        }
        fn handle_get_cluster_id(&self) -> thrift::Result<String> {
            Ok("null".into())
        }
        fn handle_get_slow_log_responses(
            &self,
            _s: BTreeSet<TServerName>,
            _f: TLogQueryFilter,
        ) -> thrift::Result<Vec<TOnlineLogRecord>> {
            Ok(Vec::new())
        }
        fn handle_clear_slow_log_responses(
            &self,
            s: BTreeSet<TServerName>,
        ) -> thrift::Result<Vec<bool>> {
            Ok(vec![true; s.len()])
        }
    }

    struct NullService {
        processor: THBaseServiceSyncProcessor<NullHandler>,
    }

    impl Service for NullService {
        fn process(&self, message: &[u8], protocol: Protocol) -> Vec<u8> {
            process_message(&self.processor as &dyn TProcessor, message, protocol)
        }
    }

    pub(super) fn null_service(spec: &Spec) -> Arc<dyn Service> {
        Arc::new(NullService {
            processor: THBaseServiceSyncProcessor::new(NullHandler::new(spec)),
        })
    }
}
