//! The binary's security flags (`redbase serve --tls-cert ...`), `redbase hash-password`, the
//! start-up warning for an exposed server, and certificate reloads on SIGHUP or file change.

use std::io::Read;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use redbase::security::{self, Auth, LimiterConfig, Security, Tls, TlsFiles};
use redbase::server::Listeners;

#[derive(clap::Args, Debug)]
pub struct SecurityArgs {
    /// PEM certificate chain for TLS on every port (with --tls-key). TLS is detected per
    /// connection, so plaintext clients keep working unless --require-tls.
    #[arg(long, env = "REDBASE_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert.
    #[arg(long, env = "REDBASE_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// PEM CA certificates that sign client certificates; a verified certificate's subject
    /// CN (else its DNS or email SAN) becomes the caller's identity.
    #[arg(long, env = "REDBASE_TLS_CLIENT_CA", requires = "tls_cert")]
    tls_client_ca: Option<PathBuf>,
    /// Refuse TLS clients without a certificate signed by --tls-client-ca.
    #[arg(
        long,
        env = "REDBASE_TLS_REQUIRE_CLIENT_CERT",
        requires = "tls_client_ca"
    )]
    tls_require_client_cert: bool,
    /// Refuse plaintext on every listener, the REST API included (the HTTP listener still
    /// answers /healthz and /readyz over plaintext from loopback, for `redbase healthcheck`).
    #[arg(long, env = "REDBASE_REQUIRE_TLS", requires = "tls_cert")]
    require_tls: bool,
    /// Users and their password hashes, tokens and superuser flags (docs/security.md). With it,
    /// every Thrift call, the REST API, the status page and /metrics need an authenticated
    /// identity (the probes do not).
    #[arg(long, env = "REDBASE_AUTH_FILE")]
    auth_file: Option<PathBuf>,
    /// Accept SASL PLAIN and HTTP credentials over plaintext connections (they are refused
    /// without TLS otherwise: a password on the wire in the clear).
    #[arg(long, env = "REDBASE_ALLOW_PLAINTEXT_AUTH")]
    allow_plaintext_auth: bool,
    /// Origins (e.g. https://admin.example.com) whose cross-site requests are served;
    /// comma-separated. None by default: a request with any other Origin gets 403.
    #[arg(long, env = "REDBASE_HTTP_ALLOWED_ORIGINS", value_delimiter = ',')]
    http_allowed_origins: Vec<String>,
    /// With --auth-file, serve /metrics without credentials (it names every table and region,
    /// so it needs them by default; Prometheus can send Basic or a bearer token).
    #[arg(long, env = "REDBASE_METRICS_OPEN", conflicts_with = "metrics_auth")]
    metrics_open: bool,
    /// With --auth-file, /healthz and /readyz need credentials too (as /metrics does by
    /// default). `redbase healthcheck` sends none: do not use it with this.
    #[arg(long, env = "REDBASE_METRICS_AUTH", requires = "auth_file")]
    metrics_auth: bool,
    /// Failed authentications allowed per user per client address per minute: the one that
    /// reaches it refuses that user from that address for --auth-block-secs.
    #[arg(long, env = "REDBASE_AUTH_MAX_FAILURES", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    auth_max_failures: u32,
    /// How long a user is refused from an address that reached --auth-max-failures.
    #[arg(long, env = "REDBASE_AUTH_BLOCK_SECS", default_value_t = 300)]
    auth_block_secs: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Tls(#[from] security::TlsError),
    #[error(transparent)]
    Users(#[from] security::UsersError),
}

impl SecurityArgs {
    /// Reads the certificates and the auth file; any error stops the server from starting.
    pub fn load(&self) -> Result<Security, SetupError> {
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(Tls::load(TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                client_ca: self.tls_client_ca.clone(),
                require_client_cert: self.tls_require_client_cert,
            })?),
            _ => None,
        };
        let auth = match &self.auth_file {
            Some(path) => {
                let auth = Auth::load(
                    path,
                    LimiterConfig {
                        max_failures: self.auth_max_failures,
                        block: std::time::Duration::from_secs(self.auth_block_secs),
                        ..LimiterConfig::default()
                    },
                )?;
                let users = auth.users();
                tracing::info!(file = %path.display(), users = users.len(), superusers = users.superusers().len(), "authentication on");
                Some(Arc::new(auth))
            }
            None => None,
        };
        Ok(Security {
            tls,
            require_tls: self.require_tls,
            auth,
            allow_plaintext_auth: self.allow_plaintext_auth,
            allowed_origins: self.http_allowed_origins.clone(),
            metrics_open: self.metrics_open,
            probes_auth: self.metrics_auth,
        })
    }
}

