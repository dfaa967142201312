//! Check-and-mutate and atomic row batches of ClientService, as HBase 2.6's `RSRpcServices`
//! and `HRegion.checkAndMutate` run them: the condition (one column against a value, or a
//! filter, within a time range) is read in the region's write order together with the
//! writes, which may mix puts, deletes, increments and appends of the condition's row. The
//! increments' and appends' new cells come back merged into one `Result`.

use prost::Message;

use crate::engine::{CompareOp, RegionMeta, RowBatch, RowCheck, RowOp};
use crate::gateway::Need;

use super::convert::{self, CellOut, Mutation};
use super::errors::NativeError;
use super::pb;

const PACKAGE: &str = "org.apache.hadoop.hbase.filter.";

/// The bytes a comparator stands for. HBase reduces a condition's comparator to its
/// `getValue()` and compares that as a BinaryComparator would (`ProtobufUtil.toCheckAndMutate`):
/// a prefix, substring (lower-cased, as the comparator stores it) or regex is compared as
/// plain bytes, a NullComparator is the empty value.
fn comparator_value(c: &pb::hbase::Comparator) -> Result<Vec<u8>, NativeError> {
    let name = c.name.as_deref().unwrap_or_default();
    let body = c.serialized_comparator.clone().unwrap_or_default();
    let bad = |e: prost::DecodeError| {
        NativeError::bad_request(format!("cannot decode the condition's {name}: {e}"))
    };
    let class = name.strip_prefix(PACKAGE).unwrap_or(name);
    Ok(match class {
        // Every comparator whose first field is a ByteArrayComparable.
        "BinaryComparator"
        | "BinaryPrefixComparator"
        | "LongComparator"
        | "BitComparator"
        | "BigDecimalComparator" => pb::hbase::BinaryComparator::decode(body)
            .map_err(bad)?
            .comparable
            .and_then(|v| v.value)
            .unwrap_or_default()
            .to_vec(),
        "BinaryComponentComparator" => pb::hbase::BinaryComponentComparator::decode(body)
            .map_err(bad)?
            .value
            .unwrap_or_default()
            .to_vec(),
        "SubstringComparator" => pb::hbase::SubstringComparator::decode(body)
            .map_err(bad)?
            .substr
            .unwrap_or_default()
            .to_lowercase()
            .into_bytes(),
        "RegexStringComparator" => pb::hbase::RegexStringComparator::decode(body)
            .map_err(bad)?
            .pattern
            .unwrap_or_default()
            .into_bytes(),
        "NullComparator" => Vec::new(),
        _ => {
            return Err(NativeError::bad_request(format!(
                "the condition's comparator {name:?} is not one of HBase's ByteArrayComparables"
            )))
        }
    })
}

/// A condition from the wire.
pub fn row_check(c: &pb::Condition) -> Result<RowCheck, NativeError> {
    let time_range = convert::time_range(c.time_range.as_ref());
    if time_range.min < 0 || time_range.max < time_range.min {
        return Err(NativeError::bad_request(format!(
            "the condition's time range [{}, {}) is not valid: need 0 <= from <= to",
            time_range.min, time_range.max
        )));
    }
    if let Some(f) = &c.filter {
        return Ok(RowCheck::Filter {
            filter: std::sync::Mutex::new(Some(convert::filter(f)?)),
            time_range,
        });
    }
    use pb::hbase::CompareType as T;
    let op = match c.compare_type.and_then(|t| T::try_from(t).ok()) {
        Some(T::Less) => Some(CompareOp::Less),
        Some(T::LessOrEqual) => Some(CompareOp::LessOrEqual),
        Some(T::Equal) => Some(CompareOp::Equal),
        Some(T::NotEqual) => Some(CompareOp::NotEqual),
        Some(T::GreaterOrEqual) => Some(CompareOp::GreaterOrEqual),
        Some(T::Greater) => Some(CompareOp::Greater),
        Some(T::NoOp) => None,
        None => {
            return Err(NativeError::bad_request(
                "a condition needs a filter, or a compare type and a comparator",
            ))
        }
    };
    let cmp = c.comparator.as_ref().ok_or_else(|| {
        NativeError::bad_request("a condition with a compare type needs a comparator")
    })?;
    Ok(RowCheck::Column {
        family: c.family.as_deref().unwrap_or_default().to_vec(),
        qualifier: c.qualifier.as_deref().unwrap_or_default().to_vec(),
        op,
        value: comparator_value(cmp)?,
        time_range,
    })
}

/// A decoded mutation as a batch operation, and whether its new cells go back to the client.
fn row_op(m: Mutation) -> (RowOp, bool) {
    match m {
        Mutation::Row(rm) => (RowOp::Mutate(rm), false),
        Mutation::Increment {
            columns,
            ttl_ms,
            durability,
            return_results,
            ..
        } => (
            RowOp::Increment {
                columns,
                ttl_ms,
                durability,
            },
            return_results,
        ),
        Mutation::Append {
            columns,
            ttl_ms,
            durability,
            return_results,
            ..
        } => (
            RowOp::Append {
                columns,
                ttl_ms,
                durability,
            },
            return_results,
        ),
    }
}

/// Runs one row's mutations (all of `row`, inside `region`) behind `check`. Answers whether
/// the check passed and, when any increment or append asked for them, the merged new cells.
pub fn run(
    ctx: &super::Native,
    region: &RegionMeta,
    row: &[u8],
    check: RowCheck,
    mutations: Vec<Mutation>,
    out: &mut CellOut,
) -> Result<(bool, Option<pb::Result>), NativeError> {
    if !region.contains(row) {
        return Err(NativeError::not_serving(&super::regions::name_of(region)));
    }
    let conditional = !matches!(check, RowCheck::Always);
    ctx.access.check(if conditional {
        Need::CheckAndWrite(&region.table)
    } else {
        Need::Write(&region.table)
    })?;
    let mut ops = Vec::with_capacity(mutations.len());
    let mut wants_cells = false;
    for m in mutations {
        if m.row() != row {
            return Err(NativeError::bad_request(format!(
                "every mutation of a {} must be of row {:?}",
                if conditional {
                    "check-and-mutate"
                } else {
                    "atomic batch"
                },
                String::from_utf8_lossy(row)
            )));
        }
        let (op, wants) = row_op(m);
        wants_cells |= wants;
        ops.push(op);
    }
    let outcome = ctx.engine.apply_row_batch(
        &region.table,
        RowBatch {
            row: row.to_vec(),
            check,
            ops,
        },
    )?;
    let result = (outcome.passed && wants_cells && !outcome.cells.is_empty())
        .then(|| out.cells(&outcome.cells));
    Ok((outcome.passed, result))
}

/// A region action's answers as HBase numbers them for an atomic or conditional batch: one per
/// action by position, the merged result (if any) on the first.
pub fn answers(actions: usize, first: Option<pb::Result>) -> Vec<pb::ResultOrException> {
    let mut first = first;
    (0..actions as u32)
        .map(|i| pb::ResultOrException {
            index: Some(i),
            result: Some(first.take().unwrap_or_default()),
            exception: None,
        })
        .collect()
}
