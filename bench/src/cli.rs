//! The command line: `loadgen [bench]` and `loadgen startup`, their flags, the workloads and the
//! `--mix` parser.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "loadgen",
    about = "Thrift1 / Thrift2 load generator: redbase vs a null server, and start-up / RSS measurement",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Cmd>,
    #[command(flatten)]
    pub bench: BenchArgs,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Throughput and latency, redbase vs the null server (the default).
    Bench(BenchArgs),
    /// Start-up time, idle RSS and SIGTERM exit of the `redbase serve` binary.
    Startup(StartupArgs),
    /// Serve the null server of one gateway in this process until SIGTERM, so that a benchmark
    /// can pin it where it pins the servers it measures.
    NullServer(NullArgs),
    /// Peak RSS of the `redbase serve` binary per REST body size, for stalled uploads, and per
    /// open scanner with a large filter.
    Memory(crate::memory::MemoryArgs),
}

#[derive(Args, Debug, Clone)]
pub struct NullArgs {
    /// The replies' shape: rows, value size, scan rows (as the clients measuring it use).
    #[command(flatten)]
    pub client: ClientArgs,
    /// The gateway it serves (thrift1 or thrift2).
    #[arg(long, value_enum, default_value_t = ServiceKind::Thrift1)]
    pub service: ServiceKind,
    /// How Thrift2 scans are answered (as `bench --thrift2-scan`).
    #[arg(long, value_enum, default_value_t = T2Scan::Scanner)]
    pub thrift2_scan: T2Scan,
    /// Loopback address to listen on.
    #[arg(long)]
    pub listen: String,
    /// Write and sync one record in this file for each durable put (Thrift1 mutateRow(s); a
    /// Thrift2 put unless ASYNC_WAL or SKIP_WAL): the least a durable put costs on this disk.
    #[arg(long)]
    pub sync_file: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct ClientArgs {
    /// Thrift transport the clients use (the server detects it).
    #[arg(long, value_enum, default_value_t = TransportKind::Buffered)]
    pub transport: TransportKind,
    /// Thrift protocol the clients use (the server detects it).
    #[arg(long, value_enum, default_value_t = ProtocolKind::Binary)]
    pub protocol: ProtocolKind,
    /// Table the work goes to (created if missing).
    #[arg(long, default_value = "loadgen")]
    pub table: String,
    /// Rows preloaded for gets and scans (keys r00000000, r00000001, ...).
    #[arg(long, default_value_t = 10_000)]
    pub rows: u64,
    /// Value size of every cell, in bytes.
    #[arg(long, default_value_t = 100)]
    pub value_size: usize,
    /// Rows per scan: one scannerOpenWithStop, one scannerGetList of this many rows, one
    /// scannerClose.
    #[arg(long, default_value_t = 100)]
    pub scan_rows: u32,
    /// The mixed workload: weights of get, getrow, put and scan.
    #[arg(long, default_value = "get=80,put=15,scan=5")]
    pub mix: String,
}

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    #[command(flatten)]
    pub client: ClientArgs,
    /// Gateway to measure: Thrift1 (`Hbase`), Thrift2 (`THBaseService`), or both one after the
    /// other (each with its own servers).
    #[arg(long, value_enum, default_value_t = ServiceKind::Thrift1)]
    pub service: ServiceKind,
    /// How a Thrift2 scan op reads its rows: `scanner` is openScanner + getScannerRows +
    /// closeScanner (three calls, as the Thrift1 scan); `results` is one getScannerResults.
    #[arg(long, value_enum, default_value_t = T2Scan::Scanner)]
    pub thrift2_scan: T2Scan,
    /// Drive an already running redbase at this (loopback) address instead of starting one in
    /// this process. The null server still runs in-process.
    #[arg(long)]
    pub addr: Option<String>,
    /// Connection counts to measure, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1usize, 16])]
    pub connections: Vec<usize>,
    /// Workloads to measure, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = vec![Workload::Get, Workload::Put, Workload::Scan, Workload::Mix])]
    pub workloads: Vec<Workload>,
    /// Measuring time of each side (redbase, null) of each workload and connection count, in
    /// seconds, split over the rounds.
    #[arg(long, default_value_t = 3.0)]
    pub secs: f64,
    /// Rounds: every side of every cell runs once per round; the order alternates.
    #[arg(long, default_value_t = 5)]
    pub rounds: usize,
    /// Unrecorded warm-up per side and cell before the first round, in seconds.
    #[arg(long, default_value_t = 0.2)]
    pub warmup_secs: f64,
    /// Skip the null server (absolute numbers only).
    #[arg(long)]
    pub no_null: bool,
    /// With `--addr`: the processes serving it (comma-separated pids, e.g. HBase's region
    /// server and gateway JVMs), whose CPU time over each measured phase gives the server CPU
    /// per operation.
    #[arg(long, value_delimiter = ',')]
    pub server_pids: Vec<u32>,
    /// Gets at 16 connections must reach this fraction of the null server.
    #[arg(long, default_value_t = 0.70)]
    pub target: f64,
    /// Thrift2 only: the `TDurability` every measured put carries (default: none set, so the
    /// table's default applies, which is durable). Thrift1's `mutateRow` has no such field.
    #[arg(long, value_enum)]
    pub durability: Option<DurabilityKind>,
    /// `always`: create the table if missing and write the `--rows` rows before measuring;
    /// `skip`: the table and its rows are there already (checked: the last row must exist);
    /// `only`: create and write, then exit without measuring (to load a server once for many
    /// runs).
    #[arg(long, value_enum, default_value_t = Preload::Always)]
    pub preload: Preload,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Preload {
    Always,
    Skip,
    Only,
}

/// Thrift2's `TDurability` values a put can carry (USE_DEFAULT is the same as not setting it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DurabilityKind {
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
pub struct StartupArgs {
    #[command(flatten)]
    pub client: ClientArgs,
    /// The redbase binary (default: `redbase` next to this executable). Build it first:
    /// `cargo build --release --bin redbase`.
    #[arg(long)]
    pub bin: Option<PathBuf>,
    /// Start-ups measured (each on a fresh data directory, then once more on that data).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Seconds of mixed load between the two idle RSS readings.
    #[arg(long, default_value_t = 5.0)]
    pub load_secs: f64,
    /// Connections driving that load.
    #[arg(long, default_value_t = 16)]
    pub load_connections: usize,
    /// Seconds to let the server settle before reading an idle RSS.
    #[arg(long, default_value_t = 1.0)]
    pub settle_secs: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ServiceKind {
    Thrift1,
    Thrift2,
    Both,
}

impl ServiceKind {
    pub fn name(self) -> &'static str {
        match self {
            ServiceKind::Thrift1 => "Thrift1",
            ServiceKind::Thrift2 => "Thrift2",
            ServiceKind::Both => "Thrift1 and Thrift2",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum T2Scan {
    /// openScanner + getScannerRows + closeScanner.
    Scanner,
    /// One getScannerResults.
    Results,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TransportKind {
    Buffered,
    Framed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtocolKind {
    Binary,
    Compact,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Workload {
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
    pub fn name(self) -> &'static str {
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
pub enum OpKind {
    Get,
    GetRow,
    Put,
    Scan,
}

pub fn parse_mix(s: &str) -> Result<Vec<(OpKind, u32)>, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_weights_parse_and_zero_weights_drop_out() {
        let mix = parse_mix(" get=80, put=15 ,scan=5,getrow=0").unwrap();
        assert_eq!(
            mix,
            vec![(OpKind::Get, 80), (OpKind::Put, 15), (OpKind::Scan, 5)]
        );
        assert!(parse_mix("get").is_err());
        assert!(parse_mix("delete=1").is_err());
        assert!(parse_mix("get=x").is_err());
        assert!(parse_mix("get=0").is_err());
    }

    #[test]
    fn flags_without_a_subcommand_are_bench_flags() {
        let cli = Cli::try_parse_from([
            "loadgen",
            "--workloads",
            "get,scan",
            "--connections",
            "1,16",
            "--no-null",
        ])
        .unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.bench.workloads, vec![Workload::Get, Workload::Scan]);
        assert_eq!(cli.bench.connections, vec![1, 16]);
        assert!(cli.bench.no_null);
        let cli = Cli::try_parse_from(["loadgen", "startup", "--runs", "2"]).unwrap();
        assert!(matches!(cli.command, Some(Cmd::Startup(a)) if a.runs == 2));
    }
}
