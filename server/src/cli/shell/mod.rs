//! `redbase shell`: the HBase shell's commands and output over Thrift2 only, so the same shell
//! works against redbase and against a real HBase Thrift2 gateway. Input is the small Ruby
//! literal subset HBase's shell commands are written in (`lexer`, `parser`); each command
//! group has its file (`general`, `ddl`, `namespace`, `dml`, `scan`, `regions`); `format`
//! prints as HBase's shell does; `repl` reads from a terminal, `-e`, a script or stdin.
//! `commands` is the command table with its help, `args` reads a command's arguments,
//! `describe` and `splits` serve `ddl`, and `client` is the generated Thrift2 client over
//! [`crate::cli::connect`].

pub mod args;
pub mod client;
pub mod commands;
mod ddl;
mod describe;

/// A family descriptor with only its name set (also what `redbase schema apply` starts from).
pub use describe::empty_family;
mod dml;
pub mod format;
mod general;
pub mod lexer;
mod namespace;
pub mod parser;
mod regions;
mod repl;
mod scan;
pub mod splits;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use args::CmdError;
use client::{Client, Protocol, Transport};
use format::{Output, TimestampFormat};

/// The command line of `redbase shell`.
#[derive(clap::Args, Debug)]
pub struct ShellArgs {
    /// The Thrift2 (`THBaseService`) server: redbase's `--thrift2-addr` or HBase's `hbase
    /// thrift2` gateway.
    #[arg(
        long = "thrift2",
        env = "REDBASE_SHELL_THRIFT2",
        default_value = "127.0.0.1:9091",
        value_name = "HOST:PORT",
        value_parser = crate::flag_values::address
    )]
    pub thrift2: String,
    /// Thrift transport the server expects (HBase's default is buffered).
    #[arg(long, value_enum, default_value_t = Transport::Buffered)]
    pub transport: Transport,
    /// Thrift protocol the server expects (HBase's default is binary).
    #[arg(long, value_enum, default_value_t = Protocol::Binary)]
    pub protocol: Protocol,
    /// TLS and credentials (with --user the transport is SASL's, framed).
    #[command(flatten)]
    pub auth: crate::cli::connect::AuthArgs,
    /// Run these commands and exit.
    #[arg(short = 'e', long = "execute")]
    pub execute: Option<String>,
    /// Stop at the first failing command with a non-zero exit status (HBase's `-n`).
    #[arg(short = 'n', long = "non-interactive")]
    pub non_interactive: bool,
    /// `text` prints HBase's shell tables; `json` one JSON object per row or result.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// How cell timestamps print.
    #[arg(long, value_enum, default_value_t = TimestampFormat::Iso)]
    pub timestamp_format: TimestampFormat,
    /// A script of shell commands to run (otherwise standard input, or a terminal session).
    pub script: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}

/// What a command runs with: the connection (opened on first use, reopened after a
/// connection error), the output, and the Ctrl-C flag scans and counts watch.
pub struct Session {
    addr: String,
    transport: Transport,
    protocol: Protocol,
    security: crate::cli::connect::ClientSecurity,
    client: Option<Client>,
    pub out: Output,
    pub interrupted: Arc<AtomicBool>,
    /// Table names seen by `list`, for tab completion.
    pub known_tables: Vec<String>,
    /// The command's return value, printed as `=> value` after the `Took` line (as IRB
    /// prints what a command returned).
    pub ret: Option<String>,
}

impl Session {
    /// Runs one Thrift2 call, connecting first when needed; a transport error drops the
    /// connection so the next command reconnects.
    pub fn call<T>(
        &mut self,
        f: impl FnOnce(&mut Client) -> thrift::Result<T>,
    ) -> Result<T, CmdError> {
        if self.client.is_none() {
            let c = client::connect(&self.addr, &self.security, self.transport, self.protocol)
                .map_err(CmdError::failed)?;
            self.client = Some(c);
        }
        let Some(c) = self.client.as_mut() else {
            return Err(CmdError::failed("no connection"));
        };
        f(c).map_err(|e| {
            if client::is_connection_error(&e) {
                self.client = None;
            }
            CmdError::failed(client::describe_error(&e))
        })
    }

    pub fn addr(&self) -> &str {
        &self.addr
    }

    pub fn was_interrupted(&self) -> bool {
        self.interrupted.swap(false, Ordering::SeqCst)
    }
}

/// Runs `redbase shell`; the exit status is non-zero when a command failed in `-n` mode, a
/// script had errors, or the server could not be reached.
pub fn run(args: ShellArgs) -> std::process::ExitCode {
    use std::io::IsTerminal;
    let security = match args.auth.resolve(&args.thrift2) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("redbase shell: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let interrupted = Arc::new(AtomicBool::new(false));
    let stdout_tty = std::io::stdout().is_terminal();
    let width = if stdout_tty && args.format == OutputFormat::Text {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(120)
    } else {
        0
    };
    let mut session = Session {
        addr: args.thrift2.clone(),
        transport: args.transport,
        protocol: args.protocol,
        security,
        client: None,
        out: Output {
            out: Box::new(std::io::stdout()),
            json: args.format == OutputFormat::Json,
            timestamps: args.timestamp_format,
            width,
        },
        interrupted,
        known_tables: Vec::new(),
        ret: None,
    };
    repl::run(&mut session, &args)
}
