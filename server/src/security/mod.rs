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
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

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
    /// With an auth file, `/metrics` answers without credentials (`--metrics-open`); it needs
    /// them otherwise, since it names every table and region.
    pub metrics_open: bool,
    /// With an auth file, `/healthz` and `/readyz` need credentials too (`--metrics-auth`,
    /// which also keeps `/metrics` closed).
    pub probes_auth: bool,
}

impl std::fmt::Debug for Security {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Security")
            .field("tls", &self.tls.is_some())
            .field("require_tls", &self.require_tls)
            .field("auth", &self.auth.is_some())
            .field("allow_plaintext_auth", &self.allow_plaintext_auth)
            .field("allowed_origins", &self.allowed_origins)
            .field("metrics_open", &self.metrics_open)
            .field("probes_auth", &self.probes_auth)
            .finish()
    }
}

impl Security {
    /// The auth file's users as now loaded, when authentication is on (for authorization:
    /// superusers). A reload replaces them; a caller holding this keeps the set it got.
    pub fn users(&self) -> Option<Arc<Users>> {
        self.auth.as_deref().map(Auth::users)
    }

    /// Whether a request carrying `Origin: origin` may be served.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        self.allowed_origins.iter().any(|o| o == origin)
    }
}

/// The name failures with bearer tokens are counted under (a token names no user).
const TOKEN_USER: &str = "(token)";

/// How a lockout names what it refuses.
fn who(user: &str) -> String {
    if user == TOKEN_USER {
        "bearer tokens".to_string()
    } else {
        format!("user {user:?}")
    }
}

/// Why credentials were not accepted. The text is what the client is told: it never holds a
/// secret, and does not say whether the user or the password was wrong.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum AuthError {
    #[error("authentication failed: wrong user name, password or token")]
    BadCredentials,
    #[error(
        "too many failed authentication attempts for {who} from {ip}: refused for another {secs} s"
    )]
    TooManyFailures { who: String, ip: IpAddr, secs: u64 },
    #[error("malformed credentials: {0}")]
    Malformed(String),
    #[error("credentials over plaintext are refused: connect with TLS, or start the server with --allow-plaintext-auth")]
    Plaintext,
    #[error("authentication is not configured on this server (no --auth-file)")]
    NotConfigured,
}

/// The auth file with the limiter that guards it. The users reload from the file (SIGHUP in
/// the binary); a file that does not load leaves the previous users in place. Each reload
/// bumps [`Auth::generation`], so credentials remembered by a listener are checked again.
#[derive(Debug)]
pub struct Auth {
    users: RwLock<Arc<Users>>,
    generation: AtomicU64,
    /// Where the users came from; `None` for users given directly (nothing to reload).
    file: Option<PathBuf>,
    limiter: Limiter,
}

impl Auth {
    pub fn new(users: Users, limits: LimiterConfig) -> Auth {
        Auth {
            users: RwLock::new(Arc::new(users)),
            generation: AtomicU64::new(0),
            file: None,
            limiter: Limiter::new(limits),
        }
    }

    /// The users of the auth file at `path`, which [`Auth::reload`] reads again.
    pub fn load(path: &Path, limits: LimiterConfig) -> Result<Auth, UsersError> {
        let mut auth = Auth::new(Users::load(path)?, limits);
        auth.file = Some(path.to_owned());
        Ok(auth)
    }

    /// The users as now loaded.
    pub fn users(&self) -> Arc<Users> {
        self.users.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Which load of the users is in use: credentials a listener remembers are good only
    /// while this has not changed since they were checked.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The auth file this was loaded from, if any.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Reads the auth file again and uses it from the next authentication on (identities
    /// already proved stay). A file that does not load keeps the previous users in place; the
    /// error says why and is logged. Without a file there is nothing to do.
    pub fn reload(&self) -> Result<(), UsersError> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        match Users::load(path) {
            Ok(users) => {
                tracing::info!(file = %path.display(), users = users.len(), superusers = users.superusers().len(), "auth file reloaded");
                *self.users.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(users);
                self.generation.fetch_add(1, Ordering::AcqRel);
                Ok(())
            }
            Err(e) => {
                tracing::error!(error = %e, "auth file reload failed: the previous users stay in use");
                Err(e)
            }
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
            self.users()
                .verify_password(user, password)
                .then(|| user.to_string())
        })
    }

    /// Checks a bearer token from `ip`.
    pub fn token(&self, ip: IpAddr, token: &[u8], how: &str) -> Result<String, AuthError> {
        self.guarded(ip, TOKEN_USER, how, || self.users().verify_token(token))
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

    /// Refuses HTTP credentials a listener remembers as `user`'s while that user (or, for a
    /// bearer token, token use) is locked out from `ip`: a lockout holds on every path.
    pub fn http_locked(&self, ip: IpAddr, header: &[u8], user: &str) -> Result<(), AuthError> {
        let text = header.trim_ascii_start();
        let bearer = text.len() >= 6 && text[..6].eq_ignore_ascii_case(b"bearer");
        let name = if bearer { TOKEN_USER } else { user };
        self.limiter
            .check(ip, name)
            .map_err(|secs| AuthError::TooManyFailures {
                who: who(name),
                ip,
                secs,
            })
    }

    /// Refuses a locked-out user before any work; counts and logs a failure (the user name
    /// and address, never the secret).
    fn guarded(
        &self,
        ip: IpAddr,
        user: &str,
        how: &str,
        verify: impl FnOnce() -> Option<String>,
    ) -> Result<String, AuthError> {
        if let Err(secs) = self.limiter.check(ip, user) {
            return Err(AuthError::TooManyFailures {
                who: who(user),
                ip,
                secs,
            });
        }
        match verify() {
            Some(u) => Ok(u),
            None => {
                if self.limiter.failed(ip, user) {
                    tracing::warn!(%ip, user = %user.escape_debug(), method = how, "too many failed authentication attempts: this user is refused from this address for a while");
                } else {
                    tracing::warn!(%ip, user = %user.escape_debug(), method = how, "authentication failed");
                }
                Err(AuthError::BadCredentials)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn file(password: &str) -> String {
        format!(
            "[users.alice]\npassword = \"{}\"\n",
            hash_password(password).unwrap()
        )
    }

    #[test]
    fn the_auth_file_reloads_and_a_bad_one_keeps_the_old_users() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("users.toml");
        std::fs::write(&path, file("one")).unwrap();
        let auth = Auth::load(&path, LimiterConfig::default()).unwrap();
        let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
        assert!(auth.password(ip, "alice", b"one", "test").is_ok());

        std::fs::write(&path, file("two")).unwrap();
        auth.reload().unwrap();
        assert!(auth.password(ip, "alice", b"two", "test").is_ok());
        assert!(auth.password(ip, "alice", b"one", "test").is_err());

        std::fs::write(&path, "[users.alice]\npassword = \"plain\"\n").unwrap();
        let e = auth.reload().unwrap_err();
        assert!(e.to_string().contains("hash-password"), "{e}");
        assert!(auth.password(ip, "alice", b"two", "test").is_ok());
        std::fs::remove_file(&path).unwrap();
        assert!(auth.reload().is_err());
        assert!(auth.password(ip, "alice", b"two", "test").is_ok());
    }
}
