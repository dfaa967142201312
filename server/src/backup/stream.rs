//! The body of `POST /api/backup`: the backup's files one after another, then its manifest,
//! in frames the client checks as they arrive.
//!
//! ```text
//! frame = u8 tag, u32 LE payload length, payload
//!   'F'  a file begins: its path in the backup directory (UTF-8, relative, `/`-separated)
//!   'D'  the file's next bytes (at most DATA_MAX)
//!   'E'  the file ends: JSON {"size": bytes, "sha256": "hex"} as the server computed them
//!   'M'  the manifest (JSON, [`super::manifest::Manifest`]); the last frame of a backup
//!   'X'  the server failed (the message); the backup is incomplete
//! ```
//!
//! A body that ends without an 'M' frame (the connection broke, the server died) is an
//! incomplete backup: the client never writes a manifest for it.

use serde::{Deserialize, Serialize};

use crate::engine::BackupError;

pub const TAG_FILE: u8 = b'F';
pub const TAG_DATA: u8 = b'D';
pub const TAG_END: u8 = b'E';
pub const TAG_MANIFEST: u8 = b'M';
pub const TAG_ERROR: u8 = b'X';
/// The largest data frame the server sends.
pub const DATA_MAX: usize = 256 * 1024;
/// The largest frame a client accepts (a manifest of many regions is the biggest).
const FRAME_MAX: usize = 64 << 20;

/// What an 'E' frame says about the file it ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEnd {
    pub size: u64,
    pub sha256: String,
}

/// Encodes one frame.
pub fn frame(tag: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + payload.len());
    out.push(tag);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Cuts frames out of the body's chunks as they arrive.
#[derive(Default)]
pub struct Decoder {
    buf: Vec<u8>,
    start: usize,
}

impl Decoder {
    pub fn push(&mut self, chunk: &[u8]) {
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        self.buf.extend_from_slice(chunk);
    }

    /// The next whole frame, if one has arrived.
    pub fn next_frame(&mut self) -> Result<Option<(u8, Vec<u8>)>, BackupError> {
        let rest = &self.buf[self.start..];
        if rest.len() < 5 {
            return Ok(None);
        }
        let len = u32::from_le_bytes([rest[1], rest[2], rest[3], rest[4]]) as usize;
        if len > FRAME_MAX {
            return Err(BackupError::Stream {
                message: format!("a frame of {len} bytes (the most is {FRAME_MAX})"),
            });
        }
        if rest.len() < 5 + len {
            return Ok(None);
        }
        let tag = rest[0];
        let payload = rest[5..5 + len].to_vec();
        self.start += 5 + len;
        if self.start > (1 << 20) {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        Ok(Some((tag, payload)))
    }

    /// Whether bytes of an unfinished frame are left.
    pub fn has_partial(&self) -> bool {
        self.start < self.buf.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_survive_any_chunking() {
        let mut body = frame(TAG_FILE, b"a/b.dump");
        body.extend(frame(TAG_DATA, &[7u8; 1000]));
        body.extend(frame(TAG_MANIFEST, b"{}"));
        for cut in [1usize, 3, 5, 999, 4096] {
            let mut d = Decoder::default();
            let mut got = Vec::new();
            for chunk in body.chunks(cut) {
                d.push(chunk);
                while let Some(f) = d.next_frame().unwrap() {
                    got.push(f);
                }
            }
            assert!(!d.has_partial());
            assert_eq!(got.len(), 3);
            assert_eq!(got[1].1.len(), 1000);
        }
    }
}
