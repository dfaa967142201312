//! The operations a case is made of, and the result types they are compared by (cells and
//! rows that print readably in a failing case).

use super::*;

/// Bytes that print readably in a failing case.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct B(pub(crate) Vec<u8>);

impl fmt::Debug for B {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

impl B {
    pub(crate) fn of(b: &[u8]) -> B {
        B(b.to_vec())
    }
}

/// A result cell, independent of the engine's buffer types and printing readably.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct C {
    pub(crate) row: B,
    pub(crate) family: B,
    pub(crate) qualifier: B,
    pub(crate) timestamp: i64,
    pub(crate) cell_type: CellType,
    pub(crate) value: B,
}

impl C {
    pub(crate) fn of(c: &Cell) -> C {
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
pub(crate) struct R {
    pub(crate) row: B,
    pub(crate) cells: Vec<C>,
    pub(crate) partial: bool,
}

impl R {
    pub(crate) fn of(r: &RowResult) -> R {
        R {
            row: B::of(r.row()),
            cells: r.to_cells().iter().map(C::of).collect(),
            partial: r.partial,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Mut {
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
    pub(crate) fn server_stamped(&self) -> bool {
        matches!(
            self,
            Mut::DeleteColumn { ts: None, .. }
                | Mut::DeleteFamily { ts: None, .. }
                | Mut::DeleteRow { ts: None }
        )
    }
}

#[derive(Clone, Debug)]
pub(crate) struct RowMut {
    pub(crate) row: B,
    pub(crate) ops: Vec<Mut>,
    pub(crate) ttl: Option<i64>,
    pub(crate) durability: Durability,
}

impl RowMut {
    pub(crate) fn server_stamped(&self) -> bool {
        self.ops.iter().any(Mut::server_stamped)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct ReadSpec {
    /// Empty = every family; None = every qualifier of the family.
    pub(crate) columns: BTreeMap<B, Option<BTreeSet<B>>>,
    pub(crate) min: i64,
    pub(crate) max: i64,
    pub(crate) versions: u32,
}

impl ReadSpec {
    pub(crate) fn everything(versions: u32) -> ReadSpec {
        ReadSpec {
            columns: BTreeMap::new(),
            min: 0,
            max: i64::MAX,
            versions,
        }
    }

    pub(crate) fn options(&self) -> ReadOptions {
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
pub(crate) enum Action {
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

pub(crate) fn to_op(m: &Mut) -> Op {
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

pub(crate) fn bulk(seed: usize) -> Vec<RowMut> {
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

pub(crate) fn to_mutation(m: &RowMut) -> RowMutation {
    RowMutation {
        row: m.row.0.clone(),
        ops: m.ops.iter().map(to_op).collect(),
        ttl_ms: m.ttl,
        durability: m.durability,
    }
}
