//! The kill -9 workload shared by `crash.rs` (durable writes) and `async_durability.rs`
//! (`ASYNC_WAL` writes and a redo log): a child process (the test binary, re-executed) writes
//! with several threads and acknowledges each write on stdout; the parent kills it with
//! SIGKILL, reopens the data directory and checks that every acknowledged write survived and
//! that nothing is torn or invented. Each test says what differs in a `Workload`.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use redbase::engine::*;

pub const FAMILY: &[u8] = b"f";
/// Columns every row mutation writes, all with the same value.
pub const COLUMNS: [&[u8]; 3] = [b"a", b"b", b"c"];
/// The two counter columns every increment bumps together.
pub const COUNTERS: [&[u8]; 2] = [b"x", b"y"];
pub const ACK: &str = "@ACK ";
pub const ERR: &str = "@ERR ";

/// What one test's writers do.
#[derive(Clone, Copy)]
pub struct Workload {
    pub table: &'static str,
    /// Writer threads in the child.
    pub writers: usize,
    /// Bytes per column of a fresh row.
    pub payload: usize,
    /// The durability of a writer's `seq`-th write.
    pub durability: fn(u64) -> Durability,
}

/// What a writer thread does with its `seq`-th write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A fresh row (named by cycle, thread and seq) with three equal columns.
    Row,
    /// Overwrites the thread's "latest" row: three equal columns naming (cycle, seq).
    Latest,
    /// Increments the thread's two counter columns by one in one call.
    Inc,
}

pub fn kind_of(seq: u64) -> Kind {
    match seq % 5 {
        0 => Kind::Inc,
        1 => Kind::Latest,
        _ => Kind::Row,
    }
}

pub fn row_key(cycle: u32, thread: usize, seq: u64) -> String {
    // The leading digit spreads rows over the pre-split regions.
    let lead = (seq as usize * 3 + thread) % 10;
    format!("{lead}{cycle:03}.{thread}.{seq:06}")
}

/// Parses a fresh row's key back into (cycle, thread, seq).
pub fn parse_row_key(key: &str) -> Option<(u32, usize, u64)> {
    let mut parts = key.get(1..)?.split('.');
    let cycle = parts.next()?.parse().ok()?;
    let thread = parts.next()?.parse().ok()?;
    let seq = parts.next()?.parse().ok()?;
    if parts.next().is_some() || row_key(cycle, thread, seq) != key {
        return None;
    }
    Some((cycle, thread, seq))
}

pub fn row_value(payload: usize, cycle: u32, thread: usize, seq: u64) -> Vec<u8> {
    let stamp = format!("{cycle}/{thread}/{seq};");
    stamp.bytes().cycle().take(payload).collect()
}

pub fn latest_key(thread: usize) -> String {
    format!("{}~latest.{thread}", (thread * 3) % 10)
}

pub fn counter_key(thread: usize) -> String {
    format!("{}~counter.{thread}", (thread * 3 + 5) % 10)
}

pub fn latest_value(cycle: u32, seq: u64) -> Vec<u8> {
    format!("{cycle}/{seq}").into_bytes()
}

pub fn parse_latest(v: &[u8]) -> Option<(u32, u64)> {
    let s = std::str::from_utf8(v).ok()?;
    let (c, q) = s.split_once('/')?;
    Some((c.parse().ok()?, q.parse().ok()?))
}

pub fn descriptor(table: &str) -> TableDescriptor {
    TableDescriptor::new(TableName::parse(table).unwrap())
        .with_family(FamilyDescriptor::new(FAMILY).max_versions(1))
}

/// One line to the parent, written and flushed whole under the stdout lock.
pub fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    if out.write_all(line.as_bytes()).is_err() || out.flush().is_err() {
        // The parent is gone: nobody is listening any more.
        std::process::exit(4);
    }
}

/// In the child: never outlive a parent that failed to kill us.
pub fn exit_after_two_minutes() {
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(120));
        std::process::exit(3);
    });
}

/// In the child: runs the writer threads until killed.
pub fn run_writers(w: Workload, engine: &Engine, cycle: u32) -> ! {
    let writers: Vec<_> = (0..w.writers)
        .map(|t| {
            let engine = engine.clone();
            std::thread::spawn(move || writer(w, &engine, cycle, t))
        })
        .collect();
    for h in writers {
        let _ = h.join();
    }
    // Writers only stop on an error, which they have reported.
    std::process::exit(2);
}

