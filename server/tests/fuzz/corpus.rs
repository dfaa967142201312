//! The seed corpus (`server/tests/fuzz_corpus/*.hex`) and the mutations every target starts
//! from.
//!
//! A corpus file is one message as it travels on a connection, in hex (whitespace ignored,
//! `#` starts a comment line), named `<service>-<transport>-<protocol>-<what>.hex`:
//! service `t1` (Hbase) or `t2` (THBaseService), transport `buffered` (the bare message) or
//! `framed` (a 4-byte length first), protocol `binary` or `compact`. Files whose `<what>`
//! starts with `crash-` are inputs that once killed, panicked or hung the server.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proto {
    Binary,
    Compact,
}

impl Proto {
    pub fn name(self) -> &'static str {
        match self {
            Proto::Binary => "binary",
            Proto::Compact => "compact",
        }
    }
}

/// One corpus file.
#[derive(Debug, Clone)]
pub struct Seed {
    pub file: String,
    /// 1 or 2.
    pub service: u8,
    pub proto: Proto,
    /// Whether the message is one that once broke the server.
    pub crasher: bool,
    /// The message itself (the frame's payload for framed files).
    pub message: Vec<u8>,
}

pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus")
}

pub fn unhex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.bytes())
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    assert!(digits.len() % 2 == 0, "odd number of hex digits");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).expect("hex"))
        .collect()
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every corpus file, sorted by name.
pub fn load() -> Vec<Seed> {
    let seeds = load_from(&dir());
    assert!(!seeds.is_empty(), "the fuzz corpus {}", dir().display());
    seeds
}

/// Open crashers: inputs that still break the server, kept out of the replayed corpus (one
/// would abort the test process) in `fuzz_corpus/open/` (absent while there are none) and
/// replayed one per child process by `decode_open_crashers`
/// (`cargo test -p redbase --test fuzz open -- --ignored`).
pub fn open_dir() -> PathBuf {
    dir().join("open")
}

/// The bytes of each `.hex` file of `dir`, sorted by name (none if `dir` does not exist).
pub fn load_from_raw(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "hex"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| unhex(&std::fs::read_to_string(p).unwrap()))
        .collect()
}

/// The `.hex` files of `dir`, sorted by name (none if `dir` does not exist).
pub fn load_from(dir: &Path) -> Vec<Seed> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "hex"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let file = p.file_name().unwrap().to_string_lossy().into_owned();
            let parts: Vec<&str> = file.trim_end_matches(".hex").splitn(4, '-').collect();
            assert_eq!(
                parts.len(),
                4,
                "{file}: <service>-<transport>-<protocol>-<what>"
            );
            let service = match parts[0] {
                "t1" => 1,
                "t2" => 2,
                s => panic!("{file}: unknown service {s}"),
            };
            let framed = match parts[1] {
                "buffered" => false,
                "framed" => true,
                s => panic!("{file}: unknown transport {s}"),
            };
            let proto = match parts[2] {
                "binary" => Proto::Binary,
                "compact" => Proto::Compact,
                s => panic!("{file}: unknown protocol {s}"),
            };
            let raw = unhex(&std::fs::read_to_string(p).unwrap());
            let message = if framed {
                let len = u32::from_be_bytes(raw[..4].try_into().unwrap()) as usize;
                assert_eq!(len, raw.len() - 4, "{file}: the frame length");
                raw[4..].to_vec()
            } else {
                raw
            };
            Seed {
                file: file.clone(),
                service,
                proto,
                crasher: parts[3].starts_with("crash-"),
                message,
            }
        })
        .collect()
}

/// One change to a message. Positions and lengths are taken modulo what the message allows.
#[derive(Debug, Clone)]
pub enum Mutation {
    FlipBit(usize, u8),
    SetByte(usize, u8),
    /// Overwrite with an interesting big-endian i32 (lengths, counts, sizes).
    Int32(usize, i32),
    /// Overwrite with a compact varint of an interesting value.
    Varint(usize, u64),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    /// Repeat a slice of the message after itself.
    Duplicate(usize, usize),
    Truncate(usize),
    /// Replace the tail with the tail of another seed.
    Splice(usize, usize),
}

