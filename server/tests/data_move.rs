//! `redbase export` / `redbase import` through the real binary against a real `redbase serve`
//! on loopback ports: a round trip of 10^6 cells (several versions and families, binary keys
//! and values, split points), damaged files refused with FILE:LINE, `--max-errors`, export
//! options, a TLS client refused by a plaintext server, and offline imports. CSV imports:
//! data_move_csv.rs. Against a server with TLS and an auth file: client_security.rs.

mod move_support;
#[path = "security/mod.rs"]
mod tls_support;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use move_support::{compare_tables, fails, ok, p, region_starts, run, seed, Server};
use redbase::engine::{Engine, EngineConfig};

#[test]
fn a_million_cells_round_trip_with_versions_timestamps_and_split_points() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let seeded = Instant::now();
    seed(&data, "big", 100_000);
    eprintln!("seed: {:?}", seeded.elapsed());
    let file = dir.path().join("big.rbx");
    let server = Server::start(&data);
    let started = Instant::now();
    let out = ok(run(&[
        "export",
        "--thrift2",
        &server.addr,
        "--table",
        "big",
        "--out",
        p(&file),
    ]));
    eprintln!("export: {out} ({:?})", started.elapsed());
    assert!(out.contains("1000000 cells"), "{out}");
    assert!(!dir.path().join("big.rbx.partial").exists());
    let started = Instant::now();
    let out = ok(run(&[
        "import",
        "--thrift2",
        &server.addr,
        "--in",
        p(&file),
        "--table",
        "copy",
    ]));
    eprintln!("import: {out} ({:?})", started.elapsed());
    assert!(out.contains("1000000 cells into copy"), "{out}");
    server.stop();

    let compared = Instant::now();
    let e = Engine::open(&data, EngineConfig::default()).unwrap();
    assert_eq!(compare_tables(&e, "big", "copy"), 1_000_000);
    eprintln!("compare: {:?}", compared.elapsed());
    assert_eq!(region_starts(&e, "big"), region_starts(&e, "copy"));
    assert_eq!(region_starts(&e, "copy").len(), 4);
    let (src, dst) = (
        e.describe_table("big").unwrap(),
        e.describe_table("copy").unwrap(),
    );
    assert_eq!(src.families, dst.families);
}

/// A small source table, its export, and the server (still running) and data dir.
fn small_export(dir: &Path, rows: u32) -> (Server, PathBuf, PathBuf) {
    let data = dir.join("data");
    seed(&data, "small", rows);
    let server = Server::start(&data);
    let file = dir.join("small.rbx");
    ok(run(&[
        "export",
        "--thrift2",
        &server.addr,
        "--table",
        "small",
        "--out",
        p(&file),
    ]));
    (server, data, file)
}

fn decompress(file: &Path) -> Vec<String> {
    let mut s = String::new();
    zstd::stream::read::Decoder::new(std::fs::File::open(file).unwrap())
        .unwrap()
        .read_to_string(&mut s)
        .unwrap();
    s.lines().map(String::from).collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    let mut f = std::fs::File::create(path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}

#[test]
fn damaged_files_are_refused_with_file_and_line_and_max_errors_skips_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _data, file) = small_export(dir.path(), 50);
    let lines = decompress(&file);
    assert_eq!(lines.len(), 52, "header, 50 rows, trailer");
    let import = |path: &Path, table: &str, extra: &[&str]| {
        let mut args = vec!["import", "--thrift2", &server.addr, "--in", p(path)];
        args.extend(["--table", table]);
        args.extend(extra);
        run(&args)
    };

    // Cut short inside the compressed stream: the error names the file and a line.
    let bytes = std::fs::read(&file).unwrap();
    let cut = dir.path().join("cut.rbx");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let err = fails(import(&cut, "t_cut", &[]));
    assert!(err.contains(&format!("{}:", cut.display())), "{err}");
    assert!(err.contains("cut short"), "{err}");

    // Cut at a line boundary (no trailer): refused at the last line, whatever --max-errors.
    let no_trailer = dir.path().join("no_trailer.jsonl");
    write_lines(&no_trailer, &lines[..30]);
    let err = fails(import(&no_trailer, "t_nt", &["--max-errors", "10"]));
    assert!(
        err.contains(&format!(
            "{}:30: the file ends without its trailer",
            no_trailer.display()
        )),
        "{err}"
    );

    // One bad row (line 5): refused by default, naming file:5.
    let mut bad = lines.clone();
    bad[4] = bad[4].replacen("\"row\":\"", "\"row\":\"!!", 1);
    let one_bad = dir.path().join("one_bad.jsonl");
    write_lines(&one_bad, &bad);
    let err = fails(import(&one_bad, "t_bad0", &[]));
    assert!(
        err.contains(&format!(
            "{}:5: the row key is not valid base64",
            one_bad.display()
        )),
        "{err}"
    );
    assert!(
        err.contains("too many bad lines: 1 (--max-errors 0)"),
        "{err}"
    );

    // --max-errors 1: the bad line is skipped and counted, the other 49 rows imported.
    let out = ok(import(&one_bad, "t_bad1", &["--max-errors", "1"]));
    assert!(out.contains("49 row lines, 490 cells into t_bad1"), "{out}");
    assert!(out.contains("1 bad line(s) skipped"), "{out}");

    // Two bad lines (one not JSON at all) against --max-errors 1.
    bad[9] = "{not json".into();
    let two_bad = dir.path().join("two_bad.jsonl");
    write_lines(&two_bad, &bad);
    let err = fails(import(&two_bad, "t_bad2", &["--max-errors", "1"]));
    assert!(
        err.contains(&format!("{}:10: not a row record", two_bad.display())),
        "{err}"
    );
    assert!(
        err.contains("too many bad lines: 2 (--max-errors 1)"),
        "{err}"
    );

    // An altered value with valid syntax: the trailer's checksum catches it.
    let mut altered = lines.clone();
    altered[7] = altered[7].replacen("\"ts\":1000", "\"ts\":1001", 1);
    let alt = dir.path().join("altered.jsonl");
    write_lines(&alt, &altered);
    let err = fails(import(&alt, "t_alt", &[]));
    assert!(
        err.contains(&format!("{}:52: the trailer does not match", alt.display())),
        "{err}"
    );

    // Not an export file; a newer version; an existing table without --no-create.
    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, "{\"hello\":1}\n").unwrap();
    let err = fails(import(&other, "t_o", &[]));
    assert!(
        err.contains(&format!(
            "{}:1: line 1 is not a redbase-export header",
            other.display()
        )),
        "{err}"
    );
    let mut newer = lines.clone();
    newer[0] = newer[0].replacen("\"version\":1", "\"version\":9", 1);
    let v9 = dir.path().join("v9.jsonl");
    write_lines(&v9, &newer);
    let err = fails(import(&v9, "t_v9", &[]));
    assert!(err.contains("format version 9 is not supported"), "{err}");
    let err = fails(import(&file, "small", &[]));
    assert!(err.contains("table small already exists"), "{err}");
    // --no-create into the existing copy: same cells again (idempotent puts).
    ok(import(&file, "t_bad1", &["--no-create"]));
    server.stop();
}

