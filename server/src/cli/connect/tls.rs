//! The client side of TLS: the CAs the server's certificate must chain to (`--ca-file`, else
//! `SSL_CERT_FILE`, else the system's bundle), the client certificate to present, the name to
//! check, and a handshake failure explained in the terms of those flags. There is no way to
//! skip verification: a certificate the client cannot check is a refusal.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{AlertDescription, CertificateError, ClientConfig, RootCertStore};

use super::AuthArgs;

/// Where Linux distributions keep the system's CA bundle (the first that exists is used).
const SYSTEM_BUNDLES: [&str; 6] = [
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/pki/tls/cacert.pem",
    "/etc/ssl/cert.pem",
];

/// A client TLS configuration and what it was made of.
#[derive(Clone)]
pub struct ClientTls {
    pub config: Arc<ClientConfig>,
    /// `--tls-server-name`: the name to check instead of the address's host.
    pub server_name: Option<String>,
    /// Where the trusted CAs came from, for messages (`--ca-file ca.pem`, ...).
    pub trust: String,
    /// Whether the user named the CAs (`--ca-file`), rather than a default.
    pub ca_given: bool,
}

impl std::fmt::Debug for ClientTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientTls")
            .field("server_name", &self.server_name)
            .field("trust", &self.trust)
            .finish()
    }
}

impl ClientTls {
    /// Reads the CA and client certificate files of `args`.
    pub fn load(args: &AuthArgs) -> Result<ClientTls, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let (roots, trust) = roots(args.ca_file.as_deref())?;
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("cannot set up TLS: {e}"))?
            .with_root_certificates(roots);
        let config = match (&args.client_cert, &args.client_key) {
            (Some(cert), Some(key)) => {
                let chain = certs(cert, "client certificate")?;
                let key = PrivateKeyDer::from_pem_file(key)
                    .map_err(|e| format!("cannot read the client key {}: {e}", key.display()))?;
                builder.with_client_auth_cert(chain, key).map_err(|e| {
                    format!(
                        "the client certificate {} and key do not go together: {e}",
                        cert.display()
                    )
                })?
            }
            _ => builder.with_no_client_auth(),
        };
        if let Some(name) = &args.tls_server_name {
            ServerName::try_from(name.clone()).map_err(|_| {
                format!("--tls-server-name {name:?} is not a DNS name or an IP address")
            })?;
        }
        Ok(ClientTls {
            config: Arc::new(config),
            server_name: args.tls_server_name.clone(),
            trust,
            ca_given: args.ca_file.is_some(),
        })
    }

    /// The name the certificate of the server at `addr` must hold.
    pub fn server_name(&self, addr: &str) -> Result<ServerName<'static>, String> {
        let name = self
            .server_name
            .clone()
            .unwrap_or_else(|| super::host_of(addr).to_string());
        ServerName::try_from(name.clone()).map_err(|_| {
            format!("{name:?} (from {addr}) is not a name a certificate can hold: give --tls-server-name NAME")
        })
    }

    /// A TLS failure with the server at `addr` as the user should read it: what was wrong and
    /// which flag fixes it.
    pub fn explain(&self, e: &std::io::Error, addr: &str) -> String {
        let name = self
            .server_name
            .clone()
            .unwrap_or_else(|| super::host_of(addr).to_string());
        let inner = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>());
        match inner {
            Some(rustls::Error::InvalidCertificate(c)) => self.explain_certificate(c, addr, &name),
            Some(rustls::Error::AlertReceived(a)) => explain_alert(*a, addr),
            Some(rustls::Error::InvalidMessage(_)) | Some(rustls::Error::InappropriateMessage { .. }) => {
                not_tls(addr, &e.to_string())
            }
            Some(other) => format!("the TLS handshake with {addr} failed: {other}"),
            None => match e.kind() {
                std::io::ErrorKind::UnexpectedEof
                | std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionAborted
                | std::io::ErrorKind::BrokenPipe => not_tls(addr, &e.to_string()),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => format!(
                    "the server at {addr} did not finish the TLS handshake in time: is it a TLS server?"
                ),
                _ => format!("the TLS connection to {addr} failed: {e}"),
            },
        }
    }

    fn explain_certificate(&self, c: &CertificateError, addr: &str, name: &str) -> String {
        match c {
            CertificateError::UnknownIssuer | CertificateError::BadSignature => {
                if self.ca_given {
                    format!(
                        "the certificate of the server at {addr} is not trusted: it is not signed by a CA in {}; give --ca-file the CA certificate (PEM) that signed the server's certificate",
                        self.trust
                    )
                } else {
                    format!(
                        "the certificate of the server at {addr} is not trusted: no CA in {} signed it; give --ca-file FILE with the CA certificate (PEM) that signed the server's certificate",
                        self.trust
                    )
                }
            }
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => format!(
                "the certificate of the server at {addr} is not valid for the name {name}: connect by a name the certificate holds, or give --tls-server-name with one"
            ),
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => format!(
                "the certificate of the server at {addr} has expired: it must be renewed on the server"
            ),
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => format!(
                "the certificate of the server at {addr} is not valid yet: check this machine's clock and the server's"
            ),
            other => format!("the certificate of the server at {addr} is refused: {other:?}"),
        }
    }
}

