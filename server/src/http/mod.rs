//! The operations listener (`--http-addr`): liveness and readiness probes, Prometheus metrics,
//! and the region status page with its JSON feed. It is plain HTTP beside the Thrift
//! gateways, so orchestrators and browsers need nothing Thrift-specific.
//!
//! | path | answers |
//! | --- | --- |
//! | `/healthz` | 200 while the process serves at all |
//! | `/readyz` | 200 while the gateways accept calls and every region serves; 503 once shutdown has begun, or while a region is down after a storage I/O error (named in the body) |
//! | `/metrics` | every metric, OpenMetrics text (see [`crate::metrics`]) |
//! | `/`, `/status.css`, `/status.js` | the status page (embedded in the binary) |
//! | `/api/status` | tables, families, regions and their rates as JSON |
//! | `POST /api/backup` | an online backup, streamed ([`backup`]; superusers only with an auth file) |
//! | anything else, and `/` for clients that do not prefer HTML | HBase's REST API ([`crate::rest`], docs/rest.md) |
//!
//! Map: [`serve`] is the listener's own accept loop with its bounds ([`limits`]): connection
//! [`slots`] that evict connections waiting for a request and keep a pool for the probes, the
//! body deadline, minimum rate and lifetime cap ([`deadlines`]; docs/reliability.md). [`guard`]
//! is the middleware (Origin rule, credentials, the proved caller); [`status`] answers
//! `/api/status` with rates from counter deltas sampled each second ([`rates`]); the page's
//! HTML, CSS and JS are in `page/`, embedded with `include_str!`.

mod backup;
pub mod deadlines;
pub mod guard;
pub mod limits;
pub mod rates;
pub mod serve;
pub mod slots;
pub mod status;

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Extension;
use axum::{Json, Router};
use tokio::net::TcpListener;

use crate::engine::Engine;
use crate::gateway::access::Need;
use crate::gateway::caller::{self, Caller};
use crate::gateway::Access;
use crate::metrics::Metrics;
use crate::rest::{Rest, RestConfig};
use crate::security::Security;
use rates::Rates;

/// How often region counters are sampled, and over how long rates are measured.
const SAMPLE_EVERY: Duration = Duration::from_secs(1);
const RATE_WINDOW: Duration = Duration::from_secs(5);

/// What the handlers share.
struct Shared {
    engine: Engine,
    metrics: Arc<Metrics>,
    ready: Arc<AtomicBool>,
    rates: Mutex<Rates>,
    started: Instant,
    options: Options,
    rest: Arc<Rest>,
}

/// The listener's security settings and what the status page warns about.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub security: Arc<Security>,
    /// Shown on the status page and in `/api/status` (e.g. exposed without authentication).
    pub exposure_warnings: Vec<String>,
    /// The gateways' access rules: `/api/status` lists only the tables the caller may read
    /// (their region boundaries are real row keys).
    pub access: Access,
    /// The REST API's settings (scanner limits, slow-request threshold, region location).
    pub rest: RestConfig,
    /// Filled with the REST API once it runs, so the metrics can count its open scanners.
    pub rest_slot: Arc<std::sync::OnceLock<Arc<Rest>>>,
    /// The listener's connection, deadline and lifetime bounds.
    pub limits: limits::ListenerLimits,
}

/// Serves the operations endpoints on `listener` until `shutdown` completes. `ready` says
/// whether the gateways are accepting calls (`/readyz`).
pub async fn run(
    listener: TcpListener,
    engine: Engine,
    metrics: Arc<Metrics>,
    ready: Arc<AtomicBool>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    run_with(
        listener,
        engine,
        metrics,
        ready,
        Options::default(),
        shutdown,
    )
    .await
}

/// As [`run`], with TLS, authentication and the origin rule of `options.security`.
pub async fn run_with(
    listener: TcpListener,
    engine: Engine,
    metrics: Arc<Metrics>,
    ready: Arc<AtomicBool>,
    options: Options,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let security = options.security.clone();
    let limits = options.limits;
    let listener_metrics = metrics.http_listener().clone();
    let rest = Rest::new(
        engine.clone(),
        options.access.clone(),
        Some(metrics.clone()),
        options.rest.clone(),
    );
    let _ = options.rest_slot.set(rest.clone());
    let shared = Arc::new(Shared {
        rest,
        engine,
        metrics,
        ready,
        rates: Mutex::new(Rates::new(RATE_WINDOW)),
        started: Instant::now(),
        options,
    });
    let sampler = tokio::spawn(sample(shared.clone()));
    let app = Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics_text))
        .route("/api/status", get(api_status))
        .route("/api/backup", post(backup::backup))
        .route("/", get(root))
        .route("/status.css", get(css))
        .route("/status.js", get(js))
        .fallback(rest_api)
        .with_state(shared)
        .layer(axum::middleware::from_fn_with_state(
            guard::Guard::new(security.clone()),
            guard::check,
        ));
    match listener.local_addr() {
        Ok(addr) => {
            tracing::info!(%addr, tls = security.tls.is_some(), "HTTP listener (REST API, status page, probes, metrics)")
        }
        Err(e) => {
            tracing::info!(error = %e, tls = security.tls.is_some(), "HTTP listener (REST API, status page, probes, metrics)")
        }
    }
    serve::serve_with(listener, app, security, limits, listener_metrics, shutdown).await;
    sampler.abort();
}

