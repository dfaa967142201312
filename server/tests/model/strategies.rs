//! The proptest strategies that draw a case's operations: rows, columns and timestamps from
//! small sets, hot ones first, so versions and markers pile up where compactions matter.

use super::*;

pub(crate) fn pick(set: &'static [&'static [u8]]) -> impl Strategy<Value = B> {
    prop::sample::select(set).prop_map(B::of)
}

/// Like [`pick`], favouring the first elements so that operations pile up on a few columns
/// (compactions and version limits only matter where a column holds several versions).
pub(crate) fn pick_hot(set: &'static [&'static [u8]]) -> impl Strategy<Value = B> {
    let n = set.len() as u32;
    prop::strategy::Union::new_weighted(
        set.iter()
            .enumerate()
            .map(|(i, b)| (2 * (n - i as u32) - 1, Just(B::of(b))))
            .collect(),
    )
}

pub(crate) fn timestamp() -> impl Strategy<Value = i64> {
    prop_oneof![20 => 0i64..=20, 1 => Just(FAR)]
}

pub(crate) fn value() -> impl Strategy<Value = B> {
    prop_oneof![
        4 => prop::collection::vec(prop::sample::select(&b"xyz"[..]), 0..3).prop_map(B),
        1 => prop::sample::select(&[0i64, 7, -1, i64::MAX][..])
            .prop_map(|n| B(n.to_be_bytes().to_vec())),
    ]
}

pub(crate) fn qualifier() -> impl Strategy<Value = B> {
    prop_oneof![6 => pick_hot(QUALIFIERS), 1 => Just(B::of(COUNTER))]
}

pub(crate) fn cell_ttl() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![6 => Just(None), 1 => Just(Some(1)), 1 => Just(Some(LONG_TTL))]
}

/// Deletes reach the far future less often: such a marker hides its row until a major
/// compaction.
pub(crate) fn delete_timestamp() -> impl Strategy<Value = i64> {
    prop_oneof![60 => 0i64..=20, 1 => Just(FAR)]
}

pub(crate) fn mutation_op() -> impl Strategy<Value = Mut> {
    prop_oneof![
        16 => (pick(FAMILIES), qualifier(), timestamp(), value())
            .prop_map(|(fam, qual, ts, value)| Mut::Put { fam, qual, ts, value }),
        2 => (pick(FAMILIES), qualifier(), prop::option::weighted(0.6, delete_timestamp()))
            .prop_map(|(fam, qual, ts)| Mut::DeleteVersion { fam, qual, ts }),
        2 => (pick(FAMILIES), qualifier(), prop::option::weighted(0.9, delete_timestamp()))
            .prop_map(|(fam, qual, ts)| Mut::DeleteColumn { fam, qual, ts }),
        1 => (pick(FAMILIES), prop::option::weighted(0.9, delete_timestamp()))
            .prop_map(|(fam, ts)| Mut::DeleteFamily { fam, ts }),
        1 => (pick(FAMILIES), delete_timestamp())
            .prop_map(|(fam, ts)| Mut::DeleteFamilyVersion { fam, ts }),
        1 => prop::option::weighted(0.9, delete_timestamp()).prop_map(|ts| Mut::DeleteRow { ts }),
    ]
}

pub(crate) fn row_mutation(max_ops: usize) -> impl Strategy<Value = RowMut> {
    (
        pick_hot(ROWS),
        prop::collection::vec(mutation_op(), 1..=max_ops),
        cell_ttl(),
        prop_oneof![
            4 => Just(Durability::UseDefault),
            1 => Just(Durability::Sync),
            1 => Just(Durability::AsyncWal),
            1 => Just(Durability::SkipWal),
        ],
    )
        .prop_map(|(row, ops, ttl, durability)| RowMut {
            row,
            ops,
            ttl,
            durability,
        })
}

/// Distinct columns of the counter families, mostly the counter column.
pub(crate) fn counter_columns() -> impl Strategy<Value = Vec<(B, B)>> {
    let col = (
        pick(COUNTER_FAMILIES),
        prop_oneof![3 => Just(B::of(COUNTER)), 2 => pick_hot(QUALIFIERS)],
    );
    prop::collection::vec(col, 1..3).prop_map(|mut v| {
        let mut seen = BTreeSet::new();
        v.retain(|c| seen.insert(c.clone()));
        v
    })
}

