//! A tail split: a region whose writes append at its end ([`crate::engine::writes::appends`]: a sequential
//! load, time-ordered or counter row keys) splits just past its greatest row. The lower part
//! keeps the region's file, id and start, with its write buffer and redo log; the upper part is
//! a new, empty region that takes the appends from then on. Nothing is copied, so the split
//! holds writes only for the new file's creation and the catalog commit, whatever the region's
//! size, and a sequential load never waits for a split's copy (a midpoint split copies both
//! halves while the load keeps writing, and the load outran it: see docs/design/engine.md).

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::region::{Region, RegionHooks};
use crate::engine::model::error::StorageError;
use crate::engine::model::region_info::RegionMeta;
use crate::engine::writes::appends;

/// What a tail split produced.
pub(crate) struct TailSplit {
    /// The lower part (in the parent's file) and the new, empty upper part.
    pub regions: [Arc<Region>; 2],
    /// How long writes to the region were held.
    pub pause: Duration,
    /// The split point: the region's greatest row followed by a zero byte.
    pub at: Vec<u8>,
}

/// Splits `parent` just past its greatest row into itself below and a new region `upper_id`
/// above, calling `install` (the catalog commit and the switch of the region map) with writes
/// held. None when there is no such point: the region holds no rows, or no row fits between
/// its greatest row and its end. The parent is retired only if `install` succeeds.
pub(crate) fn tail_split(
    parent: &Region,
    dir: &Path,
    upper_id: u64,
    max_row_len: usize,
    hooks: RegionHooks,
    install: impl FnOnce(&[Arc<Region>]) -> Result<(), StorageError>,
) -> Result<Option<TailSplit>, StorageError> {
    let _maintenance = parent.maintenance.lock().unwrap_or_else(|p| p.into_inner());
    let gate = parent.gate.lock().unwrap_or_else(|p| p.into_inner());
    let paused = Instant::now();
    if parent.retired.load(Ordering::Acquire) {
        return Ok(None);
    }
    parent.file.recover(&gate)?;
    // Every acknowledged write is in the file or the buffer's view taken just before it.
    let last = {
        let (mem, txn) = parent.file.begin_snapshot()?;
        appends::last_row(&txn, Some(&mem)).map_err(|e| parent.storage_err(e))?
    };
    let Some(last) = last else {
        return Ok(None);
    };
    let mut at = last.clone();
    at.push(0);
    // A row longer than any row may be still bounds a region, but keep boundaries to row
    // keys a client could send (HBase's region boundaries are row keys too).
    if at.len() > max_row_len || (!parent.meta.end.is_empty() && at >= parent.meta.end) {
        return Ok(None);
    }
    let lower_meta = RegionMeta {
        end: at.clone(),
        ..parent.meta.clone()
    };
    let upper_meta = RegionMeta {
        table: parent.meta.table.clone(),
        id: upper_id,
        start: at.clone(),
        end: parent.meta.end.clone(),
        file: format!("{upper_id}.redb"),
    };
    let upper = Arc::new(Region::create(dir, upper_meta, hooks.clone())?);
    let lower = Arc::new(parent.hand_over(lower_meta, Some(last), &hooks));
    let regions = [lower, upper];
    if let Err(e) = install(&regions) {
        // The lower part shares the parent's file, which stays the parent's.
        regions[0].handed_over();
        drop(gate);
        let [lower, upper] = regions;
        drop(lower);
        upper.close();
        let _ = std::fs::remove_file(&upper.path);
        return Err(e);
    }
    parent.retired.store(true, Ordering::Release);
    parent.handed_over();
    let pause = paused.elapsed();
    drop(gate);
    Ok(Some(TailSplit { regions, pause, at }))
}
