//! Non-durable writes (`ASYNC_WAL`, `SKIP_WAL`) must survive a process crash: they are
//! acknowledged before any fsync, but only after their batch is in the region's redo log
//! (a plain write(2), which the OS keeps after the process dies). Durable writes are in the
//! same log, synced there before they are acknowledged. These tests kill a child
//! process (this test binary, re-executed) with SIGKILL and check every acknowledged async
//! write after reopening; they check the torn-record rule and the log's truncation after a
//! durable commit.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rand::Rng;
use redbase::engine::*;

#[path = "common/crash_workload.rs"]
mod crash_workload;

use crash_workload::{descriptor, kind_of, say, Child, Kind, Known, Workload, ACK, FAMILY};

/// Set (to the data directory) only in the child process.
const CHILD_ENV: &str = "REDBASE_ASYNC_CHILD";
/// What the child does: "writers" or "torn".
const MODE_ENV: &str = "REDBASE_ASYNC_MODE";
const CYCLE_ENV: &str = "REDBASE_ASYNC_CYCLE";
const CHILD_TEST: &str = "async_child";

const TABLE: &str = "asyncw";
const CYCLES: u32 = 10;
const DONE: &str = "@DONE";
/// Rows the "torn" child writes, one async batch (one log record) each.
const TORN_ROWS: usize = 10;

/// Three writers, 600 bytes per column of a fresh row; fresh rows and increments are async,
/// "latest" overwrites are durable (SYNC_WAL) every other time, so durable and async commits
/// interleave in the same region.
const WORKLOAD: Workload = Workload {
    table: TABLE,
    writers: 3,
    payload: 600,
    durability: durability_of,
};

/// The child's engine. Even cycles never flush in the background during the run (only the
/// redo log can save their async writes); odd cycles flush often, so kills also land during
/// flushes and log truncations.
fn config(cycle: u32) -> EngineConfig {
    EngineConfig {
        region_max_size: 128 * 1024,
        async_flush: if cycle % 2 == 0 {
            Duration::from_secs(3600)
        } else {
            Duration::from_millis(20)
        },
        ..Default::default()
    }
}

fn durability_of(seq: u64) -> Durability {
    if kind_of(seq) == Kind::Latest && seq % 10 == 1 {
        Durability::Sync
    } else {
        Durability::AsyncWal
    }
}

/// The child: runs only when `CHILD_ENV` is set.
#[test]
fn async_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let cycle: u32 = std::env::var(CYCLE_ENV)
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let mode = std::env::var(MODE_ENV).unwrap_or_default();
    crash_workload::exit_after_two_minutes();
    let engine = Engine::open(&dir, config(cycle)).expect("child: open engine");
    if !engine.table_exists(TABLE) {
        let splits: &[Vec<u8>] = if mode == "torn" {
            &[]
        } else {
            &[b"3".to_vec(), b"6".to_vec()]
        };
        engine
            .create_table(descriptor(TABLE), splits)
            .expect("child: create table");
    }
    if mode == "torn" {
        for i in 0..TORN_ROWS {
            let mut m = RowMutation::new(format!("torn{i}").as_bytes());
            m = m.with(Op::put(FAMILY, b"a", format!("v{i}").as_bytes()));
            m.durability = Durability::AsyncWal;
            engine.mutate_row(TABLE, m).expect("child: async write");
        }
        say(&format!("{DONE}\n"));
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
    crash_workload::run_writers(WORKLOAD, &engine, cycle);
}

/// Starts the child in `mode`.
fn spawn_child(dir: &Path, mode: &str, cycle: u32) -> Child {
    let cycle = cycle.to_string();
    Child::spawn(
        CHILD_TEST,
        &[
            (CHILD_ENV, dir.as_os_str()),
            (MODE_ENV, OsStr::new(mode)),
            (CYCLE_ENV, OsStr::new(&cycle)),
        ],
    )
}

