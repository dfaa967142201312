//! The client tools' security flags. `redbase copy` talks to two servers, so it also takes
//! each flag with a `--from-` and a `--to-` prefix, which replace the plain one for that side.

use std::path::PathBuf;
use std::sync::Arc;

use super::{password, tls, ClientSecurity, Credentials};

/// Who the tool is to the server and how it checks the server (docs/security.md, "Client
/// tools").
#[derive(clap::Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthArgs {
    /// The user to authenticate as: SASL PLAIN on Thrift2 (its connections are then framed,
    /// whatever --transport says), HTTP Basic on the operations listener. Its password comes
    /// from --password-file, else REDBASE_PASSWORD, else a prompt when standard input is a
    /// terminal.
    #[arg(long, env = "REDBASE_USER", value_name = "NAME")]
    pub user: Option<String>,
    /// A file whose first line is the password of --user (keep it readable by you alone).
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// Refused: a password on the command line is visible to every user of the machine.
    #[arg(long, hide = true, value_name = "PASSWORD")]
    pub password: Option<String>,
    /// Connect with TLS, verifying the server's certificate (implied by --ca-file,
    /// --client-cert and --tls-server-name).
    #[arg(long)]
    pub tls: bool,
    /// PEM CA certificates that sign the server's certificate [default: the file in
    /// SSL_CERT_FILE, else the system's CA bundle].
    #[arg(long, env = "REDBASE_CA_FILE", value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// PEM client certificate (chain) to present; with the server's --tls-client-ca its name
    /// is the identity, no password needed.
    #[arg(
        long,
        env = "REDBASE_CLIENT_CERT",
        value_name = "FILE",
        requires = "client_key"
    )]
    pub client_cert: Option<PathBuf>,
    /// PEM private key of --client-cert.
    #[arg(
        long,
        env = "REDBASE_CLIENT_KEY",
        value_name = "FILE",
        requires = "client_cert"
    )]
    pub client_key: Option<PathBuf>,
    /// The name the server's certificate must hold [default: the host of the address].
    #[arg(long, value_name = "NAME")]
    pub tls_server_name: Option<String>,
}

/// `redbase copy`'s source side: each flag replaces the plain one for the source.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FromAuthArgs {
    /// The source's user (replaces --user there).
    #[arg(long, value_name = "NAME")]
    pub from_user: Option<String>,
    /// The source user's password file (replaces --password-file there).
    #[arg(long, value_name = "FILE")]
    pub from_password_file: Option<PathBuf>,
    #[arg(long, hide = true, value_name = "PASSWORD")]
    pub from_password: Option<String>,
    /// TLS to the source.
    #[arg(long)]
    pub from_tls: bool,
    /// CA certificates for the source's certificate.
    #[arg(long, value_name = "FILE")]
    pub from_ca_file: Option<PathBuf>,
    /// Client certificate for the source.
    #[arg(long, value_name = "FILE", requires = "from_client_key")]
    pub from_client_cert: Option<PathBuf>,
    /// Its private key.
    #[arg(long, value_name = "FILE", requires = "from_client_cert")]
    pub from_client_key: Option<PathBuf>,
    /// The name the source's certificate must hold.
    #[arg(long, value_name = "NAME")]
    pub from_tls_server_name: Option<String>,
}

/// `redbase copy`'s destination side: each flag replaces the plain one for the destination.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ToAuthArgs {
    /// The destination's user (replaces --user there).
    #[arg(long, value_name = "NAME")]
    pub to_user: Option<String>,
    /// The destination user's password file (replaces --password-file there).
    #[arg(long, value_name = "FILE")]
    pub to_password_file: Option<PathBuf>,
    #[arg(long, hide = true, value_name = "PASSWORD")]
    pub to_password: Option<String>,
    /// TLS to the destination.
    #[arg(long)]
    pub to_tls: bool,
    /// CA certificates for the destination's certificate.
    #[arg(long, value_name = "FILE")]
    pub to_ca_file: Option<PathBuf>,
    /// Client certificate for the destination.
    #[arg(long, value_name = "FILE", requires = "to_client_key")]
    pub to_client_cert: Option<PathBuf>,
    /// Its private key.
    #[arg(long, value_name = "FILE", requires = "to_client_cert")]
    pub to_client_key: Option<PathBuf>,
    /// The name the destination's certificate must hold.
    #[arg(long, value_name = "NAME")]
    pub to_tls_server_name: Option<String>,
}

impl FromAuthArgs {
    /// The source's flags: these over `base`.
    pub fn over(&self, base: &AuthArgs) -> AuthArgs {
        overlay(
            base,
            AuthArgs {
                user: self.from_user.clone(),
                password_file: self.from_password_file.clone(),
                password: self.from_password.clone(),
                tls: self.from_tls,
                ca_file: self.from_ca_file.clone(),
                client_cert: self.from_client_cert.clone(),
                client_key: self.from_client_key.clone(),
                tls_server_name: self.from_tls_server_name.clone(),
            },
        )
    }
}

