//! Non-durable writes (`ASYNC_WAL`, `SKIP_WAL`) must survive a process crash: they are
//! acknowledged before any fsync, but only after their batch is in the region's redo log
//! (a plain write(2), which the OS keeps after the process dies). These tests kill a child
//! process (this test binary, re-executed) with SIGKILL and check every acknowledged async
//! write after reopening; they check the torn-record rule and the log's truncation after a
//! durable commit.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::Rng;
use redbase::engine::*;

/// Set (to the data directory) only in the child process.
const CHILD_ENV: &str = "REDBASE_ASYNC_CHILD";
/// What the child does: "writers" or "torn".
const MODE_ENV: &str = "REDBASE_ASYNC_MODE";
const CYCLE_ENV: &str = "REDBASE_ASYNC_CYCLE";
const CHILD_TEST: &str = "async_child";

const TABLE: &str = "asyncw";
const FAMILY: &[u8] = b"f";
const COLUMNS: [&[u8]; 3] = [b"a", b"b", b"c"];
const COUNTERS: [&[u8]; 2] = [b"x", b"y"];
const WRITERS: usize = 3;
const CYCLES: u32 = 10;
const PAYLOAD: usize = 600;
const ACK: &str = "@ACK ";
const ERR: &str = "@ERR ";
const DONE: &str = "@DONE";
/// Rows the "torn" child writes, one async batch (one log record) each.
const TORN_ROWS: usize = 10;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A fresh row (named by cycle, thread and seq), async.
    Row,
    /// Overwrites the thread's "latest" row; every other one durable (SYNC_WAL), so durable and
    /// async commits interleave in the same region.
    Latest,
    /// Increments the thread's two counters, async.
    Inc,
}

fn kind_of(seq: u64) -> Kind {
    match seq % 5 {
        0 => Kind::Inc,
        1 => Kind::Latest,
        _ => Kind::Row,
    }
}

fn durability_of(seq: u64) -> Durability {
    if kind_of(seq) == Kind::Latest && seq % 10 == 1 {
        Durability::Sync
    } else {
        Durability::AsyncWal
    }
}

fn row_key(cycle: u32, thread: usize, seq: u64) -> String {
    let lead = (seq as usize * 3 + thread) % 10;
    format!("{lead}{cycle:03}.{thread}.{seq:06}")
}

fn parse_row_key(key: &str) -> Option<(u32, usize, u64)> {
    let mut parts = key.get(1..)?.split('.');
    let cycle = parts.next()?.parse().ok()?;
    let thread = parts.next()?.parse().ok()?;
    let seq = parts.next()?.parse().ok()?;
    if parts.next().is_some() || row_key(cycle, thread, seq) != key {
        return None;
    }
    Some((cycle, thread, seq))
}

fn row_value(cycle: u32, thread: usize, seq: u64) -> Vec<u8> {
    let stamp = format!("{cycle}/{thread}/{seq};");
    stamp.bytes().cycle().take(PAYLOAD).collect()
}

fn latest_key(thread: usize) -> String {
    format!("{}~latest.{thread}", (thread * 3) % 10)
}

fn counter_key(thread: usize) -> String {
    format!("{}~counter.{thread}", (thread * 3 + 5) % 10)
}

fn descriptor() -> TableDescriptor {
    TableDescriptor::new(TableName::parse(TABLE).unwrap())
        .with_family(FamilyDescriptor::new(FAMILY).max_versions(1))
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    if out.write_all(line.as_bytes()).is_err() || out.flush().is_err() {
        std::process::exit(4);
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
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(120));
        std::process::exit(3);
    });
    let engine = Engine::open(&dir, config(cycle)).expect("child: open engine");
    if !engine.table_exists(TABLE) {
        let splits: &[Vec<u8>] = if mode == "torn" {
            &[]
        } else {
            &[b"3".to_vec(), b"6".to_vec()]
        };
        engine
            .create_table(descriptor(), splits)
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
    let writers: Vec<_> = (0..WRITERS)
        .map(|t| {
            let engine = engine.clone();
            std::thread::spawn(move || writer(&engine, cycle, t))
        })
        .collect();
    for w in writers {
        let _ = w.join();
    }
    std::process::exit(2);
}

