//! The REST tests' harness: a real server (`server::run`, the operations listener on a
//! loopback port) with a real HTTP client (ureq), and helpers to create tables and put cells.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use redbase::engine::{Engine, EngineConfig};
use redbase::server::{self, Config, Listeners};
use serde_json::{json, Value};

pub struct Server {
    pub addr: SocketAddr,
    pub agent: ureq::Agent,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    rt: tokio::runtime::Runtime,
    pub engine: Engine,
    _dir: tempfile::TempDir,
}

pub struct Reply {
    pub status: u16,
    pub headers: ureq::http::HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
    pub fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    }
}

/// An agent as the tests use it: HTTP error statuses are answers, not errors.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// One HTTP exchange with the listener at `addr`.
pub fn call_at(
    agent: &ureq::Agent,
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Reply {
    let mut b = ureq::http::Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"));
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let req = b.body(body).expect("request");
    let mut resp = agent.run(req).expect("HTTP exchange");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp
        .body_mut()
        .with_config()
        .limit(128 * 1024 * 1024)
        .read_to_vec()
        .unwrap_or_default();
    Reply {
        status,
        headers,
        body,
    }
}

pub fn b64(s: &[u8]) -> String {
    STANDARD.encode(s)
}

pub fn unb64(v: &Value) -> Vec<u8> {
    STANDARD
        .decode(v.as_str().expect("base64 string"))
        .expect("base64")
}

impl Server {
    pub fn start(config: Config) -> Server {
        let dir = tempfile::tempdir().expect("tempdir");
        let engine = Engine::open(dir.path(), EngineConfig::default()).expect("engine");
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        let http = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind");
        let addr = http.local_addr().expect("addr");
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let task = rt.spawn(server::run(
            engine.clone(),
            Listeners {
                http: Some(http),
                ..Default::default()
            },
            config,
            async move {
                let _ = stop_rx.await;
            },
        ));
        let agent = agent();
        Server {
            addr,
            agent,
            stop: Some(stop),
            task: Some(task),
            rt,
            engine,
            _dir: dir,
        }
    }

    pub fn call(&self, method: &str, path: &str, headers: &[(&str, &str)], body: Vec<u8>) -> Reply {
        call_at(&self.agent, self.addr, method, path, headers, body)
    }

    pub fn get(&self, path: &str, accept: &str) -> Reply {
        self.call("GET", path, &[("Accept", accept)], Vec::new())
    }

    pub fn send_json(&self, method: &str, path: &str, v: &Value) -> Reply {
        self.call(
            method,
            path,
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
            ],
            v.to_string().into_bytes(),
        )
    }

    pub fn create_table(&self, table: &str, families: &[&str]) {
        let cols: Vec<Value> = families
            .iter()
            .map(|f| json!({"name": f, "VERSIONS": "5"}))
            .collect();
        let r = self.send_json(
            "PUT",
            &format!("/{table}/schema"),
            &json!({"name": table, "ColumnSchema": cols}),
        );
        assert_eq!(r.status, 201, "{}", r.text());
    }

    pub fn put_cell(&self, table: &str, row: &str, column: &str, ts: Option<i64>, value: &str) {
        let mut cell = json!({"column": b64(column.as_bytes()), "$": b64(value.as_bytes())});
        if let Some(ts) = ts {
            cell["timestamp"] = json!(ts);
        }
        let r = self.send_json(
            "PUT",
            &format!("/{table}/{row}"),
            &json!({"Row": [{"key": b64(row.as_bytes()), "Cell": [cell]}]}),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = self.rt.block_on(t);
        }
        self.engine.close();
    }
}

/// The cells of a JSON cell set as (row, column, timestamp, value) text.
pub fn cells(v: &Value) -> Vec<(String, String, i64, String)> {
    let mut out = Vec::new();
    for row in v["Row"].as_array().expect("Row list") {
        let key = String::from_utf8(unb64(&row["key"])).expect("utf8");
        for c in row["Cell"].as_array().expect("Cell list") {
            out.push((
                key.clone(),
                String::from_utf8(unb64(&c["column"])).expect("utf8"),
                c["timestamp"].as_i64().expect("timestamp"),
                String::from_utf8_lossy(&unb64(&c["$"])).into_owned(),
            ));
        }
    }
    out
}
