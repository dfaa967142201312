//! HBase's native framing, without I/O: the six-byte preamble, the connection header's frame,
//! a call's parts (request header, parameter, cell block) and the bytes of a response.
//!
//! Every length is checked against the bytes that hold it before anything is decoded, so a
//! lying length is an error here, never an allocation or a panic.

use std::time::{Duration, Instant};

use bytes::Bytes;
use prost::Message;

use super::errors::{class, NativeError};
use super::pb;

/// "HBas": the magic of an RPC connection.
pub const MAGIC: &[u8; 4] = b"HBas";
/// The only protocol version HBase 2 speaks.
pub const VERSION: u8 = 0;
/// SIMPLE authentication (the client names itself in the connection header).
pub const AUTH_SIMPLE: u8 = 80;
/// A connection that only asks for the cluster id (HBase 2.6's RpcConnectionRegistry).
pub const REGISTRY_PREAMBLE: &[u8; 6] = b"Regist";
/// A connection that asks for the server's Kerberos principal before SASL.
pub const SECURITY_PREAMBLE: &[u8; 6] = b"Securi";
/// The call id of answers that belong to no call (preamble answers, fatal errors).
pub const NO_CALL: u32 = u32::MAX;
/// The largest connection header accepted (a real one is under 200 bytes).
pub const MAX_CONNECTION_HEADER: usize = 64 * 1024;

/// What a connection's first six bytes ask for.
#[derive(Debug, PartialEq, Eq)]
pub enum Preamble {
    /// An RPC connection with SIMPLE authentication: the connection header follows.
    Rpc,
    /// "Regist": answer the cluster id and close.
    Registry,
    /// "Securi": answer that security is off; another preamble follows.
    Security,
    /// Anything else: answer the error and close.
    Refused(NativeError),
}

pub fn preamble(b: &[u8; 6]) -> Preamble {
    if b == REGISTRY_PREAMBLE {
        return Preamble::Registry;
    }
    if b == SECURITY_PREAMBLE {
        return Preamble::Security;
    }
    if &b[..4] != MAGIC {
        return Preamble::Refused(NativeError::final_(
            class::FATAL_CONNECTION,
            format!(
                "Expected HEADER=HBas but received HEADER={}: not an HBase RPC client",
                String::from_utf8_lossy(&b[..4]).escape_debug()
            ),
        ));
    }
    let (version, auth) = (b[4], b[5]);
    if version != VERSION {
        return Preamble::Refused(NativeError::final_(
            class::WRONG_VERSION,
            format!("version {version} is not supported: this server speaks RPC version {VERSION}"),
        ));
    }
    if auth != AUTH_SIMPLE {
        return Preamble::Refused(NativeError::final_(
            class::BAD_AUTH,
            format!(
                "authentication code {auth} is not supported: redbase's native RPC takes \
                 SIMPLE authentication ({AUTH_SIMPLE}) only (hbase.security.authentication=simple)"
            ),
        ));
    }
    Preamble::Rpc
}

/// HBase's server takes a call timeout below this as this much
/// (`hbase.ipc.min.client.request.timeout`).
const MIN_CALL_TIMEOUT: Duration = Duration::from_millis(20);

/// A decoded call: its header, its parameter message's bytes and its cell block.
#[derive(Debug)]
pub struct Call {
    pub header: pb::RequestHeader,
    pub param: Bytes,
    pub cells: Bytes,
    /// When the call was read (its time in the queue counts against its timeout).
    pub received: Instant,
}

impl Call {
    /// The timeout the client gave the call (its header's `timeout`, milliseconds), if any.
    pub fn timeout(&self) -> Option<Duration> {
        self.header
            .timeout
            .filter(|&t| t > 0)
            .map(|t| Duration::from_millis(t.into()).max(MIN_CALL_TIMEOUT))
    }

    pub fn id(&self) -> u32 {
        self.header.call_id.unwrap_or(0)
    }

    pub fn method(&self) -> &str {
        self.header.method_name.as_deref().unwrap_or("")
    }
}

/// A call that could not be decoded, with its call id where the header was readable.
#[derive(Debug)]
pub struct BadCall {
    pub call_id: Option<u32>,
    pub error: NativeError,
}

