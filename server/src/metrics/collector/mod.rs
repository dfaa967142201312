//! The families read at scrape time from the engine's, the budgets' and the scanners' own
//! counters ([`EngineCollector`]), so the hot paths pay nothing for them: engine-wide figures
//! ([`engine`]), the request-side bounds ([`limits`]), tables and regions ([`tables`]).

mod engine;
mod limits;
mod tables;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::registry::Unit;

use super::ScannerCount;
use crate::engine::Engine;
use crate::scanners::ScannerBytes;

/// Reads the engine's and the scanners' own counters at scrape time.
pub(super) struct EngineCollector {
    pub(super) engine: Engine,
    pub(super) scanners: Vec<(&'static str, ScannerCount)>,
    pub(super) scanner_bytes: ScannerBytes,
    pub(super) budget: crate::thrift::Budget,
    pub(super) inline: crate::thrift::InlineCalls,
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
        self.engine_work(&mut encoder)?;
        self.request_budgets(&mut encoder)?;
        self.engine_state(&mut encoder)?;
        self.scanner_families(&mut encoder)?;
        self.table_families(&mut encoder)
    }
}
