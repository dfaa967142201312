//! The first hour's mistakes, through the real binary: each refusal says what is wrong and
//! what to do. A second `serve` on a data directory in use, a catalog the user may not write,
//! a port already taken (for every listener: nothing created, the flag and variable named),
//! an address without a host (refused when the command line is parsed, for every address flag
//! of every subcommand), and sizes with units (accepted by every size flag, refused with the
//! units listed otherwise).

#[path = "cli_support/mod.rs"]
mod cli;

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use cli::{free_port, redbase, text};

/// Runs `cmd` to its end, killing it after `secs` (then the test fails: it should have exited).
fn run_bounded(mut cmd: Command, secs: u64) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {secs} s:\n{}{}",
                text(&out.stdout),
                text(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Standard output and error together, after asserting the exit status.
fn failed_with(out: &Output, code: i32) -> String {
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(code), "{all}");
    all
}

/// `redbase serve` with only the given gateways, every listener on a free loopback port
/// (port 0) unless the caller names it, none of the environment's REDBASE_* settings.
fn serve(data: &Path, gateways: &str) -> Command {
    let mut c = redbase();
    for v in [
        "REDBASE_THRIFT1_ADDR",
        "REDBASE_THRIFT2_ADDR",
        "REDBASE_HTTP_ADDR",
        "REDBASE_HBASE_RPC_ADDR",
        "REDBASE_GATEWAYS",
    ] {
        c.env_remove(v);
    }
    c.args(["serve", "--gateways", gateways])
        .arg("--data-dir")
        .arg(data);
    c
}

/// A running server; SIGTERM when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

fn start(mut cmd: Command, wait_for: u16, log: &Path) -> Running {
    let child = cmd
        .stdout(Stdio::from(std::fs::File::create(log).unwrap()))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", wait_for)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the server did not start:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    running
}

fn any_port(c: &mut Command, flags: &[&str]) {
    for f in flags {
        c.args([*f, "127.0.0.1:0"]);
    }
}

#[test]
fn a_second_serve_on_a_data_dir_in_use_says_stop_it_first() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let http = free_port();
    let mut first = serve(&data, "thrift2");
    any_port(&mut first, &["--thrift2-addr"]);
    first.args(["--http-addr", &format!("127.0.0.1:{http}")]);
    let _first = start(first, http, &dir.path().join("first.log"));

    let mut second = serve(&data, "thrift2");
    any_port(&mut second, &["--thrift2-addr", "--http-addr"]);
    let all = failed_with(&run_bounded(second, 60), 1);
    assert!(
        all.contains(&format!(
            "the data directory {} is in use by another process",
            data.display()
        )),
        "{all}"
    );
    assert!(all.contains("stop it first"), "{all}");
    assert!(!all.contains("unreadable"), "{all}");
    assert!(!all.contains("committing and closing regions"), "{all}");
}

#[test]
fn a_catalog_the_user_may_not_write_names_the_user() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    redbase::engine::Engine::open(&data, redbase::engine::EngineConfig::default())
        .unwrap()
        .close();
    let meta = data.join("meta.redb");
    std::fs::set_permissions(&meta, std::fs::Permissions::from_mode(0o444)).unwrap();
    let mut cmd = serve(&data, "thrift2");
    any_port(&mut cmd, &["--thrift2-addr", "--http-addr"]);
    // Permissions do not bind root: as root the server runs as nobody, who owns the data
    // directory but (by the mode above) may not write its catalog.
    let root = rustix::process::getuid().is_root();
    let user = if root {
        const NOBODY: u32 = 65534;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        for p in [&data, &data.join("tables"), &meta] {
            std::os::unix::fs::chown(p, Some(NOBODY), Some(NOBODY)).unwrap();
        }
        cmd.uid(NOBODY).gid(NOBODY);
        "(uid 65534)".to_string()
    } else {
        format!("(uid {})", rustix::process::getuid().as_raw())
    };
    let all = failed_with(&run_bounded(cmd, 60), 1);
    assert!(
        all.contains(&format!("{} is not writable by user ", meta.display())),
        "{all}"
    );
    assert!(all.contains(&user), "{all}");
    assert!(all.contains("give that user write access"), "{all}");
    assert!(!all.contains("unreadable"), "{all}");
}

