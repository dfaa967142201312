//! Many threads on one cell: increments, check-and-put loops and "must not exist" races must
//! all serialise exactly (no lost update, no double success). Also: fresh writes and counters
//! from several threads while size-triggered splits run must all survive, and reads sharing a
//! region's cached read snapshot see every acknowledged write.

use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};
use std::time::Instant;

use redbase::engine::*;

const TABLE: &str = "hot";
const FAMILY: &[u8] = b"f";

fn engine(region_max_size: u64) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            region_max_size,
            ..Default::default()
        },
    )
    .unwrap();
    e.create_table(
        TableDescriptor::new(TableName::parse(TABLE).unwrap())
            .with_family(FamilyDescriptor::new(FAMILY).max_versions(1)),
        &[],
    )
    .unwrap();
    (dir, e)
}

fn read_i64(e: &Engine, row: &[u8], q: &[u8]) -> Option<i64> {
    let r = e.get(TABLE, Get::new(row)).unwrap()?;
    let v = r.value(FAMILY, q)?;
    Some(i64::from_be_bytes(v.try_into().unwrap_or_else(|_| {
        panic!(
            "{}: not an 8-byte number: {v:?}",
            String::from_utf8_lossy(row)
        )
    })))
}

/// 64 threads increment one cell K times each; every increment sees a distinct value.
#[test]
fn increments_from_64_threads_are_exact() {
    const THREADS: usize = 64;
    const K: usize = 40;
    let (_dir, e) = engine(0);
    let barrier = Arc::new(Barrier::new(THREADS));
    let started = Instant::now();
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let e = e.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let mut seen = Vec::with_capacity(K);
                for _ in 0..K {
                    let cells = e
                        .increment(
                            TABLE,
                            b"counter",
                            vec![(FAMILY.to_vec(), b"n".to_vec(), 1)],
                            None,
                            Durability::UseDefault,
                        )
                        .unwrap();
                    assert_eq!(cells.len(), 1, "{cells:?}");
                    seen.push(i64::from_be_bytes(cells[0].value[..].try_into().unwrap()));
                }
                seen
            })
        })
        .collect();
    let mut all: Vec<i64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let total = (THREADS * K) as i64;
    assert_eq!(read_i64(&e, b"counter", b"n"), Some(total));
    // Each increment returned its own value: 1..=total, each exactly once.
    all.sort_unstable();
    assert_eq!(all, (1..=total).collect::<Vec<_>>());
    let commits: u64 = e.regions(TABLE).unwrap().iter().map(|r| r.commits).sum();
    eprintln!(
        "{total} increments from {THREADS} threads in {:?} ({commits} commits)",
        started.elapsed()
    );
}

/// 32 threads each bump one cell M times by read + check-and-put(Equal) + retry.
#[test]
fn check_and_put_from_32_threads_is_exact() {
    const THREADS: usize = 32;
    const M: usize = 8;
    let (_dir, e) = engine(0);
    e.mutate_row(
        TABLE,
        RowMutation::new(b"cas").with(Op::put(FAMILY, b"v", &0i64.to_be_bytes())),
    )
    .unwrap();
    let barrier = Arc::new(Barrier::new(THREADS));
    let started = Instant::now();
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let e = e.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let mut wrote = Vec::with_capacity(M);
                let mut attempts = 0usize;
                while wrote.len() < M {
                    attempts += 1;
                    let current = read_i64(&e, b"cas", b"v").expect("the cell exists");
                    let next = current + 1;
                    let ok = e
                        .check_and_mutate(
                            TABLE,
                            Condition {
                                family: FAMILY.to_vec(),
                                qualifier: b"v".to_vec(),
                                op: CompareOp::Equal,
                                value: Some(current.to_be_bytes().to_vec()),
                            },
                            RowMutation::new(b"cas").with(Op::put(
                                FAMILY,
                                b"v",
                                &next.to_be_bytes(),
                            )),
                        )
                        .unwrap();
                    if ok {
                        wrote.push(next);
                    }
                }
                (wrote, attempts)
            })
        })
        .collect();
    let mut wrote = Vec::new();
    let mut attempts = 0;
    for h in handles {
        let (w, a) = h.join().unwrap();
        wrote.extend(w);
        attempts += a;
    }
    let total = (THREADS * M) as i64;
    assert_eq!(wrote.len() as i64, total, "successful check-and-puts");
    assert_eq!(read_i64(&e, b"cas", b"v"), Some(total));
    // Every success moved the value by exactly one from what its thread had read.
    wrote.sort_unstable();
    assert_eq!(wrote, (1..=total).collect::<Vec<_>>());
    eprintln!(
        "{total} check-and-puts from {THREADS} threads ({attempts} attempts) in {:?}",
        started.elapsed()
    );
}

