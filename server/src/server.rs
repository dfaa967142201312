//! Wires the gateways to their listeners: `run` serves until `shutdown` completes, then waits
//! for in-flight calls and returns. The binary and the tests both call it.
//!
//! The operations listener (health, readiness, metrics, status page) stays up until the
//! gateways have drained, so `/readyz` answers 503 while calls in flight finish.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::engine::Engine;
use crate::gateway::wrong_port::{Idl, Ports, WrongPort};
use crate::gateway::{advertised, Access, Advertised};
use crate::http;
use crate::metrics::{Metrics, ScannerCount};
use crate::scanners::ScannerLimits;
use crate::security::Security;
use crate::slowlog::SlowLogConfig;
use crate::thrift::{self, Limits};
use crate::thrift1;
use crate::thrift2;

/// Server settings (the binary's flags).
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub limits: Limits,
    pub scanners: ScannerLimits,
    /// Host name reported as the region server in region info.
    pub advertised_host: Option<String>,
    /// Refuse every data mutation, as HBase's `hbase.thrift.readonly`.
    pub read_only: bool,
    pub slow_log: SlowLogConfig,
    /// TLS, authentication and the HTTP origin rules, for every listener. `security.auth`
    /// (`Auth::users`, `Users::superusers`) is what authorization reads.
    pub security: Security,
    /// Why the server is exposed (a non-loopback address with no authentication), shown on
    /// the status page; the binary fills it.
    pub exposure_warnings: Vec<String>,
    /// How the REST API streams answers of many rows.
    pub rest_stream: crate::rest::StreamLimits,
    /// The HTTP listener's connection, deadline and lifetime bounds.
    pub http_limits: http::limits::ListenerLimits,
    /// The ZooKeeper responder's `zookeeper.znode.parent` (`/hbase` unless given).
    pub znode_parent: crate::native::zookeeper::ZnodeParent,
    /// How long a native scan call runs before it answers a heartbeat.
    pub scan_time: crate::native::ScanTimeLimit,
}

/// Listeners to serve; each is optional so tests can run one gateway.
#[derive(Default)]
pub struct Listeners {
    pub thrift1: Option<TcpListener>,
    pub thrift2: Option<TcpListener>,
    /// The operations endpoints (`/healthz`, `/readyz`, `/metrics`, the status page).
    pub http: Option<TcpListener>,
}

/// HBase's native listeners: the RPC ([`crate::native`]) and the ZooKeeper responder that
/// points default-configured clients at it (served only with the RPC listener).
#[derive(Default)]
pub struct NativeListeners {
    pub rpc: Option<TcpListener>,
    pub zookeeper: Option<TcpListener>,
}

/// Serves every listener until `shutdown` completes.
pub async fn run(engine: Engine, listeners: Listeners, config: Config, shutdown: impl Future) {
    run_with_native(engine, listeners, None, config, shutdown).await
}

/// As [`run`], with HBase's native RPC ([`crate::native`]) on `native` too.
pub async fn run_with_native(
    engine: Engine,
    listeners: Listeners,
    native: Option<TcpListener>,
    config: Config,
    shutdown: impl Future,
) {
    let native = NativeListeners {
        rpc: native,
        zookeeper: None,
    };
    run_native(engine, listeners, native, config, shutdown).await
}

