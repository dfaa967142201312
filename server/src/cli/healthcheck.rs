//! `redbase healthcheck`: asks a running server's `/healthz` and says whether it answered 200.
//! The container image is `FROM scratch` (no shell, no curl), so its HEALTHCHECK runs the
//! binary itself.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use http_body_util::Empty;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

/// Why a health check failed.
#[derive(Debug, thiserror::Error)]
pub enum HealthError {
    #[error("{0:?} is not an address (host:port with an IP host)")]
    BadAddress(String),
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("HTTP exchange with {addr} failed: {message}")]
    Http { addr: SocketAddr, message: String },
    #[error("{addr} answered /healthz with {status}")]
    Unhealthy {
        addr: SocketAddr,
        status: hyper::StatusCode,
    },
    #[error("no answer from {addr} within {timeout:?}")]
    Timeout { addr: SocketAddr, timeout: Duration },
}

/// The address to probe for a server listening on `listen`: a wildcard listen address
/// (0.0.0.0, ::) is probed on loopback.
pub fn probe_address(listen: &str) -> Result<SocketAddr, HealthError> {
    let mut addr: SocketAddr = listen
        .parse()
        .map_err(|_| HealthError::BadAddress(listen.to_string()))?;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr.ip() {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
        });
    }
    Ok(addr)
}

/// GETs `/healthz` from `addr`; Ok when it answers 200 within `timeout`.
pub async fn check(addr: SocketAddr, timeout: Duration) -> Result<(), HealthError> {
    match tokio::time::timeout(timeout, get_healthz(addr)).await {
        Ok(r) => r,
        Err(_) => Err(HealthError::Timeout { addr, timeout }),
    }
}

async fn get_healthz(addr: SocketAddr) -> Result<(), HealthError> {
    let http = |e: hyper::Error| HealthError::Http {
        addr,
        message: e.to_string(),
    };
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|source| HealthError::Connect { addr, source })?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(http)?;
    let driver = tokio::spawn(conn);
    let request = hyper::Request::get("/healthz")
        .header(hyper::header::HOST, addr.to_string())
        .body(Empty::<Bytes>::new())
        .map_err(|e| HealthError::Http {
            addr,
            message: e.to_string(),
        })?;
    let response = sender.send_request(request).await.map_err(http);
    driver.abort();
    let status = response?.status();
    if status == hyper::StatusCode::OK {
        Ok(())
    } else {
        Err(HealthError::Unhealthy { addr, status })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_addresses_are_probed_on_loopback() {
        assert_eq!(
            probe_address("0.0.0.0:8080").ok(),
            Some("127.0.0.1:8080".parse().expect("addr"))
        );
        assert_eq!(
            probe_address("[::]:8080").ok(),
            Some("[::1]:8080".parse().expect("addr"))
        );
        assert_eq!(
            probe_address("10.1.2.3:81").ok(),
            Some("10.1.2.3:81".parse().expect("addr"))
        );
        assert!(matches!(
            probe_address("localhost:8080"),
            Err(HealthError::BadAddress(_))
        ));
    }
}

#[derive(clap::Args, Debug)]
pub struct HealthcheckArgs {
    /// The server's `--http-addr`; a wildcard address (0.0.0.0) is probed on loopback.
    #[arg(long, env = "REDBASE_HTTP_ADDR", default_value = "127.0.0.1:8080", value_name = "HOST:PORT", value_parser = crate::flag_values::address)]
    http_addr: String,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 3)]
    timeout_secs: u64,
}

/// `redbase healthcheck`: exit 0 when `/healthz` answered 200, else 1 with the reason.
pub fn run(args: HealthcheckArgs) -> std::process::ExitCode {
    let result = probe_address(&args.http_addr).and_then(|addr| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| HealthError::Http {
                addr,
                message: format!("cannot start the runtime: {e}"),
            })?;
        rt.block_on(check(addr, Duration::from_secs(args.timeout_secs)))
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("unhealthy: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