pub(crate) fn read_spec() -> impl Strategy<Value = ReadSpec> {
    let family_columns = (
        pick(FAMILIES),
        prop::option::of(prop::collection::btree_set(pick(ALL_QUALIFIERS), 1..3)),
    );
    let columns = prop_oneof![
        2 => Just(BTreeMap::new()),
        1 => prop::collection::vec(family_columns, 1..3)
            .prop_map(|v| v.into_iter().collect::<BTreeMap<_, _>>()),
    ];
    let range = prop_oneof![
        2 => Just((0i64, i64::MAX)),
        1 => (0i64..=21).prop_flat_map(|min| {
            (Just(min), prop_oneof![3 => min..=22, 1 => Just(i64::MAX)])
        }),
    ];
    (columns, range, 0u32..5).prop_map(|(columns, (min, max), versions)| ReadSpec {
        columns,
        min,
        max,
        versions,
    })
}

/// (start, stop, reversed): mostly bounds in scan order, sometimes unbounded, rarely inverted.
pub(crate) fn scan_bounds() -> impl Strategy<Value = (B, B, bool)> {
    (
        pick(SCAN_BOUNDS),
        pick(SCAN_BOUNDS),
        any::<bool>(),
        prop_oneof![6 => Just(true), 1 => Just(false)],
    )
        .prop_map(|(x, y, reversed, ordered)| {
            let (lo, hi) = if x <= y { (x, y) } else { (y, x) };
            // A reversed scan starts at the highest row and stops above the lower bound.
            if ordered != reversed {
                (lo, hi, reversed)
            } else {
                (hi, lo, reversed)
            }
        })
}

pub(crate) fn compare_op() -> impl Strategy<Value = CompareOp> {
    prop::sample::select(
        &[
            CompareOp::Less,
            CompareOp::LessOrEqual,
            CompareOp::Equal,
            CompareOp::NotEqual,
            CompareOp::GreaterOrEqual,
            CompareOp::Greater,
        ][..],
    )
}

pub(crate) fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        12 => row_mutation(5).prop_map(Action::Mutate),
        3 => prop::collection::vec(row_mutation(3), 1..5).prop_map(Action::MutateRows),
        3 => (pick_hot(ROWS), counter_columns(), prop::collection::vec(-3i64..=5, 2),
              prop_oneof![3 => Just(None), 1 => Just(Some(LONG_TTL))])
            .prop_map(|(row, cols, deltas, ttl)| Action::Increment {
                row,
                cols: cols
                    .into_iter()
                    .zip(deltas.into_iter().cycle())
                    .map(|((f, q), d)| (f, q, d))
                    .collect(),
                ttl,
            }),
        2 => (pick_hot(ROWS), counter_columns(),
              prop::collection::vec(prop::collection::vec(prop::sample::select(&b"xyz"[..]), 0..3), 2),
              prop_oneof![3 => Just(None), 1 => Just(Some(LONG_TTL))])
            .prop_map(|(row, cols, suffixes, ttl)| Action::Append {
                row,
                cols: cols
                    .into_iter()
                    .zip(suffixes.into_iter().cycle())
                    .map(|((f, q), s)| (f, q, B(s)))
                    .collect(),
                ttl,
            }),
        4 => (pick(FAMILIES), qualifier(), compare_op(),
              prop_oneof![1 => Just(None), 1 => Just(Some(B(Vec::new()))), 4 => value().prop_map(Some)],
              row_mutation(3))
            .prop_map(|(fam, qual, op, value, mutation)| Action::CheckAndMutate {
                fam,
                qual,
                op,
                value,
                mutation,
            }),
        5 => (pick_hot(ROWS), read_spec()).prop_map(|(row, read)| Action::Get { row, read }),
        5 => (scan_bounds(), 0usize..4, 0usize..4, read_spec())
            .prop_map(|((start, stop, reversed), batch, limit, read)| Action::Scan {
                start,
                stop,
                reversed,
                batch,
                limit,
                read,
            }),
        1 => pick(SPLIT_POINTS).prop_map(|at| Action::Split { at }),
        2 => any::<bool>().prop_map(|major| Action::Compact { major }),
        1 => Just(Action::Restart),
        1 => (0usize..10).prop_map(|seed| Action::Bulk { seed }),
    ]
}
