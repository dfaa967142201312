//! The write path inside a region's committer: puts, delete markers, counters, appends and
//! check-and-mutate, each applied inside the batch's write transaction. Because one committer
//! thread owns a region's writes, everything here is atomic per row without row locks.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use redb::{ReadableTable, WriteTransaction};

use crate::engine::model::cell::{
    now_ms, write_timestamp, Cell, CellType, Condition, Op, RowMutation,
};
use crate::engine::model::error::{MutateError, StorageError};
use crate::engine::model::keys::{
    self, family_def, family_table_name, CellKey, KIND_COLUMN, KIND_FAMILY, REGION_TABLE, SIZE_KEY,
};
use crate::engine::model::schema::TableDescriptor;
use crate::engine::reads::read::{FamilyRead, RawEntry, TimeRange};
use crate::engine::store::redo::Change;
use crate::engine::writes::row_batch::{BatchOutcome, RowBatch};

/// One column a counter or append writes: (family, qualifier, timestamp, new value).
type Update<'a> = (&'a Vec<u8>, &'a Vec<u8>, i64, Vec<u8>);

/// Work for a committer.
#[derive(Debug)]
pub(crate) enum Job {
    /// Row mutations, each applied all or nothing.
    Mutate(Vec<RowMutation>),
    Increment {
        row: Vec<u8>,
        columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
        ttl_ms: Option<i64>,
    },
    Append {
        row: Vec<u8>,
        columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
        ttl_ms: Option<i64>,
    },
    CheckAndMutate {
        condition: Condition,
        mutation: RowMutation,
    },
    /// One row's checked batch ([`super::row_batch`]).
    RowBatch(Arc<RowBatch>),
}

impl Job {
    /// Whether the job only writes, reading nothing stored: puts and delete markers whose
    /// timestamps are known (a version delete without one reads the newest version).
    pub fn is_blind(&self) -> bool {
        match self {
            Job::Mutate(rows) => rows.iter().all(|m| {
                m.ops.iter().all(|op| match op {
                    Op::DeleteVersion { timestamp, .. } => write_timestamp(*timestamp).is_some(),
                    _ => true,
                })
            }),
            _ => false,
        }
    }

    /// The rows the job writes.
    pub fn rows(&self) -> Vec<&[u8]> {
        match self {
            Job::Mutate(ms) => ms.iter().map(|m| m.row.as_slice()).collect(),
            Job::Increment { row, .. } | Job::Append { row, .. } => vec![row.as_slice()],
            Job::CheckAndMutate { mutation, .. } => vec![mutation.row.as_slice()],
            Job::RowBatch(b) => vec![b.row.as_slice()],
        }
    }
}

/// What a job produced.
#[derive(Debug)]
pub(crate) enum Output {
    Done,
    Cells(Vec<Cell>),
    Checked(bool),
    Batch(BatchOutcome),
}

/// Why a job did not produce an output.
#[derive(Debug)]
pub(crate) enum Fail {
    /// The region was replaced; route the job again.
    Retired,
    Error(MutateError),
}

impl From<StorageError> for Fail {
    fn from(e: StorageError) -> Fail {
        Fail::Error(MutateError::Storage(e))
    }
}

impl From<MutateError> for Fail {
    fn from(e: MutateError) -> Fail {
        Fail::Error(e)
    }
}

/// The state of one batch's write transaction.
pub(crate) struct Apply<'t> {
    /// None for a batch bound for the write buffer ([`Apply::buffered`]): its changes are only
    /// collected.
    tables: Option<TxnTables<'t>>,
    recording: bool,
    pub recorded: Vec<(Vec<u8>, Vec<u8>)>,
    /// For a non-durable batch, every change it makes, for the region's redo log.
    pub logged: Option<Vec<Change>>,
    pub size_delta: i64,
    pub bytes_written: u64,
}