/// Records every region's counters each second, for the rates on the status page.
async fn sample(shared: Arc<Shared>) {
    let mut tick = tokio::time::interval(SAMPLE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let engine = shared.engine.clone();
        let Ok(counters) =
            tokio::task::spawn_blocking(move || status::region_counters(&engine)).await
        else {
            continue;
        };
        shared
            .rates
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .observe(Instant::now(), counters);
    }
}

async fn readyz(State(s): State<Arc<Shared>>) -> Response {
    if !s.ready.load(Ordering::Acquire) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "not ready: starting or shutting down\n",
        )
            .into_response();
    }
    let failed = s.engine.failed_regions();
    if failed.is_empty() {
        return (StatusCode::OK, "ready\n").into_response();
    }
    let mut body = format!(
        "not ready: {} region(s) down after a storage I/O error, reopening automatically\n",
        failed.len()
    );
    for f in &failed {
        body.push_str(&format!(
            "region {} of table {} ({}): {}\n",
            f.region,
            f.table,
            f.file.display(),
            f.cause
        ));
    }
    (StatusCode::SERVICE_UNAVAILABLE, body).into_response()
}

async fn metrics_text(State(s): State<Arc<Shared>>) -> Response {
    let m = s.metrics.clone();
    match tokio::task::spawn_blocking(move || m.render()).await {
        Ok(Ok(text)) => (
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "cannot encode metrics");
            (StatusCode::INTERNAL_SERVER_ERROR, "cannot encode metrics\n").into_response()
        }
        Err(e) => {
            tracing::warn!(error = %e, "metrics task failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "metrics task failed\n").into_response()
        }
    }
}

async fn api_status(State(s): State<Arc<Shared>>, caller: Option<Extension<Caller>>) -> Response {
    let shared = s.clone();
    let built = tokio::task::spawn_blocking(move || {
        let e = &shared.engine;
        let access = &shared.options.access;
        let readable = |name: &str| match &caller {
            Some(Extension(c)) => caller::scope(c.clone(), || access.shows(Need::Read(name))),
            None => access.shows(Need::Read(name)),
        };
        let rates = shared.rates.lock().unwrap_or_else(|p| p.into_inner());
        status::Status {
            version: env!("CARGO_PKG_VERSION"),
            uptime_secs: shared.started.elapsed().as_secs(),
            ready: shared.ready.load(Ordering::Acquire),
            commits: e.commit_count(),
            compactions: e.compaction_count(),
            splits: e.split_count(),
            rate_window_secs: RATE_WINDOW.as_secs(),
            security: status::SecurityStatus {
                tls: shared.options.security.tls.is_some(),
                require_tls: shared.options.security.require_tls,
                authentication: shared.options.security.auth.is_some(),
                warnings: shared.options.exposure_warnings.clone(),
            },
            tables: status::tables(e, &rates)
                .into_iter()
                .filter(|t| readable(&t.name))
                .collect(),
        }
    })
    .await;
    match built {
        Ok(st) => ([(header::CACHE_CONTROL, "no-store")], Json(st)).into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "status task failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "status task failed\n").into_response()
        }
    }
}

/// `/`: the status page for browsers (`Accept` naming HTML) and for requests naming no type at
/// all (as before the REST API shared this listener), REST's table list for everyone else
/// (docs/rest.md: why REST shares this listener).
async fn root(State(s): State<Arc<Shared>>, req: Request) -> Response {
    let html = match req.headers().get(header::ACCEPT) {
        None => true,
        Some(v) => v.to_str().is_ok_and(|a| a.contains("text/html")),
    };
    if html {
        page().await
    } else {
        crate::rest::serve(s.rest.clone(), req).await
    }
}

async fn rest_api(State(s): State<Arc<Shared>>, req: Request) -> Response {
    crate::rest::serve(s.rest.clone(), req).await
}

async fn page() -> Response {
    asset("text/html; charset=utf-8", include_str!("page/status.html"))
}

async fn css() -> Response {
    asset("text/css; charset=utf-8", include_str!("page/status.css"))
}

async fn js() -> Response {
    asset(
        "text/javascript; charset=utf-8",
        include_str!("page/status.js"),
    )
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}
