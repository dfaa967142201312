//! Servers on their own Tokio runtime on a loopback port: redbase in-process (the engine in a
//! directory, one gateway), and what the null servers run on; loopback address checks.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::sync::mpsc;
use std::thread::{self, JoinHandle};

use redbase::engine::{Engine, EngineConfig};
use redbase::server::{self, Config, Listeners};

use crate::cli::ServiceKind;

/// A server on its own Tokio runtime (multi-threaded, as in the `redbase` binary).
pub struct InProc {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl InProc {
    pub fn start<F, Fut>(thread_name: &'static str, serve: F) -> Result<InProc, String>
    where
        F: FnOnce(tokio::net::TcpListener, tokio::sync::oneshot::Receiver<()>) -> Fut
            + Send
            + 'static,
        Fut: std::future::Future<Output = ()>,
    {
        let (addr_tx, addr_rx) = mpsc::channel::<Result<SocketAddr, String>>();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = thread::Builder::new()
            .name(thread_name.into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .enable_all()
                    .thread_name(thread_name)
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = addr_tx.send(Err(format!("runtime: {e}")));
                        return;
                    }
                };
                rt.block_on(async move {
                    let l = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = addr_tx.send(Err(format!("bind 127.0.0.1:0: {e}")));
                            return;
                        }
                    };
                    let _ = addr_tx.send(l.local_addr().map_err(|e| e.to_string()));
                    serve(l, stop_rx).await;
                });
            })
            .map_err(|e| e.to_string())?;
        let addr = addr_rx
            .recv()
            .map_err(|_| "server thread died".to_string())??;
        Ok(InProc {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    pub fn stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for InProc {
    fn drop(&mut self) {
        self.stop();
    }
}

/// redbase serving only the gateway `service` on the listener.
pub fn start_redbase(dir: &Path, service: ServiceKind) -> Result<InProc, String> {
    let engine = Engine::open(dir, EngineConfig::default())
        .map_err(|e| format!("cannot open the engine in {}: {e}", dir.display()))?;
    InProc::start("rt-redbase", move |l, stop| async move {
        let (thrift1, thrift2) = match service {
            ServiceKind::Thrift2 => (None, Some(l)),
            _ => (Some(l), None),
        };
        server::run(
            engine.clone(),
            Listeners {
                thrift1,
                thrift2,
                http: None,
            },
            Config::default(),
            async move {
                let _ = stop.await;
            },
        )
        .await;
        engine.close();
    })
}

/// `addr` resolved, if it is a loopback address (loadgen drives local servers only).
pub fn loopback(addr: &str) -> Result<SocketAddr, String> {
    let a = addr
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {addr}: {e}"))?
        .next()
        .ok_or_else(|| format!("{addr} resolves to nothing"))?;
    if !a.ip().is_loopback() {
        return Err(format!(
            "{addr} ({a}) is not a loopback address; loadgen only drives local servers"
        ));
    }
    Ok(a)
}

/// A loopback port free at the moment of asking.
pub fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let p = l.local_addr().map_err(|e| e.to_string())?.port();
    Ok(p)
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    use super::*;
    use crate::cli::OpKind;
    use crate::spec::spec_of;

    #[test]
    fn in_process_redbase_is_loaded_and_answers_every_operation_of_both_gateways() {
        for service in [ServiceKind::Thrift1, ServiceKind::Thrift2] {
            let dir = tempfile::tempdir().unwrap();
            let spec = spec_of(service, &["--rows", "300", "--scan-rows", "10"]);
            let mut server = start_redbase(dir.path(), service).expect("redbase");
            assert!(
                spec.check_loaded(server.addr).is_err(),
                "nothing loaded yet"
            );
            spec.prepare(server.addr).expect("preload");
            spec.check_loaded(server.addr).expect("loaded");
            let mut session = spec.session(server.addr).unwrap();
            let mut rng = SmallRng::seed_from_u64(3);
            for kind in [OpKind::Get, OpKind::GetRow, OpKind::Put, OpKind::Scan] {
                spec.op(&mut session, kind, &mut rng)
                    .unwrap_or_else(|e| panic!("{service:?} {kind:?}: {e}"));
            }
            server.stop();
        }
    }

    #[test]
    fn only_loopback_addresses_are_driven() {
        assert!(loopback("127.0.0.1:9090").is_ok());
        assert!(loopback("[::1]:9090").is_ok());
        assert!(loopback("192.0.2.1:9090").is_err());
        assert!(free_port().unwrap() > 0);
    }
}
