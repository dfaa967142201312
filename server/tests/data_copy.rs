//! `redbase copy` through the real binary between real `redbase serve` processes on loopback
//! ports: two servers and a new name on one server (every cell, timestamp and version, split
//! points, descriptors), `--families` renames, `--versions`, time-range increments,
//! `--verify` passing and failing on a tampered destination, bad arguments, and kill -9 in
//! the middle of a copy (resumed from its checkpoint) and of an import (run again).

mod move_support;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use move_support::{
    compare_across, compare_tables, fails, ok, p, redbase, region_starts, run, seed, Server,
};
use redbase::cli::shell::client::{connect, Protocol, Transport};
use redbase::engine::{Engine, EngineConfig, Scan};
use redbase::generated::hbase2::{TScan, TTHBaseServiceSyncClient};

fn copy(from: &Server, to: &Server, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["copy", "--from", &from.addr, "--to", &to.addr];
    args.extend(extra);
    run(&args)
}

fn open(dir: &Path) -> Engine {
    Engine::open(dir, EngineConfig::default()).unwrap()
}

/// The number after `copied ` in copy's summary line.
fn copied_rows(out: &str) -> u64 {
    let line = out.lines().find(|l| l.starts_with("copied ")).expect(out);
    line["copied ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn copies_between_servers_and_to_a_new_name_with_every_version_and_split_points() {
    let dir = tempfile::tempdir().unwrap();
    let (d1, d2) = (dir.path().join("one"), dir.path().join("two"));
    seed(&d1, "src", 3000);
    let (one, two) = (Server::start(&d1), Server::start(&d2));
    let out = ok(copy(&one, &two, &["--table", "src", "--verify"]));
    assert!(out.contains("copied 3000 rows, 30000 cells"), "{out}");
    assert!(
        out.contains("verified: 4 region(s), 3000 rows, 30000 cells equal on both sides"),
        "{out}"
    );
    // The same server under a new name (no --to), and again back from the second server.
    let out = ok(run(&[
        "copy",
        "--from",
        &one.addr,
        "--table",
        "src",
        "--new-name",
        "renamed",
        "--parallel",
        "2",
        "--chunk",
        "777",
        "--caching",
        "50",
        "--batch",
        "3",
    ]));
    assert!(out.contains("copied 3000 rows, 30000 cells"), "{out}");
    ok(copy(&two, &one, &["--table", "src", "--new-name", "back"]));
    // A table onto itself is refused.
    let err = fails(run(&["copy", "--from", &one.addr, "--table", "src"]));
    assert!(
        err.contains("the source and the destination are the same table"),
        "{err}"
    );
    one.stop();
    two.stop();

    let (e1, e2) = (open(&d1), open(&d2));
    assert_eq!(compare_across(&e1, "src", &e2, "src"), 30_000);
    assert_eq!(compare_tables(&e1, "src", "renamed"), 30_000);
    assert_eq!(compare_tables(&e1, "src", "back"), 30_000);
    let starts = region_starts(&e1, "src");
    assert_eq!(starts.len(), 4);
    assert_eq!(region_starts(&e2, "src"), starts);
    assert_eq!(region_starts(&e1, "renamed"), starts);
    assert_eq!(region_starts(&e1, "back"), starts);
    let source = e1.describe_table("src").unwrap();
    assert_eq!(e2.describe_table("src").unwrap().families, source.families);
    assert_eq!(e1.describe_table("back").unwrap().families, source.families);
}

#[test]
fn families_versions_and_time_ranges_choose_the_cells() {
    let dir = tempfile::tempdir().unwrap();
    let (d1, d2) = (dir.path().join("one"), dir.path().join("two"));
    seed(&d1, "src", 200);
    let (one, two) = (Server::start(&d1), Server::start(&d2));

    // a renamed to x, newest version only: a:q0 and a:q1 at ts 1030.
    let out = ok(copy(
        &one,
        &two,
        &[
            "--table",
            "src",
            "--new-name",
            "only-x",
            "--families",
            "a:x",
            "--versions",
            "1",
            "--verify",
        ],
    ));
    assert!(out.contains("copied 200 rows, 400 cells"), "{out}");
    assert!(
        out.contains("verified: 4 region(s), 200 rows, 400 cells"),
        "{out}"
    );

    // Increments: cells before 5000 (family a), then from 5000 on (family b) into the same
    // table, then one cell written later; each run copies only its window.
    let out = ok(copy(&one, &two, &["--table", "src", "--end-time", "5000"]));
    assert!(out.contains("copied 200 rows, 1600 cells"), "{out}");
    let out = ok(copy(
        &one,
        &two,
        &["--table", "src", "--start-time", "5000"],
    ));
    assert!(out.contains("copied 200 rows, 400 cells"), "{out}");
    let shell = |addr: &str, script: &str| {
        ok(run(&["shell", "--thrift2", addr, "-n", "-e", script]));
    };
    shell(&one.addr, "put 'src', 'new-row', 'a:q0', 'later', 9000");
    let out = ok(copy(
        &one,
        &two,
        &["--table", "src", "--start-time", "9000"],
    ));
    assert!(out.contains("copied 1 rows, 1 cells"), "{out}");
    let out = ok(copy(&one, &two, &["--table", "src", "--verify-only"]));
    assert!(
        out.contains("201 rows, 2001 cells equal on both sides"),
        "{out}"
    );

    // A row range: only the regions it touches, cut to it.
    let out = ok(copy(
        &one,
        &two,
        &[
            "--table",
            "src",
            "--new-name",
            "middle",
            "--start-row",
            "\\x50",
            "--stop-row",
            "\\xA0",
            "--verify",
            "--checkpoint",
            p(dir.path()),
        ],
    ));
    assert!(out.contains("2 region(s)"), "{out}");
    // A directory holds one checkpoint per source and destination, every region done.
    let saved = std::fs::read_to_string(dir.path().join("copy-src-to-middle.json")).unwrap();
    assert_eq!(saved.matches("\"done\": true").count(), 2, "{saved}");
    let rows = copied_rows(&out);
    assert!(rows > 0 && rows < 200, "{out}");

    // Bad arguments name what is wrong.
    let bad = |extra: &[&str], want: &str| {
        let mut args = vec!["--table", "src", "--new-name", "bad"];
        args.extend(extra);
        let err = fails(copy(&one, &two, &args));
        assert!(err.contains(want), "{err}");
    };
    bad(
        &["--families", "zz"],
        "table src has no column family \"zz\"",
    );
    bad(
        &["--families", "a:x,b:x"],
        "--families writes two families into \"x\"",
    );
    bad(
        &["--start-time", "9", "--end-time", "9"],
        "must be before --end-time",
    );
    bad(&["--start-row", "\\xZZ"], "needs two hex digits");
    bad(&["--no-create"], "the destination table bad does not exist");
    let err = fails(copy(&one, &two, &["--table", "nope"]));
    assert!(err.contains("table nope"), "{err}");
    // An existing destination with other families is refused unless --no-create.
    let err = fails(copy(
        &one,
        &two,
        &["--table", "src", "--new-name", "middle", "--families", "a"],
    ));
    assert!(err.contains("already exists"), "{err}");
    assert!(err.contains("--no-create"), "{err}");
    let err = fails(run(&[
        "copy",
        "--from",
        &one.addr,
        "--to",
        "127.0.0.1:1",
        "--table",
        "src",
    ]));
    assert!(
        err.contains("cannot connect to the Thrift2 server at 127.0.0.1:1"),
        "{err}"
    );
    one.stop();
    two.stop();

    let e2 = open(&d2);
    let scan = || {
        let mut s = Scan::new();
        s.options.max_versions = 10;
        s
    };
    let families: Vec<_> = e2
        .scan("only-x", scan())
        .unwrap()
        .flat_map(|r| r.unwrap().to_cells())
        .map(|c| c.family)
        .collect();
    assert_eq!(families.len(), 400);
    assert!(families.iter().all(|f| f[..] == b"x"[..]));
}

#[test]
fn verify_fails_and_names_the_region_when_the_destination_differs() {
    let dir = tempfile::tempdir().unwrap();
    let (d1, d2) = (dir.path().join("one"), dir.path().join("two"));
    seed(&d1, "src", 300);
    let (one, two) = (Server::start(&d1), Server::start(&d2));
    ok(copy(&one, &two, &["--table", "src"]));
    ok(copy(&one, &two, &["--table", "src", "--verify-only"]));
    // One more cell in the third region ([\x80\x00, \xC0\xFF\x01)) of the destination.
    ok(run(&[
        "shell",
        "--thrift2",
        &two.addr,
        "-n",
        "-e",
        "put 'src', \"\\x90extra\", 'a:q0', 'tampered', 1000",
    ]));
    let out = copy(&one, &two, &["--table", "src", "--verify-only"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = fails(out);
    assert!(
        err.contains("verification failed: 1 of 4 region(s) differ (region start \"\\x80\\x00\")"),
        "{err}"
    );
    assert!(stdout.contains("MISMATCH"), "{stdout}");
    one.stop();
    two.stop();
}

/// Polls `check` every 20 ms (no deadline on the run itself: the caller kills what it waits on).
fn wait_for(what: &str, mut check: impl FnMut() -> bool) {
    for _ in 0..3000 {
        if check() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("gave up waiting for {what}");
}

fn spawn_slow(args: &[&str]) -> Child {
    redbase()
        .args(args)
        .env("REDBASE_TEST_WRITE_DELAY_MS", "30")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// A scan with nothing set (every field None): the first row, whatever it holds.
fn any_row() -> TScan {
    TScan::new(
        None, None, None, None, None, None, None, None, None, None, None, None, None, None, None,
        None, None, None,
    )
}

fn kill9(mut child: Child) {
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(!status.success());
}

#[test]
fn a_copy_killed_with_sigkill_resumes_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let (d1, d2) = (dir.path().join("one"), dir.path().join("two"));
    seed(&d1, "src", 20_000);
    let (one, two) = (Server::start(&d1), Server::start(&d2));
    let checkpoint = dir.path().join("copy.json");
    let args = [
        "copy",
        "--from",
        &one.addr,
        "--to",
        &two.addr,
        "--table",
        "src",
        "--chunk",
        "500",
        "--parallel",
        "2",
        "--checkpoint",
        p(&checkpoint),
    ];
    let child = spawn_slow(&args);
    // Kill once some chunks were acknowledged (the checkpoint holds a resume row).
    wait_for("a resume row in the checkpoint", || {
        std::fs::read_to_string(&checkpoint).is_ok_and(|t| t.contains("\"resume\": \""))
    });
    kill9(child);
    // Other arguments with the same checkpoint are refused.
    let mut other = args.to_vec();
    other.extend(["--versions", "1"]);
    let err = fails(run(&other));
    assert!(
        err.contains("belongs to a copy with other arguments"),
        "{err}"
    );
    assert!(err.contains("versions: - then, 1 now"), "{err}");

    let out = ok(run(&args));
    assert!(out.contains("resuming from"), "{out}");
    let resumed = copied_rows(&out);
    assert!(resumed < 20_000, "{out}");
    assert!(out.contains("20000 rows in all"), "{out}");
    // Run again: everything is done, nothing copied.
    let out = ok(run(&args));
    assert!(out.contains("4 region(s) done, 0 to go"), "{out}");
    assert!(out.contains("copied 0 rows"), "{out}");
    let out = ok(copy(&one, &two, &["--table", "src", "--verify-only"]));
    assert!(out.contains("20000 rows, 200000 cells equal"), "{out}");
    one.stop();
    two.stop();
    let (e1, e2) = (open(&d1), open(&d2));
    assert_eq!(compare_across(&e1, "src", &e2, "src"), 200_000);
    assert_eq!(region_starts(&e1, "src"), region_starts(&e2, "src"));
}

#[test]
fn an_import_killed_with_sigkill_completes_when_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    seed(&data, "src", 20_000);
    let server = Server::start(&data);
    let file = dir.path().join("src.rbx");
    ok(run(&[
        "export",
        "--thrift2",
        &server.addr,
        "--table",
        "src",
        "--out",
        p(&file),
    ]));
    let import = [
        "import",
        "--thrift2",
        &server.addr,
        "--in",
        p(&file),
        "--table",
        "imp",
        "--chunk",
        "500",
    ];
    let child = spawn_slow(&import);
    let mut client = connect(
        &server.addr,
        &redbase::cli::connect::ClientSecurity::none(),
        Transport::Buffered,
        Protocol::Binary,
    )
    .unwrap();
    wait_for("rows in the imported table", || {
        client
            .get_scanner_results(b"imp".to_vec(), any_row(), 1)
            .is_ok_and(|rows| !rows.is_empty())
    });
    kill9(child);
    let err = fails(run(&import));
    assert!(err.contains("table imp already exists"), "{err}");
    let mut again = import.to_vec();
    again.push("--no-create");
    let out = ok(run(&again));
    assert!(out.contains("200000 cells into imp"), "{out}");
    drop(client);
    server.stop();
    let e = open(&data);
    assert_eq!(compare_tables(&e, "src", "imp"), 200_000);
    assert_eq!(region_starts(&e, "src"), region_starts(&e, "imp"));
}
