//! What the backup tests share: the real binary, `redbase serve` on loopback ports (Thrift2
//! and the operations listener), a Thrift2 client, and cell-by-cell comparison of data dirs.
#![allow(dead_code)]

#[path = "../cli_support/mod.rs"]
mod cli;
// Not every test file uses every helper.
#[allow(unused_imports)]
pub use cli::{fails, free_port, ok, redbase, text};

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use redbase::engine::{Engine, EngineConfig, ReadOptions, Scan};
use redbase::generated::hbase2 as h2;
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{ReadHalf, TIoChannel, TTcpChannel, WriteHalf};

pub type Client = h2::THBaseServiceSyncClient<
    TBinaryInputProtocol<ReadHalf<TTcpChannel>>,
    TBinaryOutputProtocol<WriteHalf<TTcpChannel>>,
>;

/// `redbase serve` (Thrift2 and HTTP) on a data dir; SIGTERM when dropped, or [`Server::kill`].
pub struct Server {
    child: Child,
    pub thrift2: String,
    pub http: String,
    pub dir: PathBuf,
    done: bool,
}

impl Server {
    pub fn start(dir: &Path) -> Server {
        Server::start_with(dir, &[])
    }

    /// With more `redbase serve` flags (an auth file, read-only mode).
    pub fn start_with(dir: &Path, flags: &[&str]) -> Server {
        let (t2, http) = (free_port(), free_port());
        let thrift2 = format!("127.0.0.1:{t2}");
        let http = format!("127.0.0.1:{http}");
        let child = redbase()
            .args(["serve", "--gateways", "thrift2", "--thrift2-addr", &thrift2])
            .args(["--http-addr", &http, "--data-dir"])
            .arg(dir)
            .args(flags)
            .stdout(Stdio::null())
            // The server's log beside its data dir, for a failure's post-mortem.
            .stderr(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(dir.with_extension("log"))
                    .map(Stdio::from)
                    .unwrap_or_else(|_| Stdio::null()),
            )
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(&thrift2).is_err() || TcpStream::connect(&http).is_err() {
            assert!(Instant::now() < deadline, "the server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Server {
            child,
            thrift2,
            http,
            dir: dir.to_path_buf(),
            done: false,
        }
    }

    pub fn client(&self) -> Client {
        let mut c = TTcpChannel::new();
        c.open(&self.thrift2).unwrap();
        let (r, w) = c.split().unwrap();
        h2::THBaseServiceSyncClient::new(
            TBinaryInputProtocol::new(r, true),
            TBinaryOutputProtocol::new(w, true),
        )
    }

    /// `redbase backup --to dir` against this server.
    pub fn backup(&self, dir: &Path) -> Output {
        redbase()
            .args(["backup", "--http-addr", &self.http, "--to"])
            .arg(dir)
            .output()
            .unwrap()
    }

    /// `redbase backup` with a Bearer token (REDBASE_TOKEN), or none.
    pub fn backup_as(&self, dir: &Path, token: Option<&str>) -> Output {
        let mut c = redbase();
        c.args(["backup", "--http-addr", &self.http, "--to"])
            .arg(dir);
        c.env_remove("REDBASE_TOKEN");
        if let Some(t) = token {
            c.env("REDBASE_TOKEN", t);
        }
        c.output().unwrap()
    }

    pub fn backup_child(&self, dir: &Path) -> Child {
        redbase()
            .args(["backup", "--http-addr", &self.http, "--to"])
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// The operations listener's /metrics text.
    pub fn metrics(&self) -> String {
        use std::io::{Read, Write};
        let mut s = TcpStream::connect(&self.http).unwrap();
        write!(
            s,
            "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    /// SIGKILL: the server gets no chance to clean up.
    pub fn kill(mut self) {
        self.done = true;
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.terminate();
    }
}

pub fn restore(from: &Path, to: &Path) -> Output {
    redbase()
        .args(["restore", "--from"])
        .arg(from)
        .arg("--data-dir")
        .arg(to)
        .output()
        .unwrap()
}

/// Every file under `dir`, relative, sorted.
pub fn files(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Every cell of every table of a data dir: (table, row, family, qualifier, ts, value).
pub type CellRow = (String, Vec<u8>, Vec<u8>, Vec<u8>, i64, Vec<u8>);

pub fn all_cells(dir: &Path) -> Vec<CellRow> {
    let e = Engine::open(dir, EngineConfig::default()).unwrap();
    assert!(e.offline_tables().is_empty(), "{:?}", e.offline_tables());
    let mut out = Vec::new();
    for t in e.list_tables() {
        let name = t.to_string();
        if !e.is_table_enabled(&name).unwrap() {
            continue;
        }
        let mut scan = Scan::new();
        scan.options = ReadOptions {
            max_versions: 1000,
            ..Default::default()
        };
        for row in e.scan(&name, scan).unwrap() {
            for c in row.unwrap().to_cells() {
                out.push((
                    name.clone(),
                    c.row.to_vec(),
                    c.family.to_vec(),
                    c.qualifier.to_vec(),
                    c.timestamp,
                    c.value.to_vec(),
                ));
            }
        }
    }
    e.close();
    out
}
