//! Splits and compactions: the engine side that picks regions, asks [`crate::engine::regions::rewrite`] to copy
//! them, and switches the catalog and the region map.

use prometheus_client::metrics::histogram::Histogram;
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Weak};
use std::time::Duration;

use redb::{ReadableTable, TableHandle};

use crate::engine::meta::catalog::Change;
use crate::engine::model::cell::now_ms;
use crate::engine::model::error::{CompactError, StorageError, TableError};
use crate::engine::model::keys::{self, family_def, family_table_name};
use crate::engine::model::region_info::RegionMeta;
use crate::engine::model::schema::TableName;
use crate::engine::reads::read::RawEntry;
use crate::engine::regions::compaction::{keep_flags, CompactStats};
use crate::engine::regions::region::Region;
use crate::engine::regions::rewrite::{middle_row, rewrite};
use crate::engine::regions::tail_split::tail_split;
use crate::engine::writes::write::update_size;
use crate::engine::{Engine, Inner};

/// The message that ends the split thread.
pub(crate) const STOP: u64 = u64::MAX;

/// Runs size-triggered splits, one at a time, largest region first, until the engine closes
/// or goes away.
pub(crate) fn split_loop(inner: Weak<Inner>, rx: Receiver<(String, u64)>) {
    // Why each region last could not split: a region that cannot split (one huge row) is asked
    // again after every commit, so only a new reason is worth a warning.
    let mut refused: std::collections::HashMap<u64, String> = Default::default();
    let mut queue: Vec<(String, u64)> = Vec::new();
    loop {
        if queue.is_empty() {
            match rx.recv() {
                Ok(m) => queue.push(m),
                Err(_) => return,
            }
        }
        queue.extend(rx.try_iter());
        if queue.iter().any(|(_, id)| *id == STOP) {
            return;
        }
        let Some(inner) = inner.upgrade() else {
            return;
        };
        if inner.closing.load(Ordering::Acquire) {
            // Splits still queued when the engine closes wait for the next start.
            return;
        }
        let engine = Engine { inner };
        let (table, id) = queue.swap_remove(largest(&engine, &queue));
        let split = engine.split_for_size(&table, id);
        engine
            .inner
            .split_pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        match split {
            Ok(_) => {
                refused.remove(&id);
                engine.recheck_after_split(&table, id);
            }
            Err(e) => {
                let why = e.to_string();
                if refused.get(&id) != Some(&why) {
                    tracing::warn!(%table, region = id, error = %why, "split skipped (logged once per region and reason)");
                    refused.insert(id, why);
                } else {
                    tracing::debug!(%table, region = id, error = %why, "split skipped again");
                }
            }
        }
    }
}

/// The queued split whose region holds the most bytes now. Under a sequential load that is
/// the region taking the writes, which grows while others split: first come, first served
/// let it reach several times its blocking size behind the splits of its quiet neighbours.
fn largest(engine: &Engine, queue: &[(String, u64)]) -> usize {
    // One listing per table, not per queued region (a pre-split table may queue many).
    let mut sizes: std::collections::HashMap<&str, std::collections::HashMap<u64, u64>> =
        Default::default();
    let mut best = (0, 0u64);
    for (i, (table, id)) in queue.iter().enumerate() {
        let of_table = sizes.entry(table.as_str()).or_insert_with(|| {
            engine
                .regions(table)
                .unwrap_or_default()
                .into_iter()
                .map(|r| (r.meta.id, r.size))
                .collect()
        });
        let size = of_table.get(id).copied().unwrap_or(0);
        // The first queued of equal sizes, as before.
        if i == 0 || size > best.1 {
            best = (i, size);
        }
    }
    best.0
}

/// How one split held writes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SplitReport {
    /// The longest time writes were held at once (the switch, or a throttled slice).
    pub pause: Duration,
    /// Keys the switch replayed with writes held.
    pub paused_keys: usize,
    /// Slices in which catch-up held writers back because they outpaced it.
    pub throttled_slices: usize,
    /// Keys written during the copy and replayed while it still ran.
    pub drained_keys: usize,
    /// The parent region's file size when the split began.
    pub region_bytes: u64,
    /// A tail split: the region's writes appended at its end, so it split just past its
    /// greatest row, keeping its file for the lower part and copying nothing.
    pub at_tail: bool,
}

/// Split reports kept for [`Engine::split_reports`]; the histograms count every one.
pub const RECENT_PAUSES: usize = 1024;

