//! The engine's data operations: mutations (one row, or a batch spread over regions),
//! increment, append, check-and-mutate, get and scan, with the checks HBase makes on each. A
//! write goes to its row's region and follows the region through splits.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::scan::Scanner;
use crate::engine::model::cell::{self, Cell, Condition, Durability, Op, RowMutation, RowResult};
use crate::engine::model::error::{MutateError, ReadError};
use crate::engine::model::schema::TableDescriptor;
use crate::engine::reads::read::{Get, ReadOptions, Scan};
use crate::engine::writes::commit::TaskTicket;
use crate::engine::writes::write::{Fail, Job, Output};
use crate::engine::{Engine, MAX_ROW_LEN};

/// What [`Engine::start_mutate_row`] did with a mutation.
pub enum Started {
    /// Queued: await [`PendingWrite::finish`].
    Queued(PendingWrite),
    /// Not queued (its writers would wait now); the mutation, for [`Engine::mutate_row`].
    WouldWait(RowMutation),
}

/// A row mutation queued for its region's next commit.
pub struct PendingWrite {
    ticket: TaskTicket,
    engine: Engine,
    table: String,
    /// Kept to send again should the region be split before the commit.
    mutation: RowMutation,
}

impl PendingWrite {
    /// The mutation's outcome, once its commit is done (and synced, when durable).
    pub async fn finish(self) -> Result<(), MutateError> {
        match self.ticket.await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(Fail::Error(e))) => Err(e),
            // Not applied: the region was split or closed before the commit. The blocking
            // way follows the row to its new region.
            Ok(Err(Fail::Retired)) | Err(_) => {
                let PendingWrite {
                    engine,
                    table,
                    mutation,
                    ..
                } = self;
                tokio::task::spawn_blocking(move || engine.mutate_row(&table, mutation))
                    .await
                    .unwrap_or(Err(MutateError::ShuttingDown))
            }
        }
    }
}

