//! The write buffer (engine/store/memtable.rs) against the file alone: two engines take the same
//! random writes, one keeping them in its write buffer (drained only now and then), the other
//! draining after every batch (a buffer bound of one byte), so its reads come from the region
//! file. Every get and scan must agree while the first engine's buffer holds cells on top of
//! what its file holds, and after reopening; a third engine drains in the background while the
//! test writes and reads, and must read the same. Plus the bounds: a region's buffer and the
//! engine's drain at their limits, and nothing buffered is lost on close or restart.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use redbase::engine::*;
use tempfile::TempDir;

const TABLE: &str = "wb";
const ROWS: &[&[u8]] = &[b"a", b"ab", b"b", b"b\x00", b"c", b"d", b"e\xff", b"f"];
const FAMILIES: &[&[u8]] = &[b"f", b"g"];
const QUALIFIERS: &[&[u8]] = &[b"", b"q", b"qq"];

fn open(dir: &TempDir, write_buffer: usize) -> Engine {
    Engine::open(
        dir.path(),
        EngineConfig {
            write_buffer_size: Some(write_buffer),
            ..Default::default()
        },
    )
    .unwrap()
}

fn create(e: &Engine) {
    let mut d = TableDescriptor::new(TableName::parse(TABLE).unwrap());
    for f in FAMILIES {
        d = d.with_family(FamilyDescriptor::new(f).max_versions(3));
    }
    // Two regions, so scans cross a region boundary.
    e.create_table(d, &[b"c".to_vec()]).unwrap();
}

fn pick<'a>(rng: &mut StdRng, from: &[&'a [u8]]) -> &'a [u8] {
    from[rng.random_range(0..from.len())]
}

/// One random row mutation: puts and every kind of delete marker, at explicit timestamps.
fn mutation(rng: &mut StdRng) -> RowMutation {
    let mut m = RowMutation::new(pick(rng, ROWS));
    for _ in 0..rng.random_range(1..4) {
        let f = pick(rng, FAMILIES);
        let q = pick(rng, QUALIFIERS);
        let ts = rng.random_range(1..8);
        let op = match rng.random_range(0..10) {
            0 => Op::DeleteColumn {
                family: f.to_vec(),
                qualifier: q.to_vec(),
                timestamp: Some(ts),
            },
            1 => Op::DeleteVersion {
                family: f.to_vec(),
                qualifier: q.to_vec(),
                timestamp: Some(ts),
            },
            2 => Op::DeleteFamily {
                family: f.to_vec(),
                timestamp: Some(ts),
            },
            _ => Op::put_at(
                f,
                q,
                ts,
                format!("v{}", rng.random_range(0..100)).as_bytes(),
            ),
        };
        m = m.with(op);
    }
    m
}

/// Everything a client could read: each row with every version, and whole scans both ways.
fn everything(e: &Engine) -> Vec<String> {
    let mut out = Vec::new();
    for row in ROWS {
        let got = e
            .get(TABLE, Get::with(row, ReadOptions::default().versions(10)))
            .unwrap();
        out.push(format!("get {row:?}: {}", show(got.as_ref())));
        let one = e
            .get(TABLE, Get::with(row, ReadOptions::default().family(b"g")))
            .unwrap();
        out.push(format!("get g {row:?}: {}", show(one.as_ref())));
    }
    for reversed in [false, true] {
        let scan = Scan {
            reversed,
            options: ReadOptions::default().versions(2),
            ..Default::default()
        };
        for r in e.scan(TABLE, scan).unwrap() {
            out.push(format!("scan {reversed}: {}", show(Some(&r.unwrap()))));
        }
    }
    let bounded = Scan::range(b"ab", b"d");
    for r in e.scan(TABLE, bounded).unwrap() {
        out.push(format!("range: {}", show(Some(&r.unwrap()))));
    }
    out
}