/// Buckets from 100 µs to 10 min: a pause is milliseconds, a whole rewrite of a big region minutes.
const MAINTENANCE_BUCKETS: [f64; 16] = [
    0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0, 120.0,
    600.0,
];

/// How long splits and major compactions took (from start to switch) and how long each held
/// the region's writes, in seconds.
#[derive(Clone, Debug)]
pub struct MaintenanceTimes {
    pub split: Histogram,
    pub split_pause: Histogram,
    pub compaction: Histogram,
    pub compaction_pause: Histogram,
}

impl Default for MaintenanceTimes {
    fn default() -> Self {
        let h = || Histogram::new(MAINTENANCE_BUCKETS);
        MaintenanceTimes {
            split: h(),
            split_pause: h(),
            compaction: h(),
            compaction_pause: h(),
        }
    }
}

impl Engine {
    fn find_region(&self, table: &str, id: u64) -> Result<(TableName, Arc<Region>), TableError> {
        let key = TableName::parse(table)?.to_string();
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        let t = state
            .tables
            .get(&key)
            .ok_or_else(|| TableError::NotFound(key.clone()))?;
        let r = t
            .regions
            .values()
            .find(|r| r.meta.id == id)
            .cloned()
            .ok_or_else(|| TableError::RegionNotFound(format!("{key} region {id}")))?;
        Ok((t.desc.name.clone(), r))
    }

    /// The last splits (at most [`RECENT_PAUSES`]), oldest first.
    pub fn split_reports(&self) -> Vec<SplitReport> {
        self.inner
            .split_pauses
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .copied()
            .collect()
    }

    /// Splits the region containing `row` at `at` (or at its middle row). Returns how long
    /// writes to it paused.
    pub fn split_region(
        &self,
        table: &str,
        row: &[u8],
        at: Option<&[u8]>,
    ) -> Result<Duration, TableError> {
        let info = self.region_of(table, row)?;
        self.split_region_by_id(table, info.meta.id, at)
    }

    pub(crate) fn split_region_by_id(
        &self,
        table: &str,
        id: u64,
        at: Option<&[u8]>,
    ) -> Result<Duration, TableError> {
        let _ddl = self.inner.ddl.lock().unwrap_or_else(|p| p.into_inner());
        let (name, parent) = self.find_region(table, id)?;
        self.room_for_regions(&format!("splitting region {}", parent.meta.name()), 1, 0)?;
        self.namespace_room_for_split(&name, &parent.meta.name())?;
        let cannot = |reason: &str| TableError::CannotSplit {
            region: parent.meta.name(),
            reason: reason.to_string(),
        };
        let mid = match at {
            Some(a) => a.to_vec(),
            None => middle_row(&parent)?.ok_or_else(|| cannot("it holds fewer than two rows"))?,
        };
        if mid.as_slice() <= parent.meta.start.as_slice()
            || (!parent.meta.end.is_empty() && mid >= parent.meta.end)
        {
            return Err(cannot("the split point lies outside the region"));
        }
        let (a, b) = (self.new_region_id(), self.new_region_id());
        let children = vec![
            RegionMeta {
                table: parent.meta.table.clone(),
                id: a,
                start: parent.meta.start.clone(),
                end: mid.clone(),
                file: format!("{a}.redb"),
            },
            RegionMeta {
                table: parent.meta.table.clone(),
                id: b,
                start: mid.clone(),
                end: parent.meta.end.clone(),
                file: format!("{b}.redb"),
            },
        ];
        let began = std::time::Instant::now();
        let out = self.replace_region(&name, &parent, children, None)?;
        // A half that is still too big splits again without waiting for another write.
        let on_large = self.on_large();
        for r in &out.regions {
            on_large(&r.meta, r.info().size, false);
        }
        let report = SplitReport {
            pause: out.pause,
            paused_keys: out.paused_keys,
            throttled_slices: out.catch_up.slices,
            drained_keys: out.catch_up.drained,
            region_bytes: out.stats.file_bytes_before,
            at_tail: false,
        };
        self.record_split(report, began.elapsed());
        tracing::info!(region = %parent.meta.name(), at = %String::from_utf8_lossy(&mid), region_bytes = out.stats.file_bytes_before, pause_us = out.pause.as_micros() as u64, paused_keys = out.paused_keys, drained_keys = out.catch_up.drained, throttled_slices = out.catch_up.slices, throttled_us = out.catch_up.throttled.as_micros() as u64, "region split");
        Ok(out.pause)
    }

