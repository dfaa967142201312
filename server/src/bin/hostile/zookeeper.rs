//! The ZooKeeper responder target (`--zookeeper`): sessions opened with a ConnectRequest (or a
//! mutated one, a four-letter word, garbage), then the requests HBase's client makes
//! (`getData`, `getChildren`, `exists`, pings) and others (changes, unknown operations,
//! closeSession), as they are, with mutated records, or with lying packet lengths.
//!
//! The rule: a request whose packet length is honest is answered with a reply naming its xid,
//! or the connection is closed (an unknown operation, a change of session state); bytes that
//! lie, or are not ZooKeeper's, end in a close once the client stops sending. Anything else
//! within `--reply-timeout-secs` is a hang or a bad reply.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use redbase::native::zookeeper::jute::Writer;
use redbase::native::zookeeper::protocol::{op, ConnectRequest, PING_XID};

use crate::corpus::{mutate_bytes, Rng};
use crate::net::{await_close, connect, is_close, is_timeout};
use crate::{add, take_message, Run};

const PATHS: [&str; 7] = [
    "/hbase",
    "/hbase/master",
    "/hbase/hbaseid",
    "/hbase/meta-region-server",
    "/hbase/rs",
    "/",
    "/nope",
];

/// A request record for `code` on a random path (what a client sends for it).
fn record(rng: &mut Rng, code: i32) -> Vec<u8> {
    let path = PATHS[rng.below(PATHS.len())];
    let mut w = Writer::body();
    match code {
        op::GET_DATA | op::GET_CHILDREN | op::GET_CHILDREN2 | op::EXISTS => {
            w.string(path).bool(rng.chance(50));
        }
        op::CREATE => {
            w.string("/hbase/x").buffer(b"v").int(0).int(0);
        }
        op::SYNC | op::GET_ACL | op::GET_ALL_CHILDREN_NUMBER | op::GET_EPHEMERALS => {
            w.string(path);
        }
        _ => {}
    }
    w.as_bytes().to_vec()
}

fn packet(body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(body);
    out
}

enum Sent {
    /// An honest packet with this xid: a reply naming it, or a close.
    Request(i32),
    /// The connection must close once the client stops.
    Lie,
}

fn request(rng: &mut Rng, xid: i32) -> (Vec<u8>, Sent) {
    const CODES: [i32; 12] = [
        op::GET_DATA,
        op::GET_DATA,
        op::GET_CHILDREN,
        op::GET_CHILDREN2,
        op::EXISTS,
        op::SYNC,
        op::GET_ACL,
        op::GET_ALL_CHILDREN_NUMBER,
        op::CREATE,
        op::PING,
        op::CLOSE_SESSION,
        999,
    ];
    let code = CODES[rng.below(CODES.len())];
    let xid = if code == op::PING { PING_XID } else { xid };
    let mut body = xid.to_be_bytes().to_vec();
    body.extend_from_slice(&code.to_be_bytes());
    body.extend(record(rng, code));
    match rng.below(100) {
        0..=64 => (packet(&body), Sent::Request(xid)),
        65..=84 => {
            // The record mutated (header kept): a reply with MARSHALLINGERROR, or a close.
            let rec = mutate_bytes(rng, &body[8..], &[]);
            body.truncate(8);
            body.extend(rec);
            (packet(&body), Sent::Request(xid))
        }
        85..=89 => {
            let mut p = packet(&body);
            let n = (body.len() + 1 + rng.below(1 << 12)) as u32;
            p[..4].copy_from_slice(&n.to_be_bytes());
            (p, Sent::Lie)
        }
        90..=94 => {
            let mut p = packet(&body);
            let big = [1 << 20, 0x7fff_ffff, u32::MAX, 256 * 1024 + 1][rng.below(4)];
            p[..4].copy_from_slice(&big.to_be_bytes());
            (p, Sent::Lie)
        }
        _ => {
            let junk: Vec<u8> = (0..1 + rng.below(64)).map(|_| rng.byte()).collect();
            (junk, Sent::Lie)
        }
    }
}

enum Got {
    Reply,
    Closed,
    Hang,
    Bad(String),
}