/// As [`run`], with HBase's native listeners too.
pub async fn run_native(
    engine: Engine,
    listeners: Listeners,
    native_listeners: NativeListeners,
    config: Config,
    shutdown: impl Future,
) {
    let NativeListeners {
        rpc: native,
        zookeeper,
    } = native_listeners;
    let (stop_tx, stop_rx) = watch::channel(false);
    let host = config
        .advertised_host
        .clone()
        .unwrap_or_else(advertised::host_name);
    // With an auth file, HBase's ACL model: its superusers may do everything, others what they
    // were granted; without one, everyone may do what read-only mode allows.
    let access = match config.security.auth.clone() {
        Some(auth) => Access::secured_by(
            config.read_only,
            Arc::new(move |u: &str| auth.users().is_superuser(u)),
            engine.acl(),
        ),
        None => Access::new(config.read_only),
    };
    let security = Arc::new(config.security.clone());
    // Certificates reload when their files change (the binary adds SIGHUP).
    let watcher = security
        .tls
        .clone()
        .map(|t| tokio::spawn(t.watch(crate::security::tls::WATCH_EVERY)));
    let mut tasks = Vec::new();
    // Built before the gateways so each can report into it; the scanner counts are filled in
    // as the gateways are made.
    let mut scanner_counts: Vec<(&'static str, ScannerCount)> = Vec::new();
    let mut gateways = Vec::new();
    // What each Thrift port tells a client that meant the other one, or a browser.
    let reachable = |l: &Option<TcpListener>| {
        l.as_ref()
            .and_then(|l| l.local_addr().ok())
            .map(|a| Ports::reachable(a, &host))
    };
    let ports = Ports {
        thrift1: reachable(&listeners.thrift1),
        thrift2: reachable(&listeners.thrift2),
        http: reachable(&listeners.http),
    };
    let native_addr = reachable(&native);
    if let Some(l) = listeners.thrift1 {
        let handler = thrift1::Handler::new(
            engine.clone(),
            config.scanners.clone(),
            Advertised::of(host.clone(), &l),
            access.clone(),
        );
        let service = Arc::new(
            thrift1::Thrift1::new(handler)
                .with_wrong_port(WrongPort::new(Idl::Thrift1, ports.clone())),
        );
        let h = service.handler.clone();
        scanner_counts.push(("thrift1", Arc::new(move || h.scanners.len())));
        gateways.push((l, service as Arc<dyn thrift::Service>, "thrift1"));
    }
    if let Some(l) = listeners.thrift2 {
        let handler = thrift2::Handler::new(
            engine.clone(),
            config.scanners.clone(),
            Advertised::of(host.clone(), &l),
            access.clone(),
            config.slow_log.clone(),
        );
        let service = Arc::new(
            thrift2::Thrift2::new(handler)
                .with_wrong_port(WrongPort::new(Idl::Thrift2, ports.clone())),
        );
        let h = service.handler.clone();
        scanner_counts.push(("thrift2", Arc::new(move || h.scanners.len())));
        gateways.push((l, service as Arc<dyn thrift::Service>, "thrift2"));
    }
    // The REST API's scanners, counted once the operations listener has made it.
    let rest_slot: Arc<std::sync::OnceLock<Arc<crate::rest::Rest>>> = Arc::default();
    if listeners.http.is_some() {
        let slot = rest_slot.clone();
        scanner_counts.push((
            "rest",
            Arc::new(move || slot.get().map_or(0, |r| r.scanners.len())),
        ));
    }
    // The native listener's scanners, counted once it is made.
    let native_slot: Arc<std::sync::OnceLock<Arc<crate::native::Native>>> = Arc::default();
    if native.is_some() {
        let slot = native_slot.clone();
        scanner_counts.push((
            "native",
            Arc::new(move || slot.get().map_or(0, |n| n.scanners.len())),
        ));
    }
    let metrics = Arc::new(Metrics::with_scanner_bytes(
        engine.clone(),
        scanner_counts,
        &config.limits,
        &config.scanners.bytes,
    ));
    if let Some(l) = native {
        let info_port = listeners
            .http
            .as_ref()
            .and_then(|h| h.local_addr().ok())
            .map_or(0, |a| a.port());
        let native = Arc::new(
            native_service(&engine, &l, &host, &config, &access, &metrics)
                .with_info_port(info_port),
        );
        let _ = native_slot.set(native.clone());
        match l.local_addr() {
            Ok(addr) => tracing::info!(gateway = "native", %addr, "gateway listening"),
            Err(e) => tracing::info!(gateway = "native", error = %e, "gateway listening"),
        }
        let mut rx = stop_rx.clone();
        if let Some(z) = zookeeper {
            let zk = Arc::new(zookeeper_service(
                &engine, &native, info_port, &config, &metrics,
            ));
            let parent = config.znode_parent.as_str();
            match z.local_addr() {
                Ok(addr) => {
                    tracing::info!(gateway = "zookeeper", %addr, znode_parent = parent, "gateway listening")
                }
                Err(e) => {
                    tracing::info!(gateway = "zookeeper", error = %e, znode_parent = parent, "gateway listening")
                }
            }
            let mut rx = stop_rx.clone();
            tasks.push(tokio::spawn(crate::native::zookeeper::run(
                z,
                zk,
                async move {
                    let _ = rx.changed().await;
                },
            )));
        }
        tasks.push(tokio::spawn(crate::native::run(l, native, async move {
            let _ = rx.changed().await;
        })));
    } else if zookeeper.is_some() {
        tracing::warn!(
            gateway = "zookeeper",
            "the ZooKeeper responder points clients at the native RPC listener, which is not \
             serving: serving without it"
        );
    }
    for (l, service, name) in gateways {
        let mut rx = stop_rx.clone();
        match l.local_addr() {
            Ok(addr) => tracing::info!(gateway = name, %addr, "gateway listening"),
            Err(e) => tracing::info!(gateway = name, error = %e, "gateway listening"),
        }
        tasks.push(tokio::spawn(thrift::run_secured(
            l,
            service,
            name,
            config.limits.clone(),
            metrics.gateway(name),
            security.clone(),
            async move {
                let _ = rx.changed().await;
            },
        )));
    }
    let ready = Arc::new(AtomicBool::new(true));
    tracing::info!("{}", ready_line(&ports, native_addr.as_deref()));
    let (http_stop, http_stop_rx) = tokio::sync::oneshot::channel::<()>();
    let ops = listeners.http.map(|l| {
        let port = l.local_addr().map(|a| a.port()).unwrap_or(8080);
        let rest = crate::rest::RestConfig {
            scanners: config.scanners.clone(),
            slow: config.slow_log.threshold,
            location: format!("{host}:{port}"),
            stream_chunk: config.rest_stream.chunk,
            stream_time: config.rest_stream.time,
            // One in-flight budget for the Thrift gateways and REST bodies.
            budget: config.limits.budget.clone(),
            body_idle: config.limits.idle_timeout,
        };
        tokio::spawn(http::run_with(
            l,
            engine.clone(),
            metrics.clone(),
            ready.clone(),
            http::Options {
                security: security.clone(),
                exposure_warnings: config.exposure_warnings.clone(),
                access: access.clone(),
                rest,
                rest_slot,
                limits: config.http_limits,
            },
            async move {
                let _ = http_stop_rx.await;
            },
        ))
    });
    shutdown.await;
    ready.store(false, Ordering::Release);
    let _ = stop_tx.send(true);
    for t in tasks {
        let _ = t.await;
    }
    let _ = http_stop.send(());
    if let Some(t) = ops {
        let _ = t.await;
    }
    if let Some(w) = watcher {
        w.abort();
    }
}

/// The native RPC's shared state: this server's name as clients see it, and its limits (those
/// of the Thrift gateways: message size, connections, idle timeout, the in-flight budget).
fn native_service(
    engine: &Engine,
    listener: &TcpListener,
    host: &str,
    config: &Config,
    access: &Access,
    metrics: &Arc<Metrics>,
) -> crate::native::Native {
    let server = crate::native::ServerAddress {
        host: host.to_string(),
        port: listener.local_addr().map(|a| a.port()).unwrap_or(0),
        start_code: crate::engine::cell::now_ms().unsigned_abs(),
    };
    let limits = crate::native::NativeLimits {
        max_frame: config.limits.max_message,
        max_response: config.limits.max_message,
        max_connections: config.limits.max_connections,
        idle_timeout: config.limits.idle_timeout,
        budget: config.limits.budget.clone(),
        inline: config.limits.inline.clone(),
        scan_time: config.scan_time.clone(),
        ..Default::default()
    };
    let native = crate::native::Native::new(
        engine.clone(),
        server,
        config.scanners.clone(),
        access.clone(),
        limits,
        crate::native::NativeMetrics::new(metrics.clone()),
    );
    native.with_security(config.security.clone())
}

/// The ZooKeeper responder: the znodes point at the native listener's address; its limits are
/// the connection cap, the handshake timeout (`--idle-timeout-secs`) and the in-flight budget.
fn zookeeper_service(
    engine: &Engine,
    native: &crate::native::Native,
    info_port: u16,
    config: &Config,
    metrics: &Arc<Metrics>,
) -> crate::native::zookeeper::ZooKeeper {
    let limits = crate::native::zookeeper::ZooKeeperLimits {
        max_connections: config.limits.max_connections,
        handshake_timeout: config.limits.idle_timeout,
        budget: config.limits.budget.clone(),
        ..Default::default()
    };
    crate::native::zookeeper::ZooKeeper::new(
        &config.znode_parent,
        engine.cluster_id(),
        &native.server,
        info_port,
        limits,
        crate::native::zookeeper::ZooKeeperMetrics::new(metrics.clone()),
    )
}

/// The line that says the server is up and where each client goes.
fn ready_line(ports: &Ports, native: Option<&str>) -> String {
    let mut serving = Vec::new();
    if let Some(a) = &ports.thrift1 {
        serving.push(format!("Thrift1 (happybase) on {a}"));
    }
    if let Some(a) = &ports.thrift2 {
        serving.push(format!("Thrift2 (shell, SDKs) on {a}"));
    }
    if let Some(a) = native {
        serving.push(format!("HBase native RPC (hbase-client) on {a}"));
    }
    if let Some(a) = &ports.http {
        serving.push(format!("REST API and status page on http://{a}/"));
    }
    format!("ready: {}", serving.join(", "))
}
