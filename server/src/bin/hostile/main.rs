//! `hostile`: a long hostile run against a running redbase on loopback.
//!
//! It starts no server. It opens many connections to the ports of the `--targets` it is
//! given (loopback addresses only; anything else is refused). The Thrift target (`thrift.rs`,
//! Thrift1 and Thrift2) sends messages over every
//! transport (buffered, framed, HTTP) and protocol (binary, compact): valid calls from the seed
//! corpus (`server/tests/fuzz_corpus/`), mutated calls, the known crashers and random bytes.
//! For each message it predicts, with the server's own frame walker, what the server must do:
//! answer it (a whole, well-formed REPLY or EXCEPTION naming the call) or close the
//! connection (bytes no transport or protocol claims, a message cut short). Anything else is
//! counted: no answer and no close within `--reply-timeout-secs` is a hang, a close where an
//! answer was due is an unanswered message, a reply that is not one whole message is a bad
//! reply, a refused connection is a connect error (the server died: the run stops).
//!
//! The native target (`native.rs`, `--native`) speaks HBase's native RPC and the
//! ZooKeeper target (`zookeeper.rs`, `--zookeeper`) the ZooKeeper responder's protocol, each
//! with its own seeds, mutations, lying lengths and rule (answered or closed, never a hang).
//! With `--http`, the run ends by reading the server's /metrics until every targeted
//! gateway's open-connections gauge is back to zero (a slot still held is a finding).
//!
//! The run stops by itself after `--messages` messages or `--time-limit-secs`, whichever comes
//! first, and prints the counts (and, with `--pid`, the server's RSS) every
//! `--report-every-secs` and at the end. Every hang, unanswered message and bad reply is
//! written with its bytes to `--findings` (hex, one per line).
//!
//! ```sh
//! target/release/hostile --thrift1 127.0.0.1:39090 --thrift2 127.0.0.1:39091 \
//!     --messages 10000000 --time-limit-secs 1800 --connections 48 --pid "$(pidof redbase)"
//! target/release/hostile --targets native,zookeeper --native 127.0.0.1:16020 \
//!     --zookeeper 127.0.0.1:2181 --http 127.0.0.1:8080 --messages 200000
//! ```

mod corpus;
mod native;
mod net;
mod thrift;
mod zookeeper;

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;

use corpus::{hex, load_corpus, Seed};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Thrift,
    Native,
    Zookeeper,
}

#[derive(Parser, Debug)]
#[command(
    name = "hostile",
    about = "Sends random and mutated Thrift messages to a redbase on loopback and counts hangs"
)]
struct Cli {
    /// The Thrift1 (Hbase) port of the server under test (a loopback address).
    #[arg(long, default_value = "127.0.0.1:9090")]
    thrift1: SocketAddr,
    /// The Thrift2 (THBaseService) port of the server under test (a loopback address).
    #[arg(long, default_value = "127.0.0.1:9091")]
    thrift2: SocketAddr,
    /// What to send to: thrift (Thrift1 and Thrift2), native, zookeeper (comma-separated);
    /// the connections are shared out among them.
    #[arg(long, value_delimiter = ',', default_value = "thrift")]
    targets: Vec<Target>,
    /// The native RPC port of the server under test (a loopback address).
    #[arg(long, default_value = "127.0.0.1:16020")]
    native: SocketAddr,
    /// The ZooKeeper responder's port of the server under test (a loopback address).
    #[arg(long, default_value = "127.0.0.1:2181")]
    zookeeper: SocketAddr,
    /// The server's HTTP listener: at the end, its /metrics must show no connection of a
    /// targeted gateway still open.
    #[arg(long)]
    http: Option<SocketAddr>,
    /// The native seed corpus: whole connection openings, one `.hex` file each.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz_corpus/native"))]
    native_corpus: PathBuf,
    /// Messages to send in all.
    #[arg(long, default_value_t = 1_000_000)]
    messages: u64,
    /// Stop after this long even if fewer messages were sent.
    #[arg(long, default_value_t = 600)]
    time_limit_secs: u64,
    /// Connections open at once (one thread each).
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// Most messages sent on one connection before it is closed and another opened.
    #[arg(long, default_value_t = 200)]
    messages_per_connection: u64,
    /// No answer and no close within this long is a hang.
    #[arg(long, default_value_t = 30)]
    reply_timeout_secs: u64,
    /// The server's --max-message-size (what it must refuse instead of waiting for).
    #[arg(long, default_value = "16MiB", value_parser = redbase::flag_values::size_usize)]
    max_message_size: usize,
    /// The seed corpus: `<service>-<transport>-<protocol>-<what>.hex` files.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz_corpus"))]
    corpus: PathBuf,
    /// Leave the corpus's known crashers (`*-crash-*.hex`) out: neither sent nor mutated nor
    /// spliced from (their mutations find the open decoder crashes fastest).
    #[arg(long)]
    without_crashers: bool,
    /// Seed of the random choices (each connection thread derives its own).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The server's process id, to report its RSS (/proc/PID/status VmRSS).
    #[arg(long)]
    pid: Option<u32>,
    /// A file holding the server's process id, read again at every report: for a server run
    /// under a supervisor that restarts it (each new id counts as a restart).
    #[arg(long)]
    pid_file: Option<PathBuf>,
    #[arg(long, default_value_t = 30)]
    report_every_secs: u64,
    /// Where to write the bytes of every hang, unanswered message and bad reply.
    #[arg(long, default_value = "hostile-findings.txt")]
    findings: PathBuf,
}

