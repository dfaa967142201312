//! How the client tools (`redbase shell`, `export`, `import`, `copy`, `backup`) reach a server
//! that has `--auth-file` or `--require-tls`: the same flags on every tool ([`AuthArgs`]), the
//! password from a file, `REDBASE_PASSWORD` or a terminal prompt and never the command line
//! ([`password`]), TLS that verifies the server against a CA ([`tls`]), SASL PLAIN in Thrift's
//! SASL framing on the Thrift2 port ([`thrift`]) and HTTP Basic over HTTPS on the operations
//! listener ([`http`]). One module, so every tool connects, and fails, the same way.

mod args;
pub mod http;
pub mod password;
pub mod thrift;
pub mod tls;

use std::sync::Arc;

pub use args::{resolve_pair, AuthArgs, FromAuthArgs, ToAuthArgs};

/// A user and the password it proves itself with.
pub struct Credentials {
    pub user: String,
    password: Vec<u8>,
}

impl Credentials {
    pub fn new(user: impl Into<String>, password: impl Into<Vec<u8>>) -> Credentials {
        Credentials {
            user: user.into(),
            password: password.into(),
        }
    }

    pub fn password(&self) -> &[u8] {
        &self.password
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("user", &self.user)
            .field("password", &"(hidden)")
            .finish()
    }
}

/// What one endpoint's connections present and check, resolved from [`AuthArgs`] once (files
/// read, password asked), then shared by every connection a tool opens to it.
#[derive(Clone, Debug, Default)]
pub struct ClientSecurity {
    pub tls: Option<tls::ClientTls>,
    pub credentials: Option<Arc<Credentials>>,
}

impl ClientSecurity {
    /// Plaintext, anonymous: what the tools did before these options.
    pub fn none() -> ClientSecurity {
        ClientSecurity::default()
    }
}

/// What to do about a refusal from a redbase server, added to its message: the server names
/// what it wants in terms of its own flags; this says which client flag gives it.
pub fn hint(message: &str) -> Option<&'static str> {
    let m = message.to_ascii_lowercase();
    if m.contains("requires tls") || m.contains("--require-tls") {
        Some("connect with --tls and --ca-file FILE (the CA certificate that signed the server's certificate)")
    } else if m.contains("credentials over plaintext are refused") {
        Some("connect with --tls and --ca-file FILE, so the password is not sent in the clear")
    } else if m.contains("authentication required") {
        Some("give --user NAME and its password (--password-file FILE, the REDBASE_PASSWORD environment variable, or the prompt on a terminal), or a client certificate (--client-cert, --client-key)")
    } else if m.contains("authentication failed") {
        Some("check --user and the password (--password-file or REDBASE_PASSWORD)")
    } else if m.contains("certificaterequired") || m.contains("certificate required") {
        Some("the server requires a client certificate: give --client-cert and --client-key signed by its --tls-client-ca")
    } else if m.contains("authentication is not configured") {
        Some("this server takes no credentials: leave out --user")
    } else {
        None
    }
}

/// `message`, and the [`hint`] for it when there is one.
pub fn with_hint(message: &str) -> String {
    match hint(message) {
        Some(h) if !message.contains(h) => format!("{message}\n  hint: {h}"),
        _ => message.to_string(),
    }
}

/// The host of `host:port` (`[::1]:9091` gives `::1`), for the certificate's name check.
pub fn host_of(addr: &str) -> &str {
    let host = match addr.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => addr,
    };
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_of_addresses() {
        assert_eq!(host_of("db1:9091"), "db1");
        assert_eq!(host_of("127.0.0.1:9091"), "127.0.0.1");
        assert_eq!(host_of("[::1]:9091"), "::1");
        assert_eq!(host_of("localhost"), "localhost");
    }

    #[test]
    fn refusals_get_the_client_flag_that_answers_them() {
        let m = "this server requires TLS (--require-tls): plaintext connections are refused; connect with TLS";
        assert!(with_hint(m).contains("--ca-file"), "{}", with_hint(m));
        let m = "authentication failed: wrong user name, password or token";
        assert!(with_hint(m).contains("--password-file"));
        assert_eq!(with_hint("table not found"), "table not found");
        assert!(!format!("{:?}", Credentials::new("u", "secret")).contains("secret"));
    }
}
