//! The `redbase` binary: parses flags, sets up logging, opens the engine, binds the listeners
//! and calls `server::run` until SIGINT or SIGTERM. The client tools' subcommands (`shell`,
//! `copy`, `backup`, `healthcheck`, ...) dispatch to [`redbase::cli`].

mod http_flags;
mod listen;
mod security_flags;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};
use redbase::engine::{Engine, EngineConfig};
use redbase::scanners::ScannerLimits;
use redbase::server::{self, Config, Listeners};
use redbase::slowlog::SlowLogConfig;
use redbase::thrift::Limits;

/// jemalloc on every build: musl's malloc takes one lock for every thread (scans through the
/// container image ran at a quarter of the glibc build's rate), and after a burst of calls glibc's
/// malloc and mimalloc kept far more of the freed memory than jemalloc, whose background thread
/// returns idle pages to the OS.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The Thrift gateways `--gateways` can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Gateway {
    /// HBase's Thrift1 `Hbase` service.
    Thrift1,
    /// HBase's Thrift2 `THBaseService`.
    Thrift2,
    /// HBase's native RPC: the protocol of the Java client (`hbase-client`).
    Native,
}

#[derive(Parser, Debug)]
#[command(
    name = "redbase",
    version,
    about = "An HBase-compatible database server on redb"
)]
struct Cli {
    /// Log lines as human-readable text (`text`) or one JSON object per line (`json`).
    #[arg(long, global = true, env = "REDBASE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve HBase's Thrift interfaces from a data directory until SIGINT or SIGTERM.
    #[command(after_help = redbase::flag_values::SIZE_HELP)]
    Serve(Box<ServeArgs>),
    /// Generate typed client SDKs with row-key helpers from table schema files.
    Codegen(redbase::cli::codegen::CodegenArgs),
    /// Compare (diff) or reconcile (apply) live tables with their schema files over Thrift2.
    Schema(redbase::cli::schema::SchemaArgs),
    /// Exit 0 if the server's HTTP listener answers /healthz with 200, 1 otherwise.
    Healthcheck(redbase::cli::healthcheck::HealthcheckArgs),
    /// Read a password (or, with --token, a bearer token) from stdin and print the hash the
    /// auth file (--auth-file) stores for it.
    HashPassword(security_flags::HashPasswordArgs),
    /// Take an online backup of a running server (every table, at one point) into a directory.
    Backup(redbase::cli::backup::BackupArgs),
    /// Rebuild a data directory from a backup, checking every file's checksum.
    Restore(redbase::cli::backup::RestoreArgs),
    /// The HBase shell's commands over Thrift2, against redbase or any HBase Thrift2 gateway.
    Shell(redbase::cli::shell::ShellArgs),
    /// Write tables (descriptors, split points, every cell with its timestamp) to an export
    /// file over Thrift2.
    Export(Box<redbase::cli::data_move::ExportArgs>),
    /// Load an export file or a CSV/TSV file into tables, over Thrift2 or into an offline
    /// data directory.
    Import(Box<redbase::cli::data_move::ImportArgs>),
    /// Copy a table between two Thrift2 servers (redbase or HBase), or to a new name on one:
    /// descriptor and split points, every cell with its timestamp, per region in parallel,
    /// resumable with --checkpoint, checked with --verify.
    Copy(Box<redbase::cli::data_move::CopyArgs>),
}

