//! Finding whole Thrift messages in a connection's bytes, before anything is decoded.
//!
//! A connection's first bytes say how it speaks: an HTTP request line, a 4-byte frame length
//! (framed transport), or a message header straight away (buffered transport). The message
//! itself is strict or non-strict binary, or compact. For buffered transport the only way to
//! know where a message ends is to walk its structure; [`message_len`] does that without
//! allocating and answers "not enough bytes yet" as a normal outcome.

/// How messages are delimited on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Buffered,
    Framed,
    Http,
    /// Thrift's SASL negotiation (status byte, 4-byte length, payload), then framed messages.
    Sasl,
}

/// The longest SASL mechanism name (RFC 4422: 20 characters); a START frame announcing a
/// longer one is not SASL.
pub const MAX_SASL_MECHANISM: u8 = 20;
/// The SASL negotiation status that opens it (START); its payload is the mechanism name.
pub const SASL_START: u8 = 0x01;

/// How a message is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Binary { strict: bool },
    Compact,
}

/// What a look at the start of a buffer found.
#[derive(Debug, PartialEq, Eq)]
pub enum Scan<T> {
    /// Found; the value and how many bytes it took.
    Done(T, usize),
    /// The bytes so far are a valid prefix; wait for more.
    Incomplete,
    /// The bytes cannot be what the peer claims to send.
    Invalid(String),
}

const HTTP_METHODS: [&[u8]; 6] = [
    b"POST ",
    b"GET ",
    b"PUT ",
    b"HEAD ",
    b"OPTIONS ",
    b"DELETE ",
];

/// Decides a connection's transport from its first bytes.
pub fn detect_transport(buf: &[u8]) -> Scan<Transport> {
    if buf.is_empty() {
        return Scan::Incomplete;
    }
    for m in HTTP_METHODS {
        let n = m.len().min(buf.len());
        if buf[..n] == m[..n] {
            return if buf.len() >= m.len() {
                Scan::Done(Transport::Http, 0)
            } else {
                Scan::Incomplete
            };
        }
    }
    match buf[0] {
        0x80 | 0x82 => return Scan::Done(Transport::Buffered, 0),
        _ => {}
    }
    if buf.len() < 5 {
        return Scan::Incomplete;
    }
    // SASL START: status 1, then a short mechanism name's length. No other start has a zero
    // length prefix below 2^24 followed by a byte under 21 in place of a message header.
    if buf[0] == SASL_START && buf[1..4] == [0, 0, 0] && (1..=MAX_SASL_MECHANISM).contains(&buf[4])
    {
        return Scan::Done(Transport::Sasl, 0);
    }
    match buf[4] {
        // A frame whose message starts with a strict binary or a compact header.
        0x80 | 0x82 => Scan::Done(Transport::Framed, 0),
        // A frame holding a non-strict binary message: its name length starts with a zero byte.
        0x00 => Scan::Done(Transport::Framed, 0),
        // A non-strict binary message: a name length, then the name's first character.
        c if c.is_ascii_graphic() && buf[0] == 0 => Scan::Done(Transport::Buffered, 0),
        _ => Scan::Invalid(format!(
            "not a Thrift message: first bytes {:02x?}",
            &buf[..buf.len().min(8)]
        )),
    }
}

/// Decides a message's protocol from its first byte.
pub fn detect_protocol(msg: &[u8]) -> Scan<Protocol> {
    match msg.first() {
        None => Scan::Incomplete,
        Some(0x80) => {
            if msg.len() < 2 {
                Scan::Incomplete
            } else if msg[1] == 0x01 {
                Scan::Done(Protocol::Binary { strict: true }, 0)
            } else {
                Scan::Invalid(format!(
                    "unknown binary protocol version 0x80{:02x}",
                    msg[1]
                ))
            }
        }
        Some(0x82) => Scan::Done(Protocol::Compact, 0),
        Some(0x00) => Scan::Done(Protocol::Binary { strict: false }, 0),
        Some(b) => Scan::Invalid(format!(
            "not a Thrift message header (first byte 0x{b:02x})"
        )),
    }
}

