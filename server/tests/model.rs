//! Model-based property test of the storage engine.
//!
//! Random sequences of writes, reads and maintenance run against a real [`Engine`] and against
//! a small in-memory model of HBase's data model written here from the semantics alone: puts,
//! every delete kind (mixed with puts in one row mutation, and in `mutate_rows` batches),
//! increments, appends, check-and-mutate, gets, scans (both directions, bounds, batch, limit),
//! splits, minor and major compactions, restarts and bulk loads of more rows than a scanner
//! reads from a region at once. Every read must agree, and after every step full scans with
//! several time ranges and version limits, and a get of every row, must agree too.
//!
//! To keep the outcome independent of the wall clock, puts and deletes carry explicit timestamps
//! drawn from a small set (0..=20, plus one far-future value). Cell TTLs are either 1 ms (so such
//! cells are expired at once) or centuries; the TTL family expires every small timestamp and
//! never the far-future one. Three things are stamped by the server: increments and appends
//! (the model takes their timestamps from the engine's answer after checking them), and deletes
//! without a timestamp, which run in a span of time no stored timestamp falls in (see
//! [`Harness::clocked`]).
//!
//! `PROPTEST_CASES=<n>` runs more (or fewer) cases than the default.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use redbase::engine::*;
use tempfile::TempDir;

const TABLE: &str = "model";

/// A far-future timestamp (year 2096): newer than anything the server stamps, never expired.
const FAR: i64 = 4_000_000_000_000;
/// A cell TTL no test outlives.
const LONG_TTL: i64 = 1_000_000_000_000_000;

/// Hottest first (see [`pick_hot`]).
const ROWS: &[&[u8]] = &[b"ab", b"a", b"b\xff", b"a\x00", b"c", b"b"];
const FAMILIES: &[&[u8]] = &[b"a", b"b", b"c"];
/// Families where server-stamped writes (increment, append) are deterministic: no family TTL.
const COUNTER_FAMILIES: &[&[u8]] = &[b"a", b"b"];
/// Hottest first (see [`pick_hot`]).
const QUALIFIERS: &[&[u8]] = &[b"q", b"", b"qa"];
/// The column increments and appends mostly go to.
const COUNTER: &[u8] = b"n";
const ALL_QUALIFIERS: &[&[u8]] = &[b"", b"n", b"q", b"qa"];
const SPLIT_POINTS: &[&[u8]] = &[
    b"a", b"a\x00", b"aa", b"ab", b"b", b"b\x00", b"b\xff", b"bb", b"c", b"c\x00", b"d150",
];
/// (min, max, versions) of the full scans made after every step: time ranges reveal old,
/// masked and time-travel versions that default reads hide.
const PROBES: &[(i64, i64, u32)] = &[
    (0, i64::MAX, 10),
    (0, i64::MAX, 1),
    (0, 5, 10),
    (0, 10, 1),
    (0, 15, 10),
    (5, 16, 10),
    (8, i64::MAX, 1),
    (12, 21, 2),
];
const SCAN_BOUNDS: &[&[u8]] = &[
    b"", b"a", b"a\x00", b"aa", b"ab", b"b", b"b\xff", b"bz", b"c", b"d", b"d1", b"d250",
];
/// How many rows a bulk load writes: more than a scanner reads from a region at once, so scans
/// resume mid-region.
const BULK_ROWS: usize = 300;

/// A family's settings, as both the engine and the model see them.
struct FamilySpec {
    name: &'static [u8],
    max_versions: u32,
    min_versions: u32,
    ttl_ms: Option<i64>,
    keep_deleted: bool,
}

/// In family-name order.
const SPECS: &[FamilySpec] = &[
    FamilySpec {
        name: b"a",
        max_versions: 3,
        min_versions: 0,
        ttl_ms: None,
        keep_deleted: false,
    },
    FamilySpec {
        name: b"b",
        max_versions: 2,
        min_versions: 0,
        ttl_ms: None,
        keep_deleted: true,
    },
    FamilySpec {
        name: b"c",
        max_versions: 3,
        min_versions: 2,
        ttl_ms: Some(1000),
        keep_deleted: false,
    },
];

fn spec(family: &[u8]) -> &'static FamilySpec {
    SPECS
        .iter()
        .find(|s| s.name == family)
        .expect("known family")
}

fn table_descriptor() -> TableDescriptor {
    let mut desc = TableDescriptor::new(TableName::parse(TABLE).unwrap());
    for s in SPECS {
        let mut f = FamilyDescriptor::new(s.name)
            .max_versions(s.max_versions as i32)
            .min_versions(s.min_versions as i32)
            .keep_deleted(if s.keep_deleted {
                KeepDeletedCells::True
            } else {
                KeepDeletedCells::False
            });
        if let Some(ttl) = s.ttl_ms {
            f = f.ttl((ttl / 1000) as i32);
        }
        desc = desc.with_family(f);
    }
    desc
}

