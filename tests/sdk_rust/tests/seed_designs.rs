//! The seeds' key designs end to end against a real Thrift2 gateway (REDBASE_SDK_TARGET): seed
//! 003's OpenTSDB-style `[salt][metric][Long.MAX_VALUE - ts][host]` (sdks/schemas/opentsdb.toml),
//! read newest first across its 8 salt buckets; seed 004's cloud-drive directory table keyed by
//! the full (escaped) path (sdks/schemas/cloud_drive.toml), read a subtree at a time.

use std::sync::{Mutex, MutexGuard};

use redbase_examples::*;
use sdk_rust_tests::fresh;

/// The tests share table names: one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn all<T>(rows: impl Iterator<Item = Result<T>>) -> Vec<T> {
    rows.collect::<Result<Vec<_>>>().unwrap()
}

const NOW: i64 = 1_700_000_000_000;
/// Seconds before NOW of each cpu.load point (hosts web0..web2 in turn).
const AGES: [i64; 14] = [15, 31, 35, 4, 2, 9, 21, 50, 1, 12, 27, 44, 7, 3];

/// Writes the points; the cpu.load timestamps newest first.
fn points(tsdb: &mut TsdbTable) -> Vec<i64> {
    let value = |v: f64| TsdbValues { value: Some(v) };
    let mut rows: Vec<(TsdbKey, TsdbValues)> = AGES
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let key = TsdbKey::new("cpu.load", NOW - a * 1000, format!("web{}", i % 3));
            (key, value(*a as f64))
        })
        .collect();
    for a in [0, 5] {
        rows.push((
            TsdbKey::new("mem.used", NOW - a * 1000, "web0"),
            value(-1.0),
        ));
    }
    rows.push((TsdbKey::new("cpu.loadx", NOW, "web0"), value(-2.0)));
    tsdb.put_many(rows.iter().map(|(k, v)| (k, v))).unwrap();
    let mut newest: Vec<i64> = AGES.iter().map(|a| NOW - a * 1000).collect();
    newest.sort_by(|a, b| b.cmp(a));
    newest
}

fn ts(rows: &[TsdbRow]) -> Vec<i64> {
    rows.iter().map(|r| r.key.ts).collect()
}

#[test]
fn the_newest_points_of_a_metric_across_every_bucket() {
    let _g = serial();
    let mut conn = sdk_rust_tests::connect();
    let mut tsdb: TsdbTable = fresh(&mut conn);
    let newest = points(&mut tsdb);
    let cpu = TsdbKey::prefix().metric("cpu.load").range().unwrap();
    let every = all(tsdb.scan(&cpu, ScanOptions::new()));
    assert_eq!(ts(&every), newest);
    let salts: std::collections::BTreeSet<u32> = every.iter().map(|r| r.key.salt).collect();
    assert!(
        salts.len() > 1,
        "the points are spread over several buckets"
    );
    let three = all(tsdb.scan(&cpu, ScanOptions::new().limit(3)));
    assert_eq!(ts(&three), [NOW - 1000, NOW - 2000, NOW - 3000]);
    let values: Vec<Option<f64>> = three.iter().map(|r| r.values.value).collect();
    assert_eq!(values, [Some(1.0), Some(2.0), Some(3.0)]);
    let window = TsdbKey::prefix()
        .metric("cpu.load")
        .ts_between(NOW - 10_000, NOW)
        .unwrap();
    let in_window: Vec<i64> = newest
        .iter()
        .copied()
        .filter(|t| *t >= NOW - 10_000)
        .collect();
    let got = all(tsdb.scan(&window, ScanOptions::new()));
    assert_eq!(ts(&got), in_window, "a range means its values");
    let oldest = all(tsdb.scan(&cpu, ScanOptions::new().reversed().limit(2)));
    assert_eq!(ts(&oldest), [NOW - 50_000, NOW - 44_000]);
    let first = all(tsdb.scan(&TsdbKey::all(), ScanOptions::new().limit(20)));
    let metrics: Vec<&str> = first[first.len() - 3..]
        .iter()
        .map(|r| r.key.metric.as_str())
        .collect();
    assert_eq!(metrics, ["cpu.loadx", "mem.used", "mem.used"]);
}

#[test]
fn bucket_order_is_an_explicit_option() {
    let _g = serial();
    let mut conn = sdk_rust_tests::connect();
    let mut tsdb: TsdbTable = fresh(&mut conn);
    let newest = points(&mut tsdb);
    let cpu = TsdbKey::prefix().metric("cpu.load").range().unwrap();
    let rows = all(tsdb.scan(&cpu, ScanOptions::new().bucket_order()));
    let salts: Vec<u32> = rows.iter().map(|r| r.key.salt).collect();
    assert!(
        salts.windows(2).all(|w| w[0] <= w[1]),
        "one bucket after the other: {salts:?}"
    );
    assert!(
        rows.windows(2)
            .all(|w| w[0].key.salt != w[1].key.salt || w[0].key.ts > w[1].key.ts),
        "each bucket newest first"
    );
    let mut got = ts(&rows);
    got.sort_by(|a, b| b.cmp(a));
    assert_eq!(got, newest);
    let one = all(tsdb.scan(&cpu, ScanOptions::new().bucket_order().limit(1)));
    assert_eq!(
        one.iter().map(|r| r.key.salt).collect::<Vec<_>>(),
        [salts[0]]
    );
}

