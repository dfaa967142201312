//! The security rules a connection applies before a call runs: TLS when required, the HTTP
//! request's origin and content type, and an identity when the auth file is set (from the
//! connection's certificate or SASL, or the request's HTTP credentials). Also SASL PLAIN's
//! negotiation in Thrift's SASL framing, after which the connection speaks framed transport.
//!
//! A refused call is answered in the client's own framing (a `TApplicationException`, an HTTP
//! status, or a SASL BAD/ERROR message) naming what is needed, then the connection closes.

use subtle::ConstantTimeEq;
use thrift::ApplicationErrorKind;
use tokio::io::AsyncWriteExt;

use super::connection::{Connection, End, Request};
use super::frame::{Transport, SASL_START};
use crate::gateway::caller::{Caller, Proof};
use crate::security::AuthError;

/// Thrift's SASL negotiation statuses (libthrift's `NegotiationStatus`).
const SASL_OK: u8 = 2;
const SASL_BAD: u8 = 3;
const SASL_ERROR: u8 = 4;
const SASL_COMPLETE: u8 = 5;

/// The media types Thrift clients send on HTTP: `application/x-thrift` (libthrift's
/// THttpClient, Python's THttpClient, HBase's own clients) and the registered
/// `application/vnd.apache.thrift.*` names for the protocols this server speaks.
const THRIFT_CONTENT_TYPES: [&str; 3] = [
    "application/x-thrift",
    "application/vnd.apache.thrift.binary",
    "application/vnd.apache.thrift.compact",
];

pub(super) const REQUIRE_TLS: &str =
    "this server requires TLS (--require-tls): plaintext connections are refused; connect with TLS";
const AUTH_REQUIRED: &str = "authentication required: this server has an --auth-file; prove who you are with SASL PLAIN, a TLS client certificate, or HTTP Basic or Bearer credentials";

/// A call refused, and how to say so on HTTP.
pub(super) struct Refusal {
    status: u16,
    why: String,
    retry_after: Option<u64>,
}

impl Refusal {
    fn new(status: u16, why: impl Into<String>) -> Refusal {
        Refusal {
            status,
            why: why.into(),
            retry_after: None,
        }
    }

    fn auth(e: AuthError) -> Refusal {
        match e {
            AuthError::TooManyFailures { secs, .. } => Refusal {
                status: 429,
                why: e.to_string(),
                retry_after: Some(secs),
            },
            AuthError::Plaintext => Refusal::new(403, e.to_string()),
            other => Refusal::new(401, other.to_string()),
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        _ => "Internal Server Error",
    }
}

fn is_thrift_content_type(value: &str) -> bool {
    let media = value.split(';').next().unwrap_or("").trim();
    THRIFT_CONTENT_TYPES
        .iter()
        .any(|t| media.eq_ignore_ascii_case(t))
}

impl Connection {
    /// Whether `req` may run, and as whom.
    pub(super) async fn admit(&mut self, req: &Request) -> Result<Caller, Refusal> {
        let sec = self.security.clone();
        if sec.require_tls && !self.session.tls {
            return Err(Refusal::new(400, REQUIRE_TLS));
        }
        if let Some(h) = &req.http {
            if let Some(origin) = &h.origin {
                if !sec.origin_allowed(origin) {
                    return Err(Refusal::new(403, format!(
                        "cross-site request refused: origin {origin:?} is not in --http-allowed-origins"
                    )));
                }
            }
            match &h.content_type {
                Some(ct) if is_thrift_content_type(ct) => {}
                other => {
                    return Err(Refusal::new(415, format!(
                        "Thrift over HTTP needs Content-Type application/x-thrift (or application/vnd.apache.thrift.binary or .compact), got {}",
                        other.as_deref().map_or("none".to_string(), |c| format!("{c:?}"))
                    )))
                }
            }
        }
        let mut caller = self.session.caller(self.peer);
        let Some(auth) = sec.auth.clone() else {
            return Ok(caller);
        };
        if caller.user.is_some() {
            return Ok(caller);
        }
        let credentials = req.http.as_ref().and_then(|h| h.authorization.clone());
        let Some(value) = credentials else {
            return Err(Refusal::new(401, AUTH_REQUIRED));
        };
        if !self.session.tls && !sec.allow_plaintext_auth {
            return Err(Refusal::auth(AuthError::Plaintext));
        }
        // Remembered only under the auth file's load it was checked with (a reload may have
        // removed the user or changed the password).
        let generation = auth.generation();
        if let Some((known, user, checked_under)) = &self.http_identity {
            if *checked_under == generation && bool::from(known.as_slice().ct_eq(&value)) {
                auth.http_locked(self.peer.ip(), &value, user)
                    .map_err(Refusal::auth)?;
                caller.user = Some(user.clone());
                caller.proof = Proof::Http;
                return Ok(caller);
            }
        }
        let ip = self.peer.ip();
        let checked = value.clone();
        match tokio::task::spawn_blocking(move || auth.http(ip, &checked)).await {
            Ok(Ok(user)) => {
                self.http_identity = Some((value, user.clone(), generation));
                caller.user = Some(user);
                caller.proof = Proof::Http;
                Ok(caller)
            }
            Ok(Err(e)) => Err(Refusal::auth(e)),
            Err(e) => Err(Refusal::new(
                500,
                format!("cannot check the credentials: {e}"),
            )),
        }
    }