fn writer(engine: &Engine, cycle: u32, t: usize) {
    for seq in 1u64.. {
        let durability = durability_of(seq);
        let result = match kind_of(seq) {
            Kind::Row | Kind::Latest => {
                let (key, value, what) = if kind_of(seq) == Kind::Row {
                    (row_key(cycle, t, seq), row_value(cycle, t, seq), "row")
                } else {
                    (
                        latest_key(t),
                        format!("{cycle}/{seq}").into_bytes(),
                        "latest",
                    )
                };
                let mut m = RowMutation::new(key.as_bytes());
                for c in COLUMNS {
                    m = m.with(Op::put(FAMILY, c, &value));
                }
                m.durability = durability;
                engine
                    .mutate_row(TABLE, m)
                    .map(|()| format!("{ACK}{t} {seq} {what} -\n"))
                    .map_err(|e| e.to_string())
            }
            Kind::Inc => {
                let cols = COUNTERS
                    .iter()
                    .map(|q| (FAMILY.to_vec(), q.to_vec(), 1i64))
                    .collect();
                engine
                    .increment(TABLE, counter_key(t).as_bytes(), cols, None, durability)
                    .map_err(|e| e.to_string())
                    .and_then(|cells| {
                        let v: Vec<i64> = cells
                            .iter()
                            .filter_map(|c| c.value[..].try_into().ok().map(i64::from_be_bytes))
                            .collect();
                        match v.as_slice() {
                            [x, y] if x == y => Ok(format!("{ACK}{t} {seq} inc {x}\n")),
                            _ => Err(format!("increment returned {cells:?}")),
                        }
                    })
            }
        };
        match result {
            Ok(line) => say(&line),
            Err(e) => {
                say(&format!("{ERR}{t} {seq} {}\n", e.replace('\n', " ")));
                return;
            }
        }
    }
}

struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the child; returns it, a receiver of its stdout lines as they come, and its stderr.
fn spawn_child(
    dir: &Path,
    mode: &str,
    cycle: u32,
) -> (
    Guard,
    mpsc::Receiver<String>,
    std::thread::JoinHandle<String>,
) {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args(["--exact", CHILD_TEST, "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, dir)
        .env(MODE_ENV, mode)
        .env(CYCLE_ENV, cycle.to_string())
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = Guard(cmd.spawn().expect("spawn child"));
    let stdout = child.0.stdout.take().unwrap();
    let mut stderr = child.0.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match r.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            // A line cut by the kill was never a complete acknowledgement.
            if buf.last() != Some(&b'\n') {
                break;
            }
            if tx
                .send(String::from_utf8_lossy(&buf).trim_end().to_string())
                .is_err()
            {
                break;
            }
        }
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    (child, rx, err)
}

fn kill(child: &mut Guard) {
    child.0.kill().expect("kill child");
    let status = child.0.wait().expect("wait child");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        status.signal(),
        Some(9),
        "child ended by itself: {status:?}"
    );
}

#[derive(Debug, Clone, Copy)]
struct Ack {
    seq: u64,
    kind: Kind,
    value: i64,
}

#[derive(Default)]
struct Known {
    rows: BTreeSet<String>,
    latest: [Option<(u32, u64)>; WRITERS],
    counter: [i64; WRITERS],
    acked: usize,
}

/// Kill cycles of concurrent async writers (with a durable write now and then, and splits of
/// small regions): after each kill every acknowledged write must be there.
#[test]
fn acknowledged_async_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rng();
    let mut known = Known::default();
    let started = Instant::now();
    for cycle in 0..CYCLES {
        let (mut child, rx, err) = spawn_child(dir.path(), "writers", cycle);
        let mut lines = Vec::new();
        // Wait for the first acknowledgement, then let it write a while.
        let deadline = Instant::now() + Duration::from_secs(60);
        while !lines.iter().any(|l: &String| l.contains(ACK)) {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(l) => lines.push(l),
                Err(e) => {
                    drop(child);
                    panic!("cycle {cycle}: child acknowledged nothing ({e:?}): {}", {
                        err.join().unwrap()
                    });
                }
            }
        }
        std::thread::sleep(Duration::from_millis(rng.random_range(100..=500)));
        kill(&mut child);
        drop(child);
        let stderr = err.join().unwrap();
        lines.extend(rx.iter());
        let errors: Vec<&String> = lines.iter().filter(|l| l.contains(ERR)).collect();
        assert!(
            errors.is_empty(),
            "cycle {cycle}: the child's writes failed: {errors:?}\nstderr:\n{stderr}"
        );
        let acks = parse_acks(cycle, &lines);
        check(dir.path(), cycle, &acks, &mut known);
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