impl<'t> Apply<'t> {
    /// `log`: keep every change for the redo log (a non-durable batch).
    pub fn new(txn: &'t WriteTransaction, path: &'t Path, recording: bool, log: bool) -> Apply<'t> {
        Apply {
            tables: Some(TxnTables::new(txn, path)),
            recording,
            recorded: Vec::new(),
            logged: log.then(Vec::new),
            size_delta: 0,
            bytes_written: 0,
        }
    }

    /// For a batch of blind jobs ([`Job::is_blind`]) bound for the region's write buffer:
    /// collects its changes (in `logged`) without a transaction. `size_delta` then counts
    /// every change in full; the drain corrects it by what the file replaced.
    pub fn buffered() -> Apply<'static> {
        Apply {
            tables: None,
            recording: false,
            recorded: Vec::new(),
            logged: Some(Vec::new()),
            size_delta: 0,
            bytes_written: 0,
        }
    }

    /// Releases the tables so the transaction can commit.
    pub fn finish(self) -> Result<(), StorageError> {
        drop(self.tables);
        Ok(())
    }

    pub fn run(&mut self, desc: &Arc<TableDescriptor>, job: &Job) -> Result<Output, Fail> {
        let now = now_ms();
        match job {
            Job::Mutate(rows) => {
                for m in rows {
                    self.mutate(desc, m, now)?;
                }
                Ok(Output::Done)
            }
            Job::Increment {
                row,
                columns,
                ttl_ms,
            } => {
                let mut updates = Vec::with_capacity(columns.len());
                for (fam, qual, delta) in columns {
                    let cur = self.newest(desc, fam, row, qual, now)?;
                    let (old, old_ts) = match cur {
                        None => (0i64, None),
                        Some((ts, v)) => {
                            let arr: [u8; 8] =
                                v.as_slice()
                                    .try_into()
                                    .map_err(|_| MutateError::NotCounter {
                                        family: String::from_utf8_lossy(fam).into_owned(),
                                        qualifier: String::from_utf8_lossy(qual).into_owned(),
                                        width: v.len(),
                                    })?;
                            (i64::from_be_bytes(arr), Some(ts))
                        }
                    };
                    // HBase adds Java longs: past i64::MAX a counter wraps around (observed
                    // on HBase 2.6.1: MAX - 1 + 5 reads back as MIN + 3), it is not refused.
                    let new = old.wrapping_add(*delta);
                    let ts = old_ts.map_or(now, |t| now.max(t.saturating_add(1)));
                    updates.push((fam, qual, ts, new.to_be_bytes().to_vec()));
                }
                self.write_updates(row, updates, *ttl_ms)
            }
            Job::Append {
                row,
                columns,
                ttl_ms,
            } => {
                let mut updates = Vec::with_capacity(columns.len());
                for (fam, qual, suffix) in columns {
                    let (mut value, ts) = match self.newest(desc, fam, row, qual, now)? {
                        None => (Vec::new(), now),
                        Some((ts, v)) => (v, now.max(ts.saturating_add(1))),
                    };
                    value.extend_from_slice(suffix);
                    updates.push((fam, qual, ts, value));
                }
                self.write_updates(row, updates, *ttl_ms)
            }
            Job::CheckAndMutate {
                condition,
                mutation,
            } => {
                let (pass, checked_ts) = self.check(desc, &mutation.row, condition, now)?;
                if pass {
                    self.mutate_at(desc, mutation, now, put_time(now, checked_ts))?;
                }
                Ok(Output::Checked(pass))
            }
            Job::RowBatch(b) => self.row_batch(desc, b, now),
        }
    }

    fn write_updates(
        &mut self,
        row: &[u8],
        updates: Vec<Update<'_>>,
        ttl_ms: Option<i64>,
    ) -> Result<Output, Fail> {
        let mut cells = Vec::with_capacity(updates.len());
        for (fam, qual, ts, value) in updates {
            let key = keys::encode(row, KIND_COLUMN, qual, ts, CellType::Put);
            self.insert(fam, &key, &keys::encode_value(&value, ttl_ms))?;
            cells.push(Cell {
                row: Bytes::copy_from_slice(row),
                family: Bytes::copy_from_slice(fam),
                qualifier: Bytes::copy_from_slice(qual),
                timestamp: ts,
                cell_type: CellType::Put,
                value: Bytes::from(value),
            });
        }
        // Results come in HBase's cell order, whatever order the request named the columns in.
        cells.sort_by(|a, b| (&a.family, &a.qualifier).cmp(&(&b.family, &b.qualifier)));
        Ok(Output::Cells(cells))
    }

    /// HBase's check: an empty or absent expected value means "must not exist (or be empty)".
    /// Also the checked cell's timestamp, when there was one (see [`put_time`]).
    fn check(
        &mut self,
        desc: &TableDescriptor,
        row: &[u8],
        c: &Condition,
        now: i64,
    ) -> Result<(bool, Option<i64>), Fail> {
        let cur = self.newest(desc, &c.family, row, &c.qualifier, now)?;
        let given = c.value.as_deref().unwrap_or(&[]);
        let not_equal = c.op == crate::engine::model::cell::CompareOp::NotEqual;
        let ts = cur.as_ref().map(|(ts, _)| *ts);
        let pass = match cur {
            None => given.is_empty() && !not_equal,
            Some((_, stored)) if given.is_empty() => stored.is_empty() != not_equal,
            Some((_, stored)) => c.op.matches(&stored, given),
        };
        Ok((pass, ts))
    }

    /// The newest visible version of a column: (timestamp, value).
    fn newest(
        &mut self,
        desc: &TableDescriptor,
        family: &[u8],
        row: &[u8],
        qualifier: &[u8],
        now: i64,
    ) -> Result<Option<(i64, Vec<u8>)>, Fail> {
        self.newest_in(desc, family, row, qualifier, TimeRange::ALL, now)
    }

    /// The newest visible version of a column within `time_range`.
    pub(super) fn newest_in(
        &mut self,
        desc: &TableDescriptor,
        family: &[u8],
        row: &[u8],
        qualifier: &[u8],
        time_range: TimeRange,
        now: i64,
    ) -> Result<Option<(i64, Vec<u8>)>, Fail> {
        let Some(fd) = desc.family(family) else {
            return Err(MutateError::NoSuchFamily {
                table: desc.name.to_string(),
                family: String::from_utf8_lossy(family).into_owned(),
            }
            .into());
        };
        let entries = self.entries(family, row)?;
        let quals = std::collections::BTreeSet::from([qualifier.to_vec()]);
        let fr = FamilyRead {
            desc: fd,
            family,
            qualifiers: Some(&quals),
            time_range,
            max_versions: 1,
            raw: false,
            now,
        };
        let mut out = crate::engine::reads::read::PendingCells::new();
        fr.collect(row, &entries, None, &mut out);
        Ok(out.pop().map(|c| (c.timestamp, c.value.to_vec())))
    }

    /// Every stored entry of `row` in `family`, read inside the write transaction.
    pub(super) fn entries(&mut self, family: &[u8], row: &[u8]) -> Result<Vec<RawEntry>, Fail> {
        let Some(tables) = self.tables.as_mut() else {
            // Only blind jobs are buffered, and they never read.
            return Err(
                StorageError::new("region", "a buffered batch cannot read the region").into(),
            );
        };
        Ok(tables.row_entries(family, row)?)
    }

    pub(super) fn mutate(
        &mut self,
        desc: &TableDescriptor,
        m: &RowMutation,
        now: i64,
    ) -> Result<(), Fail> {
        self.mutate_at(desc, m, now, now)
    }

    /// As [`Apply::mutate`], its puts without a timestamp written at `put_now` (a checked
    /// mutation's, see [`put_time`]); everything else at `now`.
    pub(super) fn mutate_at(
        &mut self,
        desc: &TableDescriptor,
        m: &RowMutation,
        now: i64,
        put_now: i64,
    ) -> Result<(), Fail> {
        let row = &m.row;
        for op in &m.ops {
            match op {
                Op::Put {
                    family,
                    qualifier,
                    timestamp,
                    value,
                } => {
                    let key = keys::encode(
                        row,
                        KIND_COLUMN,
                        qualifier,
                        write_timestamp(*timestamp).unwrap_or(put_now),
                        CellType::Put,
                    );
                    self.insert(family, &key, &keys::encode_value(value, m.ttl_ms))?;
                }
                Op::DeleteVersion {
                    family,
                    qualifier,
                    timestamp,
                } => {
                    // HBase's prepareDeleteTimestamps: without a timestamp the newest version
                    // goes; with none to delete, the marker still lands at now.
                    let ts = match write_timestamp(*timestamp) {
                        Some(ts) => ts,
                        None => self
                            .newest(desc, family, row, qualifier, now)?
                            .map_or(now, |(ts, _)| ts),
                    };
                    self.marker(family, row, KIND_COLUMN, qualifier, ts, CellType::Delete)?;
                }
                Op::DeleteColumn {
                    family,
                    qualifier,
                    timestamp,
                } => self.marker(
                    family,
                    row,
                    KIND_COLUMN,
                    qualifier,
                    write_timestamp(*timestamp).unwrap_or(now),
                    CellType::DeleteColumn,
                )?,
                Op::DeleteFamily { family, timestamp } => self.marker(
                    family,
                    row,
                    KIND_FAMILY,
                    b"",
                    write_timestamp(*timestamp).unwrap_or(now),
                    CellType::DeleteFamily,
                )?,
                Op::DeleteFamilyVersion { family, timestamp } => self.marker(
                    family,
                    row,
                    KIND_FAMILY,
                    b"",
                    write_timestamp(Some(*timestamp)).unwrap_or(now),
                    CellType::DeleteFamilyVersion,
                )?,
                Op::DeleteRow { timestamp } => {
                    for family in desc.families.keys() {
                        self.marker(
                            family,
                            row,
                            KIND_FAMILY,
                            b"",
                            write_timestamp(*timestamp).unwrap_or(now),
                            CellType::DeleteFamily,
                        )?;
                    }
                }
            }
        }
        Ok(())
    }

    fn marker(
        &mut self,
        family: &[u8],
        row: &[u8],
        kind: u8,
        qualifier: &[u8],
        ts: i64,
        t: CellType,
    ) -> Result<(), StorageError> {
        let key = keys::encode(row, kind, qualifier, ts, t);
        self.insert(family, &key, &keys::encode_value(&[], None))
    }

    fn insert(&mut self, family: &[u8], key: &[u8], value: &[u8]) -> Result<(), StorageError> {
        let path_err = |e: redb::StorageError| StorageError::new("region", e);
        let old_len = match self.tables.as_mut() {
            Some(tables) => {
                let old = tables.get(family)?.insert(key, value).map_err(path_err)?;
                old.map(|o| o.value().len() as i64 + key.len() as i64)
            }
            None => None,
        };
        self.size_delta += (key.len() + value.len()) as i64 - old_len.unwrap_or(0);
        self.bytes_written += (key.len() + value.len()) as u64;
        if self.recording {
            self.recorded.push((family.to_vec(), key.to_vec()));
        }
        if let Some(log) = self.logged.as_mut() {
            log.push(Change {
                family: family.to_vec(),
                key: key.to_vec(),
                value: Some(value.to_vec()),
            });
        }
        Ok(())
    }
}