/// Reads a varint-delimited message's bytes from the front of `buf`, advancing it.
fn delimited(buf: &mut Bytes, what: &str) -> Result<Bytes, NativeError> {
    let mut cursor: &[u8] = buf;
    let len = prost::encoding::decode_varint(&mut cursor)
        .map_err(|e| NativeError::bad_request(format!("cannot read the length of {what}: {e}")))?;
    let used = buf.len() - cursor.len();
    if len > cursor.len() as u64 {
        return Err(NativeError::bad_request(format!(
            "{what} claims {len} bytes but the call holds {} after it",
            cursor.len()
        )));
    }
    let _ = buf.split_to(used);
    Ok(buf.split_to(len as usize))
}

/// Whether `buf` starts with a complete varint claiming more bytes than follow it.
fn varint_past_end(buf: &[u8]) -> bool {
    let mut cursor = buf;
    matches!(prost::encoding::decode_varint(&mut cursor), Ok(len) if len > cursor.len() as u64)
}

/// The request header at the front of a call frame, if it can be read (for answering a call
/// whose body is not kept).
pub fn peek_header(frame: &[u8]) -> Option<pb::RequestHeader> {
    let mut b = Bytes::copy_from_slice(frame);
    let h = delimited(&mut b, "the request header").ok()?;
    pb::RequestHeader::decode(h).ok()
}

/// Splits a call frame (the bytes after its 4-byte length) into its parts.
pub fn parse_call(mut frame: Bytes) -> Result<Call, BadCall> {
    let bad = |call_id, error| BadCall { call_id, error };
    let h = delimited(&mut frame, "the request header").map_err(|e| bad(None, e))?;
    let header = pb::RequestHeader::decode(h).map_err(|e| {
        bad(
            None,
            NativeError::bad_request(format!("cannot decode the request header: {e}")),
        )
    })?;
    let id = Some(header.call_id.unwrap_or(0));
    if header.request_param != Some(true) {
        return Err(bad(
            id,
            NativeError::bad_request("invalid request header: it should say a parameter follows"),
        ));
    }
    let block = header.cell_block_meta.as_ref().and_then(|m| m.length);
    let param = match delimited(&mut frame, "the request parameter") {
        Ok(p) => p,
        // HBase's server bounds the parameter's parse by its declared length and by the call's
        // end, whichever comes first, so a call with no cell block whose parameter length
        // claims too much is read to its end. PyPI's hbase-driver depends on it: it writes a
        // length of 128 bytes or more UTF-8-encoded, which decodes as a larger number.
        Err(_) if block.is_none() && varint_past_end(&frame) => {
            let mut cursor: &[u8] = &frame;
            let _ = prost::encoding::decode_varint(&mut cursor);
            let used = frame.len() - cursor.len();
            frame.split_off(used)
        }
        Err(e) => return Err(bad(id, e)),
    };
    let cells = match block {
        Some(len) if len as usize > frame.len() => {
            return Err(bad(
                id,
                NativeError::bad_request(format!(
                    "the cell block claims {len} bytes but the call holds {} after its parameter",
                    frame.len()
                )),
            ))
        }
        Some(len) => frame.split_to(len as usize),
        None => Bytes::new(),
    };
    Ok(Call {
        header,
        param,
        cells,
        received: Instant::now(),
    })
}

/// The bytes of one response: total length, delimited header, delimited message (if any),
/// cell block (if any).
pub fn response(call_id: u32, message: Option<&[u8]>, cells: &[u8]) -> Vec<u8> {
    let header = pb::ResponseHeader {
        call_id: Some(call_id),
        exception: None,
        cell_block_meta: (!cells.is_empty()).then_some(pb::CellBlockMeta {
            length: Some(cells.len() as u32),
        }),
    };
    assemble(&header, message, cells)
}

/// The bytes of an error response.
pub fn error_response(call_id: u32, error: &NativeError) -> Vec<u8> {
    let header = pb::ResponseHeader {
        call_id: Some(call_id),
        exception: Some(pb::ExceptionResponse {
            exception_class_name: Some(error.class.to_string()),
            stack_trace: Some(format!("{}: {}", error.class, error.message)),
            hostname: None,
            port: None,
            do_not_retry: Some(error.do_not_retry),
            server_overloaded: None,
        }),
        cell_block_meta: None,
    };
    assemble(&header, None, &[])
}

