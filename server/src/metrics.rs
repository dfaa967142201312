//! The server's Prometheus metrics: request counts and latencies by gateway, method and
//! outcome, open connections (all updated as calls happen), and the engine's state (tables,
//! regions, sizes, per-region reads and writes, commits, compactions, splits) and open
//! scanners, read from their own counters at scrape time so the hot paths pay nothing extra.
//!
//! Exposed in the OpenMetrics text format (which Prometheus scrapes natively) by `/metrics`.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use crate::engine::Engine;
use crate::scanners::ScannerBytes;
use crate::thrift::frame::Protocol;
use crate::thrift::outcome;
use crate::thrift::Observer;

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

/// One streamed REST answer, open while this lives ([`Metrics::rest_stream`]).
pub struct RestStream {
    metrics: Arc<Metrics>,
    finished: bool,
}

impl RestStream {
    /// The answer was sent to its end.
    pub fn finished(&mut self) {
        self.finished = true;
    }
}

impl Drop for RestStream {
    fn drop(&mut self) {
        self.metrics.rest_streams.dec();
        if !self.finished {
            self.metrics.rest_streams_cut.inc();
        }
    }
}

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
    zookeeper_refused: Family<ReasonLabels, Counter>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// Metrics for a server over `engine` whose gateways' open scanners `scanners` counts.
    pub fn new(
        engine: Engine,
        scanners: Vec<(&'static str, ScannerCount)>,
        limits: &crate::thrift::Limits,
    ) -> Metrics {
        Metrics::with_scanner_bytes(engine, scanners, limits, &ScannerBytes::default())
    }

    /// As [`Metrics::new`], reporting the server's scanner byte budget `scanner_bytes`.
    pub fn with_scanner_bytes(
        engine: Engine,
        scanners: Vec<(&'static str, ScannerCount)>,
        limits: &crate::thrift::Limits,
        scanner_bytes: &ScannerBytes,
    ) -> Metrics {
        let mut registry = Registry::default();
        let requests = Family::<CallLabels, Counter>::default();
        registry.register(
            "redbase_requests",
            "Thrift calls answered, by gateway, method and outcome (ok, error = a declared HBase exception, exception = the call could not run)",
            requests.clone(),
        );
        let latency = Family::<MethodLabels, Histogram>::new_with_constructor(
            (|| Histogram::new(LATENCY_BUCKETS)) as fn() -> Histogram,
        );
        registry.register_with_unit(
            "redbase_request_duration",
            "Time from a whole request read to its reply ready, by gateway and method",
            Unit::Seconds,
            latency.clone(),
        );
        let times = engine.maintenance_times().clone();
        for (name, help, h) in [
            (
                "redbase_split_duration",
                "Region splits, from the start of the copy to the switch",
                times.split,
            ),
            (
                "redbase_split_pause",
                "How long each region split held the region's writes",
                times.split_pause,
            ),
            (
                "redbase_major_compaction_duration",
                "Major compactions of one region, from the start of the copy to the switch",
                times.compaction,
            ),
            (
                "redbase_major_compaction_pause",
                "How long each region's major compaction held its writes",
                times.compaction_pause,
            ),
        ] {
            registry.register_with_unit(name, help, Unit::Seconds, h);
        }
        registry.register_with_unit(
            "redbase_write_buffer_drain",
            "How long each move of a region's write buffer into its file with its writes held (at its hard bound, before a write that reads, the last step of a flush, a split, compaction or backup) held them",
            Unit::Seconds,
            engine.write_buffer_drain_seconds(),
        );
        registry.register_with_unit(
            "redbase_write_buffer_background_drain",
            "How long each move of a region's write buffer into its file in the background (past its soft bound, the first step of a flush) took; writes went on meanwhile",
            Unit::Seconds,
            engine.write_buffer_background_drain_seconds(),
        );
        let backups = engine.backup_stats().clone();
        registry.register_with_unit(
            "redbase_backup_pause",
            "How long each online backup's point held every region's writes",
            Unit::Seconds,
            backups.pause,
        );
        registry.register_with_unit(
            "redbase_backup_duration",
            "Completed online backups, from the request to the manifest",
            Unit::Seconds,
            backups.duration,
        );
        registry.register_with_unit(
            "redbase_backup",
            "Dump bytes online backups streamed",
            Unit::Bytes,
            backups.bytes,
        );
        registry.register(
            "redbase_backups_completed",
            "Online backups streamed whole",
            backups.completed,
        );
        registry.register(
            "redbase_backups_failed",
            "Online backups that were refused or abandoned (client gone, shutdown, storage error)",
            backups.failed,
        );
        let connections = Family::<GatewayLabels, Gauge>::default();
        registry.register(
            "redbase_open_connections",
            "Client connections being served, by gateway",
            connections.clone(),
        );
        let evicted = Family::<GatewayLabels, Counter>::default();
        registry.register(
            "redbase_connections_evicted",
            "Idle connections closed at the connection cap to serve a new one, by gateway",
            evicted.clone(),
        );
        let refused = Family::<GatewayLabels, Counter>::default();
        registry.register(
            "redbase_connections_refused",
            "New connections turned away at the cap because every connection was in a call, by gateway",
            refused.clone(),
        );
        let stalled = Family::<GatewayLabels, Counter>::default();
        registry.register(
            "redbase_connections_stalled",
            "Connections closed because the client left its reply unread for the idle timeout, by gateway",
            stalled.clone(),
        );
        let rest_requests = Family::<RestLabels, Counter>::default();
        registry.register(
            "redbase_rest_requests",
            "REST API requests answered, by HTTP method and status code",
            rest_requests.clone(),
        );
        let rest_latency = Family::<RestMethodLabels, Histogram>::new_with_constructor(
            (|| Histogram::new(LATENCY_BUCKETS)) as fn() -> Histogram,
        );
        registry.register_with_unit(
            "redbase_rest_request_duration",
            "Time from a REST request's body read to its answer ready, by HTTP method",
            Unit::Seconds,
            rest_latency.clone(),
        );
        let rest_streams = Gauge::default();
        registry.register(
            "redbase_rest_streams_open",
            "REST answers being streamed now (each holds a blocking thread; one per HTTP connection)",
            rest_streams.clone(),
        );
        let rest_streams_cut = Counter::default();
        registry.register(
            "redbase_rest_streams_cut",
            "Streamed REST answers cut before their end: past --rest-stream-secs, a read that failed midway, or the client gone",
            rest_streams_cut.clone(),
        );
        let http_listener = crate::http::limits::ListenerMetrics::register(&mut registry);
        let native_refused = Family::<ReasonLabels, Counter>::default();
        registry.register(
            "redbase_native_refused",
            "Native RPC calls refused before they ran, by reason (request_too_big: over --max-message-size; budget: the in-flight budget was spent)",
            native_refused.clone(),
        );
        let zookeeper_refused = Family::<ReasonLabels, Counter>::default();
        registry.register(
            "redbase_zookeeper_refused",
            "ZooKeeper responder connections closed for breaking a bound, by reason (malformed: not ZooKeeper's protocol; request_too_big: a packet over the bound; budget: the in-flight budget was spent)",
            zookeeper_refused.clone(),
        );
        registry.register_collector(Box::new(EngineCollector {
            engine,
            scanners,
            scanner_bytes: scanner_bytes.clone(),
            budget: limits.budget.clone(),
            inline: limits.inline.clone(),
        }));
        // Families of a gateway that has seen no traffic yet still show up with zero values.
        Metrics {
            registry,
            requests,
            latency,
            connections,
            evicted,
            refused,
            stalled,
            rest_requests,
            rest_latency,
            rest_streams,
            rest_streams_cut,
            http_listener,
            native_refused,
            zookeeper_refused,
        }
    }

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

    /// A streamed REST answer began; the guard counts it open until dropped, and as cut when
    /// dropped without [`RestStream::finished`].
    pub fn rest_stream(self: &Arc<Self>) -> RestStream {
        self.rest_streams.inc();
        RestStream {
            metrics: self.clone(),
            finished: false,
        }
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

    /// What one gateway reports into these metrics.
    pub fn gateway(self: &Arc<Self>, gateway: &'static str) -> Arc<GatewayObserver> {
        self.connections
            .get_or_create(&GatewayLabels { gateway })
            .set(0);
        Arc::new(GatewayObserver {
            gateway,
            metrics: self.clone(),
        })
    }

    /// The OpenMetrics text exposition of every metric.
    pub fn render(&self) -> Result<String, std::fmt::Error> {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)?;
        Ok(out)
    }
}

/// Reports one gateway's connections and calls into [`Metrics`].
pub struct GatewayObserver {
    gateway: &'static str,
    metrics: Arc<Metrics>,
}

impl Observer for GatewayObserver {
    fn connection_opened(&self) {
        let labels = GatewayLabels {
            gateway: self.gateway,
        };
        self.metrics.connections.get_or_create(&labels).inc();
    }

    fn connection_closed(&self) {
        let labels = GatewayLabels {
            gateway: self.gateway,
        };
        self.metrics.connections.get_or_create(&labels).dec();
    }

    fn connection_evicted(&self) {
        let labels = GatewayLabels {
            gateway: self.gateway,
        };
        self.metrics.evicted.get_or_create(&labels).inc();
    }

    fn connection_refused(&self) {
        let labels = GatewayLabels {
            gateway: self.gateway,
        };
        self.metrics.refused.get_or_create(&labels).inc();
    }

    fn connection_stalled(&self) {
        let labels = GatewayLabels {
            gateway: self.gateway,
        };
        self.metrics.stalled.get_or_create(&labels).inc();
    }

    fn call(&self, request: &[u8], reply: &[u8], protocol: Protocol, elapsed: Duration) {
        let (method, outcome) = outcome::classify(request, reply, protocol);
        self.metrics
            .latency
            .get_or_create(&MethodLabels {
                gateway: self.gateway,
                method: method.clone(),
            })
            .observe(elapsed.as_secs_f64());
        self.metrics
            .requests
            .get_or_create(&CallLabels {
                gateway: self.gateway,
                method,
                outcome: outcome.as_str(),
            })
            .inc();
    }
}

/// Reads the engine's and the scanners' own counters at scrape time.
struct EngineCollector {
    engine: Engine,
    scanners: Vec<(&'static str, ScannerCount)>,
    scanner_bytes: ScannerBytes,
    budget: crate::thrift::Budget,
    inline: crate::thrift::InlineCalls,
}

impl std::fmt::Debug for EngineCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineCollector").finish_non_exhaustive()
    }
}