impl ToAuthArgs {
    /// The destination's flags: these over `base`.
    pub fn over(&self, base: &AuthArgs) -> AuthArgs {
        overlay(
            base,
            AuthArgs {
                user: self.to_user.clone(),
                password_file: self.to_password_file.clone(),
                password: self.to_password.clone(),
                tls: self.to_tls,
                ca_file: self.to_ca_file.clone(),
                client_cert: self.to_client_cert.clone(),
                client_key: self.to_client_key.clone(),
                tls_server_name: self.to_tls_server_name.clone(),
            },
        )
    }
}

fn overlay(base: &AuthArgs, side: AuthArgs) -> AuthArgs {
    let (client_cert, client_key) = match (side.client_cert, side.client_key) {
        (Some(c), Some(k)) => (Some(c), Some(k)),
        _ => (base.client_cert.clone(), base.client_key.clone()),
    };
    AuthArgs {
        user: side.user.or_else(|| base.user.clone()),
        password_file: side.password_file.or_else(|| base.password_file.clone()),
        password: side.password.or_else(|| base.password.clone()),
        tls: side.tls || base.tls,
        ca_file: side.ca_file.or_else(|| base.ca_file.clone()),
        client_cert,
        client_key,
        tls_server_name: side
            .tls_server_name
            .or_else(|| base.tls_server_name.clone()),
    }
}

impl AuthArgs {
    /// Whether connections use TLS.
    pub fn wants_tls(&self) -> bool {
        self.tls
            || self.ca_file.is_some()
            || self.client_cert.is_some()
            || self.tls_server_name.is_some()
    }

    /// Reads the files and the password (asking on a terminal when it must) for connections
    /// to `addr`. Every problem is a message naming the flag or file and what to do.
    pub fn resolve(&self, addr: &str) -> Result<ClientSecurity, String> {
        if self.password.is_some() {
            return Err(password::REFUSED.into());
        }
        let tls = if self.wants_tls() {
            Some(tls::ClientTls::load(self)?)
        } else {
            None
        };
        let credentials = match &self.user {
            None => {
                if let Some(f) = &self.password_file {
                    return Err(format!(
                        "--password-file {} needs --user (or REDBASE_USER): whose password is it?",
                        f.display()
                    ));
                }
                None
            }
            Some(user) if user.is_empty() => {
                return Err("--user is empty: give a user name of the server's auth file".into())
            }
            Some(user) => {
                let secret = password::read(self.password_file.as_deref(), user, addr)?;
                if tls.is_none() {
                    warn_plaintext(user, addr);
                }
                Some(Arc::new(Credentials::new(user.clone(), secret)))
            }
        };
        Ok(ClientSecurity { tls, credentials })
    }
}

fn warn_plaintext(user: &str, addr: &str) {
    eprintln!(
        "warning: the password of {user} goes to {addr} without TLS (a redbase server refuses \
         that unless it runs with --allow-plaintext-auth); add --tls and --ca-file to protect it"
    );
}

/// Resolves both sides of a copy; a side with the same user and password file as the other
/// reuses its password (one prompt, not two).
pub fn resolve_pair(
    from: &AuthArgs,
    from_addr: &str,
    to: &AuthArgs,
    to_addr: &str,
) -> Result<(ClientSecurity, ClientSecurity), String> {
    let source = from
        .resolve(from_addr)
        .map_err(|e| format!("source: {e}"))?;
    let same_user = from.user == to.user && from.password_file == to.password_file;
    let dest = if same_user && to.password.is_none() {
        let mut without_user = to.clone();
        without_user.user = None;
        without_user.password_file = None;
        let mut d = without_user
            .resolve(to_addr)
            .map_err(|e| format!("destination: {e}"))?;
        d.credentials = source.credentials.clone();
        if let (None, Some(c)) = (&d.tls, &d.credentials) {
            if to_addr != from_addr || source.tls.is_some() {
                warn_plaintext(&c.user, to_addr);
            }
        }
        d
    } else {
        to.resolve(to_addr)
            .map_err(|e| format!("destination: {e}"))?
    };
    Ok((source, dest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_flag_replaces_the_plain_one() {
        let base = AuthArgs {
            user: Some("admin".into()),
            ca_file: Some("ca.pem".into()),
            ..AuthArgs::default()
        };
        let to = ToAuthArgs {
            to_user: Some("loader".into()),
            ..ToAuthArgs::default()
        }
        .over(&base);
        assert_eq!(to.user.as_deref(), Some("loader"));
        assert_eq!(to.ca_file, base.ca_file);
        assert!(to.wants_tls());
        let from = FromAuthArgs::default().over(&base);
        assert_eq!(from, base);
    }

    #[test]
    fn a_password_in_argv_is_refused() {
        let a = AuthArgs {
            password: Some("hunter2".into()),
            ..AuthArgs::default()
        };
        let e = a.resolve("h:1").unwrap_err();
        assert!(
            e.contains("--password-file") && !e.contains("hunter2"),
            "{e}"
        );
    }
}