fn writer(w: Workload, engine: &Engine, cycle: u32, t: usize) {
    for seq in 1u64.. {
        let durability = (w.durability)(seq);
        let result = match kind_of(seq) {
            Kind::Row | Kind::Latest => {
                let (key, value, what) = if kind_of(seq) == Kind::Row {
                    (
                        row_key(cycle, t, seq),
                        row_value(w.payload, cycle, t, seq),
                        "row",
                    )
                } else {
                    (latest_key(t), latest_value(cycle, seq), "latest")
                };
                let mut m = RowMutation::new(key.as_bytes());
                for c in COLUMNS {
                    m = m.with(Op::put(FAMILY, c, &value));
                }
                m.durability = durability;
                engine
                    .mutate_row(w.table, m)
                    .map(|()| format!("{ACK}{t} {seq} {what} -\n"))
                    .map_err(|e| e.to_string())
            }
            Kind::Inc => {
                let cols = COUNTERS
                    .iter()
                    .map(|q| (FAMILY.to_vec(), q.to_vec(), 1i64))
                    .collect();
                engine
                    .increment(w.table, counter_key(t).as_bytes(), cols, None, durability)
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
                            [Some(x), Some(y)] if x == y && cells.len() == COUNTERS.len() => {
                                Ok(format!("{ACK}{t} {seq} inc {x}\n"))
                            }
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

/// Kills the child if the parent panics before it does.
struct Guard(std::process::Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A child process (this test binary, re-executed to run only `test`), with its stdout lines
/// as they come and its stderr.
pub struct Child {
    child: Guard,
    rx: mpsc::Receiver<String>,
    err: std::thread::JoinHandle<String>,
    /// The stdout lines received so far.
    pub lines: Vec<String>,
}

impl Child {
    pub fn spawn(test: &str, env: &[(&str, &OsStr)]) -> Child {
        let exe = std::env::current_exe().unwrap();
        let mut cmd = Command::new(exe);
        cmd.args(["--exact", test, "--nocapture", "--test-threads=1"]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.env_remove("RUST_LOG")
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
        Child {
            child,
            rx,
            err,
            lines: Vec::new(),
        }
    }

    /// Waits up to `timeout` for a stdout line that `pred` accepts (the test harness prints
    /// its own text first, some on the same line).
    pub fn wait_for(
        &mut self,
        timeout: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> Result<(), mpsc::RecvTimeoutError> {
        let deadline = Instant::now() + timeout;
        while !self.lines.iter().any(|l| pred(l)) {
            let l = self
                .rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))?;
            self.lines.push(l);
        }
        Ok(())
    }

    /// Kills the child, however it is doing; returns all its stdout lines and its stderr.
    pub fn abandon(self) -> (Vec<String>, String) {
        let Child {
            child,
            rx,
            err,
            mut lines,
        } = self;
        drop(child);
        lines.extend(rx.iter());
        (lines, err.join().unwrap())
    }

    /// Kills the child with SIGKILL and checks that the kill is what ended it; returns all
    /// its stdout lines and its stderr.
    pub fn kill(mut self, what: &str) -> (Vec<String>, String) {
        self.child.0.kill().expect("kill child");
        let status = self.child.0.wait().expect("wait child");
        let (lines, err) = self.abandon();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            status.signal(),
            Some(9),
            "{what}: child ended by itself ({status:?})\nstdout:\n{}\nstderr:\n{err}",
            lines.join("\n")
        );
        (lines, err)
    }
}

/// Asserts that no write of the child failed.
pub fn assert_no_errors(cycle: u32, lines: &[String], stderr: &str) {
    let errors: Vec<&String> = lines.iter().filter(|l| l.contains(ERR)).collect();
    assert!(
        errors.is_empty(),
        "cycle {cycle}: the child's writes failed: {errors:?}\nstderr:\n{stderr}"
    );
}

/// One acknowledged write.
#[derive(Debug, Clone, Copy)]
pub struct Ack {
    pub seq: u64,
    pub kind: Kind,
    /// The counter value an increment returned.
    pub value: i64,
}

/// What the parent knows the table holds, carried from one cycle's check to the next.
pub struct Known {
    pub table_created: bool,
    /// Every fresh row found so far (they are never rewritten or deleted).
    pub rows: BTreeSet<String>,
    /// Each thread's "latest" row as last found: (cycle, seq).
    pub latest: Vec<Option<(u32, u64)>>,
    /// Each thread's counter as last found.
    pub counter: Vec<i64>,
    pub acked: usize,
    pub landed_unacked: usize,
}

impl Known {
    pub fn new(w: Workload) -> Known {
        Known {
            table_created: false,
            rows: BTreeSet::new(),
            latest: vec![None; w.writers],
            counter: vec![0; w.writers],
            acked: 0,
            landed_unacked: 0,
        }
    }
}

/// Each thread's acknowledgements, in order; they must number 1, 2, 3, ... per thread.
pub fn parse_acks(w: Workload, cycle: u32, lines: &[String]) -> Vec<Vec<Ack>> {
    let mut acks: Vec<Vec<Ack>> = vec![Vec::new(); w.writers];
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

/// Every row of the table: key to (qualifier to value).
pub type Rows = BTreeMap<String, BTreeMap<Vec<u8>, Vec<u8>>>;

/// After a kill: reopens the data directory with `config`, reads the whole table back, runs
/// the test's own checks (`on_engine`, with the engine still open) and checks the contents
/// against the acknowledgements and what the previous cycles found.
pub fn check(
    w: Workload,
    dir: &Path,
    config: EngineConfig,
    cycle: u32,
    acks: &[Vec<Ack>],
    known: &mut Known,
    on_engine: impl FnOnce(&Engine, &Rows),
) {
    let engine = Engine::open(dir, config)
        .unwrap_or_else(|e| panic!("cycle {cycle}: reopen after the kill failed: {e}"));
    assert!(
        engine.offline_tables().is_empty(),
        "cycle {cycle}: tables offline after the kill: {:?}",
        engine.offline_tables()
    );
    let n_acked: usize = acks.iter().map(Vec::len).sum();
    known.acked += n_acked;
    if !engine.table_exists(w.table) {
        assert!(
            !known.table_created && n_acked == 0,
            "cycle {cycle}: the table vanished"
        );
        engine.close();
        return;
    }
    known.table_created = true;

    // Read everything back.
    let mut table: Rows = BTreeMap::new();
    let mut last: Option<Vec<u8>> = None;
    for r in engine.scan(w.table, Scan::new()).unwrap() {
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
    on_engine(&engine, &table);
    engine.close();
    drop(engine);
    check_rows(w, cycle, acks, known, &table);
}

fn check_rows(w: Workload, cycle: u32, acks: &[Vec<Ack>], known: &mut Known, table: &Rows) {
    let in_flight = |t: usize| acks[t].len() as u64 + 1;
    let mut rows_now = BTreeSet::new();
    let mut latest_now: Vec<Option<(u32, u64)>> = vec![None; w.writers];
    let mut counter_now = vec![0i64; w.writers];
    for (key, cols) in table {
        let (t, what) = match (0..w.writers).find(|t| *key == latest_key(*t)) {
            Some(t) => (t, Kind::Latest),
            None => match (0..w.writers).find(|t| *key == counter_key(*t)) {
                Some(t) => (t, Kind::Inc),
                None => (usize::MAX, Kind::Row),
            },
        };
        match what {
            Kind::Row => {
                let (c, t, seq) = parse_row_key(key)
                    .unwrap_or_else(|| panic!("cycle {cycle}: unexpected row {key:?}"));
                assert!(
                    c <= cycle && t < w.writers && kind_of(seq) == Kind::Row,
                    "cycle {cycle}: bogus row {key}"
                );
                let want = row_value(w.payload, c, t, seq);
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
    let mut lost = Vec::new();
    for (t, list) in acks.iter().enumerate() {
        for a in list.iter().filter(|a| a.kind == Kind::Row) {
            let key = row_key(cycle, t, a.seq);
            if !rows_now.contains(&key) {
                lost.push(format!("{key} (thread {t}, seq {})", a.seq));
            }
        }
    }
    assert!(
        lost.is_empty(),
        "cycle {cycle}: {} acknowledged rows missing after the kill (of {}), e.g. {:?}",
        lost.len(),
        acks.iter()
            .flatten()
            .filter(|a| a.kind == Kind::Row)
            .count(),
        &lost[..lost.len().min(5)]
    );
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

    for t in 0..w.writers {
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
                "cycle {cycle}: thread {t}'s increment (seq {}) returned {}, expected {expect} \
                 (it continued from a lost value)",
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
