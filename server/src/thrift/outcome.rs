//! What a call came to, read back from the reply bytes: the metrics count requests by method
//! and outcome without each of the ~100 handler functions reporting for itself.
//!
//! A Thrift reply says it all in its first few fields: the message type (reply or application
//! exception) and, inside a reply, which result field is set: field 0 is the return value, a
//! higher id one of the method's declared exceptions (HBase's `IOError`, `TIOError`, ...).

use thrift::protocol::{
    TBinaryInputProtocol, TCompactInputProtocol, TFieldIdentifier, TInputProtocol, TMessageType,
    TType,
};
use thrift::ApplicationErrorKind;

use super::frame::Protocol;

/// How one call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The method returned normally.
    Ok,
    /// The method raised one of its declared exceptions (a client-visible HBase error).
    Error,
    /// The server could not run the method: unknown method, undecodable arguments, or an
    /// internal failure (a Thrift application exception, or no reply at all).
    Exception,
}

impl Outcome {
    /// The `outcome` label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
            Outcome::Exception => "exception",
        }
    }
}

/// The label used for a method name the service does not know: client-chosen names must not
/// create unbounded label values.
pub const UNKNOWN_METHOD: &str = "unknown";

/// The method and outcome of one call, from the request and the reply written for it.
pub fn classify(request: &[u8], reply: &[u8], protocol: Protocol) -> (String, Outcome) {
    // Replies are always written strict (see `process_message`).
    let reply_protocol = match protocol {
        Protocol::Binary { .. } => Protocol::Binary { strict: true },
        Protocol::Compact => Protocol::Compact,
    };
    if let Some(found) = with_input(reply, reply_protocol, read_reply) {
        return found;
    }
    // No reply (or an unreadable one): name the method from the request if it is plausible.
    let name = with_input(request, protocol, |p| {
        p.read_message_begin().ok().map(|m| m.name)
    })
    .filter(|n| plausible(n))
    .unwrap_or_else(|| UNKNOWN_METHOD.to_string());
    (name, Outcome::Exception)
}

fn with_input<T>(
    bytes: &[u8],
    protocol: Protocol,
    f: impl FnOnce(&mut dyn TInputProtocol) -> Option<T>,
) -> Option<T> {
    if bytes.is_empty() {
        return None;
    }
    match protocol {
        Protocol::Binary { strict } => f(&mut TBinaryInputProtocol::new(bytes, strict)),
        Protocol::Compact => f(&mut TCompactInputProtocol::new(bytes)),
    }
}

fn read_reply(p: &mut dyn TInputProtocol) -> Option<(String, Outcome)> {
    let m = p.read_message_begin().ok()?;
    match m.message_type {
        TMessageType::Reply => {
            p.read_struct_begin().ok()?;
            let f: TFieldIdentifier = p.read_field_begin().ok()?;
            let outcome = match (f.field_type, f.id) {
                (TType::Stop, _) | (_, Some(0)) => Outcome::Ok,
                _ => Outcome::Error,
            };
            Some((m.name, outcome))
        }
        TMessageType::Exception => {
            let kind = read_exception_kind(p);
            let name = if kind == Some(ApplicationErrorKind::UnknownMethod) || !plausible(&m.name) {
                UNKNOWN_METHOD.to_string()
            } else {
                m.name
            };
            Some((name, Outcome::Exception))
        }
        _ => None,
    }
}

/// The `type` field (id 2) of a `TApplicationException`.
fn read_exception_kind(p: &mut dyn TInputProtocol) -> Option<ApplicationErrorKind> {
    p.read_struct_begin().ok()?;
    loop {
        let f = p.read_field_begin().ok()?;
        match (f.field_type, f.id) {
            (TType::Stop, _) => return None,
            (TType::I32, Some(2)) => {
                let v = p.read_i32().ok()?;
                return Some(
                    ApplicationErrorKind::try_from(v).unwrap_or(ApplicationErrorKind::Unknown),
                );
            }
            (t, _) => {
                p.skip(t).ok()?;
                p.read_field_end().ok()?;
            }
        }
    }
}

/// Whether `name` is a method of one of the two services (the IDLs, read once). Any other
/// name is labelled [`UNKNOWN_METHOD`]: a client chooses the names it sends, and labelling
/// plausible-looking ones let a hostile client create 75,000 metric series in one run.
fn plausible(name: &str) -> bool {
    static KNOWN: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    KNOWN
        .get_or_init(|| {
            [
                include_str!("../../../idl/hbase1.thrift"),
                include_str!("../../../idl/hbase2.thrift"),
            ]
            .into_iter()
            .flat_map(service_methods)
            .collect()
        })
        .contains(name)
}