/// Writes one metric family whose samples are `(labels, value)`.
fn family<L: EncodeLabelSet, M: EncodeMetric>(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<&Unit>,
    samples: impl IntoIterator<Item = (L, M)>,
    metric_type: prometheus_client::metrics::MetricType,
) -> Result<(), std::fmt::Error> {
    let mut family = encoder.encode_descriptor(name, help, unit, metric_type)?;
    for (labels, metric) in samples {
        metric.encode(family.encode_family(&labels)?)?;
    }
    Ok(())
}

type Labels = Vec<(&'static str, String)>;

impl Collector for EngineCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        use prometheus_client::metrics::MetricType::{Counter as C, Gauge as G};
        let counter = |v: u64| ConstCounter::new(v);
        let e = &self.engine;
        let no_labels: Labels = Vec::new();
        family(
            &mut encoder,
            "redbase_commits",
            "Region commits (write transactions, each carrying a group of writes)",
            None,
            [(no_labels.clone(), counter(e.commit_count()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_awaited_writes",
            "One-row writes whose call awaited the commit on its connection's task instead of a call thread",
            None,
            [(no_labels.clone(), counter(e.awaited_write_count()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_compactions",
            "Table compactions run (minor and major)",
            None,
            [(no_labels.clone(), counter(e.compaction_count()))],
            C,
        )?;
        let (cache_held, cache_files) = e.cache_held();
        for (name, help, value) in [
            (
                "redbase_cache_bytes",
                "Page cache given out to open region files (budget: redbase_cache_bytes_max)",
                cache_held,
            ),
            (
                "redbase_cache_bytes_max",
                "The page cache budget all region files share (--cache-size)",
                e.cache_budget(),
            ),
            (
                "redbase_cache_files",
                "Region files holding a part of the page cache budget",
                cache_files,
            ),
        ] {
            family(
                &mut encoder,
                name,
                help,
                None,
                [(no_labels.clone(), ConstGauge::new(value as i64))],
                G,
            )?;
        }
        let b = &self.budget;
        family(
            &mut encoder,
            "redbase_inflight_bytes",
            "Bytes held for requests being received, processed and answered (budget: redbase_inflight_bytes_max)",
            None,
            [(no_labels.clone(), ConstGauge::new(b.held() as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_inflight_bytes_max",
            "The in-flight byte budget (--max-inflight-bytes)",
            None,
            [(no_labels.clone(), ConstGauge::new(b.total() as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_inflight_refusals",
            "Connections refused because the in-flight byte budget could not hold their message",
            None,
            [(no_labels.clone(), counter(b.refused()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_inline_calls",
            "Short reads (gets) answered on a connection's runtime worker rather than a call thread",
            None,
            [(no_labels.clone(), counter(self.inline.count()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_inline_calls_max",
            "Short reads that may run on runtime workers at once (--max-inline-calls)",
            None,
            [(no_labels.clone(), ConstGauge::new(self.inline.cap() as i64))],
            G,
        )?;
        let (live, cap) = e.commit_threads();
        family(
            &mut encoder,
            "redbase_commit_threads",
            "Committer threads alive, shared by every region (cap: redbase_commit_threads_max)",
            None,
            [(no_labels.clone(), ConstGauge::new(live as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_commit_threads_max",
            "The committer thread cap",
            None,
            [(no_labels.clone(), ConstGauge::new(cap as i64))],
            G,
        )?;
        let (live, cap, queued) = e.drain_threads();
        family(
            &mut encoder,
            "redbase_write_buffer_drain_threads",
            "Background drain threads alive, shared by every region (cap: redbase_write_buffer_drain_threads_max)",
            None,
            [(no_labels.clone(), ConstGauge::new(live as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_write_buffer_drain_threads_max",
            "The background drain thread cap",
            None,
            [(no_labels.clone(), ConstGauge::new(cap as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_write_buffer_drains_queued",
            "Background drains waiting for a thread (at most one per region)",
            None,
            [(no_labels.clone(), ConstGauge::new(queued as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_splits",
            "Region splits done",
            None,
            [(no_labels.clone(), counter(e.split_count()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_splits_at_tail",
            "Of the region splits, those made just past the region's greatest row because its writes appended there: nothing copied",
            None,
            [(no_labels.clone(), counter(e.tail_split_count()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_splits_queued",
            "Regions waiting for a size-triggered split or being split for size now",
            None,
            [(no_labels.clone(), ConstGauge::new(e.splits_queued() as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_splits_skipped_at_limit",
            "Size-triggered splits not made because the server held --region-split-limit regions",
            None,
            [(no_labels.clone(), counter(e.splits_at_limit()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_region_split_limit",
            "Regions past which size-triggered splits stop (0: no limit)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(e.config().region_split_limit as i64),
            )],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_max_regions",
            "The most regions the server holds (--max-regions): tables and splits past it are refused",
            None,
            [(no_labels.clone(), ConstGauge::new(e.max_regions() as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_regions_held",
            "Regions the server holds, over all tables",
            None,
            [(no_labels.clone(), ConstGauge::new(e.region_count() as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_namespace_quota_refused",
            "Tables and splits refused by a namespace quota (hbase.namespace.quota.maxtables, maxregions) with --quota-enabled",
            None,
            [(no_labels.clone(), counter(e.quota_refused()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_regions_refused",
            "Table creations, truncations and splits refused because they would pass --max-regions",
            None,
            [(no_labels.clone(), counter(e.regions_refused()))],
            C,
        )?;
        let pressure = e.record_pressure();
        family(
            &mut encoder,
            "redbase_rewrite_recorded_keys",
            "Keys written to regions during their split or major compaction, held for replay (bound per region: redbase_rewrite_recorded_keys_max)",
            None,
            [(no_labels.clone(), ConstGauge::new(pressure.held_keys as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_rewrite_recorded_keys_max",
            "The bound on a region's recorded keys; writers to the region wait at it",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(pressure.max_keys_per_region as i64),
            )],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_write_backpressure_waits",
            "Writes that waited because their region's rewrite held as many recorded keys as it may",
            None,
            [(no_labels.clone(), counter(pressure.waits))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_write_backpressure_wait_seconds",
            "Seconds writes spent waiting at the recorded-key bound",
            None,
            [(
                no_labels.clone(),
                ConstCounter::new(pressure.waited.as_secs_f64()),
            )],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_region_blocking_size_bytes",
            "Stored bytes past which a region holds its writers while it splits (0: never)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(pressure.block_size as i64),
            )],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_write_size_holds",
            "Writes held because their region was over its blocking size while it split",
            None,
            [(no_labels.clone(), counter(pressure.size_waits))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_write_size_hold_seconds",
            "Seconds writes spent held at a region's blocking size",
            None,
            [(
                no_labels.clone(),
                ConstCounter::new(pressure.size_waited.as_secs_f64()),
            )],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_write_size_refusals",
            "Writes refused (retryable, region too busy) after waiting at the blocking size",
            None,
            [(no_labels.clone(), counter(pressure.size_refused))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_write_busy_refusals",
            "Writes refused (retryable, region too busy) after waiting the busy wait at the recorded-key bound",
            None,
            [(no_labels.clone(), counter(pressure.refused))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_redo_log_syncs",
            "fdatasync calls of region redo logs, one per group commit holding a durable write",
            None,
            [(no_labels.clone(), counter(e.redo_log_syncs()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_redo_log_bytes",
            "Bytes the region redo log files take on disk (kept for reuse until a region is idle for a flush interval)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(e.redo_log_bytes() as i64),
            )],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_write_buffer_bytes",
            "Bytes of acknowledged writes held in region write buffers, not yet in the region files (bounded by --write-buffer-size)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(e.write_buffer_bytes() as i64),
            )],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_write_buffer_drains",
            "Moves of a region's write buffer into its file (at its bound, before a write that reads, at flushes, splits, compactions and backups)",
            None,
            [(no_labels.clone(), counter(e.write_buffer_drains()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_write_buffer_background_drains",
            "Moves of a region's write buffer into its file that did not hold its writes (past its soft bound, the first step of a flush)",
            None,
            [(
                no_labels.clone(),
                counter(e.write_buffer_background_drains()),
            )],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_redo_logs_open",
            "Region redo log files held open between batches (at most 256; the others are opened for each batch)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(e.redo_logs_open() as i64),
            )],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_region_storage_errors",
            "Storage I/O errors (a full disk, a failing device) that took a region down until its file was reopened; one per outage",
            None,
            [(no_labels.clone(), counter(e.storage_error_count()))],
            C,
        )?;
        family(
            &mut encoder,
            "redbase_failed_regions",
            "Regions down now after a storage I/O error, retrying to reopen their file (/readyz answers 503 while this is not 0)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(e.failed_regions().len() as i64),
            )],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_open_scanners",
            "Scanners open (within their lease), by gateway",
            None,
            self.scanners.iter().map(|(g, count)| {
                (
                    vec![("gateway", g.to_string())],
                    ConstGauge::new(count() as i64),
                )
            }),
            G,
        )?;
        let sb = &self.scanner_bytes;
        family(
            &mut encoder,
            "redbase_scanner_bytes",
            "Bytes open scanners of every gateway hold: filters, keys and columns (budget: redbase_scanner_bytes_max)",
            None,
            [(no_labels.clone(), ConstGauge::new(sb.held() as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_scanner_bytes_max",
            "The byte budget of open scanners (--max-scanner-bytes)",
            None,
            [(no_labels.clone(), ConstGauge::new(sb.total() as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_scanner_refusals",
            "Scanner opens refused, by the bound reached: bytes (--max-scanner-bytes) or count (--max-scanners)",
            None,
            [
                (
                    vec![("bound", "bytes".to_string())],
                    counter(sb.refused_for_bytes()),
                ),
                (
                    vec![("bound", "count".to_string())],
                    counter(sb.refused_for_count()),
                ),
            ],
            C,
        )?;

        let mut tables = Vec::new();
        let mut regions = Vec::new();
        for name in e.list_tables() {
            let table = name.to_string();
            // An offline table has no regions to report; it counts as a table with none.
            let rs = e.regions(&table).unwrap_or_default();
            tables.push((
                vec![("table", table.clone())],
                ConstGauge::new(rs.len() as i64),
            ));
            for r in rs {
                // The start key says which part of the table the region holds, as a bounded
                // label (a region's key may be kilobytes long).
                let start_key = crate::http::status::printable_bounded(
                    &r.meta.start,
                    crate::http::status::KEY_LABEL_CHARS,
                );
                regions.push((
                    vec![
                        ("table", table.clone()),
                        ("region", r.meta.encoded_name()),
                        ("start_key", start_key),
                    ],
                    r,
                ));
            }
        }
        family(
            &mut encoder,
            "redbase_tables",
            "Tables in the catalog",
            None,
            [(no_labels, ConstGauge::new(tables.len() as i64))],
            G,
        )?;
        family(
            &mut encoder,
            "redbase_regions",
            "Regions of each table",
            None,
            tables,
            G,
        )?;
        let per_region = |f: fn(&crate::engine::RegionInfo) -> u64| {
            regions
                .iter()
                .map(move |(l, r)| (l.clone(), counter(f(r))))
                .collect::<Vec<_>>()
        };
        family(
            &mut encoder,
            "redbase_region_size",
            "Bytes of keys and values stored in each region",
            Some(&Unit::Bytes),
            regions
                .iter()
                .map(|(l, r)| (l.clone(), ConstGauge::new(r.size as i64))),
            G,
        )?;
        for (name, help, f) in [
            (
                "redbase_region_reads",
                "Rows read from each region (gets and scanned rows)",
                (|r: &crate::engine::RegionInfo| r.reads) as fn(&crate::engine::RegionInfo) -> u64,
            ),
            (
                "redbase_region_writes",
                "Rows written to each region (a multi-row call counts each row)",
                |r| r.writes,
            ),
            (
                "redbase_region_read_bytes",
                "Bytes read from each region",
                |r| r.read_bytes,
            ),
            (
                "redbase_region_write_bytes",
                "Bytes written to each region",
                |r| r.write_bytes,
            ),
            ("redbase_region_commits", "Commits of each region", |r| {
                r.commits
            }),
        ] {
            family(&mut encoder, name, help, None, per_region(f), C)?;
        }
        Ok(())
    }
}