/// What is exposed without authentication: every listener on a non-loopback address.
pub fn exposure_warnings(
    listeners: &Listeners,
    native: Option<&tokio::net::TcpListener>,
    security: &Security,
) -> Vec<String> {
    if security.auth.is_some() {
        return Vec::new();
    }
    let addrs: Vec<SocketAddr> = [&listeners.thrift1, &listeners.thrift2, &listeners.http]
        .into_iter()
        .flatten()
        .chain(native)
        .filter_map(|l| l.local_addr().ok())
        .filter(|a| !a.ip().is_loopback())
        .collect();
    if addrs.is_empty() {
        return Vec::new();
    }
    let list: Vec<String> = addrs.iter().map(|a| a.to_string()).collect();
    vec![format!(
        "listening on {} with no authentication (no --auth-file): anyone who can reach these addresses can read, write and delete every table",
        list.join(", ")
    )]
}

/// Reloads the certificates and the auth file on SIGHUP (`server::run` also watches the
/// certificate files). Either one that does not load keeps the previous one and logs why.
pub fn watch_sighup(security: &Security) -> Option<tokio::task::JoinHandle<()>> {
    let tls: Option<Arc<Tls>> = security.tls.clone();
    let auth: Option<Arc<Auth>> = security.auth.clone().filter(|a| a.file().is_some());
    if tls.is_none() && auth.is_none() {
        return None;
    }
    Some(tokio::spawn(async move {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
            Ok(mut hup) => {
                while hup.recv().await.is_some() {
                    if let Some(t) = tls.clone() {
                        tracing::info!("SIGHUP: reloading the TLS certificates");
                        let _ = tokio::task::spawn_blocking(move || t.reload()).await;
                    }
                    if let Some(a) = auth.clone() {
                        tracing::info!("SIGHUP: reloading the auth file");
                        let _ = tokio::task::spawn_blocking(move || a.reload()).await;
                    }
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot watch SIGHUP; certificates reload on file change only, the auth file only on restart")
            }
        }
    }))
}

#[derive(clap::Args, Debug)]
pub struct HashPasswordArgs {
    /// Hash a bearer token (SHA-256, for `tokens = [...]`) instead of a password.
    #[arg(long)]
    token: bool,
}

/// `redbase hash-password`: one line from stdin (without its newline) in, one hash out.
pub fn hash_password(args: HashPasswordArgs) -> std::process::ExitCode {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("cannot read stdin: {e}");
        return std::process::ExitCode::FAILURE;
    }
    let secret = input.strip_suffix('\n').unwrap_or(&input);
    let secret = secret.strip_suffix('\r').unwrap_or(secret);
    if secret.is_empty() {
        eprintln!("empty input: pipe the password (or token) to stdin, e.g. `printf %s 'pw' | redbase hash-password`");
        return std::process::ExitCode::FAILURE;
    }
    if args.token {
        println!("{}", security::hash_token(secret));
        return std::process::ExitCode::SUCCESS;
    }
    match security::hash_password(secret) {
        Ok(h) => {
            println!("{h}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cannot hash the password: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