#[test]
fn export_options_limit_versions_time_and_families() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _data, _file) = small_export(dir.path(), 20);
    let out_file = dir.path().join("one.rbx");
    let out = ok(run(&[
        "export",
        "--thrift2",
        &server.addr,
        "--table",
        "small",
        "--out",
        p(&out_file),
        "--versions",
        "1",
        "--families",
        "a",
        "--start-time",
        "1000",
        "--end-time",
        "1025",
    ]));
    // a:q0 and a:q1, newest version inside [1000, 1025) is ts 1020: 2 cells per row.
    assert!(out.contains("20 rows, 40 cells"), "{out}");
    let lines = decompress(&out_file);
    assert!(lines[1].contains("\"ts\":1020"), "{}", lines[1]);
    let err = fails(run(&[
        "export",
        "--thrift2",
        &server.addr,
        "--table",
        "nope",
        "--out",
        p(&out_file),
    ]));
    assert!(err.contains("table nope"), "{err}");
    // TLS to a server that serves plaintext only: it closes the connection at the ClientHello.
    let ca = tls_support::Ca::new("a CA");
    let ca = tls_support::write(dir.path(), "ca.pem", &ca.pem);
    let err = fails(run(&[
        "export",
        "--thrift2",
        &server.addr,
        "--table",
        "small",
        "--out",
        p(&out_file),
        "--ca-file",
        p(&ca),
    ]));
    assert!(
        err.contains("did not complete a TLS handshake") && err.contains("leave out --tls"),
        "{err}"
    );
    server.stop();
}

#[test]
fn offline_import_into_a_data_dir_and_refusal_while_a_server_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let (server, data, file) = small_export(dir.path(), 300);
    let err = fails(run(&[
        "import",
        "--data-dir",
        p(&data),
        "--in",
        p(&file),
        "--table",
        "offline",
    ]));
    assert!(err.contains("is in use by another process"), "{err}");
    server.stop();
    let out = ok(run(&[
        "import",
        "--data-dir",
        p(&data),
        "--in",
        p(&file),
        "--table",
        "offline",
    ]));
    assert!(out.contains("3000 cells into offline"), "{out}");
    let err = fails(run(&[
        "import",
        "--data-dir",
        p(&dir.path().join("nothing")),
        "--in",
        p(&file),
    ]));
    assert!(err.contains("is not a redbase data directory"), "{err}");
    let e = Engine::open(&data, EngineConfig::default()).unwrap();
    assert_eq!(compare_tables(&e, "small", "offline"), 3000);
    assert_eq!(region_starts(&e, "small"), region_starts(&e, "offline"));
}

/// When the server refuses a chunk midway, the message counts what the server acknowledged
/// (and what was read), so the user can tell what landed: here the first 30 rows of 300.
#[test]
fn a_stopped_import_reports_the_rows_the_server_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let (server, data, file) = small_export(dir.path(), 300);
    let mut lines = decompress(&file);
    assert_eq!(lines.len(), 302, "header, 300 rows, trailer");
    // From the 31st row on, every cell names a family the table does not have.
    for l in &mut lines[31..301] {
        let changed = l
            .replace("\"f\":\"YQ==\"", "\"f\":\"eno=\"")
            .replace("\"f\":\"Yg==\"", "\"f\":\"eno=\"");
        assert_ne!(&changed, l, "{l}");
        *l = changed;
    }
    let bad = dir.path().join("bad_family.jsonl");
    write_lines(&bad, &lines);
    let err = fails(run(&[
        "import",
        "--thrift2",
        &server.addr,
        "--in",
        p(&bad),
        "--table",
        "t_ack",
        "--chunk",
        "100",
    ]));
    assert!(err.contains("cannot write"), "{err}");
    // What was read runs ahead of what was written (chunks wait in the writer's queue).
    let acked = "imported 30 row lines, 300 cells into t_ack, as the destination acknowledged \
                 them, of ";
    let read: u64 = err
        .split_once(acked)
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!((40..=300).contains(&read), "{err}");
    server.stop();
    let e = Engine::open(&data, EngineConfig::default()).unwrap();
    let mut scanner = e.scan("t_ack", redbase::engine::Scan::new()).unwrap();
    let rows = scanner.next_batch(1000).unwrap();
    assert_eq!(rows.len(), 30);
}
