//! The operations listener's security rules, as one middleware: a request that changes
//! something (any method but GET and HEAD) from an origin not in `--http-allowed-origins` is
//! refused, and with an auth file everything but the probes and the page's assets needs
//! credentials: a client certificate, HTTP Basic or a Bearer token. That includes `/metrics`
//! (it names every table and region) unless `--metrics-open`; `--metrics-auth` closes the
//! probes too. The proved caller is put in the request's extensions
//! ([`crate::gateway::Caller`]) for the handlers.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::gateway::caller::{Caller, Proof};
use crate::security::{AuthError, Security};
use crate::thrift::handshake::Session;

/// How long accepted credentials are remembered, so the status page's polling does not run
/// argon2 every second. A reload of the auth file forgets them all at once (each carries the
/// [`crate::security::Auth::generation`] it was checked under).
const REMEMBER: Duration = Duration::from_secs(60);
const REMEMBERED_MAX: usize = 256;

/// The connection a request came on (inserted by the accept loop).
#[derive(Debug, Clone)]
pub struct Peer {
    pub addr: SocketAddr,
    pub session: Session,
}

struct Remembered {
    user: String,
    at: Instant,
    generation: u64,
}

pub struct Guard {
    security: Arc<Security>,
    /// SHA-256 of an accepted Authorization value → (user, when accepted, under which load of
    /// the auth file).
    remembered: Mutex<HashMap<[u8; 32], Remembered>>,
}

impl Guard {
    pub fn new(security: Arc<Security>) -> Arc<Guard> {
        Arc::new(Guard {
            security,
            remembered: Mutex::new(HashMap::new()),
        })
    }

    fn protected(&self, path: &str) -> bool {
        match path {
            "/" | "/api/status" | "/api/backup" => true,
            "/metrics" => !self.security.metrics_open || self.security.probes_auth,
            "/healthz" | "/readyz" => self.security.probes_auth,
            "/status.css" | "/status.js" => false,
            // The REST API: every table, row and scanner resource (the ACL checks need a user).
            _ => true,
        }
    }

    fn remembered(&self, key: &[u8; 32], generation: u64) -> Option<String> {
        let map = self.remembered.lock().unwrap_or_else(|p| p.into_inner());
        map.get(key)
            .filter(|r| r.generation == generation && r.at.elapsed() < REMEMBER)
            .map(|r| r.user.clone())
    }

    fn remember(&self, key: [u8; 32], user: &str, generation: u64) {
        let mut map = self.remembered.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= REMEMBERED_MAX {
            map.retain(|_, r| r.generation == generation && r.at.elapsed() < REMEMBER);
            if map.len() >= REMEMBERED_MAX {
                map.clear();
            }
        }
        map.insert(
            key,
            Remembered {
                user: user.to_string(),
                at: Instant::now(),
                generation,
            },
        );
    }
}

fn refuse(status: StatusCode, why: String) -> Response {
    let mut r = (status, format!("{why}\n")).into_response();
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Basic realm=\"redbase\", charset=\"UTF-8\""),
        );
    }
    r
}

fn auth_refusal(e: AuthError) -> Response {
    match e {
        AuthError::TooManyFailures { secs, .. } => {
            let mut r = refuse(StatusCode::TOO_MANY_REQUESTS, e.to_string());
            if let Ok(v) = header::HeaderValue::from_str(&secs.to_string()) {
                r.headers_mut().insert(header::RETRY_AFTER, v);
            }
            r
        }
        AuthError::Plaintext => refuse(StatusCode::FORBIDDEN, e.to_string()),
        other => refuse(StatusCode::UNAUTHORIZED, other.to_string()),
    }
}

/// The middleware (`axum::middleware::from_fn_with_state`).
pub async fn check(State(guard): State<Arc<Guard>>, mut req: Request, next: Next) -> Response {
    let sec = &guard.security;
    if req.method() != Method::GET && req.method() != Method::HEAD {
        if let Some(origin) = req.headers().get(header::ORIGIN) {
            let origin = String::from_utf8_lossy(origin.as_bytes()).into_owned();
            if !sec.origin_allowed(&origin) {
                return refuse(
                    StatusCode::FORBIDDEN,
                    format!("cross-site request refused: origin {origin:?} is not in --http-allowed-origins"),
                );
            }
        }
    }
    let peer = req.extensions().get::<Peer>().cloned();
    let (addr, session) = match peer {
        Some(p) => (p.addr, p.session),
        None => (SocketAddr::from(([0, 0, 0, 0], 0)), Session::default()),
    };
    let mut caller = session.caller(addr);
    if let Some(auth) = sec.auth.clone() {
        if guard.protected(req.uri().path()) && caller.user.is_none() {
            let Some(value) = req
                .headers()
                .get(header::AUTHORIZATION)
                .map(|v| v.as_bytes().to_vec())
            else {
                return refuse(
                    StatusCode::UNAUTHORIZED,
                    "authentication required: this server has an --auth-file; send HTTP Basic or Bearer credentials, or a TLS client certificate".into(),
                );
            };
            if !session.tls && !sec.allow_plaintext_auth {
                return auth_refusal(AuthError::Plaintext);
            }
            let key: [u8; 32] = Sha256::digest(&value).into();
            // Read before checking: a reload while the check runs makes the entry stale.
            let generation = auth.generation();
            let user = match guard.remembered(&key, generation) {
                Some(u) => {
                    if let Err(e) = auth.http_locked(addr.ip(), &value, &u) {
                        return auth_refusal(e);
                    }
                    u
                }
                None => {
                    let ip = addr.ip();
                    match tokio::task::spawn_blocking(move || auth.http(ip, &value)).await {
                        Ok(Ok(u)) => {
                            guard.remember(key, &u, generation);
                            u
                        }
                        Ok(Err(e)) => return auth_refusal(e),
                        Err(e) => {
                            return refuse(
                                StatusCode::INTERNAL_SERVER_ERROR,
                                format!("cannot check the credentials: {e}"),
                            )
                        }
                    }
                }
            };
            caller.user = Some(user);
            caller.proof = Proof::Http;
        }
    }
    req.extensions_mut().insert::<Caller>(caller);
    next.run(req).await
}
