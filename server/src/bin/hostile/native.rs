//! The native RPC target (`--native`): connections opened with HBase's preamble and connection
//! header, then calls from the native seed corpus (`server/tests/fuzz_corpus/native/`, whole
//! connection openings as hbase-client frames them), as they are, mutated, naming methods no
//! service has, with huge cell blocks, or with lying lengths; and openings that are wrong
//! (another version or auth byte, garbage, a codec or compressor the server lacks, an unknown
//! service).
//!
//! The rule the server must keep: every call is answered (a response naming its call id, or a
//! fatal answer with call id -1) or the connection closed, within `--reply-timeout-secs`; a
//! connection whose bytes lie is closed once the client stops sending. A response that is not
//! HBase's framing, or names another call, is a bad reply.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use prost::Message;
use redbase::native::pb;

use crate::corpus::{hex, mutate_bytes, unhex, Rng};
use crate::net::{await_close, connect, is_close, is_timeout};
use crate::{add, take_message, Run};

/// One seed: its connection header frame (length included) and its call frames.
pub struct Opening {
    pub header: Vec<u8>,
    pub calls: Vec<Vec<u8>>,
}

/// Splits a corpus file's bytes (preamble, header, calls) into its parts; `None` for the
/// registry preamble and anything else without a header.
fn split(bytes: &[u8]) -> Option<Opening> {
    let rest = bytes.strip_prefix(b"HBas\x00\x50")?;
    let frame = |b: &[u8]| -> Option<usize> {
        let n = u32::from_be_bytes(b.get(..4)?.try_into().ok()?) as usize;
        (b.len() >= 4 + n).then_some(4 + n)
    };
    let h = frame(rest)?;
    let mut calls = Vec::new();
    let mut at = h;
    while at < rest.len() {
        let n = frame(&rest[at..])?;
        calls.push(rest[at..at + n].to_vec());
        at += n;
    }
    Some(Opening {
        header: rest[..h].to_vec(),
        calls,
    })
}

/// The native corpus: every `.hex` file of `dir` that opens a connection.
pub fn load(dir: &Path) -> Result<Vec<Opening>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "hex"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let bytes = unhex(&text).ok_or_else(|| format!("{}: not hex", f.display()))?;
        out.extend(split(&bytes).filter(|o| !o.calls.is_empty()));
    }
    if out.is_empty() {
        return Err(format!("{}: no native seeds", dir.display()));
    }
    Ok(out)
}

const PREAMBLE: &[u8] = b"HBas\x00\x50";

fn header_frame(service: &str, codec: Option<&str>, compressor: Option<&str>) -> Vec<u8> {
    let h = pb::ConnectionHeader {
        service_name: Some(service.into()),
        cell_block_codec_class: codec.map(String::from),
        cell_block_compressor_class: compressor.map(String::from),
        ..Default::default()
    };
    let mut out = (h.encoded_len() as u32).to_be_bytes().to_vec();
    h.encode(&mut out).expect("a Vec grows");
    out
}

/// A call frame: `header` with `id`, then `rest` (the parameter and cells), honest length.
fn frame(mut header: pb::RequestHeader, id: u32, rest: &[u8]) -> Vec<u8> {
    header.call_id = Some(id);
    let mut body = Vec::new();
    header
        .encode_length_delimited(&mut body)
        .expect("a Vec grows");
    body.extend_from_slice(rest);
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(&body);
    out
}

/// A seed call's header and what follows it (`None`: the seed does not parse).
fn parts(call: &[u8]) -> Option<(pb::RequestHeader, &[u8])> {
    let mut body = call.get(4..)?;
    let h = pb::RequestHeader::decode_length_delimited(&mut body).ok()?;
    Some((h, body))
}

/// What one message is, for the judgement of what came back.
enum Sent {
    /// An honest frame with this call id: answered or closed.
    Call(u32),
    /// Bytes that lie about their length, or a frame mutated past predicting: the
    /// connection must close once the client stops sending.
    Lie,
}

