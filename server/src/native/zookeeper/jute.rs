//! ZooKeeper's record serialization (jute's binary archive): big-endian integers, a one-byte
//! boolean, strings and byte buffers as a 4-byte length (-1 for null) then the bytes, vectors
//! as a 4-byte count then the elements. The reader never trusts a length: every one is checked
//! against the bytes left before anything is allocated.

use std::fmt;

/// A record that does not decode: what was being read and why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub String);

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads records from one packet's bytes.
pub struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len()
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Malformed> {
        if self.buf.len() < n {
            return Err(Malformed(format!(
                "{what}: needs {n} bytes, the packet has {} left",
                self.buf.len()
            )));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    pub fn int(&mut self, what: &str) -> Result<i32, Malformed> {
        let b = self.take(4, what)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn long(&mut self, what: &str) -> Result<i64, Malformed> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    pub fn bool(&mut self, what: &str) -> Result<bool, Malformed> {
        Ok(self.take(1, what)?[0] != 0)
    }

    /// A buffer; null (length -1) reads as empty.
    pub fn buffer(&mut self, what: &str) -> Result<&'a [u8], Malformed> {
        let len = self.int(what)?;
        match len {
            -1 => Ok(&[]),
            n if n < 0 => Err(Malformed(format!("{what}: negative length {n}"))),
            n => self.take(n as usize, what),
        }
    }

    /// A UTF-8 string; null reads as empty.
    pub fn string(&mut self, what: &str) -> Result<&'a str, Malformed> {
        let b = self.buffer(what)?;
        std::str::from_utf8(b).map_err(|_| Malformed(format!("{what}: not UTF-8")))
    }

    /// A vector of strings; each element costs at least its 4-byte length, so a count larger
    /// than the bytes left allow is refused before any element is read.
    pub fn strings(&mut self, what: &str) -> Result<Vec<&'a str>, Malformed> {
        let n = self.int(what)?;
        if n == -1 {
            return Ok(Vec::new());
        }
        if n < 0 || n as usize > self.remaining() / 4 {
            return Err(Malformed(format!(
                "{what}: {n} elements cannot fit in the {} bytes left",
                self.remaining()
            )));
        }
        (0..n).map(|_| self.string(what)).collect()
    }
}

/// Writes records into one packet (the 4-byte packet length is added by [`Writer::packet`]).
#[derive(Default)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// A packet: room for its length first.
    pub fn new() -> Writer {
        Writer {
            buf: vec![0, 0, 0, 0],
        }
    }

    /// A record to be appended to a packet with [`Writer::extend`].
    pub fn body() -> Writer {
        Writer { buf: Vec::new() }
    }

    pub fn extend(&mut self, record: Writer) -> &mut Self {
        self.raw(&record.buf)
    }

    /// Bytes as they are (no length).
    pub fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(bytes);
        self
    }

    /// What was written so far (a packet's with its length still unset).
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    pub fn int(&mut self, v: i32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub fn long(&mut self, v: i64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.buf.push(u8::from(v));
        self
    }

    pub fn buffer(&mut self, v: &[u8]) -> &mut Self {
        self.int(v.len() as i32);
        self.buf.extend_from_slice(v);
        self
    }

    pub fn string(&mut self, v: &str) -> &mut Self {
        self.buffer(v.as_bytes())
    }

    pub fn strings<S: AsRef<str>>(&mut self, v: &[S]) -> &mut Self {
        self.int(v.len() as i32);
        for s in v {
            self.string(s.as_ref());
        }
        self
    }

    /// The packet: its length, then what was written.
    pub fn packet(mut self) -> Vec<u8> {
        let len = (self.buf.len() - 4) as u32;
        self.buf[..4].copy_from_slice(&len.to_be_bytes());
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_lying_lengths() {
        let mut w = Writer::new();
        w.int(-2)
            .long(7)
            .bool(true)
            .string("/hbase")
            .strings(&["a", "bc"]);
        let p = w.packet();
        assert_eq!(
            u32::from_be_bytes(p[..4].try_into().unwrap()) as usize,
            p.len() - 4
        );
        let mut r = Reader::new(&p[4..]);
        assert_eq!(r.int("x").unwrap(), -2);
        assert_eq!(r.long("x").unwrap(), 7);
        assert!(r.bool("x").unwrap());
        assert_eq!(r.string("x").unwrap(), "/hbase");
        assert_eq!(r.strings("x").unwrap(), vec!["a", "bc"]);
        assert_eq!(r.remaining(), 0);
        // A string claiming more bytes than the packet holds, a negative length, a vector
        // count no packet could hold, bytes that are not UTF-8.
        let mut r = Reader::new(&[0, 0, 0, 9, b'a']);
        assert!(r.string("path").is_err());
        let mut r = Reader::new(&[0xff, 0xff, 0xff, 0xf0]);
        assert!(r.buffer("data").is_err());
        let mut r = Reader::new(&[0x7f, 0xff, 0xff, 0xff, 0, 0]);
        assert!(r.strings("watches").is_err());
        let mut r = Reader::new(&[0, 0, 0, 1, 0xff]);
        assert!(r.string("path").is_err());
    }
}
