//! The Thrift2 connection: the generated `THBaseService` client over one TCP connection, in
//! the transport and protocol the server expects. HBase's Thrift2 server defaults to buffered
//! transport and the binary protocol (`hbase.regionserver.thrift.framed` and `.compact` are
//! false unless set), which redbase also accepts, so those are the defaults here. TLS and
//! SASL PLAIN come from `crate::cli::connect`, which every client tool shares.

use crate::cli::connect::{self, ClientSecurity};
use crate::generated::hbase2::{THBaseServiceSyncClient, TIOError, TIllegalArgument};
use thrift::protocol::{TInputProtocol, TOutputProtocol};

pub use crate::cli::connect::thrift::{Protocol, Transport};

pub type Client =
    THBaseServiceSyncClient<Box<dyn TInputProtocol + Send>, Box<dyn TOutputProtocol + Send>>;

/// Opens a connection to `addr` (`host:port`), with TLS and SASL PLAIN as `security` says
/// (crate::cli::connect).
pub fn connect(
    addr: &str,
    security: &ClientSecurity,
    transport: Transport,
    protocol: Protocol,
) -> Result<Client, String> {
    let (i, o) = connect::thrift::open(addr, security, transport, protocol)?;
    Ok(THBaseServiceSyncClient::new(i, o))
}

/// A failed call's message as the user should read it: the server's TIOError or
/// TIllegalArgument text, or what went wrong on the connection.
pub fn describe_error(e: &thrift::Error) -> String {
    match e {
        thrift::Error::User(u) => {
            if let Some(io) = u.downcast_ref::<TIOError>() {
                without_stack(io.message.as_deref().unwrap_or("TIOError"))
            } else if let Some(ia) = u.downcast_ref::<TIllegalArgument>() {
                without_stack(ia.message.as_deref().unwrap_or("TIllegalArgument"))
            } else {
                u.to_string()
            }
        }
        // The server's refusals (no TLS, no or wrong credentials) come as application errors.
        thrift::Error::Application(a) => connect::with_hint(&a.message),
        thrift::Error::Transport(t) => {
            connect::with_hint(&format!("connection to the server failed: {}", t.message))
        }
        thrift::Error::Protocol(p) => format!("bad reply from the server: {}", p.message),
    }
}

/// A server's error text without the Java stack trace HBase's gateway appends to it (lines
/// `\tat class.method(File.java:N)` and `Caused by:` chains after the first line).
fn without_stack(message: &str) -> String {
    let mut kept = Vec::new();
    for line in message.lines() {
        let t = line.trim_start();
        if t.starts_with("at ") && line.starts_with(|c: char| c.is_whitespace()) {
            break;
        }
        kept.push(line);
    }
    kept.join("\n").trim_end().to_string()
}

/// Whether the connection can no longer be trusted (the shell reconnects before the next
/// call): anything but a declared exception. A read cut short (Ctrl-C during a call) leaves
/// the reply on the wire, and the next call would read it as its own.
pub fn is_connection_error(e: &thrift::Error) -> bool {
    !matches!(e, thrift::Error::User(_))
}

#[cfg(test)]
mod tests {
    use super::without_stack;

    #[test]
    fn stack_traces_are_dropped() {
        let m = "org.apache.hadoop.hbase.DoNotRetryIOException: Field is not a long\n\tat org.apache.X.y(X.java:1)\n\tat z\n";
        assert_eq!(
            without_stack(m),
            "org.apache.hadoop.hbase.DoNotRetryIOException: Field is not a long"
        );
        assert_eq!(without_stack("plain message\n"), "plain message");
        assert_eq!(without_stack("two\nlines"), "two\nlines");
    }
}
