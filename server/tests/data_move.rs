//! `redbase export` / `redbase import` through the real binary against a real `redbase serve`
//! on loopback ports: a round trip of 10^6 cells (several versions and families, binary keys
//! and values, split points), damaged files refused with FILE:LINE, `--max-errors`, CSV import
//! with a schema's MD5-prefixed keys checked against the SDK vectors, and offline imports.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use redbase::engine::{
    Engine, EngineConfig, FamilyDescriptor, Op, ReadOptions, RowMutation, Scan, TableDescriptor,
    TableName,
};

fn redbase() -> Command {
    Command::new(env!("CARGO_BIN_EXE_redbase"))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `redbase serve` (Thrift2 only) on a data dir, stopped with SIGTERM when dropped.
struct Server {
    child: Child,
    addr: String,
    stopped: bool,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let (t2, http) = (free_port(), free_port());
        let addr = format!("127.0.0.1:{t2}");
        let child = redbase()
            .args(["serve", "--gateways", "thrift2", "--thrift2-addr", &addr])
            .args(["--http-addr", &format!("127.0.0.1:{http}"), "--data-dir"])
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < deadline, "the server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Server {
            child,
            addr,
            stopped: false,
        }
    }

    fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.terminate();
    }
}

fn run(args: &[&str]) -> Output {
    redbase().args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts exit status 0 and returns stdout.
fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}\nstdout: {}\nstderr: {}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Asserts exit status 1 and returns stderr.
fn fails(out: Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stderr)
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A table with families `a` (5 versions) and `b` (3), pre-split at binary keys, written
/// in-process before the server starts: `rows` rows of 10 cells (a:q0, a:q1 with 4 versions
/// each, b:\x00\xff with 2), binary keys spread over the regions and binary values.
fn seed(dir: &Path, table: &str, rows: u32) {
    let e = Engine::open(dir, EngineConfig::default()).unwrap();
    let d = TableDescriptor::new(TableName::parse(table).unwrap())
        .with_family(FamilyDescriptor::new(b"a").max_versions(5))
        .with_family(FamilyDescriptor::new(b"b").max_versions(3));
    e.create_table(d, &[vec![0x40], vec![0x80, 0x00], vec![0xc0, 0xff, 0x01]])
        .unwrap();
    let mut batch = Vec::new();
    for i in 0..rows {
        let mut key = i.wrapping_mul(2_654_435_761).to_be_bytes().to_vec();
        key.extend_from_slice(&[0x00, 0xff, (i % 7) as u8]);
        let mut m = RowMutation::new(&key);
        for q in [&b"q0"[..], b"q1"] {
            for v in 0..4i64 {
                let value: Vec<u8> = (0..(8 + (i as usize + v as usize) % 16))
                    .map(|k| (i as usize * 31 + k * 7 + v as usize) as u8)
                    .collect();
                m = m.with(Op::put_at(b"a", q, 1_000 + v * 10, &value));
            }
        }
        for v in 0..2i64 {
            let value = [0u8, 0xff, v as u8, (i >> 8) as u8, i as u8];
            m = m.with(Op::put_at(b"b", b"\x00\xff", 5_000 + v, &value));
        }
        batch.push(m);
        if batch.len() == 2_000 {
            for r in e.mutate_rows(table, std::mem::take(&mut batch)) {
                r.unwrap();
            }
        }
    }
    for r in e.mutate_rows(table, batch) {
        r.unwrap();
    }
    e.close();
}

/// Every cell of two tables compared in order (row, family, qualifier, timestamp, value);
/// returns the number of cells.
fn compare_tables(e: &Engine, a: &str, b: &str) -> u64 {
    let scan = || {
        let mut s = Scan::new();
        s.options = ReadOptions {
            max_versions: 100,
            ..Default::default()
        };
        s
    };
    let mut left = e.scan(a, scan()).unwrap();
    let mut right = e.scan(b, scan()).unwrap();
    let mut cells = 0u64;
    loop {
        match (left.next(), right.next()) {
            (None, None) => return cells,
            (Some(l), Some(r)) => {
                let (l, r) = (l.unwrap().to_cells(), r.unwrap().to_cells());
                assert_eq!(l.len(), r.len());
                for (x, y) in l.iter().zip(&r) {
                    assert_eq!(
                        (&x.row, &x.family, &x.qualifier, x.timestamp, &x.value),
                        (&y.row, &y.family, &y.qualifier, y.timestamp, &y.value)
                    );
                }
                cells += l.len() as u64;
            }
            (l, r) => panic!(
                "{a} and {b} differ in row count: {:?} vs {:?}",
                l.is_some(),
                r.is_some()
            ),
        }
    }
}

fn region_starts(e: &Engine, table: &str) -> Vec<Vec<u8>> {
    e.regions(table)
        .unwrap()
        .into_iter()
        .map(|r| r.meta.start)
        .collect()
}

#[test]
fn a_million_cells_round_trip_with_versions_timestamps_and_split_points() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    seed(&data, "big", 100_000);
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

    let e = Engine::open(&data, EngineConfig::default()).unwrap();
    assert_eq!(compare_tables(&e, "big", "copy"), 1_000_000);
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

