//! What reports into [`Metrics`] as the server runs: each gateway's accept loop and
//! connections ([`GatewayObserver`]) and each streamed REST answer ([`RestStream`]).

use std::sync::Arc;
use std::time::Duration;

use super::{CallLabels, GatewayLabels, MethodLabels, Metrics};
use crate::thrift::frame::Protocol;
use crate::thrift::outcome;
use crate::thrift::Observer;

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

impl Metrics {
    /// A streamed REST answer began; the guard counts it open until dropped, and as cut when
    /// dropped without [`RestStream::finished`].
    pub fn rest_stream(self: &Arc<Self>) -> RestStream {
        self.rest_streams.inc();
        RestStream {
            metrics: self.clone(),
            finished: false,
        }
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
}
