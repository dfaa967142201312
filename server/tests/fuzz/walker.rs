//! The frame walker (`redbase::thrift::frame`): whatever the bytes, every function answers
//! (no panic, no endless loop, time linear in the input), and its answers agree with each
//! other: a complete message stays complete whatever follows it, every proper prefix of a
//! complete message is Incomplete, and lengths never point past the buffer.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use redbase::thrift::frame::{
    detect_protocol, detect_transport, frame_len, message_header, message_len, Protocol, Scan,
};

use super::corpus::{self, Proto};
use super::runner::{check, note};

const PROTOCOLS: [Protocol; 3] = [
    Protocol::Binary { strict: true },
    Protocol::Binary { strict: false },
    Protocol::Compact,
];

const BIG: usize = 16 << 20;

pub fn proto_of(p: Proto) -> Protocol {
    match p {
        Proto::Binary => Protocol::Binary { strict: true },
        Proto::Compact => Protocol::Compact,
    }
}

/// Everything the walker can be asked about `buf`, with the invariants each answer must keep.
fn walk_all(buf: &[u8]) -> Result<(), TestCaseError> {
    let started = Instant::now();
    match detect_transport(buf) {
        Scan::Done(_, n) => prop_assert!(n <= buf.len()),
        Scan::Incomplete => prop_assert!(buf.len() < 8, "Incomplete on {} bytes", buf.len()),
        Scan::Invalid(_) => {}
    }
    if let Scan::Done(_, n) = detect_protocol(buf) {
        prop_assert!(n <= buf.len());
    }
    for max in [0, 1, 16, buf.len(), BIG] {
        match frame_len(buf, max) {
            Scan::Done(len, used) => {
                prop_assert_eq!(used, len + 4);
                prop_assert!(used <= buf.len() && len <= max && len > 0);
            }
            Scan::Incomplete => {}
            Scan::Invalid(_) => {}
        }
    }
    for p in PROTOCOLS {
        let _ = message_header(buf, p);
        for max in [0, 7, buf.len(), BIG] {
            match message_len(buf, p, max) {
                Scan::Done((), n) => {
                    prop_assert!(n > 0 && n <= buf.len(), "{p:?} Done({n}) of {}", buf.len());
                    // A complete message stays complete, whatever follows it.
                    let mut more = buf.to_vec();
                    more.extend_from_slice(&[0x0c, 0x00, 0x01, 0xff]);
                    prop_assert_eq!(message_len(&more, p, max), Scan::Done((), n));
                }
                Scan::Incomplete => {
                    prop_assert!(buf.len() <= max, "Incomplete beyond the maximum");
                }
                Scan::Invalid(_) => {}
            }
        }
    }
    prop_assert!(
        started.elapsed() < Duration::from_secs(2),
        "walking {} bytes took {:?}",
        buf.len(),
        started.elapsed()
    );
    Ok(())
}

/// `buf[..n]` is a complete message: every shorter prefix is Incomplete.
fn prefixes_are_incomplete(buf: &[u8], p: Protocol, n: usize) -> Result<(), TestCaseError> {
    for i in 0..n {
        prop_assert_eq!(
            message_len(&buf[..i], p, BIG),
            Scan::Incomplete,
            "{:?}: prefix {} of a {}-byte message",
            p,
            i,
            n
        );
    }
    Ok(())
}

#[test]
fn walker_corpus_every_valid_message_is_whole_and_its_prefixes_incomplete() {
    for s in corpus::load() {
        walk_all(&s.message).unwrap();
        let p = proto_of(s.proto);
        if !s.crasher {
            assert_eq!(
                message_len(&s.message, p, BIG),
                Scan::Done((), s.message.len()),
                "{}",
                s.file
            );
            prefixes_are_incomplete(&s.message, p, s.message.len()).unwrap();
            assert_eq!(detect_protocol(&s.message), Scan::Done(p, 0), "{}", s.file);
            let mut framed = (s.message.len() as u32).to_be_bytes().to_vec();
            framed.extend_from_slice(&s.message);
            assert!(
                matches!(detect_transport(&framed), Scan::Done(_, 0)),
                "{}",
                s.file
            );
        }
    }
}

#[test]
fn walker_arbitrary_bytes() {
    check(
        "walker_arbitrary_bytes",
        4_000,
        prop::collection::vec(any::<u8>(), 0..600),
        |buf| {
            note("bytes", &buf);
            walk_all(&buf)
        },
    );
}

