//! The seed corpus and its mutations: Thrift messages from `server/tests/fuzz_corpus/`, and
//! the random choices every target makes.

use std::path::Path;

// ---------------------------------------------------------------------------------------------
// Seeds and mutations
// ---------------------------------------------------------------------------------------------

pub struct Seed {
    pub service: u8,
    pub crasher: bool,
    pub message: Vec<u8>,
}

pub fn unhex(s: &str) -> Option<Vec<u8>> {
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

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn load_corpus(dir: &Path) -> Result<Vec<Seed>, String> {
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
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn byte(&mut self) -> u8 {
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

pub fn mutate(rng: &mut Rng, base: &[u8], others: &[Seed]) -> Vec<u8> {
    let others: Vec<&[u8]> = others.iter().map(|s| s.message.as_slice()).collect();
    mutate_bytes(rng, base, &others)
}

/// One to five random changes to `base`: bit flips, interesting bytes and lengths, inserts,
/// deletes, duplicates, a cut, or a splice of another seed's tail.
pub fn mutate_bytes(rng: &mut Rng, base: &[u8], others: &[&[u8]]) -> Vec<u8> {
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
                let other = others
                    .get(rng.below(others.len().max(1)))
                    .copied()
                    .unwrap_or(&[]);
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
pub fn body(rng: &mut Rng, seeds: &[Seed], service: u8) -> Vec<u8> {
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
