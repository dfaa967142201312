//! Batched writes: many rows per Thrift2 call (`putMultiple`, `deleteMultiple`), atomic
//! row mutations (`mutateRow`), and every counter of a row in one `increment`. A chunk the
//! server refuses is retried row by row so the error names exactly the rows that failed.

use super::client::{tdelete, tput, Cell, ColumnName, TableClient};
use super::error::{Error, Result, RowFailure};
use crate::thrift_gen::hbase2::{
    TColumnIncrement, TDelete, TIncrement, TMutation, TPut, TRowMutations, TTHBaseServiceSyncClient,
};

/// (family, qualifier, amount) of one counter to add to.
pub type CounterAdd = (Vec<u8>, Vec<u8>, i64);

/// Bounds of one batched call and the timestamp of its writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOptions {
    /// Rows per call (at least 1).
    pub max_rows: usize,
    /// Cell bytes (qualifiers and values) per call; a single larger row goes alone.
    pub max_bytes: usize,
    /// The cells' timestamp in ms (`None`: the server's clock).
    pub timestamp: Option<i64>,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            max_rows: 1000,
            max_bytes: 4 << 20,
            timestamp: None,
        }
    }
}

impl BatchOptions {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn max_rows(mut self, n: usize) -> Self {
        self.max_rows = n.max(1);
        self
    }

    pub fn max_bytes(mut self, n: usize) -> Self {
        self.max_bytes = n.max(1);
        self
    }

    pub fn timestamp(mut self, ms: i64) -> Self {
        self.timestamp = Some(ms);
        self
    }
}

/// The bytes a row's cells put on the wire (what `max_bytes` bounds).
pub(crate) fn cell_bytes(cells: &[Cell]) -> usize {
    cells
        .iter()
        .map(|(f, q, v)| f.len() + q.len() + v.len())
        .sum()
}

/// Consecutive index ranges of at most `max_rows` rows and `max_bytes` bytes (a single row
/// over the byte bound forms a chunk alone).
pub(crate) fn chunks(sizes: &[usize], max_rows: usize, max_bytes: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, &n) in sizes.iter().enumerate() {
        if i > start && (i - start >= max_rows || bytes + n > max_bytes) {
            out.push((start, i));
            start = i;
            bytes = 0;
        }
        bytes += n;
    }
    if start < sizes.len() {
        out.push((start, sizes.len()));
    }
    out
}

/// Whether a failed call is about the rows (retry them one by one) or the connection.
fn per_row(e: &Error) -> bool {
    matches!(e, Error::Server { .. } | Error::IllegalArgument { .. })
}

fn failure(index: usize, row_key: &[u8], e: Error) -> RowFailure {
    let message = match e {
        Error::Server { message, .. } | Error::IllegalArgument { message } => message,
        other => other.to_string(),
    };
    RowFailure {
        index,
        row_key: row_key.to_vec(),
        message,
    }
}

