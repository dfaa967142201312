//! Rewriting a region into new files: a split writes two halves, a major compaction writes one
//! purged copy. Reads go on against the old file throughout; writes go on during the copy and
//! are recorded. Rounds of catch-up replay the recorded keys while writes go on, each round
//! replaying what the one before let through, so that writes pause only for the last few keys
//! and the catalog switch: a pause that does not grow with the region's size ([`catch_up`]
//! holds writers back in short slices when they outpace the rounds).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use redb::{ReadableTable, TableHandle, WriteTransaction};

use super::catch_up::{catch_up, replay, route, take_recorded, CatchUp, Held, RecordedKey, Target};
use super::compaction::{keep_flags, CompactStats};
use super::region::Region;
use crate::engine::model::error::StorageError;
use crate::engine::model::keys::{
    self, family_def, family_table_name, CellKey, INFO_KEY, REGION_TABLE, SIZE_KEY,
};
use crate::engine::model::region_info::RegionMeta;
use crate::engine::model::schema::TableDescriptor;
use crate::engine::reads::read::RawEntry;

/// What a rewrite produced.
pub(crate) struct Rewritten {
    pub regions: Vec<Arc<Region>>,
    /// The longest time writes to the old region were held at once: the switch, or a slice of
    /// throttled catch-up if one was longer.
    pub pause: Duration,
    /// Keys replayed while writes were paused for the switch.
    pub paused_keys: usize,
    /// How catch-up went (throttled slices, if writers outpaced it).
    pub catch_up: CatchUp,
    pub stats: CompactStats,
}

pub(crate) use super::region::RegionHooks;
pub(crate) use crate::engine::writes::commit::OnLarge;

/// Copies `parent` into `targets` (which must cover its range, sorted by start), purging as a
/// major compaction when `purge` is given, then calls `install` with writes paused. The parent
/// is retired only if `install` succeeds.
pub(crate) fn rewrite(
    parent: &Region,
    dir: &Path,
    targets: Vec<RegionMeta>,
    purge: Option<(&TableDescriptor, i64)>,
    hooks: RegionHooks,
    install: impl FnOnce(&[Arc<Region>]) -> Result<(), StorageError>,
) -> Result<Rewritten, StorageError> {
    let _maintenance = parent.maintenance.lock().unwrap_or_else(|p| p.into_inner());
    // Start recording and take the snapshot together, between two batches: every batch then
    // either is in the snapshot or has its keys recorded. (A batch that began before recording
    // and committed after the snapshot would otherwise be lost.)
    // Most of the flush below, without holding the parent's writers.
    parent.file.drain_in_background(true)?;
    let snap = {
        let gate = parent.gate.lock().unwrap_or_else(|p| p.into_inner());
        // The parent's non-durable writes become durable first and its redo log empties: the
        // new files are written durably and start without a log, and nothing the parent's log
        // held is left to it alone.
        parent.file.flush(&gate)?;
        parent.recording.start();
        parent.file.begin_read()
    };
    let result = match snap {
        Ok(snap) => copy_and_install(parent, snap, dir, targets, purge, hooks, install),
        Err(e) => Err(e),
    };
    parent.recording.stop();
    result
}

