//! A region's redo log: the write-ahead log that makes its writes durable (synced there) or
//! crash-safe (`ASYNC_WAL`, `SKIP_WAL`: written there, not synced).
//!
//! Every batch commits redb with `Durability::None`, which redb rolls back when the process dies
//! before the file's next durable commit. So before redb commits a batch, the exact physical
//! changes it makes to the region file are written to `<region file>.log` with one write(2);
//! a durable batch is then synced (fdatasync) there. Only after the commit is the batch
//! acknowledged. A write(2) that returned is in the OS page cache and outlives the process; a
//! synced one outlives a power loss. One sync of a log block costs less than a durable redb
//! commit, which syncs every page the commit rewrote. Logging before the commit keeps readers
//! from seeing a batch a crash could take back; a batch whose commit fails is cut out.
//! Opening the region replays the log's records that the file does not hold yet, commits
//! durably and empties the log.
//!
//! The log file is reused, not regrown: it is extended [`GROW`] bytes of zeros at a time, and
//! after a durable commit of the region its next records overwrite it from the start. A sync
//! then writes one block the file already has, with no change of the file's size to make
//! durable (on the test machine: 125 µs against 197 µs for a sync of an appended block). The
//! records of one run from the start (a *generation*) all carry its first record's number,
//! `base`: replay reads records while they share the first one's base and their numbers grow,
//! so the records an older generation left after the current one's end, and a torn overwrite
//! at its start, are never taken for current ones. A region idle for a whole flush interval
//! gives the blocks back (the file is cut to nothing), as does closing.
//!
//! Which records the file holds is exact, not guessed: every logged batch also writes its
//! record's sequence number under [`REDO_SEQ_KEY`](super::redo_replay::REDO_SEQ_KEY) in the same transaction. A durable commit
//! persists every earlier non-durable one with its number, so after any crash the file holds
//! precisely the records numbered up to its stored number, and replay takes the rest, in order.
//! That makes replay idempotent and safe when a crash lands between a durable commit and the
//! log's truncation (the records left over are skipped).
//!
//! The file catches up with the log in the background ([`crate::engine::regions::region::flush_loop`]): every
//! [`crate::engine::EngineConfig::async_flush`] a region with commits since its last durable
//! one *rolls* its log ([`RedoLog::roll`], the only moment its writers are held): records go
//! to the log's other file from then on. A durable commit of the region without the gate then
//! makes the file hold every record of the file left behind, which is *retired*
//! ([`RedoLog::retire`]); replay reads both files, in number order. Any durable commit of the
//! file with the gate held (close, the start of a split or major compaction) empties both, and
//! a log that passes [`MAX_LOG_BYTES`] is flushed so at once. For `ASYNC_WAL` writes that
//! interval, plus the flush's own commit, is the window a power loss can take.
//!
//! The records' format, and how replay tells the current generation from what an older one
//! left, is in [`super::redo_record`]; the sequence number a region file keeps, and the replay
//! at open, in [`super::redo_replay`]. This file holds the log's writing side: appending,
//! syncing, rolling and retiring its two files.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::faults::StorageFaults;
pub(crate) use super::redo_record::Change;
use super::redo_record::{encode, HEADER, MAGIC};

/// A log longer than this is flushed (durable commit, log emptied) before the batch that
/// grew it is acknowledged, so replay at open stays short.
pub(crate) const MAX_LOG_BYTES: u64 = 64 * 1024 * 1024;
/// Where the first record starts.
const START: u64 = MAGIC.len() as u64;
/// A log file grows by this many bytes of zeros at a time, so most syncs overwrite blocks the
/// file already has.
pub(crate) const GROW: u64 = 64 * 1024;

/// Log files kept open between batches, over the engine; a region beyond them opens its log
/// for each batch (file descriptors stay bounded with thousands of regions).
pub(crate) const MAX_OPEN_LOGS: usize = 256;