    /// A split the region's size asked for: at its tail when its writes append there (no
    /// copy), else at its middle row.
    pub(crate) fn split_for_size(&self, table: &str, id: u64) -> Result<Duration, TableError> {
        let limit = self.inner.config.region_split_limit;
        if limit > 0 && self.region_count() >= limit {
            self.inner.splits_at_limit.fetch_add(1, Ordering::Relaxed);
            let (_, region) = self.find_region(table, id)?;
            return Err(TableError::CannotSplit {
                region: region.meta.name(),
                reason: format!("the server holds its --region-split-limit of {limit} regions"),
            });
        }
        {
            let _ddl = self.inner.ddl.lock().unwrap_or_else(|p| p.into_inner());
            let (name, region) = self.find_region(table, id)?;
            self.room_for_regions(&format!("splitting region {}", region.meta.name()), 1, 0)?;
            self.namespace_room_for_split(&name, &region.meta.name())?;
        }
        if let Some(pause) = self.split_at_tail(table, id)? {
            return Ok(pause);
        }
        self.split_region_by_id(table, id, None)
    }

    /// Splits the region just past its greatest row if its writes append at its end; None when
    /// they do not or no row fits there.
    fn split_at_tail(&self, table: &str, id: u64) -> Result<Option<Duration>, TableError> {
        let _ddl = self.inner.ddl.lock().unwrap_or_else(|p| p.into_inner());
        let (name, parent) = self.find_region(table, id)?;
        if !parent.appending() {
            return Ok(None);
        }
        let began = std::time::Instant::now();
        let region_bytes = std::fs::metadata(&parent.path)
            .map(|m| m.len())
            .unwrap_or(0);
        let key = name.to_string();
        let dir = self.table_dir(&name);
        let split = tail_split(
            &parent,
            &dir,
            self.new_region_id(),
            crate::engine::MAX_ROW_LEN,
            self.region_hooks(),
            |new| self.install(&key, &parent, new),
        )?;
        let Some(split) = split else {
            return Ok(None);
        };
        let report = SplitReport {
            pause: split.pause,
            paused_keys: 0,
            throttled_slices: 0,
            drained_keys: 0,
            region_bytes,
            at_tail: true,
        };
        self.record_split(report, began.elapsed());
        self.inner.tail_splits.fetch_add(1, Ordering::Relaxed);
        tracing::info!(region = %parent.meta.name(), at = %split.at.escape_ascii(), region_bytes, pause_us = split.pause.as_micros() as u64, upper = split.regions[1].meta.id, "region split at its tail");
        Ok(Some(split.pause))
    }

    /// A tail split's lower part keeps the parent's id, so a commit that found it too big
    /// while the split ran was taken for the split in progress and asked for nothing. A load
    /// that outran a busy split thread leaves that part over the split size with no write
    /// to come: ask again now, as the middle split does for its halves.
    fn recheck_after_split(&self, table: &str, id: u64) {
        let Ok((_, region)) = self.find_region(table, id) else {
            return;
        };
        let size = region.info().size;
        self.on_large()(&region.meta, size, region.appending());
    }

    /// Counts a split in the histograms and the recent reports.
    fn record_split(&self, report: SplitReport, took: Duration) {
        self.inner.times.split.observe(took.as_secs_f64());
        self.inner
            .times
            .split_pause
            .observe(report.pause.as_secs_f64());
        self.inner.splits.fetch_add(1, Ordering::Relaxed);
        let mut recent = self
            .inner
            .split_pauses
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if recent.len() == RECENT_PAUSES {
            recent.pop_front();
        }
        recent.push_back(report);
    }

    /// Replaces `parent` by `new` in the catalog (one durable commit) and the region map.
    fn install(&self, key: &str, parent: &Region, new: &[Arc<Region>]) -> Result<(), StorageError> {
        let mut changes = vec![Change::DeleteRegion {
            table: key.to_string(),
            id: parent.meta.id,
        }];
        // A tail split's lower part keeps the parent's id: its record replaces the parent's.
        changes.extend(new.iter().map(|r| Change::PutRegion(r.meta.clone())));
        self.inner.catalog.commit(&changes)?;
        let mut state = self.inner.state.write().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = state.tables.get_mut(key).map(Arc::make_mut) {
            t.regions.remove(&parent.meta.start);
            for r in new {
                t.regions.insert(r.meta.start.clone(), r.clone());
            }
        }
        Ok(())
    }