/// 32 threads race check-and-put "must not exist" on a fresh cell: exactly one wins, and the
/// cell holds the winner's value. Repeated on several fresh cells.
#[test]
fn must_not_exist_race_has_one_winner() {
    const THREADS: usize = 32;
    const ROUNDS: usize = 10;
    let (_dir, e) = engine(0);
    for round in 0..ROUNDS {
        let row = format!("fresh-{round}").into_bytes();
        let barrier = Arc::new(Barrier::new(THREADS));
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let e = e.clone();
                let barrier = barrier.clone();
                let row = row.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    e.check_and_mutate(
                        TABLE,
                        Condition {
                            family: FAMILY.to_vec(),
                            qualifier: b"owner".to_vec(),
                            op: CompareOp::Equal,
                            value: None,
                        },
                        RowMutation::new(&row).with(Op::put(
                            FAMILY,
                            b"owner",
                            &(t as i64).to_be_bytes(),
                        )),
                    )
                    .unwrap()
                })
            })
            .collect();
        let winners: Vec<usize> = handles
            .into_iter()
            .enumerate()
            .filter_map(|(t, h)| h.join().unwrap().then_some(t))
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: winners {winners:?}");
        assert_eq!(
            read_i64(&e, &row, b"owner"),
            Some(winners[0] as i64),
            "round {round}: the cell does not hold the winner's value"
        );
    }
}