/// The access-logs key design, written out independently of the codec: the first 5 hex
/// characters of MD5(user_id), `|`, system_id, `|`, period zero-padded to 6 digits.
fn access_logs_key(user: &str, system: &str, period: i64) -> Vec<u8> {
    use md5::{Digest, Md5};
    let hex: String = Md5::digest(user.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{}|{system}|{period:06}", &hex[..5]).into_bytes()
}

fn hex_bytes(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Reads `t:h` (hits, an 8-byte big-endian counter) of a row.
fn hits(e: &Engine, table: &str, key: &[u8]) -> Option<i64> {
    let r = e
        .get(
            table,
            redbase::engine::Get::with(key, ReadOptions::default()),
        )
        .unwrap()?;
    let cells = r.to_cells();
    let c = cells.iter().find(|c| &c.qualifier[..] == b"h")?;
    Some(i64::from_be_bytes(c.value[..].try_into().unwrap()))
}

#[test]
fn csv_import_builds_md5_prefixed_keys_as_the_sdk_vectors_say() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let schema = repo_root().join("sdks/schemas/access_logs.toml");
    let vectors: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("sdks/vectors/keys.json")).unwrap(),
    )
    .unwrap();
    // (key, hits): the vectors' access_logs keys, then 2,000 generated users.
    let mut csv = String::from("user_id,system_id,period,hits,last_seen\n");
    let mut expected: Vec<(Vec<u8>, i64)> = Vec::new();
    for v in vectors["keys"].as_array().unwrap() {
        if v["table"] != "access_logs" {
            continue;
        }
        let c = &v["components"];
        let n = expected.len() as i64;
        let line = format!(
            "{},{},{},{n},1445000000000\n",
            c["user_id"].as_str().unwrap(),
            c["system_id"].as_str().unwrap(),
            c["period"]
        );
        csv.push_str(&line);
        expected.push((hex_bytes(v["key_hex"].as_str().unwrap()), n));
    }
    assert!(expected.len() >= 5, "the vectors hold access_logs keys");
    for i in 0..2_000 {
        let user = format!("user{i}");
        csv.push_str(&format!(
            "{user},web_{},201510,{},1445000000{i:03}\n",
            i % 3,
            1000 + i
        ));
        expected.push((
            access_logs_key(&user, &format!("web_{}", i % 3), 201510),
            1000 + i,
        ));
    }
    let file = dir.path().join("access.csv");
    std::fs::write(&file, csv).unwrap();
    let server = Server::start(&data);
    let out = ok(run(&[
        "import",
        "--thrift2",
        &server.addr,
        "--csv",
        p(&file),
        "--schema",
        p(&schema),
        "--table",
        "access-logs",
    ]));
    assert!(out.contains(&format!("{} rows", expected.len())), "{out}");

    // Bad records: file:line:column (the field's number), skipped within --max-errors.
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "user_id,system_id,period,hits\ndave,web,201510\nfred,web,20x510,3\neve,w,201511,4\n",
    )
    .unwrap();
    let import_bad = |extra: &[&str]| {
        let mut args = vec!["import", "--thrift2", &server.addr, "--csv", p(&bad)];
        args.extend(["--schema", p(&schema), "--table", "access-logs"]);
        args.extend(extra);
        run(&args)
    };
    let err = fails(import_bad(&[]));
    assert!(
        err.contains(&format!("{}:2:4: 3 fields, expected 4", bad.display())),
        "{err}"
    );
    let err = fails(import_bad(&["--max-errors", "1"]));
    assert!(
        err.contains(&format!(
            "{}:3:3: period: \"20x510\" is not a i32",
            bad.display()
        )),
        "{err}"
    );
    let out = ok(import_bad(&["--max-errors", "2"]));
    assert!(out.contains("1 rows, 1 cells into access-logs"), "{out}");
    assert!(out.contains("2 bad line(s) skipped"), "{out}");
    let err = fails(run(&[
        "import",
        "--thrift2",
        &server.addr,
        "--csv",
        p(&bad),
        "--schema",
        p(&schema),
        "--table",
        "no-such-table",
    ]));
    assert!(err.contains("has no table \"no-such-table\""), "{err}");
    let err = fails(run(&[
        "import",
        "--thrift2",
        &server.addr,
        "--csv",
        p(&bad),
        "--schema",
        p(&schema),
        "--table",
        "access-logs",
        "--columns",
        "user_id,period,hits",
    ]));
    assert!(
        err.contains("no field for key component \"system_id\""),
        "{err}"
    );
    server.stop();

    // TSV without a header line, offline, into the by-user layout's table (no hash prefix).
    let tsv = dir.path().join("by_user.tsv");
    std::fs::write(
        &tsv,
        "dave\tjericho\t201510\t7\tignored\nelton\tweb_01\t42\t8\tx\n",
    )
    .unwrap();
    let out = ok(run(&[
        "import",
        "--data-dir",
        p(&data),
        "--csv",
        p(&tsv),
        "--schema",
        p(&schema),
        "--table",
        "access_logs_by_user",
        "--delimiter",
        "tab",
        "--columns",
        "user_id,system_id,period,t:hits,-",
    ]));
    assert!(
        out.contains("2 rows, 2 cells into access-logs-by-user"),
        "{out}"
    );

    let e = Engine::open(&data, EngineConfig::default()).unwrap();
    for (key, n) in &expected {
        assert_eq!(
            hits(&e, "access-logs", key),
            Some(*n),
            "{}",
            String::from_utf8_lossy(key)
        );
    }
    assert_eq!(
        hits(&e, "access-logs", &access_logs_key("eve", "w", 201511)),
        Some(4)
    );
    let starts = region_starts(&e, "access-logs");
    let mut want = vec![Vec::new()];
    want.extend("123456789abcdef".chars().map(|c| vec![c as u8]));
    assert_eq!(starts, want, "pre-split at 1..f as the schema derives");
    assert_eq!(
        hits(&e, "access-logs-by-user", b"dave|jericho|201510"),
        Some(7)
    );
    assert_eq!(
        hits(&e, "access-logs-by-user", b"elton|web_01|000042"),
        Some(8)
    );
}
