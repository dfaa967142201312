//! Thrift2 reads, writes and scanners.

use crate::engine::{CompareOp, Durability, Get, RowMutation, Scan};
use crate::gateway::requests::{apply, condition, filter_string, table_regions, text as table};
use crate::gateway::Need;
use crate::generated::hbase2::*;

use super::convert::*;
use super::Handler;

/// The filter a TGet or TScan asks for; a bad filter string fails the call
/// ([`filter_string`]).
///
/// `filterBytes` (HBase's serialized protobuf filter, what its Java ThriftConnection sends) is
/// decoded by [`crate::filter::from_serialized`]. As in HBase's ThriftUtilities, a filter
/// string that is also set is parsed first (so a bad one still fails) and the bytes then
/// replace it. Bytes that cannot become a filter are a TIOError, as in HBase, where they raise
/// an IOException the handler turns into one (canRetry false but for bytes that are no Filter
/// message at all); ours names the problem.
fn filter_of(
    f: &Option<Vec<u8>>,
    bytes: &Option<Vec<u8>>,
) -> thrift::Result<Option<Box<dyn crate::engine::Filter>>> {
    let parsed = f.as_deref().map(filter_string).transpose()?;
    match bytes {
        None => Ok(parsed),
        Some(b) => crate::filter::from_serialized(b)
            .map(Some)
            .map_err(|e| io_error(format!("invalid filterBytes: {e}"), e.can_retry())),
    }
}

impl Handler {
    pub(super) fn get(&self, t: &[u8], g: TGet) -> thrift::Result<TResult> {
        self.may(Need::Read(&table(t)))?;
        let mut opts = get_options(&g)?;
        opts.filter = filter_of(&g.filter_string, &g.filter_bytes)?;
        let r = self
            .engine
            .get(&table(t), Get::with(&g.row, opts))
            .map_err(from_data)?;
        if g.existence_only == Some(true) {
            // HBase answers an existence-only get with an empty result either way.
            return Ok(result(None));
        }
        Ok(result(r))
    }

    pub(super) fn exists(&self, t: &[u8], g: TGet) -> thrift::Result<bool> {
        self.may(Need::Read(&table(t)))?;
        let mut opts = get_options(&g)?;
        opts.filter = filter_of(&g.filter_string, &g.filter_bytes)?;
        Ok(self
            .engine
            .get(&table(t), Get::with(&g.row, opts))
            .map_err(from_data)?
            .is_some())
    }

    /// `batch`: the call is `putMultiple`, whose write failures HBase reports as retryable
    /// ([`as_batch_error`]); a refusal before the write (access, an empty put) is not.
    pub(super) fn put(&self, t: &[u8], puts: Vec<TPut>, batch: bool) -> thrift::Result<()> {
        self.may(Need::Write(&table(t)))?;
        // HBase's client checks every put before sending any: one empty put fails the whole
        // call and writes nothing.
        if let Some(p) = puts.iter().find(|p| p.column_values.is_empty()) {
            return Err(application(format!(
                "No columns to insert for row {:?}",
                String::from_utf8_lossy(&p.row)
            )));
        }
        let muts = puts
            .iter()
            .map(put_mutation)
            .collect::<thrift::Result<Vec<_>>>()?;
        self.apply(t, muts, batch)
    }

    /// `batch` as for [`Self::put`] (`deleteMultiple`).
    pub(super) fn delete(
        &self,
        t: &[u8],
        deletes: Vec<TDelete>,
        batch: bool,
    ) -> thrift::Result<()> {
        self.may(Need::Write(&table(t)))?;
        let muts = deletes
            .iter()
            .map(delete_mutation)
            .collect::<thrift::Result<Vec<_>>>()?;
        self.apply(t, muts, batch)
    }

    fn apply(&self, t: &[u8], muts: Vec<RowMutation>, batch: bool) -> thrift::Result<()> {
        apply(&self.engine, &table(t), muts)
            .map_err(from_data)
            .map_err(|e| if batch { as_batch_error(e) } else { e })
    }