/// Sleeps until the clock has passed `ts`.
fn wait_past(ts: i64) {
    while now_ms() <= ts {
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_millis() as i64
}

/// Bytes that print readably in a failing case.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct B(Vec<u8>);

impl fmt::Debug for B {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

impl B {
    fn of(b: &[u8]) -> B {
        B(b.to_vec())
    }
}

/// A result cell, independent of the engine's buffer types and printing readably.
#[derive(Clone, Debug, PartialEq, Eq)]
struct C {
    row: B,
    family: B,
    qualifier: B,
    timestamp: i64,
    cell_type: CellType,
    value: B,
}

impl C {
    fn of(c: &Cell) -> C {
        C {
            row: B::of(&c.row),
            family: B::of(&c.family),
            qualifier: B::of(&c.qualifier),
            timestamp: c.timestamp,
            cell_type: c.cell_type,
            value: B::of(&c.value),
        }
    }
}

/// A result row (or a piece of one), as [`C`] is a cell.
#[derive(Clone, Debug, PartialEq, Eq)]
struct R {
    row: B,
    cells: Vec<C>,
    partial: bool,
}

impl R {
    fn of(r: &RowResult) -> R {
        R {
            row: B::of(r.row()),
            cells: r.to_cells().iter().map(C::of).collect(),
            partial: r.partial,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The operations a case is made of.

#[derive(Clone, Debug)]
enum Mut {
    Put {
        fam: B,
        qual: B,
        ts: i64,
        value: B,
    },
    DeleteVersion {
        fam: B,
        qual: B,
        ts: Option<i64>,
    },
    /// None = the server's clock (as for DeleteFamily and DeleteRow).
    DeleteColumn {
        fam: B,
        qual: B,
        ts: Option<i64>,
    },
    DeleteFamily {
        fam: B,
        ts: Option<i64>,
    },
    DeleteFamilyVersion {
        fam: B,
        ts: i64,
    },
    DeleteRow {
        ts: Option<i64>,
    },
}

impl Mut {
    /// Whether the server's clock stamps this delete.
    fn server_stamped(&self) -> bool {
        matches!(
            self,
            Mut::DeleteColumn { ts: None, .. }
                | Mut::DeleteFamily { ts: None, .. }
                | Mut::DeleteRow { ts: None }
        )
    }
}

#[derive(Clone, Debug)]
struct RowMut {
    row: B,
    ops: Vec<Mut>,
    ttl: Option<i64>,
    durability: Durability,
}

impl RowMut {
    fn server_stamped(&self) -> bool {
        self.ops.iter().any(Mut::server_stamped)
    }
}

#[derive(Clone, Debug)]
struct ReadSpec {
    /// Empty = every family; None = every qualifier of the family.
    columns: BTreeMap<B, Option<BTreeSet<B>>>,
    min: i64,
    max: i64,
    versions: u32,
}

impl ReadSpec {
    fn everything(versions: u32) -> ReadSpec {
        ReadSpec {
            columns: BTreeMap::new(),
            min: 0,
            max: i64::MAX,
            versions,
        }
    }

    fn options(&self) -> ReadOptions {
        ReadOptions {
            columns: self
                .columns
                .iter()
                .map(|(f, q)| {
                    (
                        f.0.clone(),
                        q.as_ref().map(|s| s.iter().map(|b| b.0.clone()).collect()),
                    )
                })
                .collect(),
            time_range: TimeRange::new(self.min, self.max),
            max_versions: self.versions,
            ..Default::default()
        }
    }
}

#[derive(Clone, Debug)]
enum Action {
    Mutate(RowMut),
    MutateRows(Vec<RowMut>),
    Increment {
        row: B,
        cols: Vec<(B, B, i64)>,
        ttl: Option<i64>,
    },
    Append {
        row: B,
        cols: Vec<(B, B, B)>,
        ttl: Option<i64>,
    },
    CheckAndMutate {
        fam: B,
        qual: B,
        op: CompareOp,
        value: Option<B>,
        mutation: RowMut,
    },
    Get {
        row: B,
        read: ReadSpec,
    },
    Scan {
        start: B,
        stop: B,
        reversed: bool,
        batch: usize,
        limit: usize,
        read: ReadSpec,
    },
    Split {
        at: B,
    },
    Compact {
        major: bool,
    },
    /// Loads [`BULK_ROWS`] rows `d000`.. in one batch; some of them end up with nothing
    /// visible (deleted, masked or expired).
    Bulk {
        seed: usize,
    },
    Restart,
}

fn to_op(m: &Mut) -> Op {
    match m.clone() {
        Mut::Put {
            fam,
            qual,
            ts,
            value,
        } => Op::Put {
            family: fam.0,
            qualifier: qual.0,
            timestamp: Some(ts),
            value: value.0,
        },
        Mut::DeleteVersion { fam, qual, ts } => Op::DeleteVersion {
            family: fam.0,
            qualifier: qual.0,
            timestamp: ts,
        },
        Mut::DeleteColumn { fam, qual, ts } => Op::DeleteColumn {
            family: fam.0,
            qualifier: qual.0,
            timestamp: ts,
        },
        Mut::DeleteFamily { fam, ts } => Op::DeleteFamily {
            family: fam.0,
            timestamp: ts,
        },
        Mut::DeleteFamilyVersion { fam, ts } => Op::DeleteFamilyVersion {
            family: fam.0,
            timestamp: ts,
        },
        Mut::DeleteRow { ts } => Op::DeleteRow { timestamp: ts },
    }
}

fn bulk(seed: usize) -> Vec<RowMut> {
    (0..BULK_ROWS)
        .map(|i| {
            let k = i + seed;
            let ts = (k % 21) as i64;
            let (ops, ttl) = match k % 10 {
                0 => (vec![Mut::DeleteRow { ts: Some(20) }], None),
                1 => (
                    vec![Mut::Put {
                        fam: B::of(b"a"),
                        qual: B::of(b"q"),
                        ts,
                        value: B::of(b"expired"),
                    }],
                    Some(1),
                ),
                2 => (
                    vec![
                        Mut::Put {
                            fam: B::of(b"b"),
                            qual: B::of(b"q"),
                            ts,
                            value: B::of(b"masked"),
                        },
                        Mut::DeleteColumn {
                            fam: B::of(b"b"),
                            qual: B::of(b"q"),
                            ts: Some(ts),
                        },
                    ],
                    None,
                ),
                _ => (
                    vec![Mut::Put {
                        fam: B::of(if k % 3 == 0 { b"b" } else { b"a" }),
                        qual: B::of(b"q"),
                        ts,
                        value: B(i.to_string().into_bytes()),
                    }],
                    None,
                ),
            };
            RowMut {
                row: B(format!("d{i:03}").into_bytes()),
                ops,
                ttl,
                durability: Durability::UseDefault,
            }
        })
        .collect()
}

fn to_mutation(m: &RowMut) -> RowMutation {
    RowMutation {
        row: m.row.0.clone(),
        ops: m.ops.iter().map(to_op).collect(),
        ttl_ms: m.ttl,
        durability: m.durability,
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies.

fn pick(set: &'static [&'static [u8]]) -> impl Strategy<Value = B> {
    prop::sample::select(set).prop_map(B::of)
}

/// Like [`pick`], favouring the first elements so that operations pile up on a few columns
/// (compactions and version limits only matter where a column holds several versions).
fn pick_hot(set: &'static [&'static [u8]]) -> impl Strategy<Value = B> {
    let n = set.len() as u32;
    prop::strategy::Union::new_weighted(
        set.iter()
            .enumerate()
            .map(|(i, b)| (2 * (n - i as u32) - 1, Just(B::of(b))))
            .collect(),
    )
}

fn timestamp() -> impl Strategy<Value = i64> {
    prop_oneof![20 => 0i64..=20, 1 => Just(FAR)]
}

fn value() -> impl Strategy<Value = B> {
    prop_oneof![
        4 => prop::collection::vec(prop::sample::select(&b"xyz"[..]), 0..3).prop_map(B),
        1 => prop::sample::select(&[0i64, 7, -1, i64::MAX][..])
            .prop_map(|n| B(n.to_be_bytes().to_vec())),
    ]
}

fn qualifier() -> impl Strategy<Value = B> {
    prop_oneof![6 => pick_hot(QUALIFIERS), 1 => Just(B::of(COUNTER))]
}

fn cell_ttl() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![6 => Just(None), 1 => Just(Some(1)), 1 => Just(Some(LONG_TTL))]
}

/// Deletes reach the far future less often: such a marker hides its row until a major
/// compaction.
fn delete_timestamp() -> impl Strategy<Value = i64> {
    prop_oneof![60 => 0i64..=20, 1 => Just(FAR)]
}

fn mutation_op() -> impl Strategy<Value = Mut> {
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

fn row_mutation(max_ops: usize) -> impl Strategy<Value = RowMut> {
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
fn counter_columns() -> impl Strategy<Value = Vec<(B, B)>> {
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

fn read_spec() -> impl Strategy<Value = ReadSpec> {
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
fn scan_bounds() -> impl Strategy<Value = (B, B, bool)> {
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

fn compare_op() -> impl Strategy<Value = CompareOp> {
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

fn action() -> impl Strategy<Value = Action> {
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

// ---------------------------------------------------------------------------------------------
// The model.

#[derive(Clone, Debug, Default)]
struct Column {
    /// Timestamp -> (value, cell TTL).
    puts: BTreeMap<i64, (Vec<u8>, Option<i64>)>,
    /// DeleteVersion markers.
    version_deletes: BTreeSet<i64>,
    /// DeleteColumn markers.
    column_deletes: BTreeSet<i64>,
}

#[derive(Clone, Debug, Default)]
struct FamilyRow {
    family_deletes: BTreeSet<i64>,
    family_version_deletes: BTreeSet<i64>,
    columns: BTreeMap<Vec<u8>, Column>,
}

impl FamilyRow {
    /// Whether a put at `ts` is masked by a marker that `counts`.
    fn masked(&self, col: &Column, ts: i64, counts: impl Fn(i64) -> bool) -> bool {
        self.family_deletes.iter().any(|&d| counts(d) && ts <= d)
            || self.family_version_deletes.contains(&ts) && counts(ts)
            || col.column_deletes.iter().any(|&d| counts(d) && ts <= d)
            || col.version_deletes.contains(&ts) && counts(ts)
    }

    /// The visible versions of one column, newest first.
    fn visible(
        &self,
        spec: &FamilySpec,
        col: &Column,
        min: i64,
        max: i64,
        versions: u32,
        now: i64,
    ) -> Vec<(i64, Vec<u8>)> {
        let counts = |m: i64| {
            if spec.keep_deleted {
                min <= m && m < max
            } else {
                m >= min
            }
        };
        let limit = versions.max(1).min(spec.max_versions) as usize;
        let mut out = Vec::new();
        for (&ts, (value, ttl)) in col.puts.iter().rev() {
            if ts < min || ts >= max {
                continue;
            }
            if ttl.is_some_and(|t| ts.saturating_add(t) < now) {
                continue;
            }
            if self.masked(col, ts, counts) {
                continue;
            }
            let family_expired = spec.ttl_ms.is_some_and(|t| ts.saturating_add(t) < now);
            if family_expired && out.len() >= spec.min_versions as usize {
                break;
            }
            if out.len() >= limit {
                break;
            }
            out.push((ts, value.clone()));
        }
        out
    }

    /// Drops what a compaction drops from this family of one row.
    fn purge(&mut self, spec: &FamilySpec, major: bool, now: i64) {
        let family_expired = |ts: i64| spec.ttl_ms.is_some_and(|t| ts.saturating_add(t) < now);
        let snapshot = self.clone();
        for (qual, col) in self.columns.iter_mut() {
            let view = &snapshot.columns[qual];
            let mut counted = 0u32;
            let mut doomed = Vec::new();
            for (&ts, (_, ttl)) in view.puts.iter().rev() {
                let cell_expired = ttl.is_some_and(|t| ts.saturating_add(t) < now);
                let deleted = snapshot.masked(view, ts, |_| true);
                let keep = if cell_expired || (deleted && !spec.keep_deleted) {
                    false
                } else if deleted {
                    !family_expired(ts)
                } else if family_expired(ts) && counted >= spec.min_versions {
                    false
                } else {
                    counted += 1;
                    counted <= spec.max_versions
                };
                if !keep {
                    doomed.push(ts);
                }
            }
            for ts in doomed {
                col.puts.remove(&ts);
            }
            if major && !spec.keep_deleted {
                col.version_deletes.clear();
                col.column_deletes.clear();
            }
        }
        if major && !spec.keep_deleted {
            self.family_deletes.clear();
            self.family_version_deletes.clear();
        }
        self.columns.retain(|_, c| {
            !(c.puts.is_empty() && c.version_deletes.is_empty() && c.column_deletes.is_empty())
        });
    }
}

#[derive(Debug, Default)]
struct Model {
    /// Row -> family -> its cells.
    rows: BTreeMap<Vec<u8>, BTreeMap<Vec<u8>, FamilyRow>>,
}

impl Model {
    fn family_row(&mut self, row: &[u8], fam: &[u8]) -> &mut FamilyRow {
        self.rows
            .entry(row.to_vec())
            .or_default()
            .entry(fam.to_vec())
            .or_default()
    }

    fn column(&mut self, row: &[u8], fam: &[u8], qual: &[u8]) -> &mut Column {
        self.family_row(row, fam)
            .columns
            .entry(qual.to_vec())
            .or_default()
    }

    /// The newest visible version of a column, as increments and checks see it.
    fn newest(&self, row: &[u8], fam: &[u8], qual: &[u8], now: i64) -> Option<(i64, Vec<u8>)> {
        let fr = self.rows.get(row)?.get(fam)?;
        let col = fr.columns.get(qual)?;
        fr.visible(spec(fam), col, 0, i64::MAX, 1, now)
            .into_iter()
            .next()
    }

    fn put(
        &mut self,
        row: &[u8],
        fam: &[u8],
        qual: &[u8],
        ts: i64,
        value: Vec<u8>,
        ttl: Option<i64>,
    ) {
        self.column(row, fam, qual).puts.insert(ts, (value, ttl));
    }

    /// Applies a row mutation; `now` stamps the deletes that carry no timestamp.
    fn mutate(&mut self, m: &RowMut, now: i64) {
        let row = m.row.0.as_slice();
        for op in &m.ops {
            match op {
                Mut::Put {
                    fam,
                    qual,
                    ts,
                    value,
                } => self.put(row, &fam.0, &qual.0, *ts, value.0.clone(), m.ttl),
                Mut::DeleteVersion { fam, qual, ts } => {
                    let ts = match ts {
                        Some(ts) => Some(*ts),
                        None => self.newest(row, &fam.0, &qual.0, now).map(|(ts, _)| ts),
                    };
                    if let Some(ts) = ts {
                        self.column(row, &fam.0, &qual.0).version_deletes.insert(ts);
                    }
                }
                Mut::DeleteColumn { fam, qual, ts } => {
                    self.column(row, &fam.0, &qual.0)
                        .column_deletes
                        .insert(ts.unwrap_or(now));
                }
                Mut::DeleteFamily { fam, ts } => {
                    self.family_row(row, &fam.0)
                        .family_deletes
                        .insert(ts.unwrap_or(now));
                }
                Mut::DeleteFamilyVersion { fam, ts } => {
                    self.family_row(row, &fam.0)
                        .family_version_deletes
                        .insert(*ts);
                }
                Mut::DeleteRow { ts } => {
                    for s in SPECS {
                        self.family_row(row, s.name)
                            .family_deletes
                            .insert(ts.unwrap_or(now));
                    }
                }
            }
        }
    }

    /// The newest timestamp held anywhere (cells and markers) below [`FAR`].
    fn newest_stamp(&self) -> i64 {
        let mut newest = i64::MIN;
        for fr in self.rows.values().flat_map(|f| f.values()) {
            let cols = fr.columns.values();
            let stamps = fr
                .family_deletes
                .iter()
                .chain(&fr.family_version_deletes)
                .copied()
                .chain(cols.flat_map(|c| {
                    c.puts
                        .keys()
                        .chain(&c.version_deletes)
                        .chain(&c.column_deletes)
                        .copied()
                }));
            for ts in stamps.filter(|&t| t < FAR) {
                newest = newest.max(ts);
            }
        }
        newest
    }

    /// The visible cells of a row for a read, in result order.
    fn read_row(&self, row: &[u8], read: &ReadSpec, now: i64) -> Vec<C> {
        let mut cells = Vec::new();
        let Some(families) = self.rows.get(row) else {
            return cells;
        };
        for s in SPECS {
            let wanted: Option<&BTreeSet<B>> = if read.columns.is_empty() {
                None
            } else {
                match read.columns.get(&B::of(s.name)) {
                    None => continue,
                    Some(q) => q.as_ref(),
                }
            };
            let Some(fr) = families.get(s.name) else {
                continue;
            };
            for (qual, col) in &fr.columns {
                if wanted.is_some_and(|w| !w.contains(&B(qual.clone()))) {
                    continue;
                }
                for (ts, value) in fr.visible(s, col, read.min, read.max, read.versions, now) {
                    cells.push(C {
                        row: B::of(row),
                        family: B::of(s.name),
                        qualifier: B::of(qual),
                        timestamp: ts,
                        cell_type: CellType::Put,
                        value: B(value),
                    });
                }
            }
        }
        cells
    }

    fn get(&self, row: &[u8], read: &ReadSpec, now: i64) -> Option<R> {
        let cells = self.read_row(row, read, now);
        (!cells.is_empty()).then(|| R {
            row: B::of(row),
            cells,
            partial: false,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn scan(
        &self,
        start: &[u8],
        stop: &[u8],
        reversed: bool,
        batch: usize,
        limit: usize,
        read: &ReadSpec,
        now: i64,
    ) -> Vec<R> {
        // HBase's get scan: equal, non-empty start and stop rows read that one row.
        let get_scan = !start.is_empty() && start == stop;
        let reversed = reversed && !get_scan;
        let in_range = |r: &[u8]| {
            if get_scan {
                r == start
            } else if reversed {
                (start.is_empty() || r <= start) && (stop.is_empty() || r > stop)
            } else {
                r >= start && (stop.is_empty() || r < stop)
            }
        };
        let mut rows: Vec<&Vec<u8>> = self.rows.keys().filter(|r| in_range(r)).collect();
        if reversed {
            rows.reverse();
        }
        let mut out = Vec::new();
        let mut returned = 0;
        for row in rows {
            if limit > 0 && returned >= limit {
                break;
            }
            let cells = self.read_row(row, read, now);
            if cells.is_empty() {
                continue;
            }
            returned += 1;
            let piece = if batch == 0 { cells.len() } else { batch };
            let n = cells.len().div_ceil(piece);
            for (i, chunk) in cells.chunks(piece).enumerate() {
                out.push(R {
                    row: B::of(row),
                    cells: chunk.to_vec(),
                    partial: i + 1 < n,
                });
            }
        }
        out
    }

    fn compact(&mut self, major: bool, now: i64) {
        for families in self.rows.values_mut() {
            for (fam, fr) in families.iter_mut() {
                fr.purge(spec(fam), major, now);
            }
        }
    }
}

/// HBase's check-and-mutate condition on a column's newest value.
fn condition_holds(cur: Option<&[u8]>, op: CompareOp, given: Option<&[u8]>) -> bool {
    let not_equal = op == CompareOp::NotEqual;
    match (given.filter(|g| !g.is_empty()), cur) {
        (None, None) => !not_equal,
        (None, Some(stored)) => stored.is_empty() != not_equal,
        (Some(_), None) => false,
        (Some(given), Some(stored)) => match op {
            CompareOp::Less => given < stored,
            CompareOp::LessOrEqual => given <= stored,
            CompareOp::Equal => given == stored,
            CompareOp::NotEqual => given != stored,
            CompareOp::GreaterOrEqual => given >= stored,
            CompareOp::Greater => given > stored,
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Running a case.

/// What an increment or append should produce: per column, the timestamp of the version it
/// builds on and the new value; or the error.
type Expected = Result<Vec<(Option<i64>, Vec<u8>)>, MutateError>;

struct Harness {
    dir: TempDir,
    engine: Option<Engine>,
    model: Model,
}

fn fail(msg: String) -> TestCaseError {
    TestCaseError::fail(msg)
}

impl Harness {
    fn new(splits: &BTreeSet<B>) -> Harness {
        let dir = tempfile::tempdir().expect("temp dir");
        let engine = Engine::open(dir.path(), EngineConfig::default()).expect("open engine");
        let keys: Vec<Vec<u8>> = splits.iter().map(|b| b.0.clone()).collect();
        engine
            .create_table(table_descriptor(), &keys)
            .expect("create table");
        Harness {
            dir,
            engine: Some(engine),
            model: Model::default(),
        }
    }

    fn engine(&self) -> &Engine {
        self.engine.as_ref().expect("engine open")
    }

    fn restart(&mut self) {
        if let Some(e) = self.engine.take() {
            e.close();
            drop(e);
        }
        self.engine = Some(Engine::open(self.dir.path(), EngineConfig::default()).expect("reopen"));
    }

    fn scan_engine(&self, scan: Scan) -> Result<Vec<R>, TestCaseError> {
        let scanner = self
            .engine()
            .scan(TABLE, scan)
            .map_err(|e| fail(format!("scan failed: {e}")))?;
        scanner
            .map(|r| r.map(|r| R::of(&r)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| fail(format!("scan failed: {e}")))
    }

    fn get_engine(&self, row: &[u8], read: &ReadSpec) -> Result<Option<R>, TestCaseError> {
        self.engine()
            .get(TABLE, Get::with(row, read.options()))
            .map(|r| r.map(|r| R::of(&r)))
            .map_err(|e| fail(format!("get failed: {e}")))
    }

    /// Full scans with a few time ranges and version limits, and a get of every row, must
    /// match the model.
    fn check_everything(&self, step: usize) -> Result<(), TestCaseError> {
        for (n, &(min, max, versions)) in PROBES.iter().enumerate() {
            let read = ReadSpec {
                min,
                max,
                ..ReadSpec::everything(versions)
            };
            // The bulk rows (`d...`) only change through compactions: one probe covers them.
            let stop: &[u8] = if n == 0 { b"" } else { b"d" };
            let got = self.scan_engine(Scan {
                options: read.options(),
                ..Scan::range(b"", stop)
            })?;
            let want = self.model.scan(b"", stop, false, 0, 0, &read, now_ms());
            prop_assert_eq!(
                got,
                want,
                "full scan of [{}, {}) with {} versions after step {}",
                min,
                max,
                versions,
                step
            );
        }
        let read = ReadSpec::everything(10);
        for row in ROWS {
            let got = self.get_engine(row, &read)?;
            let want = self.model.get(row, &read, now_ms());
            prop_assert_eq!(got, want, "get after step {}", step);
        }
        Ok(())
    }

    /// Runs a write and returns the time the model should stamp its clock-stamped deletes with.
    /// When `server_stamped`, the write runs in a span of wall-clock time that no stored
    /// timestamp falls in and that later server-stamped writes come after, so every stamp the
    /// engine may pick inside the span masks exactly the same cells as the one the model picks.
    fn clocked<T>(&self, server_stamped: bool, write: impl FnOnce(&Engine) -> T) -> (T, i64) {
        if !server_stamped {
            return (write(self.engine()), now_ms());
        }
        wait_past(self.model.newest_stamp());
        let t0 = now_ms();
        let out = write(self.engine());
        wait_past(now_ms());
        (out, t0)
    }

    fn step(&mut self, i: usize, action: &Action) -> Result<(), TestCaseError> {
        match action {
            Action::Mutate(m) => {
                let (r, now) =
                    self.clocked(m.server_stamped(), |e| e.mutate_row(TABLE, to_mutation(m)));
                prop_assert!(r.is_ok(), "step {}: mutate_row failed: {:?}", i, r);
                self.model.mutate(m, now);
            }
            Action::MutateRows(ms) => {
                let (r, now) = self.clocked(ms.iter().any(RowMut::server_stamped), |e| {
                    e.mutate_rows(TABLE, ms.iter().map(to_mutation).collect())
                });
                prop_assert_eq!(r.len(), ms.len());
                for (res, m) in r.iter().zip(ms) {
                    prop_assert!(res.is_ok(), "step {}: mutate_rows failed: {:?}", i, res);
                    self.model.mutate(m, now);
                }
            }
            Action::Increment { row, cols, ttl } => {
                let now = now_ms();
                let mut expected: Expected = Ok(vec![]);
                for (fam, qual, delta) in cols {
                    let cur = self.model.newest(&row.0, &fam.0, &qual.0, now);
                    let (old, old_ts) = match cur {
                        None => (0, None),
                        Some((ts, v)) => match <[u8; 8]>::try_from(v.as_slice()) {
                            Ok(a) => (i64::from_be_bytes(a), Some(ts)),
                            Err(_) => {
                                expected = Err(MutateError::NotCounter {
                                    family: String::from_utf8_lossy(&fam.0).into_owned(),
                                    qualifier: String::from_utf8_lossy(&qual.0).into_owned(),
                                    width: v.len(),
                                });
                                break;
                            }
                        },
                    };
                    // HBase's counters wrap around past i64::MAX.
                    let new = old.wrapping_add(*delta);
                    if let Ok(v) = expected.as_mut() {
                        v.push((old_ts, new.to_be_bytes().to_vec()));
                    }
                }
                let t0 = now_ms();
                let got = self.engine().increment(
                    TABLE,
                    &row.0,
                    cols.iter()
                        .map(|(f, q, d)| (f.0.clone(), q.0.clone(), *d))
                        .collect(),
                    *ttl,
                    Durability::UseDefault,
                );
                let t1 = now_ms();
                let cols: Vec<(B, B)> = cols
                    .iter()
                    .map(|(f, q, _)| (f.clone(), q.clone()))
                    .collect();
                self.server_stamped(i, "increment", row, &cols, expected, got, *ttl, t0, t1)?;
            }
            Action::Append { row, cols, ttl } => {
                let now = now_ms();
                let mut expected = Vec::new();
                for (fam, qual, suffix) in cols {
                    let (old_ts, mut v) = match self.model.newest(&row.0, &fam.0, &qual.0, now) {
                        None => (None, Vec::new()),
                        Some((ts, v)) => (Some(ts), v),
                    };
                    v.extend_from_slice(&suffix.0);
                    expected.push((old_ts, v));
                }
                let t0 = now_ms();
                let got = self.engine().append(
                    TABLE,
                    &row.0,
                    cols.iter()
                        .map(|(f, q, s)| (f.0.clone(), q.0.clone(), s.0.clone()))
                        .collect(),
                    *ttl,
                    Durability::UseDefault,
                );
                let t1 = now_ms();
                let cols: Vec<(B, B)> = cols
                    .iter()
                    .map(|(f, q, _)| (f.clone(), q.clone()))
                    .collect();
                self.server_stamped(i, "append", row, &cols, Ok(expected), got, *ttl, t0, t1)?;
            }
            Action::CheckAndMutate {
                fam,
                qual,
                op,
                value,
                mutation,
            } => {
                let now = now_ms();
                let cur = self.model.newest(&mutation.row.0, &fam.0, &qual.0, now);
                let want = condition_holds(
                    cur.as_ref().map(|(_, v)| v.as_slice()),
                    *op,
                    value.as_ref().map(|b| b.0.as_slice()),
                );
                let (got, now) = self.clocked(mutation.server_stamped(), |e| {
                    e.check_and_mutate(
                        TABLE,
                        Condition {
                            family: fam.0.clone(),
                            qualifier: qual.0.clone(),
                            op: *op,
                            value: value.as_ref().map(|b| b.0.clone()),
                        },
                        to_mutation(mutation),
                    )
                });
                prop_assert_eq!(
                    got,
                    Ok(want),
                    "step {}: check_and_mutate (current value {:?})",
                    i,
                    cur
                );
                if want {
                    self.model.mutate(mutation, now);
                }
            }
            Action::Get { row, read } => {
                let got = self.get_engine(&row.0, read)?;
                let want = self.model.get(&row.0, read, now_ms());
                prop_assert_eq!(got, want, "step {}: get", i);
            }
            Action::Scan {
                start,
                stop,
                reversed,
                batch,
                limit,
                read,
            } => {
                let got = self.scan_engine(Scan {
                    start: start.0.clone(),
                    stop: stop.0.clone(),
                    reversed: *reversed,
                    batch: *batch,
                    limit: *limit,
                    caching: 0,
                    options: read.options(),
                })?;
                let want =
                    self.model
                        .scan(&start.0, &stop.0, *reversed, *batch, *limit, read, now_ms());
                prop_assert_eq!(got, want, "step {}: scan", i);
            }
            Action::Split { at } => match self.engine().split_region(TABLE, &at.0, Some(&at.0)) {
                Ok(_) | Err(TableError::CannotSplit { .. }) => {}
                Err(e) => return Err(fail(format!("step {i}: split failed: {e}"))),
            },
            Action::Compact { major } => {
                let r = self.engine().compact(TABLE, *major);
                prop_assert!(r.is_ok(), "step {}: compact failed: {:?}", i, r);
                self.model.compact(*major, now_ms());
            }
            Action::Restart => self.restart(),
            Action::Bulk { seed } => {
                let rows = bulk(*seed);
                let r = self
                    .engine()
                    .mutate_rows(TABLE, rows.iter().map(to_mutation).collect());
                prop_assert!(
                    r.iter().all(|r| r.is_ok()),
                    "step {}: bulk load failed: {:?}",
                    i,
                    r.iter().find(|r| r.is_err())
                );
                let now = now_ms();
                for m in &rows {
                    self.model.mutate(m, now);
                }
            }
        }
        self.check_everything(i)
    }

    /// Checks an increment's or append's answer against the model's expectation (a value and
    /// the previous version's timestamp per column), then records the new cells in the model.
    #[allow(clippy::too_many_arguments)]
    fn server_stamped(
        &mut self,
        i: usize,
        what: &str,
        row: &B,
        cols: &[(B, B)],
        expected: Expected,
        got: Result<Vec<Cell>, MutateError>,
        ttl: Option<i64>,
        t0: i64,
        t1: i64,
    ) -> Result<(), TestCaseError> {
        let expected = match expected {
            Err(e) => {
                prop_assert_eq!(got.err(), Some(e), "step {}: {}", i, what);
                return Ok(());
            }
            Ok(x) => x,
        };
        let cells: Vec<C> = match got {
            Ok(c) => c.iter().map(C::of).collect(),
            Err(e) => return Err(fail(format!("step {i}: {what} failed: {e:?}"))),
        };
        prop_assert_eq!(cells.len(), cols.len(), "step {}: {} cells", i, what);
        // The engine answers in HBase's cell order (family, then qualifier), not request order.
        let mut wanted: Vec<_> = cols.iter().zip(&expected).collect();
        wanted.sort_by(|a, b| a.0.cmp(b.0));
        for (cell, ((fam, qual), (old_ts, value))) in cells.iter().zip(wanted) {
            prop_assert_eq!(&cell.row, row);
            prop_assert_eq!(&cell.family, fam);
            prop_assert_eq!(&cell.qualifier, qual);
            prop_assert_eq!(cell.cell_type, CellType::Put);
            prop_assert_eq!(&cell.value.0, value, "step {}: {} value", i, what);
            let floor = old_ts.map_or(i64::MIN, |t| t + 1);
            prop_assert!(
                cell.timestamp >= t0.max(floor) && cell.timestamp <= t1.max(floor),
                "step {}: {} stamped {} (call between {} and {}, previous version {:?})",
                i,
                what,
                cell.timestamp,
                t0,
                t1,
                old_ts
            );
        }
        for cell in cells {
            self.model.put(
                &cell.row.0,
                &cell.family.0,
                &cell.qualifier.0,
                cell.timestamp,
                cell.value.0,
                ttl,
            );
        }
        Ok(())
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(e) = self.engine.take() {
            e.close();
        }
    }
}

fn run_case(splits: &BTreeSet<B>, actions: &[Action]) -> Result<(), TestCaseError> {
    let mut h = Harness::new(splits);
    for (i, a) in actions.iter().enumerate() {
        h.step(i, a)?;
    }
    // A last restart and major compaction must not change anything either.
    h.restart();
    h.check_everything(actions.len())?;
    h.step(actions.len() + 1, &Action::Compact { major: true })
}

fn config() -> ProptestConfig {
    let default = ProptestConfig::default();
    ProptestConfig {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            default.cases
        } else {
            48
        },
        // Failures are reduced to explicit regression tests below, not files next to the source.
        failure_persistence: None,
        ..default
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn engine_matches_model(
        splits in prop::collection::btree_set(pick(SPLIT_POINTS), 0..3),
        actions in prop::collection::vec(action(), 5..40),
    ) {
        run_case(&splits, &actions)?;
    }
}

/// A minor compaction that removes cells, then a write to the same region. While the engine's
/// reads were being changed to keep redb page guards, this sequence (found by the model test)
/// tripped redb's `!read_page_ref_counts.contains_key(&page)` assertion in the compaction's
/// commit, some of the time; hence the repetitions.
#[test]
fn minor_compaction_then_write() {
    for _ in 0..10 {
        minor_compaction_then_write_once();
    }
}

fn minor_compaction_then_write_once() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    e.create_table(table_descriptor(), &[]).unwrap();
    e.mutate_row(
        TABLE,
        RowMutation::new(b"ab")
            .with(Op::put_at(b"c", b"q", 0, b""))
            .with(Op::DeleteRow { timestamp: None }),
    )
    .unwrap();
    e.mutate_row(
        TABLE,
        RowMutation::new(b"ab").with(Op::put_at(b"a", b"q", 0, b"")),
    )
    .unwrap();
    e.mutate_row(
        TABLE,
        RowMutation::new(b"ab").with(Op::put_at(b"a", b"q", 0, b"")),
    )
    .unwrap();
    e.compact(TABLE, false).unwrap();
    e.mutate_row(
        TABLE,
        RowMutation::new(b"ab").with(Op::put_at(b"a", b"q", 0, b"")),
    )
    .unwrap();
    // The DeleteRow (stamped now) masks every put at timestamp 0.
    assert_eq!(e.get(TABLE, Get::new(b"ab")).unwrap(), None);
    e.close();
}