    /// Rewrites `parent` into `children` and switches the catalog and the region map.
    fn replace_region(
        &self,
        name: &TableName,
        parent: &Arc<Region>,
        children: Vec<RegionMeta>,
        purge: Option<(&crate::engine::model::schema::TableDescriptor, i64)>,
    ) -> Result<crate::engine::regions::rewrite::Rewritten, StorageError> {
        let key = name.to_string();
        let dir = self.table_dir(name);
        let out = rewrite(parent, &dir, children, purge, self.region_hooks(), |new| {
            self.install(&key, parent, new)
        })?;
        parent.close();
        if parent.meta.file != out.regions[0].meta.file {
            let _ = std::fs::remove_file(&parent.path);
            crate::engine::store::redo::remove_log(&parent.path);
        }
        Ok(out)
    }

    /// Compacts every region of the table. Minor compaction purges in place; major compaction
    /// also drops delete markers and rewrites each region file to return space.
    pub fn compact(&self, table: &str, major: bool) -> Result<CompactStats, CompactError> {
        self.compact_some(table, major, None)
    }

    /// Compacts one region of the table (by engine id), as HBase's per-region compaction
    /// request; a region that is gone (split meanwhile) compacts nothing.
    pub fn compact_region(
        &self,
        table: &str,
        id: u64,
        major: bool,
    ) -> Result<CompactStats, CompactError> {
        self.compact_some(table, major, Some(id))
    }

    fn compact_some(
        &self,
        table: &str,
        major: bool,
        only: Option<u64>,
    ) -> Result<CompactStats, CompactError> {
        let _ddl = self.inner.ddl.lock().unwrap_or_else(|p| p.into_inner());
        let key = TableName::parse(table)
            .map_err(|_| CompactError::TableNotFound(table.to_string()))?
            .to_string();
        let (name, desc, regions) = {
            let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
            let t = state
                .tables
                .get(&key)
                .ok_or_else(|| CompactError::TableNotFound(key.clone()))?;
            if let Some(r) = &t.offline {
                return Err(CompactError::TableOffline {
                    table: key,
                    reason: r.clone(),
                });
            }
            (
                t.desc.name.clone(),
                t.desc.clone(),
                t.regions
                    .values()
                    .filter(|r| only.is_none_or(|id| r.meta.id == id))
                    .cloned()
                    .collect::<Vec<_>>(),
            )
        };
        let mut total = CompactStats::default();
        for r in regions {
            let s = if major {
                let id = r.meta.id;
                let gen = self.new_region_id();
                let child = RegionMeta {
                    file: format!("{id}-{gen}.redb"),
                    ..r.meta.clone()
                };
                let began = std::time::Instant::now();
                let out = self.replace_region(&name, &r, vec![child], Some((&desc, now_ms())))?;
                self.inner
                    .times
                    .compaction
                    .observe(began.elapsed().as_secs_f64());
                self.inner
                    .times
                    .compaction_pause
                    .observe(out.pause.as_secs_f64());
                out.stats
            } else {
                minor_compact(&r, &desc)?
            };
            total.regions += 1;
            total.entries_before += s.entries_before;
            total.entries_after += s.entries_after;
            total.file_bytes_before += s.file_bytes_before;
            total.file_bytes_after += s.file_bytes_after;
        }
        self.inner.compactions.fetch_add(1, Ordering::Relaxed);
        Ok(total)
    }

    pub fn split_count(&self) -> u64 {
        self.inner.splits.load(Ordering::Relaxed)
    }

    /// Regions of every table.
    pub fn region_count(&self) -> usize {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        state.tables.values().map(|t| t.regions.len()).sum()
    }

    /// Size-triggered splits not made because the engine held
    /// [`EngineConfig::region_split_limit`](crate::engine::EngineConfig::region_split_limit) regions.
    pub fn splits_at_limit(&self) -> u64 {
        self.inner.splits_at_limit.load(Ordering::Relaxed)
    }