impl Engine {
    /// Sends a job to the row's region, following splits.
    pub(super) fn submit(
        &self,
        table: &str,
        row: &[u8],
        durable: bool,
        make: impl Fn() -> Job,
    ) -> Result<Output, MutateError> {
        let began = Instant::now();
        for attempt in 0..1000u32 {
            let (desc, region) = self.region_for(table, row).map_err(MutateError::from)?;
            match region.submit(desc, make(), durable) {
                Ok(o) => return Ok(o),
                Err(Fail::Error(e)) => return Err(e),
                Err(Fail::Retired) => {
                    if self.inner.closing.load(Ordering::Acquire) {
                        return Err(MutateError::ShuttingDown);
                    }
                    if attempt > 10 {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            }
        }
        Err(MutateError::RegionNotServing {
            table: table.to_string(),
            row: String::from_utf8_lossy(row).into_owned(),
            waited_ms: began.elapsed().as_millis() as u64,
        })
    }

    pub(super) fn validate_mutation(
        &self,
        desc: &TableDescriptor,
        m: &RowMutation,
    ) -> Result<(), MutateError> {
        validate_row(&m.row)?;
        if m.ops.is_empty() {
            return Err(MutateError::EmptyMutation {
                row: String::from_utf8_lossy(&m.row).into_owned(),
            });
        }
        if let Some(ttl) = m.ttl_ms {
            if ttl <= 0 {
                return Err(MutateError::InvalidTtl(ttl));
            }
        }
        for op in &m.ops {
            if let Some(f) = op.family() {
                self.check_family(desc, f)?;
            }
            if let Some(ts) = op.timestamp() {
                if ts < 0 {
                    return Err(MutateError::NegativeTimestamp(ts));
                }
            }
            if let Op::Put { value, .. } = op {
                self.check_value(value)?;
            }
        }
        Ok(())
    }

    pub(super) fn check_family(
        &self,
        desc: &TableDescriptor,
        family: &[u8],
    ) -> Result<(), MutateError> {
        if desc.family(family).is_none() {
            return Err(MutateError::NoSuchFamily {
                table: desc.name.to_string(),
                family: String::from_utf8_lossy(family).into_owned(),
            });
        }
        Ok(())
    }

    pub(super) fn check_value(&self, value: &[u8]) -> Result<(), MutateError> {
        let max = self.inner.config.max_value_size;
        if value.len() > max {
            return Err(MutateError::ValueTooLarge {
                len: value.len(),
                max,
            });
        }
        Ok(())
    }

    pub(super) fn durable(desc: &TableDescriptor, d: Durability) -> bool {
        match d {
            Durability::UseDefault => !matches!(
                desc.attributes
                    .get(b"DURABILITY".as_slice())
                    .map(|v| v.as_slice()),
                Some(b"ASYNC_WAL") | Some(b"SKIP_WAL")
            ),
            other => other.is_durable(),
        }
    }

    /// Applies one row's mutations atomically.
    pub fn mutate_row(&self, table: &str, m: RowMutation) -> Result<(), MutateError> {
        let t = self.serving(table)?;
        self.validate_mutation(&t.desc, &m)?;
        let durable = Self::durable(&t.desc, m.durability);
        let row = m.row.clone();
        let m = Arc::new(m);
        self.submit(table, &row, durable, || Job::Mutate(vec![(*m).clone()]))
            .map(|_| ())
    }

    /// Queues one row's mutation for its region's next commit without waiting for it: the
    /// async gateways await [`PendingWrite::finish`] instead of holding a thread while the
    /// commit (and, when durable, its sync) happens on a committer thread.
    /// [`Started::WouldWait`] when the row's writers would wait now (a rewrite's record is
    /// full, or a split is under way): then use [`Engine::mutate_row`] on a blocking thread.
    pub fn start_mutate_row(&self, table: &str, m: RowMutation) -> Result<Started, MutateError> {
        let t = self.serving(table)?;
        self.validate_mutation(&t.desc, &m)?;
        let durable = Self::durable(&t.desc, m.durability);
        let (desc, region) = self.region_for(table, &m.row).map_err(MutateError::from)?;
        let job = Job::Mutate(vec![m.clone()]);
        match region.enqueue_for_task(desc, job, durable) {
            Some(Ok(ticket)) => {
                self.inner.awaited_writes.fetch_add(1, Ordering::Relaxed);
                Ok(Started::Queued(PendingWrite {
                    ticket,
                    engine: self.clone(),
                    table: table.to_string(),
                    mutation: m,
                }))
            }
            Some(Err(Fail::Error(e))) => Err(e),
            Some(Err(Fail::Retired)) | None => Ok(Started::WouldWait(m)),
        }
    }

    /// One-row writes queued by [`Engine::start_mutate_row`] since the engine opened.
    pub fn awaited_write_count(&self) -> u64 {
        self.inner.awaited_writes.load(Ordering::Relaxed)
    }

    /// Applies many rows' mutations; each row is atomic, the batch is not. One result per row.
    pub fn mutate_rows(&self, table: &str, rows: Vec<RowMutation>) -> Vec<Result<(), MutateError>> {
        let t = match self.serving(table) {
            Ok(t) => t,
            Err(e) => return rows.iter().map(|_| Err(e.clone().into())).collect(),
        };
        let mut results: Vec<Option<Result<(), MutateError>>> = vec![None; rows.len()];
        let mut valid = Vec::new();
        for (i, m) in rows.into_iter().enumerate() {
            match self.validate_mutation(&t.desc, &m) {
                Ok(()) => valid.push((i, m)),
                Err(e) => results[i] = Some(Err(e)),
            }
        }
        // Group by region so each region commits its rows once.
        let mut groups: BTreeMap<Vec<u8>, Vec<(usize, RowMutation)>> = BTreeMap::new();
        for (i, m) in valid {
            let start = t
                .regions
                .range(..=m.row.clone())
                .next_back()
                .map(|(k, _)| k.clone())
                .unwrap_or_default();
            groups.entry(start).or_default().push((i, m));
        }
        // Every region's group is queued before any is waited for, so the regions commit (and
        // sync) at the same time instead of one after another.
        let mut queued = Vec::with_capacity(groups.len());
        let mut fallback = Vec::new();
        for (_, group) in groups {
            let durable = group
                .iter()
                .any(|(_, m)| Self::durable(&t.desc, m.durability));
            let first_row = group[0].1.row.clone();
            // All rows of the group lie in one region unless a split intervened; then fall back
            // to row by row.
            let target = self
                .region_for(table, &first_row)
                .ok()
                .filter(|(_, r)| group.iter().all(|(_, m)| r.meta.contains(&m.row)));
            let Some((desc, region)) = target else {
                fallback.push(group);
                continue;
            };
            let rows: Vec<RowMutation> = group.iter().map(|(_, m)| m.clone()).collect();
            match region.enqueue(desc, Job::Mutate(rows), durable) {
                Ok(ticket) => queued.push((group, ticket)),
                Err(_) => fallback.push(group),
            }
        }
        for (group, pending) in queued {
            match pending.wait() {
                Ok(_) => {
                    for (i, _) in &group {
                        results[*i] = Some(Ok(()));
                    }
                }
                Err(Fail::Error(e)) => {
                    for (i, _) in &group {
                        results[*i] = Some(Err(e.clone()));
                    }
                }
                // Split meanwhile: go row by row below.
                Err(Fail::Retired) => fallback.push(group),
            }
        }
        for group in fallback {
            for (i, m) in group {
                let d = Self::durable(&t.desc, m.durability);
                let row = m.row.clone();
                results[i] = Some(
                    self.submit(table, &row, d, || Job::Mutate(vec![m.clone()]))
                        .map(|_| ()),
                );
            }
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or(Err(MutateError::ShuttingDown)))
            .collect()
    }

    /// Adds `delta` to each 8-byte big-endian counter (a missing cell counts from 0) and
    /// returns the new values, atomically for the row.
    pub fn increment(
        &self,
        table: &str,
        row: &[u8],
        columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
        ttl_ms: Option<i64>,
        durability: Durability,
    ) -> Result<Vec<Cell>, MutateError> {
        let families = columns.iter().map(|(f, _, _)| (f.as_slice(), None));
        self.read_modify_write(table, row, families, durability, || Job::Increment {
            row: row.to_vec(),
            columns: columns.clone(),
            ttl_ms,
        })
    }

    /// Appends bytes to each column's newest value (a missing cell starts empty).
    pub fn append(
        &self,
        table: &str,
        row: &[u8],
        columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
        ttl_ms: Option<i64>,
        durability: Durability,
    ) -> Result<Vec<Cell>, MutateError> {
        let families = columns
            .iter()
            .map(|(f, _, v)| (f.as_slice(), Some(v.as_slice())));
        self.read_modify_write(table, row, families, durability, || Job::Append {
            row: row.to_vec(),
            columns: columns.clone(),
            ttl_ms,
        })
    }

    /// What increment and append share: the row, each column's family (and value, when the
    /// column carries one) checked, then one job whose cells are the answer.
    fn read_modify_write<'c>(
        &self,
        table: &str,
        row: &[u8],
        columns: impl ExactSizeIterator<Item = (&'c [u8], Option<&'c [u8]>)>,
        durability: Durability,
        make: impl Fn() -> Job,
    ) -> Result<Vec<Cell>, MutateError> {
        let t = self.serving(table)?;
        validate_row(row)?;
        if columns.len() == 0 {
            return Err(MutateError::EmptyMutation {
                row: String::from_utf8_lossy(row).into_owned(),
            });
        }
        for (family, value) in columns {
            self.check_family(&t.desc, family)?;
            if let Some(v) = value {
                self.check_value(v)?;
            }
        }
        let durable = Self::durable(&t.desc, durability);
        match self.submit(table, row, durable, make)? {
            Output::Cells(c) => Ok(c),
            _ => Ok(Vec::new()),
        }
    }

    /// Applies `mutation` if the condition on the same row holds; returns whether it did.
    pub fn check_and_mutate(
        &self,
        table: &str,
        condition: Condition,
        mutation: RowMutation,
    ) -> Result<bool, MutateError> {
        let t = self.serving(table)?;
        self.check_family(&t.desc, &condition.family)?;
        self.validate_mutation(&t.desc, &mutation)?;
        let durable = Self::durable(&t.desc, mutation.durability);
        let row = mutation.row.clone();
        match self.submit(table, &row, durable, || Job::CheckAndMutate {
            condition: condition.clone(),
            mutation: mutation.clone(),
        })? {
            Output::Checked(b) => Ok(b),
            _ => Ok(false),
        }
    }

    fn validate_read(&self, desc: &TableDescriptor, opts: &ReadOptions) -> Result<(), ReadError> {
        for f in opts.columns.keys().chain(opts.family_time_ranges.keys()) {
            if desc.family(f).is_none() {
                return Err(ReadError::NoSuchFamily {
                    table: desc.name.to_string(),
                    family: String::from_utf8_lossy(f).into_owned(),
                });
            }
        }
        for tr in std::iter::once(&opts.time_range).chain(opts.family_time_ranges.values()) {
            if tr.min < 0 || tr.max < tr.min {
                return Err(ReadError::InvalidTimeRange {
                    min: tr.min,
                    max: tr.max,
                    reason: "need 0 <= min <= max".into(),
                });
            }
        }
        Ok(())
    }

    /// Reads one row; None when nothing in it is visible to this read.
    pub fn get(&self, table: &str, mut get: Get) -> Result<Option<RowResult>, ReadError> {
        let (desc, region) = self.region_for(table, &get.row)?;
        self.validate_read(&desc, &get.options)?;
        Ok(region.read_row(&desc, &get.row, &mut get.options, cell::now_ms())?)
    }

    /// Opens a scanner; rows come from the iterator in order (reverse order when reversed).
    pub fn scan(&self, table: &str, scan: Scan) -> Result<Scanner, ReadError> {
        let t = self.serving(table)?;
        self.validate_read(&t.desc, &scan.options)?;
        Ok(Scanner::new(self.clone(), table.to_string(), scan))
    }

    /// As [`Engine::scan`], but a missing table or a bad read option is reported by the
    /// scanner's first read instead: HBase's Thrift1 scanners open lazily, and clients written
    /// against them expect the error from `scannerGet`.
    pub fn scan_lazily(&self, table: &str, scan: Scan) -> Scanner {
        match self.scan(table, scan) {
            Ok(s) => s,
            Err(e) => Scanner::failed(self.clone(), table.to_string(), e),
        }
    }
}

pub(super) fn validate_row(row: &[u8]) -> Result<(), MutateError> {
    if row.is_empty() {
        return Err(MutateError::EmptyRow);
    }
    if row.len() > MAX_ROW_LEN {
        return Err(MutateError::RowTooLong { len: row.len() });
    }
    Ok(())
}
