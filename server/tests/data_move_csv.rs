//! `redbase import --csv` through the real binary: keys built by a schema's key design (the
//! access-logs MD5 prefix) checked against the SDK vectors and an independent encoding, bad
//! records reported as FILE:LINE:FIELD, `--max-errors`, and a TSV import into an offline dir.

mod move_support;

use std::path::{Path, PathBuf};

use move_support::{fails, ok, p, region_starts, run, Server};
use redbase::engine::{Engine, EngineConfig, ReadOptions};

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
    hits_at(e, table, key).map(|(v, _)| v)
}

/// `t:h` and its timestamp.
fn hits_at(e: &Engine, table: &str, key: &[u8]) -> Option<(i64, i64)> {
    let r = e
        .get(
            table,
            redbase::engine::Get::with(key, ReadOptions::default()),
        )
        .unwrap()?;
    let cells = r.to_cells();
    let c = cells.iter().find(|c| &c.qualifier[..] == b"h")?;
    Some((
        i64::from_be_bytes(c.value[..].try_into().unwrap()),
        c.timestamp,
    ))
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
        "dave\tjericho\t201510\t7\tignored\t1445000000123\nelton\tweb_01\t42\t8\tx\t1445000000456\n",
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
        "user_id,system_id,period,t:hits,-,HBASE_TS_KEY",
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
        hits_at(&e, "access-logs-by-user", b"dave|jericho|201510"),
        Some((7, 1_445_000_000_123))
    );
    assert_eq!(
        hits_at(&e, "access-logs-by-user", b"elton|web_01|000042"),
        Some((8, 1_445_000_000_456))
    );
}
