//! The client tools against a server with `--auth-file` and `--require-tls`, through the real
//! binary: one `redbase serve` (Thrift2 and the operations listener, a certificate from a CA
//! made with rcgen) and `redbase shell`, `export`, `import`, `copy` and `backup` as a
//! superuser with a password file, with REDBASE_PASSWORD and with a client certificate; and
//! each refused, with a message saying what to do, without credentials, with a wrong password,
//! without TLS and without the CA file.

#[path = "cli_support/mod.rs"]
mod cli;
mod security;

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use cli::{free_port, ok, redbase, text};
use redbase::security::hash_password;
use security::{write, Ca};

const PASSWORD: &str = "tr0ub4dor & 3";

/// `redbase serve` with TLS required and an auth file; SIGTERM when dropped.
struct Server {
    child: Child,
    /// `localhost:PORT`: the name the server's certificate holds.
    thrift2: String,
    http: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// The files the tools are given.
struct Files {
    ca: PathBuf,
    other_ca: PathBuf,
    password: PathBuf,
    wrong_password: PathBuf,
    client_cert: PathBuf,
    client_key: PathBuf,
    dir: PathBuf,
}

fn start(dir: &Path) -> (Server, Files) {
    let ca = Ca::new("client tools test CA");
    let server = ca.leaf("redbase server");
    let admin = ca.leaf("admin");
    let users = format!(
        "[users.admin]\npassword = \"{}\"\nsuperuser = true\n",
        hash_password(PASSWORD).unwrap()
    );
    let files = Files {
        ca: write(dir, "ca.pem", &ca.pem),
        other_ca: write(dir, "other-ca.pem", &Ca::new("someone else").pem),
        password: write(dir, "password", &format!("{PASSWORD}\n")),
        wrong_password: write(dir, "wrong", "not the password\n"),
        client_cert: write(dir, "admin.crt", &admin.cert),
        client_key: write(dir, "admin.key", &admin.key),
        dir: dir.to_path_buf(),
    };
    for f in [&files.password, &files.wrong_password, &files.client_key] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let (t2, http) = (free_port(), free_port());
    let child = redbase()
        .args(["serve", "--gateways", "thrift2"])
        .args(["--thrift2-addr", &format!("127.0.0.1:{t2}")])
        .args(["--http-addr", &format!("127.0.0.1:{http}")])
        .arg("--data-dir")
        .arg(dir.join("data"))
        .arg("--tls-cert")
        .arg(write(dir, "server.crt", &server.cert))
        .arg("--tls-key")
        .arg(write(dir, "server.key", &server.key))
        .arg("--tls-client-ca")
        .arg(&files.ca)
        .arg("--require-tls")
        .arg("--auth-file")
        .arg(write(dir, "users.toml", &users))
        // Each refusal below is one failure from 127.0.0.1; stay far from the block.
        .args(["--auth-max-failures", "1000"])
        .stdout(Stdio::null())
        .stderr(Stdio::from(
            std::fs::File::create(dir.join("server.log")).unwrap(),
        ))
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    for port in [t2, http] {
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let server = Server {
        child,
        thrift2: format!("localhost:{t2}"),
        http: format!("localhost:{http}"),
    };
    (server, files)
}

/// The binary with none of the variables these tests set coming from the environment.
fn tool(args: &[&str]) -> Command {
    let mut c = redbase();
    c.args(args);
    for v in [
        "REDBASE_USER",
        "REDBASE_PASSWORD",
        "REDBASE_TOKEN",
        "REDBASE_CA_FILE",
        "REDBASE_CLIENT_CERT",
        "REDBASE_CLIENT_KEY",
        "REDBASE_SHELL_THRIFT2",
        "REDBASE_THRIFT2",
        "REDBASE_HTTP_ADDR",
        "SSL_CERT_FILE",
    ] {
        c.env_remove(v);
    }
    c
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn output(mut c: Command) -> Output {
    c.output().unwrap()
}

/// Asserts exit status 1; standard output and error together (the shell prints a failed
/// command's error on standard output, as HBase's shell does).
fn fails(out: Output) -> String {
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{all}");
    all
}

/// `redbase shell -n -e script` against the server with `extra` flags.
fn shell(srv: &Server, script: &str, extra: &[&str]) -> Command {
    let mut c = tool(&["shell", "-n", "--thrift2", &srv.thrift2, "-e", script]);
    c.args(extra);
    c
}

/// The four refusals every tool must explain, run against one tool invocation `make(flags)`
/// (flags are the security flags only): without credentials, with a wrong password, without
/// TLS, without the CA file.
fn refusals(f: &Files, make: impl Fn(&[&str]) -> Command) {
    let ca = ["--ca-file", s(&f.ca)];
    let none = fails(output(make(&ca)));
    assert!(
        none.contains("authentication required") && none.contains("hint: give --user"),
        "{none}"
    );
    let wrong = [
        "--ca-file",
        s(&f.ca),
        "--user",
        "admin",
        "--password-file",
        s(&f.wrong_password),
    ];
    let wrong = fails(output(make(&wrong)));
    assert!(
        wrong.contains("authentication failed") && wrong.contains("hint: check --user"),
        "{wrong}"
    );
    assert!(!wrong.contains("not the password"), "{wrong}");
    let plain = ["--user", "admin", "--password-file", s(&f.password)];
    let plain = fails(output(make(&plain)));
    assert!(
        plain.contains("hint: connect with --tls and --ca-file"),
        "{plain}"
    );
    assert!(
        plain.contains("requires TLS") || plain.contains("over plaintext are refused"),
        "{plain}"
    );
    let no_ca = [
        "--tls",
        "--user",
        "admin",
        "--password-file",
        s(&f.password),
    ];
    let no_ca = fails(output(make(&no_ca)));
    assert!(no_ca.contains("--ca-file"), "{no_ca}");
    assert!(
        no_ca.contains("not trusted") || no_ca.contains("no CA certificates"),
        "{no_ca}"
    );
    // A CA that did not sign the server's certificate.
    let other = ["--ca-file", s(&f.other_ca), "--user", "admin"];
    let mut c = make(&other);
    c.env("REDBASE_PASSWORD", PASSWORD);
    let other = fails(output(c));
    assert!(
        other.contains("is not trusted") && other.contains("other-ca.pem"),
        "{other}"
    );
}

/// With neither a password file nor REDBASE_PASSWORD, the shell asks on its terminal (a pty
/// from util-linux's `script`) with echo off: the password typed is not shown.
fn prompt_on_a_terminal(srv: &Server, f: &Files) {
    use std::io::{Read, Write};
    use std::sync::{Arc, Mutex};
    let line = format!(
        "{} shell -n --thrift2 {} --ca-file {} --user admin -e list",
        env!("CARGO_BIN_EXE_redbase"),
        srv.thrift2,
        s(&f.ca)
    );
    let mut c = Command::new("script");
    c.args(["-q", "-e", "-c", &line, "/dev/null"])
        .env_remove("REDBASE_PASSWORD")
        .env_remove("REDBASE_USER")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = {
        let seen = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                seen.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while !text(&seen.lock().unwrap()).contains("Password for admin at") {
        assert!(
            Instant::now() < deadline,
            "no prompt: {}",
            text(&seen.lock().unwrap())
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{PASSWORD}\n").as_bytes()).unwrap();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    drop(stdin);
    let out = text(&seen.lock().unwrap());
    assert!(status.success(), "{out}");
    assert!(out.contains("t1"), "{out}");
    assert!(!out.contains(PASSWORD), "the password was echoed: {out}");
}

#[test]
fn every_client_tool_authenticates_over_tls_and_explains_refusals() {
    let tmp = tempfile::tempdir().unwrap();
    let (srv, f) = start(tmp.path());
    let creds = [
        "--ca-file",
        s(&f.ca),
        "--user",
        "admin",
        "--password-file",
        s(&f.password),
    ];

    // shell: a password file; a script on standard input with REDBASE_PASSWORD; a client
    // certificate (CN=admin, a superuser) with no password at all.
    let out = ok(output(shell(
        &srv,
        "create 't1', 'f'\nput 't1', 'r1', 'f:a', 'v1'\nput 't1', 'r2', 'f:a', 'v2'",
        &creds,
    )));
    assert!(out.contains("Created table t1"), "{out}");
    let mut c = tool(&["shell", "-n", "--thrift2", &srv.thrift2, "--tls"]);
    c.args(["--ca-file", s(&f.ca), "--user", "admin"])
        .env("REDBASE_PASSWORD", PASSWORD)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"scan 't1'\n").unwrap();
    }
    let out = ok(child.wait_with_output().unwrap());
    assert!(
        out.contains("value=v1") && out.contains("value=v2"),
        "{out}"
    );
    let cert = [
        "--ca-file",
        s(&f.ca),
        "--client-cert",
        s(&f.client_cert),
        "--client-key",
        s(&f.client_key),
    ];
    let out = ok(output(shell(&srv, "count 't1'", &cert)));
    assert!(out.contains("2 row(s)"), "{out}");
    prompt_on_a_terminal(&srv, &f);
    refusals(&f, |flags| shell(&srv, "list", flags));
    // By IP address the name check fails (the certificate names localhost) until the name to
    // check is given.
    let by_ip = srv.thrift2.replace("localhost", "127.0.0.1");
    let mut c = tool(&["shell", "-n", "--thrift2", &by_ip, "-e", "list"]);
    c.args(creds);
    let e = fails(output(c));
    assert!(
        e.contains("not valid for the name 127.0.0.1") && e.contains("--tls-server-name"),
        "{e}"
    );
    let mut c = tool(&["shell", "-n", "--thrift2", &by_ip, "-e", "list"]);
    c.args(creds).args(["--tls-server-name", "localhost"]);
    assert!(ok(output(c)).contains("t1"));
    let argv = fails(output(shell(&srv, "list", &["--password", "hunter2"])));
    assert!(
        argv.contains("--password-file") && !argv.contains("hunter2"),
        "{argv}"
    );

    // export with a password file, import (a new name) with REDBASE_PASSWORD.
    let file = f.dir.join("t1.rbx");
    let export = |flags: &[&str]| {
        let mut c = tool(&[
            "export",
            "--thrift2",
            &srv.thrift2,
            "--table",
            "t1",
            "--out",
        ]);
        c.arg(&file).args(flags);
        c
    };
    let out = ok(output(export(&creds)));
    assert!(out.contains("2 rows"), "{out}");
    refusals(&f, |flags| export(flags));
    let import = |flags: &[&str]| {
        let mut c = tool(&["import", "--thrift2", &srv.thrift2, "--table", "t2", "--in"]);
        c.arg(&file).args(flags);
        c
    };
    let mut c = import(&["--ca-file", s(&f.ca), "--user", "admin"]);
    c.env("REDBASE_PASSWORD", PASSWORD);
    let out = ok(output(c));
    assert!(out.contains("2 row lines, 2 cells into t2"), "{out}");
    refusals(&f, |flags| import(flags));

    // copy: the plain flags for both sides, then each side's own (--from-*, --to-*).
    let copy = |new: &str, flags: &[&str]| {
        let mut c = tool(&["copy", "--from", &srv.thrift2, "--table", "t1"]);
        c.args(["--new-name", new, "--quiet"]).args(flags);
        c
    };
    let out = ok(output(copy("t3", &creds)));
    assert!(out.contains("copied 2 rows"), "{out}");
    let sides = [
        "--from-ca-file",
        s(&f.ca),
        "--from-user",
        "admin",
        "--from-password-file",
        s(&f.password),
        "--to-ca-file",
        s(&f.ca),
        "--to-client-cert",
        s(&f.client_cert),
        "--to-client-key",
        s(&f.client_key),
    ];
    let mut c = copy("t4", &sides);
    c.arg("--verify");
    let out = ok(output(c));
    assert!(out.contains("equal on both sides"), "{out}");
    refusals(&f, |flags| copy("t5", flags));
    // Only the destination's password is wrong: the error says which side.
    let mut wrong_dest = creds.to_vec();
    wrong_dest.extend(["--to-password-file", s(&f.wrong_password)]);
    let e = fails(output(copy("t6", &wrong_dest)));
    assert!(
        e.contains("destination") && e.contains("authentication failed"),
        "{e}"
    );

    // backup over HTTPS with Basic, then restore (offline) holds every table.
    let backup = |to: &str, flags: &[&str]| {
        let mut c = tool(&["backup", "--http-addr", &srv.http, "--to"]);
        c.arg(f.dir.join(to)).args(flags);
        c
    };
    let out = ok(output(backup("bk", &creds)));
    assert!(out.contains("backup of 4 tables"), "{out}");
    // A client certificate naming a superuser is enough on its own.
    let out = ok(output(backup("bk-cert", &cert)));
    assert!(out.contains("backup of 4 tables"), "{out}");
    refusals(&f, |flags| backup("refused", flags));
    assert!(
        !f.dir.join("refused").exists(),
        "a refused backup left its directory"
    );
    let out = ok(output({
        let mut c = tool(&["restore", "--from"]);
        c.arg(f.dir.join("bk"))
            .arg("--data-dir")
            .arg(f.dir.join("restored"));
        c
    }));
    assert!(out.contains("restored 4 tables"), "{out}");
    let log = std::fs::read_to_string(f.dir.join("server.log")).unwrap();
    assert!(!log.contains(PASSWORD), "a password in the server's log");
    drop(srv);
}