/// Kill cycles of concurrent async writers (with a durable write now and then, and splits of
/// small regions): after each kill every acknowledged write must be there.
#[test]
fn acknowledged_async_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rng();
    let mut known = Known::new(WORKLOAD);
    let started = Instant::now();
    for cycle in 0..CYCLES {
        let mut child = spawn_child(dir.path(), "writers", cycle);
        // Wait for the first acknowledgement, then let it write a while.
        if let Err(e) = child.wait_for(Duration::from_secs(60), |l| l.contains(ACK)) {
            let (_, err) = child.abandon();
            panic!("cycle {cycle}: child acknowledged nothing ({e:?}): {err}");
        }
        std::thread::sleep(Duration::from_millis(rng.random_range(100..=500)));
        let (lines, stderr) = child.kill(&format!("cycle {cycle}"));
        crash_workload::assert_no_errors(cycle, &lines, &stderr);
        let acks = crash_workload::parse_acks(WORKLOAD, cycle, &lines);
        crash_workload::check(
            WORKLOAD,
            dir.path(),
            config(0),
            cycle,
            &acks,
            &mut known,
            |_, _| {
                // Every region's redo log was replayed and emptied by the reopen.
                for log in redo_logs(dir.path()) {
                    let len = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
                    assert_eq!(
                        len,
                        0,
                        "cycle {cycle}: {} not emptied at open",
                        log.display()
                    );
                }
            },
        );
    }
    let engine = Engine::open(dir.path(), config(0)).unwrap();
    let regions = engine.regions(TABLE).unwrap();
    engine.close();
    eprintln!(
        "async crash test: {CYCLES} kill cycles, {} acknowledged writes, {} fresh rows, {} \
         regions at the end, {:?}",
        known.acked,
        known.rows.len(),
        regions.len(),
        started.elapsed()
    );
    assert!(regions.len() > 3, "no region split during the run");
}

/// The redo logs of the test table's regions.
fn redo_logs(dir: &Path) -> Vec<PathBuf> {
    let table_dir = dir.join("tables").join("default").join(TABLE);
    let mut out: Vec<PathBuf> = std::fs::read_dir(table_dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().contains(".redb.log"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// A record cut short (a write(2) torn by power loss) was never acknowledged: the records
/// before it replay, it is ignored.
#[test]
fn torn_final_record_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn_child(dir.path(), "torn", 0);
    // (The test harness prints its own text first, some on the same line.)
    if let Err(e) = child.wait_for(Duration::from_secs(60), |l| l.contains(DONE)) {
        let (_, err) = child.abandon();
        panic!("child did not finish: {e:?}\n{err}");
    }
    child.kill("torn");
    let logs = redo_logs(dir.path());
    assert_eq!(logs.len(), 1, "one region, one redo log: {logs:?}");
    // The records end where the zeros the log grows by begin (the last record ends in its
    // value, "v9").
    let bytes = std::fs::read(&logs[0]).unwrap();
    let end = bytes.len() - bytes.iter().rev().take_while(|b| **b == 0).count();
    assert!(end > 8, "the async writes left no redo log records");
    assert_eq!(
        &bytes[end - 2..end],
        format!("v{}", TORN_ROWS - 1).as_bytes()
    );
    // Cut the last record by a few bytes, as a torn write would.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&logs[0])
        .unwrap()
        .set_len(end as u64 - 3)
        .unwrap();
    let engine = Engine::open(dir.path(), config(0)).unwrap();
    for i in 0..TORN_ROWS {
        let got = engine
            .get(TABLE, Get::new(format!("torn{i}").as_bytes()))
            .unwrap();
        if i + 1 < TORN_ROWS {
            let cells = got.unwrap_or_else(|| panic!("torn{i} lost")).to_cells();
            assert_eq!(&cells[0].value[..], format!("v{i}").as_bytes());
        } else {
            assert!(got.is_none(), "the torn record was replayed");
        }
    }
    assert_eq!(std::fs::metadata(&logs[0]).unwrap().len(), 0);
    engine.close();
}

/// Whether the table's redo logs hold `bytes` (a row key, say).
fn log_holds(dir: &Path, bytes: &[u8]) -> bool {
    redo_logs(dir).iter().any(|p| {
        std::fs::read(p)
            .unwrap_or_default()
            .windows(bytes.len())
            .any(|w| w == bytes)
    })
}

fn log_len(dir: &Path) -> u64 {
    redo_logs(dir)
        .iter()
        .map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .sum()
}

fn put(engine: &Engine, row: &str, durability: Durability) {
    let mut m = RowMutation::new(row.as_bytes()).with(Op::put(FAMILY, b"a", row.as_bytes()));
    m.durability = durability;
    engine.mutate_row(TABLE, m).unwrap();
}

/// Durable writes go to the redo log too, synced there before they are acknowledged (one
/// fdatasync per group commit; async writes are not synced); closing commits the file durably
/// and empties the log.
#[test]
fn durable_writes_are_synced_in_the_log_and_a_durable_commit_empties_it() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), config(0)).unwrap();
    engine.create_table(descriptor(TABLE), &[]).unwrap();
    let syncs = engine.redo_log_syncs();
    put(&engine, "r1", Durability::AsyncWal);
    assert!(log_holds(dir.path(), b"r1"), "an async write is logged");
    assert_eq!(
        engine.redo_log_syncs(),
        syncs,
        "an async write is not synced"
    );
    put(&engine, "r2", Durability::Sync);
    assert!(log_holds(dir.path(), b"r2"), "a durable write is logged");
    assert_eq!(engine.redo_log_syncs(), syncs + 1, "and synced there");
    put(&engine, "r3", Durability::SkipWal);
    put(&engine, "r4", Durability::Fsync);
    assert_eq!(engine.redo_log_syncs(), syncs + 2);
    engine.close();
    assert_eq!(log_len(dir.path()), 0, "closing commits durably");
    drop(engine);
    let engine = Engine::open(dir.path(), config(0)).unwrap();
    for r in ["r1", "r2", "r3", "r4"] {
        assert!(engine.get(TABLE, Get::new(r.as_bytes())).unwrap().is_some());
    }
    engine.close();
}