/// The next message on a connection past its opening.
fn message(rng: &mut Rng, seeds: &[Opening], id: u32, max: usize) -> (Vec<u8>, Sent) {
    let seed = &seeds[rng.below(seeds.len())];
    let call = &seed.calls[rng.below(seed.calls.len())];
    let Some((header, rest)) = parts(call) else {
        return (call.clone(), Sent::Lie);
    };
    match rng.below(100) {
        0..=39 => (frame(header, id, rest), Sent::Call(id)),
        40..=59 => {
            // Mutated header and body, the length kept honest. What the server makes of it
            // (an answer under whatever call id the mutation left, or a close) is not
            // predicted: it must end the connection once the client stops.
            let others: Vec<&[u8]> = seeds
                .iter()
                .flat_map(|s| &s.calls)
                .map(|c| &c[4..])
                .collect();
            let body = mutate_bytes(rng, &call[4..], &others);
            let mut out = (body.len() as u32).to_be_bytes().to_vec();
            out.extend_from_slice(&body);
            (out, Sent::Lie)
        }
        60..=67 => {
            let mut h = header;
            h.method_name = Some(format!("NoSuchMethod{}", rng.below(1000)));
            (frame(h, id, rest), Sent::Call(id))
        }
        68..=72 => {
            // A huge cell block, sent whole: up to a fifth past --max-message-size.
            let n = rng.below(max + max / 5).max(1);
            let mut h = header;
            h.cell_block_meta = Some(pb::CellBlockMeta {
                length: Some(n as u32),
            });
            let mut more = rest.to_vec();
            more.extend(std::iter::repeat_n(rng.byte(), n));
            (frame(h, id, &more), Sent::Call(id))
        }
        73..=85 => {
            // A cell block claiming more than the frame holds.
            let mut h = header;
            h.cell_block_meta = Some(pb::CellBlockMeta {
                length: Some(1 + rng.below(1 << 20) as u32),
            });
            (frame(h, id, rest), Sent::Call(id))
        }
        86..=92 => {
            // A length that claims more than follows.
            let mut f = frame(header, id, rest);
            let claimed = (f.len() - 4 + 1 + rng.below(1 << 16)) as u32;
            f[..4].copy_from_slice(&claimed.to_be_bytes());
            (f, Sent::Lie)
        }
        _ => {
            // A length that claims less: the rest reads as the next frame.
            let mut f = frame(header, id, rest);
            let claimed = rng.below(f.len() - 4) as u32;
            f[..4].copy_from_slice(&claimed.to_be_bytes());
            (f, Sent::Lie)
        }
    }
}

/// A connection's opening: the bytes, and whether the server must refuse it.
fn opening(rng: &mut Rng, seeds: &[Opening]) -> (Vec<u8>, bool) {
    let good = |rng: &mut Rng| {
        let mut b = PREAMBLE.to_vec();
        b.extend_from_slice(&seeds[rng.below(seeds.len())].header);
        b
    };
    let with = |preamble: &[u8], header: Vec<u8>| {
        let mut b = preamble.to_vec();
        b.extend(header);
        b
    };
    let codec = Some("org.apache.hadoop.hbase.codec.KeyValueCodec");
    match rng.below(100) {
        0..=4 => {
            let mut p = good(rng);
            p[4] = 1 + rng.below(255) as u8;
            (p, true)
        }
        5..=8 => {
            let mut p = good(rng);
            p[5] = [0x51, 0x52, 0x00, 0xff][rng.below(4)];
            (p, true)
        }
        9..=11 => ((0..6 + rng.below(64)).map(|_| rng.byte()).collect(), true),
        12..=14 => (
            with(
                PREAMBLE,
                header_frame("ClientService", Some("com.example.NoCodec"), None),
            ),
            true,
        ),
        15..=17 => (
            with(PREAMBLE, header_frame("NoSuchService", codec, None)),
            true,
        ),
        18..=20 => (
            with(
                PREAMBLE,
                header_frame(
                    "ClientService",
                    codec,
                    Some("org.apache.hadoop.io.compress.GzipCodec"),
                ),
            ),
            true,
        ),
        21..=23 => (b"Regist".to_vec(), true),
        24..=27 => {
            // A header that is not a ConnectionHeader, its length honest.
            let junk: Vec<u8> = (0..1 + rng.below(64)).map(|_| rng.byte()).collect();
            let mut b = PREAMBLE.to_vec();
            b.extend_from_slice(&(junk.len() as u32).to_be_bytes());
            b.extend(junk);
            (b, true)
        }
        _ => (good(rng), false),
    }
}