fn copy_and_install(
    parent: &Region,
    snap: redb::ReadTransaction,
    dir: &Path,
    metas: Vec<RegionMeta>,
    purge: Option<(&TableDescriptor, i64)>,
    hooks: RegionHooks,
    install: impl FnOnce(&[Arc<Region>]) -> Result<(), StorageError>,
) -> Result<Rewritten, StorageError> {
    let file_bytes_before = std::fs::metadata(&parent.path)
        .map(|m| m.len())
        .unwrap_or(0);
    let mut targets = open_targets(dir, metas, &hooks)?;

    // Phase 1: copy a snapshot while writes go on.
    let mut backlog = BTreeSet::new();
    let copied = copy_snapshot(
        parent,
        &snap,
        &mut targets,
        purge,
        &hooks.stop,
        &mut backlog,
    );
    let (entries_before, drained) = match copied {
        Ok(n) => n,
        Err(e) => {
            cleanup(dir, targets);
            return Err(e);
        }
    };

    // Phase 2: catch up with the writes made meanwhile, writes still going on.
    let (mut caught_up, held) = match catch_up(
        parent,
        &mut targets,
        backlog,
        hooks.catch_up_free_rounds,
        &hooks.stop,
    ) {
        Ok(c) => c,
        Err(e) => {
            cleanup(dir, targets);
            return Err(e);
        }
    };

    caught_up.drained = drained;

    // Phase 3: pause writes, replay the last keys, switch.
    let stats = CompactStats {
        regions: 1,
        entries_before,
        file_bytes_before,
        ..CompactStats::default()
    };
    pause_and_switch(
        parent,
        dir,
        targets,
        (caught_up, held),
        hooks,
        install,
        stats,
    )
}

/// Creates the targets' new files (`open_db` deletes a stale log of a new file).
fn open_targets(
    dir: &Path,
    metas: Vec<RegionMeta>,
    hooks: &RegionHooks,
) -> Result<Vec<Target>, StorageError> {
    let mut targets = Vec::with_capacity(metas.len());
    for meta in metas {
        let path = dir.join(&meta.file);
        let _ = std::fs::remove_file(&path);
        let file = hooks.open_db(&path, true)?;
        targets.push(Target {
            meta,
            file,
            size: 0,
            entries: 0,
        });
    }
    Ok(targets)
}

/// Closes and deletes the targets' files after a failed rewrite.
fn cleanup(dir: &Path, targets: Vec<Target>) {
    for t in targets {
        let path = dir.join(&t.meta.file);
        drop(t.file);
        let _ = std::fs::remove_file(path);
    }
}

/// Bytes copied into the targets between two commits. A write transaction keeps the pages it
/// dirties in memory until it commits, so one transaction per copy would hold a region's size
/// in memory; this bounds a rewrite's memory whatever the region's size.
const COPY_COMMIT_BYTES: u64 = 32 << 20;
/// A copy commits early, to drain the record of keys written meanwhile, when the record fills
/// (looked at every [`DRAIN_CHECK_ROWS`] rows) once this much is copied since the last commit.
const DRAIN_MIN_BYTES: u64 = 4 << 20;
const DRAIN_CHECK_ROWS: u64 = 1024;

/// Phase 1: copies the snapshot's families into the targets (each row to the target whose
/// range holds it), purging when `purge` is given, and writes each target's identity and size.
/// Between commits it replays the keys written meanwhile that the copy has passed or will never
/// reach, leaving the others in `backlog`. Returns how many entries the snapshot held and how
/// many keys it replayed. Gives up when `stop` is set (the engine closes).
fn copy_snapshot(
    parent: &Region,
    snap: &redb::ReadTransaction,
    targets: &mut [Target],
    purge: Option<(&TableDescriptor, i64)>,
    stop: &AtomicBool,
    backlog: &mut BTreeSet<RecordedKey>,
) -> Result<(u64, usize), StorageError> {
    let mut progress = CopyProgress::new(snap);
    let mut entries_before = 0u64;
    if stop.load(Ordering::Acquire) {
        return Err(parent.storage_err("rewrite abandoned: the engine is closing"));
    }
    let mut txns = begin(parent, targets)?;
    let names: Vec<String> = snap
        .list_tables()
        .map_err(|e| parent.storage_err(e))?
        .map(|h| h.name().to_string())
        .filter(|n| n.starts_with("cf:"))
        .collect();
    for name in &names {
        let family = hex_family(name);
        let fam_desc = purge.and_then(|(d, _)| d.family(&family));
        if purge.is_some() && fam_desc.is_none() {
            // A family the table no longer has: a major compaction drops its leftovers.
            continue;
        }
        let keep = |row: &[RawEntry]| match (fam_desc, purge) {
            (Some(fd), Some((_, now))) => keep_flags(fd, row, now, true),
            _ => vec![true; row.len()],
        };
        let mut resume: Option<Vec<u8>> = None;
        loop {
            let (n, next) = copy_family(parent, snap, name, &txns, targets, &keep, resume)?;
            entries_before += n;
            let Some(next) = next else { break };
            for txn in txns {
                txn.commit().map_err(|e| parent.storage_err(e))?;
            }
            if stop.load(Ordering::Acquire) {
                return Err(parent.storage_err("rewrite abandoned: the engine is closing"));
            }
            progress.at = Some((name.clone(), next.clone()));
            progress.drained += drain(parent, targets, &mut progress, backlog)?;
            txns = begin(parent, targets)?;
            resume = Some(next);
        }
        progress.done.insert(name.clone());
        progress.at = None;
    }
    for (txn, t) in txns.into_iter().zip(targets.iter()) {
        {
            let mut r = txn
                .open_table(REGION_TABLE)
                .map_err(|e| parent.storage_err(e))?;
            let info = serde_json::to_vec(&t.meta).map_err(|e| parent.storage_err(e))?;
            r.insert(INFO_KEY, info.as_slice())
                .map_err(|e| parent.storage_err(e))?;
            r.insert(SIZE_KEY, t.size.to_be_bytes().as_slice())
                .map_err(|e| parent.storage_err(e))?;
        }
        txn.commit().map_err(|e| parent.storage_err(e))?;
    }
    Ok((entries_before, progress.drained))
}

