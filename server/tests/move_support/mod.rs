//! What the export/import tests share: the real binary, a real `redbase serve` on loopback
//! ports, and a seeded table compared cell by cell through the engine.
#![allow(dead_code)]

#[path = "../cli_support/mod.rs"]
mod cli;
// Not every test file uses every helper.
#[allow(unused_imports)]
pub use cli::{fails, free_port, ok, redbase, text};

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use redbase::engine::{
    Durability, Engine, EngineConfig, FamilyDescriptor, Op, ReadOptions, RowMutation, Scan,
    TableDescriptor, TableName,
};

/// `redbase serve` (Thrift2 only) on a data dir, stopped with SIGTERM when dropped.
pub struct Server {
    child: Child,
    pub addr: String,
    stopped: bool,
}

impl Server {
    pub fn start(dir: &Path) -> Server {
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

    pub fn stop(mut self) {
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

pub fn run(args: &[&str]) -> Output {
    redbase().args(args).output().unwrap()
}

pub fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A table with families `a` (5 versions) and `b` (3), pre-split at binary keys, written
/// in-process before the server starts: `rows` rows of 10 cells (a:q0, a:q1 with 4 versions
/// each, b:\x00\xff with 2), binary keys spread over the regions and binary values.
pub fn seed(dir: &Path, table: &str, rows: u32) {
    let e = Engine::open(dir, EngineConfig::default()).unwrap();
    let d = TableDescriptor::new(TableName::parse(table).unwrap())
        .with_family(FamilyDescriptor::new(b"a").max_versions(5))
        .with_family(FamilyDescriptor::new(b"b").max_versions(3));
    e.create_table(d, &[vec![0x40], vec![0x80, 0x00], vec![0xc0, 0xff, 0x01]])
        .unwrap();
    // In key order (a B-tree fills front to back, twice as fast as hash order in a debug
    // build), from two threads each writing half of the key space.
    let mut order: Vec<(Vec<u8>, u32)> = (0..rows).map(|i| (row_key(i), i)).collect();
    order.sort();
    let half = order.len() / 2;
    std::thread::scope(|s| {
        for part in [&order[..half], &order[half..]] {
            let e = e.clone();
            s.spawn(move || {
                for chunk in part.chunks(2_000) {
                    let batch = chunk.iter().map(|(k, i)| seed_row(k, *i)).collect();
                    for r in e.mutate_rows(table, batch) {
                        r.unwrap();
                    }
                }
            });
        }
    });
    e.close();
}

/// Every cell of two tables compared in order (row, family, qualifier, timestamp, value);
/// returns the number of cells.
pub fn compare_tables(e: &Engine, a: &str, b: &str) -> u64 {
    compare_across(e, a, e, b)
}

/// `compare_tables` for tables of two engines (two servers' data dirs).
pub fn compare_across(ea: &Engine, a: &str, eb: &Engine, b: &str) -> u64 {
    let scan = || {
        let mut s = Scan::new();
        s.options = ReadOptions {
            max_versions: 100,
            ..Default::default()
        };
        s
    };
    let mut left = ea.scan(a, scan()).unwrap();
    let mut right = eb.scan(b, scan()).unwrap();
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

pub fn region_starts(e: &Engine, table: &str) -> Vec<Vec<u8>> {
    e.regions(table)
        .unwrap()
        .into_iter()
        .map(|r| r.meta.start)
        .collect()
}

fn row_key(i: u32) -> Vec<u8> {
    let mut key = i.wrapping_mul(2_654_435_761).to_be_bytes().to_vec();
    key.extend_from_slice(&[0x00, 0xff, (i % 7) as u8]);
    key
}

fn seed_row(key: &[u8], i: u32) -> RowMutation {
    let mut m = RowMutation::new(key);
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
    // Not synced per batch: the engine is closed (and so made durable) before use.
    m.durability = Durability::AsyncWal;
    m
}
