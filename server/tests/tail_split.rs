//! Tail splits: a region whose writes append at its end (a sequential load) splits just past
//! its greatest row, its lower part keeping the file and the upper part starting empty, so no
//! split copies anything. These tests drive real engines on real files: every acknowledged row
//! must be readable at once and after a reopen, the regions must tile the key space, and
//! writes that do not append must still split at the middle row.
//!
//! Run alone with `cargo test -p redbase --test tail_split`.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use redbase::engine::*;

const MAX: u64 = 256 * 1024;

fn config() -> EngineConfig {
    EngineConfig {
        region_max_size: MAX,
        ..Default::default()
    }
}

fn open(dir: &std::path::Path) -> Engine {
    let e = Engine::open(dir, config()).unwrap();
    if !e.table_exists("t") {
        table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    }
    e
}

fn row(i: u64) -> String {
    format!("r{i:08}")
}

fn value(i: u64, round: u32) -> Vec<u8> {
    let stamp = format!("{i}/{round};");
    stamp.bytes().cycle().take(300).collect()
}

/// Writes rows `from..to` in ascending order, `batch` rows per call. Each call waits for the
/// splits it asked for: on a busy machine the split thread may fall behind a load that never
/// waits, and a tail split made late leaves a lower part over the split size, which then splits
/// at its middle (as it must; `a_tail_split_made_late_splits_its_lower_part_again` shows it).
fn append(e: &Engine, from: u64, to: u64, batch: u64) {
    let mut i = from;
    while i < to {
        let end = (i + batch).min(to);
        let rows: Vec<RowMutation> = (i..end)
            .map(|j| RowMutation::new(row(j).as_bytes()).with(Op::put(b"f", b"q", &value(j, 0))))
            .collect();
        for r in e.mutate_rows("t", rows) {
            r.unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while e.splits_queued() > 0 {
            assert!(Instant::now() < deadline, "a split waited 60 s");
            std::thread::sleep(Duration::from_millis(2));
        }
        i = end;
    }
}

/// Waits until no region is over the split size and the split count stays put for a while.
fn settle(e: &Engine) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = (u64::MAX, Instant::now());
    while Instant::now() < deadline {
        let n = e.split_count();
        let big = e.regions("t").unwrap().iter().any(|r| r.size > MAX);
        if n != last.0 {
            last = (n, Instant::now());
        } else if !big && last.1.elapsed() > Duration::from_secs(1) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let sizes: Vec<u64> = e.regions("t").unwrap().iter().map(|r| r.size).collect();
    panic!(
        "splits did not settle in 60 s: {} splits, region sizes {sizes:?}",
        e.split_count()
    );
}

/// Every row `0..n` once, in order, with its value from `round_of`.
fn check_rows(e: &Engine, n: u64, round_of: impl Fn(u64) -> u32) {
    let scanned: Vec<(String, Vec<u8>)> = e
        .scan("t", Scan::new())
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            let cells = r.to_cells();
            (
                String::from_utf8_lossy(r.row()).into_owned(),
                cells[0].value.to_vec(),
            )
        })
        .collect();
    assert_eq!(scanned.len() as u64, n, "rows scanned");
    for (i, (r, v)) in scanned.iter().enumerate() {
        let i = i as u64;
        assert_eq!(*r, row(i));
        assert!(*v == value(i, round_of(i)), "{r}: wrong value");
    }
    for i in (0..n).step_by(97) {
        let got = e.get("t", Get::new(row(i).as_bytes())).unwrap().unwrap();
        assert!(
            got.to_cells()[0].value == value(i, round_of(i)),
            "get {}",
            row(i)
        );
    }
}

