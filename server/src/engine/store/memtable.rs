//! A region's write buffer: the cells of logged batches that redb has not taken yet.
//!
//! A batch of blind writes (puts and delete markers that need no read) is logged in the
//! region's redo log, as before, and then goes into this buffer instead of a redb transaction:
//! a random-key insert into redb copies a 4 KiB leaf and each commit pays its own bookkeeping,
//! while an insert here is a few pointer copies. The buffer moves into redb in one transaction
//! (a *drain*). Past its soft bound a drain runs in the background
//! ([`super::background_drain`]) while writers keep adding to the buffer; past its hard bound,
//! before any write that reads (counters, appends, check-and-mutate), and before a split,
//! compaction or backup reads the file, a drain runs with the region's write gate held. The
//! redo log still holds every buffered batch until a durable commit of the file, so a crash
//! loses nothing the buffer held.
//!
//! Readers see the buffer through [`MemView`], an O(1) copy taken when their snapshot begins
//! and before its redb transaction: entries leave the buffer only after the drain that wrote
//! them has committed, so a reader finds every entry in one place or the other (or in both,
//! with the same value, where the buffer's copy wins). A drain that ran while writers added
//! more lets go only of the entries it wrote that nobody replaced meanwhile.

use std::cmp::Ordering;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use imbl::OrdMap;
use prometheus_client::metrics::histogram::Histogram;
use smallvec::SmallVec;

use super::redo::Change;
use crate::engine::model::keys;
use crate::engine::reads::read::RawEntry;

/// A cell key, ordered as redb orders the family tables ([`keys::compare`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MemKey(pub Bytes);

impl Ord for MemKey {
    fn cmp(&self, other: &Self) -> Ordering {
        keys::compare(&self.0, &other.0)
    }
}

impl PartialOrd for MemKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One family's buffered cells: key to encoded value.
pub(crate) type FamilyMap = OrdMap<MemKey, Bytes>;

/// Bytes an entry is counted for beyond its key and value: the map's slot and two `Bytes`.
const ENTRY_OVERHEAD: u64 = 64;

/// Past this many bytes a region's buffer drains in the background, while its writers go on.
/// Small enough that a drain's transaction stays short (measured in docs/benchmarks.md).
pub(crate) const REGION_BUFFER_BYTES: u64 = 4 * 1024 * 1024;
/// Past this many bytes (the background drain fell behind) a region's writer drains the
/// buffer itself, holding the region's writes: the bound on one region's buffer.
pub(crate) const REGION_BUFFER_HARD_BYTES: u64 = 4 * REGION_BUFFER_BYTES;

/// The buffered cells at one moment, per family. Cloning is O(1) per family.
#[derive(Clone, Default)]
pub(crate) struct MemView {
    families: Vec<(Vec<u8>, FamilyMap)>,
}

impl MemView {
    /// The family's buffered cells, or None when it has none.
    pub fn family(&self, family: &[u8]) -> Option<&FamilyMap> {
        self.families
            .iter()
            .find(|(f, m)| f == family && !m.is_empty())
            .map(|(_, m)| m)
    }

    /// Every family's cells, for a drain.
    pub fn families(&self) -> impl Iterator<Item = (&[u8], &FamilyMap)> {
        self.families.iter().map(|(f, m)| (f.as_slice(), m))
    }
}

/// The buffered entries of one row, `start` being the row's first key ([`keys::row_start`]).
pub(crate) fn row_entries<'m>(
    map: &'m FamilyMap,
    start: &[u8],
) -> impl Iterator<Item = RawEntry> + 'm {
    let from = MemKey(Bytes::copy_from_slice(start));
    let prefix = from.0.clone();
    map.range(from..)
        .take_while(move |(k, _)| k.0.starts_with(&prefix))
        .map(|(k, v)| RawEntry::shared(k.0.clone(), v.clone()))
}