    /// Answers `req` with `refusal` in its framing and ends the connection.
    pub(super) async fn refuse(&mut self, req: &Request, refusal: Refusal) -> End {
        tracing::debug!(peer = %self.peer, reason = %refusal.why, "call refused");
        if self.transport == Some(Transport::Http) {
            let _ = self.write_http_refusal(&refusal).await;
        } else {
            let reply = super::error_reply(
                &req.body,
                req.protocol,
                ApplicationErrorKind::Unknown,
                refusal.why.clone(),
            );
            let _ = self.write_reply(&reply, false).await;
        }
        End::Refused(refusal.why)
    }

    async fn write_http_refusal(&mut self, r: &Refusal) -> std::io::Result<()> {
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n",
            r.status,
            reason(r.status),
            r.why.len() + 1
        );
        if r.status == 401 {
            head.push_str("WWW-Authenticate: Basic realm=\"redbase\", charset=\"UTF-8\"\r\n");
        }
        if let Some(secs) = r.retry_after {
            head.push_str(&format!("Retry-After: {secs}\r\n"));
        }
        head.push_str("\r\n");
        head.push_str(&r.why);
        head.push('\n');
        self.stream.write_all(head.as_bytes()).await?;
        self.stream.flush().await
    }

    /// One SASL negotiation message. Ok when the connection goes on (the mechanism was taken,
    /// or the client proved who it is and framed calls follow).
    pub(super) async fn negotiate(&mut self, status: u8, payload: &[u8]) -> Result<(), End> {
        let sec = self.security.clone();
        if !self.sasl_started {
            if status != SASL_START {
                return Err(self
                    .sasl_fail(
                        SASL_ERROR,
                        format!("expected a SASL START message, got status {status}"),
                    )
                    .await);
            }
            if sec.require_tls && !self.session.tls {
                return Err(self.sasl_fail(SASL_ERROR, REQUIRE_TLS.into()).await);
            }
            if sec.auth.is_none() {
                return Err(self
                    .sasl_fail(SASL_ERROR, AuthError::NotConfigured.to_string())
                    .await);
            }
            if !self.session.tls && !sec.allow_plaintext_auth {
                return Err(self
                    .sasl_fail(SASL_BAD, AuthError::Plaintext.to_string())
                    .await);
            }
            let mechanism = String::from_utf8_lossy(payload);
            if !mechanism.eq_ignore_ascii_case("PLAIN") {
                return Err(self
                    .sasl_fail(
                        SASL_BAD,
                        format!(
                            "unsupported SASL mechanism {mechanism:?}: this server offers PLAIN"
                        ),
                    )
                    .await);
            }
            self.sasl_started = true;
            return Ok(());
        }
        if status != SASL_OK && status != SASL_COMPLETE {
            return Err(self
                .sasl_fail(
                    SASL_ERROR,
                    format!("expected the SASL PLAIN response, got status {status}"),
                )
                .await);
        }
        let Some(auth) = sec.auth.clone() else {
            return Err(self
                .sasl_fail(SASL_ERROR, AuthError::NotConfigured.to_string())
                .await);
        };
        let ip = self.peer.ip();
        let response = payload.to_vec();
        match tokio::task::spawn_blocking(move || auth.sasl_plain(ip, &response)).await {
            Ok(Ok(user)) => {
                self.session.user = Some(user);
                self.session.proof = Some(Proof::Sasl);
                self.transport = Some(Transport::Framed);
                self.write_sasl(SASL_COMPLETE, b"").await.map_err(End::Io)
            }
            Ok(Err(e)) => Err(self.sasl_fail(SASL_BAD, e.to_string()).await),
            Err(e) => Err(self
                .sasl_fail(SASL_ERROR, format!("cannot check the credentials: {e}"))
                .await),
        }
    }

    async fn sasl_fail(&mut self, status: u8, why: String) -> End {
        tracing::debug!(peer = %self.peer, reason = %why, "SASL negotiation refused");
        let _ = self.write_sasl(status, why.as_bytes()).await;
        End::Refused(why)
    }

    async fn write_sasl(&mut self, status: u8, payload: &[u8]) -> std::io::Result<()> {
        let mut out = Vec::with_capacity(5 + payload.len());
        out.push(status);
        out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        out.extend_from_slice(payload);
        self.stream.write_all(&out).await?;
        self.stream.flush().await
    }
}