/// How far a copy has got, to tell which recorded keys it can no longer overwrite.
struct CopyProgress<'s> {
    snap: &'s redb::ReadTransaction,
    /// Family tables copied whole.
    done: HashSet<String>,
    /// The family table being copied and the key it resumes from: keys before it are copied.
    at: Option<(String, Vec<u8>)>,
    /// Each family table's last key in the snapshot (None: empty or absent).
    last: HashMap<String, Option<Vec<u8>>>,
    /// Keys replayed so far.
    drained: usize,
}

impl<'s> CopyProgress<'s> {
    fn new(snap: &'s redb::ReadTransaction) -> Self {
        CopyProgress {
            snap,
            done: HashSet::new(),
            at: None,
            last: HashMap::new(),
            drained: 0,
        }
    }

    /// Whether replaying `key` now is final: the copy has passed it, or the snapshot holds
    /// nothing at or after it in its family (where a sequential load writes), so the copy will
    /// not write the snapshot's older value over the replayed one.
    fn replayable(&mut self, family: &[u8], key: &[u8]) -> bool {
        let table = family_table_name(family);
        let name: &str = &table;
        if self.done.contains(name) {
            return true;
        }
        if let Some((at, resume)) = &self.at {
            if *at == name && key < resume.as_slice() {
                return true;
            }
        }
        if !self.last.contains_key(name) {
            let last = (|| {
                let table = self.snap.open_table(family_def(name)).ok()?;
                let (k, _) = table.last().ok()??;
                Some(k.value().to_vec())
            })();
            self.last.insert(name.to_string(), last);
        }
        self.last
            .get(name)
            .and_then(|l| l.as_deref())
            .is_none_or(|last| key > last)
    }
}

/// Takes the keys recorded since the last drain and replays those the copy can no longer
/// overwrite (without a sync: the copy's next commit syncs them), keeping the rest in `backlog`.
/// Under a sequential load this keeps the record small however long the copy takes. Returns
/// how many keys it replayed.
fn drain(
    parent: &Region,
    targets: &mut [Target],
    progress: &mut CopyProgress<'_>,
    backlog: &mut BTreeSet<RecordedKey>,
) -> Result<usize, StorageError> {
    backlog.extend(take_recorded(parent));
    let (mut ready, waiting): (BTreeSet<RecordedKey>, BTreeSet<RecordedKey>) =
        std::mem::take(backlog)
            .into_iter()
            .partition(|(f, k)| progress.replayable(f, k));
    *backlog = waiting;
    parent.recording.set_backlog(backlog.len());
    let n = ready.len();
    replay(parent, targets, &mut ready, None, false)?;
    Ok(n)
}

