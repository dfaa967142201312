//! Helpers shared by the engine's integration tests.
#![allow(dead_code)]

use redbase::engine::*;

pub mod acl;
pub mod server;

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// A fresh engine in a temporary directory (kept alive by the returned guard).
pub fn engine() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    (dir, e)
}

pub fn table(e: &Engine, name: &str, families: Vec<FamilyDescriptor>) {
    let mut d = TableDescriptor::new(TableName::parse(name).unwrap());
    for f in families {
        d = d.with_family(f);
    }
    e.create_table(d, &[]).unwrap();
}

/// Creates `name` with family `f` in `regions` regions, split at "001", "002", ...
pub fn pre_split(e: &Engine, name: &str, regions: usize) -> Result<(), TableError> {
    let splits: Vec<Vec<u8>> = (1..regions)
        .map(|i| format!("{i:03}").into_bytes())
        .collect();
    let d = TableDescriptor::new(TableName::parse(name).unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    e.create_table(d, &splits)
}

/// The table's regions tile the key space: the first starts it, the last ends it, and each
/// ends where the next starts.
pub fn covers_key_space(e: &Engine, t: &str) {
    let regions = e.regions(t).unwrap();
    assert!(regions[0].meta.start.is_empty());
    assert!(regions.last().unwrap().meta.end.is_empty());
    for w in regions.windows(2) {
        assert_eq!(
            w[0].meta.end, w[1].meta.start,
            "regions leave a gap or overlap"
        );
    }
}

pub fn put(e: &Engine, t: &str, row: &str, fq: &str, ts: i64, v: &str) {
    let (f, q) = fq.split_once(':').unwrap();
    e.mutate_row(
        t,
        RowMutation::new(row.as_bytes()).with(Op::put_at(
            f.as_bytes(),
            q.as_bytes(),
            ts,
            v.as_bytes(),
        )),
    )
    .unwrap();
}

pub fn mutate(e: &Engine, t: &str, row: &str, op: Op) {
    e.mutate_row(t, RowMutation::new(row.as_bytes()).with(op))
        .unwrap();
}

/// (qualifier, ts, value) of every cell a get returns, as strings.
pub fn cells(e: &Engine, t: &str, row: &str, opts: ReadOptions) -> Vec<(String, i64, String)> {
    match e.get(t, Get::with(row.as_bytes(), opts)).unwrap() {
        None => vec![],
        Some(r) => r
            .to_cells()
            .iter()
            .map(|c| {
                (
                    format!(
                        "{}:{}",
                        String::from_utf8_lossy(&c.family),
                        String::from_utf8_lossy(&c.qualifier)
                    ),
                    c.timestamp,
                    String::from_utf8_lossy(&c.value).into_owned(),
                )
            })
            .collect(),
    }
}

pub fn values(e: &Engine, t: &str, row: &str, opts: ReadOptions) -> Vec<String> {
    cells(e, t, row, opts).into_iter().map(|c| c.2).collect()
}

pub fn scan_rows(e: &Engine, t: &str, scan: Scan) -> Vec<String> {
    e.scan(t, scan)
        .unwrap()
        .map(|r| String::from_utf8_lossy(r.unwrap().row()).into_owned())
        .collect()
}

pub fn del_col(f: &str, q: &str, ts: Option<i64>) -> Op {
    Op::DeleteColumn {
        family: f.as_bytes().to_vec(),
        qualifier: q.as_bytes().to_vec(),
        timestamp: ts,
    }
}

pub fn del_ver(f: &str, q: &str, ts: Option<i64>) -> Op {
    Op::DeleteVersion {
        family: f.as_bytes().to_vec(),
        qualifier: q.as_bytes().to_vec(),
        timestamp: ts,
    }
}
