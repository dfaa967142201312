//! The `memory` subcommand: what REST bodies and open scanners cost the real `redbase serve`
//! binary in memory. Each measurement starts a fresh server, reads its resident set (VmRSS),
//! resets its peak (`/proc/PID/clear_refs`, 5), does one thing, and reads the peak (VmHWM):
//!
//! - `body`: one cell set of N MiB (JSON, XML or protobuf) written with PUT;
//! - `stalled`: K connections each send all but the last byte of an N MiB cell set, then wait;
//! - `scanners`: S scanners opened with a filter of F bytes on one gateway (REST, Thrift1,
//!   Thrift2), counting the opens refused.
//!
//! Peak memory is a property of a build, not a pass/fail test, so it lives here, not in tests.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use clap::{Args, ValueEnum};

use crate::servers::free_port;

#[derive(Args, Debug, Clone)]
pub struct MemoryArgs {
    /// The redbase binary (default: `redbase` next to this executable).
    #[arg(long)]
    pub bin: Option<PathBuf>,
    /// What to measure, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = vec![Part::Body, Part::Stalled, Part::Scanners])]
    pub parts: Vec<Part>,
    /// Body sizes of the `body` part, in MiB, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1usize, 8, 32, 60])]
    pub sizes: Vec<usize>,
    /// Body representations of the `body` part, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = vec![Format::Json, Format::Xml, Format::Protobuf])]
    pub formats: Vec<Format>,
    /// Bytes of each cell's value.
    #[arg(long, default_value_t = 1024)]
    pub value_size: usize,
    /// Cells per row.
    #[arg(long, default_value_t = 10)]
    pub cells_per_row: usize,
    /// Connections of the `stalled` part.
    #[arg(long, default_value_t = 8)]
    pub stalled: usize,
    /// Body size of each stalled upload, in MiB.
    #[arg(long, default_value_t = 60)]
    pub stalled_size: usize,
    /// Scanners opened per gateway in the `scanners` part.
    #[arg(long, default_value_t = 300)]
    pub scanners: usize,
    /// Bytes of each scanner's filter value.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub filter_size: usize,
    /// Write the cell sets to a table that does not exist: the body is read and decoded, then
    /// refused (404), so the figures leave out what the engine holds for a write.
    #[arg(long)]
    pub decode_only: bool,
    /// More `redbase serve` flags, e.g. `--max-inflight-bytes=...` (repeatable).
    #[arg(long = "server-arg", allow_hyphen_values = true)]
    pub server_args: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Part {
    Body,
    Stalled,
    Scanners,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Xml,
    Protobuf,
}

impl Format {
    fn mime(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Xml => "text/xml",
            Format::Protobuf => "application/x-protobuf",
        }
    }
}

const MIB: usize = 1024 * 1024;
const TABLE: &str = "memory";