#[derive(Default)]
struct Counts {
    sent: AtomicU64,
    replies: AtomicU64,
    exceptions: AtomicU64,
    expected_closes: AtomicU64,
    http_400: AtomicU64,
    hangs: AtomicU64,
    unanswered: AtomicU64,
    bad_replies: AtomicU64,
    /// EXCEPTION replies saying a handler panicked (the server caught it; still a bug).
    panics: AtomicU64,
    connections: AtomicU64,
    connect_errors: AtomicU64,
}

/// Takes one message from the run's budget: false (and the run stopping) once the budget or
/// the time is spent.
pub fn take_message(run: &Run) -> bool {
    if run.stop.load(Ordering::Relaxed) {
        return false;
    }
    if run.counts.sent.fetch_add(1, Ordering::Relaxed) >= run.cli.messages
        || Instant::now() >= run.deadline
    {
        run.stop.store(true, Ordering::Relaxed);
        run.counts.sent.fetch_sub(1, Ordering::Relaxed);
        return false;
    }
    true
}

pub fn add(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

fn get(c: &AtomicU64) -> u64 {
    c.load(Ordering::Relaxed)
}

pub struct Run {
    cli: Cli,
    /// The server process last seen through --pid-file, and how often it changed.
    server: Mutex<(Option<u32>, u64)>,
    seeds: Vec<Seed>,
    native: Vec<native::Opening>,
    counts: Counts,
    stop: AtomicBool,
    deadline: Instant,
    findings: Mutex<std::fs::File>,
}

impl Run {
    /// Records one finding: what went wrong, on which target, the bytes sent, a detail.
    pub fn finding(&self, what: &str, target: &str, wire_bytes: &[u8], detail: &str) {
        let line = format!(
            "{what} {target} {} {}\n",
            hex(wire_bytes),
            detail.replace('\n', " ")
        );
        eprint!("FINDING: {line}");
        if let Ok(mut f) = self.findings.lock() {
            let _ = f.write_all(line.as_bytes());
        }
    }
}
/// The gateways' label in `redbase_open_connections` for each target.
fn gateways(targets: &[Target]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for t in targets {
        match t {
            Target::Thrift => out.extend(["thrift1", "thrift2"]),
            Target::Native => out.push("native"),
            Target::Zookeeper => out.push("zookeeper"),
        }
    }
    out
}

/// Reads the server's /metrics (for up to 15 s) until no targeted gateway has a connection
/// open; returns how many still do.
fn slots_held(http: SocketAddr, targets: &[Target]) -> u64 {
    let wanted = gateways(targets);
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let open = net::open_connections(http);
        let held: Vec<(&str, f64)> = wanted
            .iter()
            .map(|g| {
                (
                    *g,
                    open.iter().find(|(n, _)| n == g).map_or(0.0, |(_, v)| *v),
                )
            })
            .filter(|(_, v)| *v > 0.0)
            .collect();
        match open.is_empty() {
            true if Instant::now() >= deadline => {
                println!("slots: cannot read {http}/metrics");
                return 1;
            }
            false if held.is_empty() => {
                println!("slots: no connection of {wanted:?} open after the run");
                return 0;
            }
            _ if Instant::now() >= deadline => {
                println!("slots: still open after the run: {held:?}");
                return held.len() as u64;
            }
            _ => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The server's pid now (from --pid-file if given, else --pid); notes restarts.
fn server_pid(run: &Run) -> Option<u32> {
    let Some(file) = &run.cli.pid_file else {
        return run.cli.pid;
    };
    let now = std::fs::read_to_string(file)
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok());
    let mut seen = run.server.lock().unwrap_or_else(|e| e.into_inner());
    if let (Some(before), Some(n)) = (seen.0, now) {
        if before != n {
            seen.1 += 1;
        }
    }
    if now.is_some() {
        seen.0 = now;
    }
    now
}

fn report(run: &Run, started: Instant, label: &str) {
    let c = &run.counts;
    let secs = started.elapsed().as_secs_f64();
    let sent = get(&c.sent);
    let rss = server_pid(run)
        .map(|p| {
            rss_kib(p).map_or("gone".to_string(), |k| {
                format!("{:.1} MiB", k as f64 / 1024.0)
            })
        })
        .unwrap_or_else(|| "-".into());
    println!(
        "{label} {secs:.0}s sent={sent} ({:.0}/s) replies={} exceptions={} expected_closes={} \
         http_400={} hangs={} unanswered={} bad_replies={} panics={} connections={} connect_errors={} \
         server_rss={rss} server_restarts={}",
        sent as f64 / secs.max(0.001),
        get(&c.replies),
        get(&c.exceptions),
        get(&c.expected_closes),
        get(&c.http_400),
        get(&c.hangs),
        get(&c.unanswered),
        get(&c.bad_replies),
        get(&c.panics),
        get(&c.connections),
        get(&c.connect_errors),
        run.server.lock().map(|s| s.1).unwrap_or(0),
    );
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let http = cli.http.map(|h| ("--http", h));
    let addrs = [
        ("--thrift1", cli.thrift1),
        ("--thrift2", cli.thrift2),
        ("--native", cli.native),
        ("--zookeeper", cli.zookeeper),
    ];
    for (name, a) in addrs.into_iter().chain(http) {
        if !a.ip().is_loopback() {
            eprintln!("{name} {a}: hostile only sends to loopback addresses");
            return ExitCode::from(2);
        }
    }
    let seeds = match load_corpus(&cli.corpus) {
        Ok(mut s) => {
            if cli.without_crashers {
                s.retain(|s| !s.crasher);
            }
            s
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let native = if cli.targets.contains(&Target::Native) {
        match native::load(&cli.native_corpus) {
            Ok(n) => n,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        }
    } else {
        Vec::new()
    };
    let findings = match std::fs::File::create(&cli.findings) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{}: {e}", cli.findings.display());
            return ExitCode::from(2);
        }
    };
    println!(
        "hostile: {:?}, {} seeds ({} native), {} messages or {} s, {} connections, thrift1 {} \
         thrift2 {} native {} zookeeper {}",
        cli.targets,
        seeds.len(),
        native.len(),
        cli.messages,
        cli.time_limit_secs,
        cli.connections,
        cli.thrift1,
        cli.thrift2,
        cli.native,
        cli.zookeeper
    );
    let thrift_on = cli.targets.contains(&Target::Thrift);
    if thrift_on {
        thrift::setup(cli.thrift1);
    }
    let started = Instant::now();
    let run = Arc::new(Run {
        deadline: started + Duration::from_secs(cli.time_limit_secs),
        cli,
        seeds,
        native,
        counts: Counts::default(),
        server: Mutex::new((None, 0)),
        stop: AtomicBool::new(false),
        findings: Mutex::new(findings),
    });
    if let Some(p) = server_pid(&run) {
        println!("server rss at start: {:?} KiB", rss_kib(p));
    }
    let targets = run.cli.targets.clone();
    let workers: Vec<_> = (0..run.cli.connections.max(targets.len()) as u64)
        .map(|i| {
            let run = run.clone();
            let target = targets[i as usize % targets.len()];
            std::thread::spawn(move || match target {
                Target::Thrift => thrift::worker(run, i),
                Target::Native => native::worker(run, i),
                Target::Zookeeper => zookeeper::worker(run, i),
            })
        })
        .collect();
    let every = Duration::from_secs(run.cli.report_every_secs.max(1));
    let mut next = started + every;
    while workers.iter().any(|w| !w.is_finished()) {
        std::thread::sleep(Duration::from_millis(100));
        server_pid(&run);
        if Instant::now() >= next {
            if thrift_on {
                thrift::setup(run.cli.thrift1);
            }
            report(&run, started, "progress");
            next += every;
        }
    }
    for w in workers {
        let _ = w.join();
    }
    let held = run.cli.http.map_or(0, |h| slots_held(h, &run.cli.targets));
    report(&run, started, "final");
    let c = &run.counts;
    let bad = held
        + get(&c.hangs)
        + get(&c.unanswered)
        + get(&c.bad_replies)
        + get(&c.http_400)
        + get(&c.panics);
    let down = run.stop.load(Ordering::Relaxed)
        && get(&c.sent) < run.cli.messages
        && Instant::now() < run.deadline;
    if bad > 0 || down {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
