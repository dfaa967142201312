//! A connection's first moments: TLS or plaintext, decided per connection by its first byte
//! (a TLS ClientHello starts with 0x16, which no Thrift transport does), so one port serves
//! both. The TLS handshake has a deadline, and a verified client certificate names the user.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::gateway::caller::{Caller, Proof};
use crate::security::tls::{self, HANDSHAKE_TIMEOUT, TLS_HANDSHAKE_BYTE};
use crate::security::Security;

/// A connection's byte stream, plain or TLS.
pub trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// What a connection has proved so far.
#[derive(Debug, Clone, Default)]
pub struct Session {
    pub tls: bool,
    /// The identity a client certificate or SASL proved, for every call of the connection.
    pub user: Option<String>,
    pub proof: Option<Proof>,
}

impl Session {
    /// The caller of one call on this connection (`user` and `proof` of its own for HTTP,
    /// whose credentials come with each request).
    pub fn caller(&self, peer: SocketAddr) -> Caller {
        let mut c = Caller::anonymous(peer);
        c.tls = self.tls;
        if let (Some(user), Some(proof)) = (&self.user, self.proof) {
            c.user = Some(user.clone());
            c.proof = proof;
        }
        c
    }
}

/// Why a connection was closed before it carried a message.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    #[error("the peer closed the connection before sending anything")]
    Closed,
    #[error("a TLS handshake, but this server has no certificate (--tls-cert, --tls-key)")]
    TlsNotConfigured,
    #[error("the TLS handshake did not finish within {0:?}")]
    Timeout(Duration),
    #[error("the TLS handshake failed: {0}")]
    Tls(std::io::Error),
    #[error("{0}")]
    Io(std::io::Error),
}

/// Waits for the first byte (no deadline here: a pooled client may connect long before its
/// first call; the caller bounds this by the idle timeout), then completes TLS when it is a
/// ClientHello.
pub async fn open(
    stream: TcpStream,
    security: &Security,
) -> Result<(Box<dyn Io>, Session), HandshakeError> {
    let mut first = [0u8; 1];
    let n = stream.peek(&mut first).await.map_err(HandshakeError::Io)?;
    if n == 0 {
        return Err(HandshakeError::Closed);
    }
    if first[0] != TLS_HANDSHAKE_BYTE {
        return Ok((Box::new(stream), Session::default()));
    }
    let Some(tls) = &security.tls else {
        return Err(HandshakeError::TlsNotConfigured);
    };
    let accepted = tokio::time::timeout(HANDSHAKE_TIMEOUT, tls.acceptor().accept(stream))
        .await
        .map_err(|_| HandshakeError::Timeout(HANDSHAKE_TIMEOUT))?
        .map_err(HandshakeError::Tls)?;
    let user = if tls.verifies_clients() {
        tls::client_identity(accepted.get_ref().1)
    } else {
        None
    };
    let session = Session {
        tls: true,
        proof: user.as_ref().map(|_| Proof::ClientCertificate),
        user,
    };
    Ok((Box::new(accepted), session))
}
