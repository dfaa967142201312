//! Transport security through the real server on loopback ports: TLS and plaintext on one
//! port, --require-tls, client-certificate identities, SASL PLAIN, HTTP Basic and Bearer,
//! the cross-site rules, the failure limit, certificate reloads, and logs without secrets.

mod common;
mod security;

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use common::server::TestServer;
use redbase::security::{
    hash_password, hash_token, Auth, LimiterConfig, Security, Tls, TlsFiles, Users,
};
use redbase::server::Config;
use security::*;

const PASSWORD: &str = "correct horse battery staple";
const TOKEN: &str = "tok-5b2f0c8e9d1a4b7c";

/// Every log line of this test binary.
static LOG: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();

struct Sink(Arc<Mutex<Vec<u8>>>);
impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn capture_logs() -> Arc<Mutex<Vec<u8>>> {
    LOG.get_or_init(|| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let b = buf.clone();
        let _ = tracing_subscriber::fmt()
            .with_writer(move || Sink(b.clone()))
            .with_ansi(false)
            .try_init();
        buf
    })
    .clone()
}

struct Certs {
    dir: tempfile::TempDir,
    ca: Ca,
    files: TlsFiles,
}

fn certs(client_ca: bool) -> Certs {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("redbase test CA");
    let server = ca.leaf("server-one");
    let files = TlsFiles {
        cert: write(dir.path(), "server.crt", &server.cert),
        key: write(dir.path(), "server.key", &server.key),
        client_ca: client_ca.then(|| write(dir.path(), "ca.crt", &ca.pem)),
        require_client_cert: false,
    };
    Certs { dir, ca, files }
}

fn users(max_failures: u32) -> Arc<Auth> {
    let text = format!(
        "[users.alice]\npassword = \"{}\"\nsuperuser = true\n[users.bob]\ntokens = [\"{}\"]\n",
        hash_password(PASSWORD).unwrap(),
        hash_token(TOKEN)
    );
    let users = Users::parse(&text, Path::new("users.toml")).unwrap();
    Arc::new(Auth::new(
        users,
        LimiterConfig {
            max_failures,
            ..LimiterConfig::default()
        },
    ))
}

fn start(security: Security) -> TestServer {
    capture_logs();
    TestServer::start_with_http(Config {
        security,
        ..Config::default()
    })
}

const REPLY: u8 = 2;
const EXCEPTION: u8 = 3;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn tls_and_plaintext_share_a_port_and_require_tls_refuses_plaintext() {
    let c = certs(false);
    let tls = Tls::load(c.files.clone()).unwrap();
    let open = start(Security {
        tls: Some(tls.clone()),
        ..Security::default()
    });
    let (t, _) = get_table_names(&mut *plain(open.thrift1)).unwrap();
    assert_eq!(t, REPLY);
    let (t, _) = get_table_names(&mut *security::tls(open.thrift1, &c.ca.pem, None)).unwrap();
    assert_eq!(t, REPLY);

    let strict = start(Security {
        tls: Some(tls),
        require_tls: true,
        ..Security::default()
    });
    let (t, body) = get_table_names(&mut *plain(strict.thrift1)).unwrap();
    assert_eq!(t, EXCEPTION);
    assert!(text(&body).contains("--require-tls"), "{}", text(&body));
    let (t, _) = get_table_names(&mut *security::tls(strict.thrift1, &c.ca.pem, None)).unwrap();
    assert_eq!(t, REPLY);
    // Plaintext HTTP on the Thrift port gets a 400 naming the flag.
    let (code, resp) = http(
        &mut *plain(strict.thrift1),
        "POST",
        "/",
        &[("Content-Type", "application/x-thrift")],
        &message("getTableNames", &[]),
    );
    assert_eq!(code, 400, "{resp}");
    assert!(resp.contains("--require-tls"), "{resp}");
}

