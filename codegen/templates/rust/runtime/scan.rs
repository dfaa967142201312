//! Scans: key ranges (one per salt bucket), scan options, and the merging scanner that reads
//! one Thrift2 scanner per range lazily and yields rows by the key without its salt, so a
//! salted table reads in its unsalted design's order (docs/schema.md, "Salted scans").

use std::collections::VecDeque;

use super::client::{versions, CellVersion, Connection, ReadOptions};
use super::error::{Error, Result};
use super::filter::Filter;
use super::keys::KeySpec;
use crate::thrift_gen::hbase2::{TScan, TTHBaseServiceSyncClient};

/// The smallest key after every key starting with `prefix` (`None`: no such key).
pub fn next_prefix(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut b = prefix.to_vec();
    while b.last() == Some(&0xFF) {
        b.pop();
    }
    let last = b.last_mut()?;
    *last += 1;
    Some(b)
}

/// Row ranges, one per salt bucket (one for unsalted tables): start inclusive, stop exclusive
/// (`None`: to the end of the table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    pub ranges: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

impl KeyRange {
    /// Every row of the table (one range per salt bucket).
    pub fn all(spec: &KeySpec) -> KeyRange {
        let buckets = spec.salt.map_or(0, |s| s.buckets);
        let ranges = if buckets == 0 {
            vec![(Vec::new(), None)]
        } else {
            (0..buckets)
                .map(|b| {
                    let p = spec.salt_field(b);
                    let stop = next_prefix(&p);
                    (p, stop)
                })
                .collect()
        };
        KeyRange { ranges }
    }

    /// From `start`'s first row (inclusive) up to `stop`'s first row (exclusive).
    pub fn between(start: &KeyRange, stop: &KeyRange) -> Result<KeyRange> {
        if start.ranges.len() != stop.ranges.len() {
            return Err(Error::key("ranges of different tables"));
        }
        Ok(KeyRange {
            ranges: start
                .ranges
                .iter()
                .zip(&stop.ranges)
                .map(|(a, b)| (a.0.clone(), Some(b.0.clone())))
                .collect(),
        })
    }
}

/// How to scan: direction, row limit, columns, filter, versions, rows fetched per round trip.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanOptions {
    pub reversed: bool,
    pub limit: Option<usize>,
    /// Rows fetched per round trip (Thrift2 `caching`).
    pub batch: u32,
    /// Cells per result (Thrift2 `batchSize`); the parts of a wide row are joined back.
    pub batch_size: Option<i32>,
    /// Versions, time range and columns, as for reads.
    pub read: ReadOptions,
    pub filter: Option<Filter>,
    /// Salted tables: one bucket after the other instead of merged (see [`RowOrder`]).
    pub bucket_order: bool,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            reversed: false,
            limit: None,
            batch: 256,
            batch_size: None,
            read: ReadOptions::default(),
            filter: None,
            bucket_order: false,
        }
    }
}

impl ScanOptions {
    pub fn new() -> Self {
        Self::default()
    }

    /// Descending key order.
    pub fn reversed(mut self) -> Self {
        self.reversed = true;
        self
    }

    /// Salted tables: read one bucket after the other (the last first when reversed), each in
    /// key order, instead of merging the buckets by the key without its salt. One scanner is
    /// open at a time; rows are not in the unsalted design's order.
    pub fn bucket_order(mut self) -> Self {
        self.bucket_order = true;
        self
    }

    /// At most `n` rows in all (over every salt bucket).
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Rows fetched per round trip (Thrift2 `caching`).
    pub fn batch(mut self, n: u32) -> Self {
        self.batch = n.max(1);
        self
    }

    /// The same as [`ScanOptions::batch`], under HBase's name.
    pub fn caching(self, n: u32) -> Self {
        self.batch(n)
    }

    /// At most `n` cells per result (Thrift2 `batchSize`): the server sends a wide row in
    /// parts, which the scan joins back into one row.
    pub fn batch_size(mut self, n: i32) -> Self {
        self.batch_size = Some(n);
        self
    }

    /// Only rows (and cells) the filter lets through; rendered to HBase's filter language.
    pub fn filter(mut self, f: Filter) -> Self {
        self.filter = Some(f);
        self
    }

    /// Up to `n` versions per column.
    pub fn versions(mut self, n: i32) -> Self {
        self.read.versions = Some(n);
        self
    }

    /// Only cells with `min <= timestamp < max` (ms).
    pub fn time_range(mut self, min: i64, max: i64) -> Self {
        self.read.time_range = Some((min, max));
        self
    }

    /// Only this column (a table's typed column, e.g. `AccessLogsColumns::HITS`); repeatable.
    pub fn column(mut self, c: impl super::values::ColumnRef) -> Self {
        self.read.columns.push(c.column_ref());
        self
    }