#[test]
fn a_sequential_load_splits_at_the_tail_copying_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    // About 3.4 MB of rows, 100 rows per call: some 25 splits at half of a 256 KiB region.
    let n = 10_000;
    append(&e, 0, n, 100);
    settle(&e);

    let reports = e.split_reports();
    assert!(reports.len() >= 10, "only {} splits", reports.len());
    assert!(
        reports.iter().all(|r| r.at_tail),
        "a split of a sequential load copied: {reports:?}"
    );
    assert_eq!(e.tail_split_count(), e.split_count());
    covers_key_space(&e, "t");
    let regions = e.regions("t").unwrap();
    // Each full region was split at half the split size (it took appends), plus the rows
    // written while its split waited for the split thread.
    for r in &regions[..regions.len() - 1] {
        assert!(r.size <= MAX, "{} holds {} bytes", r.name, r.size);
        assert!(r.size >= MAX / 4, "{} holds only {} bytes", r.name, r.size);
    }
    // One file per region: the lower parts kept their parents' files, nothing was left behind.
    let files = std::fs::read_dir(dir.path().join("tables/default/t"))
        .unwrap()
        .filter_map(|f| f.ok())
        .filter(|f| f.path().extension().is_some_and(|x| x == "redb"))
        .count();
    assert_eq!(files, regions.len());
    check_rows(&e, n, |_| 0);

    // Rows below the tail go to the lower regions, which take writes as any region does.
    for i in (0..n).step_by(50) {
        e.mutate_row(
            "t",
            RowMutation::new(row(i).as_bytes()).with(Op::put(b"f", b"q", &value(i, 1))),
        )
        .unwrap();
    }
    let round = |i: u64| u32::from(i < n && i % 50 == 0);
    check_rows(&e, n, round);

    // The same regions and rows after a restart (the writes above may have split the last
    // region, which was past half the split size and still appending).
    settle(&e);
    let names: Vec<String> = e
        .regions("t")
        .unwrap()
        .iter()
        .map(|r| r.name.clone())
        .collect();
    e.close();
    drop(e);
    let e = open(dir.path());
    let again: Vec<String> = e
        .regions("t")
        .unwrap()
        .iter()
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(names, again);
    check_rows(&e, n, round);
    // And the load goes on at the tail after it.
    append(&e, n, n + 2_000, 100);
    settle(&e);
    assert!(e.split_reports().iter().all(|r| r.at_tail));
    check_rows(&e, n + 2_000, round);
}

/// One call appends several times the split size: the region splits at its tail once, its
/// lower part holding everything, and that part, no longer taking writes, must still be split
/// down to the split size (with no write to come and ask for it).
#[test]
fn a_tail_split_made_late_splits_its_lower_part_again() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let n = 3_000; // about 1 MB, four times the split size, in one call
    let rows: Vec<RowMutation> = (0..n)
        .map(|j| RowMutation::new(row(j).as_bytes()).with(Op::put(b"f", b"q", &value(j, 0))))
        .collect();
    for r in e.mutate_rows("t", rows) {
        r.unwrap();
    }
    settle(&e);
    let reports = e.split_reports();
    assert!(reports[0].at_tail, "the first split: {:?}", reports[0]);
    assert!(
        reports.iter().skip(1).any(|r| !r.at_tail),
        "the lower part was never split: {reports:?}"
    );
    covers_key_space(&e, "t");
    for r in e.regions("t").unwrap() {
        assert!(r.size <= MAX, "{} holds {} bytes", r.name, r.size);
    }
    check_rows(&e, n, |_| 0);
}

