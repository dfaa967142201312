//! The `redbase` binary: parses flags, sets up logging, opens the engine and serves until a
//! signal asks it to stop.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use redbase::engine::{Engine, EngineConfig};

#[derive(Parser, Debug)]
#[command(
    name = "redbase",
    version,
    about = "An HBase-compatible database server on redb"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open the data directory and serve until SIGINT or SIGTERM.
    Serve(ServeArgs),
}

#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// Where region files and the catalog live.
    #[arg(long, env = "REDBASE_DATA_DIR", default_value = "./redbase-data")]
    data_dir: PathBuf,
    /// A region whose stored bytes pass this splits in two (0 = never).
    #[arg(long, env = "REDBASE_REGION_MAX_SIZE", default_value_t = 256 * 1024 * 1024)]
    region_max_size: u64,
    /// The largest value one cell may hold, in bytes.
    #[arg(long, env = "REDBASE_MAX_VALUE_SIZE", default_value_t = 10 * 1024 * 1024)]
    max_value_size: usize,
}

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve(args),
    }
}

fn serve(args: ServeArgs) -> std::process::ExitCode {
    let config = EngineConfig {
        region_max_size: args.region_max_size,
        max_value_size: args.max_value_size,
    };
    let engine = match Engine::open(&args.data_dir, config) {
        Ok(e) => e,
        Err(e) => {
            tracing::error!(error = %e, "cannot open the data directory");
            return std::process::ExitCode::FAILURE;
        }
    };
    for (table, reason) in engine.offline_tables() {
        tracing::error!(%table, %reason, "table offline");
    }
    tracing::info!(data_dir = %args.data_dir.display(), tables = engine.list_tables().len(), "engine open");
    let rt = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the runtime");
            return std::process::ExitCode::FAILURE;
        }
    };
    rt.block_on(shutdown_signal());
    tracing::info!("shutting down");
    engine.close();
    std::process::ExitCode::SUCCESS
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