/// Fresh rows and counters written by several threads while the table splits again and again
/// (small regions): every acknowledged write is readable afterwards, counters are exact, and the
/// regions tile the key space.
#[test]
fn writes_during_splits_are_not_lost() {
    const THREADS: usize = 6;
    const ROWS: usize = 300;
    let (_dir, e) = engine(32 * 1024);
    let barrier = Arc::new(Barrier::new(THREADS));
    let started = Instant::now();
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let e = e.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let value = vec![b'v'; 400];
                for i in 0..ROWS {
                    let row = format!("{}-{t}-{i:05}", (i * 7 + t) % 10);
                    e.mutate_row(
                        TABLE,
                        RowMutation::new(row.as_bytes())
                            .with(Op::put(FAMILY, b"a", &value))
                            .with(Op::put(FAMILY, b"b", &value)),
                    )
                    .unwrap();
                    if i % 4 == 0 {
                        let row = format!("{}~count-{t}", (t * 3) % 10);
                        e.increment(
                            TABLE,
                            row.as_bytes(),
                            vec![(FAMILY.to_vec(), b"n".to_vec(), 1)],
                            None,
                            Durability::UseDefault,
                        )
                        .unwrap();
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let elapsed = started.elapsed();
    let regions = e.regions(TABLE).unwrap();
    assert!(regions[0].meta.start.is_empty());
    assert!(regions.last().unwrap().meta.end.is_empty());
    for w in regions.windows(2) {
        assert_eq!(
            w[0].meta.end, w[1].meta.start,
            "regions leave a gap or overlap"
        );
    }
    let mut missing = Vec::new();
    for t in 0..THREADS {
        for i in 0..ROWS {
            let row = format!("{}-{t}-{i:05}", (i * 7 + t) % 10);
            match e.get(TABLE, Get::new(row.as_bytes())).unwrap() {
                Some(r) if r.to_cells().len() == 2 => {}
                other => missing.push((row, other.map(|r| r.to_cells().len()))),
            }
        }
    }
    let counters: Vec<Option<i64>> = (0..THREADS)
        .map(|t| read_i64(&e, format!("{}~count-{t}", (t * 3) % 10).as_bytes(), b"n"))
        .collect();
    let scanned: BTreeSet<Vec<u8>> = e
        .scan(TABLE, Scan::new())
        .unwrap()
        .map(|r| r.unwrap().row().to_vec())
        .collect();
    eprintln!(
        "{} rows from {THREADS} threads, {} splits, {} regions, in {elapsed:?}",
        THREADS * ROWS,
        e.split_count(),
        regions.len()
    );
    assert!(e.split_count() > 0, "no split happened");
    assert!(
        missing.is_empty(),
        "{} acknowledged rows missing or torn after concurrent splits (row, cells found): {:?}",
        missing.len(),
        &missing[..missing.len().min(20)]
    );
    let per_thread = ROWS.div_ceil(4) as i64;
    assert_eq!(counters, vec![Some(per_thread); THREADS], "counters");
    assert_eq!(
        scanned.len(),
        THREADS * ROWS + THREADS,
        "rows a scan returns"
    );
}

fn row(w: usize) -> String {
    format!("w{w}")
}

fn put(e: &Engine, w: usize, n: i64) {
    e.mutate_row(
        TABLE,
        RowMutation::new(row(w).as_bytes()).with(Op::put(FAMILY, b"n", &n.to_be_bytes())),
    )
    .unwrap();
}

/// Reads share a cached read snapshot between commits. Every acknowledged write must still be
/// visible to the next read, from the writer and from any other thread, while readers keep
/// the snapshot busy; no reader ever sees a value go back.
#[test]
fn reads_see_every_acknowledged_write_while_readers_share_snapshots() {
    const WRITERS: usize = 4;
    const READERS: usize = 4;
    const WRITES: i64 = 300;
    let (_dir, e) = engine(0);
    for w in 0..WRITERS {
        put(&e, w, 0);
    }
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let barrier = Arc::new(Barrier::new(WRITERS + READERS));
    let readers: Vec<_> = (0..READERS)
        .map(|r| {
            let (e, done, barrier) = (e.clone(), done.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let mut last = [0i64; WRITERS];
                let mut reads = 0u64;
                while !done.load(std::sync::atomic::Ordering::Acquire) {
                    let w = (reads as usize + r) % WRITERS;
                    let n = read_i64(&e, row(w).as_bytes(), b"n").expect("row exists");
                    assert!(
                        n >= last[w],
                        "reader {r}: row {w} went back from {} to {n}",
                        last[w]
                    );
                    last[w] = n;
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (e, barrier) = (e.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                for n in 1..=WRITES {
                    put(&e, w, n);
                    // Read-your-writes, through the shared snapshot path.
                    assert_eq!(read_i64(&e, row(w).as_bytes(), b"n"), Some(n), "writer {w}");
                    // And a scan sees it too.
                    let scanned = e
                        .scan(
                            TABLE,
                            Scan::range(row(w).as_bytes(), format!("w{w}~").as_bytes()),
                        )
                        .unwrap()
                        .next()
                        .expect("row scanned")
                        .unwrap();
                    assert_eq!(scanned.value(FAMILY, b"n"), Some(&n.to_be_bytes()[..]));
                }
            })
        })
        .collect();
    for h in writers {
        h.join().unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Release);
    let reads: u64 = readers.into_iter().map(|h| h.join().unwrap()).sum();
    assert!(reads > 0, "readers never ran");
    for w in 0..WRITERS {
        assert_eq!(read_i64(&e, row(w).as_bytes(), b"n"), Some(WRITES));
    }
}
