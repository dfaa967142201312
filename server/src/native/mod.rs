//! HBase's native RPC (the protocol of `org.apache.hbase:hbase-client`'s Connection, Table
//! and Admin) on its own listener, over the same engine as the Thrift gateways. One port
//! serves every service; the connection header names the service its calls go to. This one
//! process is the cluster's master, the server of hbase:meta and of every region, at the
//! advertised host and the listener's port.
//!
//! Map: [`frame`] (preamble, connection header, call and response bytes), [`connection`]
//! (one connection: concurrent calls, limits, budget), [`dispatch`] (service and method to a
//! handler), [`registry`] (bootstrap without ZooKeeper), [`meta`] (hbase:meta made from the
//! catalog), [`regions`] (region names and ids), [`client`] and [`scan`] (ClientService),
//! [`scanners`] (open scanners and leases), [`master`], [`cluster`] and [`acl`] (MasterService),
//! [`region_admin`] (AdminService), [`schema`]
//! (descriptors), [`convert`] (results, reads, mutations), [`cellblock`] (KeyValueCodec),
//! [`errors`] (HBase's exception classes), [`pb`] (the generated protobufs), [`zookeeper`] (the
//! read-only ZooKeeper a default-configured client bootstraps through).

pub mod acl;
pub mod cellblock;
pub mod check;
pub mod client;
pub mod cluster;
pub mod connection;
pub mod convert;
pub mod dispatch;
pub mod errors;
pub mod frame;
pub mod master;
pub mod meta;
pub mod pb;
pub mod region_admin;
pub mod regions;
pub mod registry;
pub mod scan;
pub mod scanners;
pub mod schema;
pub mod zookeeper;

use std::future::Future;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc};

use crate::engine::Engine;
use crate::gateway::Access;
use crate::metrics::Metrics;
use crate::scanners::ScannerLimits;
use crate::security::Security;
use crate::thrift::slots::Slots;
use crate::thrift::{Budget, InlineCalls, Observer};

pub use meta::ServerAddress;
pub use scan::ScanTimeLimit;

/// Limits a native client cannot raise.
#[derive(Debug, Clone)]
pub struct NativeLimits {
    /// The largest call frame; a larger one is answered RequestTooBigException and closed.
    pub max_frame: usize,
    /// Bytes of cells one answer gathers before a scan stops its batch or a batch's further
    /// gets answer MultiActionResultTooLarge.
    pub max_response: usize,
    pub max_connections: usize,
    /// A connection silent this long with no call in flight is closed, and so is one that
    /// leaves an answer unread this long.
    pub idle_timeout: Duration,
    /// Calls of one connection in flight at once.
    pub calls_per_connection: usize,
    /// Shared with the Thrift gateways: bytes of requests and answers in flight.
    pub budget: Budget,
    /// Short reads answered on the connection's task, under the cap the Thrift gateways
    /// share (`--max-inline-calls`).
    pub inline: InlineCalls,
    /// How long a scan call may run before it answers a heartbeat.
    pub scan_time: ScanTimeLimit,
}

impl Default for NativeLimits {
    fn default() -> Self {
        NativeLimits {
            max_frame: 16 * 1024 * 1024,
            max_response: 16 * 1024 * 1024,
            max_connections: 1024,
            idle_timeout: Duration::from_secs(60),
            calls_per_connection: 64,
            budget: Budget::default(),
            inline: InlineCalls::default(),
            scan_time: ScanTimeLimit::default(),
        }
    }
}

/// Reports the listener's calls and refusals into the server's metrics (none in tests that
/// run the listener alone).
#[derive(Clone, Default)]
pub struct NativeMetrics {
    metrics: Option<Arc<Metrics>>,
}

impl NativeMetrics {
    pub fn new(metrics: Arc<Metrics>) -> NativeMetrics {
        NativeMetrics {
            metrics: Some(metrics),
        }
    }

    pub fn call(
        &self,
        service: dispatch::Service,
        method: &str,
        outcome: &'static str,
        took: Duration,
    ) {
        if let Some(m) = &self.metrics {
            m.native_call(service.name(), service.metric_method(method), outcome, took);
        }
    }

    pub fn refused(&self, reason: &'static str) {
        if let Some(m) = &self.metrics {
            m.native_refused(reason);
        }
    }

    pub fn heartbeat(&self) {
        if let Some(m) = &self.metrics {
            m.native_heartbeat();
        }
    }

    fn observer(&self) -> Option<Arc<dyn Observer>> {
        self.metrics
            .as_ref()
            .map(|m| m.gateway("native") as Arc<dyn Observer>)
    }
}

/// What every native call shares.
pub struct Native {
    pub engine: Engine,
    pub server: ServerAddress,
    pub scanners: scanners::ScannerTable,
    pub access: Access,
    pub limits: NativeLimits,
    pub metrics: NativeMetrics,
    /// TLS (the native TLS of HBase 2.6's client) and the auth file: with an auth file, the
    /// caller is the user a verified client certificate names, and other connections are
    /// refused.
    pub security: Security,
    /// The last procedure id handed out.
    procedures: AtomicU64,
    /// The balancer, normalizer, catalog janitor, split, merge and compaction switches.
    pub switches: cluster::Switches,
    /// HBase's info (web UI) port in cluster status: the HTTP listener's, 0 when none.
    pub info_port: u16,
}

impl Native {
    pub fn new(
        engine: Engine,
        server: ServerAddress,
        scanner_limits: ScannerLimits,
        access: Access,
        limits: NativeLimits,
        metrics: NativeMetrics,
    ) -> Native {
        Native {
            engine,
            server,
            scanners: scanners::ScannerTable::new(scanner_limits),
            access,
            limits,
            metrics,
            security: Security::default(),
            procedures: AtomicU64::new(0),
            switches: cluster::Switches::default(),
            info_port: 0,
        }
    }

    /// Reports `port` as the server's info port (the HTTP listener).
    pub fn with_info_port(mut self, port: u16) -> Native {
        self.info_port = port;
        self
    }

    /// Serves TLS and takes callers from client certificates as `security` says.
    pub fn with_security(mut self, security: Security) -> Native {
        self.security = security;
        self
    }
}

/// Accepts native connections until `shutdown` completes, then lets the calls in flight
/// finish and returns.
pub async fn run(listener: TcpListener, ctx: Arc<Native>, shutdown: impl Future) {
    let (notify, _) = broadcast::channel::<()>(1);
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let slots = Arc::new(Slots::default());
    let observer = ctx.metrics.observer();
    let accept = async {
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(s) => s,
                Err(e) => {
                    tracing::debug!(error = %e, "native accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            if !slots.make_room(ctx.limits.max_connections, observer.as_deref()) {
                tracing::debug!(%peer, "native connection refused: at the connection limit with every connection in a call");
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
                let end = connection::serve(stream, peer, ctx, slot.clone(), shutdown_rx).await;
                slots.remove(&slot);
                if let Some(o) = &observer {
                    o.connection_closed();
                }
                match &end {
                    connection::End::Refused(why) | connection::End::Malformed(why) => {
                        tracing::info!(%peer, reason = %why, "native connection refused")
                    }
                    other => tracing::debug!(%peer, end = ?other, "native connection closed"),
                }
                drop(done);
            });
        }
    };
    tokio::select! {
        _ = accept => {}
        _ = shutdown => tracing::info!(service = "native", "shutting down: no new connections"),
    }
    drop(notify);
    drop(done_tx);
    let _ = done_rx.recv().await;
}