#[test]
fn writers_see_every_acknowledged_row_while_tails_split() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    let next = Arc::new(Mutex::new(0u64));
    let acked: Arc<Mutex<BTreeMap<u64, u32>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    // Four appenders take the next row numbers in turn, one row per call (durable and
    // not), and read each row back the moment it is acknowledged; now and then one
    // overwrites an older row instead, below the tail.
    let writers: Vec<_> = (0..4u32)
        .map(|w| {
            let (e, next, acked, stop) = (e.clone(), next.clone(), acked.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let (i, round) = if n % 20 == 19 {
                        let top = *next.lock().unwrap();
                        (top / 2, w + 1)
                    } else {
                        let mut next = next.lock().unwrap();
                        let i = *next;
                        *next += 1;
                        (i, 0)
                    };
                    let durability = if n % 2 == 0 {
                        Durability::AsyncWal
                    } else {
                        Durability::UseDefault
                    };
                    let mut m = RowMutation::new(row(i).as_bytes()).with(Op::put(
                        b"f",
                        b"q",
                        &value(i, round),
                    ));
                    m.durability = durability;
                    // The row's lock keeps a reader of `acked` from seeing a value older
                    // than the last acknowledged one.
                    let mut acked = acked.lock().unwrap();
                    e.mutate_row("t", m).unwrap();
                    acked.insert(i, round);
                    drop(acked);
                    let got = e.get("t", Get::new(row(i).as_bytes())).unwrap();
                    assert!(got.is_some(), "{} acknowledged but not read back", row(i));
                    n += 1;
                }
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while e.tail_split_count() < 6 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    assert!(
        e.tail_split_count() >= 6,
        "{} tail splits",
        e.tail_split_count()
    );
    settle(&e);
    covers_key_space(&e, "t");
    let acked = acked.lock().unwrap().clone();
    let check = |e: &Engine| {
        for (i, round) in &acked {
            let got = e.get("t", Get::new(row(*i).as_bytes())).unwrap();
            let got = got.unwrap_or_else(|| panic!("lost {}", row(*i)));
            assert!(
                got.to_cells()[0].value == value(*i, *round),
                "{}: stale",
                row(*i)
            );
        }
        let scanned = scan_rows(e, "t", Scan::new());
        assert_eq!(scanned.len(), acked.len(), "rows scanned");
    };
    check(&e);
    // Non-durable writes included: after a close and a reopen, nothing is missing.
    e.close();
    drop(e);
    let e = open(dir.path());
    check(&e);
}

#[test]
fn rows_that_do_not_append_split_at_the_middle() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path());
    // The same rows as the sequential load, in a scrambled order.
    let n = 6_000u64;
    // A shuffle (Fisher-Yates with a fixed xorshift): unlike a stride through the rows, no
    // stretch of it ascends within a narrow range of rows.
    let mut order: Vec<u64> = (0..n).collect();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for i in (1..order.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    for chunk in order.chunks(100) {
        let rows: Vec<RowMutation> = chunk
            .iter()
            .map(|&j| RowMutation::new(row(j).as_bytes()).with(Op::put(b"f", b"q", &value(j, 0))))
            .collect();
        for r in e.mutate_rows("t", rows) {
            r.unwrap();
        }
    }
    settle(&e);
    let reports = e.split_reports();
    assert!(reports.len() >= 3, "only {} splits", reports.len());
    assert!(reports.iter().all(|r| !r.at_tail), "{reports:?}");
    assert_eq!(e.tail_split_count(), 0);
    covers_key_space(&e, "t");
    check_rows(&e, n, |_| 0);
}

// Only its child process and stdout handling are used here.
#[allow(dead_code)]
#[path = "common/crash_workload.rs"]
mod crash_workload;

/// Set (to the data directory) only in the crash test's child process.
const CHILD_ENV: &str = "REDBASE_TAIL_CRASH_CHILD";
/// The first row number the child writes (each kill cycle starts above the last).
const FIRST_ENV: &str = "REDBASE_TAIL_CRASH_FIRST";

/// The crash test's child: two writers append rows one per call, every other one
/// `ASYNC_WAL`, and say each acknowledged row on stdout until killed.
#[test]
fn tail_crash_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let first: u64 = std::env::var(FIRST_ENV).unwrap().parse().unwrap();
    crash_workload::exit_after_two_minutes();
    let e = open(std::path::Path::new(&dir));
    let next = Arc::new(std::sync::atomic::AtomicU64::new(first));
    let writers: Vec<_> = (0..2)
        .map(|_| {
            let (e, next) = (e.clone(), next.clone());
            std::thread::spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let mut m =
                    RowMutation::new(row(i).as_bytes()).with(Op::put(b"f", b"q", &value(i, 0)));
                if i % 2 == 0 {
                    m.durability = Durability::AsyncWal;
                }
                match e.mutate_row("t", m) {
                    Ok(()) => crash_workload::say(&format!("{}{i}\n", crash_workload::ACK)),
                    Err(err) => crash_workload::say(&format!("{}{i} {err}\n", crash_workload::ERR)),
                }
            })
        })
        .collect();
    for w in writers {
        let _ = w.join();
    }
}