const INTERESTING_I32: &[i32] = &[
    0,
    1,
    -1,
    2,
    127,
    128,
    255,
    256,
    0x7fff,
    0x8000,
    0xffff,
    0x10000,
    16 << 20,
    (16 << 20) + 1,
    i32::MAX,
    i32::MIN,
    i32::MAX - 1,
    -2,
];

const INTERESTING_U64: &[u64] = &[
    0,
    1,
    0x7f,
    0x80,
    0x3fff,
    0x4000,
    0x7fff_ffff,
    0xffff_ffff,
    0x1_0000_0000,
    u64::MAX,
    i64::MAX as u64,
];

pub fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<usize>(), 0u8..8).prop_map(|(p, b)| Mutation::FlipBit(p, b)),
        3 => (any::<usize>(), prop_oneof![Just(0u8), Just(0xff), Just(0x7f), Just(0x80), any::<u8>()])
            .prop_map(|(p, b)| Mutation::SetByte(p, b)),
        2 => (any::<usize>(), prop::sample::select(INTERESTING_I32))
            .prop_map(|(p, v)| Mutation::Int32(p, v)),
        1 => (any::<usize>(), prop::sample::select(INTERESTING_U64))
            .prop_map(|(p, v)| Mutation::Varint(p, v)),
        2 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(p, b)| Mutation::Insert(p, b)),
        2 => (any::<usize>(), 1usize..16).prop_map(|(p, n)| Mutation::Delete(p, n)),
        1 => (any::<usize>(), 1usize..64).prop_map(|(p, n)| Mutation::Duplicate(p, n)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(s, p)| Mutation::Splice(s, p)),
    ]
}

/// An index into the seeds and the changes to make to that seed.
pub fn mutations() -> impl Strategy<Value = (usize, Vec<Mutation>)> {
    (any::<usize>(), prop::collection::vec(mutation(), 1..6))
}

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

/// Applies `muts` to `base`; `others` are the seeds a splice may take its tail from.
pub fn apply(base: &[u8], muts: &[Mutation], others: &[&[u8]]) -> Vec<u8> {
    let mut m = base.to_vec();
    for mu in muts {
        let len = m.len();
        let at = |p: usize| if len == 0 { 0 } else { p % len };
        let at_end = |p: usize| p % (len + 1);
        match mu {
            Mutation::FlipBit(p, b) if len > 0 => m[at(*p)] ^= 1 << b,
            Mutation::SetByte(p, v) if len > 0 => m[at(*p)] = *v,
            Mutation::Int32(p, v) => {
                let p = at_end(*p);
                let bytes = v.to_be_bytes();
                for (i, b) in bytes.iter().enumerate() {
                    if p + i < m.len() {
                        m[p + i] = *b;
                    } else {
                        m.push(*b);
                    }
                }
            }
            Mutation::Varint(p, v) => {
                let p = at_end(*p);
                let end = (p + 1).min(m.len());
                m.splice(p..end, varint(*v));
            }
            Mutation::Insert(p, b) => {
                let p = at_end(*p);
                m.splice(p..p, b.iter().copied());
            }
            Mutation::Delete(p, n) if len > 0 => {
                let p = at(*p);
                let end = (p + n).min(len);
                m.drain(p..end);
            }
            Mutation::Duplicate(p, n) if len > 0 => {
                let p = at(*p);
                let end = (p + n).min(len);
                let s: Vec<u8> = m[p..end].to_vec();
                m.splice(end..end, s);
            }
            Mutation::Truncate(p) => m.truncate(at_end(*p)),
            Mutation::Splice(s, p) if !others.is_empty() => {
                let other = others[s % others.len()];
                let p = at_end(*p);
                let q = if other.is_empty() {
                    0
                } else {
                    p.min(other.len() - 1)
                };
                m.truncate(p);
                m.extend_from_slice(&other[q..]);
            }
            _ => {}
        }
    }
    m
}