fn assemble(header: &pb::ResponseHeader, message: Option<&[u8]>, cells: &[u8]) -> Vec<u8> {
    let h = header.encoded_len();
    let mut body_len = prost::length_delimiter_len(h) + h + cells.len();
    if let Some(m) = message {
        body_len += prost::length_delimiter_len(m.len()) + m.len();
    }
    let mut out = Vec::with_capacity(4 + body_len);
    out.extend_from_slice(&(body_len as u32).to_be_bytes());
    header
        .encode_length_delimited(&mut out)
        .expect("a Vec grows as needed");
    if let Some(m) = message {
        prost::encoding::encode_varint(m.len() as u64, &mut out);
        out.extend_from_slice(m);
    }
    out.extend_from_slice(cells);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(header: &pb::RequestHeader, param: &[u8], cells: &[u8]) -> Bytes {
        let mut b = Vec::new();
        header.encode_length_delimited(&mut b).unwrap();
        prost::encoding::encode_varint(param.len() as u64, &mut b);
        b.extend_from_slice(param);
        b.extend_from_slice(cells);
        Bytes::from(b)
    }

    #[test]
    fn preambles() {
        assert_eq!(preamble(b"HBas\x00\x50"), Preamble::Rpc);
        assert_eq!(preamble(b"Regist"), Preamble::Registry);
        assert_eq!(preamble(b"Securi"), Preamble::Security);
        for (b, class) in [
            (b"HBas\x01\x50", class::WRONG_VERSION),
            (b"HBas\x00\x51", class::BAD_AUTH),
            (b"GET / ", class::FATAL_CONNECTION),
        ] {
            match preamble(b) {
                Preamble::Refused(e) => assert_eq!(e.class, class),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn calls_split_and_lying_lengths_are_refused() {
        let header = pb::RequestHeader {
            call_id: Some(7),
            method_name: Some("Get".into()),
            request_param: Some(true),
            cell_block_meta: Some(pb::CellBlockMeta { length: Some(3) }),
            ..Default::default()
        };
        let call = parse_call(frame(&header, b"pp", b"ccc")).unwrap();
        assert_eq!((call.id(), call.method()), (7, "Get"));
        assert_eq!(
            (&call.param[..], &call.cells[..]),
            (&b"pp"[..], &b"ccc"[..])
        );
        // The cell block claims more than there is.
        let bad = parse_call(frame(&header, b"pp", b"c")).unwrap_err();
        assert_eq!(bad.call_id, Some(7));
        // A parameter length past the end.
        let mut b = Vec::new();
        header.encode_length_delimited(&mut b).unwrap();
        b.push(100);
        assert_eq!(parse_call(Bytes::from(b)).unwrap_err().call_id, Some(7));
        // With no cell block, a parameter length past the end is read to the call's end (as
        // HBase's server reads it): hbase-driver's UTF-8-encoded varint for 171 is C2 AB 01.
        let plain = pb::RequestHeader {
            cell_block_meta: None,
            ..header.clone()
        };
        let mut b = Vec::new();
        plain.encode_length_delimited(&mut b).unwrap();
        b.extend_from_slice(&[0xc2, 0xab, 0x01]);
        b.extend_from_slice(&[7u8; 171]);
        let call = parse_call(Bytes::from(b)).unwrap();
        assert_eq!(call.param.len(), 171);
        assert!(call.cells.is_empty());
        // A header length past the end.
        assert_eq!(
            parse_call(Bytes::from_static(&[0x7f, 1]))
                .unwrap_err()
                .call_id,
            None
        );
        // An unterminated varint.
        assert!(parse_call(Bytes::from_static(&[0xff, 0xff])).is_err());
    }

    #[test]
    fn responses_carry_their_length() {
        let r = response(3, Some(b"msg"), b"cells");
        assert_eq!(
            u32::from_be_bytes(r[..4].try_into().unwrap()) as usize,
            r.len() - 4
        );
        let mut body = Bytes::from(r[4..].to_vec());
        let h = pb::ResponseHeader::decode(delimited(&mut body, "h").unwrap()).unwrap();
        assert_eq!(h.call_id, Some(3));
        assert_eq!(h.cell_block_meta.unwrap().length, Some(5));
        assert_eq!(&delimited(&mut body, "m").unwrap()[..], b"msg");
        assert_eq!(&body[..], b"cells");
        let e = error_response(NO_CALL, &NativeError::bad_request("no"));
        let mut body = Bytes::from(e[4..].to_vec());
        let h = pb::ResponseHeader::decode(delimited(&mut body, "h").unwrap()).unwrap();
        let x = h.exception.unwrap();
        assert_eq!(x.exception_class_name.as_deref(), Some(class::DO_NOT_RETRY));
        assert_eq!(x.do_not_retry, Some(true));
    }
}
