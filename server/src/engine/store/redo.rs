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
//! record's sequence number under [`REDO_SEQ_KEY`] in the same transaction. A durable commit
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
//! left, is in [`super::redo_record`].

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use redb::{Database, ReadableDatabase, ReadableTable, WriteTransaction};

use super::faults::StorageFaults;
pub(crate) use super::redo_record::Change;
use super::redo_record::{encode, parse, Record, HEADER, MAGIC};
use crate::engine::model::error::StorageError;
use crate::engine::model::keys::{family_def, family_table_name, REGION_TABLE, SIZE_KEY};

/// Where a region file stores the sequence number of the last logged batch it holds.
pub(crate) const REDO_SEQ_KEY: &str = "redo_seq";
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
    /// The log of `region`, whose file holds the records up to `seq` (see [`recover`]).
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

    /// After [`recover`] replayed and emptied the log of a reopened file holding up to `seq`.
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

/// Writes the batch's new size and its sequence number into `txn`; returns the new size.
pub(crate) fn stamp(
    txn: &mut WriteTransaction,
    path: &Path,
    delta: i64,
    seq: u64,
) -> Result<u64, StorageError> {
    let mut t = txn.open_table(REGION_TABLE).map_err(|e| err(path, e))?;
    let cur = t
        .get(SIZE_KEY)
        .map_err(|e| err(path, e))?
        .and_then(|v| v.value().try_into().ok().map(u64::from_be_bytes))
        .unwrap_or(0);
    let new = (cur as i64 + delta).max(0) as u64;
    if delta != 0 {
        t.insert(SIZE_KEY, new.to_be_bytes().as_slice())
            .map_err(|e| err(path, e))?;
    }
    t.insert(REDO_SEQ_KEY, seq.to_be_bytes().as_slice())
        .map_err(|e| err(path, e))?;
    Ok(new)
}

/// Replays the records of `region`'s log that its file does not hold, in one durable commit,
/// then empties the log. Returns the sequence number the file holds afterwards.
pub(crate) fn recover(db: &Database, region: &Path) -> Result<u64, StorageError> {
    let stored = stored_seq(db, region)?;
    let mut logs = Vec::new();
    for path in log_paths(region) {
        match std::fs::read(&path) {
            Ok(b) if !b.is_empty() => logs.push((path, b)),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(StorageError::new(&path, e)),
        }
    }
    if logs.is_empty() {
        return Ok(stored);
    }
    // Both files' records, in number order (a rolled log's older file holds the lower ones).
    let mut todo: Vec<Record<'_>> = logs
        .iter()
        .flat_map(|(_, bytes)| parse(bytes))
        .filter(|r| r.seq > stored)
        .collect();
    todo.sort_by_key(|r| r.seq);
    let mut last = stored;
    if let Some(final_rec) = todo.last() {
        let txn = db.begin_write().map_err(|e| err(region, e))?;
        {
            let mut tables = HashMap::new();
            for rec in &todo {
                for c in &rec.changes {
                    if !tables.contains_key(c.family) {
                        let name = family_table_name(c.family);
                        let t = txn
                            .open_table(family_def(&name))
                            .map_err(|e| err(region, e))?;
                        tables.insert(c.family, t);
                    }
                    let Some(t) = tables.get_mut(c.family) else {
                        continue;
                    };
                    match c.value {
                        Some(v) => t.insert(c.key, v).map(drop),
                        None => t.remove(c.key).map(drop),
                    }
                    .map_err(|e| err(region, e))?;
                }
            }
            let mut t = txn.open_table(REGION_TABLE).map_err(|e| err(region, e))?;
            t.insert(SIZE_KEY, final_rec.size.to_be_bytes().as_slice())
                .map_err(|e| err(region, e))?;
            t.insert(REDO_SEQ_KEY, final_rec.seq.to_be_bytes().as_slice())
                .map_err(|e| err(region, e))?;
        }
        txn.commit().map_err(|e| err(region, e))?;
        last = final_rec.seq;
        tracing::info!(
            region = %region.display(),
            records = todo.len(),
            "replayed acknowledged non-durable writes from the redo log"
        );
    }
    // Only now: until the replay is durable, the log is what holds these writes.
    for (path, _) in &logs {
        OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(0))
            .map_err(|e| StorageError::new(path, e))?;
    }
    Ok(last)
}

fn err(region: &Path, e: impl std::fmt::Display) -> StorageError {
    StorageError::new(region, e)
}

