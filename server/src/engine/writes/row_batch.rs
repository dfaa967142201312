//! One row's writes applied all or nothing behind an optional check, as HBase's
//! checkAndMutate and mutateRow (RowMutations) run them: puts, deletes, increments and appends
//! in order, the check reading the row inside the region's write order, so nothing lands
//! between the check and the writes. The answer carries the increments' and appends' new
//! cells, merged in the order of the operations (HBase's merged `Result`). The committer's side is `batch_apply`.

use std::sync::Mutex;

use crate::engine::model::cell::{Cell, CompareOp, Durability, RowMutation};
use crate::engine::reads::read::{Filter, TimeRange};

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
    pub(in crate::engine) fn durability(&self) -> Durability {
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