/// A durable commit of the file does not shorten the log: the next records overwrite it from
/// the start, so their syncs rewrite blocks the file already has instead of growing it. A
/// region with nothing to flush for a whole interval gives the blocks back.
#[test]
fn a_durable_commit_reuses_the_log_and_an_idle_region_gives_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), config(0)).unwrap();
    engine.create_table(descriptor(TABLE), &[]).unwrap();
    put(&engine, "first-row", Durability::Sync);
    let grown = log_len(dir.path());
    assert!(grown > 0 && log_holds(dir.path(), b"first-row"));
    assert_eq!(
        engine.redo_log_bytes(),
        grown,
        "the gauge counts the log's blocks"
    );
    engine.flush_all().unwrap();
    assert_eq!(
        log_len(dir.path()),
        grown,
        "a durable commit keeps the log's blocks"
    );
    assert_eq!(engine.redo_log_bytes(), grown);
    let syncs = engine.redo_log_syncs();
    put(&engine, "later-row", Durability::Sync);
    assert_eq!(engine.redo_log_syncs(), syncs + 1);
    // The flush rolled the log: records now go to its second file, which grows once.
    assert_eq!(log_len(dir.path()), 2 * grown, "the second file grew once");
    assert_eq!(engine.redo_log_bytes(), 2 * grown);
    engine.flush_all().unwrap();
    put(&engine, "third-row", Durability::Sync);
    assert_eq!(log_len(dir.path()), 2 * grown, "neither file grew");
    assert!(
        log_holds(dir.path(), b"third-row") && !log_holds(dir.path(), b"first-row"),
        "back in the first file, the new record took the old one's place at the start"
    );
    // Hundreds of generations of 20 durable puts each: the log never outgrows its first size.
    for g in 0..200 {
        for i in 0..20 {
            put(&engine, &format!("g{g:03}-{i:02}"), Durability::Sync);
        }
        engine.flush_all().unwrap();
        assert_eq!(log_len(dir.path()), 2 * grown, "generation {g}");
    }
    engine.flush_all().unwrap();
    assert_eq!(
        log_len(dir.path()),
        0,
        "an idle region's log is cut to nothing"
    );
    assert_eq!(engine.redo_log_bytes(), 0);
    put(&engine, "after-trim", Durability::Sync);
    assert_eq!(engine.redo_log_bytes(), log_len(dir.path()));
    engine.close();
    drop(engine);
    let engine = Engine::open(dir.path(), config(0)).unwrap();
    assert_present(
        &engine,
        [
            "first-row",
            "later-row",
            "third-row",
            "g199-19",
            "after-trim",
        ],
    );
    engine.close();
}

