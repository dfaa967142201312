//! Bringing a rewrite's new files up to date with the writes made while it copied: rounds
//! replay the keys recorded since the round before, writes going on. When writers outpace
//! the rounds (a bulk load into the region being split, or a busy machine), free rounds never
//! converge and the backlog left for the paused switch would grow with the write rate; so after
//! a few free rounds writers are held back in short slices, each a bounded pause, until the
//! backlog is small enough for the switch.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

use redb::WriteTransaction;

use super::region::{OpenFile, Region};
use crate::engine::model::error::StorageError;
use crate::engine::model::keys::{self, family_def, family_table_name, REGION_TABLE, SIZE_KEY};
use crate::engine::model::region_info::RegionMeta;

/// Recorded keys few enough to replay with writes paused for the switch.
pub(super) const PAUSED_REPLAY_KEYS: usize = 256;
/// How long a throttled slice holds writes at first, and at most (its clock is read between
/// chunks of keys). The slice's commit comes on top of the second, and it grows with the region
/// (a 4.3 GB region under 8 random writers: 40 ms slices held writes 49.5 ms); 30 ms keeps every
/// pause of a rewrite below 50 ms with room for it.
const SLICE_MIN: Duration = Duration::from_millis(10);
const SLICE_MAX: Duration = Duration::from_millis(30);
/// Keys replayed between two looks at a slice's clock.
const CHUNK: usize = 64;
/// How long writers run between slices at first, and at least (the slice's sync included).
const OPEN_MAX: Duration = Duration::from_millis(10);
const OPEN_MIN: Duration = Duration::from_millis(1);
/// Slices at most; past that the switch takes whatever backlog is left.
const MAX_SLICES: usize = 10_000;

pub(super) use crate::engine::writes::recorder::RecordedKey;

/// One new file of a rewrite and the counters its region table will hold.
pub(super) struct Target {
    pub meta: RegionMeta,
    pub file: OpenFile,
    pub size: u64,
    pub entries: u64,
}

/// What catch-up did, for the rewrite's report.
#[derive(Debug, Default)]
pub(crate) struct CatchUp {
    /// Recorded keys taken but not yet replayed: the switch replays them.
    pub(super) leftover: BTreeSet<RecordedKey>,
    /// Throttled slices, each a pause of writes.
    pub slices: usize,
    /// The longest slice.
    pub longest_slice: Duration,
    /// All slices together.
    pub throttled: Duration,
    /// Keys replayed while the copy still ran ([`super::rewrite`]'s drain).
    pub drained: usize,
}

/// Writes held for the switch since `since`: a throttled catch-up hands its last slice's
/// hold straight to the switch, so no writer slips in between.
pub(super) struct Held<'a> {
    pub gate: MutexGuard<'a, ()>,
    pub since: Instant,
}

/// Phase 2 of a rewrite: replays the keys written since the snapshot (`backlog`: those the copy
/// took but could not replay yet) until few enough are left for the paused switch:
/// `free_rounds` rounds with writes going on, then throttled slices; gives up when `stop` is
/// set. Returns the writes' hold when throttling ended with them held.
pub(super) fn catch_up<'a>(
    parent: &'a Region,
    targets: &mut [Target],
    mut backlog: BTreeSet<RecordedKey>,
    free_rounds: usize,
    stop: &AtomicBool,
) -> Result<(CatchUp, Option<Held<'a>>), StorageError> {
    let mut report = CatchUp::default();
    let stopping = || {
        stop.load(Ordering::Acquire)
            .then(|| parent.storage_err("rewrite abandoned: the engine is closing"))
    };
    for _ in 0..free_rounds {
        if let Some(e) = stopping() {
            return Err(e);
        }
        let mut recorded = std::mem::take(&mut backlog);
        recorded.extend(take_recorded(parent));
        let n = recorded.len();
        replay(parent, targets, &mut recorded, None, true)?;
        parent.recording.set_backlog(0);
        if n <= PAUSED_REPLAY_KEYS {
            return Ok((report, None));
        }
    }
    let (mut slice_len, mut open) = (SLICE_MIN, OPEN_MAX);
    let mut before = usize::MAX;
    while report.slices < MAX_SLICES {
        if let Some(e) = stopping() {
            return Err(e);
        }
        let gate = parent.gate.lock().unwrap_or_else(|p| p.into_inner());
        let held = Instant::now();
        backlog.extend(take_recorded(parent));
        if backlog.len() <= PAUSED_REPLAY_KEYS {
            report.leftover = backlog;
            return Ok((report, Some(Held { gate, since: held })));
        }
        // Writers only add keys between slices; if the backlog grew since the last slice,
        // they outran it: they get less time between slices, then longer slices.
        if backlog.len() >= before {
            if open > OPEN_MIN {
                open = (open / 2).max(OPEN_MIN);
            } else {
                slice_len = (slice_len * 2).min(SLICE_MAX);
            }
        }
        // The slice commits without syncing; the sync comes after writers are let go.
        replay(parent, targets, &mut backlog, Some(held + slice_len), false)?;
        parent.recording.set_backlog(backlog.len());
        let slice = held.elapsed();
        drop(gate);
        let released = Instant::now();
        replay(parent, targets, &mut BTreeSet::new(), None, true)?;
        before = backlog.len();
        report.slices += 1;
        report.throttled += slice;
        report.longest_slice = report.longest_slice.max(slice);
        std::thread::sleep(open.saturating_sub(released.elapsed()));
    }
    report.leftover = backlog;
    Ok((report, None))
}