    /// Every column of this family; repeatable.
    pub fn family(mut self, family: impl Into<Vec<u8>>) -> Self {
        self.read.columns.push((family.into(), None));
        self
    }
}

/// The order a scan yields the rows of its per-bucket scanners. Merged: the smallest key after
/// its first `salt_width` bytes (the salt) comes next, ties to the lower bucket; reversed, the
/// largest, ties to the higher bucket (exactly the reverse order), so `limit` and ranges mean
/// what they mean on the unsalted design. Bucket order: the current bucket until it is done,
/// then the next (the last first when reversed), so only one bucket's scanner is ever open.
#[derive(Debug, Clone)]
pub struct RowOrder {
    salt_width: usize,
    reversed: bool,
    bucket_order: bool,
    current: usize,
}

impl RowOrder {
    pub fn new(salt_width: usize, reversed: bool, bucket_order: bool) -> Self {
        RowOrder {
            salt_width,
            reversed,
            bucket_order,
            current: 0,
        }
    }

    /// The bucket to take the next row from (`None`: every bucket is done); `head(i)` is
    /// bucket i's next row key, fetched when needed, `None` when the bucket is done.
    pub fn pick<'a, E>(
        &mut self,
        buckets: usize,
        mut head: impl FnMut(usize) -> std::result::Result<Option<&'a [u8]>, E>,
    ) -> std::result::Result<Option<usize>, E> {
        if self.bucket_order {
            while self.current < buckets {
                let i = if self.reversed {
                    buckets - 1 - self.current
                } else {
                    self.current
                };
                if head(i)?.is_some() {
                    return Ok(Some(i));
                }
                self.current += 1;
            }
            return Ok(None);
        }
        let mut best: Option<(usize, &[u8])> = None;
        for i in 0..buckets {
            let Some(row) = head(i)? else {
                continue;
            };
            let body = row.get(self.salt_width..).unwrap_or_default();
            let better = best.is_none_or(|(_, b)| if self.reversed { body >= b } else { body < b });
            if better {
                best = Some((i, body));
            }
        }
        Ok(best.map(|(i, _)| i))
    }

    /// The order over rows already read: `buckets[i]` holds bucket i's rows as its scanner
    /// returns them (ascending, or descending when reversed). Scans pick the same way; the
    /// shared vectors (sdks/vectors/merge.json) check it.
    pub fn merge(
        buckets: &[Vec<Vec<u8>>],
        salt_width: usize,
        reversed: bool,
        bucket_order: bool,
        limit: Option<usize>,
    ) -> Vec<Vec<u8>> {
        let mut order = RowOrder::new(salt_width, reversed, bucket_order);
        let mut pos = vec![0; buckets.len()];
        let mut out = Vec::new();
        while limit.is_none_or(|l| out.len() < l) {
            let picked = order.pick(buckets.len(), |i| {
                Ok::<_, ()>(buckets[i].get(pos[i]).map(Vec::as_slice))
            });
            let Ok(Some(i)) = picked else {
                break;
            };
            out.push(buckets[i][pos[i]].clone());
            pos[i] += 1;
        }
        out
    }
}

/// One range's scanner, opened on first use and read in batches.
struct Bucket {
    start: Vec<u8>,
    stop: Option<Vec<u8>>,
    scanner: Option<i32>,
    buffer: VecDeque<(Vec<u8>, Vec<CellVersion>)>,
    done: bool,
}

/// Rows of several ranges in [`RowOrder`]; closes its scanners when dropped.
pub struct RawScan<'c> {
    conn: &'c mut Connection,
    table: Vec<u8>,
    order: RowOrder,
    reversed: bool,
    batch: i32,
    remaining: Option<usize>,
    buckets: Vec<Bucket>,
    options: ScanOptions,
    /// The rendered filter, or why the options cannot be sent (reported by the first `next`).
    filter: Result<Option<Vec<u8>>>,
}

impl<'c> RawScan<'c> {
    pub(crate) fn new(
        conn: &'c mut Connection,
        table: Vec<u8>,
        keys: &KeyRange,
        options: &ScanOptions,
        salt_width: usize,
    ) -> Self {
        let limit = options
            .limit
            .map_or(u32::MAX, |l| l.min(u32::MAX as usize) as u32);
        let batch = options.batch.clamp(1, limit.max(1)).min(i32::MAX as u32) as i32;
        let filter = options
            .read
            .ttime_range()
            .and(options.read.tversions())
            .and_then(|_| options.filter.as_ref().map(Filter::render).transpose());
        RawScan {
            options: options.clone(),
            filter,
            conn,
            table,
            order: RowOrder::new(salt_width, options.reversed, options.bucket_order),
            reversed: options.reversed,
            batch,
            remaining: options.limit,
            buckets: keys
                .ranges
                .iter()
                .map(|(start, stop)| Bucket {
                    start: start.clone(),
                    stop: stop.clone(),
                    scanner: None,
                    buffer: VecDeque::new(),
                    done: false,
                })
                .collect(),
        }
    }

