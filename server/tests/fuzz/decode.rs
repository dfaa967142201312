//! The decoders of both services over both protocols: `process_message` with each service's
//! real generated processor over a real engine in a temporary directory. Whatever the message,
//! no panic escapes, every message whose header can be read gets a non-empty reply, and every
//! reply is one well-formed Thrift message (REPLY or EXCEPTION, same name and sequence id as
//! the call) in the protocol of the call.

use std::sync::Arc;

use proptest::prelude::*;
use redbase::engine::{
    Engine, EngineConfig, FamilyDescriptor, Op, RowMutation, TableDescriptor, TableName,
};
use redbase::gateway::{Access, Advertised};
use redbase::generated::{hbase1, hbase2};
use redbase::scanners::ScannerLimits;
use redbase::slowlog::SlowLogConfig;
use redbase::thrift::frame::{detect_protocol, message_header, message_len, Protocol, Scan};
use redbase::thrift::process_message;
use redbase::thrift1;
use redbase::thrift2;
use thrift::server::TProcessor;

use super::calls;
use super::corpus::{self, Seed};
use super::runner::{check, note};
use super::walker::proto_of;

/// An engine with table `t` (family `f`, a few rows) and both services' processors over it.
pub struct Services {
    pub t1: Box<dyn TProcessor>,
    pub t2: Box<dyn TProcessor>,
    pub engine: Engine,
    _dir: tempfile::TempDir,
}

impl Services {
    pub fn new() -> Services {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        seed_table(&engine);
        let advertised = Advertised {
            host: "localhost".into(),
            port: 9090,
        };
        let h1 = thrift1::Handler::new(
            engine.clone(),
            ScannerLimits::default(),
            advertised.clone(),
            Access::default(),
        );
        let h2 = thrift2::Handler::new(
            engine.clone(),
            ScannerLimits::default(),
            advertised,
            Access::default(),
            SlowLogConfig::default(),
        );
        Services {
            t1: Box::new(hbase1::HbaseSyncProcessor::new(Arc::new(h1))),
            t2: Box::new(hbase2::THBaseServiceSyncProcessor::new(Arc::new(h2))),
            engine,
            _dir: dir,
        }
    }

    pub fn processor(&self, service: u8) -> &dyn TProcessor {
        if service == 1 {
            &*self.t1
        } else {
            &*self.t2
        }
    }
}

impl Drop for Services {
    fn drop(&mut self) {
        self.engine.close();
    }
}

/// Table `t`, family `f`, rows `r` and `s`: what the seed calls name.
pub fn seed_table(e: &Engine) {
    let d = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new(calls::FAMILY));
    e.create_table(d, &[]).unwrap();
    for row in [&b"r"[..], b"s", b"n"] {
        e.mutate_row(
            "t",
            RowMutation::new(row).with(Op::put_at(calls::FAMILY, b"q", 10, b"v")),
        )
        .unwrap();
    }
}

/// The message type of a well-formed reply (2 = REPLY, 3 = EXCEPTION), or why it is not one.
pub fn check_reply(request: &[u8], protocol: Protocol, reply: &[u8]) -> Result<u8, String> {
    let reply_protocol = match protocol {
        Protocol::Binary { .. } => Protocol::Binary { strict: true },
        Protocol::Compact => Protocol::Compact,
    };
    if reply.is_empty() {
        return Err("an empty reply".into());
    }
    match message_len(reply, reply_protocol, reply.len()) {
        Scan::Done((), n) if n == reply.len() => {}
        other => return Err(format!("the reply is not one whole message: {other:?}")),
    }
    let kind = match reply_protocol {
        Protocol::Binary { .. } => {
            if reply.len() < 4 || reply[..2] != [0x80, 0x01] {
                return Err("not a strict binary reply".into());
            }
            reply[3]
        }
        Protocol::Compact => {
            if reply.len() < 2 || reply[0] != 0x82 || reply[1] & 0x1f != 1 {
                return Err("not a compact reply".into());
            }
            reply[1] >> 5
        }
    };
    if kind != 2 && kind != 3 {
        return Err(format!("message type {kind}, not REPLY or EXCEPTION"));
    }
    let asked = message_header(request, protocol).unwrap_or_default();
    let answered = message_header(reply, reply_protocol).unwrap_or_default();
    if asked != answered {
        return Err(format!(
            "the reply names {answered:?}, the call was {asked:?}"
        ));
    }
    Ok(kind)
}