/// A write transaction on each target.
fn begin(parent: &Region, targets: &[Target]) -> Result<Vec<WriteTransaction>, StorageError> {
    targets
        .iter()
        .map(|t| t.file.db.begin_write())
        .collect::<Result<_, _>>()
        .map_err(|e| parent.storage_err(e))
}

/// Copies one family table (`name`) of the snapshot, row by row from `resume` (a row's first
/// key) on, into the targets' write transactions, keeping the entries `keep` flags, until
/// [`COPY_COMMIT_BYTES`] are copied. Returns how many entries it read and, when it stopped
/// early, the key to resume from.
fn copy_family(
    parent: &Region,
    snap: &redb::ReadTransaction,
    name: &str,
    txns: &[WriteTransaction],
    targets: &mut [Target],
    keep: &impl Fn(&[RawEntry]) -> Vec<bool>,
    resume: Option<Vec<u8>>,
) -> Result<(u64, Option<Vec<u8>>), StorageError> {
    let mut entries = 0u64;
    let mut copied = 0u64;
    let mut rows = 0u64;
    let src = snap
        .open_table(family_def(name))
        .map_err(|e| parent.storage_err(e))?;
    let mut dsts = txns
        .iter()
        .map(|t| t.open_table(family_def(name)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| parent.storage_err(e))?;
    let mut row_buf: Vec<RawEntry> = Vec::new();
    let flush = |row_buf: &mut Vec<RawEntry>,
                 dsts: &mut Vec<redb::Table<'_, CellKey, &'static [u8]>>,
                 targets: &mut [Target]|
     -> Result<u64, StorageError> {
        if row_buf.is_empty() {
            return Ok(0);
        }
        let row = keys::row_of(row_buf[0].key()).to_vec();
        let ti = route(targets, &row);
        let mut bytes = 0;
        for (e, k) in row_buf.iter().zip(keep(row_buf)) {
            if k {
                dsts[ti]
                    .insert(e.key(), e.value())
                    .map_err(|e| parent.storage_err(e))?;
                targets[ti].size += e.stored_len();
                targets[ti].entries += 1;
                bytes += e.stored_len();
            }
        }
        row_buf.clear();
        Ok(bytes)
    };
    let range = match &resume {
        Some(from) => src.range::<&[u8]>(from.as_slice()..),
        None => src.range::<&[u8]>(..),
    }
    .map_err(|e| parent.storage_err(e))?;
    for item in range {
        let (k, v) = item.map_err(|e| parent.storage_err(e))?;
        if row_buf
            .first()
            .is_some_and(|f| keys::row_of(f.key()) != keys::row_of(k.value()))
        {
            copied += flush(&mut row_buf, &mut dsts, targets)?;
            rows += 1;
            let drain_now = copied >= DRAIN_MIN_BYTES
                && rows % DRAIN_CHECK_ROWS == 0
                && parent.recording.filling();
            if copied >= COPY_COMMIT_BYTES || drain_now {
                return Ok((entries, Some(k.value().to_vec())));
            }
        }
        entries += 1;
        row_buf.push(RawEntry::guarded(k, v));
    }
    flush(&mut row_buf, &mut dsts, targets)?;
    Ok((entries, None))
}

/// Phase 3: pauses the parent's writes, replays the last recorded keys, opens the new regions
/// and calls `install`; retires the parent when that succeeds. `stats` arrives with the
/// parent's figures and leaves with the new regions' too.
fn pause_and_switch(
    parent: &Region,
    dir: &Path,
    mut targets: Vec<Target>,
    (mut caught_up, held): (CatchUp, Option<Held<'_>>),
    hooks: RegionHooks,
    install: impl FnOnce(&[Arc<Region>]) -> Result<(), StorageError>,
    mut stats: CompactStats,
) -> Result<Rewritten, StorageError> {
    let (gate, paused) = match held {
        Some(h) => (h.gate, h.since),
        None => (
            parent.gate.lock().unwrap_or_else(|p| p.into_inner()),
            Instant::now(),
        ),
    };
    let mut recorded = std::mem::take(&mut caught_up.leftover);
    recorded.extend(take_recorded(parent));
    let paused_keys = recorded.len();
    if let Err(e) = replay(parent, &mut targets, &mut recorded, None, true) {
        drop(gate);
        cleanup(dir, targets);
        return Err(e);
    }
    stats.entries_after = targets.iter().map(|t| t.entries).sum();
    let mut regions = Vec::with_capacity(targets.len());
    for t in targets {
        let path = dir.join(&t.meta.file);
        regions.push(Arc::new(Region::from_db(
            path,
            t.file,
            t.meta,
            t.size,
            hooks.clone(),
        )));
    }
    match install(&regions) {
        Ok(()) => {
            parent.retired.store(true, Ordering::Release);
            let pause = paused.elapsed().max(caught_up.longest_slice);
            drop(gate);
            stats.file_bytes_after = regions
                .iter()
                .map(|r| std::fs::metadata(&r.path).map(|m| m.len()).unwrap_or(0))
                .sum();
            Ok(Rewritten {
                regions,
                pause,
                paused_keys,
                catch_up: caught_up,
                stats,
            })
        }
        Err(e) => {
            drop(gate);
            for r in regions {
                r.close();
                let _ = std::fs::remove_file(&r.path);
            }
            Err(e)
        }
    }
}

fn hex_family(table_name: &str) -> Vec<u8> {
    let hex = table_name.trim_start_matches("cf:");
    (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect()
}

/// The row at which a region's data divides in two halves by bytes, if it has two rows.
pub(crate) fn middle_row(region: &Region) -> Result<Option<Vec<u8>>, StorageError> {
    // Most of the drain below, without holding the region's writers.
    region.file.drain_in_background(false)?;
    let snap = {
        // It reads the file: the write buffer goes there first.
        let gate = region.gate.lock().unwrap_or_else(|p| p.into_inner());
        region.file.drain(&gate)?;
        region.file.begin_read()?
    };
    let names: Vec<String> = snap
        .list_tables()
        .map_err(|e| region.storage_err(e))?
        .map(|h| h.name().to_string())
        .filter(|n| n.starts_with("cf:"))
        .collect();
    // The biggest family decides.
    let mut best: Option<(u64, String)> = None;
    for n in &names {
        let t = snap
            .open_table(family_def(n))
            .map_err(|e| region.storage_err(e))?;
        let stored = redb::ReadableTableMetadata::stats(&t)
            .map_err(|e| region.storage_err(e))?
            .stored_bytes();
        if best.as_ref().is_none_or(|(b, _)| stored > *b) {
            best = Some((stored, n.clone()));
        }
    }
    let Some((total, name)) = best else {
        return Ok(None);
    };
    let t = snap
        .open_table(family_def(&name))
        .map_err(|e| region.storage_err(e))?;
    let mut acc = 0u64;
    let mut first_row: Option<Vec<u8>> = None;
    for item in t.iter().map_err(|e| region.storage_err(e))? {
        let (k, v) = item.map_err(|e| region.storage_err(e))?;
        let row = keys::row_of(k.value());
        match &first_row {
            None => first_row = Some(row.to_vec()),
            Some(f) if f.as_slice() != row && acc * 2 >= total => return Ok(Some(row.to_vec())),
            _ => {}
        }
        acc += (k.value().len() + v.value().len()) as u64;
    }
    // Fewer bytes than expected before the last row: split at the last distinct row, if any.
    let last = t
        .last()
        .map_err(|e| region.storage_err(e))?
        .map(|(k, _)| keys::row_of(k.value()).to_vec());
    Ok(match (first_row, last) {
        (Some(f), Some(l)) if f != l => Some(l),
        _ => None,
    })
}
