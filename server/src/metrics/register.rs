//! The families the server registers at start and updates as calls happen: requests and their
//! latency by gateway and method, connections, the REST API's requests and streams, the
//! refusals of the native and ZooKeeper listeners, the HTTP listener's bounds; and the
//! histograms the engine fills (split, compaction and drain pauses, backups).

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use super::collector::EngineCollector;
use super::{
    CallLabels, GatewayLabels, MethodLabels, Metrics, ReasonLabels, RestLabels, RestMethodLabels,
    ScannerCount, LATENCY_BUCKETS,
};
use crate::engine::Engine;
use crate::scanners::ScannerBytes;

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
        let native_heartbeats = Counter::default();
        registry.register(
            "redbase_native_scan_heartbeats",
            "Native scan answers sent as heartbeats: the call's time limit (half the shorter of the scanner lease and the call's timeout) ran out before the answer filled, so it carried what it had",
            native_heartbeats.clone(),
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
            native_heartbeats,
            zookeeper_refused,
        }
    }
}