/// The length of the frame at the start of `buf` (framed transport): the payload starts at 4.
pub fn frame_len(buf: &[u8], max: usize) -> Scan<usize> {
    if buf.len() < 4 {
        return Scan::Incomplete;
    }
    let len = i32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
    if len <= 0 {
        return Scan::Invalid(format!("frame length {len} is not positive"));
    }
    let len = len as usize;
    if len > max {
        return Scan::Invalid(format!(
            "frame of {len} bytes exceeds the maximum of {max} bytes"
        ));
    }
    if buf.len() < 4 + len {
        return Scan::Incomplete;
    }
    Scan::Done(len, 4 + len)
}

/// The length of the whole message (header and arguments) at the start of `buf`.
pub fn message_len(buf: &[u8], protocol: Protocol, max: usize) -> Scan<()> {
    let mut c = Cursor {
        buf,
        pos: 0,
        max,
        depth: 0,
    };
    let r = match protocol {
        Protocol::Binary { strict } => c.binary_message(strict),
        Protocol::Compact => c.compact_message(),
    };
    match r {
        Ok(()) => Scan::Done((), c.pos),
        Err(Stop::Incomplete) if buf.len() > max => {
            Scan::Invalid(format!("message exceeds the maximum of {max} bytes"))
        }
        Err(Stop::Incomplete) => Scan::Incomplete,
        Err(Stop::Invalid(m)) => Scan::Invalid(m),
    }
}

/// The method name (read leniently: any bytes) and sequence id of the message at the start of
/// `buf`, so an error reply can name the call even when the rest cannot be decoded.
pub fn message_header(buf: &[u8], protocol: Protocol) -> Option<(String, i32)> {
    let mut c = Cursor {
        buf,
        pos: 0,
        max: buf.len(),
        depth: 0,
    };
    let name = |c: &mut Cursor<'_>, n: i64| -> Option<String> {
        let n = usize::try_from(n).ok()?;
        Some(String::from_utf8_lossy(c.take(n).ok()?).into_owned())
    };
    match protocol {
        Protocol::Binary { strict: true } => {
            c.take(4).ok()?;
            let n = c.i32().ok()?;
            let method = name(&mut c, n.into())?;
            Some((method, c.i32().ok()?))
        }
        Protocol::Binary { strict: false } => {
            let n = c.i32().ok()?;
            let method = name(&mut c, n.into())?;
            c.take(1).ok()?;
            Some((method, c.i32().ok()?))
        }
        Protocol::Compact => {
            c.take(2).ok()?;
            let seq = c.varint().ok()? as i32;
            let n = c.varint().ok()?;
            let method = name(&mut c, i64::try_from(n).ok()?)?;
            Some((method, seq))
        }
    }
}

enum Stop {
    Incomplete,
    Invalid(String),
}

