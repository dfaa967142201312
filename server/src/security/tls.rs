//! TLS for every listener: the certificate, key and optional client CA are read from PEM
//! files and can be replaced while the server runs (SIGHUP, or a change the watcher sees).
//! Each new connection takes the configuration current when it arrives, so connections
//! already up keep theirs; a new set that does not load leaves the old one in place.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig, ServerConnection};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;
use x509_parser::extensions::GeneralName;

/// How long a client has to finish the TLS handshake (and, on the Thrift ports, to send its
/// first bytes), so a silent client cannot hold a connection slot.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How often the watcher looks at the files' modification times.
pub const WATCH_EVERY: Duration = Duration::from_secs(2);
/// The first byte of a TLS record carrying a handshake (the ClientHello).
pub const TLS_HANDSHAKE_BYTE: u8 = 0x16;

/// Where the PEM files are (`--tls-cert`, `--tls-key`, `--tls-client-ca`).
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub client_ca: Option<PathBuf>,
    /// Refuse a handshake without a client certificate (`--tls-require-client-cert`).
    pub require_client_cert: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {what} {path}: {message}")]
    File {
        what: &'static str,
        path: PathBuf,
        message: String,
    },
    #[error("{path} holds no {what}")]
    Empty { what: &'static str, path: PathBuf },
    #[error("the TLS configuration is not usable: {0}")]
    Config(String),
}

/// The current TLS configuration and the files it came from.
#[derive(Debug)]
pub struct Tls {
    files: TlsFiles,
    current: RwLock<Arc<ServerConfig>>,
    stamps: Mutex<Vec<Option<SystemTime>>>,
}

impl Tls {
    /// Loads the files; an error here stops the server from starting.
    pub fn load(files: TlsFiles) -> Result<Arc<Tls>, TlsError> {
        let stamps = stamps(&files);
        let config = build(&files)?;
        Ok(Arc::new(Tls {
            files,
            current: RwLock::new(Arc::new(config)),
            stamps: Mutex::new(stamps),
        }))
    }

    /// An acceptor with the configuration current now.
    pub fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(
            self.current
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
        )
    }

    /// Whether client certificates are checked (they then prove identities).
    pub fn verifies_clients(&self) -> bool {
        self.files.client_ca.is_some()
    }

    /// Reads the files again; on failure the old configuration stays and the reason is logged.
    pub fn reload(&self) -> Result<(), TlsError> {
        *self.stamps.lock().unwrap_or_else(|p| p.into_inner()) = stamps(&self.files);
        match build(&self.files) {
            Ok(config) => {
                *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(config);
                tracing::info!(cert = %self.files.cert.display(), "TLS certificates reloaded");
                Ok(())
            }
            Err(e) => {
                tracing::error!(error = %e, "TLS reload failed: the previous certificates stay in use");
                Err(e)
            }
        }
    }

    /// Reloads when a file's modification time changed since the last load.
    pub fn reload_if_changed(&self) {
        let now = stamps(&self.files);
        let changed = *self.stamps.lock().unwrap_or_else(|p| p.into_inner()) != now;
        if changed {
            let _ = self.reload();
        }
    }

    /// Polls the files every `every` for changes, forever (abort the task to stop).
    pub async fn watch(self: Arc<Self>, every: Duration) {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let me = self.clone();
            let _ = tokio::task::spawn_blocking(move || me.reload_if_changed()).await;
        }
    }
}

fn stamps(files: &TlsFiles) -> Vec<Option<SystemTime>> {
    [
        Some(&files.cert),
        Some(&files.key),
        files.client_ca.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
    .collect()
}

fn build(files: &TlsFiles) -> Result<ServerConfig, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs = read_certs(&files.cert, "certificate")?;
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| TlsError::File {
        what: "private key",
        path: files.key.clone(),
        message: e.to_string(),
    })?;
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Config(e.to_string()))?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            for c in read_certs(ca, "CA certificate")? {
                roots.add(c).map_err(|e| TlsError::File {
                    what: "client CA",
                    path: ca.clone(),
                    message: e.to_string(),
                })?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
            let verifier = if files.require_client_cert {
                verifier
            } else {
                verifier.allow_unauthenticated()
            };
            builder.with_client_cert_verifier(
                verifier
                    .build()
                    .map_err(|e| TlsError::Config(e.to_string()))?,
            )
        }
    };
    builder
        .with_single_cert(certs, key)
        .map_err(|e| TlsError::Config(format!("the certificate and key do not go together: {e}")))
}

fn read_certs(
    path: &PathBuf,
    what: &'static str,
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let bad = |e: rustls_pki_types::pem::Error| TlsError::File {
        what,
        path: path.clone(),
        message: e.to_string(),
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(bad)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad)?;
    if certs.is_empty() {
        return Err(TlsError::Empty {
            what,
            path: path.clone(),
        });
    }
    Ok(certs)
}

/// The identity a verified client certificate names: its subject's common name, else its
/// first DNS or email subject alternative name.
pub fn client_identity(conn: &ServerConnection) -> Option<String> {
    let der = conn.peer_certificates()?.first()?;
    let (_, cert) = x509_parser::parse_x509_certificate(der.as_ref()).ok()?;
    if let Some(cn) = cert
        .subject()
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())
    {
        return Some(cn.to_string());
    }
    let san = cert.subject_alternative_name().ok()??;
    san.value.general_names.iter().find_map(|n| match n {
        GeneralName::DNSName(s) | GeneralName::RFC822Name(s) => Some(s.to_string()),
        _ => None,
    })
}
