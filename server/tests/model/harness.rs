//! Running a case: each step against the engine and the model, then every read compared.

use super::*;

/// What an increment or append should produce: per column, the timestamp of the version it
/// builds on and the new value; or the error.
pub(crate) type Expected = Result<Vec<(Option<i64>, Vec<u8>)>, MutateError>;

pub(crate) struct Harness {
    pub(crate) dir: TempDir,
    pub(crate) engine: Option<Engine>,
    pub(crate) model: Model,
}

pub(crate) fn fail(msg: String) -> TestCaseError {
    TestCaseError::fail(msg)
}

impl Harness {
    pub(crate) fn new(splits: &BTreeSet<B>) -> Harness {
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

    pub(crate) fn engine(&self) -> &Engine {
        self.engine.as_ref().expect("engine open")
    }

    pub(crate) fn restart(&mut self) {
        if let Some(e) = self.engine.take() {
            e.close();
            drop(e);
        }
        self.engine = Some(Engine::open(self.dir.path(), EngineConfig::default()).expect("reopen"));
    }

    pub(crate) fn scan_engine(&self, scan: Scan) -> Result<Vec<R>, TestCaseError> {
        let scanner = self
            .engine()
            .scan(TABLE, scan)
            .map_err(|e| fail(format!("scan failed: {e}")))?;
        scanner
            .map(|r| r.map(|r| R::of(&r)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| fail(format!("scan failed: {e}")))
    }

    pub(crate) fn get_engine(
        &self,
        row: &[u8],
        read: &ReadSpec,
    ) -> Result<Option<R>, TestCaseError> {
        self.engine()
            .get(TABLE, Get::with(row, read.options()))
            .map(|r| r.map(|r| R::of(&r)))
            .map_err(|e| fail(format!("get failed: {e}")))
    }

    /// Full scans with a few time ranges and version limits, and a get of every row, must
    /// match the model.
    pub(crate) fn check_everything(&self, step: usize) -> Result<(), TestCaseError> {
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
    pub(crate) fn clocked<T>(
        &self,
        server_stamped: bool,
        write: impl FnOnce(&Engine) -> T,
    ) -> (T, i64) {
        if !server_stamped {
            return (write(self.engine()), now_ms());
        }
        wait_past(self.model.newest_stamp());
        let t0 = now_ms();
        let out = write(self.engine());
        wait_past(now_ms());
        (out, t0)
    }

    pub(crate) fn step(&mut self, i: usize, action: &Action) -> Result<(), TestCaseError> {
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
    pub(crate) fn server_stamped(
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
