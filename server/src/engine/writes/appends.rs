//! Whether a region's writes append at its end: the rows a sequential load writes (time-ordered
//! or counter keys) each sort after every row the region holds. Such a region splits at its
//! tail ([`crate::engine::regions::tail_split`]) instead of copying its two halves into new files: the rows it
//! holds stay where they are, and the new region above them starts empty.

use redb::{ReadTransaction, ReadableTable, TableHandle};

use crate::engine::model::keys::{self, family_def};
use crate::engine::store::memtable::MemView;

/// Rows a region must have written since it opened before its writes count as appends. Rows
/// written in a random order rarely append (the k-th row of a fresh region with probability
/// 1/k, and almost never in a region holding rows), so nine in ten of 64 is no accident.
pub(crate) const MIN_ROWS: u64 = 64;
/// Above this many rows written, both counts halve, so that the verdict follows the region's
/// recent writes rather than its whole life.
const WINDOW: u64 = 65_536;

/// Counts a region's written rows and how many of them landed at its tail: after the greatest
/// row it held a few rows ago ([`JITTER`]), so that several writers taking ascending keys in
/// turn, whose commits come a little out of order, still count as appending. Fed by the
/// committer under the region's gate, in commit order.
#[derive(Debug, Default)]
pub(crate) struct AppendTrack {
    /// The greatest row the region holds (None: it holds none).
    last: Option<Vec<u8>>,
    /// `last` as it was when the rows written reached the last multiple of [`JITTER`].
    floor: Option<Vec<u8>>,
    written: u64,
    appended: u64,
}

/// How far out of order appended rows may commit and still count as appends.
const JITTER: u64 = 64;

impl AppendTrack {
    /// A region whose greatest row is `last` (None: an empty region).
    pub fn starting_after(last: Option<Vec<u8>>) -> AppendTrack {
        AppendTrack {
            floor: last.clone(),
            last,
            ..AppendTrack::default()
        }
    }

    /// Counts the rows of one commit, in the order they were applied.
    pub fn note<'r>(&mut self, rows: impl IntoIterator<Item = &'r [u8]>) {
        for row in rows {
            self.written += 1;
            if self.floor.as_deref().is_none_or(|floor| row > floor) {
                self.appended += 1;
            }
            match &mut self.last {
                // A sequential load appends every row: reuse the buffer, no allocation per row.
                Some(last) if row > last.as_slice() => {
                    last.clear();
                    last.extend_from_slice(row);
                }
                Some(_) => {}
                None => self.last = Some(row.to_vec()),
            }
            if self.written % JITTER == 0 {
                self.floor.clone_from(&self.last);
            }
        }
        if self.written >= WINDOW {
            self.written /= 2;
            self.appended /= 2;
        }
    }

    /// Whether at least nine in ten of the region's recent rows were appended at its end.
    pub fn appending(&self) -> bool {
        self.written >= MIN_ROWS && self.appended * 10 >= self.written * 9
    }
}

/// The greatest row of a region: in any family table of its file (`txn`) or its write buffer
/// (`mem`, a view taken just before `txn` began). None when it holds no rows.
pub(crate) fn last_row(
    txn: &ReadTransaction,
    mem: Option<&MemView>,
) -> Result<Option<Vec<u8>>, redb::Error> {
    let mut last: Option<Vec<u8>> = None;
    let mut consider = |key: &[u8]| {
        let row = keys::row_of(key);
        if last.as_deref().is_none_or(|l| row > l) {
            last = Some(row.to_vec());
        }
    };
    for handle in txn.list_tables()? {
        let name = handle.name();
        if !name.starts_with("cf:") {
            continue;
        }
        let table = txn.open_table(family_def(name))?;
        let greatest = table.last()?;
        if let Some((k, _)) = greatest {
            consider(k.value());
        }
    }
    for (_, cells) in mem.into_iter().flat_map(|m| m.families()) {
        if let Some((k, _)) = cells.get_max() {
            consider(&k.0);
        }
    }
    Ok(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascending_rows_append_and_random_ones_do_not() {
        let mut t = AppendTrack::starting_after(Some(b"r000".to_vec()));
        for i in 0..MIN_ROWS - 1 {
            assert!(!t.appending(), "too few rows to tell");
            t.note([format!("r{:08}", i + 1000).as_bytes()]);
        }
        t.note([b"r99999999".as_slice()]);
        assert!(t.appending());

        // Rows below the region's greatest row are not appends, whatever their own order.
        let mut t = AppendTrack::starting_after(Some(b"z".to_vec()));
        for i in 0..4 * MIN_ROWS {
            t.note([format!("m{i:08}").as_bytes()]);
        }
        assert!(!t.appending());

        let mut t = AppendTrack::default();
        let mut x: u64 = 7;
        for _ in 0..4 * MIN_ROWS {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            t.note([format!("{:016x}", x).as_bytes()]);
        }
        assert!(!t.appending(), "random rows append only now and then");
    }

    #[test]
    fn ascending_rows_committed_a_little_out_of_order_append() {
        // Four writers take ascending numbers in turn; their commits swap neighbours.
        let mut t = AppendTrack::default();
        for i in (0..4 * MIN_ROWS).step_by(4) {
            for j in [i + 1, i, i + 3, i + 2] {
                t.note([format!("r{j:08}").as_bytes()]);
            }
        }
        assert!(t.appending());
    }

    #[test]
    fn the_verdict_follows_recent_writes() {
        let mut t = AppendTrack::default();
        for i in 0..WINDOW {
            t.note([format!("a{i:08}").as_bytes()]);
        }
        assert!(t.appending());
        // The load moves on to rewriting old rows: after a window of those it no longer appends.
        for i in 0..WINDOW {
            t.note([format!("a{:08}", i % 100).as_bytes()]);
        }
        assert!(!t.appending());
    }
}