#[test]
fn a_client_certificate_is_an_identity() {
    let c = certs(true);
    let alice = c.ca.leaf("alice");
    let server = start(Security {
        tls: Some(Tls::load(c.files.clone()).unwrap()),
        auth: Some(users(100)),
        ..Security::default()
    });
    let (t, body) =
        get_table_names(&mut *security::tls(server.thrift1, &c.ca.pem, Some(&alice))).unwrap();
    assert_eq!(t, REPLY, "{}", text(&body));
    let (t, body) = get_table_names(&mut *security::tls(server.thrift1, &c.ca.pem, None)).unwrap();
    assert_eq!(t, EXCEPTION);
    assert!(
        text(&body).contains("authentication required"),
        "{}",
        text(&body)
    );
    // A certificate from another CA does not get through the handshake.
    let stranger = Ca::new("someone else").leaf("alice");
    assert!(get_table_names(&mut *security::tls(
        server.thrift1,
        &c.ca.pem,
        Some(&stranger)
    ))
    .is_err());
}

#[test]
fn sasl_plain_over_tls() {
    let c = certs(false);
    let server = start(Security {
        tls: Some(Tls::load(c.files.clone()).unwrap()),
        auth: Some(users(100)),
        ..Security::default()
    });
    let mut s = security::tls(server.thrift1, &c.ca.pem, None);
    assert_eq!(sasl_plain(&mut *s, "alice", PASSWORD), (5, String::new()));
    let (t, body) = get_table_names(&mut *s).unwrap();
    assert_eq!(t, REPLY, "{}", text(&body));
    let (t, _) = get_table_names(&mut *s).unwrap();
    assert_eq!(t, REPLY);

    let mut s = security::tls(server.thrift1, &c.ca.pem, None);
    let (status, why) = sasl_plain(&mut *s, "alice", "wrong");
    assert_eq!(status, 3);
    assert!(why.contains("authentication failed"), "{why}");

    // Plaintext SASL is refused: the password would cross the network in the clear.
    let mut s = plain(server.thrift1);
    let (status, why) = sasl_plain(&mut *s, "alice", PASSWORD);
    assert_eq!(status, 3);
    assert!(why.contains("--allow-plaintext-auth"), "{why}");

    // No identity, no call.
    let (t, body) = get_table_names(&mut *plain(server.thrift1)).unwrap();
    assert_eq!(t, EXCEPTION);
    assert!(text(&body).contains("SASL PLAIN"), "{}", text(&body));
}

#[test]
fn http_basic_and_bearer_on_thrift_over_http() {
    let server = start(Security {
        auth: Some(users(100)),
        allow_plaintext_auth: true,
        ..Security::default()
    });
    let call = message("getTableNames", &[]);
    let post = |auth: Option<&str>| {
        let mut h = vec![("Content-Type", "application/x-thrift")];
        if let Some(a) = auth {
            h.push(("Authorization", a));
        }
        http(&mut *plain(server.thrift1), "POST", "/", &h, &call)
    };
    assert_eq!(post(Some(&basic("alice", PASSWORD))).0, 200);
    assert_eq!(post(Some(&format!("Bearer {TOKEN}"))).0, 200);
    let (code, resp) = post(Some(&basic("alice", "nope")));
    assert_eq!(code, 401, "{resp}");
    assert!(resp.contains("WWW-Authenticate: Basic"), "{resp}");
    let (code, resp) = post(None);
    assert_eq!(code, 401);
    assert!(resp.contains("authentication required"), "{resp}");
    assert_eq!(post(Some("Bearer not-a-token")).0, 401);

    // The status page needs an identity; the probes do not.
    let (code, _) = http(
        &mut *plain(server.http.unwrap()),
        "GET",
        "/api/status",
        &[],
        b"",
    );
    assert_eq!(code, 401);
    let (code, resp) = http(
        &mut *plain(server.http.unwrap()),
        "GET",
        "/api/status",
        &[("Authorization", &basic("alice", PASSWORD))],
        b"",
    );
    assert_eq!(code, 200, "{resp}");
    assert!(resp.contains("\"authentication\":true"), "{resp}");
    assert_eq!(
        http(
            &mut *plain(server.http.unwrap()),
            "GET",
            "/healthz",
            &[],
            b""
        )
        .0,
        200
    );
}