fn show(r: Option<&RowResult>) -> String {
    let Some(r) = r else {
        return "-".into();
    };
    r.to_cells()
        .iter()
        .map(|c| {
            format!(
                "{:?}/{:?}:{:?}@{}={:?}",
                c.row, c.family, c.qualifier, c.timestamp, c.value
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn reads_merge_the_buffer_with_the_file_exactly_as_the_file_alone_reads() {
    for seed in 0..12u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let (bd, fd, gd) = (
            TempDir::new().unwrap(),
            TempDir::new().unwrap(),
            TempDir::new().unwrap(),
        );
        let buffered = open(&bd, 64 << 20);
        let filed = open(&fd, 1);
        // Past 1 KiB its buffers drain in the background, while this test writes and reads.
        let background = open(&gd, 2048);
        create(&buffered);
        create(&filed);
        create(&background);
        let mut compared_with_buffer = 0;
        for step in 0..120 {
            match rng.random_range(0..20) {
                // Into the file: reads then find cells in both places.
                0 => buffered.flush_all().unwrap(),
                // A write that reads drains the buffer first, then commits to the file.
                1 => {
                    let c = Condition {
                        family: b"f".to_vec(),
                        qualifier: b"q".to_vec(),
                        op: CompareOp::Equal,
                        value: None,
                    };
                    let m = mutation(&mut rng);
                    let a = buffered.check_and_mutate(TABLE, c.clone(), m.clone());
                    let g = background.check_and_mutate(TABLE, c.clone(), m.clone());
                    let b = filed.check_and_mutate(TABLE, c, m);
                    let b = b.unwrap();
                    assert_eq!(a.unwrap(), b, "seed {seed} step {step}");
                    assert_eq!(g.unwrap(), b, "seed {seed} step {step}");
                }
                2 => {
                    let rows: Vec<RowMutation> = (0..3).map(|_| mutation(&mut rng)).collect();
                    for r in buffered.mutate_rows(TABLE, rows.clone()) {
                        r.unwrap();
                    }
                    for r in background.mutate_rows(TABLE, rows.clone()) {
                        r.unwrap();
                    }
                    for r in filed.mutate_rows(TABLE, rows) {
                        r.unwrap();
                    }
                }
                _ => {
                    let m = mutation(&mut rng);
                    buffered.mutate_row(TABLE, m.clone()).unwrap();
                    background.mutate_row(TABLE, m.clone()).unwrap();
                    filed.mutate_row(TABLE, m).unwrap();
                }
            }
            if step % 10 == 9 {
                assert_eq!(
                    filed.write_buffer_bytes(),
                    0,
                    "a one-byte bound drains every batch"
                );
                if buffered.write_buffer_bytes() > 0 {
                    compared_with_buffer += 1;
                }
                let expected = everything(&filed);
                assert_eq!(everything(&buffered), expected, "seed {seed} step {step}");
                assert_eq!(
                    everything(&background),
                    expected,
                    "seed {seed} step {step}: with background drains"
                );
            }
        }
        assert!(
            background.write_buffer_background_drains() > 0,
            "seed {seed}: no background drain ran"
        );
        assert!(
            compared_with_buffer > 3,
            "seed {seed}: the buffer was rarely in use"
        );
        let before = everything(&filed);
        assert_eq!(everything(&buffered), before);
        // Closing moves the buffer into the file; a restart reads the same.
        buffered.close();
        drop(buffered);
        let reopened = open(&bd, 64 << 20);
        assert_eq!(reopened.write_buffer_bytes(), 0);
        assert_eq!(
            everything(&reopened),
            before,
            "seed {seed}: after reopening"
        );
    }
}

#[test]
fn a_buffer_drains_at_its_bound_and_the_engine_at_its_own() {
    let dir = TempDir::new().unwrap();
    // 256 KiB for every region together, well under one region's own 4 MiB.
    let e = open(&dir, 256 << 10);
    create(&e);
    let value = vec![7u8; 1000];
    for i in 0..2000 {
        let row = format!("{}{i:05}", if i % 2 == 0 { "a" } else { "d" });
        e.mutate_row(
            TABLE,
            RowMutation::new(row.as_bytes()).with(Op::put(b"f", b"q", &value)),
        )
        .unwrap();
        // One batch past the bound at most (this one's row, 1 KiB and change).
        assert!(
            e.write_buffer_bytes() <= (256 << 10) + 2048,
            "{} bytes buffered",
            e.write_buffer_bytes()
        );
    }
    assert!(
        e.write_buffer_drains() >= 6,
        "{} drains",
        e.write_buffer_drains()
    );
    for i in (0..2000).step_by(97) {
        let row = format!("{}{i:05}", if i % 2 == 0 { "a" } else { "d" });
        let got = e.get(TABLE, Get::new(row.as_bytes())).unwrap().unwrap();
        assert_eq!(got.value(b"f", b"q"), Some(value.as_slice()));
    }
    // A region's size counts its buffered bytes too (splits go by it).
    let size: u64 = e.regions(TABLE).unwrap().iter().map(|r| r.size).sum();
    assert!(size >= 2000 * 1000, "size {size}");
    let rows_before = e.scan(TABLE, Scan::new()).unwrap().count();
    assert_eq!(rows_before, 2000);
    drop(e);
    let e = open(&dir, 256 << 10);
    assert_eq!(e.scan(TABLE, Scan::new()).unwrap().count(), 2000);
}

#[test]
fn a_restart_after_an_unclean_stop_replays_what_the_buffer_held() {
    let dir = TempDir::new().unwrap();
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            // Never flushed in the background: only the redo log holds these writes.
            async_flush: std::time::Duration::from_secs(3600),
            ..Default::default()
        },
    )
    .unwrap();
    create(&e);
    for i in 0..300 {
        let m = RowMutation::new(format!("r{i:04}").as_bytes()).with(Op::put(
            b"f",
            b"q",
            format!("v{i}").as_bytes(),
        ));
        e.mutate_row(TABLE, m).unwrap();
    }
    assert!(e.write_buffer_bytes() > 0);
    // Copy the data directory as it is now, with the buffer never drained: what a crash leaves.
    let copy = TempDir::new().unwrap();
    copy_dir(dir.path(), copy.path());
    let reopened = Engine::open(copy.path(), EngineConfig::default()).unwrap();
    for i in 0..300 {
        let got = reopened
            .get(TABLE, Get::new(format!("r{i:04}").as_bytes()))
            .unwrap()
            .unwrap_or_else(|| panic!("row {i} lost"));
        assert_eq!(got.value(b"f", b"q"), Some(format!("v{i}").as_bytes()));
    }
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Writers on one region go on while its buffer drains in the background: every acknowledged
/// write is readable at once (by its writer) and stays readable (a scanner counts each
/// writer's rows, never fewer than were acknowledged when its scan began), the buffer stays
/// within the engine's bound, and nothing is lost after a reopen.
#[test]
fn writers_go_on_while_the_buffer_drains_in_the_background() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;
    const WRITERS: usize = 4;
    const ROWS_EACH: usize = 1500;
    const LIMIT: usize = 256 << 10;
    let dir = TempDir::new().unwrap();
    let e = Arc::new(open(&dir, LIMIT));
    e.create_table(
        TableDescriptor::new(TableName::parse(TABLE).unwrap())
            .with_family(FamilyDescriptor::new(b"f")),
        &[],
    )
    .unwrap();
    let acked: Arc<Vec<AtomicUsize>> =
        Arc::new((0..WRITERS).map(|_| AtomicUsize::new(0)).collect());
    let done = Arc::new(AtomicBool::new(false));
    let value = vec![b'v'; 300];
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (e, acked, value) = (e.clone(), acked.clone(), value.clone());
            std::thread::spawn(move || {
                for i in 0..ROWS_EACH {
                    let row = format!("w{w}-{i:05}");
                    e.mutate_row(
                        TABLE,
                        RowMutation::new(row.as_bytes()).with(Op::put(b"f", b"q", &value)),
                    )
                    .unwrap();
                    acked[w].store(i + 1, Ordering::Release);
                    let got = e.get(TABLE, Get::new(row.as_bytes())).unwrap();
                    assert!(got.is_some(), "{row} not readable after its put");
                    let buffered = e.write_buffer_bytes() as usize;
                    // The bound, plus a batch in flight from each writer.
                    assert!(
                        buffered <= LIMIT + WRITERS * 1024,
                        "{buffered} bytes buffered"
                    );
                }
            })
        })
        .collect();
    let scanner = {
        let (e, acked, done) = (e.clone(), acked.clone(), done.clone());
        std::thread::spawn(move || {
            let (mut scans, mut most_threads) = (0, 0);
            while !done.load(Ordering::Acquire) {
                let floor: Vec<usize> = acked.iter().map(|a| a.load(Ordering::Acquire)).collect();
                let mut seen = [0usize; WRITERS];
                for r in e.scan(TABLE, Scan::new()).unwrap() {
                    let r = r.unwrap();
                    let w = (r.row()[1] - b'0') as usize;
                    seen[w] += 1;
                }
                for w in 0..WRITERS {
                    assert!(
                        seen[w] >= floor[w],
                        "writer {w}: scan saw {} of {} acknowledged",
                        seen[w],
                        floor[w]
                    );
                }
                let (live, cap, queued) = e.drain_threads();
                assert!(live <= cap && cap == 2, "{live} drain threads of {cap}");
                assert!(queued <= 1, "{queued} drains queued for one region");
                most_threads = most_threads.max(live);
                scans += 1;
            }
            (scans, most_threads)
        })
    };
    for w in writers {
        w.join().unwrap();
    }
    done.store(true, Ordering::Release);
    let (scans, most_threads) = scanner.join().unwrap();
    assert!(scans > 0);
    assert!(most_threads >= 1, "the drains ran on the pool's threads");
    assert!(
        e.write_buffer_background_drains() >= 3,
        "{} background drains",
        e.write_buffer_background_drains()
    );
    assert_eq!(
        e.scan(TABLE, Scan::new()).unwrap().count(),
        WRITERS * ROWS_EACH
    );
    let e = Arc::into_inner(e).unwrap();
    e.close();
    drop(e);
    let e = open(&dir, LIMIT);
    assert_eq!(
        e.scan(TABLE, Scan::new()).unwrap().count(),
        WRITERS * ROWS_EACH
    );
}
