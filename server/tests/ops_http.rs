//! The operations listener in-process on 127.0.0.1:0: probes answer, readiness follows the
//! server's state, `redbase healthcheck`'s probe agrees, and the listener closes with the
//! server. (The Python suite tests/ops covers metrics, the status page and logs end to end.)

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use redbase::cli::healthcheck::{self, HealthError};
use redbase::engine::{Engine, EngineConfig};
use redbase::metrics::Metrics;
use redbase::server::{self, Config, Listeners};

/// Status code and body of `GET path` over plain HTTP/1.0.
fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(s, "GET {path} HTTP/1.0\r\nHost: test\r\n\r\n").expect("send");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("read");
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status line");
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (code, body.to_string())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().expect("runtime")
}

#[test]
fn readiness_follows_the_flag_and_healthz_does_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("engine");
    let rt = runtime();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let ready = Arc::new(AtomicBool::new(false));
    let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let metrics = Arc::new(Metrics::new(
        engine.clone(),
        Vec::new(),
        &redbase::thrift::Limits::default(),
    ));
    let task = rt.spawn(redbase::http::run(
        listener,
        engine.clone(),
        metrics,
        ready.clone(),
        async move {
            let _ = stop_rx.await;
        },
    ));

    let (code, body) = get(addr, "/readyz");
    assert_eq!(code, 503, "{body}");
    assert_eq!(get(addr, "/healthz"), (200, "ok\n".to_string()));
    ready.store(true, Ordering::Release);
    assert_eq!(get(addr, "/readyz"), (200, "ready\n".to_string()));
    assert!(rt
        .block_on(healthcheck::check(addr, Duration::from_secs(5)))
        .is_ok());

    let _ = stop.send(());
    rt.block_on(task).expect("http task");
    engine.close();
}

#[test]
fn the_listener_serves_with_the_gateways_and_closes_with_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("engine");
    let rt = runtime();
    let (t1, http) = rt.block_on(async {
        (
            tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind"),
            tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind"),
        )
    });
    let addr = http.local_addr().expect("addr");
    let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let task = rt.spawn(server::run(
        engine.clone(),
        Listeners {
            thrift1: Some(t1),
            thrift2: None,
            http: Some(http),
        },
        Config::default(),
        async move {
            let _ = stop_rx.await;
        },
    ));
    assert_eq!(get(addr, "/readyz").0, 200);
    let (code, text) = get(addr, "/metrics");
    assert_eq!(code, 200);
    assert!(text.contains("redbase_open_connections{gateway=\"thrift1\"} 0"));
    assert!(
        !text.contains("gateway=\"thrift2\""),
        "thrift2 is not served"
    );
    assert!(text.ends_with("# EOF\n"));
    let (code, status) = get(addr, "/api/status");
    assert_eq!(code, 200);
    let status: serde_json::Value = serde_json::from_str(&status).expect("json");
    assert_eq!(status["ready"], serde_json::Value::Bool(true));
    assert_eq!(status["tables"], serde_json::json!([]));

    let _ = stop.send(());
    rt.block_on(task).expect("server task");
    engine.close();
    match rt.block_on(healthcheck::check(addr, Duration::from_secs(5))) {
        Err(HealthError::Connect { .. }) => {}
        other => panic!("the listener should be closed after shutdown, got {other:?}"),
    }
}