    /// The mutations of a TRowMutations as one atomic row mutation.
    pub(super) fn row_mutations(&self, rm: &TRowMutations) -> thrift::Result<RowMutation> {
        let mut all = RowMutation::new(&rm.row);
        for m in &rm.mutations {
            let part = match m {
                TMutation::Put(p) => put_mutation(p)?,
                TMutation::DeleteSingle(d) => delete_mutation(d)?,
            };
            if part.row != rm.row {
                return Err(io_error(
                    format!(
                        "mutation for row {:?} inside row mutations of {:?}",
                        String::from_utf8_lossy(&part.row),
                        String::from_utf8_lossy(&rm.row)
                    ),
                    false,
                ));
            }
            if part.ttl_ms.is_some() {
                all.ttl_ms = part.ttl_ms;
            }
            if part.durability != Durability::UseDefault {
                all.durability = part.durability;
            }
            all.ops.extend(part.ops);
        }
        Ok(all)
    }

    pub(super) fn mutate_row(&self, t: &[u8], rm: TRowMutations) -> thrift::Result<()> {
        self.may(Need::Write(&table(t)))?;
        let m = self.row_mutations(&rm)?;
        // HBase sends a TRowMutations as a batch: its write failures are retryable.
        self.engine
            .mutate_row(&table(t), m)
            .map_err(from_data)
            .map_err(as_batch_error)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_and_mutate(
        &self,
        t: &[u8],
        row: Vec<u8>,
        family: Vec<u8>,
        qualifier: Vec<u8>,
        op: TCompareOperator,
        value: Vec<u8>,
        m: RowMutation,
    ) -> thrift::Result<bool> {
        self.may(Need::CheckAndWrite(&table(t)))?;
        if m.row != row {
            return Err(io_error(
                format!(
                    "the mutation's row {:?} differs from the checked row {:?}",
                    String::from_utf8_lossy(&m.row),
                    String::from_utf8_lossy(&row)
                ),
                false,
            ));
        }
        let op = match op {
            TCompareOperator::LESS => CompareOp::Less,
            TCompareOperator::LESS_OR_EQUAL => CompareOp::LessOrEqual,
            TCompareOperator::EQUAL => CompareOp::Equal,
            TCompareOperator::NOT_EQUAL => CompareOp::NotEqual,
            TCompareOperator::GREATER_OR_EQUAL => CompareOp::GreaterOrEqual,
            TCompareOperator::GREATER => CompareOp::Greater,
            other => {
                return Err(io_error(
                    format!("compare operator {} cannot check a value", other.0),
                    false,
                ))
            }
        };
        let cond = condition(family, qualifier, op, value);
        self.engine
            .check_and_mutate(&table(t), cond, m)
            .map_err(from_data)
    }

    pub(super) fn increment(&self, t: &[u8], inc: TIncrement) -> thrift::Result<TResult> {
        self.may(Need::Write(&table(t)))?;
        let cols = inc
            .columns
            .iter()
            .map(|c| (c.family.clone(), c.qualifier.clone(), c.amount.unwrap_or(1)))
            .collect();
        let ttl = ttl_attribute(&inc.attributes)?;
        let cells = self
            .engine
            .increment(&table(t), &inc.row, cols, ttl, durability(inc.durability))
            .map_err(from_data)?;
        Ok(if inc.return_results == Some(false) {
            result(None)
        } else {
            cells_result(&inc.row, &cells)
        })
    }

    pub(super) fn append(&self, t: &[u8], app: TAppend) -> thrift::Result<TResult> {
        self.may(Need::Write(&table(t)))?;
        let cols = app
            .columns
            .iter()
            .map(|c| (c.family.clone(), c.qualifier.clone(), c.value.clone()))
            .collect();
        let ttl = ttl_attribute(&app.attributes)?;
        let cells = self
            .engine
            .append(&table(t), &app.row, cols, ttl, durability(app.durability))
            .map_err(from_data)?;
        Ok(if app.return_results == Some(false) {
            result(None)
        } else {
            cells_result(&app.row, &cells)
        })
    }

    fn scan_of(s: &TScan) -> thrift::Result<Scan> {
        let mut opts = crate::engine::ReadOptions {
            filter: filter_of(&s.filter_string, &s.filter_bytes)?,
            ..Default::default()
        };
        read_columns(&mut opts, s.columns.as_deref().unwrap_or_default());
        if let Some(tr) = &s.time_range {
            opts.time_range = time_range(tr);
        }
        for (f, tr) in s.col_fam_time_range_map.iter().flatten() {
            opts.family_time_ranges.insert(f.clone(), time_range(tr));
        }
        opts.max_versions = s.max_versions.unwrap_or(1).max(1) as u32;
        Ok(Scan {
            start: s.start_row.clone().unwrap_or_default(),
            stop: s.stop_row.clone().unwrap_or_default(),
            reversed: s.reversed.unwrap_or(false),
            batch: s.batch_size.unwrap_or(0).max(0) as usize,
            caching: s.caching.unwrap_or(0).max(0) as usize,
            limit: s.limit.unwrap_or(0).max(0) as usize,
            options: opts,
        })
    }

    pub(super) fn open_scanner(&self, t: &[u8], s: TScan) -> thrift::Result<i32> {
        self.may(Need::Read(&table(t)))?;
        // The scanner budget first: the filter is parsed only once it has room.
        let text = |b: &Option<Vec<u8>>| b.as_ref().map_or(0, Vec::len);
        let keys = [&s.start_row, &s.stop_row].map(text);
        let columns = s
            .columns
            .iter()
            .flatten()
            .map(|c| c.family.len() + c.qualifier.as_ref().map_or(0, Vec::len));
        let held = self
            .scanners
            .reserve(crate::scanners::scan_bytes(
                text(&s.filter_string) + text(&s.filter_bytes),
                keys.into_iter().chain(columns),
            ))
            .map_err(from_data)?;
        let scan = Self::scan_of(&s)?;
        let scanner = self.engine.scan(&table(t), scan).map_err(from_data)?;
        self.scanners
            .open(scanner, self.access.owner(), held)
            .map_err(from_data)
    }

    pub(super) fn scanner_rows(&self, id: i32, n: i32) -> thrift::Result<Vec<TResult>> {
        self.may_use_scanner(id)?;
        let Some((rows, _owner)) = self.scanners.next_batch(id, n) else {
            return Err(illegal("Invalid scanner Id"));
        };
        let rows = rows.map_err(from_data)?;
        Ok(rows.into_iter().map(|r| result(Some(r))).collect())
    }

    pub(super) fn scanner_results(
        &self,
        t: &[u8],
        s: TScan,
        n: i32,
    ) -> thrift::Result<Vec<TResult>> {
        self.may(Need::Read(&table(t)))?;
        let scan = Self::scan_of(&s)?;
        let mut scanner = self.engine.scan(&table(t), scan).map_err(from_data)?;
        let rows = scanner.next_batch(n.max(0) as usize).map_err(from_data)?;
        Ok(rows.into_iter().map(|r| result(Some(r))).collect())
    }

    fn location(&self, r: &crate::engine::RegionInfo) -> THRegionLocation {
        THRegionLocation {
            server_name: TServerName {
                host_name: self.advertised.host.clone(),
                port: Some(self.advertised.port),
                start_code: Some(self.start_code),
            },
            region_info: THRegionInfo {
                region_id: r.meta.id as i64,
                table_name: r.meta.table.clone().into_bytes(),
                start_key: Some(r.meta.start.clone()),
                end_key: Some(r.meta.end.clone()),
                offline: Some(false),
                split: Some(false),
                replica_id: Some(0),
            },
        }
    }

    pub(super) fn region_location(&self, t: &[u8], row: &[u8]) -> thrift::Result<THRegionLocation> {
        let r = self.engine.region_of(&table(t), row).map_err(from_admin)?;
        Ok(self.location(&r))
    }

    /// HBase answers an empty list for a table that does not exist.
    pub(super) fn all_region_locations(&self, t: &[u8]) -> thrift::Result<Vec<THRegionLocation>> {
        let regions = table_regions(&self.engine, &table(t)).map_err(from_admin)?;
        Ok(regions.iter().map(|r| self.location(r)).collect())
    }
}
