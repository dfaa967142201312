//! An HTTP/1.1 connection to the operations listener (`redbase backup`): TLS when asked
//! (`https`), and the `Authorization` header: HTTP Basic for `--user`, or a Bearer token from
//! `REDBASE_TOKEN`.

use base64::Engine as _;
use http_body_util::Empty;
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;

use super::thrift::HANDSHAKE_TIMEOUT;
use super::ClientSecurity;

/// The environment variable a Bearer token may come from (instead of --user).
pub const TOKEN_ENV: &str = "REDBASE_TOKEN";

/// A connection to `addr` ready for requests, and the task that drives it (abort it when done).
pub async fn connect(
    addr: &str,
    security: &ClientSecurity,
) -> Result<(SendRequest<Empty<Bytes>>, tokio::task::JoinHandle<()>), String> {
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    let _ = tcp.set_nodelay(true);
    match &security.tls {
        None => handshake(TokioIo::new(tcp)).await,
        Some(tls) => {
            let name = tls.server_name(addr)?;
            let connector = tokio_rustls::TlsConnector::from(tls.config.clone());
            let stream = tokio::time::timeout(HANDSHAKE_TIMEOUT, connector.connect(name, tcp))
                .await
                .map_err(|_| {
                    format!("the server did not finish the TLS handshake within {HANDSHAKE_TIMEOUT:?}: is it a TLS server?")
                })?
                .map_err(|e| tls.explain(&e, addr))?;
            handshake(TokioIo::new(stream)).await
        }
    }
}

async fn handshake<T>(
    io: TokioIo<T>,
) -> Result<(SendRequest<Empty<Bytes>>, tokio::task::JoinHandle<()>), String>
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, conn) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| e.to_string())?;
    let driver = tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok((sender, driver))
}

/// The `Authorization` value to send: Bearer from `REDBASE_TOKEN` when set, else Basic for the
/// credentials, else none.
pub fn authorization(security: &ClientSecurity) -> Option<String> {
    if let Ok(token) = std::env::var(TOKEN_ENV) {
        if !token.is_empty() {
            return Some(format!("Bearer {token}"));
        }
    }
    let c = security.credentials.as_ref()?;
    let mut pair = c.user.as_bytes().to_vec();
    pair.push(b':');
    pair.extend_from_slice(c.password());
    Some(format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    ))
}
