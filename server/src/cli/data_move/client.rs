//! The Thrift2 connection export and import use: the shell's client (`shell::client`) with
//! the address and wire settings as flags, and errors as the user should read them.

use std::time::{Duration, Instant};

use crate::cli::connect::{AuthArgs, ClientSecurity};
use crate::cli::shell::client::{connect, describe_error, Client};
pub use crate::cli::shell::client::{Protocol, Transport};

/// Where the Thrift2 server is and how it speaks.
#[derive(clap::Args, Debug, Clone)]
pub struct ConnectArgs {
    /// The Thrift2 (`THBaseService`) server: redbase's `--thrift2-addr` or HBase's `hbase
    /// thrift2` gateway.
    #[arg(
        long = "thrift2",
        env = "REDBASE_THRIFT2",
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
    pub auth: AuthArgs,
}

pub struct Connection {
    pub addr: String,
    transport: Transport,
    protocol: Protocol,
    security: ClientSecurity,
    client: Client,
    last_call: Instant,
}

/// A connection unused this long is replaced before its next write: servers close idle
/// connections (redbase after `--idle-timeout-secs`, 60 by default), and a copy's writer can
/// wait that long while its worker scans a region with little to copy.
const MAX_IDLE: Duration = Duration::from_secs(30);

impl Connection {
    /// Reads the credentials and certificates of `args` (asking for a password on a
    /// terminal when it must), then connects.
    pub fn open(args: &ConnectArgs) -> Result<Connection, String> {
        let security = args.auth.resolve(&args.thrift2)?;
        Connection::open_at(&args.thrift2, &security, args.transport, args.protocol)
    }

    pub fn open_at(
        addr: &str,
        security: &ClientSecurity,
        transport: Transport,
        protocol: Protocol,
    ) -> Result<Connection, String> {
        Ok(Connection {
            addr: addr.to_string(),
            transport,
            protocol,
            client: connect(addr, security, transport, protocol)?,
            security: security.clone(),
            last_call: Instant::now(),
        })
    }

    /// One call; a failure becomes the server's message (or what broke on the connection).
    pub fn call<T>(
        &mut self,
        f: impl FnOnce(&mut Client) -> thrift::Result<T>,
    ) -> Result<T, String> {
        self.last_call = Instant::now();
        f(&mut self.client).map_err(|e| format!("{}: {}", self.addr, describe_error(&e)))
    }

    /// Reconnects if the connection sat idle long enough for the server to have closed it.
    /// Only for calls that hold no server-side state (a scanner lives on its connection).
    pub fn refresh_if_idle(&mut self) -> Result<(), String> {
        if self.last_call.elapsed() >= MAX_IDLE {
            self.client = connect(&self.addr, &self.security, self.transport, self.protocol)?;
            self.last_call = Instant::now();
        }
        Ok(())
    }
}
