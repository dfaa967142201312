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
fn failed_attempts_are_limited_and_logs_hold_no_secret() {
    let log = capture_logs();
    let server = start(Security {
        auth: Some(users(3)),
        allow_plaintext_auth: true,
        ..Security::default()
    });
    let secret = "hunter2-do-not-log-me";
    for _ in 0..3 {
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

/// One request on a kept-alive connection: (status, body), read by `Content-Length`.
fn keep_alive_call(
    s: &mut dyn security::Stream,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Vec<u8>) {
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    s.flush().unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut b).unwrap();
        head.push(b[0]);
    }
    let head = text(&head);
    let code = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let len: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).unwrap();
    (code, body)
}

fn get_status(addr: std::net::SocketAddr, path: &str, auth: Option<&str>) -> (u16, String) {
    let h: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
    http(&mut *plain(addr), "GET", path, &h, b"")
}

#[test]
fn a_reloaded_auth_file_takes_effect_at_once_on_every_listener() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("users.toml");
    let file = |alice: &str, bob: Option<&str>| {
        let mut t = format!(
            "[users.alice]\npassword = \"{}\"\nsuperuser = true\n",
            hash_password(alice).unwrap()
        );
        if let Some(b) = bob {
            t.push_str(&format!(
                "[users.bob]\npassword = \"{}\"\n",
                hash_password(b).unwrap()
            ));
        }
        t
    };
    std::fs::write(&path, file("first pass", Some("bob pass"))).unwrap();
    let auth = Arc::new(
        Auth::load(
            &path,
            LimiterConfig {
                max_failures: 100,
                ..LimiterConfig::default()
            },
        )
        .unwrap(),
    );
    let server = start(Security {
        auth: Some(auth.clone()),
        allow_plaintext_auth: true,
        ..Security::default()
    });
    let ops = server.http.unwrap();
    let alice_old = basic("alice", "first pass");
    let alice_new = basic("alice", "second pass");
    let bob = basic("bob", "bob pass");
    // Accepted, and so remembered by the HTTP listener.
    assert_eq!(get_status(ops, "/api/status", Some(&alice_old)).0, 200);
    assert_eq!(get_status(ops, "/api/status", Some(&bob)).0, 200);
    // A Thrift-over-HTTP connection kept alive remembers its credentials too.
    let mut kept = plain(server.thrift1);
    let thrift = |s: &mut dyn security::Stream, auth: &str| {
        keep_alive_call(
            s,
            "/",
            &[
                ("Content-Type", "application/x-thrift"),
                ("Authorization", auth),
            ],
            &message("getTableNames", &[]),
        )
    };
    assert_eq!(thrift(&mut *kept, &alice_old).0, 200);

    // bob removed, alice's password changed: the reload (what SIGHUP runs) applies at once.
    std::fs::write(&path, file("second pass", None)).unwrap();
    auth.reload().unwrap();
    let (code, resp) = get_status(ops, "/api/status", Some(&alice_old));
    assert_eq!(code, 401, "the old password still works on HTTP: {resp}");
    assert_eq!(get_status(ops, "/api/status", Some(&bob)).0, 401);
    assert_eq!(get_status(ops, "/api/status", Some(&alice_new)).0, 200);
    let (code, body) = thrift(&mut *kept, &alice_old);
    assert_eq!(code, 401, "{}", text(&body));
    let mut s = plain(server.thrift1);
    assert_eq!(thrift(&mut *s, &alice_new).0, 200);
    let (status, why) = sasl_plain(&mut *plain(server.thrift1), "alice", "first pass");
    assert_eq!(status, 3, "{why}");
    let (status, why) = sasl_plain(&mut *plain(server.thrift1), "bob", "bob pass");
    assert_eq!(status, 3, "{why}");
    assert_eq!(
        sasl_plain(&mut *plain(server.thrift1), "alice", "second pass"),
        (5, String::new())
    );
}

#[test]
fn require_tls_covers_the_rest_api_and_leaves_loopback_the_health_probes() {
    let c = certs(false);
    let server = start(Security {
        tls: Some(Tls::load(c.files.clone()).unwrap()),
        require_tls: true,
        ..Security::default()
    });
    let ops = server.http.unwrap();
    // Plaintext from loopback: the health probes answer (the container's health check)...
    assert_eq!(get_status(ops, "/healthz", None).0, 200);
    assert_eq!(get_status(ops, "/readyz", None).0, 200);
    let probe = redbase::cli::healthcheck::check(ops, Duration::from_secs(5));
    let rt = tokio::runtime::Runtime::new().unwrap();
    assert!(rt.block_on(probe).is_ok());
    // ...and nothing else: not the REST API, the metrics or the status page.
    let schema = br#"{"name":"t","ColumnSchema":[{"name":"cf"}]}"#;
    let json = [("Content-Type", "application/json")];
    let (code, resp) = http(&mut *plain(ops), "PUT", "/t/schema", &json, schema);
    assert_eq!(code, 400, "{resp}");
    assert!(
        resp.contains("--require-tls") && resp.contains("use https"),
        "{resp}"
    );
    for path in [
        "/",
        "/t/schema",
        "/t/r",
        "/metrics",
        "/api/status",
        "/status.js",
    ] {
        let (code, resp) = get_status(ops, path, None);
        assert_eq!(code, 400, "{path}: {resp}");
    }
    // Over TLS everything is served; nothing was created over plaintext.
    let tls = |method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]| {
        http(
            &mut *security::tls(ops, &c.ca.pem, None),
            method,
            path,
            headers,
            body,
        )
    };
    let (code, resp) = tls("GET", "/", &[("Accept", "application/json")], b"");
    assert_eq!(code, 200, "{resp}");
    assert!(resp.contains("{\"table\":[]}"), "{resp}");
    let (code, resp) = tls("PUT", "/t/schema", &json, schema);
    assert!(code == 201 || code == 200, "{resp}");
    assert_eq!(tls("GET", "/metrics", &[], b"").0, 200);
    // The Thrift ports refuse plaintext from loopback too.
    let (t, body) = get_table_names(&mut *plain(server.thrift2)).unwrap_or((0, Vec::new()));
    assert_ne!(t, REPLY, "{}", text(&body));
}

