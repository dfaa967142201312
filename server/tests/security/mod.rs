//! Helpers for the transport security tests: certificates made with rcgen, a TLS client,
//! raw Thrift1 calls in framed transport, SASL PLAIN frames and HTTP requests.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};

pub struct Ca {
    pub pem: String,
    issuer: Issuer<'static, KeyPair>,
}

/// A certificate and its key, PEM.
pub struct Leaf {
    pub cert: String,
    pub key: String,
}

impl Ca {
    pub fn new(name: &str) -> Ca {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let cert = params.self_signed(&key).unwrap();
        Ca {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A certificate for `cn`, valid for the DNS name localhost.
    pub fn leaf(&self, cn: &str) -> Leaf {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        params.distinguished_name.push(DnType::CommonName, cn);
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Leaf {
            cert: cert.pem(),
            key: key.serialize_pem(),
        }
    }
}

pub fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

pub trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

pub fn plain(addr: SocketAddr) -> Box<dyn Stream> {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    Box::new(s)
}

/// A TLS connection trusting `ca`, presenting `client` when given.
pub fn tls(addr: SocketAddr, ca: &str, client: Option<&Leaf>) -> Box<dyn Stream> {
    let (s, conn) = tls_parts(addr, ca, client);
    Box::new(rustls::StreamOwned::new(conn, s))
}

/// The subject CN of the certificate the server shows a new TLS connection.
pub fn server_cn(addr: SocketAddr, ca: &str) -> Option<String> {
    let (mut s, mut conn) = tls_parts(addr, ca, None);
    while conn.is_handshaking() {
        if conn.complete_io(&mut s).is_err() {
            return None;
        }
    }
    let der = conn.peer_certificates()?.first()?.clone();
    let (_, cert) = x509_parser::parse_x509_certificate(der.as_ref()).ok()?;
    let cn = cert
        .subject()
        .iter_common_name()
        .next()?
        .as_str()
        .ok()?
        .to_string();
    Some(cn)
}

fn tls_parts(
    addr: SocketAddr,
    ca: &str,
    client: Option<&Leaf>,
) -> (TcpStream, rustls::ClientConnection) {
    use rustls::pki_types::pem::PemObject;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_slice_iter(ca.as_bytes()) {
        roots.add(c.unwrap()).unwrap();
    }
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let config = match client {
        None => builder.with_no_client_auth(),
        Some(leaf) => {
            let chain = CertificateDer::pem_slice_iter(leaf.cert.as_bytes())
                .map(|c| c.unwrap())
                .collect();
            let key = PrivateKeyDer::from_pem_slice(leaf.key.as_bytes()).unwrap();
            builder.with_client_auth_cert(chain, key).unwrap()
        }
    };
    let conn =
        rustls::ClientConnection::new(Arc::new(config), ServerName::try_from("localhost").unwrap())
            .unwrap();
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    (s, conn)
}

/// A strict binary Thrift message calling `method` with the encoded `args` fields.
pub fn message(method: &str, args: &[u8]) -> Vec<u8> {
    let mut m = vec![0x80, 0x01, 0x00, 0x01];
    m.extend_from_slice(&(method.len() as i32).to_be_bytes());
    m.extend_from_slice(method.as_bytes());
    m.extend_from_slice(&1i32.to_be_bytes());
    m.extend_from_slice(args);
    m.push(0);
    m
}

/// Thrift1 `createTable(name, [ColumnDescriptor{name: "f:"}])`'s arguments.
pub fn create_table_args(name: &str) -> Vec<u8> {
    let mut a = vec![11, 0, 1];
    a.extend_from_slice(&(name.len() as i32).to_be_bytes());
    a.extend_from_slice(name.as_bytes());
    a.extend_from_slice(&[15, 0, 2, 12]);
    a.extend_from_slice(&1i32.to_be_bytes());
    a.extend_from_slice(&[11, 0, 1]);
    a.extend_from_slice(&2i32.to_be_bytes());
    a.extend_from_slice(b"f:");
    a.push(0);
    a
}

/// The reply to one framed call: (message type: 2 reply, 3 exception; the whole body).
pub fn framed_call(s: &mut dyn Stream, msg: &[u8]) -> std::io::Result<(u8, Vec<u8>)> {
    let mut out = (msg.len() as i32).to_be_bytes().to_vec();
    out.extend_from_slice(msg);
    s.write_all(&out)?;
    s.flush()?;
    let mut len = [0u8; 4];
    s.read_exact(&mut len)?;
    let mut body = vec![0u8; i32::from_be_bytes(len) as usize];
    s.read_exact(&mut body)?;
    Ok((body[3], body))
}

pub fn get_table_names(s: &mut dyn Stream) -> std::io::Result<(u8, Vec<u8>)> {
    framed_call(s, &message("getTableNames", &[]))
}

pub fn sasl_send(s: &mut dyn Stream, status: u8, payload: &[u8]) {
    let mut out = vec![status];
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    s.write_all(&out).unwrap();
    s.flush().unwrap();
}

pub fn sasl_recv(s: &mut dyn Stream) -> (u8, String) {
    let mut head = [0u8; 5];
    s.read_exact(&mut head).unwrap();
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).unwrap();
    (head[0], String::from_utf8_lossy(&body).into_owned())
}

/// SASL PLAIN as thrift_sasl sends it: START "PLAIN", OK "\0user\0password"; the server's
/// answer.
pub fn sasl_plain(s: &mut dyn Stream, user: &str, password: &str) -> (u8, String) {
    sasl_send(s, 1, b"PLAIN");
    sasl_send(s, 2, format!("\0{user}\0{password}").as_bytes());
    sasl_recv(s)
}

/// One HTTP/1.1 request with `headers` and `body`; (status, whole response as text).
pub fn http(
    s: &mut dyn Stream,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String) {
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(body);
    s.write_all(&bytes).unwrap();
    s.flush().unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, text)
}

pub fn basic(user: &str, password: &str) -> String {
    use base64::Engine as _;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    )
}
