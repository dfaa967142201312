//! The model: HBase's data model in memory, written from the semantics alone (versions,
//! every delete marker kind, TTLs, version limits, what minor and major compactions keep).

use super::*;

#[derive(Clone, Debug, Default)]
pub(crate) struct Column {
    /// Timestamp -> (value, cell TTL).
    pub(crate) puts: BTreeMap<i64, (Vec<u8>, Option<i64>)>,
    /// DeleteVersion markers.
    pub(crate) version_deletes: BTreeSet<i64>,
    /// DeleteColumn markers.
    pub(crate) column_deletes: BTreeSet<i64>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct FamilyRow {
    pub(crate) family_deletes: BTreeSet<i64>,
    pub(crate) family_version_deletes: BTreeSet<i64>,
    pub(crate) columns: BTreeMap<Vec<u8>, Column>,
}

impl FamilyRow {
    /// Whether a put at `ts` is masked by a marker that `counts`.
    pub(crate) fn masked(&self, col: &Column, ts: i64, counts: impl Fn(i64) -> bool) -> bool {
        self.family_deletes.iter().any(|&d| counts(d) && ts <= d)
            || self.family_version_deletes.contains(&ts) && counts(ts)
            || col.column_deletes.iter().any(|&d| counts(d) && ts <= d)
            || col.version_deletes.contains(&ts) && counts(ts)
    }

    /// The visible versions of one column, newest first.
    pub(crate) fn visible(
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
    pub(crate) fn purge(&mut self, spec: &FamilySpec, major: bool, now: i64) {
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
pub(crate) struct Model {
    /// Row -> family -> its cells.
    pub(crate) rows: BTreeMap<Vec<u8>, BTreeMap<Vec<u8>, FamilyRow>>,
}

impl Model {
    pub(crate) fn family_row(&mut self, row: &[u8], fam: &[u8]) -> &mut FamilyRow {
        self.rows
            .entry(row.to_vec())
            .or_default()
            .entry(fam.to_vec())
            .or_default()
    }

    pub(crate) fn column(&mut self, row: &[u8], fam: &[u8], qual: &[u8]) -> &mut Column {
        self.family_row(row, fam)
            .columns
            .entry(qual.to_vec())
            .or_default()
    }

    /// The newest visible version of a column, as increments and checks see it.
    pub(crate) fn newest(
        &self,
        row: &[u8],
        fam: &[u8],
        qual: &[u8],
        now: i64,
    ) -> Option<(i64, Vec<u8>)> {
        let fr = self.rows.get(row)?.get(fam)?;
        let col = fr.columns.get(qual)?;
        fr.visible(spec(fam), col, 0, i64::MAX, 1, now)
            .into_iter()
            .next()
    }

    pub(crate) fn put(
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
    pub(crate) fn mutate(&mut self, m: &RowMut, now: i64) {
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
    pub(crate) fn newest_stamp(&self) -> i64 {
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
    pub(crate) fn read_row(&self, row: &[u8], read: &ReadSpec, now: i64) -> Vec<C> {
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

    pub(crate) fn get(&self, row: &[u8], read: &ReadSpec, now: i64) -> Option<R> {
        let cells = self.read_row(row, read, now);
        (!cells.is_empty()).then(|| R {
            row: B::of(row),
            cells,
            partial: false,
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn scan(
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

    pub(crate) fn compact(&mut self, major: bool, now: i64) {
        for families in self.rows.values_mut() {
            for (fam, fr) in families.iter_mut() {
                fr.purge(spec(fam), major, now);
            }
        }
    }
}

/// HBase's check-and-mutate condition on a column's newest value.
pub(crate) fn condition_holds(cur: Option<&[u8]>, op: CompareOp, given: Option<&[u8]>) -> bool {
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