/// The engine's counts over every region's log.
#[derive(Debug, Default)]
pub(crate) struct LogCounters {
    /// fdatasync calls for durable batches.
    pub syncs: AtomicU64,
    /// Log files held open between batches (at most [`MAX_OPEN_LOGS`]).
    pub open: AtomicUsize,
    /// Bytes the logs' files take on disk, as written by them (blocks kept for reuse included).
    pub bytes: AtomicU64,
}

/// The redo log's first file, which belongs to a region file.
#[cfg(test)]
pub(crate) fn log_path(region: &Path) -> PathBuf {
    log_paths(region)[0].clone()
}

/// Both files of a region file's redo log ([`RedoLog`]).
pub(crate) fn log_paths(region: &Path) -> [PathBuf; 2] {
    [".log", ".log2"].map(|ext| {
        let mut s = region.as_os_str().to_os_string();
        s.push(ext);
        PathBuf::from(s)
    })
}

/// Deletes a region file's log, if any (the region file is gone or brand new).
pub(crate) fn remove_log(region: &Path) {
    for p in log_paths(region) {
        let _ = std::fs::remove_file(p);
    }
}

/// A region's open log; its writers hold the region's write gate.
///
/// The log is two files, `<region>.log` and `<region>.log2`; records go to the *active* one.
/// A flush may *roll* the log (with the gate held, a moment): the other file becomes active,
/// and the one it leaves holds every record up to the roll. The flush then makes the region
/// file durable without holding writers, and *retires* the file it left: its records are
/// obsolete. Until then, replay reads both files and applies their records in number order.
pub(crate) struct RedoLog {
    paths: [PathBuf; 2],
    state: Mutex<LogState>,
    /// The engine's counts ([`super::recovery::Health::logs`]).
    counters: Arc<LogCounters>,
    /// The tests' full-disk switch, which the log obeys as the region file does.
    faults: Option<StorageFaults>,
}

/// One of a log's two files.
#[derive(Default)]
struct LogFile {
    /// Opened at the first record.
    file: Option<File>,
    /// Bytes of the current generation's records (after [`START`]).
    len: u64,
    /// The file's length as written by this log (0: empty or absent, the magic comes first).
    written: u64,
    /// The current generation's first sequence number.
    base: u64,
    /// Records were written since the file's last sync.
    unsynced: bool,
}

struct LogState {
    files: [LogFile; 2],
    /// The file records go to.
    active: usize,
    /// The other file holds records the region file may not hold durably yet: the roll, not
    /// retired yet, that left it, named by the last number it holds.
    rolled: Option<u64>,
    /// The last sequence number handed out.
    seq: u64,
    /// Non-durable commits since the last durable one.
    pending: bool,
}

impl LogState {
    fn other(&self) -> usize {
        1 - self.active
    }
}

impl RedoLog {
    /// The log of `region`, whose file holds the records up to `seq` (see [`recover`](super::redo_replay::recover)).
    pub fn new(region: &Path, seq: u64, counters: Arc<LogCounters>) -> RedoLog {
        RedoLog {
            paths: log_paths(region),
            state: Mutex::new(LogState {
                files: Default::default(),
                active: 0,
                rolled: None,
                seq,
                pending: false,
            }),
            counters,
            faults: None,
        }
    }

    pub fn with_faults(mut self, faults: Option<StorageFaults>) -> RedoLog {
        self.faults = faults;
        self
    }

    fn check_faults(&self) -> io::Result<()> {
        self.faults.as_ref().map_or(Ok(()), |f| f.check_log())
    }

    fn lock(&self) -> MutexGuard<'_, LogState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The number for the next logged batch.
    pub fn next_seq(&self) -> u64 {
        let mut s = self.lock();
        s.seq += 1;
        s.seq
    }

    /// Whether a durable commit would persist anything or empty the log.
    pub fn needs_flush(&self) -> bool {
        let s = self.lock();
        s.pending || s.files.iter().any(|f| f.len > 0)
    }