fn not_tls(addr: &str, detail: &str) -> String {
    format!(
        "the server at {addr} did not complete a TLS handshake ({detail}): it may not have TLS on (redbase needs --tls-cert and --tls-key); for a plaintext server leave out --tls"
    )
}

fn explain_alert(a: AlertDescription, addr: &str) -> String {
    match a {
        AlertDescription::CertificateRequired
        | AlertDescription::BadCertificate
        | AlertDescription::UnknownCA
        | AlertDescription::CertificateUnknown
        | AlertDescription::AccessDenied => format!(
            "the server at {addr} refused the TLS handshake ({a:?}): it requires a client certificate it trusts; give --client-cert and --client-key signed by its --tls-client-ca"
        ),
        other => format!("the server at {addr} ended the TLS handshake: {other:?}"),
    }
}

/// The trusted CAs, and where they came from.
fn roots(ca_file: Option<&Path>) -> Result<(RootCertStore, String), String> {
    let mut roots = RootCertStore::empty();
    if let Some(path) = ca_file {
        for c in certs(path, "CA certificate")? {
            roots.add(c).map_err(|e| {
                format!(
                    "{} holds a CA certificate that cannot be used: {e}",
                    path.display()
                )
            })?;
        }
        return Ok((roots, format!("--ca-file {}", path.display())));
    }
    let (path, what) = match std::env::var_os("SSL_CERT_FILE") {
        Some(p) => (PathBuf::from(p), "SSL_CERT_FILE"),
        None => match SYSTEM_BUNDLES.iter().map(PathBuf::from).find(|p| p.exists()) {
            Some(p) => (p, "the system CA bundle"),
            None => {
                return Err(
                    "no CA certificates to verify the server with: give --ca-file FILE with the CA certificate (PEM) that signed the server's certificate".into(),
                )
            }
        },
    };
    let found = CertificateDer::pem_file_iter(&path)
        .map_err(|e| {
            format!(
                "cannot read {what} {}: {e}; give --ca-file FILE",
                path.display()
            )
        })?
        .filter_map(Result::ok);
    let (added, _) = roots.add_parsable_certificates(found);
    if added == 0 {
        return Err(format!(
            "{what} {} holds no CA certificate: give --ca-file FILE with the CA certificate (PEM) that signed the server's certificate",
            path.display()
        ));
    }
    Ok((roots, format!("{what} {}", path.display())))
}

fn certs(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let bad =
        |e: &dyn std::fmt::Display| format!("cannot read the {what} file {}: {e}", path.display());
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(&e))?;
    if certs.is_empty() {
        return Err(format!(
            "{} holds no PEM certificate ({what})",
            path.display()
        ));
    }
    Ok(certs)
}