    /// Regions waiting for a size-triggered split, or being split for size now (HBase's
    /// `splitQueueLength`).
    pub fn splits_queued(&self) -> usize {
        self.inner
            .split_pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    /// Splits made at a region's tail, copying nothing ([`SplitReport::at_tail`]).
    pub fn tail_split_count(&self) -> u64 {
        self.inner.tail_splits.load(Ordering::Relaxed)
    }

    pub fn compaction_count(&self) -> u64 {
        self.inner.compactions.load(Ordering::Relaxed)
    }
}

/// Drops expired, excess and masked cells in place, keeping delete markers. The decision is
/// made on a snapshot; an entry is removed only if it is unchanged when writes are paused.
fn minor_compact(
    region: &Region,
    desc: &crate::engine::model::schema::TableDescriptor,
) -> Result<CompactStats, StorageError> {
    let _m = region.maintenance.lock().unwrap_or_else(|p| p.into_inner());
    let now = now_ms();
    let file_bytes_before = std::fs::metadata(&region.path)
        .map(|m| m.len())
        .unwrap_or(0);
    // Most of the drain below, without holding the region's writers.
    region.file.drain_in_background(false)?;
    let snap = {
        // The compaction reads the file: the write buffer goes there first.
        let gate = region.gate.lock().unwrap_or_else(|p| p.into_inner());
        region.file.recover(&gate)?;
        region.file.drain(&gate)?;
        region.file.begin_read()?
    };
    let names: Vec<String> = snap
        .list_tables()
        .map_err(|e| region.storage_err(e))?
        .map(|h| h.name().to_string())
        .filter(|n| n.starts_with("cf:"))
        .collect();
    let mut doomed: Vec<(String, RawEntry)> = Vec::new();
    let mut entries_before = 0u64;
    for (family, fd) in &desc.families {
        let name = family_table_name(family).to_string();
        if !names.contains(&name) {
            continue;
        }
        let t = snap
            .open_table(family_def(&name))
            .map_err(|e| region.storage_err(e))?;
        let mut row: Vec<RawEntry> = Vec::new();
        for item in t.range::<&[u8]>(..).map_err(|e| region.storage_err(e))? {
            let (k, v) = item.map_err(|e| region.storage_err(e))?;
            entries_before += 1;
            if row
                .first()
                .is_some_and(|f| keys::row_of(f.key()) != keys::row_of(k.value()))
            {
                let flags = keep_flags(fd, &row, now, false);
                for (e, keep) in row.drain(..).zip(flags) {
                    if !keep {
                        doomed.push((name.clone(), detach(&e)));
                    }
                }
            }
            row.push(RawEntry::guarded(k, v));
        }
        let flags = keep_flags(fd, &row, now, false);
        for (e, keep) in row.drain(..).zip(flags) {
            if !keep {
                doomed.push((name.clone(), detach(&e)));
            }
        }
    }
    drop(snap);
    let mut removed = 0u64;
    if !doomed.is_empty() {
        let gate = region.gate.lock().unwrap_or_else(|p| p.into_inner());
        region.file.recover(&gate)?;
        let mut txn = region
            .file
            .db()?
            .begin_write()
            .map_err(|e| region.storage_err(e))?;
        // Written since the snapshot: into this durable commit with the rest, as the log is
        // emptied after it.
        let drained = region.file.drain_into(&mut txn)?;
        let mut delta = 0i64;
        {
            let tables: BTreeSet<&String> = doomed.iter().map(|(n, _)| n).collect();
            for tname in tables {
                let mut t = txn
                    .open_table(family_def(tname))
                    .map_err(|e| region.storage_err(e))?;
                for (_, e) in doomed.iter().filter(|(n, _)| n == tname) {
                    let unchanged = t
                        .get(e.key())
                        .map_err(|er| region.storage_err(er))?
                        .is_some_and(|v| v.value() == e.value());
                    if unchanged {
                        t.remove(e.key()).map_err(|er| region.storage_err(er))?;
                        delta -= e.stored_len() as i64;
                        removed += 1;
                    }
                }
            }
        }
        update_size(&mut txn, &region.path, delta).map_err(|e| region.file.classify(e))?;
        txn.commit().map_err(|e| region.storage_err(e))?;
        region.file.drained(drained);
        region.snapshots.committed();
        region.file.redo.durable();
        region.stats.add_size(delta);
    }
    Ok(CompactStats {
        regions: 1,
        entries_before,
        entries_after: entries_before - removed,
        file_bytes_before,
        file_bytes_after: std::fs::metadata(&region.path)
            .map(|m| m.len())
            .unwrap_or(0),
    })
}

/// A copy that does not pin the snapshot's pages: the doomed list outlives the snapshot, and a
/// page guard must never outlive its transaction into a later commit.
fn detach(e: &RawEntry) -> RawEntry {
    RawEntry::owned(e.key().to_vec(), e.value().to_vec())
}