#[test]
fn a_taken_port_names_the_listener_flag_and_variable_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let listeners = [
        ("--thrift1-addr", "REDBASE_THRIFT1_ADDR", "Thrift1 gateway"),
        ("--thrift2-addr", "REDBASE_THRIFT2_ADDR", "Thrift2 gateway"),
        (
            "--hbase-rpc-addr",
            "REDBASE_HBASE_RPC_ADDR",
            "native RPC listener",
        ),
        ("--http-addr", "REDBASE_HTTP_ADDR", "HTTP listener"),
    ];
    for (flag, env, what) in listeners {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap().to_string();
        let data = dir.path().join(format!("data{}", &flag[2..]));
        let mut cmd = serve(&data, "thrift1,thrift2,native");
        for (f, _, _) in listeners {
            cmd.args([f, if f == flag { &addr } else { "127.0.0.1:0" }]);
        }
        let all = failed_with(&run_bounded(cmd, 60), 1);
        assert!(
            all.contains(&format!("cannot bind the {what}")) && all.contains(&addr),
            "{flag}: {all}"
        );
        assert!(all.contains("the address is in use"), "{flag}: {all}");
        assert!(all.contains(&format!("{flag} (or {env})")), "{flag}: {all}");
        assert!(
            !data.exists(),
            "{flag}: a start that could not bind created {}",
            data.display()
        );
        assert!(
            !all.contains("committing and closing regions"),
            "{flag}: {all}"
        );
    }
}

#[test]
fn an_address_without_a_host_is_refused_when_parsed_by_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = data.to_str().unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec!["serve", "--data-dir", d, "--thrift1-addr", "38390"],
        vec!["serve", "--data-dir", d, "--thrift2-addr", "38390"],
        vec!["serve", "--data-dir", d, "--http-addr", "38390"],
        vec!["serve", "--data-dir", d, "--hbase-rpc-addr", "38390"],
        vec!["healthcheck", "--http-addr", "38390"],
        vec!["backup", "--to", d, "--http-addr", "38390"],
        vec!["shell", "--thrift2", "38390", "-e", "list"],
        vec!["export", "--thrift2", "38390", "--all", "--to", d],
        vec!["import", "--thrift2", "38390", "--in", d],
        vec!["copy", "--from", "38390", "--table", "t"],
        vec![
            "copy",
            "--from",
            "127.0.0.1:1",
            "--to",
            "38390",
            "--table",
            "t",
        ],
    ];
    for args in runs {
        let mut c = redbase();
        c.args(&args);
        let all = failed_with(&run_bounded(c, 30), 2);
        assert!(all.contains("expected HOST:PORT"), "{args:?}: {all}");
        assert!(all.contains("127.0.0.1:38390"), "{args:?}: {all}");
    }
    // The variables too.
    let mut c = redbase();
    c.env("REDBASE_THRIFT2_ADDR", "localhost")
        .args(["serve", "--data-dir", d]);
    let all = failed_with(&run_bounded(c, 30), 2);
    assert!(all.contains("expected HOST:PORT"), "{all}");
    assert!(!data.exists());
}

#[test]
fn every_size_flag_takes_units() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let sizes = [
        "--region-max-size",
        "--max-value-size",
        "--cache-size",
        "--write-buffer-size",
        "--max-message-size",
        "--max-inflight-bytes",
        "--max-scanner-bytes",
        "--rest-chunk-size",
        "--http-body-min-rate",
    ];
    for flag in sizes {
        let mut c = serve(&data, "thrift2");
        c.args([flag, "1XB"]);
        let all = failed_with(&run_bounded(c, 30), 2);
        assert!(all.contains("invalid size \"1XB\""), "{flag}: {all}");
        assert!(all.contains("KiB") && all.contains("GB"), "{flag}: {all}");
    }
    let help = text(
        &run_bounded(
            {
                let mut c = redbase();
                c.args(["serve", "--help"]);
                c
            },
            30,
        )
        .stdout,
    );
    assert!(help.contains("--cache-size <SIZE>"), "{help}");
    assert!(help.contains("KiB, MiB, GiB"), "{help}");

    // All of them with units at once: the server starts and reports what it was given.
    let http = free_port();
    let mut c = serve(&data, "thrift2");
    any_port(&mut c, &["--thrift2-addr"]);
    c.args(["--http-addr", &format!("127.0.0.1:{http}")]);
    c.args(["--cache-size", "1GB", "--region-max-size", "10g"]);
    c.args(["--region-block-factor", "2"]);
    c.args(["--max-value-size", "2MiB", "--write-buffer-size", "8mb"]);
    c.args([
        "--max-message-size",
        "32M",
        "--max-inflight-bytes",
        "1.5GiB",
    ]);
    c.args([
        "--max-scanner-bytes",
        "64 MiB",
        "--rest-chunk-size",
        "256KiB",
    ]);
    c.args(["--http-body-min-rate", "1k"]);
    let _server = start(c, http, &dir.path().join("server.log"));
    let metrics = get(http, "/metrics");
    for (name, value) in [
        ("redbase_cache_bytes_max", 1_000_000_000u64),
        ("redbase_region_blocking_size_bytes", 2 * (10u64 << 30)),
        ("redbase_inflight_bytes_max", 3 << 29),
        ("redbase_scanner_bytes_max", 64 << 20),
    ] {
        let got = metrics
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")) || l.starts_with(&format!("{name}{{")))
            .and_then(|l| l.rsplit(' ').next())
            .unwrap_or_else(|| panic!("no {name} in:\n{metrics}"));
        assert_eq!(got, value.to_string(), "{name}");
    }
}

/// A plain HTTP/1.0 GET's body.
fn get(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}