/// The keys recorded so far, leaving an empty record for the writes still to come. A key is
/// recorded only after its commit, so a snapshot begun after this sees every key taken.
pub(super) fn take_recorded(parent: &Region) -> BTreeSet<RecordedKey> {
    parent.recording.take().into_iter().collect()
}

/// Brings the targets up to date with keys written after the snapshot, taking them out of
/// `recorded` (until `deadline`, checked every [`CHUNK`] keys; the rest stay). Without
/// `durable` the commit does not sync: a throttled slice holds writers, so its sync waits
/// until they are let go (an empty durable replay). Not syncing for long would cost more than
/// it saves: redb reuses no page freed by an unsynced commit, and the next sync writes them all.
pub(super) fn replay(
    parent: &Region,
    targets: &mut [Target],
    recorded: &mut BTreeSet<RecordedKey>,
    deadline: Option<Instant>,
    durable: bool,
) -> Result<(), StorageError> {
    if recorded.is_empty() && !durable {
        return Ok(());
    }
    let snap = parent.file.begin_read()?;
    let txns: Vec<WriteTransaction> = targets
        .iter()
        .map(|t| {
            let mut txn = t.file.db.begin_write().map_err(|e| parent.storage_err(e))?;
            if !durable {
                txn.set_durability(redb::Durability::None)
                    .map_err(|e| parent.storage_err(e))?;
            }
            Ok(txn)
        })
        .collect::<Result<_, StorageError>>()?;
    let mut n = 0usize;
    // The set is sorted by family: each family's tables open once, not once per key.
    'families: while let Some(family) = recorded.first().map(|(f, _)| f.clone()) {
        let name = family_table_name(&family);
        let src = snap
            .open_table(family_def(&name))
            .map_err(|e| parent.storage_err(e))?;
        let mut dsts = txns
            .iter()
            .map(|t| t.open_table(family_def(&name)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| parent.storage_err(e))?;
        while recorded.first().is_some_and(|(f, _)| *f == family) {
            n += 1;
            if n % CHUNK == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                break 'families;
            }
            let Some((_, key)) = recorded.pop_first() else {
                break 'families;
            };
            let current = src
                .get(key.as_slice())
                .map_err(|e| parent.storage_err(e))?
                .map(|v| v.value().to_vec());
            let ti = route(targets, keys::row_of(&key));
            let old = match &current {
                Some(v) => dsts[ti]
                    .insert(key.as_slice(), v.as_slice())
                    .map_err(|e| parent.storage_err(e))?
                    .map(|o| o.value().len()),
                None => dsts[ti]
                    .remove(key.as_slice())
                    .map_err(|e| parent.storage_err(e))?
                    .map(|o| o.value().len()),
            };
            let t = &mut targets[ti];
            if let Some(old) = old {
                t.size = t.size.saturating_sub((key.len() + old) as u64);
                t.entries -= 1;
            }
            if let Some(v) = &current {
                t.size += (key.len() + v.len()) as u64;
                t.entries += 1;
            }
        }
    }
    for (txn, t) in txns.into_iter().zip(targets.iter()) {
        {
            let mut r = txn
                .open_table(REGION_TABLE)
                .map_err(|e| parent.storage_err(e))?;
            r.insert(SIZE_KEY, t.size.to_be_bytes().as_slice())
                .map_err(|e| parent.storage_err(e))?;
        }
        txn.commit().map_err(|e| parent.storage_err(e))?;
    }
    Ok(())
}

/// The target whose range holds `row` (targets are sorted by start).
pub(super) fn route(targets: &[Target], row: &[u8]) -> usize {
    targets
        .iter()
        .rposition(|t| t.meta.start.as_slice() <= row)
        .unwrap_or(0)
}