#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// Where region files and the catalog live.
    #[arg(long, env = "REDBASE_DATA_DIR", default_value = "./redbase-data")]
    data_dir: PathBuf,
    /// Address of the Thrift1 (`Hbase`) gateway [default: 127.0.0.1:9090 without
    /// --auth-file, 0.0.0.0:9090 with it].
    #[arg(long, env = "REDBASE_THRIFT1_ADDR", value_name = "HOST:PORT", value_parser = redbase::flag_values::address)]
    thrift1_addr: Option<String>,
    /// Address of the Thrift2 (`THBaseService`) gateway [default: 127.0.0.1:9091 without
    /// --auth-file, 0.0.0.0:9091 with it]. To serve Thrift2 on 9090 as HBase's `hbase thrift2`
    /// does, give it port 9090 and move Thrift1 elsewhere (or turn it off).
    #[arg(long, env = "REDBASE_THRIFT2_ADDR", value_name = "HOST:PORT", value_parser = redbase::flag_values::address)]
    thrift2_addr: Option<String>,
    /// Address of the HTTP listener: HBase's REST API, the status page, /healthz, /readyz and
    /// /metrics [default: 127.0.0.1:8080 without --auth-file, 0.0.0.0:8080 with it].
    #[arg(long, env = "REDBASE_HTTP_ADDR", value_name = "HOST:PORT", value_parser = redbase::flag_values::address)]
    http_addr: Option<String>,
    /// Address of HBase's native RPC (the Java client's protocol; HBase's region server port)
    /// [default: 127.0.0.1:16020; when that port is taken and this flag is not given, the
    /// server starts without it and says so]. Clients bootstrap with
    /// hbase.client.registry.impl=org.apache.hadoop.hbase.client.RpcConnectionRegistry and
    /// hbase.client.bootstrap.servers=HOST:PORT; HOST is --advertised-host.
    #[arg(long, env = "REDBASE_HBASE_RPC_ADDR", value_name = "HOST:PORT", value_parser = redbase::flag_values::address)]
    hbase_rpc_addr: Option<String>,
    /// Address of the read-only ZooKeeper responder that points a default-configured HBase
    /// client (hbase.zookeeper.quorum, hbase.zookeeper.property.clientPort) at the native RPC
    /// [default: 127.0.0.1:2181; when that port is taken and this flag is not given, the
    /// server starts without it and says so]. Served with the native gateway only.
    #[arg(long, env = "REDBASE_ZOOKEEPER_ADDR", value_name = "HOST:PORT", value_parser = redbase::flag_values::address)]
    zookeeper_addr: Option<String>,
    /// The znode the ZooKeeper responder serves HBase's nodes under: the clients'
    /// zookeeper.znode.parent (e.g. /hbase-unsecure or /hbase-secure as Ambari sets it, or a
    /// nested /apps/hbase, whose ancestors are served too). A ZooKeeper path: starts with /,
    /// no trailing /, no empty, . or .. names.
    #[arg(long, env = "REDBASE_ZOOKEEPER_ZNODE_PARENT", value_name = "PATH", default_value = redbase::native::zookeeper::znodes::PARENT, value_parser = redbase::native::zookeeper::ZnodeParent::parse)]
    zookeeper_znode_parent: redbase::native::zookeeper::ZnodeParent,
    #[command(flatten)]
    security: security_flags::SecurityArgs,
    #[command(flatten)]
    http: http_flags::HttpArgs,
    /// Serve only the named gateways (comma-separated).
    #[arg(long, env = "REDBASE_GATEWAYS", value_enum, value_delimiter = ',', default_values_t = [Gateway::Thrift1, Gateway::Thrift2, Gateway::Native])]
    gateways: Vec<Gateway>,
    /// Refuse every data mutation, as HBase's read-only Thrift mode.
    #[arg(long, env = "REDBASE_READ_ONLY")]
    read_only: bool,
    /// Requests taking at least this many milliseconds go to the Thrift2 slow log.
    #[arg(long, env = "REDBASE_SLOW_LOG_THRESHOLD_MS", default_value_t = 10_000)]
    slow_log_threshold_ms: u64,
    /// REST answers of many rows (row ranges, globbed rows, multi-gets, stateless scans) are
    /// streamed in chunks of about this many bytes; an answer that fits in one is sent whole.
    #[arg(long, env = "REDBASE_REST_CHUNK_SIZE", default_value = "1MiB", value_name = "SIZE", value_parser = redbase::flag_values::size_within(1, 1 << 30))]
    rest_chunk_size: u64,
    /// Seconds a streamed REST answer may take; past it the connection is cut (the client
    /// sees an incomplete answer).
    #[arg(long, env = "REDBASE_REST_STREAM_SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    rest_stream_secs: u64,
    /// Slow-log records kept (the oldest go first).
    #[arg(long, env = "REDBASE_SLOW_LOG_CAPACITY", default_value_t = 256)]
    slow_log_capacity: usize,
    /// A region whose stored bytes pass this splits in two (0 = never).
    #[arg(long, env = "REDBASE_REGION_MAX_SIZE", default_value = "256MiB", value_name = "SIZE", value_parser = redbase::flag_values::size)]
    region_max_size: u64,
    /// Regions stop splitting by size while the server holds this many (0 = no limit), as
    /// HBase's hbase.regionserver.regionSplitLimit; splits asked for by hand still run.
    #[arg(long, env = "REDBASE_REGION_SPLIT_LIMIT", default_value_t = 1000)]
    region_split_limit: usize,
    /// The most regions the server holds: creating a table that would pass it is refused, and
    /// splits stop there (regions on disk always open). Default: 10,000, or fewer when the
    /// open-file limit (raised to its hard limit at start) or memory holds fewer.
    #[arg(long, env = "REDBASE_MAX_REGIONS")]
    max_regions: Option<usize>,
    /// Enforce namespace quotas, as HBase does with hbase.quota.enabled: a namespace's
    /// hbase.namespace.quota.maxtables and hbase.namespace.quota.maxregions refuse the tables
    /// and splits that would pass them. Off by default, as in HBase (the values are then only
    /// checked when a namespace is created or modified).
    #[arg(long, env = "REDBASE_QUOTA_ENABLED")]
    quota_enabled: bool,
    /// A region over this many times --region-max-size holds its writers while it splits, so a
    /// load faster than splits cannot grow it further (0 = never hold).
    #[arg(long, env = "REDBASE_REGION_BLOCK_FACTOR", default_value_t = 4)]
    region_block_factor: u64,
    /// Seconds a write waits for a split at that size before it is refused (retryable).
    #[arg(long, env = "REDBASE_REGION_BLOCK_WAIT_SECS", default_value_t = 60)]
    region_block_wait_secs: u64,
    /// The largest value one cell may hold.
    #[arg(long, env = "REDBASE_MAX_VALUE_SIZE", default_value = "10MiB", value_name = "SIZE", value_parser = redbase::flag_values::size_usize)]
    max_value_size: usize,
    /// Bytes of page cache all region files share, divided among them as they open (default:
    /// an eighth of the container's memory limit or the machine's memory, 64 MiB to 1 GiB).
    #[arg(long, env = "REDBASE_CACHE_SIZE", value_name = "SIZE", value_parser = redbase::flag_values::size_usize)]
    cache_size: Option<usize>,
    /// Bytes of acknowledged writes all regions may buffer in memory before their files take
    /// them (default: a quarter of the cache size, 4 MiB to 128 MiB).
    #[arg(long, env = "REDBASE_WRITE_BUFFER_SIZE", value_name = "SIZE", value_parser = redbase::flag_values::size_usize)]
    write_buffer_size: Option<usize>,
    /// Writes acknowledged without a sync (ASYNC_WAL, SKIP_WAL, or a table's DURABILITY) are
    /// made durable at most this many milliseconds later: what a power loss can take.
    #[arg(long, env = "REDBASE_ASYNC_FLUSH_MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    async_flush_ms: u64,
    /// The largest Thrift message (frame, buffered message or HTTP body).
    #[arg(long, env = "REDBASE_MAX_MESSAGE_SIZE", default_value = "16MiB", value_name = "SIZE", value_parser = redbase::flag_values::size_usize)]
    max_message_size: usize,
    /// Connections served at once per gateway. At the cap a new connection takes the slot of
    /// the one idle longest; when every connection is in a call, the newcomer is refused.
    #[arg(long, env = "REDBASE_MAX_CONNECTIONS", default_value_t = 1024)]
    max_connections: usize,
    /// Bytes the server holds for requests being received, processed and answered, over all
    /// connections of both gateways; past it, connections wait briefly, then are refused.
    #[arg(long, env = "REDBASE_MAX_INFLIGHT_BYTES", default_value_t = redbase::thrift::budget::DEFAULT_INFLIGHT_BYTES, value_name = "SIZE", value_parser = redbase::flag_values::size_usize)]
    max_inflight_bytes: usize,
    /// Threads that run calls (each call runs on one; more calls wait for a free one). Idle
    /// threads exit after 10 s.
    #[arg(long, env = "REDBASE_MAX_CALL_THREADS", default_value_t = 128, value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_call_threads: u64,
    /// Short reads (gets, exists) answered on the connection's own runtime worker instead of a
    /// call thread, at most this many at once (0 = none): it saves two thread switches per get.
    /// The default, one fewer than the cores, keeps a worker free for other connections' I/O.
    #[arg(long, env = "REDBASE_MAX_INLINE_CALLS")]
    max_inline_calls: Option<usize>,
    /// Close a connection that sends nothing for this many seconds, or leaves a reply unread
    /// for as long.
    #[arg(long, env = "REDBASE_IDLE_TIMEOUT_SECS", default_value_t = 60)]
    idle_timeout_secs: u64,
    /// Close a scanner unused for this many seconds (HBase's scanner lease).
    #[arg(long, env = "REDBASE_SCANNER_LEASE_SECS", default_value_t = 60)]
    scanner_lease_secs: u64,
    /// A native scan call's timeout, in milliseconds, when its client names none (HBase's
    /// hbase.rpc.timeout; 0 = none). A scan call whose client takes heartbeats answers after
    /// half the shorter of its timeout and the scanner lease, with what it has so far.
    #[arg(long, env = "REDBASE_SCAN_RPC_TIMEOUT_MS", default_value_t = 60_000)]
    scan_rpc_timeout_ms: u64,
    /// The shortest time limit of a native scan call, in milliseconds (HBase's
    /// hbase.region.server.rpc.minimum.scan.time.limit.delta).
    #[arg(long, env = "REDBASE_SCAN_MIN_TIME_LIMIT_MS", default_value_t = 10)]
    scan_min_time_limit_ms: u64,
    /// Open scanners allowed per gateway.
    #[arg(long, env = "REDBASE_MAX_SCANNERS", default_value_t = 10_000)]
    max_scanners: usize,
    /// Bytes all open scanners of the server may hold (their filters, keys and columns), over
    /// every gateway; an open past it is refused with a retryable error.
    #[arg(long, env = "REDBASE_MAX_SCANNER_BYTES", default_value_t = redbase::scanners::DEFAULT_SCANNER_BYTES, value_name = "SIZE", value_parser = redbase::flag_values::size_usize)]
    max_scanner_bytes: usize,
    /// Host name reported as the region server in region info (default: this host's name).
    #[arg(long, env = "REDBASE_ADVERTISED_HOST")]
    advertised_host: Option<String>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    init_logging(cli.log_format);
    match cli.command {
        Command::Serve(args) => serve(*args),
        Command::Codegen(args) => redbase::cli::codegen::run(args),
        Command::Schema(args) => redbase::cli::schema::run(args),
        Command::Healthcheck(args) => redbase::cli::healthcheck::run(args),
        Command::HashPassword(args) => security_flags::hash_password(args),
        Command::Backup(args) => redbase::cli::backup::backup(args),
        Command::Restore(args) => redbase::cli::backup::restore(args),
        Command::Shell(args) => redbase::cli::shell::run(args),
        Command::Export(args) => redbase::cli::data_move::export(*args),
        Command::Import(args) => redbase::cli::data_move::import(*args),
        Command::Copy(args) => redbase::cli::data_move::copy(*args),
    }
}

