//! HTTP content codings of the REST API, as HBase's `GzipFilter` applies them: a request body
//! sent with `Content-Encoding: gzip` is decompressed before anything reads it, and an answer
//! is gzip-compressed when the client's `Accept-Encoding` names gzip.
//!
//! Unlike HBase, which passes a body in any other coding through as if it were plain (so a
//! deflate-compressed cell would be stored compressed), a coding this module does not decode
//! is refused with 415: a body that was not decoded is never stored. The decoded size has the
//! same bound as a plain body ([`super::MAX_BODY`]), checked while inflating, so a small
//! "gzip bomb" is answered 413 after at most that many bytes of work.

use std::io::{Read, Write};
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use flate2::write::GzEncoder;
use flate2::Compression;
use hyper::body::Frame;

use super::{Req, RestError};

/// The codings a request body may arrive in.
const DECODED: &str = "gzip, x-gzip, identity";

/// The codings named in `Content-Encoding` (every header line, comma-separated), in the order
/// they were applied; `identity` left out.
fn codings(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(header::CONTENT_ENCODING)
        .iter()
        .flat_map(|v| {
            String::from_utf8_lossy(v.as_bytes())
                .split(',')
                .map(|c| c.trim().to_ascii_lowercase())
                .collect::<Vec<_>>()
        })
        .filter(|c| !c.is_empty() && c != "identity")
        .collect()
}

/// The request body as it was before the client encoded it: `limit` bytes at most, else 413;
/// 415 for a coding other than gzip; 400 for a body that is not valid gzip.
pub fn decode_body(headers: &HeaderMap, body: Bytes, limit: usize) -> Result<Bytes, RestError> {
    let applied = codings(headers);
    if let Some(other) = applied.iter().find(|c| *c != "gzip" && *c != "x-gzip") {
        return Err(RestError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("Unsupported Media Type\r\nContent-Encoding {other:?} is not one of {DECODED}: send the body uncompressed or gzip-compressed\r\n"),
        ));
    }
    let mut body = body;
    // Codings are listed in the order applied: undo the last first.
    for _ in &applied {
        if body.is_empty() {
            break;
        }
        body = gunzip(&body, limit)?;
    }
    Ok(body)
}

/// Inflates one gzip body (several members one after another are one body, as Java's
/// `GZIPInputStream` reads them), stopping past `limit` bytes.
fn gunzip(compressed: &[u8], limit: usize) -> Result<Bytes, RestError> {
    let mut out = Vec::new();
    let mut reader = flate2::read::MultiGzDecoder::new(compressed).take(limit as u64 + 1);
    reader.read_to_end(&mut out).map_err(|e| {
        RestError::bad(format!(
            "the request body is not valid gzip (Content-Encoding: gzip): {e}"
        ))
    })?;
    if out.len() > limit {
        return Err(RestError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "Payload too large\r\nthe request body exceeds {limit} bytes once decompressed\r\n"
            ),
        ));
    }
    Ok(Bytes::from(out))
}

/// True when `Accept-Encoding` names gzip (or x-gzip) with a quality above 0.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .flat_map(|v| {
            String::from_utf8_lossy(v.as_bytes())
                .split(',')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .any(|part| {
            let mut pieces = part.split(';');
            let coding = pieces.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = pieces
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            (coding == "gzip" || coding == "x-gzip") && q > 0.0
        })
}

/// Runs one request: its body decoded first, its answer compressed when the client accepts
/// gzip. The one place the REST router is called from ([`super::serve`]).
pub fn coded(mut r: Req, limit: usize, route: impl FnOnce(&Req) -> Response) -> Response {
    let gzip = accepts_gzip(&r.headers);
    match decode_body(&r.headers, std::mem::take(&mut r.body), limit) {
        Ok(body) => r.body = body,
        Err(e) => return e.into_response(),
    }
    let resp = route(&r);
    if gzip {
        compress(resp)
    } else {
        resp
    }
}

