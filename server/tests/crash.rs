//! A real crash test: a child process (this test binary, re-executed) writes to the engine with
//! several threads and acknowledges each write on stdout; the parent kills it with SIGKILL at a
//! random moment, reopens the data directory and checks that every acknowledged write survived,
//! that nothing is torn or invented, and that the region set is consistent (size-triggered
//! splits run all the time, so some kills land in the middle of one). Many kill cycles run
//! against the same directory, each child continuing from what the previous one left.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rand::Rng;
use redbase::engine::*;

#[path = "common/crash_workload.rs"]
mod crash_workload;

use crash_workload::{Child, Known, Workload, ACK, ERR};

/// Set (to the data directory) only in the child process.
const CHILD_ENV: &str = "REDBASE_CRASH_CHILD";
/// The kill cycle the child runs in; it names the rows the child writes.
const CYCLE_ENV: &str = "REDBASE_CRASH_CYCLE";
/// The child test's name, as `--exact` matches it.
const CHILD_TEST: &str = "crash_child";

const TABLE: &str = "crash";
const CYCLES: u32 = 24;

/// Four writers, every write durable (the table's default). Bytes per column of a fresh row:
/// 700, big enough for 128 KiB regions to split every few cycles.
const WORKLOAD: Workload = Workload {
    table: TABLE,
    writers: 4,
    payload: 700,
    durability: |_| Durability::UseDefault,
};

fn config() -> EngineConfig {
    EngineConfig {
        region_max_size: 128 * 1024,
        ..Default::default()
    }
}

/// The child: writes forever until killed. Runs only when `CHILD_ENV` is set.
#[test]
fn crash_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let cycle: u32 = std::env::var(CYCLE_ENV)
        .expect("child needs the cycle")
        .parse()
        .expect("cycle number");
    crash_workload::exit_after_two_minutes();
    let engine = Engine::open(&dir, config()).expect("child: open engine");
    if !engine.table_exists(TABLE) {
        // The split keys "4" and "8" pre-split the rows' leading digits.
        match engine.create_table(
            crash_workload::descriptor(TABLE),
            &[b"4".to_vec(), b"8".to_vec()],
        ) {
            Ok(()) | Err(TableError::Exists(_)) => {}
            Err(e) => panic!("child: create table: {e}"),
        }
    }
    crash_workload::run_writers(WORKLOAD, &engine, cycle);
}

#[test]
fn crash_recovery_under_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rng();
    let mut known = Known::new(WORKLOAD);
    let started = Instant::now();
    for cycle in 0..CYCLES {
        let cycle_str = cycle.to_string();
        let mut child = Child::spawn(
            CHILD_TEST,
            &[
                (CHILD_ENV, dir.path().as_os_str()),
                (CYCLE_ENV, cycle_str.as_ref()),
            ],
        );

        // Every fifth cycle kills early, possibly while the child opens the engine or creates
        // the table; the others let it write for a while first.
        let early = cycle % 5 == 4;
        if early {
            std::thread::sleep(Duration::from_millis(rng.random_range(0..=40)));
        } else {
            let got = child.wait_for(Duration::from_secs(60), |l| {
                l.contains(ACK) || l.contains(ERR)
            });
            if got.is_err() {
                let (out, err) = child.abandon();
                panic!(
                    "cycle {cycle}: child acknowledged nothing ({got:?})\nstdout:\n{}\nstderr:\n{err}",
                    out.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(rng.random_range(50..=400)));
        }
        let (lines, err) = child.kill(&format!("cycle {cycle}"));
        crash_workload::assert_no_errors(cycle, &lines, &err);
        let acks = crash_workload::parse_acks(WORKLOAD, cycle, &lines);
        crash_workload::check(
            WORKLOAD,
            dir.path(),
            config(),
            cycle,
            &acks,
            &mut known,
            |engine, table| check_regions(dir.path(), cycle, engine, table),
        );
    }
    // The run must have exercised size-triggered splits.
    let engine = Engine::open(dir.path(), config()).unwrap();
    let regions = engine.regions(TABLE).unwrap();
    engine.close();
    drop(engine);
    eprintln!(
        "crash test: {CYCLES} kill cycles, {} acknowledged writes, {} unacknowledged writes that \
         landed, {} fresh rows, {} regions at the end, {:?}",
        known.acked,
        known.landed_unacked,
        known.rows.len(),
        regions.len(),
        started.elapsed()
    );
    assert!(
        regions.len() > 3,
        "no region split during the run; regions: {:?}",
        regions.iter().map(|r| &r.name).collect::<Vec<_>>()
    );
}

/// The region set after a kill: the regions tile the key space, their files are exactly the
/// ones on disk, and a get sees what the scan saw.
fn check_regions(dir: &std::path::Path, cycle: u32, engine: &Engine, table: &crash_workload::Rows) {
    // The regions tile the key space.
    let regions = engine.regions(TABLE).unwrap();
    let bounds: Vec<(String, String)> = regions
        .iter()
        .map(|r| {
            (
                String::from_utf8_lossy(&r.meta.start).into_owned(),
                String::from_utf8_lossy(&r.meta.end).into_owned(),
            )
        })
        .collect();
    assert!(!regions.is_empty(), "cycle {cycle}: no regions");
    assert!(
        regions[0].meta.start.is_empty(),
        "cycle {cycle}: first region does not start the table: {bounds:?}"
    );
    assert!(
        regions.last().unwrap().meta.end.is_empty(),
        "cycle {cycle}: last region does not end the table: {bounds:?}"
    );
    for w in regions.windows(2) {
        assert_eq!(
            w[0].meta.end, w[1].meta.start,
            "cycle {cycle}: regions leave a gap or overlap: {bounds:?}"
        );
        assert!(
            w[0].meta.start < w[0].meta.end,
            "cycle {cycle}: empty region: {bounds:?}"
        );
    }

    // A split interrupted by the kill leaves no stray region file behind once reopened.
    let table_dir = dir.join("tables").join("default").join(TABLE);
    if let Ok(rd) = std::fs::read_dir(&table_dir) {
        let mut files: Vec<String> = rd
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".redb"))
            .collect();
        files.sort();
        let mut expected: Vec<String> = regions.iter().map(|r| r.meta.file.clone()).collect();
        expected.sort();
        assert_eq!(
            files, expected,
            "cycle {cycle}: region files on disk differ from the regions served"
        );
    }

    // A get sees what the scan saw (spot check a few rows, across regions).
    for key in table.keys().step_by(97) {
        let g = engine.get(TABLE, Get::new(key.as_bytes())).unwrap();
        let cols: BTreeMap<Vec<u8>, Vec<u8>> = g
            .map(|r| {
                r.to_cells()
                    .into_iter()
                    .map(|c| (c.qualifier.to_vec(), c.value.to_vec()))
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            &cols, &table[key],
            "cycle {cycle}: get and scan disagree on {key}"
        );
    }
}
