//! Transport security and authentication: TLS with reloadable certificates ([`tls`]), the
//! auth file ([`users`]), failed-attempt limits per address ([`limiter`]), and [`Auth`], which
//! checks the credentials every transport carries (SASL PLAIN, HTTP Basic and Bearer).
//!
//! Authorization (who may do what) is not here: it reads the caller this module proves
//! ([`crate::gateway::caller`]) and the superusers of [`Users`].

pub mod limiter;
pub mod tls;
pub mod users;

use std::net::IpAddr;
use std::sync::Arc;

use base64::Engine as _;

pub use limiter::{Limiter, LimiterConfig};
pub use tls::{Tls, TlsError, TlsFiles};
pub use users::{hash_password, hash_token, Users, UsersError};

/// The security settings every listener shares (the binary's flags).
#[derive(Clone, Default)]
pub struct Security {
    /// Certificates for TLS; `None` serves plaintext only.
    pub tls: Option<Arc<Tls>>,
    /// Refuse plaintext connections (`--require-tls`).
    pub require_tls: bool,
    /// The auth file and its limiter; `None` = authentication off, every caller anonymous.
    pub auth: Option<Arc<Auth>>,
    /// Accept passwords and tokens over plaintext (`--allow-plaintext-auth`).
    pub allow_plaintext_auth: bool,
    /// Origins a cross-site request may come from (`--http-allowed-origins`); none by default.
    pub allowed_origins: Vec<String>,
    /// `/metrics`, `/healthz` and `/readyz` need an identity too (`--metrics-auth`).
    pub metrics_auth: bool,
}

impl std::fmt::Debug for Security {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Security")
            .field("tls", &self.tls.is_some())
            .field("require_tls", &self.require_tls)
            .field("auth", &self.auth.is_some())
            .field("allow_plaintext_auth", &self.allow_plaintext_auth)
            .field("allowed_origins", &self.allowed_origins)
            .field("metrics_auth", &self.metrics_auth)
            .finish()
    }
}

impl Security {
    /// The auth file's users, when authentication is on (for authorization: superusers).
    pub fn users(&self) -> Option<&Users> {
        self.auth.as_deref().map(|a| &a.users)
    }

    /// Whether a request carrying `Origin: origin` may be served.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        self.allowed_origins.iter().any(|o| o == origin)
    }
}

/// Why credentials were not accepted. The text is what the client is told: it never holds a
/// secret, and does not say whether the user or the password was wrong.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum AuthError {
    #[error("authentication failed: wrong user name, password or token")]
    BadCredentials,
    #[error("too many failed authentication attempts from {ip}: refused for another {secs} s")]
    TooManyFailures { ip: IpAddr, secs: u64 },
    #[error("malformed credentials: {0}")]
    Malformed(String),
    #[error("credentials over plaintext are refused: connect with TLS, or start the server with --allow-plaintext-auth")]
    Plaintext,
    #[error("authentication is not configured on this server (no --auth-file)")]
    NotConfigured,
}

/// The auth file with the limiter that guards it.
#[derive(Debug)]
pub struct Auth {
    pub users: Users,
    limiter: Limiter,
}

impl Auth {
    pub fn new(users: Users, limits: LimiterConfig) -> Auth {
        Auth {
            users,
            limiter: Limiter::new(limits),
        }
    }

    /// Checks a user name and password from `ip`. Slow (argon2): call it on a blocking thread.
    pub fn password(
        &self,
        ip: IpAddr,
        user: &str,
        password: &[u8],
        how: &str,
    ) -> Result<String, AuthError> {
        self.guarded(ip, user, how, || {
            self.users
                .verify_password(user, password)
                .then(|| user.to_string())
        })
    }

    /// Checks a bearer token from `ip`.
    pub fn token(&self, ip: IpAddr, token: &[u8], how: &str) -> Result<String, AuthError> {
        self.guarded(ip, "(token)", how, || self.users.verify_token(token))
    }

    /// A SASL PLAIN response (RFC 4616: authzid NUL authcid NUL password). An authzid other
    /// than empty or the authcid itself is refused: nobody may act as someone else.
    pub fn sasl_plain(&self, ip: IpAddr, response: &[u8]) -> Result<String, AuthError> {
        let mut parts = response.split(|&b| b == 0);
        let (Some(authz), Some(authc), Some(password), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(AuthError::Malformed(
                "a SASL PLAIN response is authzid NUL user NUL password".into(),
            ));
        };
        let user = std::str::from_utf8(authc)
            .map_err(|_| AuthError::Malformed("the SASL user name is not UTF-8".into()))?;
        if !authz.is_empty() && authz != authc {
            return Err(AuthError::Malformed(
                "a SASL authorization id other than the user's own is not supported".into(),
            ));
        }
        self.password(ip, user, password, "SASL PLAIN")
    }

    /// An HTTP `Authorization` header's value: `Basic base64(user:password)` or
    /// `Bearer token`.
    pub fn http(&self, ip: IpAddr, header: &[u8]) -> Result<String, AuthError> {
        let text = std::str::from_utf8(header)
            .map_err(|_| AuthError::Malformed("the Authorization header is not text".into()))?
            .trim();
        let (scheme, rest) = text.split_once(' ').unwrap_or((text, ""));
        let rest = rest.trim();
        if scheme.eq_ignore_ascii_case("basic") {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(rest)
                .map_err(|_| AuthError::Malformed("Basic credentials are not base64".into()))?;
            let colon = decoded.iter().position(|&b| b == b':').ok_or_else(|| {
                AuthError::Malformed("Basic credentials are user:password".into())
            })?;
            let user = std::str::from_utf8(&decoded[..colon])
                .map_err(|_| AuthError::Malformed("the user name is not UTF-8".into()))?;
            self.password(ip, user, &decoded[colon + 1..], "HTTP Basic")
        } else if scheme.eq_ignore_ascii_case("bearer") {
            self.token(ip, rest.as_bytes(), "HTTP Bearer")
        } else {
            Err(AuthError::Malformed(format!(
                "unsupported Authorization scheme {scheme:?}: use Basic or Bearer"
            )))
        }
    }

    /// Refuses a blocked address before any work; counts and logs a failure (the user name
    /// and address, never the secret).
    fn guarded(
        &self,
        ip: IpAddr,
        user: &str,
        how: &str,
        verify: impl FnOnce() -> Option<String>,
    ) -> Result<String, AuthError> {
        if let Err(secs) = self.limiter.check(ip) {
            return Err(AuthError::TooManyFailures { ip, secs });
        }
        match verify() {
            Some(u) => Ok(u),
            None => {
                if self.limiter.failed(ip) {
                    tracing::warn!(%ip, method = how, "too many failed authentication attempts: address refused for a while");
                } else {
                    tracing::warn!(%ip, user = %user.escape_debug(), method = how, "authentication failed");
                }
                Err(AuthError::BadCredentials)
            }
        }
    }
}