    /// Reads batches into the bucket's buffer until it holds a row or the range is done.
    fn fill(&mut self, i: usize) -> Result<()> {
        let reversed = self.reversed;
        let filter = match &self.filter {
            Ok(f) => f.clone(),
            Err(_) => return std::mem::replace(&mut self.filter, Ok(None)).map(|_| ()),
        };
        // With a batch size a row may come in several results (and batches): its front row is
        // whole only once a row after it is buffered, or the range is done.
        let whole = if self.options.batch_size.is_some() {
            2
        } else {
            1
        };
        let b = &mut self.buckets[i];
        while b.buffer.len() < whole && !b.done {
            let id = match b.scanner {
                Some(id) => id,
                None => {
                    // Reversed: the scanner's start row is the upper bound (inclusive) and
                    // its stop row the lower bound (exclusive); rows are trimmed to
                    // [start, stop) below.
                    let (start_row, stop_row) = if reversed {
                        let below =
                            (!b.start.is_empty()).then(|| b.start[..b.start.len() - 1].to_vec());
                        (b.stop.clone(), below)
                    } else {
                        (
                            (!b.start.is_empty()).then(|| b.start.clone()),
                            b.stop.clone(),
                        )
                    };
                    // Every field spelt out: the compiler's `TScan::default()` sets optional
                    // fields to `Some(empty)`, which a server reads as set.
                    let scan = TScan {
                        start_row,
                        stop_row,
                        columns: self.options.read.tcolumns(),
                        caching: Some(self.batch),
                        max_versions: self.options.read.tversions()?,
                        time_range: self.options.read.ttime_range()?,
                        filter_string: filter.clone(),
                        batch_size: self.options.batch_size,
                        attributes: None,
                        authorizations: None,
                        reversed: reversed.then_some(true),
                        cache_blocks: None,
                        col_fam_time_range_map: None,
                        read_type: None,
                        limit: None,
                        consistency: None,
                        target_replica_id: None,
                        filter_bytes: None,
                    };
                    let id = self.conn.client.open_scanner(self.table.clone(), scan)?;
                    b.scanner = Some(id);
                    id
                }
            };
            let rows = self.conn.client.get_scanner_rows(id, self.batch)?;
            if rows.is_empty() {
                b.done = true;
            }
            for r in rows {
                let row = r.row.clone().unwrap_or_default();
                if b.stop.as_ref().is_some_and(|s| row >= *s) {
                    continue;
                }
                if row < b.start {
                    if reversed {
                        b.done = true;
                        break;
                    }
                    continue;
                }
                match b.buffer.back_mut() {
                    // The rest of a row split by the batch size: joined back.
                    Some((last, cells)) if *last == row => cells.extend(versions(r)),
                    _ => b.buffer.push_back((row, versions(r))),
                }
            }
            if b.done {
                if let Some(id) = b.scanner.take() {
                    self.conn.client.close_scanner(id)?;
                }
            }
        }
        Ok(())
    }

    fn next_row(&mut self) -> Result<Option<(Vec<u8>, Vec<CellVersion>)>> {
        if self.remaining == Some(0) {
            self.close();
            return Ok(None);
        }
        // Fill the buckets the order asks for (so in bucket order only the current scanner
        // opens), then pick over the buffered heads.
        let n = self.buckets.len();
        self.order.clone().pick(n, |i| -> Result<Option<&[u8]>> {
            self.fill(i)?;
            Ok((!self.buckets[i].buffer.is_empty()).then_some(&[][..]))
        })?;
        let buckets = &self.buckets;
        let best = self
            .order
            .pick(n, |i| {
                Ok::<_, ()>(buckets[i].buffer.front().map(|(row, _)| row.as_slice()))
            })
            .unwrap_or(None);
        let Some(i) = best else {
            return Ok(None);
        };
        if let Some(n) = self.remaining.as_mut() {
            *n -= 1;
        }
        Ok(self.buckets[i].buffer.pop_front())
    }

    /// Closes the open scanners (errors ignored: the server expires them anyway).
    fn close(&mut self) {
        for b in &mut self.buckets {
            b.done = true;
            if let Some(id) = b.scanner.take() {
                let _ = self.conn.client.close_scanner(id);
            }
        }
    }
}

impl Iterator for RawScan<'_> {
    type Item = Result<(Vec<u8>, Vec<CellVersion>)>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_row() {
            Ok(row) => row.map(Ok),
            Err(e) => {
                self.remaining = Some(0);
                self.close();
                Some(Err(e))
            }
        }
    }
}

impl Drop for RawScan<'_> {
    fn drop(&mut self) {
        self.close();
    }
}
