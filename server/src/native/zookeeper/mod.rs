//! A small read-only ZooKeeper server that tells a default-configured HBase client
//! (`hbase.zookeeper.quorum`) where the cluster is: the znodes HBase 2.6's ZKConnectionRegistry
//! reads at start, pointing at the native RPC listener. No real ZooKeeper is needed or used;
//! nothing is stored; the tree is made once at start and never changes, so watches are
//! accepted and never fire, and every change is answered NOTREADONLY.
//!
//! Map: [`jute`] (ZooKeeper's record encoding), [`protocol`] (handshake, headers, Stat, codes),
//! [`znodes`] (the tree, in HBase's serialization), [`parent`] (`zookeeper.znode.parent`, where
//! the tree's HBase nodes go), [`ops`] (a request to its reply),
//! [`session`] (one connection), [`sessions`] (session ids, passwords, timeouts); this module
//! holds what connections share and the accept loop with the connection cap.

pub mod jute;
pub mod ops;
pub mod parent;
pub mod protocol;
pub mod session;
pub mod sessions;
pub mod znodes;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc};

use crate::metrics::Metrics;
use crate::thrift::slots::Slots;
use crate::thrift::{Budget, Observer};

use super::meta::ServerAddress;
pub use parent::ZnodeParent;

/// Limits a ZooKeeper client cannot raise.
#[derive(Debug, Clone)]
pub struct ZooKeeperLimits {
    pub max_connections: usize,
    /// The largest request packet (ZooKeeper's client splits its watch lists at 128 KiB).
    pub max_packet: usize,
    /// How long a new connection may take to send its handshake.
    pub handshake_timeout: Duration,
    /// The session timeouts granted: a client's wish is clamped into this range (ZooKeeper's
    /// defaults with its 2 s tick: 4 s to 40 s). A session silent that long is closed; clients
    /// ping at a third of it.
    pub min_session_timeout: Duration,
    pub max_session_timeout: Duration,
    /// Shared with the other listeners: bytes of requests in flight.
    pub budget: Budget,
}

impl Default for ZooKeeperLimits {
    fn default() -> Self {
        ZooKeeperLimits {
            max_connections: 1024,
            max_packet: 256 * 1024,
            handshake_timeout: Duration::from_secs(60),
            min_session_timeout: Duration::from_secs(4),
            max_session_timeout: Duration::from_secs(40),
            budget: Budget::default(),
        }
    }
}

/// Reports requests and refusals into the server's metrics (none in tests that run the
/// responder alone).
#[derive(Clone, Default)]
pub struct ZooKeeperMetrics {
    metrics: Option<Arc<Metrics>>,
}

impl ZooKeeperMetrics {
    pub fn new(metrics: Arc<Metrics>) -> ZooKeeperMetrics {
        ZooKeeperMetrics {
            metrics: Some(metrics),
        }
    }

    pub fn call(&self, op: &'static str, outcome: &'static str, took: Duration) {
        if let Some(m) = &self.metrics {
            m.zookeeper_call(op, outcome, took);
        }
    }

    pub fn refused(&self, reason: &'static str) {
        if let Some(m) = &self.metrics {
            m.zookeeper_refused(reason);
        }
    }

    fn observer(&self) -> Option<Arc<dyn Observer>> {
        self.metrics
            .as_ref()
            .map(|m| m.gateway("zookeeper") as Arc<dyn Observer>)
    }
}

/// What every ZooKeeper connection shares.
pub struct ZooKeeper {
    pub tree: znodes::Tree,
    /// The zxid every reply carries (the tree's, which never changes).
    pub zxid: i64,
    pub sessions: sessions::Sessions,
    pub limits: ZooKeeperLimits,
    pub metrics: ZooKeeperMetrics,
}

impl ZooKeeper {
    /// A responder describing the cluster whose native RPC listener is `server`, with
    /// `info_port` as HBase's web UI port (the HTTP listener; 0 for none), its HBase nodes
    /// under `parent`.
    pub fn new(
        parent: &ZnodeParent,
        cluster_id: &str,
        server: &ServerAddress,
        info_port: u16,
        limits: ZooKeeperLimits,
        metrics: ZooKeeperMetrics,
    ) -> ZooKeeper {
        let zxid = crate::engine::cell::now_ms().max(1);
        let sessions = sessions::Sessions::new(zxid);
        let tree = znodes::Tree::hbase(&znodes::ClusterFacts {
            parent,
            cluster_id,
            server,
            info_port,
            zxid,
            owner: sessions.owner(),
        });
        ZooKeeper {
            tree,
            zxid,
            sessions,
            limits,
            metrics,
        }
    }
}

/// Accepts ZooKeeper connections until `shutdown` completes, then waits for them to end.
pub async fn run(listener: TcpListener, ctx: Arc<ZooKeeper>, shutdown: impl Future) {
    let (notify, _) = broadcast::channel::<()>(1);
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let slots = Arc::new(Slots::default());
    let observer = ctx.metrics.observer();
    let accept = async {
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(s) => s,
                Err(e) => {
                    tracing::debug!(error = %e, "zookeeper accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            // At the cap, the session idle longest makes room (its client reconnects); when
            // every connection is in a request, the newcomer is closed.
            if !slots.make_room(ctx.limits.max_connections, observer.as_deref()) {
                drop(stream);
                continue;
            }
            let slot = slots.add(peer);
            let (slots, ctx, observer, done) = (
                slots.clone(),
                ctx.clone(),
                observer.clone(),
                done_tx.clone(),
            );
            let shutdown_rx = notify.subscribe();
            tokio::spawn(async move {
                if let Some(o) = &observer {
                    o.connection_opened();
                }
                let end = session::serve(stream, peer, ctx, slot.clone(), shutdown_rx).await;
                slots.remove(&slot);
                if let Some(o) = &observer {
                    o.connection_closed();
                }
                match &end {
                    session::End::Refused(why) => {
                        tracing::info!(%peer, reason = %why, "zookeeper connection refused")
                    }
                    other => tracing::debug!(%peer, end = ?other, "zookeeper connection closed"),
                }
                drop(done);
            });
        }
    };
    tokio::select! {
        _ = accept => {}
        _ = shutdown => tracing::info!(service = "zookeeper", "shutting down: no new connections"),
    }
    drop(notify);
    drop(done_tx);
    let _ = done_rx.recv().await;
}
