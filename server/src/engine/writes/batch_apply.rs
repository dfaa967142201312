//! Inside the committer, one row batch ([`super::row_batch`]): its check read in the region's
//! write order, then (when it passes) every write in order, the increments' and appends' new
//! cells merged into one answer.

use crate::engine::model::cell::CompareOp;
use crate::engine::model::error::{MutateError, StorageError};
use crate::engine::model::region_info::RegionStats;
use crate::engine::model::schema::TableDescriptor;
use crate::engine::reads::read::{ReadOptions, RowVerdict};
use crate::engine::reads::read_plan::{ReadCounter, ReadPlan};
use crate::engine::writes::row_batch::{BatchOutcome, RowBatch, RowCheck, RowOp};
use crate::engine::writes::write::{put_time, Apply, Fail, Job, Output};

impl Apply<'_> {
    /// Inside the committer: the check, then (when it passes) every write in order.
    pub(in crate::engine) fn row_batch(
        &mut self,
        desc: &std::sync::Arc<TableDescriptor>,
        b: &RowBatch,
        now: i64,
    ) -> Result<Output, Fail> {
        let (pass, checked_ts) = self.row_check(desc, &b.row, &b.check, now)?;
        if !pass {
            return Ok(Output::Batch(BatchOutcome::default()));
        }
        let put_now = put_time(now, checked_ts);
        let mut cells = Vec::new();
        for op in &b.ops {
            let job = match op {
                RowOp::Mutate(m) => {
                    self.mutate_at(desc, m, now, put_now)?;
                    continue;
                }
                RowOp::Increment {
                    columns, ttl_ms, ..
                } => Job::Increment {
                    row: b.row.clone(),
                    columns: columns.clone(),
                    ttl_ms: *ttl_ms,
                },
                RowOp::Append {
                    columns, ttl_ms, ..
                } => Job::Append {
                    row: b.row.clone(),
                    columns: columns.clone(),
                    ttl_ms: *ttl_ms,
                },
            };
            if let Output::Cells(c) = self.run(desc, &job)? {
                cells.extend(c);
            }
        }
        Ok(Output::Batch(BatchOutcome {
            passed: true,
            cells,
        }))
    }

    /// Whether the check passes, and the checked cell's timestamp when the check found one
    /// (for a filter, the first cell of the filtered row, as in HBase).
    fn row_check(
        &mut self,
        desc: &TableDescriptor,
        row: &[u8],
        check: &RowCheck,
        now: i64,
    ) -> Result<(bool, Option<i64>), Fail> {
        match check {
            RowCheck::Always => Ok((true, None)),
            RowCheck::Column {
                family,
                qualifier,
                op,
                value,
                time_range,
            } => {
                let cur = self.newest_in(desc, family, row, qualifier, *time_range, now)?;
                let not_equal = *op == Some(CompareOp::NotEqual);
                let ts = cur.as_ref().map(|(ts, _)| *ts);
                let pass = match (cur, op) {
                    (None, _) => value.is_empty() && !not_equal,
                    (Some((_, stored)), _) if value.is_empty() => stored.is_empty() != not_equal,
                    (Some((_, stored)), Some(op)) => op.matches(&stored, value),
                    (Some(_), None) => {
                        return Err(Fail::Error(MutateError::InvalidCondition(
                            "NO_OP cannot compare a value with a stored cell: use another \
                             compare operator"
                                .into(),
                        )))
                    }
                };
                Ok((pass, ts))
            }
            RowCheck::Filter { filter, time_range } => {
                let mut slot = filter
                    .lock()
                    .map_err(|_| StorageError::new("region", "a check's filter was poisoned"))?;
                let Some(mut f) = slot.take() else {
                    return Err(StorageError::new("region", "a check's filter is in use").into());
                };
                f.reset();
                let verdict = f.row_key(row);
                let mut opts = ReadOptions::default().time_range(*time_range);
                opts.max_versions = 1;
                opts.filter = Some(f);
                let first_ts = if verdict == RowVerdict::Include {
                    self.read_row(desc, row, &mut opts, now)?
                } else {
                    None
                };
                *slot = opts.filter.take();
                Ok((first_ts.is_some(), first_ts))
            }
        }
    }

    /// The timestamp of the first cell a get of `row` with `opts` finds (None: no cell), read
    /// inside the write transaction.
    fn read_row(
        &mut self,
        desc: &TableDescriptor,
        row: &[u8],
        opts: &mut ReadOptions,
        now: i64,
    ) -> Result<Option<i64>, Fail> {
        let (plan, filter) = ReadPlan::new(desc, opts, now);
        let mut per_family = Vec::with_capacity(plan.families.len());
        for fr in &plan.families {
            per_family.push(self.entries(fr.family, row)?);
        }
        let families: Vec<_> = plan.families.iter().collect();
        let stats = RegionStats::default();
        let mut counter = ReadCounter::new(&stats);
        Ok(plan
            .assemble(&families, row, &per_family, filter, &mut counter)
            .and_then(|r| r.iter().next().map(|c| c.timestamp)))
    }
}
