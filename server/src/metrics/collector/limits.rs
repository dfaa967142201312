//! The request-side bounds the gateways share: the in-flight byte budget, inline calls, and
//! open scanners with their byte budget.

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

use super::{family, EngineCollector, Labels};

impl EngineCollector {
    /// The in-flight byte budget and the inline calls.
    pub(super) fn request_budgets(&self, encoder: &mut DescriptorEncoder) -> std::fmt::Result {
        use prometheus_client::metrics::MetricType::{Counter as C, Gauge as G};
        let counter = |v: u64| ConstCounter::new(v);
        let no_labels: Labels = Vec::new();
        let b = &self.budget;
        family(
            encoder,
            "redbase_inflight_bytes",
            "Bytes held for requests being received, processed and answered (budget: redbase_inflight_bytes_max)",
            None,
            [(no_labels.clone(), ConstGauge::new(b.held() as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_inflight_bytes_max",
            "The in-flight byte budget (--max-inflight-bytes)",
            None,
            [(no_labels.clone(), ConstGauge::new(b.total() as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_inflight_refusals",
            "Connections refused because the in-flight byte budget could not hold their message",
            None,
            [(no_labels.clone(), counter(b.refused()))],
            C,
        )?;
        family(
            encoder,
            "redbase_inline_calls",
            "Short reads (gets) answered on a connection's runtime worker rather than a call thread",
            None,
            [(no_labels.clone(), counter(self.inline.count()))],
            C,
        )?;
        family(
            encoder,
            "redbase_inline_calls_max",
            "Short reads that may run on runtime workers at once (--max-inline-calls)",
            None,
            [(no_labels.clone(), ConstGauge::new(self.inline.cap() as i64))],
            G,
        )?;
        Ok(())
    }

    /// Open scanners by gateway, their byte budget and the opens refused at a bound.
    pub(super) fn scanner_families(&self, encoder: &mut DescriptorEncoder) -> std::fmt::Result {
        use prometheus_client::metrics::MetricType::{Counter as C, Gauge as G};
        let counter = |v: u64| ConstCounter::new(v);
        let no_labels: Labels = Vec::new();
        family(
            encoder,
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
            encoder,
            "redbase_scanner_bytes",
            "Bytes open scanners of every gateway hold: filters, keys and columns (budget: redbase_scanner_bytes_max)",
            None,
            [(no_labels.clone(), ConstGauge::new(sb.held() as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_scanner_bytes_max",
            "The byte budget of open scanners (--max-scanner-bytes)",
            None,
            [(no_labels.clone(), ConstGauge::new(sb.total() as i64))],
            G,
        )?;
        family(
            encoder,
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
        Ok(())
    }
}