/// Feeds `message` to a processor as the server would (its protocol detected from its first
/// byte; a message no protocol claims never reaches a processor) and checks the reply.
fn feed(p: &dyn TProcessor, message: &[u8]) -> Result<Option<u8>, TestCaseError> {
    let protocol = match detect_protocol(message) {
        Scan::Done(p, _) => p,
        _ => return Ok(None),
    };
    note("message", message);
    let reply = process_message(p, message, protocol);
    if message_header(message, protocol).is_some() {
        prop_assert!(!reply.is_empty(), "no reply to {}", corpus::hex(message));
    }
    if reply.is_empty() {
        return Ok(None);
    }
    // process_message turns a panic into an INTERNAL_ERROR reply; a panic is still a bug.
    prop_assert!(
        !contains(&reply, b"internal error processing the call"),
        "a panic while processing {}: {}",
        corpus::hex(message),
        String::from_utf8_lossy(&reply)
    );
    match check_reply(message, protocol, &reply) {
        Ok(kind) => Ok(Some(kind)),
        Err(why) => Err(TestCaseError::fail(format!(
            "{why}\ncall:  {}\nreply: {}",
            corpus::hex(message),
            corpus::hex(&reply)
        ))),
    }
}

/// The inputs of `fuzz_corpus/open/` (found by the long hostile runs: fields and container
/// elements of a type the IDL does not declare, which the generated decoders misread until
/// `idl/no_panics.py` guarded them), each in a child process of this test binary so an abort
/// fails that file only: each must be answered without a panic.
#[test]
fn decode_open_crashers() {
    if let Ok(file) = std::env::var("FUZZ_OPEN_FILE") {
        let s = Services::new();
        let seed = corpus::load_from(&corpus::open_dir())
            .into_iter()
            .find(|s| s.file == file)
            .unwrap();
        feed(s.processor(seed.service), &seed.message).unwrap();
        return;
    }
    let mut broken = Vec::new();
    for seed in corpus::load_from(&corpus::open_dir()) {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["decode::decode_open_crashers", "--exact", "--nocapture"])
            .env("FUZZ_OPEN_FILE", &seed.file)
            .output()
            .unwrap();
        let ok = out.status.success();
        eprintln!(
            "{}: {}",
            seed.file,
            if ok {
                "answered".to_string()
            } else {
                format!("BROKEN ({})", out.status)
            }
        );
        if !ok {
            broken.push(seed.file);
        }
    }
    assert!(broken.is_empty(), "still breaking the server: {broken:?}");
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn decode_corpus_replays() {
    let s = Services::new();
    let seeds = corpus::load();
    assert!(
        seeds.iter().any(|s| s.crasher),
        "the known crashers are in the corpus"
    );
    for seed in &seeds {
        // A crasher's answer may be an EXCEPTION or a REPLY carrying a declared error; it must
        // be one well-formed message, with no panic behind it (feed checks both).
        feed(s.processor(seed.service), &seed.message)
            .unwrap_or_else(|e| panic!("{}: {e}", seed.file))
            .unwrap_or_else(|| panic!("{}: no reply", seed.file));
        // The other service must answer the same bytes as well (an unknown method at worst).
        feed(s.processor(3 - seed.service), &seed.message)
            .unwrap_or_else(|e| panic!("{} on the other service: {e}", seed.file));
    }
    eprintln!("decode_corpus_replays: {} files", seeds.len());
}

/// Every generated valid call of every method is answered with a REPLY (a declared exception
/// travels inside a REPLY), so the seeds reach the handlers, not just the decoders.
#[test]
fn decode_valid_calls_reach_their_handlers() {
    let s = Services::new();
    for proto in [corpus::Proto::Binary, corpus::Proto::Compact] {
        for (service, list) in [(1u8, calls::thrift1(proto)), (2, calls::thrift2(proto))] {
            for (name, m) in list {
                let kind = feed(s.processor(service), &m).unwrap().unwrap();
                assert_eq!(kind, 2, "t{service} {name} over {proto:?}");
            }
        }
    }
}

