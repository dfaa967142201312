//! Thrift1 reads and writes of rows and cells.

use crate::engine::{CompareOp, Durability, Get, Op, ReadOptions, RowMutation};
use crate::gateway::requests::{apply, condition};
use crate::gateway::Need;
use crate::generated::hbase1::*;

use super::convert::*;
use super::{table_str, Handler};

/// Row batches as (row, mutations) pairs.
pub(super) fn batches(b: Vec<BatchMutation>) -> Vec<(Text, Vec<Mutation>)> {
    b.into_iter()
        .map(|b| (b.row.unwrap_or_default(), b.mutations.unwrap_or_default()))
        .collect()
}

impl Handler {
    /// get / getVer / getVerTs: the cells of one column spec, newest first.
    pub(super) fn get_cells(
        &self,
        table: Text,
        row: Text,
        column: Text,
        ts: Option<i64>,
        versions: i32,
    ) -> thrift::Result<Vec<TCell>> {
        self.may(Need::Read(&table_str(&table)))?;
        if versions <= 0 {
            // HBase sends this as a retryable IOError (observed on 2.6.1).
            return Err(io_error(
                format!("numVersions must be positive, got {versions}"),
                true,
            ));
        }
        let mut opts = read_options(&[column]).versions(versions as u32);
        if let Some(ts) = ts {
            opts.time_range = before(ts);
        }
        let r = self
            .engine
            .get(&table_str(&table), Get::with(&row, opts))
            .map_err(from_read)?;
        Ok(tcells(r))
    }