fn parse_acks(cycle: u32, lines: &[String]) -> Vec<Vec<Ack>> {
    let mut acks: Vec<Vec<Ack>> = vec![Vec::new(); WRITERS];
    for line in lines {
        let Some(pos) = line.find(ACK) else {
            continue;
        };
        let f: Vec<&str> = line[pos + ACK.len()..].split(' ').collect();
        assert_eq!(f.len(), 4, "cycle {cycle}: bad ack line {line:?}");
        let t: usize = f[0].parse().unwrap();
        let seq: u64 = f[1].parse().unwrap();
        let kind = kind_of(seq);
        let value = if kind == Kind::Inc {
            f[3].parse().unwrap()
        } else {
            0
        };
        assert_eq!(seq, acks[t].len() as u64 + 1, "cycle {cycle}: {line:?}");
        acks[t].push(Ack { seq, kind, value });
    }
    acks
}

fn check(dir: &Path, cycle: u32, acks: &[Vec<Ack>], known: &mut Known) {
    let engine = Engine::open(dir, config(0))
        .unwrap_or_else(|e| panic!("cycle {cycle}: reopen after the kill failed: {e}"));
    assert!(
        engine.offline_tables().is_empty(),
        "cycle {cycle}: tables offline: {:?}",
        engine.offline_tables()
    );
    known.acked += acks.iter().map(Vec::len).sum::<usize>();
    let mut table: BTreeMap<String, BTreeMap<Vec<u8>, Vec<u8>>> = BTreeMap::new();
    for r in engine.scan(TABLE, Scan::new()).unwrap() {
        let r = r.unwrap_or_else(|e| panic!("cycle {cycle}: scan failed: {e}"));
        let key = String::from_utf8(r.row().to_vec()).unwrap();
        let cols = r
            .to_cells()
            .iter()
            .map(|c| (c.qualifier.to_vec(), c.value.to_vec()))
            .collect();
        table.insert(key, cols);
    }
    // Every region's redo log was replayed and emptied by the reopen.
    for log in redo_logs(dir) {
        let len = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
        assert_eq!(
            len,
            0,
            "cycle {cycle}: {} not emptied at open",
            log.display()
        );
    }
    engine.close();
    drop(engine);

    let mut rows_now = BTreeSet::new();
    let mut latest_now: [Option<(u32, u64)>; WRITERS] = [None; WRITERS];
    let mut counter_now = [0i64; WRITERS];
    for (key, cols) in &table {
        if let Some(t) = (0..WRITERS).find(|t| *key == latest_key(*t)) {
            let vals: BTreeSet<&Vec<u8>> = cols.values().collect();
            assert!(
                cols.len() == COLUMNS.len() && vals.len() == 1,
                "cycle {cycle}: latest row {key} is torn: {cols:?}"
            );
            let s = String::from_utf8(vals.into_iter().next().unwrap().clone()).unwrap();
            let (c, q) = s.split_once('/').unwrap();
            latest_now[t] = Some((c.parse().unwrap(), q.parse().unwrap()));
        } else if let Some(t) = (0..WRITERS).find(|t| *key == counter_key(*t)) {
            let vals: Vec<i64> = cols
                .values()
                .map(|v| i64::from_be_bytes(v.as_slice().try_into().unwrap()))
                .collect();
            assert!(
                vals.len() == 2 && vals[0] == vals[1],
                "cycle {cycle}: counter row {key} is torn: {vals:?}"
            );
            counter_now[t] = vals[0];
        } else {
            let (c, t, seq) = parse_row_key(key)
                .unwrap_or_else(|| panic!("cycle {cycle}: unexpected row {key:?}"));
            let want = row_value(c, t, seq);
            assert!(
                cols.len() == COLUMNS.len() && cols.values().all(|v| *v == want),
                "cycle {cycle}: row {key} is torn or wrong"
            );
            rows_now.insert(key.clone());
        }
    }
    // Rows of earlier cycles: exactly those found before.
    let old: BTreeSet<String> = rows_now
        .iter()
        .filter(|k| parse_row_key(k).unwrap().0 < cycle)
        .cloned()
        .collect();
    assert_eq!(
        old, known.rows,
        "cycle {cycle}: rows of earlier cycles changed"
    );
    let mut lost = Vec::new();
    for (t, list) in acks.iter().enumerate() {
        for a in list.iter().filter(|a| a.kind == Kind::Row) {
            let key = row_key(cycle, t, a.seq);
            if !rows_now.contains(&key) {
                lost.push(key);
            }
        }
    }
    assert!(
        lost.is_empty(),
        "cycle {cycle}: {} acknowledged async rows lost after the kill (of {}), e.g. {:?}",
        lost.len(),
        acks.iter()
            .flatten()
            .filter(|a| a.kind == Kind::Row)
            .count(),
        &lost[..lost.len().min(5)]
    );
    for key in &rows_now {
        let (c, t, seq) = parse_row_key(key).unwrap();
        assert!(
            c < cycle || seq <= acks[t].len() as u64 + 1,
            "cycle {cycle}: row {key} was never written"
        );
    }
    for t in 0..WRITERS {
        let next = acks[t].len() as u64 + 1;
        let acked_latest = acks[t]
            .iter()
            .rev()
            .find(|a| a.kind == Kind::Latest)
            .map(|a| (cycle, a.seq))
            .or(known.latest[t]);
        let flying = (kind_of(next) == Kind::Latest).then_some((cycle, next));
        let found = latest_now[t];
        assert!(
            found == acked_latest || (flying.is_some() && found == flying),
            "cycle {cycle}: thread {t}'s latest row holds {found:?}; acknowledged \
             {acked_latest:?}, in flight {flying:?}"
        );
        let mut expect = known.counter[t];
        for a in acks[t].iter().filter(|a| a.kind == Kind::Inc) {
            expect += 1;
            assert_eq!(
                a.value, expect,
                "cycle {cycle}: thread {t}'s increment (seq {}) continued from a lost value",
                a.seq
            );
        }
        let found = counter_now[t];
        assert!(
            found == expect || (kind_of(next) == Kind::Inc && found == expect + 1),
            "cycle {cycle}: thread {t}'s counter is {found}; last acknowledged {expect}"
        );
    }
    known.rows = rows_now;
    known.latest = latest_now;
    known.counter = counter_now;
}