impl TableClient<'_> {
    /// Writes rows with `putMultiple`, chunked; rows with no cells are skipped.
    pub fn put_many(
        &mut self,
        rows: Vec<(Vec<u8>, Vec<Cell>)>,
        options: &BatchOptions,
    ) -> Result<()> {
        let sizes: Vec<usize> = rows.iter().map(|(k, c)| k.len() + cell_bytes(c)).collect();
        let mut failures = Vec::new();
        let mut rows: Vec<Option<(Vec<u8>, Vec<Cell>)>> = rows.into_iter().map(Some).collect();
        for (a, b) in chunks(&sizes, options.max_rows, options.max_bytes) {
            let puts: Vec<(usize, TPut)> = (a..b)
                .filter_map(|i| {
                    let (k, c) = rows[i].take()?;
                    (!c.is_empty()).then(|| (i, tput(&k, c, options.timestamp)))
                })
                .collect();
            if puts.is_empty() {
                continue;
            }
            let all: Vec<TPut> = puts.iter().map(|(_, p)| p.clone()).collect();
            match self.conn.client.put_multiple(self.full_name(), all) {
                Ok(()) => {}
                Err(e) => {
                    let e = Error::from(e);
                    if !per_row(&e) {
                        return Err(e);
                    }
                    for (i, p) in puts {
                        let row = p.row.clone();
                        if let Err(e) = self.conn.client.put(self.full_name(), p) {
                            let e = Error::from(e);
                            if !per_row(&e) {
                                return Err(e);
                            }
                            failures.push(failure(i, &row, e));
                        }
                    }
                }
            }
        }
        if failures.is_empty() {
            Ok(())
        } else {
            Err(Error::Batch(failures))
        }
    }

    /// Deletes whole rows (versions at or before `options.timestamp` if given) with
    /// `deleteMultiple`, chunked.
    pub fn delete_many(&mut self, rows: Vec<Vec<u8>>, options: &BatchOptions) -> Result<()> {
        let sizes: Vec<usize> = rows.iter().map(Vec::len).collect();
        let mut failures = Vec::new();
        for (a, b) in chunks(&sizes, options.max_rows, options.max_bytes) {
            let deletes: Vec<TDelete> = rows[a..b]
                .iter()
                .map(|k| tdelete(k, &[], options.timestamp))
                .collect();
            match self
                .conn
                .client
                .delete_multiple(self.full_name(), deletes.clone())
            {
                Ok(left) if left.is_empty() => {}
                Ok(left) => {
                    for d in left {
                        if let Some(i) = (a..b).find(|&i| rows[i] == d.row) {
                            failures.push(failure(
                                i,
                                &d.row,
                                Error::Server {
                                    message: "the server did not delete the row".into(),
                                    can_retry: false,
                                },
                            ));
                        }
                    }
                }
                Err(e) => {
                    let e = Error::from(e);
                    if !per_row(&e) {
                        return Err(e);
                    }
                    for (i, d) in (a..b).zip(deletes) {
                        if let Err(e) = self.conn.client.delete_single(self.full_name(), d) {
                            let e = Error::from(e);
                            if !per_row(&e) {
                                return Err(e);
                            }
                            failures.push(failure(i, &rows[i], e));
                        }
                    }
                }
            }
        }
        if failures.is_empty() {
            Ok(())
        } else {
            Err(Error::Batch(failures))
        }
    }

    /// Puts `cells` and deletes `columns` of one row atomically (`mutateRow`).
    pub fn mutate_row(
        &mut self,
        row: &[u8],
        cells: Vec<Cell>,
        columns: &[ColumnName],
        timestamp: Option<i64>,
    ) -> Result<()> {
        let mut mutations = Vec::new();
        if !cells.is_empty() {
            mutations.push(TMutation::Put(tput(row, cells, timestamp)));
        }
        if !columns.is_empty() {
            mutations.push(TMutation::DeleteSingle(tdelete(row, columns, timestamp)));
        }
        if mutations.is_empty() {
            return Ok(());
        }
        let m = TRowMutations {
            row: row.to_vec(),
            mutations,
        };
        Ok(self.conn.client.mutate_row(self.full_name(), m)?)
    }

    /// Adds every (family, qualifier, amount) to the row's counters in one `increment`; the
    /// new values in the same order.
    pub fn increment_row(&mut self, row: &[u8], counters: &[CounterAdd]) -> Result<Vec<i64>> {
        let inc = TIncrement {
            row: row.to_vec(),
            columns: counters
                .iter()
                .map(|(f, q, n)| TColumnIncrement {
                    family: f.clone(),
                    qualifier: q.clone(),
                    amount: Some(*n),
                })
                .collect(),
            attributes: None,
            durability: None,
            cell_visibility: None,
            return_results: None,
        };
        let result = self.conn.client.increment(self.full_name(), inc)?;
        counters
            .iter()
            .map(|(f, q, _)| {
                let c = result
                    .column_values
                    .iter()
                    .find(|c| c.family == *f && c.qualifier == *q)
                    .ok_or_else(|| Error::Protocol("the increment returned no value".into()))?;
                let raw: [u8; 8] = c.value.as_slice().try_into().map_err(|_| {
                    Error::value(format!("a counter is 8 bytes, got {}", c.value.len()))
                })?;
                Ok(i64::from_be_bytes(raw))
            })
            .collect()
    }

    /// `increment_row` for many rows, one call each; per-row failures are collected.
    pub fn increment_many(&mut self, rows: &[(Vec<u8>, Vec<CounterAdd>)]) -> Result<Vec<Vec<i64>>> {
        let mut out = Vec::with_capacity(rows.len());
        let mut failures = Vec::new();
        for (i, (row, counters)) in rows.iter().enumerate() {
            match self.increment_row(row, counters) {
                Ok(v) => out.push(v),
                Err(e) if per_row(&e) => {
                    failures.push(failure(i, row, e));
                    out.push(Vec::new());
                }
                Err(e) => return Err(e),
            }
        }
        if failures.is_empty() {
            Ok(out)
        } else {
            Err(Error::Batch(failures))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn chunks_respect_rows_and_bytes() {
        assert_eq!(chunks(&[1, 1, 1, 1, 1], 2, 100), [(0, 2), (2, 4), (4, 5)]);
        assert_eq!(
            chunks(&[60, 60, 10, 200, 1], 10, 100),
            [(0, 1), (1, 3), (3, 4), (4, 5)]
        );
        assert!(chunks(&[], 10, 10).is_empty());
    }
}
