//! Where clients are told regions live: HBase reports the region server's host and port in
//! region info (Thrift1) and region locations (Thrift2); redbase reports the gateway's own.

/// The host and port a gateway reports as the server of every region.
#[derive(Debug, Clone)]
pub struct Advertised {
    pub host: String,
    pub port: i32,
}

impl Advertised {
    /// `host` and the port `listener` is bound to.
    pub fn of(host: String, listener: &tokio::net::TcpListener) -> Advertised {
        Advertised {
            host,
            port: listener.local_addr().map(|a| a.port() as i32).unwrap_or(0),
        }
    }
}

/// The machine's host name, as the region server name clients see; "localhost" if unknown.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".into())
}
