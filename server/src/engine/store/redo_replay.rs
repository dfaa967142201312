//! The region file's side of its redo log ([`super::redo`]): the sequence number every logged
//! batch stamps into the file in its own transaction ([`stamp`]), which says exactly which
//! records the file holds, and the replay at open of the records past it ([`recover`]).

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io;
use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, WriteTransaction};

use super::redo::log_paths;
use super::redo_record::{parse, Record};
use crate::engine::model::error::StorageError;
use crate::engine::model::keys::{family_def, family_table_name, REGION_TABLE, SIZE_KEY};

/// Where a region file stores the sequence number of the last logged batch it holds.
pub(crate) const REDO_SEQ_KEY: &str = "redo_seq";

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
    use std::sync::Arc;

    use super::super::redo::tests::{key, put};
    use super::super::redo::{log_path, log_paths, Change, RedoLog, GROW};
    use super::*;
    use crate::engine::model::keys;

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