/// (VmRSS, VmHWM) of a process, in KiB.
fn rss_kib(pid: u32) -> Result<(u64, u64), String> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    let field = |name: &str| {
        s.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Ok((field("VmRSS:"), field("VmHWM:")))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// One `redbase serve` on fresh ports and a fresh data directory.
struct Server {
    child: std::process::Child,
    http: SocketAddr,
    thrift1: SocketAddr,
    thrift2: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start(bin: &Path, extra: &[String]) -> Result<Server, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let addr = |p: u16| SocketAddr::from(([127, 0, 0, 1], p));
        let (http, thrift1, thrift2) = (addr(free_port()?), addr(free_port()?), addr(free_port()?));
        let log =
            std::fs::File::create(dir.path().join("server.log")).map_err(|e| e.to_string())?;
        let child = Command::new(bin)
            .arg("serve")
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .arg("--http-addr")
            .arg(http.to_string())
            .arg("--thrift1-addr")
            .arg(thrift1.to_string())
            .arg("--thrift2-addr")
            .arg(thrift2.to_string())
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        let mut s = Server {
            child,
            http,
            thrift1,
            thrift2,
            _dir: dir,
        };
        let t0 = Instant::now();
        loop {
            if let Ok(Some(st)) = s.child.try_wait() {
                return Err(format!("redbase exited during start-up: {st}"));
            }
            if t0.elapsed() > Duration::from_secs(60) {
                return Err("redbase did not answer within 60 s".into());
            }
            if http_call(s.http, "GET", "/healthz", &[], &[]).is_ok_and(|(st, _)| st == 200) {
                break;
            }
            thread::sleep(Duration::from_millis(20));
        }
        let schema = format!(
            "{{\"name\":\"{TABLE}\",\"ColumnSchema\":[{{\"name\":\"f\",\"VERSIONS\":\"1\"}}]}}"
        );
        let (st, body) = http_call(
            s.http,
            "PUT",
            &format!("/{TABLE}/schema"),
            &[("Content-Type", "application/json")],
            schema.as_bytes(),
        )?;
        if st != 201 {
            return Err(format!(
                "create table: {st} {}",
                String::from_utf8_lossy(&body)
            ));
        }
        s.settle();
        Ok(s)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Lets the allocator and background threads settle before a reading.
    fn settle(&self) {
        thread::sleep(Duration::from_millis(500));
    }

    /// The resident set now, with the peak reset to it.
    fn baseline(&self) -> Result<u64, String> {
        std::fs::write(format!("/proc/{}/clear_refs", self.pid()), "5")
            .map_err(|e| format!("cannot reset the peak RSS: {e}"))?;
        Ok(rss_kib(self.pid())?.0)
    }

    fn peak(&self) -> Result<u64, String> {
        Ok(rss_kib(self.pid())?.1)
    }

    fn now(&self) -> Result<u64, String> {
        Ok(rss_kib(self.pid())?.0)
    }

    fn metric(&self, name: &str) -> Result<f64, String> {
        let (_, body) = http_call(self.http, "GET", "/metrics", &[], &[])?;
        let text = String::from_utf8_lossy(&body).into_owned();
        text.lines()
            .find(|l| l.split([' ', '{']).next() == Some(name))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse::<f64>().ok())
            .ok_or_else(|| format!("no metric {name}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 exchange on a connection of its own: (status, body).
fn http_call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<(u16, Vec<u8>), String> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .map_err(|e| format!("connect {addr}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(600)))
        .map_err(|e| e.to_string())?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
    // A server that answers before taking the whole body (a refusal) may close early.
    let _ = s.write_all(body);
    let mut out = Vec::new();
    s.read_to_end(&mut out).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse::<u16>().ok())
        .ok_or_else(|| format!("no HTTP status in {:?}", &text[..text.len().min(200)]))?;
    let start = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(out.len(), |i| i + 4);
    Ok((status, out[start..].to_vec()))
}

/// A varint-prefixed protobuf field.
fn pb_field(out: &mut Vec<u8>, tag: u32, bytes: &[u8]) {
    let mut v = u64::from((tag << 3) | 2);
    let push = |mut n: u64, out: &mut Vec<u8>| loop {
        if n < 0x80 {
            out.push(n as u8);
            break;
        }
        out.push((n as u8) | 0x80);
        n >>= 7;
    };
    push(v, out);
    v = bytes.len() as u64;
    push(v, out);
    out.extend_from_slice(bytes);
}

/// A cell set of about `size` bytes in `format`: rows of `cells` cells of `value` bytes.
pub fn cell_set(format: Format, size: usize, value: usize, cells: usize) -> Vec<u8> {
    let v: Vec<u8> = (0..value).map(|i| (i * 31 % 251) as u8).collect();
    let v64 = STANDARD.encode(&v);
    let mut out = Vec::with_capacity(size + 64 * 1024);
    let mut row = 0u64;
    match format {
        Format::Json => out.extend_from_slice(b"{\"Row\":["),
        Format::Xml => out.extend_from_slice(
            b"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><CellSet>",
        ),
        Format::Protobuf => {}
    }
    while out.len() < size {
        let key = format!("r{row:010}");
        let key64 = STANDARD.encode(key.as_bytes());
        match format {
            Format::Json => {
                if row > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(format!("{{\"key\":\"{key64}\",\"Cell\":[").as_bytes());
                for c in 0..cells {
                    if c > 0 {
                        out.push(b',');
                    }
                    let col = STANDARD.encode(format!("f:q{c}").as_bytes());
                    out.extend_from_slice(
                        format!("{{\"column\":\"{col}\",\"$\":\"{v64}\"}}").as_bytes(),
                    );
                }
                out.extend_from_slice(b"]}");
            }
            Format::Xml => {
                out.extend_from_slice(format!("<Row key=\"{key64}\">").as_bytes());
                for c in 0..cells {
                    let col = STANDARD.encode(format!("f:q{c}").as_bytes());
                    out.extend_from_slice(
                        format!("<Cell column=\"{col}\">{v64}</Cell>").as_bytes(),
                    );
                }
                out.extend_from_slice(b"</Row>");
            }
            Format::Protobuf => {
                let mut r = Vec::new();
                pb_field(&mut r, 1, key.as_bytes());
                for c in 0..cells {
                    let mut cell = Vec::new();
                    pb_field(&mut cell, 2, format!("f:q{c}").as_bytes());
                    pb_field(&mut cell, 4, &v);
                    pb_field(&mut r, 2, &cell);
                }
                pb_field(&mut out, 1, &r);
            }
        }
        row += 1;
    }
    match format {
        Format::Json => out.extend_from_slice(b"]}"),
        Format::Xml => out.extend_from_slice(b"</CellSet>"),
        Format::Protobuf => {}
    }
    out
}

/// One cell set written: peak RSS above the baseline.
fn body(a: &MemoryArgs, bin: &Path, format: Format, size_mib: usize) -> Result<String, String> {
    let doc = cell_set(format, size_mib * MIB, a.value_size, a.cells_per_row);
    let s = Server::start(bin, &a.server_args)?;
    let base = s.baseline()?;
    let t = Instant::now();
    let table = if a.decode_only { "absent" } else { TABLE };
    let (st, reply) = http_call(
        s.http,
        "PUT",
        &format!("/{table}/fakerow"),
        &[("Content-Type", format.mime())],
        &doc,
    )?;
    let took = t.elapsed();
    let peak = s.peak()?;
    let grown = peak.saturating_sub(base);
    let body_mib = doc.len() as f64 / MIB as f64;
    Ok(format!(
        "| {format:?} | {body_mib:.1} | {st} {} | {:.0} | {:.0} | {:.1}x | {:.2} |",
        String::from_utf8_lossy(&reply)
            .trim()
            .lines()
            .next()
            .unwrap_or(""),
        mib(base),
        mib(grown),
        mib(grown) / body_mib,
        took.as_secs_f64()
    ))
}

/// K uploads that stop one byte short: the resident set while they wait.
fn stalled(a: &MemoryArgs, bin: &Path) -> Result<String, String> {
    let size = a.stalled_size * MIB;
    let doc = cell_set(Format::Json, size, a.value_size, a.cells_per_row);
    let s = Server::start(bin, &a.server_args)?;
    let base = s.baseline()?;
    let mut conns = Vec::new();
    for _ in 0..a.stalled {
        let mut c = TcpStream::connect(s.http).map_err(|e| e.to_string())?;
        c.set_write_timeout(Some(Duration::from_secs(20)))
            .map_err(|e| e.to_string())?;
        let head = format!(
            "PUT /{TABLE}/fakerow HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            doc.len()
        );
        c.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
        conns.push(c);
    }
    // Each sender in a thread of its own: a server that does not read blocks its writes.
    let doc = std::sync::Arc::new(doc);
    for c in &conns {
        let mut c = c.try_clone().map_err(|e| e.to_string())?;
        let doc = doc.clone();
        // Ends when the server answers and closes, or at the write timeout.
        thread::spawn(move || c.write_all(&doc[..doc.len() - 1]).is_ok());
    }
    thread::sleep(Duration::from_secs(8));
    let now = s.now()?;
    let peak = s.peak()?;
    let mut answered = Vec::new();
    for c in &conns {
        c.set_nonblocking(true).map_err(|e| e.to_string())?;
        let mut buf = [0u8; 64];
        if let Ok(n) = (&*c).read(&mut buf) {
            let head = String::from_utf8_lossy(&buf[..n]).into_owned();
            answered.push(head.split_whitespace().nth(1).unwrap_or("?").to_string());
        }
    }
    let held = s.metric("redbase_inflight_bytes").unwrap_or(f64::NAN);
    drop(conns);
    let answered = if answered.is_empty() {
        "none".to_string()
    } else {
        format!("{} ({})", answered.len(), answered.join(", "))
    };
    Ok(format!(
        "| {} x {} MiB | {:.0} | {:.0} | {:.0} | {answered} | {:.0} |",
        a.stalled,
        a.stalled_size,
        mib(base),
        mib(now.saturating_sub(base)),
        mib(peak.saturating_sub(base)),
        held / MIB as f64
    ))
}

/// S scanners with a filter of F bytes on one gateway: resident set per scanner.
fn scanners(a: &MemoryArgs, bin: &Path, gateway: &str) -> Result<String, String> {
    use redbase::generated::{hbase1, hbase2};
    let s = Server::start(bin, &a.server_args)?;
    let base = s.baseline()?;
    let value = vec![b'x'; a.filter_size];
    let text = format!(
        "ValueFilter(=, 'binary:{}')",
        String::from_utf8_lossy(&value)
    );
    let (mut opened, mut refused, mut first_error) = (0usize, 0usize, String::new());
    let mut note = |r: Result<(), String>| match r {
        Ok(()) => opened += 1,
        Err(e) => {
            refused += 1;
            if first_error.is_empty() {
                first_error = e;
            }
        }
    };
    let t = Instant::now();
    match gateway {
        "rest" => {
            let filter = format!(
                "{{\"type\":\"ValueFilter\",\"op\":\"EQUAL\",\"comparator\":{{\"type\":\"BinaryComparator\",\"value\":\"{}\"}}}}",
                STANDARD.encode(&value)
            );
            let model = format!("{{\"filter\":{}}}", serde_json_string(&filter));
            for _ in 0..a.scanners {
                note(
                    http_call(
                        s.http,
                        "PUT",
                        &format!("/{TABLE}/scanner"),
                        &[("Content-Type", "application/json")],
                        model.as_bytes(),
                    )
                    .and_then(|(st, b)| {
                        if st == 201 {
                            Ok(())
                        } else {
                            Err(format!("{st} {}", String::from_utf8_lossy(&b).trim()))
                        }
                    }),
                );
            }
        }
        "thrift1" => {
            use hbase1::THbaseSyncClient;
            let (i, o) = crate::spec::open_protocols(
                s.thrift1,
                crate::cli::TransportKind::Buffered,
                crate::cli::ProtocolKind::Binary,
            )?;
            let mut c = hbase1::HbaseSyncClient::new(i, o);
            for _ in 0..a.scanners {
                let scan = hbase1::TScan {
                    filter_string: Some(text.clone().into_bytes()),
                    ..Default::default()
                };
                note(
                    c.scanner_open_with_scan(TABLE.into(), scan, Default::default())
                        .map(|_| ())
                        .map_err(|e| format!("{e:?}")),
                );
            }
        }
        _ => {
            use hbase2::TTHBaseServiceSyncClient;
            let (i, o) = crate::spec::open_protocols(
                s.thrift2,
                crate::cli::TransportKind::Buffered,
                crate::cli::ProtocolKind::Binary,
            )?;
            let mut c = hbase2::THBaseServiceSyncClient::new(i, o);
            for _ in 0..a.scanners {
                let scan = hbase2::TScan {
                    filter_string: Some(text.clone().into_bytes()),
                    filter_bytes: None,
                    ..Default::default()
                };
                note(
                    c.open_scanner(TABLE.into(), scan)
                        .map(|_| ())
                        .map_err(|e| format!("{e:?}")),
                );
            }
        }
    }
    let took = t.elapsed();
    s.settle();
    let now = s.now()?;
    let held = s.metric("redbase_scanner_bytes").unwrap_or(f64::NAN);
    let grown = now.saturating_sub(base);
    let per = if opened > 0 {
        format!("{:.2}", mib(grown) / opened as f64)
    } else {
        "-".into()
    };
    let first_error: String = first_error.replace("\r\n", " ").chars().take(90).collect();
    Ok(format!(
        "| {gateway} | {} | {opened} | {refused} | {:.0} | {per} | {:.0} | {:.1} | {first_error} |",
        a.scanners,
        mib(grown),
        held / MIB as f64,
        took.as_secs_f64()
    ))
}

/// `s` as a JSON string literal (the filter is ASCII with quotes only).
fn serde_json_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

pub fn memory(a: MemoryArgs) -> Result<bool, String> {
    let bin = match &a.bin {
        Some(b) => b.clone(),
        None => std::env::current_exe()
            .map_err(|e| e.to_string())?
            .with_file_name("redbase"),
    };
    if a.parts.contains(&Part::Body) {
        let what = if a.decode_only {
            "sent with PUT to a table that does not exist (read and decoded, then 404)"
        } else {
            "written with PUT"
        };
        println!(
            "\nOne cell set {what} (values {} B, {} cells a row): peak RSS above the idle server",
            a.value_size, a.cells_per_row
        );
        println!("| format | body MiB | answer | idle RSS MiB | peak growth MiB | growth / body | seconds |");
        println!("| --- | --- | --- | --- | --- | --- | --- |");
        for f in &a.formats {
            for size in &a.sizes {
                println!("{}", body(&a, &bin, *f, *size)?);
            }
        }
    }
    if a.parts.contains(&Part::Stalled) {
        println!("\nUploads stalled one byte short of their end, 8 s after they began");
        println!("| uploads | idle RSS MiB | RSS growth MiB | peak growth MiB | answered early (status) | in-flight budget held MiB |");
        println!("| --- | --- | --- | --- | --- | --- |");
        println!("{}", stalled(&a, &bin)?);
    }
    if a.parts.contains(&Part::Scanners) {
        println!(
            "\nScanners opened with a {} B filter value, one server per gateway",
            a.filter_size
        );
        println!("| gateway | asked | opened | refused | RSS growth MiB | MiB per open scanner | scanner budget held MiB | seconds | first refusal |");
        println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for g in ["rest", "thrift1", "thrift2"] {
            println!("{}", scanners(&a, &bin, g)?);
        }
    }
    Ok(true)
}