#[test]
fn cross_site_requests_are_refused() {
    let server = start(Security::default());
    let create = message("createTable", &create_table_args("evil"));
    let (code, resp) = http(
        &mut *plain(server.thrift1),
        "POST",
        "/",
        &[
            ("Origin", "http://evil.example"),
            ("Content-Type", "text/plain"),
        ],
        &create,
    );
    assert_eq!(code, 403, "{resp}");
    // A form-like content type without an Origin is refused too.
    let (code, resp) = http(
        &mut *plain(server.thrift1),
        "POST",
        "/",
        &[("Content-Type", "text/plain")],
        &create,
    );
    assert_eq!(code, 415, "{resp}");
    let (t, body) = get_table_names(&mut *plain(server.thrift1)).unwrap();
    assert_eq!(t, REPLY);
    assert!(
        !text(&body).contains("evil"),
        "the table was created: {}",
        text(&body)
    );
    // A real Thrift client's request is served.
    let (code, _) = http(
        &mut *plain(server.thrift1),
        "POST",
        "/",
        &[("Content-Type", "application/vnd.apache.thrift.binary")],
        &message("getTableNames", &[]),
    );
    assert_eq!(code, 200);
    // The operations listener: no CORS preflight answer, cross-site non-GET refused.
    let ops = server.http.unwrap();
    let (code, resp) = http(
        &mut *plain(ops),
        "POST",
        "/api/status",
        &[("Origin", "http://evil.example")],
        b"",
    );
    assert_eq!(code, 403, "{resp}");
    let (_, resp) = http(
        &mut *plain(ops),
        "OPTIONS",
        "/api/status",
        &[
            ("Origin", "http://evil.example"),
            ("Access-Control-Request-Method", "POST"),
        ],
        b"",
    );
    assert!(
        !resp.to_ascii_lowercase().contains("access-control-allow"),
        "{resp}"
    );
}

#[test]
fn failed_attempts_are_limited_per_address_and_logs_hold_no_secret() {
    let log = capture_logs();
    let server = start(Security {
        auth: Some(users(3)),
        allow_plaintext_auth: true,
        ..Security::default()
    });
    let secret = "hunter2-do-not-log-me";
    for _ in 0..4 {
        let mut s = plain(server.thrift1);
        assert_eq!(sasl_plain(&mut *s, "alice", secret).0, 3);
    }
    // Now even the right password is refused from this address, with a clear reason.
    let mut s = plain(server.thrift1);
    let (status, why) = sasl_plain(&mut *s, "alice", PASSWORD);
    assert_eq!(status, 3);
    assert!(
        why.contains("too many failed authentication attempts"),
        "{why}"
    );
    let (code, resp) = http(
        &mut *plain(server.thrift1),
        "POST",
        "/",
        &[
            ("Content-Type", "application/x-thrift"),
            ("Authorization", &basic("alice", PASSWORD)),
        ],
        &message("getTableNames", &[]),
    );
    assert_eq!(code, 429, "{resp}");
    let logged = text(&log.lock().unwrap());
    assert!(logged.contains("authentication failed"), "{logged}");
    assert!(!logged.contains(secret), "a password reached the log");
    assert!(!logged.contains(PASSWORD), "a password reached the log");
}

#[test]
fn certificates_reload_on_change_and_open_connections_stay() {
    let c = certs(false);
    let server = start(Security {
        tls: Some(Tls::load(c.files.clone()).unwrap()),
        ..Security::default()
    });
    assert_eq!(
        server_cn(server.thrift1, &c.ca.pem).as_deref(),
        Some("server-one")
    );
    let mut old = security::tls(server.thrift1, &c.ca.pem, None);
    assert_eq!(get_table_names(&mut *old).unwrap().0, REPLY);

    // A broken certificate is not taken: the old one stays.
    std::thread::sleep(Duration::from_millis(1100));
    write(c.dir.path(), "server.crt", "not a certificate");
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(
        server_cn(server.thrift1, &c.ca.pem).as_deref(),
        Some("server-one")
    );

    let next = c.ca.leaf("server-two");
    write(c.dir.path(), "server.key", &next.key);
    write(c.dir.path(), "server.crt", &next.cert);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if server_cn(server.thrift1, &c.ca.pem).as_deref() == Some("server-two") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new certificate was not picked up"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    assert_eq!(
        get_table_names(&mut *old).unwrap().0,
        REPLY,
        "the open connection was dropped"
    );
    let logged = text(&capture_logs().lock().unwrap());
    assert!(logged.contains("TLS reload failed"), "{logged}");
}