#[test]
fn metrics_need_credentials_with_an_auth_file_unless_opened() {
    let secured = |metrics_open: bool, probes_auth: bool| {
        start(Security {
            auth: Some(users(100)),
            allow_plaintext_auth: true,
            metrics_open,
            probes_auth,
            ..Security::default()
        })
    };
    let alice = basic("alice", PASSWORD);
    let bearer = format!("Bearer {TOKEN}");

    // The default: /metrics needs credentials (Basic, or a bearer token as Prometheus sends),
    // the probes do not.
    let s = secured(false, false);
    let ops = s.http.unwrap();
    let (code, resp) = get_status(ops, "/metrics", None);
    assert_eq!(code, 401, "{resp}");
    assert!(resp.contains("authentication required"), "{resp}");
    assert!(!resp.contains("redbase_"), "{resp}");
    let (code, resp) = get_status(ops, "/metrics", Some(&alice));
    assert_eq!(code, 200, "{resp}");
    assert!(resp.contains("redbase_open_connections"), "{resp}");
    assert_eq!(get_status(ops, "/metrics", Some(&bearer)).0, 200);
    assert_eq!(get_status(ops, "/metrics", Some("Bearer wrong")).0, 401);
    assert_eq!(get_status(ops, "/healthz", None).0, 200);
    assert_eq!(get_status(ops, "/readyz", None).0, 200);

    // --metrics-open: anyone may scrape.
    let s = secured(true, false);
    let (code, resp) = get_status(s.http.unwrap(), "/metrics", None);
    assert_eq!(code, 200, "{resp}");

    // --metrics-auth: the probes need credentials as well.
    let s = secured(false, true);
    let ops = s.http.unwrap();
    for path in ["/healthz", "/readyz", "/metrics"] {
        assert_eq!(get_status(ops, path, None).0, 401, "{path}");
        assert_eq!(get_status(ops, path, Some(&alice)).0, 200, "{path}");
    }

    // Without an auth file there is nothing to prove: /metrics is open.
    let s = start(Security::default());
    assert_eq!(get_status(s.http.unwrap(), "/metrics", None).0, 200);
}

#[test]
fn the_lockout_counts_per_user_and_address_and_locks_at_the_limit() {
    let text_file = format!(
        "[users.alice]\npassword = \"{}\"\nsuperuser = true\n[users.carol]\npassword = \"{}\"\n[users.bob]\ntokens = [\"{}\"]\n",
        hash_password(PASSWORD).unwrap(),
        hash_password("carol pass").unwrap(),
        hash_token(TOKEN)
    );
    let users = Users::parse(&text_file, Path::new("users.toml")).unwrap();
    let auth = Arc::new(Auth::new(
        users,
        LimiterConfig {
            max_failures: 3,
            ..LimiterConfig::default()
        },
    ));
    let server = start(Security {
        auth: Some(auth),
        allow_plaintext_auth: true,
        ..Security::default()
    });
    let ops = server.http.unwrap();
    // Three failures for alice from this address: the third reaches the limit of 3.
    for _ in 0..3 {
        let (code, resp) = get_status(ops, "/api/status", Some(&basic("alice", "guess")));
        assert_eq!(code, 401, "{resp}");
    }
    // Now alice is refused from here even with her password, on HTTP and on SASL...
    let (code, resp) = get_status(ops, "/api/status", Some(&basic("alice", PASSWORD)));
    assert_eq!(code, 429, "{resp}");
    assert!(resp.to_ascii_lowercase().contains("retry-after:"), "{resp}");
    assert!(
        resp.contains("too many failed authentication attempts for user \"alice\""),
        "{resp}"
    );
    let (status, why) = sasl_plain(&mut *plain(server.thrift1), "alice", PASSWORD);
    assert_eq!(status, 3);
    assert!(why.contains("too many failed"), "{why}");
    // ...while other users from the same address (say, behind the same NAT) go on.
    assert_eq!(
        get_status(ops, "/api/status", Some(&basic("carol", "carol pass"))).0,
        200
    );
    assert_eq!(
        sasl_plain(&mut *plain(server.thrift1), "carol", "carol pass"),
        (5, String::new())
    );
    assert_eq!(
        get_status(ops, "/api/status", Some(&format!("Bearer {TOKEN}"))).0,
        200
    );
    // SASL failures count toward the same limit: two for carol, then one on HTTP blocks her;
    // then even her password, which the listener had remembered, is refused.
    for _ in 0..2 {
        assert_eq!(
            sasl_plain(&mut *plain(server.thrift1), "carol", "guess").0,
            3
        );
    }
    assert_eq!(
        get_status(ops, "/api/status", Some(&basic("carol", "guess"))).0,
        401
    );
    assert_eq!(
        get_status(ops, "/api/status", Some(&basic("carol", "carol pass"))).0,
        429
    );
}
