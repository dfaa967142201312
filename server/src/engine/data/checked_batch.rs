//! [`Engine::apply_row_batch`]: one row's checked batch (HBase's checkAndMutate with
//! RowMutations, and mutateRow) validated, then handed to the row's region as one job, whose
//! check and writes run in the committer ([`crate::engine::writes::row_batch`]).

use std::sync::Arc;

use crate::engine::model::error::MutateError;
use crate::engine::writes::row_batch::{BatchOutcome, RowBatch, RowCheck, RowOp};
use crate::engine::writes::write::{Job, Output};
use crate::engine::Engine;

impl Engine {
    /// Runs `batch` on its row's region; the writes land only when the check passes.
    pub fn apply_row_batch(
        &self,
        table: &str,
        batch: RowBatch,
    ) -> Result<BatchOutcome, MutateError> {
        let t = self.serving(table)?;
        super::operations::validate_row(&batch.row)?;
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
