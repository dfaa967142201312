//! A real crash test: a child process (this test binary, re-executed) writes to the engine with
//! several threads and acknowledges each write on stdout; the parent kills it with SIGKILL at a
//! random moment, reopens the data directory and checks that every acknowledged write survived,
//! that nothing is torn or invented, and that the region set is consistent (size-triggered
//! splits run all the time, so some kills land in the middle of one). Many kill cycles run
//! against the same directory, each child continuing from what the previous one left.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::Rng;
use redbase::engine::*;

/// Set (to the data directory) only in the child process.
const CHILD_ENV: &str = "REDBASE_CRASH_CHILD";
/// The kill cycle the child runs in; it names the rows the child writes.
const CYCLE_ENV: &str = "REDBASE_CRASH_CYCLE";
/// The child test's name, as `--exact` matches it.
const CHILD_TEST: &str = "crash_child";

const TABLE: &str = "crash";
const FAMILY: &[u8] = b"f";
/// Columns every row mutation writes, all with the same value.
const COLUMNS: [&[u8]; 3] = [b"a", b"b", b"c"];
/// The two counter columns every increment bumps together.
const COUNTERS: [&[u8]; 2] = [b"x", b"y"];
const WRITERS: usize = 4;
const CYCLES: u32 = 24;
/// Bytes per column of a fresh row: big enough for 128 KiB regions to split every few cycles.
const PAYLOAD: usize = 700;
const ACK: &str = "@ACK ";
const ERR: &str = "@ERR ";

fn config() -> EngineConfig {
    EngineConfig {
        region_max_size: 128 * 1024,
        ..Default::default()
    }
}

/// What a writer thread does with its `seq`-th write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A fresh row (named by cycle, thread and seq) with three equal columns.
    Row,
    /// Overwrites the thread's "latest" row: three equal columns naming (cycle, seq).
    Latest,
    /// Increments the thread's two counter columns by one in one call.
    Inc,
}

fn kind_of(seq: u64) -> Kind {
    match seq % 5 {
        0 => Kind::Inc,
        1 => Kind::Latest,
        _ => Kind::Row,
    }
}

fn row_key(cycle: u32, thread: usize, seq: u64) -> String {
    // The leading digit spreads rows over the pre-split regions (split keys "4" and "8").
    let lead = (seq as usize * 3 + thread) % 10;
    format!("{lead}{cycle:03}.{thread}.{seq:06}")
}

/// Parses a fresh row's key back into (cycle, thread, seq).
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

fn latest_value(cycle: u32, seq: u64) -> Vec<u8> {
    format!("{cycle}/{seq}").into_bytes()
}

fn parse_latest(v: &[u8]) -> Option<(u32, u64)> {
    let s = std::str::from_utf8(v).ok()?;
    let (c, q) = s.split_once('/')?;
    Some((c.parse().ok()?, q.parse().ok()?))
}

fn descriptor() -> TableDescriptor {
    TableDescriptor::new(TableName::parse(TABLE).unwrap())
        .with_family(FamilyDescriptor::new(FAMILY).max_versions(1))
}