fn mutated_target(name: &'static str, cases: u32, only: fn(&Seed) -> bool) {
    let s = Services::new();
    let seeds: Vec<Seed> = corpus::load().into_iter().filter(only).collect();
    let bodies: Vec<&[u8]> = seeds.iter().map(|s| s.message.as_slice()).collect();
    check(name, cases, corpus::mutations(), |(i, muts)| {
        let seed = &seeds[i % seeds.len()];
        let m = corpus::apply(&seed.message, &muts, &bodies);
        feed(s.processor(seed.service), &m)?;
        Ok(())
    });
}

#[test]
fn decode_mutated_thrift1_binary() {
    mutated_target("decode_mutated_thrift1_binary", 2_500, |s| {
        s.service == 1 && s.proto == corpus::Proto::Binary
    });
}

#[test]
fn decode_mutated_thrift1_compact() {
    mutated_target("decode_mutated_thrift1_compact", 2_500, |s| {
        s.service == 1 && s.proto == corpus::Proto::Compact
    });
}

#[test]
fn decode_mutated_thrift2_binary() {
    mutated_target("decode_mutated_thrift2_binary", 2_500, |s| {
        s.service == 2 && s.proto == corpus::Proto::Binary
    });
}

#[test]
fn decode_mutated_thrift2_compact() {
    mutated_target("decode_mutated_thrift2_compact", 2_500, |s| {
        s.service == 2 && s.proto == corpus::Proto::Compact
    });
}

/// A real method name in a valid header, then arbitrary bytes: the decoders of each method's
/// arguments see garbage of every shape.
fn header_then_garbage() -> impl Strategy<Value = (u8, bool, usize, Vec<u8>)> {
    (
        1u8..=2,
        any::<bool>(),
        any::<usize>(),
        prop::collection::vec(
            prop_oneof![
                3 => any::<u8>(),
                2 => prop::sample::select(vec![0u8, 1, 2, 3, 4, 6, 8, 10, 11, 12, 13, 14, 15, 0x7f, 0xff]),
            ],
            0..300,
        ),
    )
}

#[test]
fn decode_real_header_then_garbage() {
    let s = Services::new();
    let names: Vec<Vec<(&'static str, Vec<u8>)>> = [corpus::Proto::Binary, corpus::Proto::Compact]
        .iter()
        .flat_map(|p| [calls::thrift1(*p), calls::thrift2(*p)])
        .collect();
    check(
        "decode_real_header_then_garbage",
        1_200,
        header_then_garbage(),
        |(service, compact, i, tail)| {
            let list = &names[usize::from(compact) * 2 + usize::from(service - 1)];
            let (_, call) = &list[i % list.len()];
            // Keep the header (through the sequence id), replace the arguments.
            let proto = if compact {
                corpus::Proto::Compact
            } else {
                corpus::Proto::Binary
            };
            let head = header_len(call, proto_of(proto));
            let mut m = call[..head].to_vec();
            m.extend_from_slice(&tail);
            feed(s.processor(service), &m)?;
            Ok(())
        },
    );
}

/// Bytes of a message up to and including its sequence id (binary) or name (compact).
fn header_len(m: &[u8], p: Protocol) -> usize {
    match p {
        Protocol::Binary { .. } => {
            let n = i32::from_be_bytes(m[4..8].try_into().unwrap()) as usize;
            8 + n + 4
        }
        Protocol::Compact => {
            let mut i = 2;
            while m[i] & 0x80 != 0 {
                i += 1;
            }
            i += 1;
            let mut n = 0usize;
            let mut shift = 0;
            loop {
                let b = m[i];
                n |= usize::from(b & 0x7f) << shift;
                shift += 7;
                i += 1;
                if b & 0x80 == 0 {
                    break;
                }
            }
            i + n
        }
    }
}

#[test]
fn decode_arbitrary_bytes() {
    let s = Services::new();
    check(
        "decode_arbitrary_bytes",
        1_500,
        (
            1u8..=2,
            prop_oneof![Just(0x80u8), Just(0x82), Just(0x00), any::<u8>()],
            prop_oneof![
                Just(0x01u8),
                Just(0x21),
                Just(0x41),
                Just(0x81),
                any::<u8>()
            ],
            prop::collection::vec(any::<u8>(), 0..300),
        ),
        |(service, b0, b1, rest)| {
            let mut m = vec![b0, b1];
            m.extend(rest);
            feed(s.processor(service), &m)?;
            Ok(())
        },
    );
}
