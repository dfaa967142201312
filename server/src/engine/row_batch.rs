//! One row's writes applied all or nothing behind an optional check, as HBase's
//! checkAndMutate and mutateRow (RowMutations) run them: puts, deletes, increments and appends
//! in order, the check reading the row inside the region's write order, so nothing lands
//! between the check and the writes. The answer carries the increments' and appends' new
//! cells, merged in the order of the operations (HBase's merged `Result`).

use std::sync::{Arc, Mutex};

use super::cell::{Cell, CompareOp, Durability, RowMutation};
use super::error::{MutateError, StorageError};
use super::read::{Filter, ReadOptions, RowVerdict, TimeRange};
use super::read_plan::{ReadCounter, ReadPlan};
use super::region_info::RegionStats;
use super::schema::TableDescriptor;
use super::write::{Apply, Fail, Job, Output};
use super::Engine;

/// What the batch checks before it writes.
pub enum RowCheck {
    /// Nothing: the batch always runs (an atomic RowMutations).
    Always,
    /// One column's newest value within `time_range` against `value`, as HBase compares it:
    /// an empty `value` means "absent or empty" (or, with `NotEqual`, "present and not
    /// empty"). `op` None is HBase's NO_OP, which can only answer the empty-value forms.
    Column {
        family: Vec<u8>,
        qualifier: Vec<u8>,
        op: Option<CompareOp>,
        value: Vec<u8>,
        time_range: TimeRange,
    },
    /// The row read with this filter within `time_range` (newest versions): the check passes
    /// when any cell is left.
    Filter {
        filter: Mutex<Option<Box<dyn Filter>>>,
        time_range: TimeRange,
    },
}

impl std::fmt::Debug for RowCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowCheck::Always => f.write_str("Always"),
            RowCheck::Column { op, .. } => write!(f, "Column({op:?})"),
            RowCheck::Filter { time_range, .. } => write!(f, "Filter({time_range:?})"),
        }
    }
}

/// One write of the batch.
#[derive(Debug, Clone)]
pub enum RowOp {
    Mutate(RowMutation),
    Increment {
        columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
        ttl_ms: Option<i64>,
        durability: Durability,
    },
    Append {
        columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
        ttl_ms: Option<i64>,
        durability: Durability,
    },
}

impl RowOp {
    fn durability(&self) -> Durability {
        match self {
            RowOp::Mutate(m) => m.durability,
            RowOp::Increment { durability, .. } | RowOp::Append { durability, .. } => *durability,
        }
    }
}

/// A row's checked batch.
#[derive(Debug)]
pub struct RowBatch {
    pub row: Vec<u8>,
    pub check: RowCheck,
    pub ops: Vec<RowOp>,
}

/// What a batch did: whether the check passed (and the writes landed), and the new cells of
/// its increments and appends.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    pub passed: bool,
    pub cells: Vec<Cell>,
}

impl Engine {
    /// Runs `batch` on its row's region; the writes land only when the check passes.
    pub fn apply_row_batch(
        &self,
        table: &str,
        batch: RowBatch,
    ) -> Result<BatchOutcome, MutateError> {
        let t = self.serving(table)?;
        super::data::validate_row(&batch.row)?;
        if batch.ops.is_empty() {
            return Err(MutateError::EmptyMutation {
                row: String::from_utf8_lossy(&batch.row).into_owned(),
            });
        }
        if let RowCheck::Column { family, .. } = &batch.check {
            self.check_family(&t.desc, family)?;
        }
        for op in &batch.ops {
            let (row, families): (&[u8], Vec<&[u8]>) = match op {
                RowOp::Mutate(m) => {
                    self.validate_mutation(&t.desc, m)?;
                    (&m.row, Vec::new())
                }
                RowOp::Increment { columns, .. } => (
                    &batch.row,
                    columns.iter().map(|(f, _, _)| f.as_slice()).collect(),
                ),
                RowOp::Append { columns, .. } => {
                    for (_, _, v) in columns {
                        self.check_value(v)?;
                    }
                    (
                        &batch.row,
                        columns.iter().map(|(f, _, _)| f.as_slice()).collect(),
                    )
                }
            };
            if row != batch.row.as_slice() {
                return Err(MutateError::InvalidCondition(
                    "every mutation of a row batch must be of the batch's row".into(),
                ));
            }
            if matches!(op, RowOp::Increment { columns, .. } if columns.is_empty())
                || matches!(op, RowOp::Append { columns, .. } if columns.is_empty())
            {
                return Err(MutateError::EmptyMutation {
                    row: String::from_utf8_lossy(&batch.row).into_owned(),
                });
            }
            for f in families {
                self.check_family(&t.desc, f)?;
            }
        }
        let durable = batch
            .ops
            .iter()
            .any(|op| Self::durable(&t.desc, op.durability()));
        let row = batch.row.clone();
        let batch = Arc::new(batch);
        match self.submit(table, &row, durable, || Job::RowBatch(batch.clone()))? {
            Output::Batch(outcome) => Ok(outcome),
            _ => Ok(BatchOutcome::default()),
        }
    }
}

impl Apply<'_> {
    /// Inside the committer: the check, then (when it passes) every write in order.
    pub(super) fn row_batch(
        &mut self,
        desc: &std::sync::Arc<TableDescriptor>,
        b: &RowBatch,
        now: i64,
    ) -> Result<Output, Fail> {
        if !self.row_check(desc, &b.row, &b.check, now)? {
            return Ok(Output::Batch(BatchOutcome::default()));
        }
        let mut cells = Vec::new();
        for op in &b.ops {
            let job = match op {
                RowOp::Mutate(m) => {
                    self.mutate(desc, m, now)?;
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

    fn row_check(
        &mut self,
        desc: &TableDescriptor,
        row: &[u8],
        check: &RowCheck,
        now: i64,
    ) -> Result<bool, Fail> {
        match check {
            RowCheck::Always => Ok(true),
            RowCheck::Column {
                family,
                qualifier,
                op,
                value,
                time_range,
            } => {
                let cur = self.newest_in(desc, family, row, qualifier, *time_range, now)?;
                let not_equal = *op == Some(CompareOp::NotEqual);
                Ok(match (cur, op) {
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
                })
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
                let found = if verdict == RowVerdict::Include {
                    self.read_row(desc, row, &mut opts, now)?
                } else {
                    false
                };
                *slot = opts.filter.take();
                Ok(found)
            }
        }
    }

    /// Whether a get of `row` with `opts` finds any cell, read inside the write transaction.
    fn read_row(
        &mut self,
        desc: &TableDescriptor,
        row: &[u8],
        opts: &mut ReadOptions,
        now: i64,
    ) -> Result<bool, Fail> {
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
            .is_some_and(|r| !r.is_empty()))
    }
}