/// Merges two runs of entries sorted in the engine's key order; on a key both hold, the
/// buffer's copy (`buffered`) is kept (the file's is the same cell, drained a moment ago).
pub(crate) fn merge<A: smallvec::Array<Item = RawEntry>>(
    stored: SmallVec<A>,
    buffered: SmallVec<A>,
) -> SmallVec<A> {
    if buffered.is_empty() {
        return stored;
    }
    if stored.is_empty() {
        return buffered;
    }
    let mut out = SmallVec::with_capacity(stored.len() + buffered.len());
    let mut a = stored.into_iter().peekable();
    let mut b = buffered.into_iter().peekable();
    loop {
        let order = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => keys::compare(x.key(), y.key()),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => return out,
        };
        match order {
            Ordering::Less => out.extend(a.next()),
            Ordering::Greater => out.extend(b.next()),
            Ordering::Equal => {
                a.next();
                out.extend(b.next());
            }
        }
    }
}

/// Buckets of the drain histogram, in seconds: 100 µs to 5 s.
const DRAIN_BUCKETS: [f64; 14] = [
    0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0,
];

/// The engine's count over every region's buffer, and its bound.
#[derive(Debug)]
pub(crate) struct BufferCounters {
    /// Bytes buffered over all regions now.
    pub bytes: AtomicU64,
    /// Past this many bytes over the engine, a region drains at its next batch.
    pub limit: AtomicU64,
    /// Drains so far (background ones included).
    pub drains: AtomicU64,
    /// How long each drain with the write gate held (past the hard bound, before a read-write
    /// batch, a split, compaction or backup, the last step of a flush) held its region's
    /// writes, in seconds.
    pub drain_seconds: Histogram,
    /// How long each background drain took, in seconds; writers went on meanwhile.
    pub background_seconds: Histogram,
    /// Background drains that moved entries.
    pub background_drains: AtomicU64,
}

impl Default for BufferCounters {
    fn default() -> Self {
        BufferCounters {
            bytes: AtomicU64::new(0),
            limit: AtomicU64::new(64 * 1024 * 1024),
            drains: AtomicU64::new(0),
            drain_seconds: Histogram::new(DRAIN_BUCKETS),
            background_seconds: Histogram::new(DRAIN_BUCKETS),
            background_drains: AtomicU64::new(0),
        }
    }
}

/// Where a region's buffer stands against its bounds ([`MemTable::pressure`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pressure {
    Low,
    Soft,
    Hard,
}

/// A region's buffer. Written only with the region's write gate held; read by anyone.
pub(crate) struct MemTable {
    state: Mutex<MemState>,
    counters: Arc<BufferCounters>,
}

#[derive(Default)]
struct MemState {
    view: MemView,
    /// Bytes counted for the entries (see [`ENTRY_OVERHEAD`]).
    bytes: u64,
    /// What the buffered batches added to the region's size as the committer counted it (key
    /// and value of every entry); a drain corrects it by what redb replaced.
    counted: i64,
    /// The last redo sequence number buffered.
    last_seq: u64,
}

/// What a drain took out of the buffer, to forget once its commit is done.
pub(crate) struct Taken {
    pub view: MemView,
    pub counted: i64,
    pub last_seq: u64,
}

impl MemTable {
    pub fn new(counters: Arc<BufferCounters>) -> MemTable {
        MemTable {
            state: Mutex::new(MemState::default()),
            counters,
        }
    }

    fn lock(&self) -> MutexGuard<'_, MemState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What readers see now.
    pub fn view(&self) -> MemView {
        let s = self.lock();
        if s.bytes == 0 {
            return MemView::default();
        }
        s.view.clone()
    }

    /// Adds a logged batch's changes (numbered `seq`), which added `counted` to the region's
    /// size. Every change of a blind batch is an insert.
    pub fn insert(&self, changes: Vec<Change>, seq: u64, counted: i64) {
        let mut s = self.lock();
        let mut added = 0i64;
        for c in changes {
            let Some(value) = c.value else {
                continue;
            };
            let key_len = c.key.len() as i64;
            let n = key_len + value.len() as i64 + ENTRY_OVERHEAD as i64;
            let map = match s.view.families.iter().position(|(f, _)| *f == c.family) {
                Some(i) => &mut s.view.families[i].1,
                None => {
                    s.view.families.push((c.family, FamilyMap::new()));
                    &mut s.view.families.last_mut().expect("just pushed").1
                }
            };
            if let Some(old) = map.insert(MemKey(Bytes::from(c.key)), Bytes::from(value)) {
                // The same cell written twice: the first copy is gone.
                added -= key_len + old.len() as i64 + ENTRY_OVERHEAD as i64;
            }
            added += n;
        }
        // Never negative: a replaced entry was counted when it came in.
        let added = added.max(0) as u64;
        s.bytes += added;
        s.counted += counted;
        s.last_seq = s.last_seq.max(seq);
        self.counters
            .bytes
            .fetch_add(added, AtomicOrdering::Relaxed);
    }