enum Got {
    Answer,
    Exception,
    /// The fatal answer (call id -1): the server closes next.
    Fatal,
    Closed,
    Hang,
    Bad(String),
}

/// Reads responses until one names `id` (or is fatal), or the connection ends.
fn read_answer(s: &mut TcpStream, id: u32, max: usize) -> Got {
    loop {
        let mut len = [0u8; 4];
        match s.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if is_close(&e) => return Got::Closed,
            Err(e) if is_timeout(&e) => return Got::Hang,
            Err(e) => return Got::Bad(e.to_string()),
        }
        let n = u32::from_be_bytes(len) as usize;
        if n > max.saturating_mul(2).max(1 << 20) {
            return Got::Bad(format!("a response of {n} bytes"));
        }
        let mut body = vec![0u8; n];
        match s.read_exact(&mut body) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
                return Got::Bad(format!("closed inside a response of {n} bytes"))
            }
            Err(e) if is_close(&e) => return Got::Closed,
            Err(e) if is_timeout(&e) => return Got::Hang,
            Err(e) => return Got::Bad(e.to_string()),
        }
        let header = match pb::ResponseHeader::decode_length_delimited(&body[..]) {
            Ok(h) => h,
            Err(e) => {
                return Got::Bad(format!("undecodable response header ({e}): {}", hex(&body)))
            }
        };
        match header.call_id {
            Some(u32::MAX) => return Got::Fatal,
            Some(c) if c == id => {
                return if header.exception.is_some() {
                    Got::Exception
                } else {
                    Got::Answer
                }
            }
            // An answer to an earlier call whose id a mutation changed: read on.
            Some(_) => {}
            None => return Got::Bad(format!("a response without a call id: {}", hex(&body))),
        }
    }
}

pub fn worker(run: Arc<Run>, id: u64) {
    let addr = run.cli.native;
    let mut rng = Rng::new(run.cli.seed ^ (id + 7).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let seeds = &run.native;
    let c = &run.counts;
    let max = run.cli.max_message_size;
    let label = "native";
    while !run.stop.load(Ordering::Relaxed) {
        if !take_message(&run) {
            return;
        }
        let Some(mut s) = connect(&run, addr) else {
            return;
        };
        add(&c.connections);
        let (open, refused) = opening(&mut rng, seeds);
        if refused {
            let _ = s.write_all(&open);
            if await_close(&mut s) {
                add(&c.expected_closes);
            } else {
                add(&c.hangs);
                run.finding("hang-no-close", label, &open, "a refused opening");
            }
            continue;
        }
        if s.write_all(&open).is_err() {
            add(&c.expected_closes);
            continue;
        }
        let calls = 1 + rng.below(run.cli.messages_per_connection as usize);
        let mut ended = false;
        for n in 0..calls {
            if !take_message(&run) {
                break;
            }
            let (bytes, sent) = message(&mut rng, seeds, n as u32 + 1, max);
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
                        run.finding("hang-no-close", label, &bytes, "a lying frame");
                    }
                    ended = true;
                    break;
                }
                Sent::Call(id) => read_answer(&mut s, id, max),
            };
            match got {
                Got::Answer => add(&c.replies),
                Got::Exception => add(&c.exceptions),
                Got::Fatal | Got::Closed => {
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
            run.finding("hang-no-close", label, b"", "after the client's last call");
        }
        let _ = s.shutdown(Shutdown::Both);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_splits_into_headers_and_calls_and_messages_keep_their_word() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus/native");
        let seeds = load(&dir).unwrap();
        assert!(seeds.len() >= 10, "{}", seeds.len());
        for s in &seeds {
            let n = u32::from_be_bytes(s.header[..4].try_into().unwrap()) as usize;
            assert_eq!(n + 4, s.header.len());
            assert!(pb::ConnectionHeader::decode(&s.header[4..]).is_ok());
            assert!(parts(&s.calls[0]).is_some());
        }
        let mut rng = Rng::new(5);
        for i in 0..500 {
            let (bytes, sent) = message(&mut rng, &seeds, i + 1, 64 * 1024);
            if let Sent::Call(id) = sent {
                // An honest frame: its length is what follows, its header names the call.
                let n = u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
                assert_eq!(n + 4, bytes.len());
                let (h, _) = parts(&bytes).unwrap();
                assert_eq!(h.call_id, Some(id));
            }
        }
    }
}