/// Adds `delta` to the persisted size counter inside `txn`.
pub(crate) fn update_size(
    txn: &mut WriteTransaction,
    path: &Path,
    delta: i64,
) -> Result<(), StorageError> {
    if delta == 0 {
        return Ok(());
    }
    let mut t = txn.open_table(REGION_TABLE).map_err(|e| storage(path, e))?;
    let cur = t
        .get(SIZE_KEY)
        .map_err(|e| storage(path, e))?
        .and_then(|v| v.value().try_into().ok().map(u64::from_be_bytes))
        .unwrap_or(0);
    let new = (cur as i64 + delta).max(0) as u64;
    t.insert(SIZE_KEY, new.to_be_bytes().as_slice())
        .map_err(|e| storage(path, e))?;
    Ok(())
}

/// Opened family tables of one write transaction.
pub(crate) struct TxnTables<'t> {
    txn: &'t WriteTransaction,
    path: &'t Path,
    tables: HashMap<Vec<u8>, redb::Table<'t, CellKey, &'static [u8]>>,
}

impl<'t> TxnTables<'t> {
    pub fn new(txn: &'t WriteTransaction, path: &'t Path) -> TxnTables<'t> {
        TxnTables {
            txn,
            path,
            tables: HashMap::new(),
        }
    }

    pub fn get(
        &mut self,
        family: &[u8],
    ) -> Result<&mut redb::Table<'t, CellKey, &'static [u8]>, StorageError> {
        if !self.tables.contains_key(family) {
            let name = family_table_name(family);
            let t = self
                .txn
                .open_table(family_def(&name))
                .map_err(|e| storage(self.path, e))?;
            self.tables.insert(family.to_vec(), t);
        }
        Ok(self.tables.get_mut(family).expect("just inserted"))
    }

    /// All stored entries of `row` in `family`, in key order.
    pub fn row_entries(
        &mut self,
        family: &[u8],
        row: &[u8],
    ) -> Result<Vec<RawEntry>, StorageError> {
        let path = self.path;
        let t = self.get(family)?;
        let start = keys::row_start(row);
        let mut succ = row.to_vec();
        succ.push(0);
        let end = keys::row_start(&succ);
        let mut out = Vec::new();
        for item in t
            .range(start.as_slice()..end.as_slice())
            .map_err(|e| storage(path, e))?
        {
            let (k, v) = item.map_err(|e| storage(path, e))?;
            out.push(RawEntry::owned(k.value().to_vec(), v.value().to_vec()));
        }
        Ok(out)
    }
}

fn storage(path: &Path, e: impl std::fmt::Display) -> StorageError {
    StorageError::new(path, e)
}

/// The time a checked mutation's puts without a timestamp are written at: now, or the checked
/// cell's timestamp when that lies in the future (a clock that went back, or a client's own
/// timestamps), so the put is not hidden behind the very cell it was checked against. HBase's
/// checkAndMutate does the same (HBASE-14054).
pub(super) fn put_time(now: i64, checked: Option<i64>) -> i64 {
    checked.map_or(now, |ts| now.max(ts))
}
