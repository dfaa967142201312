//! The null servers: redbase's own transport detection and processor glue
//! (`redbase::thrift::run`, `process_message`) in front of handlers that answer every call with
//! canned replies, so the measured difference to redbase is the work behind the gateway.

mod sync_log;
mod thrift1;
mod thrift2;

use std::net::SocketAddr;
use std::sync::Arc;

use redbase::generated::hbase1::HbaseSyncProcessor;
use redbase::generated::hbase2::THBaseServiceSyncProcessor;
use redbase::thrift::frame::Protocol;
use redbase::thrift::{self as rthrift, process_message, Limits, Service};
use thrift::server::TProcessor;

use crate::cli::{NullArgs, ServiceKind};
use crate::cpu::NULL_THREAD;
use crate::servers::InProc;
use crate::spec::Spec;
use sync_log::SyncLog;

/// A generated processor as a `redbase::thrift::Service`.
struct NullService<P> {
    processor: P,
}

impl<P: TProcessor + Send + Sync + 'static> Service for NullService<P> {
    fn process(&self, message: &[u8], protocol: Protocol) -> Vec<u8> {
        process_message(&self.processor as &dyn TProcessor, message, protocol)
    }
}

/// The null service of the measured gateway; with a sync log, durable puts sync a record.
fn service(spec: &Spec, sync: Option<Arc<SyncLog>>) -> Arc<dyn Service> {
    match spec.service {
        ServiceKind::Thrift2 => Arc::new(NullService {
            processor: THBaseServiceSyncProcessor::new(thrift2::NullHandler::new(spec, sync)),
        }),
        _ => Arc::new(NullService {
            processor: HbaseSyncProcessor::new(thrift1::NullHandler::new(spec, sync)),
        }),
    }
}

/// The null server of the measured gateway, on a loopback port of its own runtime.
pub fn start(spec: &Spec) -> Result<InProc, String> {
    let service = service(spec, None);
    InProc::start(NULL_THREAD, move |l, stop| async move {
        serve_until(l, service, async move {
            let _ = stop.await;
        })
        .await;
    })
}

/// Serves the null service on `l` until `stop` completes.
async fn serve_until(
    l: tokio::net::TcpListener,
    service: Arc<dyn Service>,
    stop: impl std::future::Future,
) {
    rthrift::run(l, service, "null", Limits::default(), Arc::new(()), stop).await;
}

/// `loadgen null-server`: a null server in a process of its own, on a loopback address, until
/// SIGTERM or SIGINT. A benchmark can then give it the same core as the servers it measures
/// (`tests/oracle/bench.sh --pin`): what it serves is the most any server could serve there.
/// With `--sync-file`, each durable put also writes and syncs one record in that file, the
/// least a durable put costs on that disk.
pub fn serve(a: NullArgs) -> Result<bool, String> {
    let spec = Spec::new(&a.client, a.service, a.thrift2_scan)?;
    let addr: SocketAddr = a
        .listen
        .parse()
        .map_err(|e| format!("--listen {}: {e}", a.listen))?;
    if !addr.ip().is_loopback() {
        return Err(format!(
            "--listen {addr}: a null server listens on loopback only"
        ));
    }
    let sync = match &a.sync_file {
        Some(p) => Some(Arc::new(
            SyncLog::create(p).map_err(|e| format!("--sync-file {}: {e}", p.display()))?,
        )),
        None => None,
    };
    let service = service(&spec, sync);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name(NULL_THREAD)
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    rt.block_on(async move {
        let l = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("bind {addr}: {e}"))?;
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .map_err(|e| format!("SIGTERM handler: {e}"))?;
        eprintln!("loadgen: null {} server on {addr}", a.service.name());
        serve_until(l, service, async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        })
        .await;
        Ok(true)
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    use super::*;
    use crate::cli::{OpKind, Workload};
    use crate::phase::run_phase;
    use crate::spec::spec_of;

    const KINDS: [OpKind; 4] = [OpKind::Get, OpKind::GetRow, OpKind::Put, OpKind::Scan];

    /// Every operation of the gateway's driver against its null server on loopback, over
    /// every transport and protocol: the replies pass the driver's checks.
    fn every_op_is_answered(service: ServiceKind, extra: &[&str]) {
        for (transport, protocol) in [
            ("buffered", "binary"),
            ("framed", "compact"),
            ("buffered", "compact"),
            ("framed", "binary"),
        ] {
            let mut flags = vec!["--transport", transport, "--protocol", protocol];
            flags.extend_from_slice(&["--rows", "500", "--scan-rows", "20"]);
            flags.extend_from_slice(extra);
            let spec = spec_of(service, &flags);
            let mut server = start(&spec).expect("null server");
            assert!(server.addr.ip().is_loopback());
            let mut session = spec.session(server.addr).expect("connect");
            let mut rng = SmallRng::seed_from_u64(1);
            for kind in KINDS {
                spec.op(&mut session, kind, &mut rng)
                    .unwrap_or_else(|e| panic!("{kind:?} over {transport}/{protocol}: {e}"));
            }
            spec.prepare(server.addr)
                .expect("preload against the null server");
            spec.check_loaded(server.addr)
                .expect("the last row is there");
            server.stop();
        }
    }

    #[test]
    fn the_thrift1_null_server_answers_every_operation() {
        every_op_is_answered(ServiceKind::Thrift1, &[]);
    }

    #[test]
    fn the_thrift2_null_server_answers_every_operation() {
        every_op_is_answered(ServiceKind::Thrift2, &[]);
        every_op_is_answered(ServiceKind::Thrift2, &["--thrift2-scan", "results"]);
    }

    #[test]
    fn a_phase_against_the_null_server_counts_operations_and_latencies() {
        let spec = Arc::new(spec_of(ServiceKind::Thrift1, &["--rows", "500"]));
        let server = start(&spec).expect("null server");
        let s = run_phase(
            server.addr,
            &spec,
            Workload::Mix,
            2,
            Duration::from_millis(300),
            42,
        );
        assert_eq!(s.errors, 0, "{:?}", s.first_error);
        assert!(s.ops > 0);
        assert_eq!(s.latency.len(), s.ops);
        assert!(s.rate() > 0.0);
        assert!(s.pct(50.0) > 0.0 && s.pct(50.0) <= s.pct(99.0));
    }
}