/// The method names of the `service { ... }` block of an IDL file: each method is a result
/// type, a name and `(` (comments and the other declarations are skipped).
fn service_methods(idl: &str) -> Vec<String> {
    let body = idl
        .find("service ")
        .and_then(|at| idl[at..].find('{').map(|b| &idl[at + b + 1..]))
        .unwrap_or("");
    let code: String = body
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let re =
        regex::Regex::new(r"(?m)^\s*(?:oneway\s+)?[\w<>, ]+?\s+(\w+)\s*\(").expect("static regex");
    re.captures_iter(&code)
        .map(|c| c[1].to_string())
        .filter(|n| n != "throws")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use thrift::protocol::{
        TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier, TMessageIdentifier,
        TOutputProtocol, TStructIdentifier,
    };

    fn message(compact: bool, name: &str, kind: TMessageType, field: Option<i16>) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut p: Box<dyn TOutputProtocol + '_> = if compact {
                Box::new(TCompactOutputProtocol::new(&mut out))
            } else {
                Box::new(TBinaryOutputProtocol::new(&mut out, true))
            };
            p.write_message_begin(&TMessageIdentifier::new(name, kind, 1))
                .expect("header");
            p.write_struct_begin(&TStructIdentifier::new("r"))
                .expect("struct");
            if let Some(id) = field {
                p.write_field_begin(&TFieldIdentifier::new("f", TType::I32, id))
                    .expect("field");
                p.write_i32(2).expect("value");
                p.write_field_end().expect("field end");
            }
            p.write_field_stop().expect("stop");
            p.write_struct_end().expect("struct end");
            p.write_message_end().expect("end");
            p.flush().expect("flush");
        }
        out
    }

    #[test]
    fn classifies_replies_in_both_protocols() {
        for compact in [false, true] {
            let protocol = if compact {
                Protocol::Compact
            } else {
                Protocol::Binary { strict: true }
            };
            let req = message(compact, "get", TMessageType::Call, None);
            let ok = message(compact, "get", TMessageType::Reply, Some(0));
            assert_eq!(classify(&req, &ok, protocol), ("get".into(), Outcome::Ok));
            let void = message(compact, "put", TMessageType::Reply, None);
            assert_eq!(classify(&req, &void, protocol), ("put".into(), Outcome::Ok));
            let err = message(compact, "get", TMessageType::Reply, Some(1));
            assert_eq!(
                classify(&req, &err, protocol),
                ("get".into(), Outcome::Error)
            );
            // Field 2 of a TApplicationException is its type; 1 is UnknownMethod.
            let failed = message(compact, "getRow", TMessageType::Exception, Some(2));
            let (name, outcome) = classify(&req, &failed, protocol);
            assert_eq!(outcome, Outcome::Exception);
            assert_eq!(
                name, "getRow",
                "type 2 is InvalidMessageType: a method's name stays"
            );
            let bogus = message(compact, "bogus", TMessageType::Exception, Some(2));
            assert_eq!(classify(&req, &bogus, protocol).0, UNKNOWN_METHOD);
            assert_eq!(
                classify(&req, &[], protocol),
                ("get".into(), Outcome::Exception)
            );
        }
    }

    #[test]
    fn unknown_and_implausible_names_collapse() {
        let p = Protocol::Binary { strict: true };
        let mut unknown = Vec::new();
        {
            let mut o = TBinaryOutputProtocol::new(&mut unknown, true);
            o.write_message_begin(&TMessageIdentifier::new("x1", TMessageType::Exception, 1))
                .expect("header");
            o.write_struct_begin(&TStructIdentifier::new("e"))
                .expect("s");
            o.write_field_begin(&TFieldIdentifier::new("type", TType::I32, 2))
                .expect("f");
            o.write_i32(1).expect("v");
            o.write_field_end().expect("fe");
            o.write_field_stop().expect("stop");
            o.write_struct_end().expect("se");
            o.write_message_end().expect("me");
        }
        assert_eq!(classify(&[], &unknown, p).0, UNKNOWN_METHOD);
        let req = message(false, "no such;method", TMessageType::Call, None);
        assert_eq!(classify(&req, &[], p).0, UNKNOWN_METHOD);
        // Plausible-looking names a client makes up collapse too: labels stay bounded.
        for i in 0..100 {
            let req = message(false, &format!("made{i}up"), TMessageType::Call, None);
            assert_eq!(classify(&req, &[], p).0, UNKNOWN_METHOD);
        }
    }

    #[test]
    fn every_method_of_both_services_is_known() {
        let t1 = service_methods(include_str!("../../../idl/hbase1.thrift"));
        let t2 = service_methods(include_str!("../../../idl/hbase2.thrift"));
        assert_eq!((t1.len(), t2.len()), (49, 52), "{t1:?} {t2:?}");
        assert!(plausible("getTableNames") && plausible("checkAndMutate"));
        assert!(plausible("scannerOpenWithScan") && plausible("getSlowLogResponses"));
    }
}
