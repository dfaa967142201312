//! Binding `redbase serve`'s listeners before anything else happens (no data directory is
//! created or opened until every port is ours), and a failed bind told as what to change: the
//! listener, its address, the flag and environment variable that move it.

use std::io;

use tokio::net::TcpListener;

/// One listener of `redbase serve` and the settings that move it.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// As people call it: "Thrift2 gateway".
    pub what: &'static str,
    pub flag: &'static str,
    pub env: &'static str,
    /// Its name in `--gateways`, when it can be left out there.
    pub gateway: Option<&'static str>,
}

pub const THRIFT1: Spec = Spec {
    what: "Thrift1 gateway",
    flag: "--thrift1-addr",
    env: "REDBASE_THRIFT1_ADDR",
    gateway: Some("thrift1"),
};
pub const THRIFT2: Spec = Spec {
    what: "Thrift2 gateway",
    flag: "--thrift2-addr",
    env: "REDBASE_THRIFT2_ADDR",
    gateway: Some("thrift2"),
};
pub const NATIVE: Spec = Spec {
    what: "native RPC listener (hbase-client)",
    flag: "--hbase-rpc-addr",
    env: "REDBASE_HBASE_RPC_ADDR",
    gateway: Some("native"),
};
pub const ZOOKEEPER: Spec = Spec {
    what: "ZooKeeper responder (hbase.zookeeper.quorum clients)",
    flag: "--zookeeper-addr",
    env: "REDBASE_ZOOKEEPER_ADDR",
    gateway: Some("native"),
};
pub const HTTP: Spec = Spec {
    what: "HTTP listener (REST API, status page, probes)",
    flag: "--http-addr",
    env: "REDBASE_HTTP_ADDR",
    gateway: None,
};

/// Binds `addr` for `spec`, or says why not and what to do.
pub async fn bind(spec: &Spec, addr: &str) -> Result<TcpListener, String> {
    TcpListener::bind(addr)
        .await
        .map_err(|e| bind_error(spec, addr, &e))
}

/// The message for a failed bind: what could not listen where, why, and the flag and
/// variable to change (or the `--gateways` entry to drop).
pub fn bind_error(spec: &Spec, addr: &str, e: &io::Error) -> String {
    let Spec {
        what, flag, env, ..
    } = spec;
    let move_it = format!("give {flag} (or {env}) another address");
    let or_off = spec
        .gateway
        .map(|g| format!(", or leave {g} out of --gateways"))
        .unwrap_or_default();
    let why = match e.kind() {
        io::ErrorKind::AddrInUse => format!(
            "the address is in use (another redbase or another program listens there): \
             {move_it}{or_off}, or stop that program"
        ),
        io::ErrorKind::PermissionDenied => format!(
            "permission denied (ports below 1024 need privileges): give {flag} (or {env}) a \
             port from 1024 up{or_off}"
        ),
        io::ErrorKind::AddrNotAvailable => format!(
            "no network interface of this machine has that address: give {flag} (or {env}) \
             one it has, such as 127.0.0.1 or 0.0.0.0{or_off}"
        ),
        _ => format!("{e}: check {flag} (or {env}){or_off}"),
    };
    format!("cannot bind the {what} on {addr}: {why}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_port_names_the_flag_and_variable() {
        let e = io::Error::from(io::ErrorKind::AddrInUse);
        let m = bind_error(&THRIFT2, "127.0.0.1:9091", &e);
        assert!(
            m.starts_with("cannot bind the Thrift2 gateway on 127.0.0.1:9091"),
            "{m}"
        );
        assert!(
            m.contains("--thrift2-addr (or REDBASE_THRIFT2_ADDR)"),
            "{m}"
        );
        assert!(m.contains("leave thrift2 out of --gateways"), "{m}");
        let m = bind_error(
            &HTTP,
            "0.0.0.0:80",
            &io::Error::from(io::ErrorKind::PermissionDenied),
        );
        assert!(
            m.contains("--http-addr (or REDBASE_HTTP_ADDR)") && m.contains("1024"),
            "{m}"
        );
        assert!(!m.contains("--gateways"), "{m}");
        let m = bind_error(
            &NATIVE,
            "10.9.9.9:16020",
            &io::Error::from(io::ErrorKind::AddrNotAvailable),
        );
        assert!(
            m.contains("--hbase-rpc-addr (or REDBASE_HBASE_RPC_ADDR)"),
            "{m}"
        );
    }
}
