//! Which representation a request gets and sends: HBase's media types, `Accept` negotiation
//! (quality values, wildcards; the resource's first offer when the client states none, as
//! Jersey picks) and the request body's `Content-Type`.

use axum::http::{HeaderValue, StatusCode};

use super::RestError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    Text,
    Xml,
    Json,
    Protobuf,
    /// `application/protobuf`, the IETF name: the same messages, answered under the name asked.
    ProtobufIetf,
    Binary,
}

impl Media {
    pub fn is_protobuf(self) -> bool {
        matches!(self, Media::Protobuf | Media::ProtobufIetf)
    }

    /// The type HBase writes in `Content-Type`.
    pub fn mime(self) -> &'static str {
        match self {
            Media::Text => "text/plain",
            Media::Xml => "text/xml",
            Media::Json => "application/json",
            Media::Protobuf => "application/x-protobuf",
            Media::ProtobufIetf => "application/protobuf",
            Media::Binary => "application/octet-stream",
        }
    }

    fn of(mime: &str) -> Option<Media> {
        Some(match mime {
            "text/plain" => Media::Text,
            "text/xml" | "application/xml" => Media::Xml,
            "application/json" => Media::Json,
            "application/x-protobuf" => Media::Protobuf,
            "application/protobuf" => Media::ProtobufIetf,
            "application/octet-stream" => Media::Binary,
            _ => return None,
        })
    }

    fn matches(self, range: &str) -> bool {
        let mime = self.mime();
        match range {
            "*/*" | "*" => true,
            r if r.ends_with("/*") => mime.starts_with(&r[..r.len() - 1]),
            r => Media::of(r) == Some(self),
        }
    }
}

/// Every representation with data models, in Jersey's default order for them.
pub const MODELS: [Media; 4] = [
    Media::Xml,
    Media::Json,
    Media::Protobuf,
    Media::ProtobufIetf,
];
/// Models plus HBase's plain-text form.
pub const MODELS_TEXT: [Media; 5] = [
    Media::Text,
    Media::Xml,
    Media::Json,
    Media::Protobuf,
    Media::ProtobufIetf,
];

/// The representation `accept` prefers among `offers` (first offer when none is stated); 406
/// when none fits.
pub fn negotiate(accept: Option<&HeaderValue>, offers: &[Media]) -> Result<Media, RestError> {
    let text = accept
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    let mut ranges: Vec<(f32, usize, String)> = Vec::new();
    for (i, part) in text.split(',').enumerate() {
        let mut pieces = part.split(';');
        let range = pieces.next().unwrap_or("").trim().to_ascii_lowercase();
        if range.is_empty() {
            continue;
        }
        let q = pieces
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if q > 0.0 {
            ranges.push((q, i, range));
        }
    }
    if ranges.is_empty() {
        return offers
            .first()
            .copied()
            .ok_or_else(|| not_acceptable(&text, offers));
    }
    // Highest quality first, then the more specific range, then the client's order.
    ranges.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.2.contains('*').cmp(&b.2.contains('*')))
            .then(a.1.cmp(&b.1))
    });
    for (_, _, range) in &ranges {
        if let Some(m) = offers.iter().find(|m| m.matches(range)) {
            return Ok(*m);
        }
    }
    // Jersey answers 406 with no body; this one says what would have been accepted.
    Err(not_acceptable(&text, offers))
}

/// The 406 answer: the `Accept` asked for, and the types the resource offers.
fn not_acceptable(accept: &str, offers: &[Media]) -> RestError {
    let offered: Vec<&str> = offers.iter().map(|m| m.mime()).collect();
    RestError::new(
        StatusCode::NOT_ACCEPTABLE,
        format!(
            "Not Acceptable\r\nAccept {accept:?} matches none of the types this resource \
             answers with: {}\r\n",
            offered.join(", ")
        ),
    )
}

/// The media type of a request body; 415 for one HBase does not read.
pub fn content_type(v: Option<&HeaderValue>) -> Result<Media, RestError> {
    let text = v
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    let mime = text
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match Media::of(&mime) {
        Some(m) if m != Media::Text => Ok(m),
        _ => Err(RestError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("Unsupported Media Type\r\nContent-Type {text:?} is not one of text/xml, application/json, application/x-protobuf, application/octet-stream\r\n"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(accept: &str, offers: &[Media]) -> Option<Media> {
        negotiate(Some(&HeaderValue::from_str(accept).unwrap()), offers).ok()
    }

    #[test]
    fn negotiation_follows_quality_and_wildcards() {
        assert_eq!(pick("application/json", &MODELS), Some(Media::Json));
        assert_eq!(pick("*/*", &MODELS), Some(Media::Xml));
        assert_eq!(
            pick("text/html;q=0.9, application/json", &MODELS_TEXT),
            Some(Media::Json)
        );
        assert_eq!(
            pick("application/*;q=0.5, text/xml", &MODELS),
            Some(Media::Xml)
        );
        assert_eq!(pick("image/png", &MODELS), None);
        assert_eq!(negotiate(None, &MODELS_TEXT).ok(), Some(Media::Text));
    }
}