/// One line to the parent, written and flushed whole under the stdout lock.
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    if out.write_all(line.as_bytes()).is_err() || out.flush().is_err() {
        // The parent is gone: nobody is listening any more.
        std::process::exit(4);
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
    // Never outlive a parent that failed to kill us.
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(120));
        std::process::exit(3);
    });
    let engine = Engine::open(&dir, config()).expect("child: open engine");
    if !engine.table_exists(TABLE) {
        match engine.create_table(descriptor(), &[b"4".to_vec(), b"8".to_vec()]) {
            Ok(()) | Err(TableError::Exists(_)) => {}
            Err(e) => panic!("child: create table: {e}"),
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
    // Writers only stop on an error, which they have reported.
    std::process::exit(2);
}

fn writer(engine: &Engine, cycle: u32, t: usize) {
    for seq in 1u64.. {
        let result = match kind_of(seq) {
            Kind::Row => {
                let value = row_value(cycle, t, seq);
                let mut m = RowMutation::new(row_key(cycle, t, seq).as_bytes());
                for c in COLUMNS {
                    m = m.with(Op::put(FAMILY, c, &value));
                }
                engine
                    .mutate_row(TABLE, m)
                    .map(|()| format!("{ACK}{t} {seq} row -\n"))
                    .map_err(|e| e.to_string())
            }
            Kind::Latest => {
                let value = latest_value(cycle, seq);
                let mut m = RowMutation::new(latest_key(t).as_bytes());
                for c in COLUMNS {
                    m = m.with(Op::put(FAMILY, c, &value));
                }
                engine
                    .mutate_row(TABLE, m)
                    .map(|()| format!("{ACK}{t} {seq} latest -\n"))
                    .map_err(|e| e.to_string())
            }
            Kind::Inc => {
                let cols = COUNTERS
                    .iter()
                    .map(|q| (FAMILY.to_vec(), q.to_vec(), 1i64))
                    .collect();
                engine
                    .increment(
                        TABLE,
                        counter_key(t).as_bytes(),
                        cols,
                        None,
                        Durability::UseDefault,
                    )
                    .map_err(|e| e.to_string())
                    .and_then(|cells| {
                        let vals: Vec<Option<i64>> = COUNTERS
                            .iter()
                            .map(|q| {
                                cells
                                    .iter()
                                    .find(|c| c.qualifier[..] == **q)
                                    .and_then(|c| c.value[..].try_into().ok())
                                    .map(i64::from_be_bytes)
                            })
                            .collect();
                        match vals.as_slice() {
                            [Some(x), Some(y)] if x == y => Ok(format!("{ACK}{t} {seq} inc {x}\n")),
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

/// One acknowledged write.
#[derive(Debug, Clone, Copy)]
struct Ack {
    seq: u64,
    kind: Kind,
    /// The counter value an increment returned.
    value: i64,
}

/// What the parent knows the table holds, carried from one cycle's check to the next.
#[derive(Default)]
struct Known {
    table_created: bool,
    /// Every fresh row found so far (they are never rewritten or deleted).
    rows: BTreeSet<String>,
    /// Each thread's "latest" row as last found: (cycle, seq).
    latest: [Option<(u32, u64)>; WRITERS],
    /// Each thread's counter as last found.
    counter: [i64; WRITERS],
    acked: usize,
    landed_unacked: usize,
}

/// Kills the child if the parent panics before it does.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn crash_recovery_under_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut rng = rand::rng();
    let mut known = Known::default();
    let started = Instant::now();
    for cycle in 0..CYCLES {
        let mut cmd = Command::new(&exe);
        cmd.args(["--exact", CHILD_TEST, "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, dir.path())
            .env(CYCLE_ENV, cycle.to_string())
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = Guard(cmd.spawn().expect("spawn child"));
        let stdout = child.0.stdout.take().unwrap();
        let mut stderr = child.0.stderr.take().unwrap();
        let (first_tx, first_rx) = mpsc::channel::<()>();
        let reader = std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut lines = Vec::new();
            let mut buf = Vec::new();
            let mut first = Some(first_tx);
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
                let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                if line.contains(ACK) || line.contains(ERR) {
                    if let Some(tx) = first.take() {
                        let _ = tx.send(());
                    }
                }
                lines.push(line);
            }
            lines
        });
        let err_reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });

        // Every fifth cycle kills early, possibly while the child opens the engine or creates
        // the table; the others let it write for a while first.
        let early = cycle % 5 == 4;
        if early {
            std::thread::sleep(Duration::from_millis(rng.random_range(0..=40)));
        } else {
            let got = first_rx.recv_timeout(Duration::from_secs(60));
            if got.is_err() {
                let _ = child.0.kill();
                let _ = child.0.wait();
                let out = reader.join().unwrap();
                let err = err_reader.join().unwrap();
                panic!(
                    "cycle {cycle}: child acknowledged nothing ({got:?})\nstdout:\n{}\nstderr:\n{err}",
                    out.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(rng.random_range(50..=400)));
        }
        child.0.kill().expect("kill child");
        let status = child.0.wait().expect("wait child");
        let lines = reader.join().unwrap();
        let err = err_reader.join().unwrap();
        {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(
                status.signal(),
                Some(9),
                "cycle {cycle}: child ended by itself ({status:?})\nstdout:\n{}\nstderr:\n{err}",
                lines.join("\n")
            );
        }
        let errors: Vec<&String> = lines.iter().filter(|l| l.contains(ERR)).collect();
        assert!(
            errors.is_empty(),
            "cycle {cycle}: the child's writes failed: {errors:?}\nstderr:\n{err}"
        );
        let acks = parse_acks(cycle, &lines);
        check(dir.path(), cycle, &acks, &mut known);
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

/// Each thread's acknowledgements, in order; they must number 1, 2, 3, ... per thread.
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
        let kind = match f[2] {
            "row" => Kind::Row,
            "latest" => Kind::Latest,
            "inc" => Kind::Inc,
            other => panic!("cycle {cycle}: bad kind {other:?}"),
        };
        assert_eq!(kind, kind_of(seq), "cycle {cycle}: {line:?}");
        let value = if kind == Kind::Inc {
            f[3].parse().unwrap()
        } else {
            0
        };
        assert_eq!(
            seq,
            acks[t].len() as u64 + 1,
            "cycle {cycle}: thread {t} acknowledged out of order: {line:?}"
        );
        acks[t].push(Ack { seq, kind, value });
    }
    acks
}

fn check(dir: &Path, cycle: u32, acks: &[Vec<Ack>], known: &mut Known) {
    let engine = Engine::open(dir, config())
        .unwrap_or_else(|e| panic!("cycle {cycle}: reopen after the kill failed: {e}"));
    assert!(
        engine.offline_tables().is_empty(),
        "cycle {cycle}: tables offline after the kill: {:?}",
        engine.offline_tables()
    );
    let n_acked: usize = acks.iter().map(Vec::len).sum();
    known.acked += n_acked;
    if !engine.table_exists(TABLE) {
        assert!(
            !known.table_created && n_acked == 0,
            "cycle {cycle}: the table vanished"
        );
        engine.close();
        return;
    }
    known.table_created = true;

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

    // Read everything back.
    let mut table: BTreeMap<String, BTreeMap<Vec<u8>, Vec<u8>>> = BTreeMap::new();
    let mut last: Option<Vec<u8>> = None;
    for r in engine.scan(TABLE, Scan::new()).unwrap() {
        let r = r.unwrap_or_else(|e| panic!("cycle {cycle}: scan failed: {e}"));
        assert!(
            last.as_ref().is_none_or(|l| l[..] < r.row()[..]),
            "cycle {cycle}: scan returned {:?} after {:?}",
            String::from_utf8_lossy(r.row()),
            last.as_ref()
                .map(|l| String::from_utf8_lossy(l).into_owned())
        );
        last = Some(r.row().to_vec());
        let key = String::from_utf8(r.row().to_vec()).expect("utf-8 row key");
        let mut cols = BTreeMap::new();
        for c in &r.to_cells() {
            assert_eq!(&c.family[..], FAMILY, "cycle {cycle}: row {key}: {c:?}");
            assert!(
                cols.insert(c.qualifier.to_vec(), c.value.to_vec())
                    .is_none(),
                "cycle {cycle}: row {key}: two versions of a max_versions=1 column"
            );
        }
        table.insert(key, cols);
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
    engine.close();
    drop(engine);

    let in_flight = |t: usize| acks[t].len() as u64 + 1;
    let mut rows_now = BTreeSet::new();
    let mut latest_now: [Option<(u32, u64)>; WRITERS] = [None; WRITERS];
    let mut counter_now = [0i64; WRITERS];
    for (key, cols) in &table {
        let (t, what) = match (0..WRITERS).find(|t| *key == latest_key(*t)) {
            Some(t) => (t, Kind::Latest),
            None => match (0..WRITERS).find(|t| *key == counter_key(*t)) {
                Some(t) => (t, Kind::Inc),
                None => (usize::MAX, Kind::Row),
            },
        };
        match what {
            Kind::Row => {
                let (c, t, seq) = parse_row_key(key)
                    .unwrap_or_else(|| panic!("cycle {cycle}: unexpected row {key:?}"));
                assert!(
                    c <= cycle && t < WRITERS && kind_of(seq) == Kind::Row,
                    "cycle {cycle}: bogus row {key}"
                );
                let want = row_value(c, t, seq);
                let expected: BTreeMap<Vec<u8>, Vec<u8>> =
                    COLUMNS.iter().map(|q| (q.to_vec(), want.clone())).collect();
                assert_eq!(
                    cols, &expected,
                    "cycle {cycle}: row {key} is torn or holds the wrong value"
                );
                rows_now.insert(key.clone());
            }
            Kind::Latest => {
                let vals: Vec<Option<&Vec<u8>>> = COLUMNS.iter().map(|q| cols.get(*q)).collect();
                assert!(
                    cols.len() == COLUMNS.len() && vals.iter().all(|v| *v == vals[0]),
                    "cycle {cycle}: latest row {key} is torn: {:?}",
                    cols.iter()
                        .map(|(q, v)| (String::from_utf8_lossy(q), String::from_utf8_lossy(v)))
                        .collect::<Vec<_>>()
                );
                latest_now[t] = Some(
                    parse_latest(vals[0].unwrap())
                        .unwrap_or_else(|| panic!("cycle {cycle}: bad latest value in {key}")),
                );
            }
            Kind::Inc => {
                let vals: Vec<Option<i64>> = COUNTERS
                    .iter()
                    .map(|q| {
                        cols.get(*q)
                            .and_then(|v| v.as_slice().try_into().ok())
                            .map(i64::from_be_bytes)
                    })
                    .collect();
                assert!(
                    cols.len() == COUNTERS.len()
                        && vals.iter().all(|v| v.is_some() && *v == vals[0]),
                    "cycle {cycle}: counter row {key} is torn: {cols:?}"
                );
                counter_now[t] = vals[0].unwrap();
            }
        }
    }

    // Fresh rows: earlier cycles' rows are exactly as found before; this cycle's rows are
    // the acknowledged ones plus, per thread, at most the one write in flight at the kill.
    let old_now: BTreeSet<&String> = rows_now
        .iter()
        .filter(|k| parse_row_key(k).unwrap().0 < cycle)
        .collect();
    let old_known: BTreeSet<&String> = known.rows.iter().collect();
    let lost: Vec<_> = old_known.difference(&old_now).collect();
    let appeared: Vec<_> = old_now.difference(&old_known).collect();
    assert!(
        lost.is_empty() && appeared.is_empty(),
        "cycle {cycle}: rows of earlier cycles changed: lost {lost:?}, appeared {appeared:?}"
    );
    for (t, list) in acks.iter().enumerate() {
        for a in list.iter().filter(|a| a.kind == Kind::Row) {
            let key = row_key(cycle, t, a.seq);
            assert!(
                rows_now.contains(&key),
                "cycle {cycle}: acknowledged row {key} (thread {t}, seq {}) is missing after \
                 the kill",
                a.seq
            );
        }
    }
    for key in &rows_now {
        let (c, t, seq) = parse_row_key(key).unwrap();
        if c != cycle {
            continue;
        }
        if seq > acks[t].len() as u64 {
            assert_eq!(
                seq,
                in_flight(t),
                "cycle {cycle}: row {key} was never written (thread {t} acknowledged {} writes)",
                acks[t].len()
            );
            known.landed_unacked += 1;
        }
    }

    for t in 0..WRITERS {
        let next = in_flight(t);
        // Latest rows: the last acknowledged overwrite, or the one in flight.
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
        if flying.is_some() && found == flying {
            known.landed_unacked += 1;
        }

        // Counters: each increment of this cycle continued from what the last check found,
        // and the stored value is the last acknowledged one or one more (the one in flight).
        let mut expect = known.counter[t];
        for a in acks[t].iter().filter(|a| a.kind == Kind::Inc) {
            expect += 1;
            assert_eq!(
                a.value, expect,
                "cycle {cycle}: thread {t}'s increment (seq {}) returned {}, expected {expect}",
                a.seq, a.value
            );
        }
        let found = counter_now[t];
        let may_be_one_more = kind_of(next) == Kind::Inc;
        assert!(
            found == expect || (may_be_one_more && found == expect + 1),
            "cycle {cycle}: thread {t}'s counter is {found}; last acknowledged {expect}, \
             increment in flight: {may_be_one_more}"
        );
        if found == expect + 1 {
            known.landed_unacked += 1;
        }
    }

    known.rows = rows_now;
    known.latest = latest_now;
    known.counter = counter_now;
}