/// Reads packets until a reply names `xid` (watch events, xid -1, are read past).
fn read_reply(s: &mut TcpStream, xid: Option<i32>) -> Got {
    loop {
        let mut len = [0u8; 4];
        match s.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if is_close(&e) => return Got::Closed,
            Err(e) if is_timeout(&e) => return Got::Hang,
            Err(e) => return Got::Bad(e.to_string()),
        }
        let n = u32::from_be_bytes(len) as usize;
        if n > 4 << 20 {
            return Got::Bad(format!("a packet of {n} bytes"));
        }
        let mut body = vec![0u8; n];
        match s.read_exact(&mut body) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
                return Got::Bad(format!("closed inside a packet of {n} bytes"))
            }
            Err(e) if is_close(&e) => return Got::Closed,
            Err(e) if is_timeout(&e) => return Got::Hang,
            Err(e) => return Got::Bad(e.to_string()),
        }
        let Some(want) = xid else {
            // The handshake's answer: a ConnectResponse of at least 20 bytes.
            return if n >= 20 {
                Got::Reply
            } else {
                Got::Bad(format!("a ConnectResponse of {n} bytes"))
            };
        };
        if n < 16 {
            return Got::Bad(format!("a reply of {n} bytes"));
        }
        let got = i32::from_be_bytes(body[..4].try_into().expect("4 bytes"));
        if got == want {
            return Got::Reply;
        }
        if got != -1 {
            return Got::Bad(format!("a reply to xid {got}, not {want}"));
        }
    }
}

fn handshake(rng: &mut Rng) -> (Vec<u8>, bool) {
    let good = ConnectRequest {
        protocol_version: 0,
        last_zxid_seen: 0,
        timeout_ms: 30_000,
        session_id: 0,
        password: vec![0; 16],
        read_only: Some(false),
    }
    .encode();
    match rng.below(100) {
        0..=79 => (good, true),
        80..=87 => (mutate_bytes(rng, &good, &[]), false),
        88..=91 => (
            [b"ruok", b"stat", b"srvr", b"mntr"][rng.below(4)].to_vec(),
            false,
        ),
        _ => ((0..1 + rng.below(64)).map(|_| rng.byte()).collect(), false),
    }
}

pub fn worker(run: Arc<Run>, id: u64) {
    let addr = run.cli.zookeeper;
    let mut rng = Rng::new(run.cli.seed ^ (id + 13).wrapping_mul(0xd1b5_4a32_d192_ed03));
    let c = &run.counts;
    let label = "zookeeper";
    while !run.stop.load(Ordering::Relaxed) {
        if !take_message(&run) {
            return;
        }
        let Some(mut s) = connect(&run, addr) else {
            return;
        };
        add(&c.connections);
        let (hello, honest) = handshake(&mut rng);
        if s.write_all(&hello).is_err() {
            add(&c.expected_closes);
            continue;
        }
        if !honest {
            if await_close(&mut s) {
                add(&c.expected_closes);
            } else {
                add(&c.hangs);
                run.finding("hang-no-close", label, &hello, "a bad handshake");
            }
            continue;
        }
        match read_reply(&mut s, None) {
            Got::Reply => add(&c.replies),
            Got::Closed => {
                add(&c.expected_closes);
                continue;
            }
            Got::Hang => {
                add(&c.hangs);
                run.finding("hang-no-reply", label, &hello, "the handshake");
                continue;
            }
            Got::Bad(why) => {
                add(&c.bad_replies);
                run.finding("bad-reply", label, &hello, &why);
                continue;
            }
        }
        let requests = 1 + rng.below(run.cli.messages_per_connection as usize);
        let mut ended = false;
        for n in 0..requests {
            if !take_message(&run) {
                break;
            }
            let (bytes, sent) = request(&mut rng, n as i32 + 1);
            if let Err(e) = s.write_all(&bytes) {
                if !is_close(&e) {
                    run.finding("write-error", label, &bytes, &e.to_string());
                }
                add(&c.expected_closes);
                ended = true;
                break;
            }
            let got = match sent {
                Sent::Lie => {
                    if await_close(&mut s) {
                        add(&c.expected_closes);
                    } else {
                        add(&c.hangs);
                        run.finding("hang-no-close", label, &bytes, "a lying packet");
                    }
                    ended = true;
                    break;
                }
                Sent::Request(xid) => read_reply(&mut s, Some(xid)),
            };
            match got {
                Got::Reply => add(&c.replies),
                Got::Closed => {
                    add(&c.expected_closes);
                    ended = true;
                    break;
                }
                Got::Hang => {
                    add(&c.hangs);
                    run.finding("hang-no-reply", label, &bytes, "");
                    ended = true;
                    break;
                }
                Got::Bad(why) => {
                    add(&c.bad_replies);
                    run.finding("bad-reply", label, &bytes, &why);
                    ended = true;
                    break;
                }
            }
        }
        if !ended && !await_close(&mut s) {
            add(&c.hangs);
            run.finding(
                "hang-no-close",
                label,
                b"",
                "after the client's last request",
            );
        }
        let _ = s.shutdown(Shutdown::Both);
    }
}
