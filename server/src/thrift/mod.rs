//! The Thrift server shared by both gateways: listener, connection limits, shutdown, and the
//! glue between whole messages and a generated Thrift processor.

pub mod connection;
pub mod frame;
pub mod outcome;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
};
use thrift::server::TProcessor;
use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc, Semaphore};

use connection::{Connection, End};
use frame::Protocol;

/// Something that answers one whole Thrift message with one whole reply (empty = no reply).
/// It runs on a blocking thread: engine calls may wait for a disk sync.
pub trait Service: Send + Sync + 'static {
    fn process(&self, message: &[u8], protocol: Protocol) -> Vec<u8>;

    /// As `process`, knowing the peer (for services that log who called).
    fn process_from(&self, message: &[u8], protocol: Protocol, _peer: SocketAddr) -> Vec<u8> {
        self.process(message, protocol)
    }
}

/// What the accept loop and its connections report as they go (the server's metrics). The
/// default methods report nothing, so `()` serves where nobody is listening.
pub trait Observer: Send + Sync + 'static {
    /// A connection was accepted and is being served.
    fn connection_opened(&self) {}
    /// A connection opened earlier has ended, however it ended.
    fn connection_closed(&self) {}
    /// One call was answered: its request, its reply (empty when none was written) and how
    /// long it took from the whole request being read to the reply being ready.
    fn call(&self, _request: &[u8], _reply: &[u8], _protocol: Protocol, _elapsed: Duration) {}
}

impl Observer for () {}

/// Limits a client cannot raise.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest message (or frame, or HTTP body) accepted.
    pub max_message: usize,
    /// Connections served at once; more wait in the accept queue.
    pub max_connections: usize,
    /// A connection with no message for this long is closed.
    pub idle_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message: 16 * 1024 * 1024,
            max_connections: 1024,
            idle_timeout: Duration::from_secs(60),
        }
    }
}

/// Runs `processor` for one message: the reply is written in the protocol the request used.
pub fn process_message(processor: &dyn TProcessor, message: &[u8], protocol: Protocol) -> Vec<u8> {
    let mut out = Vec::new();
    let result = match protocol {
        Protocol::Binary { strict } => {
            let mut i = TBinaryInputProtocol::new(message, strict);
            let mut o = TBinaryOutputProtocol::new(&mut out, true);
            processor.process(&mut i, &mut o)
        }
        Protocol::Compact => {
            let mut i = TCompactInputProtocol::new(message);
            let mut o = TCompactOutputProtocol::new(&mut out);
            processor.process(&mut i, &mut o)
        }
    };
    if let Err(e) = result {
        tracing::warn!(error = %e, "request failed");
    }
    out
}

/// Accepts connections on `listener` and serves them with `service` until `shutdown`
/// completes; then stops accepting, lets every in-flight call finish, and returns.
pub async fn run(
    listener: TcpListener,
    service: Arc<dyn Service>,
    name: &'static str,
    limits: Limits,
    observer: Arc<dyn Observer>,
    shutdown: impl Future,
) {
    let (notify_shutdown, _) = broadcast::channel::<()>(1);
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let accept = async {
        loop {
            let permit = match permits.clone().acquire_owned().await {
                Ok(p) => p,
                Err(_) => return,
            };
            let (stream, peer) = match listener.accept().await {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(service = name, error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let service = service.clone();
            let mut shutdown_rx = notify_shutdown.subscribe();
            let done = done_tx.clone();
            let limits = limits.clone();
            let observer = observer.clone();
            tokio::spawn(async move {
                tracing::info!(service = name, %peer, "connection opened");
                observer.connection_opened();
                let mut conn = Connection::new(stream, limits.max_message);
                let end = conn
                    .serve(service, &*observer, limits.idle_timeout, &mut shutdown_rx)
                    .await;
                observer.connection_closed();
                match &end {
                    End::Malformed(why) => {
                        tracing::warn!(service = name, %peer, reason = %why, "connection dropped: malformed request");
                        conn.reject_http(why).await;
                    }
                    End::Io(e) => {
                        tracing::info!(service = name, %peer, error = %e, "connection error")
                    }
                    other => {
                        tracing::debug!(service = name, %peer, end = ?other, "connection closed")
                    }
                }
                drop(permit);
                drop(done);
            });
        }
    };
    tokio::select! {
        _ = accept => {}
        _ = shutdown => {
            tracing::info!(service = name, "shutting down: no new connections");
        }
    }
    drop(notify_shutdown);
    drop(done_tx);
    let _ = done_rx.recv().await;
}