/// Text for people (colours only on a terminal), JSON for log collectors; `RUST_LOG` filters.
fn init_logging(format: LogFormat) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match format {
        LogFormat::Json => builder.json().flatten_event(true).init(),
        LogFormat::Text => builder.with_ansi(std::io::stdout().is_terminal()).init(),
    }
}

fn serve(args: ServeArgs) -> std::process::ExitCode {
    let security = match args.security.load() {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "cannot set up security");
            return std::process::ExitCode::FAILURE;
        }
    };
    let open = |port: u16| {
        if security.auth.is_some() {
            format!("0.0.0.0:{port}")
        } else {
            format!("127.0.0.1:{port}")
        }
    };
    let thrift1_addr = args.thrift1_addr.clone().unwrap_or_else(|| open(9090));
    let thrift2_addr = args.thrift2_addr.clone().unwrap_or_else(|| open(9091));
    let http_addr = args.http_addr.clone().unwrap_or_else(|| open(8080));
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(args.max_call_threads as usize)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the runtime");
            return std::process::ExitCode::FAILURE;
        }
    };
    // The signal handlers first, so a signal during start-up stops the server cleanly.
    let shutdown = {
        let _runtime = rt.enter();
        shutdown_signal()
    };
    // Every port is bound before the data directory is created or opened: a start that
    // cannot listen leaves nothing behind.
    let want = |g: Gateway| args.gateways.contains(&g);
    let bound = rt.block_on(async {
        let mut listeners = Listeners::default();
        if want(Gateway::Thrift1) {
            listeners.thrift1 = Some(listen::bind(&listen::THRIFT1, &thrift1_addr).await?);
        }
        if want(Gateway::Thrift2) {
            listeners.thrift2 = Some(listen::bind(&listen::THRIFT2, &thrift2_addr).await?);
        }
        let mut native = None;
        let mut zookeeper = None;
        if want(Gateway::Native) {
            let addr = args
                .hbase_rpc_addr
                .clone()
                .unwrap_or_else(|| "127.0.0.1:16020".to_string());
            match listen::bind(&listen::NATIVE, &addr).await {
                Ok(l) => native = Some(l),
                // The default port may belong to an HBase on this machine: serve without it.
                Err(e) if args.hbase_rpc_addr.is_none() => {
                    tracing::warn!("{e}; serving without it")
                }
                Err(e) => return Err(e),
            }
            let addr = args
                .zookeeper_addr
                .clone()
                .unwrap_or_else(|| "127.0.0.1:2181".to_string());
            match listen::bind(&listen::ZOOKEEPER, &addr).await {
                Ok(l) => zookeeper = Some(l),
                // The default port may belong to a real ZooKeeper on this machine.
                Err(e) if args.zookeeper_addr.is_none() => tracing::warn!(
                    "{e}; serving without it (clients can bootstrap through RpcConnectionRegistry instead)"
                ),
                Err(e) => return Err(e),
            }
        }
        listeners.http = Some(listen::bind(&listen::HTTP, &http_addr).await?);
        Ok::<_, String>((listeners, native, zookeeper))
    });
    let (listeners, native, zookeeper) = match bound {
        Ok(l) => l,
        Err(e) => {
            tracing::error!("{e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let files = redbase::open_files::raise();
    let derived =
        redbase::engine::region_bound::derive_for_this_process(files.now, args.max_connections);
    let max_regions = match args.max_regions {
        Some(n) => {
            if n > derived.max_regions && derived.by == "open files" {
                tracing::warn!(max_regions = n, open_files = files.now, fits = derived.max_regions, "--max-regions allows more regions than the open-file limit has room for: tables past that fail with 'Too many open files'");
            }
            n
        }
        None => derived.max_regions,
    };
    tracing::info!(
        max_regions,
        bound_by = if args.max_regions.is_some() {
            "--max-regions"
        } else {
            derived.by
        },
        open_files = files.now,
        open_files_before = files.before,
        "region bound"
    );
    let config = EngineConfig {
        max_regions,
        quota_enabled: args.quota_enabled,
        region_max_size: args.region_max_size,
        region_block_factor: args.region_block_factor,
        region_split_limit: args.region_split_limit,
        region_block_wait: Duration::from_secs(args.region_block_wait_secs),
        max_value_size: args.max_value_size,
        async_flush: Duration::from_millis(args.async_flush_ms),
        cache_size: args
            .cache_size
            .unwrap_or_else(redbase::engine::cache::default_budget),
        write_buffer_size: args.write_buffer_size,
        ..EngineConfig::default()
    };
    let engine = match Engine::open(&args.data_dir, config) {
        Ok(e) => e,
        Err(e) => {
            tracing::error!("cannot open the data directory: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    for (table, reason) in engine.offline_tables() {
        tracing::error!(%table, %reason, "table offline");
    }
    rt.block_on(async {
        tracing::info!(data_dir = %args.data_dir.display(), tables = engine.list_tables().len(), "engine open");
        let exposure_warnings = security_flags::exposure_warnings(&listeners, native.as_ref(), &security);
        for w in &exposure_warnings {
            tracing::warn!("SECURITY WARNING: {w}");
        }
        let reloads = security_flags::watch_sighup(&security);
        let cfg = Config {
            limits: Limits {
                max_message: args.max_message_size,
                max_connections: args.max_connections,
                idle_timeout: Duration::from_secs(args.idle_timeout_secs),
                budget: redbase::thrift::Budget::new(args.max_inflight_bytes),
                inline: args
                    .max_inline_calls
                    .map(redbase::thrift::InlineCalls::new)
                    .unwrap_or_default(),
            },
            scanners: ScannerLimits {
                lease: Duration::from_secs(args.scanner_lease_secs),
                max_open: args.max_scanners,
                bytes: redbase::scanners::ScannerBytes::new(args.max_scanner_bytes),
            },
            advertised_host: args.advertised_host.clone(),
            read_only: args.read_only,
            slow_log: SlowLogConfig {
                threshold: Duration::from_millis(args.slow_log_threshold_ms),
                capacity: args.slow_log_capacity,
                ..SlowLogConfig::default()
            },
            security,
            exposure_warnings,
            rest_stream: redbase::rest::StreamLimits {
                chunk: args.rest_chunk_size as usize,
                time: Duration::from_secs(args.rest_stream_secs),
            },
            http_limits: args.http.limits(),
            znode_parent: args.zookeeper_znode_parent.clone(),
            scan_time: redbase::native::ScanTimeLimit {
                rpc_timeout: Duration::from_millis(args.scan_rpc_timeout_ms),
                min: Duration::from_millis(args.scan_min_time_limit_ms),
            },
        };
        server::run_native(
            engine.clone(),
            listeners,
            server::NativeListeners {
                rpc: native,
                zookeeper,
            },
            cfg,
            shutdown,
        )
        .await;
        if let Some(r) = reloads {
            r.abort();
        }
    });
    tracing::info!("shutting down: committing and closing regions");
    engine.close();
    std::process::ExitCode::SUCCESS
}

/// Installs the SIGINT and SIGTERM handlers at once, before any listener is bound, so a signal
/// that arrives while the server starts up stops it cleanly instead of killing it; the returned
/// future completes on the first of them.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{signal, SignalKind};
    let term = signal(SignalKind::terminate());
    let int = signal(SignalKind::interrupt());
    async move {
        match (term, int) {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
            }
            (Ok(mut one), Err(e)) | (Err(e), Ok(mut one)) => {
                tracing::warn!(error = %e, "cannot watch one of SIGINT/SIGTERM");
                one.recv().await;
            }
            (Err(e), Err(_)) => {
                tracing::warn!(error = %e, "cannot watch SIGINT/SIGTERM; stopping on Ctrl-C only");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
        tracing::info!("signal received");
    }
}
