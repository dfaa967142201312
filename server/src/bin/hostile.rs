//! `hostile`: a long hostile run against a running redbase on loopback.
//!
//! It starts no server. It opens many connections to the Thrift1 and Thrift2 ports it is
//! given (loopback addresses only; anything else is refused) and sends messages over every
//! transport (buffered, framed, HTTP) and protocol (binary, compact): valid calls from the seed
//! corpus (`server/tests/fuzz_corpus/`), mutated calls, the known crashers and random bytes.
//! For each message it predicts, with the server's own frame walker, what the server must do:
//! answer it (a whole, well-formed REPLY or EXCEPTION naming the call) or close the
//! connection (bytes no transport or protocol claims, a message cut short). Anything else is
//! counted: no answer and no close within `--reply-timeout-secs` is a hang, a close where an
//! answer was due is an unanswered message, a reply that is not one whole message is a bad
//! reply, a refused connection is a connect error (the server died: the run stops).
//!
//! The run stops by itself after `--messages` messages or `--time-limit-secs`, whichever comes
//! first, and prints the counts (and, with `--pid`, the server's RSS) every
//! `--report-every-secs` and at the end. Every hang, unanswered message and bad reply is
//! written with its bytes to `--findings` (hex, one per line).
//!
//! ```sh
//! target/release/hostile --thrift1 127.0.0.1:39090 --thrift2 127.0.0.1:39091 \
//!     --messages 10000000 --time-limit-secs 1800 --connections 48 --pid "$(pidof redbase)"
//! ```

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use redbase::generated::hbase1::{ColumnDescriptor, HbaseSyncClient, THbaseSyncClient};
use redbase::thrift::frame::{
    detect_protocol, detect_transport, frame_len, message_header, message_len, Protocol, Scan,
    Transport,
};
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};

#[derive(Parser, Debug)]
#[command(
    name = "hostile",
    about = "Sends random and mutated Thrift messages to a redbase on loopback and counts hangs"
)]
struct Cli {
    /// The Thrift1 (Hbase) port of the server under test (a loopback address).
    #[arg(long, default_value = "127.0.0.1:9090")]
    thrift1: SocketAddr,
    /// The Thrift2 (THBaseService) port of the server under test (a loopback address).
    #[arg(long, default_value = "127.0.0.1:9091")]
    thrift2: SocketAddr,
    /// Messages to send in all.
    #[arg(long, default_value_t = 1_000_000)]
    messages: u64,
    /// Stop after this long even if fewer messages were sent.
    #[arg(long, default_value_t = 600)]
    time_limit_secs: u64,
    /// Connections open at once (one thread each).
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// Most messages sent on one connection before it is closed and another opened.
    #[arg(long, default_value_t = 200)]
    messages_per_connection: u64,
    /// No answer and no close within this long is a hang.
    #[arg(long, default_value_t = 30)]
    reply_timeout_secs: u64,
    /// The server's --max-message-size (what it must refuse instead of waiting for).
    #[arg(long, default_value = "16MiB", value_parser = redbase::flag_values::size_usize)]
    max_message_size: usize,
    /// The seed corpus: `<service>-<transport>-<protocol>-<what>.hex` files.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz_corpus"))]
    corpus: PathBuf,
    /// Leave the corpus's known crashers (`*-crash-*.hex`) out: neither sent nor mutated nor
    /// spliced from (their mutations find the open decoder crashes fastest).
    #[arg(long)]
    without_crashers: bool,
    /// Seed of the random choices (each connection thread derives its own).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The server's process id, to report its RSS (/proc/PID/status VmRSS).
    #[arg(long)]
    pid: Option<u32>,
    /// A file holding the server's process id, read again at every report: for a server run
    /// under a supervisor that restarts it (each new id counts as a restart).
    #[arg(long)]
    pid_file: Option<PathBuf>,
    #[arg(long, default_value_t = 30)]
    report_every_secs: u64,
    /// Where to write the bytes of every hang, unanswered message and bad reply.
    #[arg(long, default_value = "hostile-findings.txt")]
    findings: PathBuf,
}