const MAX_DEPTH: usize = 64;

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    max: usize,
    depth: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], Stop> {
        if n > self.max {
            return Err(Stop::Invalid(format!(
                "a length of {n} bytes exceeds the maximum message size of {} bytes",
                self.max
            )));
        }
        if self.buf.len() - self.pos < n {
            return Err(Stop::Incomplete);
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn byte(&mut self) -> Result<u8, Stop> {
        Ok(self.take(1)?[0])
    }

    fn i32(&mut self) -> Result<i32, Stop> {
        let b = self.take(4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn len(&mut self, n: i64, what: &str) -> Result<usize, Stop> {
        if n < 0 {
            return Err(Stop::Invalid(format!("negative {what} length {n}")));
        }
        Ok(n as usize)
    }

    fn enter(&mut self) -> Result<(), Stop> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Stop::Invalid(format!(
                "structures nested deeper than {MAX_DEPTH} levels"
            )));
        }
        Ok(())
    }

    // ---- binary ----

    fn binary_message(&mut self, strict: bool) -> Result<(), Stop> {
        if strict {
            self.take(4)?; // version and message type
            let n = self.i32()? as i64;
            let n = self.len(n, "method name")?;
            self.take(n)?;
        } else {
            let n = self.i32()? as i64;
            let n = self.len(n, "method name")?;
            self.take(n)?;
            self.take(1)?; // message type
        }
        self.take(4)?; // sequence id
        self.binary_value(12)
    }

    fn binary_value(&mut self, ttype: u8) -> Result<(), Stop> {
        match ttype {
            2 | 3 => {
                self.take(1)?;
            }
            6 => {
                self.take(2)?;
            }
            8 => {
                self.take(4)?;
            }
            4 | 10 => {
                self.take(8)?;
            }
            11 => {
                let n = self.i32()? as i64;
                let n = self.len(n, "string")?;
                self.take(n)?;
            }
            12 => {
                self.enter()?;
                loop {
                    let t = self.byte()?;
                    if t == 0 {
                        break;
                    }
                    self.take(2)?;
                    self.binary_value(t)?;
                }
                self.depth -= 1;
            }
            13 => {
                self.enter()?;
                let kt = self.byte()?;
                let vt = self.byte()?;
                let n = self.i32()? as i64;
                let n = self.len(n, "map")?;
                for _ in 0..n {
                    self.binary_value(kt)?;
                    self.binary_value(vt)?;
                }
                self.depth -= 1;
            }
            14 | 15 => {
                self.enter()?;
                let et = self.byte()?;
                let n = self.i32()? as i64;
                let n = self.len(n, "list")?;
                for _ in 0..n {
                    self.binary_value(et)?;
                }
                self.depth -= 1;
            }
            t => return Err(Stop::Invalid(format!("unknown binary field type {t}"))),
        }
        Ok(())
    }

    // ---- compact ----

    fn varint(&mut self) -> Result<u64, Stop> {
        let mut v: u64 = 0;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err(Stop::Invalid("varint overflows 64 bits".into()));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Stop::Invalid("varint longer than 10 bytes".into()))
    }

    fn compact_message(&mut self) -> Result<(), Stop> {
        self.take(2)?; // protocol id, version and type
        self.varint()?; // sequence id
        let n = self.varint()? as i64;
        let n = self.len(n, "method name")?;
        self.take(n)?;
        self.compact_value(12)
    }

    fn compact_value(&mut self, ttype: u8) -> Result<(), Stop> {
        match ttype {
            // In a struct field header, booleans carry their value in the type.
            1 | 2 => {}
            3 => {
                self.take(1)?;
            }
            4..=6 => {
                self.varint()?;
            }
            7 => {
                self.take(8)?;
            }
            8 => {
                let n = self.varint()? as i64;
                let n = self.len(n, "binary")?;
                self.take(n)?;
            }
            9 | 10 => {
                self.enter()?;
                let h = self.byte()?;
                let et = h & 0x0f;
                let n = match h >> 4 {
                    15 => self.varint()? as i64,
                    n => n as i64,
                };
                let n = self.len(n, "list")?;
                for _ in 0..n {
                    self.compact_element(et)?;
                }
                self.depth -= 1;
            }
            11 => {
                self.enter()?;
                let n = self.varint()? as i64;
                let n = self.len(n, "map")?;
                if n > 0 {
                    let kv = self.byte()?;
                    for _ in 0..n {
                        self.compact_element(kv >> 4)?;
                        self.compact_element(kv & 0x0f)?;
                    }
                }
                self.depth -= 1;
            }
            12 => {
                self.enter()?;
                loop {
                    let h = self.byte()?;
                    if h == 0 {
                        break;
                    }
                    if h >> 4 == 0 {
                        self.varint()?; // a full zigzag field id
                    }
                    self.compact_value(h & 0x0f)?;
                }
                self.depth -= 1;
            }
            t => return Err(Stop::Invalid(format!("unknown compact field type {t}"))),
        }
        Ok(())
    }

    /// Inside lists, sets and maps a boolean takes one byte.
    fn compact_element(&mut self, ttype: u8) -> Result<(), Stop> {
        if ttype == 1 || ttype == 2 {
            self.take(1)?;
            Ok(())
        } else {
            self.compact_value(ttype)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict_binary_call() -> Vec<u8> {
        let mut m = vec![0x80, 0x01, 0x00, 0x01];
        m.extend_from_slice(&3i32.to_be_bytes());
        m.extend_from_slice(b"get");
        m.extend_from_slice(&7i32.to_be_bytes());
        // field 1: binary "t"
        m.push(11);
        m.extend_from_slice(&1i16.to_be_bytes());
        m.extend_from_slice(&1i32.to_be_bytes());
        m.push(b't');
        // field 4: map<binary,binary> with one entry
        m.push(13);
        m.extend_from_slice(&4i16.to_be_bytes());
        m.extend_from_slice(&[11, 11]);
        m.extend_from_slice(&1i32.to_be_bytes());
        m.extend_from_slice(&1i32.to_be_bytes());
        m.push(b'k');
        m.extend_from_slice(&0i32.to_be_bytes());
        m.push(0);
        m
    }

    #[test]
    fn every_prefix_of_a_message_is_incomplete() {
        let m = strict_binary_call();
        for i in 0..m.len() {
            assert_eq!(
                message_len(&m[..i], Protocol::Binary { strict: true }, 1 << 20),
                Scan::Incomplete,
                "prefix {i}"
            );
        }
        let mut two = m.clone();
        two.extend_from_slice(&m);
        assert_eq!(
            message_len(&two, Protocol::Binary { strict: true }, 1 << 20),
            Scan::Done((), m.len())
        );
    }

    #[test]
    fn transports_are_told_apart() {
        let m = strict_binary_call();
        assert_eq!(detect_transport(&m), Scan::Done(Transport::Buffered, 0));
        let mut framed = (m.len() as i32).to_be_bytes().to_vec();
        framed.extend_from_slice(&m);
        assert_eq!(detect_transport(&framed), Scan::Done(Transport::Framed, 0));
        assert_eq!(
            detect_transport(b"POST / HTTP/1.1\r\n"),
            Scan::Done(Transport::Http, 0)
        );
        assert_eq!(detect_transport(b"PO"), Scan::Incomplete);
        let nonstrict = [0, 0, 0, 3, b'g', b'e', b't'];
        assert_eq!(
            detect_transport(&nonstrict),
            Scan::Done(Transport::Buffered, 0)
        );
        // A TLS hello reads as a frame header, and then as a frame far over the limit.
        let tls = b"\x16\x03\x01\x02\x00\x01";
        assert_eq!(detect_transport(tls), Scan::Done(Transport::Framed, 0));
        assert!(matches!(frame_len(tls, 16 << 20), Scan::Invalid(_)));
        assert!(matches!(
            detect_transport(b"\x16\x03\x01\x02\x41"),
            Scan::Invalid(_)
        ));
        assert_eq!(
            detect_transport(b"\x01\x00\x00\x00\x05PLAIN"),
            Scan::Done(Transport::Sasl, 0)
        );
        assert_eq!(detect_transport(b"\x01\x00\x00"), Scan::Incomplete);
    }

    #[test]
    fn lies_about_lengths_are_invalid_not_waited_for() {
        let mut m = vec![0x80, 0x01, 0x00, 0x01];
        m.extend_from_slice(&i32::MAX.to_be_bytes());
        assert!(matches!(
            message_len(&m, Protocol::Binary { strict: true }, 1 << 20),
            Scan::Invalid(_)
        ));
        assert!(matches!(
            frame_len(&(-5i32).to_be_bytes(), 100),
            Scan::Invalid(_)
        ));
        assert!(matches!(
            frame_len(&1000i32.to_be_bytes(), 100),
            Scan::Invalid(_)
        ));
        let deep: Vec<u8> = std::iter::repeat_n([12u8, 0, 1], 100).flatten().collect();
        let mut m = vec![0x80, 0x01, 0x00, 0x01, 0, 0, 0, 1, b'x', 0, 0, 0, 1];
        m.extend_from_slice(&deep);
        assert!(matches!(
            message_len(&m, Protocol::Binary { strict: true }, 1 << 20),
            Scan::Invalid(_)
        ));
    }
}