    /// getRow* / getRows*: rows that exist, in request order; missing rows are left out.
    pub(super) fn get_rows(
        &self,
        table: Text,
        rows: Vec<Text>,
        columns: Vec<Text>,
        ts: Option<i64>,
    ) -> thrift::Result<Vec<TRowResult>> {
        let table = table_str(&table);
        self.may(Need::Read(&table))?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let mut opts = read_options(&columns);
            if let Some(ts) = ts {
                opts.time_range = before(ts);
            }
            if let Some(r) = self
                .engine
                .get(&table, Get::with(&row, opts))
                .map_err(from_read)?
            {
                out.push(row_result(r, false));
            }
        }
        Ok(out)
    }

    /// One row's Thrift1 mutations as an engine mutation: deletes first, then puts, as HBase
    /// applies them; a delete with a timestamp removes every version at or before it. A put to a
    /// bare family is skipped (HBase only logs it) unless `strict`, as in HBase's mutateRows,
    /// where it is an IllegalArgument.
    fn row_mutation(
        row: Text,
        mutations: Vec<Mutation>,
        ts: Option<i64>,
        strict: bool,
    ) -> thrift::Result<RowMutation> {
        let mut m = RowMutation::new(&row);
        let mut puts = Vec::new();
        let mut durable = true;
        for mu in mutations {
            let spec = ColumnSpec::parse(&mu.column.unwrap_or_default());
            if mu.write_to_w_a_l == Some(false) {
                durable = false;
            }
            if mu.is_delete.unwrap_or(false) {
                m.ops.push(match spec {
                    ColumnSpec::Family(family) => Op::DeleteFamily {
                        family,
                        timestamp: ts,
                    },
                    ColumnSpec::Column(family, qualifier) => Op::DeleteColumn {
                        family,
                        qualifier,
                        timestamp: ts,
                    },
                });
            } else {
                match spec {
                    ColumnSpec::Family(_) if strict => {
                        return Err(illegal("Invalid famAndQf provided."));
                    }
                    ColumnSpec::Family(f) => {
                        tracing::warn!(family = %text(&f), "put without a qualifier skipped, as HBase does");
                    }
                    ColumnSpec::Column(family, qualifier) => puts.push(Op::Put {
                        family,
                        qualifier,
                        timestamp: ts,
                        value: mu.value.unwrap_or_default(),
                    }),
                }
            }
        }
        m.ops.extend(puts);
        if !durable {
            m.durability = Durability::SkipWal;
        }
        Ok(m)
    }

    pub(super) fn mutate_rows(
        &self,
        table: Text,
        rows: Vec<(Text, Vec<Mutation>)>,
        ts: Option<i64>,
        batch: bool,
    ) -> thrift::Result<()> {
        let table = table_str(&table);
        self.may(Need::Write(&table))?;
        let strict = batch;
        let mut muts = Vec::with_capacity(rows.len());
        for (row, m) in rows {
            let m = Self::row_mutation(row, m, ts, strict)?;
            if !m.ops.is_empty() {
                muts.push(m);
            }
        }
        apply(&self.engine, &table, muts).map_err(|e| {
            if batch {
                from_batch(e)
            } else {
                from_engine(e)
            }
        })
    }

    pub(super) fn atomic_increment(
        &self,
        table: Text,
        row: Text,
        column: Text,
        value: i64,
    ) -> thrift::Result<i64> {
        self.may(Need::Write(&table_str(&table)))?;
        let (f, q) = ColumnSpec::parse(&column).write_target();
        let cells = self
            .engine
            .increment(
                &table_str(&table),
                &row,
                vec![(f, q, value)],
                None,
                Durability::UseDefault,
            )
            .map_err(from_engine)?;
        let v = cells
            .first()
            .and_then(|c| <[u8; 8]>::try_from(&c.value[..]).ok())
            .map(i64::from_be_bytes)
            .unwrap_or(0);
        Ok(v)
    }

    pub(super) fn increment(&self, incs: Vec<TIncrement>) -> thrift::Result<()> {
        // Every table named is checked before any increment applies.
        for i in &incs {
            self.may(Need::Write(&table_str(
                i.table.as_deref().unwrap_or_default(),
            )))?;
        }
        for i in incs {
            let (f, q) = ColumnSpec::parse(&i.column.unwrap_or_default()).write_target();
            self.engine
                .increment(
                    &table_str(&i.table.unwrap_or_default()),
                    &i.row.unwrap_or_default(),
                    vec![(f, q, i.ammount.unwrap_or(0))],
                    None,
                    Durability::UseDefault,
                )
                .map_err(from_engine)?;
        }
        Ok(())
    }

    /// deleteAll / deleteAllTs (a column spec) and deleteAllRow / deleteAllRowTs (column None).
    pub(super) fn delete_all(
        &self,
        table: Text,
        row: Text,
        column: Option<Text>,
        ts: Option<i64>,
    ) -> thrift::Result<()> {
        self.may(Need::Write(&table_str(&table)))?;
        let op = match column.map(|c| ColumnSpec::parse(&c)) {
            None => Op::DeleteRow { timestamp: ts },
            Some(ColumnSpec::Family(family)) => Op::DeleteFamily {
                family,
                timestamp: ts,
            },
            Some(ColumnSpec::Column(family, qualifier)) => Op::DeleteColumn {
                family,
                qualifier,
                timestamp: ts,
            },
        };
        self.engine
            .mutate_row(&table_str(&table), RowMutation::new(&row).with(op))
            .map_err(from_engine)
    }

    pub(super) fn append(&self, a: TAppend) -> thrift::Result<Vec<TCell>> {
        self.may(Need::Write(&table_str(
            a.table.as_deref().unwrap_or_default(),
        )))?;
        let columns = a.columns.unwrap_or_default();
        let values = a.values.unwrap_or_default();
        if columns.len() != values.len() {
            // HBase fails here with an unchecked exception: a TApplicationException, with our
            // message saying what was wrong.
            return Err(application(format!(
                "append has {} columns but {} values",
                columns.len(),
                values.len()
            )));
        }
        let cols = columns
            .iter()
            .zip(values)
            .map(|(c, v)| {
                let (f, q) = ColumnSpec::parse(c).write_target();
                (f, q, v)
            })
            .collect();
        let cells = self
            .engine
            .append(
                &table_str(&a.table.unwrap_or_default()),
                &a.row.unwrap_or_default(),
                cols,
                None,
                Durability::UseDefault,
            )
            .map_err(from_engine)?;
        Ok(cells.iter().map(|c| tcell(&c.view())).collect())
    }

    /// Puts `mput` if the column's newest value equals `value` (an empty or unset value means
    /// the column must not exist).
    pub(super) fn check_and_put(
        &self,
        table: Text,
        row: Text,
        column: Text,
        value: Text,
        mput: Mutation,
    ) -> thrift::Result<bool> {
        self.may(Need::CheckAndWrite(&table_str(&table)))?;
        let (family, qualifier) = ColumnSpec::parse(&column).write_target();
        let m = Self::row_mutation(row, vec![mput], None, false)?;
        let cond = condition(family, qualifier, CompareOp::Equal, value);
        self.engine
            .check_and_mutate(&table_str(&table), cond, m)
            .map_err(from_engine)
    }
}

/// Read options for a Thrift1 scan of `columns` at `ts`.
pub(super) fn scan_options(columns: &[Text], ts: Option<i64>) -> ReadOptions {
    let mut o = read_options(columns);
    if let Some(ts) = ts {
        o.time_range = before(ts);
    }
    o
}