// ---------------------------------------------------------------------------------------------
// Seeds and mutations
// ---------------------------------------------------------------------------------------------

struct Seed {
    service: u8,
    crasher: bool,
    message: Vec<u8>,
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = s
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.bytes())
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    if digits.len() % 2 != 0 {
        return None;
    }
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

fn load_corpus(dir: &Path) -> Result<Vec<Seed>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut seeds = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Some(stem) = name.strip_suffix(".hex") else {
            continue;
        };
        let parts: Vec<&str> = stem.splitn(4, '-').collect();
        if parts.len() != 4 {
            return Err(format!(
                "{name}: not <service>-<transport>-<protocol>-<what>.hex"
            ));
        }
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{name}: {e}"))?;
        let raw = unhex(&text).ok_or_else(|| format!("{name}: not hex"))?;
        let message = if parts[1] == "framed" {
            raw.get(4..).unwrap_or_default().to_vec()
        } else {
            raw
        };
        seeds.push(Seed {
            service: if parts[0] == "t1" { 1 } else { 2 },
            crasher: parts[3].starts_with("crash-"),
            message,
        });
    }
    if seeds.is_empty() {
        return Err(format!("{}: no .hex files", dir.display()));
    }
    Ok(seeds)
}

/// xorshift64*: small, fast, and the same sequence for the same seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}

const INTERESTING_I32: [i32; 14] = [
    0,
    1,
    -1,
    127,
    128,
    255,
    0x7fff,
    0x8000,
    0xffff,
    16 << 20,
    (16 << 20) + 1,
    i32::MAX,
    i32::MIN,
    -2,
];

fn mutate(rng: &mut Rng, base: &[u8], others: &[Seed]) -> Vec<u8> {
    let mut m = base.to_vec();
    for _ in 0..1 + rng.below(5) {
        let len = m.len();
        let at = rng.below(len.max(1));
        match rng.below(9) {
            0 | 1 if len > 0 => m[at] ^= 1 << rng.below(8),
            2 if len > 0 => m[at] = [0, 0xff, 0x7f, 0x80, rng.byte()][rng.below(5)],
            3 => {
                let v = INTERESTING_I32[rng.below(INTERESTING_I32.len())].to_be_bytes();
                for (i, b) in v.iter().enumerate() {
                    if at + i < m.len() {
                        m[at + i] = *b;
                    } else {
                        m.push(*b);
                    }
                }
            }
            4 => {
                let n = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.byte()).collect();
                m.splice(at.min(len)..at.min(len), bytes);
            }
            5 if len > 0 => {
                let end = (at + 1 + rng.below(16)).min(len);
                m.drain(at..end);
            }
            6 if len > 0 => {
                let end = (at + 1 + rng.below(64)).min(len);
                let s = m[at..end].to_vec();
                m.splice(end..end, s);
            }
            7 => m.truncate(at),
            8 => {
                let other = &others[rng.below(others.len())].message;
                if !other.is_empty() {
                    let from = at.min(other.len() - 1);
                    m.truncate(at);
                    m.extend_from_slice(&other[from..]);
                }
            }
            _ => {}
        }
    }
    m
}

/// One message body for `service`.
fn body(rng: &mut Rng, seeds: &[Seed], service: u8) -> Vec<u8> {
    let mine: Vec<&Seed> = seeds.iter().filter(|s| s.service == service).collect();
    let pick = |rng: &mut Rng, crasher: bool| -> &Seed {
        let of: Vec<&&Seed> = mine.iter().filter(|s| s.crasher == crasher).collect();
        if of.is_empty() {
            mine[rng.below(mine.len())]
        } else {
            of[rng.below(of.len())]
        }
    };
    match rng.below(100) {
        0..=9 => pick(rng, false).message.clone(),
        10..=64 => {
            let s = pick(rng, false);
            mutate(rng, &s.message, seeds)
        }
        65..=74 => {
            let s = pick(rng, true);
            if rng.chance(50) {
                s.message.clone()
            } else {
                mutate(rng, &s.message, seeds)
            }
        }
        _ => {
            let n = rng.below(256);
            let mut m: Vec<u8> = (0..n).map(|_| rng.byte()).collect();
            if let Some(first) = m.first_mut() {
                *first = [0x80, 0x82, 0x00, *first][rng.below(4)];
            }
            if m.len() > 1 && m[0] == 0x80 && rng.chance(70) {
                m[1] = 0x01;
            }
            m
        }
    }
}