/// The sequence number stored in a region file (0 when none was ever logged).
fn stored_seq(db: &Database, region: &Path) -> Result<u64, StorageError> {
    let txn = db.begin_read().map_err(|e| err(region, e))?;
    let t = match txn.open_table(REGION_TABLE) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
        Err(e) => return Err(err(region, e)),
    };
    let v = t.get(REDO_SEQ_KEY).map_err(|e| err(region, e))?;
    Ok(
        v.and_then(|v| v.value().try_into().ok().map(u64::from_be_bytes))
            .unwrap_or(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::cell::CellType;
    use crate::engine::model::keys::{self, KIND_COLUMN};

    /// A cell key of `row` in family "f", as the engine writes them.
    fn key(row: &str) -> Vec<u8> {
        keys::encode(row.as_bytes(), KIND_COLUMN, b"q", 1, CellType::Put)
    }

    fn put(log: &RedoLog, seq: u64, row: &str) -> u64 {
        let c = Change {
            family: b"f".to_vec(),
            key: key(row),
            value: Some(b"v".to_vec()),
        };
        log.append(seq, 0, &[c]).unwrap()
    }

    /// A new region file that says it holds the records up to `stored` (and none of their
    /// cells).
    fn holding(region: &Path, stored: u64) -> Database {
        let db = Database::create(region).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(REGION_TABLE)
            .unwrap()
            .insert(REDO_SEQ_KEY, stored.to_be_bytes().as_slice())
            .unwrap();
        txn.commit().unwrap();
        db
    }

    /// A region file holding the records up to `stored` (and none of their cells), with `log`
    /// as its redo log; returns the rows the replay at open puts back.
    fn replayed(dir: &Path, name: &str, stored: u64, log: &[u8]) -> Vec<String> {
        let region = dir.join(name);
        let db = holding(&region, stored);
        std::fs::write(log_path(&region), log).unwrap();
        let last = recover(&db, &region).unwrap();
        assert_eq!(std::fs::metadata(log_path(&region)).unwrap().len(), 0);
        let txn = db.begin_read().unwrap();
        let name = family_table_name(b"f");
        let rows: Vec<String> = match txn.open_table(family_def(&name)) {
            Ok(t) => t
                .iter()
                .unwrap()
                .map(|e| String::from_utf8(keys::row_of(e.unwrap().0.value()).to_vec()).unwrap())
                .collect(),
            Err(_) => Vec::new(),
        };
        assert!(last >= stored);
        rows
    }

    /// After a durable commit the log's next records overwrite it from the start, in the same
    /// blocks. Replay takes exactly that generation: not the older records left after its end,
    /// and nothing of it when its first record never reached the disk (a torn overwrite)
    /// while a later one did, which only the shared base tells apart.
    #[test]
    fn a_reused_log_replays_its_current_generation_only() {
        let dir = tempfile::tempdir().unwrap();
        let region = dir.path().join("live.redb");
        let log = RedoLog::new(&region, 0, Arc::default());
        for (seq, row) in [(1, "a1"), (2, "a2"), (3, "a3")] {
            put(&log, seq, row);
        }
        let old = std::fs::read(log_path(&region)).unwrap();
        assert_eq!(
            old.len() as u64,
            GROW,
            "the log grows a block of zeros at a time"
        );
        let one = (old.len() - old.iter().rev().take_while(|b| **b == 0).count() - 8) / 3;
        // The file now holds the records up to 3 durably: a new generation overwrites them.
        log.durable();
        put(&log, 4, "b4");
        put(&log, 5, "b5");
        let new = std::fs::read(log_path(&region)).unwrap();
        assert_eq!(new.len(), old.len(), "the same blocks, overwritten");
        assert_ne!(new[8..8 + one], old[8..8 + one]);
        assert_eq!(
            new[8 + 2 * one..],
            old[8 + 2 * one..],
            "a3 is left after b5"
        );

        assert_eq!(replayed(dir.path(), "clean.redb", 3, &new), ["b4", "b5"]);
        assert_eq!(
            replayed(dir.path(), "none.redb", 5, &new),
            Vec::<String>::new()
        );
        // b4's write lost, b5's kept: b5 must not replay on top of a1..a3 without b4.
        let mut torn = new.clone();
        torn[8..8 + one].copy_from_slice(&old[8..8 + one]);
        assert_eq!(
            replayed(dir.path(), "torn.redb", 3, &torn),
            Vec::<String>::new()
        );
        // The records before a lost durable commit still replay (all of the older generation).
        assert_eq!(
            replayed(dir.path(), "old.redb", 0, &old),
            ["a1", "a2", "a3"]
        );
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

    /// A rolled log: records up to the roll in one file, later ones in the other. Replay
    /// reads both and applies their records in number order, whichever file holds them; once
    /// retired, the older file is overwritten by the generation after the next roll.
    #[test]
    fn a_rolled_log_replays_both_files_in_number_order() {
        let dir = tempfile::tempdir().unwrap();
        let region = dir.path().join("live.redb");
        let log = RedoLog::new(&region, 0, Arc::default());
        let write = |seq: u64| {
            assert_eq!(log.next_seq(), seq);
            let c = Change {
                family: b"f".to_vec(),
                key: key("x"),
                value: Some(format!("v{seq}").into_bytes()),
            };
            log.append(seq, 0, &[c]).unwrap();
        };
        let value_after_replay = |name: &str, stored: u64| -> Option<String> {
            let target = dir.path().join(name);
            let db = holding(&target, stored);
            for (from, to) in log_paths(&region).iter().zip(log_paths(&target)) {
                if from.exists() {
                    std::fs::copy(from, to).unwrap();
                }
            }
            recover(&db, &target).unwrap();
            let txn = db.begin_read().unwrap();
            let t = txn.open_table(family_def(&family_table_name(b"f"))).ok()?;
            let v = t.get(key("x").as_slice()).unwrap()?;
            Some(String::from_utf8(v.value().to_vec()).unwrap())
        };
        for seq in 1..=3 {
            write(seq);
        }
        assert_eq!(log.roll(), Some(3));
        assert_eq!(log.roll(), None, "one roll at a time, until it is retired");
        write(4);
        write(5);
        assert!(
            log_paths(&region)[1].exists(),
            "records 4 and 5 went to the second file"
        );
        // The second file's records come after the first file's: v5 wins, not v3.
        assert_eq!(value_after_replay("both.redb", 0).as_deref(), Some("v5"));
        assert_eq!(value_after_replay("second.redb", 3).as_deref(), Some("v5"));
        // The file holds everything up to 3 durably: the first file is retired, and the next
        // roll writes a new generation over it.
        log.retire(2);
        assert_eq!(log.roll(), None, "retiring another roll retires nothing");
        log.retire(3);
        assert_eq!(log.roll(), Some(5));
        write(6);
        assert_eq!(value_after_replay("third.redb", 5).as_deref(), Some("v6"));
        assert_eq!(value_after_replay("after.redb", 6), None);
    }

    /// A batch logged and then not committed is cut: a crash right after the cut, or after
    /// the next record took its place, never replays it.
    #[test]
    fn a_cut_record_is_never_replayed() {
        let dir = tempfile::tempdir().unwrap();
        let region = dir.path().join("live.redb");
        let log = RedoLog::new(&region, 0, Arc::default());
        let before = put(&log, 1, "k1");
        put(&log, 2, "k2-failed-and-long");
        log.cut(before);
        let after_cut = std::fs::read(log_path(&region)).unwrap();
        assert_eq!(replayed(dir.path(), "cut.redb", 0, &after_cut), ["k1"]);
        put(&log, 3, "k3");
        let later = std::fs::read(log_path(&region)).unwrap();
        assert_eq!(replayed(dir.path(), "later.redb", 0, &later), ["k1", "k3"]);
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

    /// A log written before logs were reused (no magic, no base) still replays at open.
    #[test]
    fn a_log_from_before_reuse_still_replays() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = Vec::new();
        for (seq, row) in [(1u64, "o1"), (2, "o2")] {
            let k = key(row);
            let mut body = Vec::new();
            body.extend(seq.to_le_bytes());
            body.extend(7u64.to_le_bytes());
            body.extend(1u32.to_le_bytes());
            body.push(1);
            for part in [&b"f"[..], &k, b"v"] {
                body.extend((part.len() as u32).to_le_bytes());
                body.extend(part);
            }
            log.extend((body.len() as u32).to_le_bytes());
            log.extend(super::super::redo_record::crc32(&body).to_le_bytes());
            log.extend(body);
        }
        assert_eq!(replayed(dir.path(), "v1.redb", 1, &log), ["o2"]);
    }
}