/// Copies the files of `from` (recursively) into `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A power loss keeps what was synced: the region file as of its last durable commit and the
/// redo log up to its last sync. Every acknowledged durable write is in that state: a copy of
/// the data directory taken when the file was last made durable, given the log as it stands
/// after the writes, opens with all of them (and with none of the file's later, unsynced,
/// commits needed).
#[test]
fn acknowledged_durable_writes_survive_in_the_synced_state() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), config(0)).unwrap();
    engine.create_table(descriptor(TABLE), &[]).unwrap();
    put(&engine, "before", Durability::Sync);
    engine.close();
    drop(engine);
    // The file's durable state: what a power loss falls back to.
    let synced = tempfile::tempdir().unwrap();
    copy_dir(dir.path(), synced.path());
    let engine = Engine::open(dir.path(), config(0)).unwrap();
    for i in 0..20 {
        put(&engine, &format!("d{i:02}"), Durability::Sync);
    }
    put(&engine, "async", Durability::AsyncWal);
    let logs = redo_logs(dir.path());
    assert_eq!(logs.len(), 1, "one region, one log");
    // The log as synced by the last durable write; the async record after it may be kept or
    // lost by a power loss: keep only what the durable writes synced.
    let log = std::fs::read(&logs[0]).unwrap();
    let rel = logs[0].strip_prefix(dir.path()).unwrap();
    std::fs::write(synced.path().join(rel), &log).unwrap();
    engine.close();
    drop(engine);
    let engine = Engine::open(synced.path(), config(0)).unwrap();
    assert!(engine
        .get(TABLE, Get::new(&b"before"[..]))
        .unwrap()
        .is_some());
    for i in 0..20 {
        let row = format!("d{i:02}");
        assert!(
            engine
                .get(TABLE, Get::new(row.as_bytes()))
                .unwrap()
                .is_some(),
            "acknowledged durable write {row} lost"
        );
    }
    engine.close();
}

/// The background flush makes async writes durable within `async_flush`, and the log of a
/// region idle after that is cut to nothing.
#[test]
fn background_flush_empties_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(
        dir.path(),
        EngineConfig {
            async_flush: Duration::from_millis(50),
            ..Default::default()
        },
    )
    .unwrap();
    engine.create_table(descriptor(TABLE), &[]).unwrap();
    put(&engine, "r1", Durability::AsyncWal);
    assert_eq!(redo_logs(dir.path()).len(), 1, "the async write made a log");
    let deadline = Instant::now() + Duration::from_secs(5);
    while log_len(dir.path()) > 0 {
        assert!(Instant::now() < deadline, "the log was never flushed");
        std::thread::sleep(Duration::from_millis(10));
    }
    engine.close();
}

/// A log that passes 64 MiB is flushed before the batch that grew it is acknowledged, so the
/// replay at open stays short even when the background flush is far off: 80 MiB of async
/// writes never leave more than 64 MiB and one record in the log.
#[test]
fn a_log_past_64_mib_is_flushed_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // One region (no split below 256 MiB) and no background flush during the test.
    let config = || EngineConfig {
        async_flush: Duration::from_secs(3600),
        ..Default::default()
    };
    let engine = Engine::open(dir.path(), config()).unwrap();
    engine.create_table(descriptor(TABLE), &[]).unwrap();
    let value = vec![b'x'; 1 << 20];
    let mut largest = 0;
    for i in 0..80 {
        let row = format!("big{i:02}");
        let mut m = RowMutation::new(row.as_bytes()).with(Op::put(FAMILY, b"a", &value[..]));
        m.durability = Durability::AsyncWal;
        engine.mutate_row(TABLE, m).unwrap();
        largest = largest.max(log_len(dir.path()));
    }
    let bound = (64 << 20) + (1 << 20) + (128 << 10);
    assert!(
        largest <= bound,
        "the log grew to {largest} bytes, past the 64 MiB flush"
    );
    assert!(largest > 32 << 20, "the log took the writes: {largest}");
    engine.close();
    drop(engine);
    let engine = Engine::open(dir.path(), config()).unwrap();
    assert_present(&engine, [0, 63, 64, 79].map(|i| format!("big{i:02}")));
    engine.close();
}

/// Every one of `rows` reads back.
fn assert_present<R: AsRef<str>>(engine: &Engine, rows: impl IntoIterator<Item = R>) {
    for row in rows {
        let row = row.as_ref();
        let got = engine.get(TABLE, Get::new(row.as_bytes())).unwrap();
        assert!(got.is_some(), "{row} is missing");
    }
}