    /// Bytes buffered in this region.
    pub fn bytes(&self) -> u64 {
        self.lock().bytes
    }

    /// How full the buffer is, from one read of its size: past the soft bound (its region's
    /// [`REGION_BUFFER_BYTES`], or the engine past half of its limit) it should drain in the
    /// background; past the hard bound (its region's [`REGION_BUFFER_HARD_BYTES`], or the
    /// engine's limit) it must drain before its writer is answered.
    pub fn pressure(&self) -> Pressure {
        let mine = self.bytes();
        if mine == 0 {
            return Pressure::Low;
        }
        let engine = self.counters.bytes.load(AtomicOrdering::Relaxed);
        let limit = self.counters.limit.load(AtomicOrdering::Relaxed);
        if mine >= REGION_BUFFER_HARD_BYTES || engine >= limit {
            Pressure::Hard
        } else if mine >= REGION_BUFFER_BYTES || engine >= limit / 2 {
            Pressure::Soft
        } else {
            Pressure::Low
        }
    }

    /// The buffered entries for a drain (they stay readable until [`MemTable::forget`]).
    pub fn take(&self) -> Option<Taken> {
        let s = self.lock();
        if s.bytes == 0 {
            return None;
        }
        Some(Taken {
            view: s.view.clone(),
            counted: s.counted,
            last_seq: s.last_seq,
        })
    }

    /// The drain of `taken` committed: its entries are in the file. When nothing was added
    /// since [`MemTable::take`] (a drain with the gate held) the buffer empties at once;
    /// otherwise each family's map is rebuilt from the entries the drain did not write: those
    /// added since, and cells written again since (a different allocation than the one the
    /// drain took). One walk of both maps in key order and an insert per kept entry: removing
    /// the drained entries one by one instead copied a shared tree node per removal.
    pub fn forget(&self, taken: Taken) {
        self.counters.drains.fetch_add(1, AtomicOrdering::Relaxed);
        let mut s = self.lock();
        if s.last_seq == taken.last_seq {
            self.counters
                .bytes
                .fetch_sub(s.bytes, AtomicOrdering::Relaxed);
            *s = MemState::default();
            return;
        }
        s.counted -= taken.counted;
        let mut freed = 0u64;
        for (family, drained) in taken.view.families() {
            let Some(i) = s.view.families.iter().position(|(f, _)| f == family) else {
                continue;
            };
            let live = &mut s.view.families[i].1;
            let mut kept = FamilyMap::new();
            let mut old = drained.iter().peekable();
            for (k, v) in live.iter() {
                while old.next_if(|(ok, _)| *ok < k).is_some() {}
                match old.peek() {
                    // This very entry: in the file now.
                    Some((ok, ov)) if *ok == k && same(ov, v) => {
                        freed += (k.0.len() + v.len()) as u64 + ENTRY_OVERHEAD;
                    }
                    _ => {
                        kept.insert(k.clone(), v.clone());
                    }
                }
            }
            *live = kept;
        }
        let freed = freed.min(s.bytes);
        s.bytes -= freed;
        self.counters
            .bytes
            .fetch_sub(freed, AtomicOrdering::Relaxed);
    }

    /// Empties the buffer (its entries are in the file: drained, or replayed from the log).
    pub fn clear(&self) {
        let mut s = self.lock();
        self.counters
            .bytes
            .fetch_sub(s.bytes, AtomicOrdering::Relaxed);
        *s = MemState::default();
    }
}

