//! A real server (both Thrift gateways) in-process on loopback ports, for black-box tests.

use std::net::SocketAddr;
use std::path::Path;

use redbase::engine::{Engine, EngineConfig};
use redbase::server::{self, Config, Listeners};

pub struct TestServer {
    pub thrift1: SocketAddr,
    pub thrift2: SocketAddr,
    /// The operations listener, when started with [`TestServer::start_with_http`].
    pub http: Option<SocketAddr>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The data directory when the server made its own (None: the caller's, see `start_in`).
    _dir: Option<tempfile::TempDir>,
}

impl TestServer {
    pub fn start(config: Config) -> TestServer {
        TestServer::start_inner(config, false)
    }

    pub fn start_with_http(config: Config) -> TestServer {
        TestServer::start_inner(config, true)
    }

    /// A server over the engine in `dir`, which outlives it: for tests that restart on the
    /// same data (the engine is closed when the server is dropped).
    pub fn start_in(dir: &Path, config: Config) -> TestServer {
        let engine = Engine::open(dir, EngineConfig::default()).unwrap();
        TestServer::serve(engine, config, false, None)
    }

    /// A server over an engine the test opened (with its own settings); the engine is closed
    /// when the server is dropped.
    pub fn start_engine(engine: Engine, config: Config) -> TestServer {
        TestServer::serve(engine, config, false, None)
    }

    fn start_inner(config: Config, with_http: bool) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        TestServer::serve(engine, config, with_http, Some(dir))
    }

    fn serve(
        engine: Engine,
        config: Config,
        with_http: bool,
        dir: Option<tempfile::TempDir>,
    ) -> TestServer {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async move {
                let l1 = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let l2 = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let http = if with_http {
                    Some(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap())
                } else {
                    None
                };
                addr_tx
                    .send((
                        l1.local_addr().unwrap(),
                        l2.local_addr().unwrap(),
                        http.as_ref().map(|l| l.local_addr().unwrap()),
                    ))
                    .unwrap();
                server::run(
                    engine.clone(),
                    Listeners {
                        thrift1: Some(l1),
                        thrift2: Some(l2),
                        http,
                    },
                    config,
                    async move {
                        let _ = stop_rx.await;
                    },
                )
                .await;
                engine.close();
            });
        });
        let (thrift1, thrift2, http) = addr_rx.recv().unwrap();
        TestServer {
            thrift1,
            thrift2,
            http,
            stop: Some(stop),
            thread: Some(thread),
            _dir: dir,
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}
