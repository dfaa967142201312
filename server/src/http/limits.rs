//! The HTTP listener's bounds (how many connections, how long a request may take to arrive,
//! how long a connection lives) and the counters that show them being reached.
//!
//! Every bound is here so tests can make them small; the binary sets the ones an operator may
//! want to change from flags (`--http-max-connections`, `--http-body-timeout-secs`,
//! `--http-body-min-rate`, `--http-max-lifetime-secs`), the others are constants.

use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// Connections served at once for any path.
pub const MAX_CONNECTIONS: usize = 256;
/// Connections kept for the probes (`/healthz`, `/readyz`, `/metrics`) once the general ones
/// are all busy: one request each, then closed.
pub const PROBE_CONNECTIONS: usize = 16;
/// Time a client has to send a request's headers (also bounds an idle keep-alive connection).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// The same on a probe connection: a health checker sends its request at once.
pub const PROBE_HEADER_TIMEOUT: Duration = Duration::from_secs(2);
/// Bytes of request line and headers a connection may buffer.
pub const MAX_HEADER: usize = 16 * 1024;
/// Longest wait for the next bytes of a request body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// Slowest average a request body may arrive at, in bytes per second, once it has been
/// arriving for [`BODY_TIMEOUT`].
pub const BODY_MIN_RATE: u64 = 1024;
/// Longest a connection takes new requests.
pub const MAX_LIFETIME: Duration = Duration::from_secs(300);
/// Past [`MAX_LIFETIME`], how long the request in flight may go without moving
/// `BODY_MIN_RATE` bytes a second before the connection is closed under it.
pub const LIFETIME_GRACE: Duration = Duration::from_secs(10);

/// The listener's bounds ([`Default`]: the constants above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenerLimits {
    pub max_connections: usize,
    pub probe_connections: usize,
    pub header_timeout: Duration,
    pub probe_header_timeout: Duration,
    pub body_timeout: Duration,
    pub body_min_rate: u64,
    pub max_lifetime: Duration,
    pub lifetime_grace: Duration,
}

impl Default for ListenerLimits {
    fn default() -> Self {
        ListenerLimits {
            max_connections: MAX_CONNECTIONS,
            probe_connections: PROBE_CONNECTIONS,
            header_timeout: HEADER_TIMEOUT,
            probe_header_timeout: PROBE_HEADER_TIMEOUT,
            body_timeout: BODY_TIMEOUT,
            body_min_rate: BODY_MIN_RATE,
            max_lifetime: MAX_LIFETIME,
            lifetime_grace: LIFETIME_GRACE,
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, prometheus_client::encoding::EncodeLabelSet)]
struct PoolLabels {
    pool: &'static str,
}

/// The listener's counters (registered by [`crate::metrics::Metrics`]).
#[derive(Debug, Clone, Default)]
pub struct ListenerMetrics {
    open: Family<PoolLabels, Gauge>,
    pub(super) refused: Counter,
    pub(super) evicted: Counter,
    pub(super) probe_connections: Counter,
    pub(super) slow_bodies: Counter,
    pub(super) lifetime_cut: Counter,
    pub(super) plaintext_refused: Counter,
}

impl ListenerMetrics {
    /// Makes the counters and registers them in `registry`.
    pub fn register(registry: &mut Registry) -> ListenerMetrics {
        let m = ListenerMetrics::default();
        for pool in ["general", "probe"] {
            m.open.get_or_create(&PoolLabels { pool }).set(0);
        }
        registry.register(
            "redbase_http_connections_open",
            "HTTP listener connections being served, by pool (general, or the probe connections kept for /healthz, /readyz and /metrics)",
            m.open.clone(),
        );
        registry.register(
            "redbase_http_connections_refused",
            "HTTP connections closed on arrival because every general and probe connection was busy with a request",
            m.refused.clone(),
        );
        registry.register(
            "redbase_http_connections_evicted",
            "HTTP connections that were waiting for a request (headers not yet sent, or idle between requests), closed to make room for a new one",
            m.evicted.clone(),
        );
        registry.register(
            "redbase_http_probe_connections",
            "HTTP connections served by the probe pool because every general connection was busy",
            m.probe_connections.clone(),
        );
        registry.register(
            "redbase_http_slow_bodies",
            "HTTP requests ended (408, connection closed) because their body stalled for --http-body-timeout-secs or arrived slower than --http-body-min-rate",
            m.slow_bodies.clone(),
        );
        registry.register(
            "redbase_http_lifetime_cut",
            "HTTP connections closed under a request that stopped making progress after --http-max-lifetime-secs",
            m.lifetime_cut.clone(),
        );
        registry.register(
            "redbase_http_plaintext_refused",
            "Plaintext HTTP requests refused under --require-tls",
            m.plaintext_refused.clone(),
        );
        m
    }

    pub(super) fn opened(&self, pool: &'static str) {
        self.open.get_or_create(&PoolLabels { pool }).inc();
    }

    pub(super) fn closed(&self, pool: &'static str) {
        self.open.get_or_create(&PoolLabels { pool }).dec();
    }
}
