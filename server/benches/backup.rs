//! The figures of docs/benchmarks.md, "Online backup": how long writers wait while a backup
//! takes its point, seen from Thrift2 clients putting under load, and the pause the server
//! records. It prints figures and asserts nothing about time; run it on a release build:
//!
//! ```sh
//! cargo bench -p redbase --bench backup
//! ```

#[path = "../tests/backup_support/mod.rs"]
mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redbase::engine::{
    Engine, EngineConfig, FamilyDescriptor, Op, RowMutation, TableDescriptor, TableName,
};
use redbase::generated::hbase2 as h2;
use redbase::generated::hbase2::TTHBaseServiceSyncClient;
use support::Server;

const TABLES: usize = 4;
const WRITERS: usize = 8;
const PHASE: Duration = Duration::from_secs(10);
const BACKUPS: usize = 5;

/// 4 tables of 4 regions, 16 MiB each (1 KiB values), written in process.
fn seed(dir: &std::path::Path) {
    let e = Engine::open(dir, EngineConfig::default()).unwrap();
    let value = vec![0x5au8; 1024];
    for t in 0..TABLES {
        let name = format!("t{t}");
        let d = TableDescriptor::new(TableName::parse(&name).unwrap())
            .with_family(FamilyDescriptor::new(b"f"));
        e.create_table(d, &[vec![0x40], vec![0x80], vec![0xc0]])
            .unwrap();
        for chunk in (0..16_384u32).collect::<Vec<_>>().chunks(512) {
            let batch = chunk
                .iter()
                .map(|i| {
                    let key = i.wrapping_mul(2_654_435_761).to_be_bytes();
                    RowMutation::new(&key).with(Op::put(b"f", b"v", &value))
                })
                .collect();
            e.mutate_rows(&name, batch)
                .into_iter()
                .for_each(|r| r.unwrap());
        }
    }
    e.close();
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn line(what: &str, lat: &mut [Duration]) {
    lat.sort();
    println!(
        "| {what} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
        lat.len(),
        quantile(lat, 0.5).as_secs_f64() * 1e3,
        quantile(lat, 0.99).as_secs_f64() * 1e3,
        quantile(lat, 0.999).as_secs_f64() * 1e3,
        lat.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` lists targets; this one only runs as a benchmark
    }
    backup_pause_under_write_load();
}

fn backup_pause_under_write_load() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("d");
    println!("server log: {}", data.with_extension("log").display());
    seed(&data);
    let server = Server::start(&data);
    let stop = Arc::new(AtomicBool::new(false));
    // (start, latency) of every put.
    let puts: Arc<Mutex<Vec<(Instant, Duration)>>> = Arc::default();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let mut c = server.client();
            let (stop, puts) = (stop.clone(), puts.clone());
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                let mut seq = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    let key = (seq.wrapping_mul(2_654_435_761) ^ w as u32).to_be_bytes();
                    let cv = h2::TColumnValue::new(
                        b"f".to_vec(),
                        b"w".to_vec(),
                        vec![7u8; 100],
                        None,
                        None,
                        None,
                    );
                    let durability = (w % 2 == 0).then_some(h2::TDurability::ASYNC_WAL);
                    let p = h2::TPut::new(key.to_vec(), vec![cv], None, None, durability, None);
                    let table = format!("t{}", seq as usize % TABLES);
                    let t = Instant::now();
                    c.put(table.into_bytes(), p).unwrap();
                    mine.push((t, t.elapsed()));
                    seq += 1;
                }
                puts.lock().unwrap().extend(mine);
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    let quiet = (Instant::now(), Instant::now() + PHASE);
    std::thread::sleep(PHASE);
    let mut windows = Vec::new();
    let mut reported = Vec::new();
    let started = Instant::now();
    for i in 0..BACKUPS {
        let dir = tmp.path().join(format!("bk{i}"));
        let t = Instant::now();
        let out = server.backup(&dir);
        if !out.status.success() {
            let log = std::fs::read_to_string(data.with_extension("log")).unwrap_or_default();
            panic!("{}\n{log}", support::text(&out.stderr));
        }
        let out = support::text(&out.stdout);
        windows.push((t, Instant::now()));
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        reported.push(m["point"]["pause_us"].as_u64().unwrap());
        println!("{}", out.trim());
        std::fs::remove_dir_all(&dir).unwrap();
        std::thread::sleep(PHASE / BACKUPS as u32);
    }
    let busy = (started, Instant::now());
    stop.store(true, Ordering::Relaxed);
    writers.into_iter().for_each(|t| t.join().unwrap());
    let metrics = server.metrics();
    server.stop();

    let puts = puts.lock().unwrap();
    let ended = |(s, l): &(Instant, Duration)| *s + *l;
    let mut without: Vec<Duration> = puts
        .iter()
        .filter(|p| p.0 >= quiet.0 && ended(p) <= quiet.1)
        .map(|p| p.1)
        .collect();
    let mut phase: Vec<Duration> = puts
        .iter()
        .filter(|p| p.0 >= busy.0 && ended(p) <= busy.1)
        .map(|p| p.1)
        .collect();
    // Puts in flight at some moment of a backup request (the point falls in each window).
    let mut during: Vec<Duration> = puts
        .iter()
        .filter(|p| windows.iter().any(|(a, b)| p.0 <= *b && ended(p) >= *a))
        .map(|p| p.1)
        .collect();
    println!("| puts | count | p50 ms | p99 ms | p99.9 ms | max ms |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    line(
        &format!("{}s without a backup", PHASE.as_secs()),
        &mut without,
    );
    line(
        &format!("{}s with {BACKUPS} backups", (busy.1 - busy.0).as_secs()),
        &mut phase,
    );
    line("in flight during a backup request", &mut during);
    for (i, (a, b)) in windows.iter().enumerate() {
        println!(
            "backup {i}: request to manifest {:.0} ms, server-recorded pause {} us",
            (*b - *a).as_secs_f64() * 1e3,
            reported[i]
        );
    }
    for l in metrics.lines().filter(|l| l.starts_with("redbase_backup")) {
        println!("{l}");
    }
}