// ---------------------------------------------------------------------------------------------
// What the server must do, and what it did
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Wire {
    Buffered,
    Framed,
    Http,
}

/// What the server must do with one message.
enum Expect {
    /// Answer it with a message in this protocol.
    Reply(Protocol),
    /// Drop the connection (the client half-closes so a server waiting for bytes sees the end).
    Close,
}

#[derive(Default)]
struct Counts {
    sent: AtomicU64,
    replies: AtomicU64,
    exceptions: AtomicU64,
    expected_closes: AtomicU64,
    http_400: AtomicU64,
    hangs: AtomicU64,
    unanswered: AtomicU64,
    bad_replies: AtomicU64,
    /// EXCEPTION replies saying a handler panicked (the server caught it; still a bug).
    panics: AtomicU64,
    connections: AtomicU64,
    connect_errors: AtomicU64,
}

fn add(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

fn get(c: &AtomicU64) -> u64 {
    c.load(Ordering::Relaxed)
}

struct Run {
    cli: Cli,
    /// The server process last seen through --pid-file, and how often it changed.
    server: Mutex<(Option<u32>, u64)>,
    seeds: Vec<Seed>,
    counts: Counts,
    stop: AtomicBool,
    deadline: Instant,
    findings: Mutex<std::fs::File>,
}

impl Run {
    fn finding(&self, what: &str, service: u8, wire: Wire, wire_bytes: &[u8], detail: &str) {
        let line = format!(
            "{what} t{service} {wire:?} {} {}\n",
            hex(wire_bytes),
            detail.replace('\n', " ")
        );
        eprint!("FINDING: {line}");
        if let Ok(mut f) = self.findings.lock() {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

fn wrap(wire: Wire, body: &[u8]) -> Vec<u8> {
    let mut out = match wire {
        Wire::Buffered => Vec::new(),
        Wire::Framed => (body.len() as u32).to_be_bytes().to_vec(),
        Wire::Http => format!(
            "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-thrift\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes(),
    };
    out.extend_from_slice(body);
    out
}

/// The server's decision for `bytes` (the whole of what this message puts on the wire), as
/// its frame walker makes it; `first` when nothing was sent on the connection before. For a
/// buffered message the bytes may be cut to the message the walker finds.
fn expect(wire: Wire, bytes: &mut Vec<u8>, first: bool, max: usize) -> Expect {
    if first {
        let want = match wire {
            Wire::Buffered => Transport::Buffered,
            Wire::Framed => Transport::Framed,
            Wire::Http => Transport::Http,
        };
        match detect_transport(bytes) {
            Scan::Done(t, _) if t == want => {}
            _ => return Expect::Close,
        }
    }
    let body_protocol = |b: &[u8]| match detect_protocol(b) {
        Scan::Done(p, _) => Expect::Reply(p),
        _ => Expect::Close,
    };
    match wire {
        Wire::Framed => match frame_len(bytes, max) {
            Scan::Done(len, _) => body_protocol(&bytes[4..4 + len]),
            _ => Expect::Close,
        },
        Wire::Http => {
            // The head is `wrap`'s own; the body starts after it.
            let start = http_body_start(bytes).unwrap_or(0);
            if bytes.len() - start > max {
                Expect::Close
            } else {
                body_protocol(&bytes[start..])
            }
        }
        Wire::Buffered => {
            let p = match detect_protocol(bytes) {
                Scan::Done(p, _) => p,
                _ => return Expect::Close,
            };
            match message_len(bytes, p, max) {
                Scan::Done((), n) => {
                    bytes.truncate(n);
                    Expect::Reply(p)
                }
                _ => Expect::Close,
            }
        }
    }
}

/// The value of a `Content-Length` header, if there is one and it is a number.
fn content_length(headers: &[httparse::Header]) -> Option<usize> {
    let h = headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))?;
    std::str::from_utf8(h.value).ok()?.trim().parse().ok()
}

/// Where the body of an HTTP request starts, if `bytes` begins with a whole request head.
fn http_body_start(bytes: &[u8]) -> Option<usize> {
    let mut headers = [httparse::EMPTY_HEADER; 16];
    match httparse::Request::new(&mut headers).parse(bytes) {
        Ok(httparse::Status::Complete(end)) => Some(end),
        _ => None,
    }
}

fn reply_protocol(p: Protocol) -> Protocol {
    match p {
        Protocol::Binary { .. } => Protocol::Binary { strict: true },
        Protocol::Compact => Protocol::Compact,
    }
}

/// The message type of a well-formed reply to `request`, or why it is not one.
fn check_reply(request: &[u8], p: Protocol, reply: &[u8]) -> Result<u8, String> {
    let rp = reply_protocol(p);
    match message_len(reply, rp, reply.len()) {
        Scan::Done((), n) if n == reply.len() => {}
        other => return Err(format!("not one whole message: {other:?}")),
    }
    let kind = match rp {
        Protocol::Binary { .. } if reply.len() > 3 && reply[..2] == [0x80, 1] => reply[3],
        Protocol::Compact if reply.len() > 1 && reply[0] == 0x82 => reply[1] >> 5,
        _ => return Err("not a reply in the call's protocol".into()),
    };
    if kind != 2 && kind != 3 {
        return Err(format!("message type {kind}"));
    }
    let asked = message_header(request, p).unwrap_or_default();
    let answered = message_header(reply, rp).unwrap_or_default();
    if asked != answered {
        return Err(format!("the reply names {answered:?}, the call {asked:?}"));
    }
    Ok(kind)
}

enum Got {
    Reply(Vec<u8>),
    Status(u16),
    Closed,
    Hang,
    Broken(String),
}

/// What `process_message` answers when a handler or decoder panicked.
const PANIC_TEXT: &[u8] = b"internal error processing the call";

fn is_close(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::UnexpectedEof
            | ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::BrokenPipe
    )
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

/// Reads one answer; `buf` keeps bytes read past it (none are expected).
fn read_answer(s: &mut TcpStream, wire: Wire, p: Protocol, buf: &mut Vec<u8>) -> Got {
    let mut chunk = [0u8; 16 * 1024];
    loop {
        // Is a whole answer buffered?
        match wire {
            Wire::Buffered => {
                if let Scan::Done((), n) = message_len(buf, reply_protocol(p), usize::MAX >> 1) {
                    let r = buf[..n].to_vec();
                    buf.drain(..n);
                    return Got::Reply(r);
                }
            }
            Wire::Framed => {
                if buf.len() >= 4 {
                    let n = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize;
                    if buf.len() >= 4 + n {
                        let r = buf[4..4 + n].to_vec();
                        buf.drain(..4 + n);
                        return Got::Reply(r);
                    }
                }
            }
            Wire::Http => {
                let mut headers = [httparse::EMPTY_HEADER; 16];
                let mut head = httparse::Response::new(&mut headers);
                match head.parse(buf) {
                    Ok(httparse::Status::Complete(end)) => {
                        let len = content_length(head.headers);
                        let (Some(status), Some(len)) = (head.code, len) else {
                            let head = String::from_utf8_lossy(&buf[..end]);
                            return Got::Broken(format!("a bad HTTP head: {head:?}"));
                        };
                        if buf.len() >= end + len {
                            let r = buf[end..end + len].to_vec();
                            buf.drain(..end + len);
                            return if status == 200 {
                                Got::Reply(r)
                            } else {
                                Got::Status(status)
                            };
                        }
                    }
                    Ok(httparse::Status::Partial) => {}
                    Err(e) => {
                        let head = String::from_utf8_lossy(buf);
                        return Got::Broken(format!("a bad HTTP head ({e}): {head:?}"));
                    }
                }
            }
        }
        match s.read(&mut chunk) {
            Ok(0) => {
                return if buf.is_empty() {
                    Got::Closed
                } else {
                    Got::Broken(format!("closed inside an answer: {}", hex(buf)))
                }
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if is_close(&e) => return Got::Closed,
            Err(e) if is_timeout(&e) => return Got::Hang,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Got::Broken(e.to_string()),
        }
    }
}

/// After a message the server must drop: it closes within the timeout (whatever it says first).
fn await_close(s: &mut TcpStream) -> bool {
    let _ = s.shutdown(Shutdown::Write);
    let mut chunk = [0u8; 4096];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if is_close(&e) => return true,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

fn connect(run: &Run, addr: SocketAddr) -> Option<TcpStream> {
    let started = Instant::now();
    loop {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(10)) {
            Ok(s) => {
                let t = Duration::from_secs(run.cli.reply_timeout_secs);
                let _ = s.set_read_timeout(Some(t));
                let _ = s.set_write_timeout(Some(t));
                let _ = s.set_nodelay(true);
                return Some(s);
            }
            Err(e) => {
                add(&run.counts.connect_errors);
                if started.elapsed() > Duration::from_secs(30) {
                    eprintln!("cannot connect to {addr} for 30 s ({e}): the server is down");
                    run.stop.store(true, Ordering::Relaxed);
                    return None;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
}

fn worker(run: Arc<Run>, id: u64) {
    let mut rng = Rng::new(run.cli.seed ^ (id + 1).wrapping_mul(0x1234_5678_9abc_def1));
    let c = &run.counts;
    let max = run.cli.max_message_size;
    while !run.stop.load(Ordering::Relaxed) && Instant::now() < run.deadline {
        let service = 1 + rng.below(2) as u8;
        let wire = [Wire::Buffered, Wire::Framed, Wire::Http][rng.below(3)];
        let addr = if service == 1 {
            run.cli.thrift1
        } else {
            run.cli.thrift2
        };
        let Some(mut s) = connect(&run, addr) else {
            return;
        };
        add(&c.connections);
        let mut buf = Vec::new();
        let per_conn = 1 + rng.below(run.cli.messages_per_connection as usize) as u64;
        for i in 0..per_conn {
            if c.sent.fetch_add(1, Ordering::Relaxed) >= run.cli.messages
                || Instant::now() >= run.deadline
            {
                run.stop.store(true, Ordering::Relaxed);
                c.sent.fetch_sub(1, Ordering::Relaxed);
                return;
            }
            let b = body(&mut rng, &run.seeds, service);
            let mut bytes = wrap(wire, &b);
            let e = expect(wire, &mut bytes, i == 0, max);
            // The request as the server's processor sees it (for checking the reply's header).
            let request = match wire {
                Wire::Buffered => bytes.clone(),
                _ => b,
            };
            if let Err(err) = s.write_all(&bytes) {
                // The server may close first on a connection it already judged.
                if !is_close(&err) {
                    run.finding("write-error", service, wire, &bytes, &err.to_string());
                }
                add(&c.expected_closes);
                break;
            }
            match e {
                Expect::Close => {
                    if await_close(&mut s) {
                        add(&c.expected_closes);
                    } else {
                        add(&c.hangs);
                        run.finding("hang-no-close", service, wire, &bytes, "");
                    }
                    break;
                }
                Expect::Reply(p) => match read_answer(&mut s, wire, p, &mut buf) {
                    Got::Reply(r) => match check_reply(&request, p, &r) {
                        Ok(2) => add(&c.replies),
                        Ok(_) => {
                            add(&c.exceptions);
                            if r.windows(PANIC_TEXT.len()).any(|w| w == PANIC_TEXT) {
                                add(&c.panics);
                                run.finding(
                                    "panic",
                                    service,
                                    wire,
                                    &bytes,
                                    &String::from_utf8_lossy(&r),
                                );
                            }
                        }
                        Err(why) => {
                            add(&c.bad_replies);
                            run.finding(
                                "bad-reply",
                                service,
                                wire,
                                &bytes,
                                &format!("{why}: {}", hex(&r)),
                            );
                            break;
                        }
                    },
                    Got::Status(code) => {
                        add(&c.http_400);
                        run.finding("http-status", service, wire, &bytes, &code.to_string());
                        break;
                    }
                    Got::Closed => {
                        add(&c.unanswered);
                        run.finding("unanswered", service, wire, &bytes, "closed instead");
                        break;
                    }
                    Got::Hang => {
                        add(&c.hangs);
                        run.finding("hang-no-reply", service, wire, &bytes, "");
                        break;
                    }
                    Got::Broken(why) => {
                        add(&c.bad_replies);
                        run.finding("broken-answer", service, wire, &bytes, &why);
                        break;
                    }
                },
            }
        }
    }
}

/// Makes sure table `t` with family `f` (what the corpus calls name) exists and is enabled,
/// so valid and lightly mutated calls reach the engine. Hostile calls may delete or disable it;
/// this runs again at every report.
fn setup(addr: SocketAddr) {
    let Ok(s) = TcpStream::connect_timeout(&addr, Duration::from_secs(5)) else {
        return;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(r) = s.try_clone() else {
        return;
    };
    let mut c = HbaseSyncClient::new(
        TBinaryInputProtocol::new(r, true),
        TBinaryOutputProtocol::new(s, true),
    );
    let family = ColumnDescriptor {
        name: Some(b"f:".to_vec()),
        max_versions: Some(3),
        compression: None,
        in_memory: None,
        bloom_filter_type: None,
        bloom_filter_vector_size: None,
        bloom_filter_nb_hashes: None,
        block_cache_enabled: None,
        time_to_live: None,
    };
    let _ = c.create_table(b"t".to_vec(), vec![family]);
    let _ = c.enable_table(b"t".to_vec());
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The server's pid now (from --pid-file if given, else --pid); notes restarts.
fn server_pid(run: &Run) -> Option<u32> {
    let Some(file) = &run.cli.pid_file else {
        return run.cli.pid;
    };
    let now = std::fs::read_to_string(file)
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok());
    let mut seen = run.server.lock().unwrap_or_else(|e| e.into_inner());
    if let (Some(before), Some(n)) = (seen.0, now) {
        if before != n {
            seen.1 += 1;
        }
    }
    if now.is_some() {
        seen.0 = now;
    }
    now
}

fn report(run: &Run, started: Instant, label: &str) {
    let c = &run.counts;
    let secs = started.elapsed().as_secs_f64();
    let sent = get(&c.sent);
    let rss = server_pid(run)
        .map(|p| {
            rss_kib(p).map_or("gone".to_string(), |k| {
                format!("{:.1} MiB", k as f64 / 1024.0)
            })
        })
        .unwrap_or_else(|| "-".into());
    println!(
        "{label} {secs:.0}s sent={sent} ({:.0}/s) replies={} exceptions={} expected_closes={} \
         http_400={} hangs={} unanswered={} bad_replies={} panics={} connections={} connect_errors={} \
         server_rss={rss} server_restarts={}",
        sent as f64 / secs.max(0.001),
        get(&c.replies),
        get(&c.exceptions),
        get(&c.expected_closes),
        get(&c.http_400),
        get(&c.hangs),
        get(&c.unanswered),
        get(&c.bad_replies),
        get(&c.panics),
        get(&c.connections),
        get(&c.connect_errors),
        run.server.lock().map(|s| s.1).unwrap_or(0),
    );
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    for (name, a) in [("--thrift1", cli.thrift1), ("--thrift2", cli.thrift2)] {
        if !a.ip().is_loopback() {
            eprintln!("{name} {a}: hostile only sends to loopback addresses");
            return ExitCode::from(2);
        }
    }
    let seeds = match load_corpus(&cli.corpus) {
        Ok(mut s) => {
            if cli.without_crashers {
                s.retain(|s| !s.crasher);
            }
            s
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let findings = match std::fs::File::create(&cli.findings) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{}: {e}", cli.findings.display());
            return ExitCode::from(2);
        }
    };
    println!(
        "hostile: {} seeds, {} messages or {} s, {} connections, thrift1 {} thrift2 {}",
        seeds.len(),
        cli.messages,
        cli.time_limit_secs,
        cli.connections,
        cli.thrift1,
        cli.thrift2
    );
    setup(cli.thrift1);
    let started = Instant::now();
    let run = Arc::new(Run {
        deadline: started + Duration::from_secs(cli.time_limit_secs),
        cli,
        seeds,
        counts: Counts::default(),
        server: Mutex::new((None, 0)),
        stop: AtomicBool::new(false),
        findings: Mutex::new(findings),
    });
    if let Some(p) = server_pid(&run) {
        println!("server rss at start: {:?} KiB", rss_kib(p));
    }
    let workers: Vec<_> = (0..run.cli.connections as u64)
        .map(|i| {
            let run = run.clone();
            std::thread::spawn(move || worker(run, i))
        })
        .collect();
    let every = Duration::from_secs(run.cli.report_every_secs.max(1));
    let mut next = started + every;
    while workers.iter().any(|w| !w.is_finished()) {
        std::thread::sleep(Duration::from_millis(100));
        server_pid(&run);
        if Instant::now() >= next {
            setup(run.cli.thrift1);
            report(&run, started, "progress");
            next += every;
        }
    }
    for w in workers {
        let _ = w.join();
    }
    report(&run, started, "final");
    let c = &run.counts;
    let bad = get(&c.hangs)
        + get(&c.unanswered)
        + get(&c.bad_replies)
        + get(&c.http_400)
        + get(&c.panics);
    let down = run.stop.load(Ordering::Relaxed)
        && get(&c.sent) < run.cli.messages
        && Instant::now() < run.deadline;
    if bad > 0 || down {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    #[test]
    fn an_http_request_body_starts_after_its_head() {
        let bytes = wrap(Wire::Http, b"\x82\x21\x01\x03get");
        let start = http_body_start(&bytes).expect("a whole head");
        assert_eq!(&bytes[start..], b"\x82\x21\x01\x03get");
        assert_eq!(http_body_start(b"POST / HTTP/1.1\r\nHost: x\r\n"), None);
    }

    #[test]
    fn http_answers_are_read_by_their_head() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut server, _) = l.accept().unwrap();
        let p = Protocol::Compact;
        let mut buf = Vec::new();
        // Two answers in one write, the header names in any case.
        server
            .write_all(
                b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabc\
                  HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nCONTENT-LENGTH: 2\r\n\r\nno",
            )
            .unwrap();
        assert!(
            matches!(read_answer(&mut client, Wire::Http, p, &mut buf), Got::Reply(r) if r == b"abc")
        );
        assert!(matches!(
            read_answer(&mut client, Wire::Http, p, &mut buf),
            Got::Status(400)
        ));
        assert!(buf.is_empty());
        // No length, then no HTTP at all.
        server.write_all(b"HTTP/1.1 200 OK\r\n\r\n").unwrap();
        assert!(
            matches!(read_answer(&mut client, Wire::Http, p, &mut buf), Got::Broken(m) if m.contains("bad HTTP head"))
        );
        buf.clear();
        server.write_all(b"\x00garbage\r\n\r\n").unwrap();
        assert!(
            matches!(read_answer(&mut client, Wire::Http, p, &mut buf), Got::Broken(m) if m.contains("bad HTTP head"))
        );
    }
}
