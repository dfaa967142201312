//! The server's Prometheus metrics: request counts and latencies by gateway, method and
//! outcome, open connections (all updated as calls happen), and the engine's state (tables,
//! regions, sizes, per-region reads and writes, commits, compactions, splits) and open
//! scanners, read from their own counters at scrape time so the hot paths pay nothing extra.
//!
//! Exposed in the OpenMetrics text format (which Prometheus scrapes natively) by `/metrics`.
//! [`Metrics`] holds the registry: the families registered at start ([`register`]), what the
//! listeners report into it ([`observer`]) and the scrape-time collector ([`collector`]).

mod collector;
mod observer;
mod register;

pub use observer::{GatewayObserver, RestStream};

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    gateway: &'static str,
    method: String,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct MethodLabels {
    gateway: &'static str,
    method: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RestLabels {
    method: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RestMethodLabels {
    method: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct GatewayLabels {
    gateway: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: &'static str,
}

/// Latency buckets from 100 µs (a cached get) to 10 s (a big scan batch or a split pause).
const LATENCY_BUCKETS: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// Counts the open scanners of one gateway when asked.
pub type ScannerCount = Arc<dyn Fn() -> usize + Send + Sync>;

/// The registry and the metrics the server updates as it runs.
pub struct Metrics {
    registry: Registry,
    requests: Family<CallLabels, Counter>,
    latency: Family<MethodLabels, Histogram>,
    connections: Family<GatewayLabels, Gauge>,
    evicted: Family<GatewayLabels, Counter>,
    refused: Family<GatewayLabels, Counter>,
    stalled: Family<GatewayLabels, Counter>,
    rest_requests: Family<RestLabels, Counter>,
    rest_latency: Family<RestMethodLabels, Histogram>,
    rest_streams: Gauge,
    rest_streams_cut: Counter,
    http_listener: crate::http::limits::ListenerMetrics,
    native_refused: Family<ReasonLabels, Counter>,
    native_heartbeats: Counter,
    zookeeper_refused: Family<ReasonLabels, Counter>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// The HTTP listener's counters (connections, slow bodies, the lifetime cap).
    pub fn http_listener(&self) -> &crate::http::limits::ListenerMetrics {
        &self.http_listener
    }

    /// Counts one native RPC call (gateway "native", method "Service.Method").
    pub fn native_call(&self, service: &str, method: &str, outcome: &'static str, took: Duration) {
        let method = format!("{service}.{method}");
        self.latency
            .get_or_create(&MethodLabels {
                gateway: "native",
                method: method.clone(),
            })
            .observe(took.as_secs_f64());
        self.requests
            .get_or_create(&CallLabels {
                gateway: "native",
                method,
                outcome,
            })
            .inc();
    }

    /// Counts one native RPC call refused before it ran.
    pub fn native_refused(&self, reason: &'static str) {
        self.native_refused
            .get_or_create(&ReasonLabels { reason })
            .inc();
    }

    /// Counts one native scan answer sent as a heartbeat (its time limit ran out first).
    pub fn native_heartbeat(&self) {
        self.native_heartbeats.inc();
    }

    /// Counts one ZooKeeper request (gateway "zookeeper", method = the operation's name).
    pub fn zookeeper_call(&self, op: &'static str, outcome: &'static str, took: Duration) {
        self.latency
            .get_or_create(&MethodLabels {
                gateway: "zookeeper",
                method: op.to_string(),
            })
            .observe(took.as_secs_f64());
        self.requests
            .get_or_create(&CallLabels {
                gateway: "zookeeper",
                method: op.to_string(),
                outcome,
            })
            .inc();
    }

    /// Counts one ZooKeeper connection closed for breaking a bound.
    pub fn zookeeper_refused(&self, reason: &'static str) {
        self.zookeeper_refused
            .get_or_create(&ReasonLabels { reason })
            .inc();
    }

    /// Counts one answered REST request.
    pub fn rest_request(&self, method: &str, status: u16, took: Duration) {
        self.rest_requests
            .get_or_create(&RestLabels {
                method: method.to_string(),
                status,
            })
            .inc();
        self.rest_latency
            .get_or_create(&RestMethodLabels {
                method: method.to_string(),
            })
            .observe(took.as_secs_f64());
    }

    /// The OpenMetrics text exposition of every metric.
    pub fn render(&self) -> Result<String, std::fmt::Error> {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)?;
        Ok(out)
    }
}