/// SIGKILL while a sequential load splits its regions at their tails: after each kill every
/// acknowledged row (durable or `ASYNC_WAL`) is there with its value, the regions tile the key
/// space, and the files on disk are exactly the regions' files.
#[test]
fn acknowledged_appends_survive_a_kill_during_tail_splits() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng_state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut acked: Vec<u64> = Vec::new();
    let mut regions_at_end = 0;
    for cycle in 0..8u64 {
        let first = cycle * 1_000_000;
        let first_str = first.to_string();
        let mut child = crash_workload::Child::spawn(
            "tail_crash_child",
            &[
                (CHILD_ENV, dir.path().as_os_str()),
                (FIRST_ENV, first_str.as_ref()),
            ],
        );
        child
            .wait_for(Duration::from_secs(60), |l| l.contains(crash_workload::ACK))
            .expect("the child acknowledged nothing");
        // Killed after a random number of acknowledged rows, not a random time: on a busy
        // machine a time may see almost no writes, and the load would hardly split.
        rng_state = rng_state.wrapping_mul(6364136223846793005).wrapping_add(1);
        let target = first + 300 + (rng_state >> 33) % 1_500;
        child
            .wait_for(Duration::from_secs(90), |l| {
                l.find(crash_workload::ACK)
                    .and_then(|at| l[at + crash_workload::ACK.len()..].trim().parse().ok())
                    .is_some_and(|n: u64| n >= target)
            })
            .expect("the child stopped acknowledging");
        let (lines, err) = child.kill(&format!("cycle {cycle}"));
        crash_workload::assert_no_errors(cycle as u32, &lines, &err);
        acked.extend(lines.iter().filter_map(|l| {
            let at = l.find(crash_workload::ACK)?;
            l[at + crash_workload::ACK.len()..]
                .trim()
                .parse::<u64>()
                .ok()
        }));

        let e = open(dir.path());
        covers_key_space(&e, "t");
        let regions = e.regions("t").unwrap();
        let mut files: Vec<String> = std::fs::read_dir(dir.path().join("tables/default/t"))
            .unwrap()
            .flatten()
            .map(|f| f.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".redb"))
            .collect();
        files.sort();
        let mut expected: Vec<String> = regions.iter().map(|r| r.meta.file.clone()).collect();
        expected.sort();
        assert_eq!(
            files, expected,
            "cycle {cycle}: stray or missing region files"
        );
        for i in &acked {
            let got = e.get("t", Get::new(row(*i).as_bytes())).unwrap();
            let got = got.unwrap_or_else(|| panic!("cycle {cycle}: lost acknowledged {}", row(*i)));
            assert!(
                got.to_cells()[0].value == value(*i, 0),
                "cycle {cycle}: {} torn",
                row(*i)
            );
        }
        // The splits were tail splits: a boundary is a row followed by a zero byte. (A region
        // that passed the split size in a cycle killed before its split, and is written
        // again after the restart before its writes can be judged, splits in the middle.)
        let tails = regions[1..]
            .iter()
            .filter(|r| r.meta.start.last() == Some(&0))
            .count();
        assert!(
            tails * 4 >= (regions.len() - 1) * 3,
            "cycle {cycle}: only {tails} of {} boundaries are tails",
            regions.len() - 1
        );
        regions_at_end = regions.len();
        e.close();
    }
    assert!(
        regions_at_end >= 8,
        "only {regions_at_end} regions: the load hardly split"
    );
}
