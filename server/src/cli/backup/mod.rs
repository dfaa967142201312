//! `redbase backup` and `redbase restore` (docs/operations.md, "Backup and restore").
//!
//! - `redbase backup --to DIR` asks a running server's operations listener for a backup
//!   (`POST /api/backup`, [`crate::http`]); the server takes a consistent point of every
//!   table ([`crate::engine::backup`]) and streams each snapshot's dump
//!   ([`crate::backup::produce`], [`crate::backup::stream`]); this client writes them into DIR,
//!   checking every file's SHA-256 as it arrives, and writes `manifest.json` last ([`client`]).
//! - `redbase restore --from DIR --data-dir NEW` checks the manifest and every checksum, then
//!   loads each dump into a new redb file of NEW and opens the result once to prove it
//!   ([`restore`]).

pub mod client;
pub mod restore;

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct BackupArgs {
    /// The backup directory: created when missing; it must be empty, or hold a backup that
    /// was interrupted (no manifest.json), which is then started over.
    #[arg(long, value_name = "DIR")]
    pub to: PathBuf,
    /// The server's operations listener (its --http-addr), host:port.
    #[arg(long, env = "REDBASE_HTTP_ADDR", default_value = "127.0.0.1:8080", value_name = "HOST:PORT", value_parser = crate::flag_values::address)]
    pub http_addr: String,
    /// TLS (https) and credentials: with an auth file only a superuser may take a backup. A
    /// Bearer token in REDBASE_TOKEN is sent instead of --user's password when set.
    #[command(flatten)]
    pub auth: crate::cli::connect::AuthArgs,
    /// No progress line (it is drawn only when standard output is a terminal anyway).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(clap::Args, Debug)]
pub struct RestoreArgs {
    /// A directory written by `redbase backup` (with its manifest.json).
    #[arg(long, value_name = "DIR")]
    pub from: PathBuf,
    /// The new data directory: created when missing, refused unless empty.
    #[arg(long, value_name = "NEW")]
    pub data_dir: PathBuf,
}

/// `redbase backup`: prints the summary, or the error (exit 1).
pub fn backup(args: BackupArgs) -> ExitCode {
    match client::run(&args) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("redbase backup: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `redbase restore`: prints the summary, or the error (exit 1).
pub fn restore(args: RestoreArgs) -> ExitCode {
    match restore::run(&args.from, &args.data_dir) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("redbase restore: {e}");
            ExitCode::FAILURE
        }
    }
}