    /// Runs `op` on log file `which`: the one kept open, else one opened now (and kept while
    /// the engine holds fewer than [`MAX_OPEN_LOGS`]).
    fn with_file<T>(
        &self,
        s: &mut LogState,
        which: usize,
        op: impl FnOnce(&File) -> io::Result<T>,
    ) -> io::Result<T> {
        let lf = &mut s.files[which];
        if let Some(f) = lf.file.as_ref() {
            return op(f);
        }
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.paths[which])?;
        let out = op(&f);
        if self.counters.open.fetch_add(1, Ordering::AcqRel) < MAX_OPEN_LOGS {
            lf.file = Some(f);
        } else {
            self.counters.open.fetch_sub(1, Ordering::AcqRel);
        }
        out
    }

    /// Closes the files kept open, if any, giving their places back.
    fn release(&self, s: &mut LogState) {
        for lf in &mut s.files {
            if lf.file.take().is_some() {
                self.counters.open.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }

    /// Writes a batch's record after the active file's last one with one write(2), before it
    /// is committed; returns the active file's length.
    pub fn append(&self, seq: u64, size: u64, changes: &[Change]) -> io::Result<u64> {
        self.check_faults()?;
        let mut s = self.lock();
        let which = s.active;
        let lf = &s.files[which];
        let base = if lf.len == 0 { seq } else { lf.base };
        let rec = encode(seq, base, size, changes)?;
        let at = START + lf.len;
        let rec_len = rec.len() as u64;
        let end = at + rec_len;
        // Past the blocks already written: the magic first if the file is empty, then the
        // record and zeros up to the next GROW boundary, in the same write.
        let (from, buf) = if end <= lf.written {
            (at, rec)
        } else {
            let from = if lf.written == 0 { 0 } else { at };
            let mut buf = Vec::with_capacity((end.next_multiple_of(GROW) - from) as usize);
            if from == 0 {
                buf.extend_from_slice(&MAGIC);
                buf.resize((at - from) as usize, 0);
            }
            buf.extend_from_slice(&rec);
            buf.resize((end.next_multiple_of(GROW) - from) as usize, 0);
            (from, buf)
        };
        s.pending = true;
        self.with_file(&mut s, which, |f| {
            f.write_all_at(&buf, from).inspect_err(|_| {
                // Part of the record may be in the file: unmark it, or a crash could replay a
                // batch that was never committed. If that fails too, the caller's durable
                // fallback commit makes the record's number one the file already holds.
                let _ = f.write_all_at(&[0; HEADER], at);
            })
        })?;
        let lf = &mut s.files[which];
        let grown = (from + buf.len() as u64).saturating_sub(lf.written);
        lf.written += grown;
        self.counters.bytes.fetch_add(grown, Ordering::Relaxed);
        lf.base = base;
        lf.len += rec_len;
        lf.unsynced = true;
        Ok(lf.len)
    }

    /// Bytes in the active file.
    pub fn len(&self) -> u64 {
        let s = self.lock();
        s.files[s.active].len
    }

    /// Makes every record appended so far durable (fdatasync): a durable batch's one sync
    /// (two just after a roll that left unsynced records in the other file, which must not
    /// be lost while a later record survives).
    pub fn sync(&self) -> io::Result<()> {
        self.check_faults()?;
        let mut s = self.lock();
        let (active, other) = (s.active, s.other());
        if s.rolled.is_some() && s.files[other].unsynced {
            self.with_file(&mut s, other, |f| f.sync_data())?;
            s.files[other].unsynced = false;
        }
        if s.files[active].len == 0 {
            return Ok(());
        }
        self.with_file(&mut s, active, |f| f.sync_data())?;
        s.files[active].unsynced = false;
        self.counters.syncs.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Drops the records after `len` bytes of the active file (a batch that was logged, then
    /// not committed) by zeroing the header of the first of them, synced. A cut that fails
    /// leaves them for replay; the caller has reported the batch as failed, which a crash
    /// before the next durable commit could contradict (a double fault: logged).
    pub fn cut(&self, len: u64) {
        let mut s = self.lock();
        let which = s.active;
        if s.files[which].len <= len {
            return;
        }
        let at = START + len;
        match self.with_file(&mut s, which, |f| {
            f.write_all_at(&[0; HEADER], at)
                .and_then(|()| f.sync_data())
        }) {
            Ok(()) => s.files[which].len = len,
            Err(e) => {
                tracing::error!(log = %self.paths[which].display(), error = %e, "cannot cut a failed batch from the redo log")
            }
        }
    }

    /// After a durable commit of the region made with its writers held: nothing is pending
    /// and every record of both files is obsolete. The next record starts a new generation
    /// over them; no I/O is needed, since their numbers are all at or below the one the file
    /// now stores.
    pub fn durable(&self) {
        let mut s = self.lock();
        s.pending = false;
        s.rolled = None;
        for lf in &mut s.files {
            lf.len = 0;
            lf.unsynced = false;
        }
    }

    /// With the region's writers held: records go to the other file from now on. Returns
    /// the last number the file left holds (what [`RedoLog::retire`] takes), or None when
    /// there is nothing to roll (the active file is empty) or the last roll is not retired.
    pub fn roll(&self) -> Option<u64> {
        let mut s = self.lock();
        if s.rolled.is_some() || s.files[s.active].len == 0 {
            return None;
        }
        let other = s.other();
        // Its records are obsolete: a new generation starts over them.
        s.files[other].len = 0;
        s.files[other].unsynced = false;
        s.active = other;
        s.rolled = Some(s.seq);
        s.rolled
    }

    /// After a durable commit that holds every record up to `roll` (what [`RedoLog::roll`]
    /// returned): the file that roll left is obsolete. Nothing happens when that roll is no
    /// longer the one pending (a durable commit with the gate held made both files obsolete
    /// meanwhile, and another roll may have followed).
    pub fn retire(&self, roll: u64) {
        let mut s = self.lock();
        if s.rolled != Some(roll) {
            return;
        }
        let other = s.other();
        s.files[other].len = 0;
        s.files[other].unsynced = false;
        s.rolled = None;
        if s.files[s.active].len == 0 {
            s.pending = false;
        }
    }

    /// Gives the log's blocks back when it holds nothing (the region was idle for a flush
    /// interval, or closes): both files are cut to nothing and their descriptors closed.
    pub fn trim(&self) {
        let mut s = self.lock();
        if s.pending || s.rolled.is_some() || s.files.iter().any(|f| f.len > 0) {
            return;
        }
        for which in 0..2 {
            if s.files[which].written == 0 {
                continue;
            }
            // Never creates a file: a retired region's log may be gone already.
            let cut = match s.files[which].file.as_ref() {
                Some(f) => f.set_len(0),
                None => match OpenOptions::new().write(true).open(&self.paths[which]) {
                    Ok(f) => f.set_len(0),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                    Err(e) => Err(e),
                },
            };
            match cut {
                Ok(()) => self.forget_written(&mut s.files[which]),
                // Harmless: the blocks stay in use and the next trim tries again.
                Err(e) => {
                    tracing::warn!(log = %self.paths[which].display(), error = %e, "cannot shorten the redo log")
                }
            }
        }
        if s.files.iter().all(|f| f.written == 0) {
            self.release(&mut s);
        }
    }

    /// The file was cut to nothing: its bytes leave the engine's count.
    fn forget_written(&self, lf: &mut LogFile) {
        self.counters.bytes.fetch_sub(lf.written, Ordering::Relaxed);
        lf.written = 0;
    }

    /// After [`recover`](super::redo_replay::recover) replayed and emptied the log of a reopened file holding up to `seq`.
    pub fn reset(&self, seq: u64) {
        let mut s = self.lock();
        for lf in &mut s.files {
            lf.len = 0;
            lf.unsynced = false;
            self.forget_written(lf);
        }
        s.pending = false;
        s.rolled = None;
        s.seq = s.seq.max(seq);
    }
}

impl Drop for RedoLog {
    fn drop(&mut self) {
        let mut s = self.lock();
        self.release(&mut s);
        // A closed region's log is cut or deleted with its file; it stops counting either way.
        for lf in &mut s.files {
            self.counters.bytes.fetch_sub(lf.written, Ordering::Relaxed);
            lf.written = 0;
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::engine::model::cell::CellType;
    use crate::engine::model::keys::{self, KIND_COLUMN};

    /// A cell key of `row` in family "f", as the engine writes them.
    pub(in crate::engine::store) fn key(row: &str) -> Vec<u8> {
        keys::encode(row.as_bytes(), KIND_COLUMN, b"q", 1, CellType::Put)
    }

    pub(in crate::engine::store) fn put(log: &RedoLog, seq: u64, row: &str) -> u64 {
        let c = Change {
            family: b"f".to_vec(),
            key: key(row),
            value: Some(b"v".to_vec()),
        };
        log.append(seq, 0, &[c]).unwrap()
    }

    /// After a roll, the first durable batch syncs the file the roll left too when it holds
    /// unsynced (`ASYNC_WAL`) records: a power loss must never keep a later durable record
    /// and lose an earlier acknowledged one. Once both are synced, neither is again.
    #[test]
    fn a_durable_batch_after_a_roll_syncs_the_unsynced_file_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let region = dir.path().join("live.redb");
        let counters = Arc::new(LogCounters::default());
        let log = RedoLog::new(&region, 0, counters.clone());
        let next = |log: &RedoLog, seq: u64, row: &str| {
            assert_eq!(log.next_seq(), seq);
            put(log, seq, row);
        };
        let unsynced = |log: &RedoLog| -> [bool; 2] {
            let s = log.lock();
            [s.files[0].unsynced, s.files[1].unsynced]
        };
        next(&log, 1, "async1");
        next(&log, 2, "async2");
        assert_eq!(unsynced(&log), [true, false]);
        assert_eq!(log.roll(), Some(2));
        next(&log, 3, "durable3");
        assert_eq!(unsynced(&log), [true, true]);
        log.sync().unwrap();
        assert_eq!(
            unsynced(&log),
            [false, false],
            "the left file's async records are synced before the durable one is acknowledged"
        );
        next(&log, 4, "durable4");
        log.sync().unwrap();
        assert_eq!(unsynced(&log), [false, false]);
        assert_eq!(
            counters.syncs.load(Ordering::Relaxed),
            2,
            "one counted sync per durable batch"
        );
        // Without a roll pending the other file is left alone, synced or not.
        log.retire(2);
        assert_eq!(log.roll(), Some(4));
        next(&log, 5, "async5");
        log.retire(4);
        next(&log, 6, "async6");
        assert_eq!(unsynced(&log), [true, false]);
    }

    /// Cutting an idle log to nothing gives its blocks back and never creates a log that is
    /// gone (a retired region's, deleted with its file).
    #[test]
    fn trimming_gives_the_blocks_back_and_never_creates_a_log() {
        let dir = tempfile::tempdir().unwrap();
        let region = dir.path().join("r.redb");
        let log = RedoLog::new(&region, 0, Arc::default());
        put(&log, 1, "k1");
        log.trim();
        assert_eq!(
            std::fs::metadata(log_path(&region)).unwrap().len(),
            GROW,
            "not while it holds records"
        );
        log.durable();
        log.trim();
        assert_eq!(std::fs::metadata(log_path(&region)).unwrap().len(), 0);
        put(&log, 2, "k2");
        log.durable();
        {
            let mut s = log.lock();
            log.release(&mut s);
        }
        std::fs::remove_file(log_path(&region)).unwrap();
        log.trim();
        assert!(!log_path(&region).exists());
    }
}