/// Whether two values are one buffered entry (one allocation), not merely equal bytes.
fn same(a: &Bytes, b: &Bytes) -> bool {
    a.as_ptr() == b.as_ptr() && a.len() == b.len()
}

impl Drop for MemTable {
    fn drop(&mut self) {
        let s = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        self.counters
            .bytes
            .fetch_sub(s.bytes, AtomicOrdering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::cell::CellType;
    use crate::engine::model::keys::{encode, KIND_COLUMN};

    fn change(row: &[u8], ts: i64, v: &[u8]) -> Change {
        Change {
            family: b"f".to_vec(),
            key: encode(row, KIND_COLUMN, b"q", ts, CellType::Put),
            value: Some(v.to_vec()),
        }
    }

    #[test]
    fn entries_sort_as_redb_sorts_them_and_a_rewrite_replaces() {
        let counters = Arc::new(BufferCounters::default());
        let m = MemTable::new(counters.clone());
        // "b" sorts after "ab" bytewise, but its length prefix is smaller: the map must use
        // the engine's order, not the encoded bytes'.
        m.insert(
            vec![
                change(b"b", 1, b"x"),
                change(b"ab", 1, b"y"),
                change(b"b", 2, b"z"),
            ],
            7,
            3,
        );
        let before = m.view();
        m.insert(vec![change(b"b", 2, b"w")], 8, 1);
        let view = m.view();
        let rows: Vec<(Vec<u8>, i64, Vec<u8>)> = view
            .family(b"f")
            .unwrap()
            .iter()
            .map(|(k, v)| {
                let p = keys::decode(&k.0).unwrap();
                (p.row.to_vec(), p.ts, v.to_vec())
            })
            .collect();
        assert_eq!(
            rows,
            vec![
                (b"ab".to_vec(), 1, b"y".to_vec()),
                (b"b".to_vec(), 2, b"w".to_vec()),
                (b"b".to_vec(), 1, b"x".to_vec()),
            ]
        );
        // A view taken before keeps what it saw.
        assert_eq!(before.family(b"f").unwrap().len(), 3);
        let taken = m.take().unwrap();
        assert_eq!((taken.counted, taken.last_seq), (4, 8));
        assert!(counters.bytes.load(AtomicOrdering::Relaxed) > 0);
        m.forget(taken);
        assert!(m.view().family(b"f").is_none() && m.take().is_none());
        assert_eq!(counters.bytes.load(AtomicOrdering::Relaxed), 0);
        assert_eq!(counters.drains.load(AtomicOrdering::Relaxed), 1);
    }

    #[test]
    fn a_drain_while_writers_went_on_lets_go_only_of_what_it_wrote() {
        let counters = Arc::new(BufferCounters::default());
        let m = MemTable::new(counters.clone());
        m.insert(vec![change(b"a", 1, b"x"), change(b"b", 1, b"y")], 1, 2);
        let taken = m.take().unwrap();
        // Meanwhile: a new cell, and the cell "b"@1 written again with another value.
        m.insert(vec![change(b"c", 1, b"z"), change(b"b", 1, b"w")], 2, 2);
        m.forget(taken);
        let left: Vec<Vec<u8>> = m
            .view()
            .family(b"f")
            .unwrap()
            .iter()
            .map(|(k, _)| keys::decode(&k.0).unwrap().row.to_vec())
            .collect();
        // "a" was drained and is gone; "b" was replaced after the drain took it, so its new
        // value stays for the next drain; "c" is new.
        assert_eq!(left, vec![b"b".to_vec(), b"c".to_vec()]);
        let b = m
            .view()
            .family(b"f")
            .unwrap()
            .iter()
            .next()
            .unwrap()
            .1
            .clone();
        assert_eq!(b.as_ref(), b"w");
        let taken = m.take().unwrap();
        assert_eq!((taken.counted, taken.last_seq), (2, 2));
        assert_eq!(m.bytes(), counters.bytes.load(AtomicOrdering::Relaxed));
        m.forget(taken);
        assert_eq!(m.bytes(), 0);
        assert_eq!(counters.bytes.load(AtomicOrdering::Relaxed), 0);
    }
}