/// The redo logs of the test table's regions.
fn redo_logs(dir: &Path) -> Vec<PathBuf> {
    let table_dir = dir.join("tables").join("default").join(TABLE);
    let mut out: Vec<PathBuf> = std::fs::read_dir(table_dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with(".redb.log"))
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
    let (mut child, rx, err) = spawn_child(dir.path(), "torn", 0);
    // (The test harness prints its own text first, some on the same line.)
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(l) if l.contains(DONE) => break,
            Ok(_) => {}
            Err(e) => {
                drop(child);
                panic!("child did not finish: {e:?}\n{}", err.join().unwrap());
            }
        }
    }
    kill(&mut child);
    drop(child);
    let logs = redo_logs(dir.path());
    assert_eq!(logs.len(), 1, "one region, one redo log: {logs:?}");
    let len = std::fs::metadata(&logs[0]).unwrap().len();
    assert!(len > 0, "the async writes left no redo log records");
    // Cut the last record by a few bytes, as a torn write would.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&logs[0])
        .unwrap()
        .set_len(len - 3)
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

/// A durable commit of the region (a durable write, close) makes its log obsolete: emptied.
#[test]
fn durable_commit_empties_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), config(0)).unwrap();
    engine.create_table(descriptor(), &[]).unwrap();
    put(&engine, "r1", Durability::AsyncWal);
    assert!(log_len(dir.path()) > 0, "an async write is logged");
    put(&engine, "r2", Durability::Sync);
    assert_eq!(log_len(dir.path()), 0, "a durable commit empties the log");
    put(&engine, "r3", Durability::SkipWal);
    assert!(log_len(dir.path()) > 0);
    engine.close();
    assert_eq!(log_len(dir.path()), 0, "closing commits durably");
    drop(engine);
    let engine = Engine::open(dir.path(), config(0)).unwrap();
    for r in ["r1", "r2", "r3"] {
        assert!(engine.get(TABLE, Get::new(r.as_bytes())).unwrap().is_some());
    }
    engine.close();
}

/// The background flush makes async writes durable within `async_flush` and empties the log.
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
    engine.create_table(descriptor(), &[]).unwrap();
    put(&engine, "r1", Durability::AsyncWal);
    assert_eq!(redo_logs(dir.path()).len(), 1, "the async write made a log");
    let deadline = Instant::now() + Duration::from_secs(5);
    while log_len(dir.path()) > 0 {
        assert!(Instant::now() < deadline, "the log was never flushed");
        std::thread::sleep(Duration::from_millis(10));
    }
    engine.close();
}