#[test]
fn a_metric_prefix_across_every_bucket() {
    let _g = serial();
    let mut conn = sdk_rust_tests::connect();
    let mut tsdb: TsdbTable = fresh(&mut conn);
    let newest = points(&mut tsdb);
    let cpu = TsdbKey::prefix().metric_starts_with("cpu.").unwrap();
    let got: Vec<String> = all(tsdb.scan(&cpu, ScanOptions::new()))
        .iter()
        .map(|r| format!("{}@{}", r.key.metric, r.key.ts))
        .collect();
    let mut want: Vec<String> = newest.iter().map(|t| format!("cpu.load@{t}")).collect();
    want.push(format!("cpu.loadx@{NOW}"));
    assert_eq!(got, want);
    let filter = TsdbKey::prefix().metric_starts_with_filter("cpu.");
    let filtered = all(tsdb.scan(&TsdbKey::all(), ScanOptions::new().filter(filter)));
    assert_eq!(
        filtered.len(),
        want.len(),
        "the same rows as a PrefixFilter"
    );
}

/// Seed 004's directories; `|` is the key's separator and `\` its escape, so both are escaped
/// in the keys, and `/dir10` shares the text `/dir1` without being under it.
const PATHS: [&str; 10] = [
    "/",
    "/dir1",
    "/dir1/dir2",
    "/dir1/dir2/dir4",
    "/dir1/dir3",
    "/dir1/a|b",
    "/dir10",
    "/dir1|odd",
    "/dir1\\x",
    "/dir2",
];

/// The paths starting with `prefix`, in key order (escaped bytes).
fn under(prefix: &str) -> Vec<String> {
    let mut out: Vec<String> = PATHS
        .iter()
        .filter(|p| p.starts_with(prefix))
        .map(|p| p.to_string())
        .collect();
    out.sort_by_key(|p| DriveDirectoriesKey::new(p.as_str()).encode().unwrap());
    out
}

#[test]
fn a_subtree_of_escaped_paths() {
    let _g = serial();
    let mut conn = sdk_rust_tests::connect();
    let mut dirs: DriveDirectoriesTable = fresh(&mut conn);
    let rows: Vec<(DriveDirectoriesKey, DriveDirectoriesValues)> = PATHS
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let values = DriveDirectoriesValues {
                creator: Some("tom".into()),
                children: [(format!("d_{i}"), "1".to_string())].into(),
            };
            (DriveDirectoriesKey::new(*p), values)
        })
        .collect();
    dirs.put_many(rows.iter().map(|(k, v)| (k, v))).unwrap();
    let mut paths = |range: &KeyRange, options: ScanOptions| -> Vec<String> {
        all(dirs.scan(range, options))
            .into_iter()
            .map(|r| r.key.path)
            .collect()
    };
    let subtree = DriveDirectoriesKey::prefix()
        .path_starts_with("/dir1/")
        .unwrap();
    let sub = paths(&subtree, ScanOptions::new());
    assert_eq!(
        sub,
        ["/dir1/a|b", "/dir1/dir2", "/dir1/dir2/dir4", "/dir1/dir3"]
    );
    assert_eq!(under("/dir1/"), sub);
    for prefix in [
        "/dir1",
        "/dir1|",
        "/dir1\\",
        "/dir1/dir2",
        "/",
        "",
        "/nothing",
    ] {
        let range = DriveDirectoriesKey::prefix()
            .path_starts_with(prefix)
            .unwrap();
        assert_eq!(paths(&range, ScanOptions::new()), under(prefix), "{prefix}");
    }
    let last = paths(&subtree, ScanOptions::new().reversed().limit(2));
    assert_eq!(last, ["/dir1/dir3", "/dir1/dir2/dir4"]);
    let filter = DriveDirectoriesKey::prefix().path_starts_with_filter("/dir1/");
    let filtered = paths(
        &DriveDirectoriesKey::all(),
        ScanOptions::new().filter(filter),
    );
    assert_eq!(
        filtered, sub,
        "the same subtree as a server-side PrefixFilter"
    );
    let odd = DriveDirectoriesKey::prefix()
        .path_starts_with("/dir1|")
        .unwrap();
    let rows = all(dirs.scan(&odd, ScanOptions::new()));
    let got: Vec<(&str, Option<&str>)> = rows
        .iter()
        .map(|r| (r.key.path.as_str(), r.values.creator.as_deref()))
        .collect();
    assert_eq!(got, [("/dir1|odd", Some("tom"))]);
}