/// The answer gzip-compressed, as HBase compresses every answer with a body (errors too). An
/// answer known whole (its size known) is compressed here, on the request's blocking task; a
/// streamed one chunk by chunk as it is sent. Empty answers stay as they are.
pub fn compress(resp: Response) -> Response {
    if resp.headers().contains_key(header::CONTENT_ENCODING) {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let size = body.size_hint().exact();
    if size == Some(0) {
        return Response::from_parts(parts, body);
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    parts
        .headers
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    parts
        .headers
        .append(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    let body = match (size, tokio::runtime::Handle::try_current()) {
        (Some(_), Ok(rt)) => match rt.block_on(axum::body::to_bytes(body, usize::MAX)) {
            Ok(whole) => {
                let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
                // Writing into a Vec cannot fail.
                let _ = enc.write_all(&whole);
                Body::from(enc.finish().unwrap_or_default())
            }
            Err(e) => Body::new(Failed(Some(e.to_string()))),
        },
        _ => Body::new(Gzipped {
            inner: body,
            encoder: Some(GzEncoder::new(Vec::new(), Compression::fast())),
        }),
    };
    Response::from_parts(parts, body)
}

/// A body that only fails (a whole answer that could not be read back to compress it).
struct Failed(Option<String>);

impl HttpBody for Failed {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        Poll::Ready(self.0.take().map(|e| Err(std::io::Error::other(e))))
    }
}

/// A streamed answer compressed chunk by chunk: each chunk's deflated bytes go out as they
/// come (the compressor holds at most its window), the gzip trailer after the last. An answer
/// cut midway stays cut: the error passes through and no trailer is written.
struct Gzipped {
    inner: Body,
    encoder: Option<GzEncoder<Vec<u8>>>,
}

impl HttpBody for Gzipped {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        loop {
            let Some(encoder) = this.encoder.as_mut() else {
                return Poll::Ready(None);
            };
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Err(e))) => {
                    this.encoder = None;
                    return Poll::Ready(Some(Err(e)));
                }
                Poll::Ready(Some(Ok(frame))) => {
                    let Ok(data) = frame.into_data() else {
                        continue;
                    };
                    let _ = encoder.write_all(&data);
                    let out = std::mem::take(encoder.get_mut());
                    if !out.is_empty() {
                        return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))));
                    }
                }
                Poll::Ready(None) => {
                    let tail = this
                        .encoder
                        .take()
                        .and_then(|e| e.finish().ok())
                        .unwrap_or_default();
                    return Poll::Ready(Some(Ok(Frame::data(Bytes::from(tail)))));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn with(name: header::HeaderName, value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn gzip_bodies_are_decoded_within_the_limit() {
        let h = with(header::CONTENT_ENCODING, "gzip");
        let got = decode_body(&h, Bytes::from(gz(b"hello")), 100).unwrap();
        assert_eq!(&got[..], b"hello");
        // Two members read as one body, as Java reads them.
        let two = [gz(b"ab"), gz(b"cd")].concat();
        assert_eq!(
            &decode_body(&h, Bytes::from(two), 100).unwrap()[..],
            b"abcd"
        );
        // A bomb: 1 MiB of zeros compresses to about 1 KiB; a 64 KiB limit stops it.
        let bomb = gz(&vec![0u8; 1 << 20]);
        assert!(bomb.len() < 4096);
        let e = decode_body(&h, Bytes::from(bomb), 64 * 1024).unwrap_err();
        assert_eq!(e.status, StatusCode::PAYLOAD_TOO_LARGE);
        let e = decode_body(&h, Bytes::from_static(b"not gzip"), 100).unwrap_err();
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
    }

    #[test]
    fn other_codings_are_refused_and_identity_passes() {
        let e = decode_body(
            &with(header::CONTENT_ENCODING, "deflate"),
            Bytes::from_static(b"x"),
            100,
        )
        .unwrap_err();
        assert_eq!(e.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let got = decode_body(
            &with(header::CONTENT_ENCODING, "identity"),
            Bytes::from_static(b"x"),
            100,
        )
        .unwrap();
        assert_eq!(&got[..], b"x");
    }

    #[test]
    fn accept_encoding_is_read_with_quality() {
        assert!(accepts_gzip(&with(header::ACCEPT_ENCODING, "gzip")));
        assert!(accepts_gzip(&with(
            header::ACCEPT_ENCODING,
            "br, GZIP;q=0.5"
        )));
        assert!(!accepts_gzip(&with(header::ACCEPT_ENCODING, "gzip;q=0")));
        assert!(!accepts_gzip(&with(header::ACCEPT_ENCODING, "deflate")));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }
}
