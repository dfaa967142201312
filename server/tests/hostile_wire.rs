//! Hostile bytes on the Thrift ports: messages that once killed the process, panicked a
//! handler or left a client waiting forever. Each must get a `TApplicationException` reply on
//! every transport that can carry one, and the connection must go on serving.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

mod common;

use common::server::TestServer;
use redbase::server::Config;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[derive(Clone, Copy, Debug)]
enum Wire {
    Buffered,
    Framed,
    Http,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Proto {
    Binary,
    Compact,
}

/// A call of `getThriftServerType` (both services have it), no arguments.
fn server_type_call(p: Proto) -> Vec<u8> {
    let name = b"getThriftServerType";
    let mut m = Vec::new();
    match p {
        Proto::Binary => {
            m.extend_from_slice(&[0x80, 1, 0, 1]);
            m.extend_from_slice(&(name.len() as i32).to_be_bytes());
            m.extend_from_slice(name);
            m.extend_from_slice(&5i32.to_be_bytes());
        }
        Proto::Compact => {
            m.extend_from_slice(&[0x82, 0x21, 5, name.len() as u8]);
            m.extend_from_slice(name);
        }
    }
    m.push(0);
    m
}

/// The message type of a reply: 2 = REPLY, 3 = EXCEPTION.
fn message_type(reply: &[u8], p: Proto) -> u8 {
    match p {
        Proto::Binary => {
            assert_eq!(reply[..2], [0x80, 1], "a strict binary reply: {reply:02x?}");
            reply[3]
        }
        Proto::Compact => {
            assert_eq!(reply[0], 0x82, "a compact reply: {reply:02x?}");
            reply[1] >> 5
        }
    }
}

struct Conn {
    s: TcpStream,
    wire: Wire,
}

impl Conn {
    fn open(addr: SocketAddr, wire: Wire) -> Conn {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        Conn { s, wire }
    }

    fn send(&mut self, body: &[u8]) {
        let mut out = Vec::new();
        match self.wire {
            Wire::Buffered => {}
            Wire::Framed => out.extend_from_slice(&(body.len() as u32).to_be_bytes()),
            Wire::Http => out.extend_from_slice(
                format!(
                    "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-thrift\r\n\
                     Content-Length: {}\r\n\r\n",
                    body.len()
                )
                .as_bytes(),
            ),
        }
        out.extend_from_slice(body);
        self.s.write_all(&out).unwrap();
    }

    /// One whole reply body (the reply must come: a read timeout fails the test).
    fn reply(&mut self) -> Vec<u8> {
        match self.wire {
            Wire::Framed => {
                let mut len = [0u8; 4];
                self.s.read_exact(&mut len).expect("a framed reply");
                let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
                self.s.read_exact(&mut body).unwrap();
                body
            }
            Wire::Http => {
                let mut head = Vec::new();
                let mut b = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    self.s.read_exact(&mut b).expect("an HTTP reply");
                    head.push(b[0]);
                }
                let head = String::from_utf8(head).unwrap();
                assert!(head.starts_with("HTTP/1.1 200"), "{head}");
                let len: usize = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().unwrap())
                    })
                    .unwrap();
                let mut body = vec![0u8; len];
                self.s.read_exact(&mut body).unwrap();
                body
            }
            Wire::Buffered => {
                // Replies here are small: one read after a short wait gets the whole of it.
                std::thread::sleep(Duration::from_millis(50));
                let mut buf = vec![0u8; 64 * 1024];
                let n = self.s.read(&mut buf).expect("a buffered reply");
                assert!(n > 0, "the server closed the connection");
                buf.truncate(n);
                buf
            }
        }
    }
}

/// Sends `bad`, expects an exception reply naming what was wrong, then a good call on the same
/// connection must be answered.
fn replay(addr: SocketAddr, wire: Wire, p: Proto, bad: &[u8], expect_text: &str) {
    let mut c = Conn::open(addr, wire);
    c.send(bad);
    let reply = c.reply();
    assert_eq!(
        message_type(&reply, p),
        3,
        "{wire:?}/{p:?}: an EXCEPTION reply"
    );
    let text = String::from_utf8_lossy(&reply);
    assert!(
        text.contains(expect_text),
        "{wire:?}/{p:?}: the reply should say {expect_text:?}: {text}"
    );
    c.send(&server_type_call(p));
    let ok = c.reply();
    assert_eq!(
        message_type(&ok, p),
        2,
        "{wire:?}/{p:?}: the connection still serves"
    );
}

/// A framed compact Thrift2 `getMultiple` whose list header claims 2^31-1 elements: the
/// generated decoder reserved memory for all of them and the process aborted.
const HUGE_LIST_COMPACT: &str = "8221010b6765744d756c7469706c651802667419fcffffffff07";
/// The same lie in a framed binary Thrift1 `getRows`.
const HUGE_LIST_BINARY: &str =
    "8001000100000007676574526f7773000000010b00010000000266740f00020b7fffffff";