/// Bytes that start like a message (a real header) and go on at random: deeper walks.
fn header_then_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(vec![
            vec![0x80u8, 0x01, 0x00, 0x01, 0, 0, 0, 1, b'x', 0, 0, 0, 1],
            vec![0, 0, 0, 1, b'x', 1, 0, 0, 0, 1],
            vec![0x82, 0x21, 0x01, 0x01, b'x'],
        ]),
        prop::collection::vec(
            prop_oneof![
                4 => any::<u8>(),
                1 => prop::sample::select(vec![0u8, 1, 2, 3, 4, 6, 8, 10, 11, 12, 13, 14, 15, 0x19, 0x1c, 0xf9, 0xff]),
            ],
            0..400,
        ),
    )
        .prop_map(|(mut h, t)| {
            h.extend(t);
            h
        })
}

#[test]
fn walker_header_then_random_structure() {
    check(
        "walker_header_then_random_structure",
        2_000,
        header_then_bytes(),
        |buf| {
            note("bytes", &buf);
            walk_all(&buf)?;
            for p in PROTOCOLS {
                if let Scan::Done((), n) = message_len(&buf, p, BIG) {
                    prefixes_are_incomplete(&buf, p, n)?;
                }
            }
            Ok(())
        },
    );
}

#[test]
fn walker_mutated_valid_messages() {
    let seeds = corpus::load();
    let bodies: Vec<&[u8]> = seeds.iter().map(|s| s.message.as_slice()).collect();
    check(
        "walker_mutated_valid_messages",
        3_000,
        corpus::mutations(),
        |(i, muts)| {
            let s = &seeds[i % seeds.len()];
            let m = corpus::apply(&s.message, &muts, &bodies);
            note("message", &m);
            walk_all(&m)?;
            let p = proto_of(s.proto);
            if let Scan::Done((), n) = message_len(&m, p, BIG) {
                prefixes_are_incomplete(&m, p, n)?;
            }
            // As a frame: the frame length agrees with the payload.
            let mut framed = (m.len() as u32).to_be_bytes().to_vec();
            framed.extend_from_slice(&m);
            if !m.is_empty() {
                prop_assert_eq!(frame_len(&framed, BIG), Scan::Done(m.len(), m.len() + 4));
            }
            walk_all(&framed)
        },
    );
}

/// Element counts as large as the buffer allows, in every container of both protocols: the
/// walk is linear (each element costs at least one byte), never quadratic.
#[test]
fn walker_large_counts_stay_linear() {
    let n = 1usize << 20;
    let mut cases: Vec<(Protocol, Vec<u8>)> = Vec::new();
    // binary: list<bool> of n, map<byte,byte> of n/2, nested empty structs n.
    let head = vec![0x80u8, 0x01, 0x00, 0x01, 0, 0, 0, 1, b'x', 0, 0, 0, 1];
    let mut list = head.clone();
    list.extend_from_slice(&[15, 0, 1, 2]);
    list.extend_from_slice(&(n as i32).to_be_bytes());
    list.extend(std::iter::repeat_n(1u8, n));
    list.push(0);
    cases.push((Protocol::Binary { strict: true }, list));
    let mut map = head.clone();
    map.extend_from_slice(&[13, 0, 1, 3, 3]);
    map.extend_from_slice(&((n / 2) as i32).to_be_bytes());
    map.extend(std::iter::repeat_n(7u8, n));
    map.push(0);
    cases.push((Protocol::Binary { strict: true }, map));
    let mut structs = head;
    structs.extend_from_slice(&[15, 0, 1, 12]);
    structs.extend_from_slice(&(n as i32).to_be_bytes());
    structs.extend(std::iter::repeat_n(0u8, n));
    structs.push(0);
    cases.push((Protocol::Binary { strict: true }, structs));
    // compact: list<bool> of n.
    let mut c = vec![0x82u8, 0x21, 0x01, 0x01, b'x', 0x19, 0xf1];
    let mut v = n as u64;
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            c.push(b);
            break;
        }
        c.push(b | 0x80);
    }
    c.extend(std::iter::repeat_n(1u8, n));
    c.push(0);
    cases.push((Protocol::Compact, c));
    for (p, m) in cases {
        let started = Instant::now();
        assert_eq!(message_len(&m, p, BIG), Scan::Done((), m.len()), "{p:?}");
        // Every prefix the server might see while the message arrives, 64 KiB at a time.
        let mut i = 0;
        while i < m.len() {
            assert_eq!(message_len(&m[..i], p, BIG), Scan::Incomplete);
            i += 64 * 1024;
        }
        let took = started.elapsed();
        assert!(took < Duration::from_secs(10), "{p:?}: {took:?}");
        eprintln!(
            "walker_large_counts_stay_linear: {p:?} {} bytes walked {} times in {took:.1?}",
            m.len(),
            m.len() / (64 * 1024) + 1
        );
    }
}