/// A Thrift2 `mutateRow` whose TMutation union holds only an unknown field: a panic.
const UNKNOWN_UNION: &str = "80010001000000096d7574617465526f77000000010b00010000000266740c00020b000100000001720f00020c0000000108000900000000000000";
/// A method name that is not UTF-8: no reply, the client waited for its timeout.
const NOT_UTF8_NAME: &str = "8001000100000002fffe0000000100";

#[test]
fn lying_element_counts_get_a_protocol_error_on_every_transport() {
    let s = TestServer::start(Config::default());
    for wire in [Wire::Framed, Wire::Http] {
        replay(
            s.thrift2,
            wire,
            Proto::Compact,
            &hex(HUGE_LIST_COMPACT),
            "ends early",
        );
        replay(
            s.thrift1,
            wire,
            Proto::Binary,
            &hex(HUGE_LIST_BINARY),
            "ends early",
        );
        replay(
            s.thrift2,
            wire,
            Proto::Binary,
            &hex(HUGE_LIST_BINARY),
            "ends early",
        );
    }
}

#[test]
fn a_union_with_only_an_unknown_field_is_a_protocol_error() {
    let s = TestServer::start(Config::default());
    for wire in [Wire::Buffered, Wire::Framed, Wire::Http] {
        replay(
            s.thrift2,
            wire,
            Proto::Binary,
            &hex(UNKNOWN_UNION),
            "only field is unknown",
        );
    }
}

#[test]
fn a_method_name_that_is_not_utf8_is_answered() {
    let s = TestServer::start(Config::default());
    for wire in [Wire::Buffered, Wire::Framed, Wire::Http] {
        for addr in [s.thrift1, s.thrift2] {
            replay(
                addr,
                wire,
                Proto::Binary,
                &hex(NOT_UTF8_NAME),
                "cannot process",
            );
        }
    }
}

/// Fields whose wire type is not the IDL's: a list where an i64 belongs (the generated decoder
/// read a list header from the i64's bytes and reserved 2^31-1 elements: the process aborted),
/// an i32 where a binary belongs (read as a length of -1: a panic). Such a field is skipped, as
/// Java's generated code does: the call is answered (here with an error naming the missing
/// argument) and the connection goes on.
const LIST_IN_AN_I64_BINARY: &str =
    "8001000100000007676574526f7773000000010b000100000001740a00020b7fffffff00000000";
const BINARY_IN_AN_I32: &str =
    "800100010000000f6765745461626c65526567696f6e7300000001080001ffffffff00";
const LIST_IN_AN_I64_COMPACT: &str = "8221010b6765744d756c7469706c651802667416fcffffffff0700";

#[test]
fn fields_of_the_wrong_wire_type_are_skipped_not_misread() {
    let s = TestServer::start(Config::default());
    for wire in [Wire::Buffered, Wire::Framed, Wire::Http] {
        for bad in [LIST_IN_AN_I64_BINARY, BINARY_IN_AN_I32] {
            let mut c = Conn::open(s.thrift1, wire);
            c.send(&hex(bad));
            let reply = c.reply();
            assert!(
                !String::from_utf8_lossy(&reply).contains("internal error"),
                "{wire:?}: no panic behind the reply"
            );
            c.send(&server_type_call(Proto::Binary));
            assert_eq!(message_type(&c.reply(), Proto::Binary), 2);
        }

        let mut c = Conn::open(s.thrift2, wire);
        c.send(&hex(LIST_IN_AN_I64_COMPACT));
        let reply = c.reply();
        assert!(!String::from_utf8_lossy(&reply).contains("internal error"));
        c.send(&server_type_call(Proto::Compact));
        assert_eq!(message_type(&c.reply(), Proto::Compact), 2);
    }
}

/// A Thrift2 `getMultiple` whose `list<TGet>` says its elements are i64s: the decoder read
/// structs anyway and reserved 2^31-1 of them (the process aborted). Container elements of a
/// type the IDL does not declare are a protocol error now.
const LIST_OF_THE_WRONG_ELEMENTS: &str = "800100010000000b6765744d756c7469706c65000000010b000100000001740f00020a000000010f00020c7fffffff00";

#[test]
fn container_elements_of_the_wrong_type_are_refused() {
    let s = TestServer::start(Config::default());
    for wire in [Wire::Buffered, Wire::Framed, Wire::Http] {
        replay(
            s.thrift2,
            wire,
            Proto::Binary,
            &hex(LIST_OF_THE_WRONG_ELEMENTS),
            "elements of a type the IDL does not declare",
        );
    }
}
