//! A buffered writer: puts, deletes and counter increments collected in memory and sent in
//! batches when the buffer reaches its row or byte bound, when `flush_interval` has passed
//! (a background thread flushes even if no further call comes), on `flush` and on `close`.
//!
//! The writer owns its connection (one flusher at a time uses it) and hands it back from
//! `close`. Operations keep their order: consecutive puts go in one `putMultiple`,
//! consecutive deletes in one `deleteMultiple`, consecutive increments as one `increment`
//! per row with the amounts for the same (row, counter) summed. A put or increment of a row
//! whose delete was acknowledged less than [`DELETE_SETTLE`] before waits out the rest of it.

use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::batch::{cell_bytes, BatchOptions, CounterAdd};
use super::client::{Cell, Connection, TableClient, TableDef};
use super::error::{Error, Result};
use super::keys::RowKey;
use super::values::{CounterRef, RowValues};

/// How long a writer lets pass after the server acknowledged a row's delete before it sends a
/// put or increment of that row. The server stamps both with its clock's millisecond and a
/// delete marker hides every cell at or before its own stamp (HBase's rule), so a put landing
/// in the delete's millisecond would vanish. One millisecond suffices on a steady clock; two
/// leave room for a clock being slewed.
pub const DELETE_SETTLE: Duration = Duration::from_millis(2);

/// Waits until [`DELETE_SETTLE`] has passed since any of `rows` was last deleted, and forgets
/// deletes older than that.
fn settle<'a>(deleted: &mut HashMap<Vec<u8>, Instant>, rows: impl IntoIterator<Item = &'a [u8]>) {
    if deleted.is_empty() {
        return;
    }
    let now = Instant::now();
    deleted.retain(|_, at| now.duration_since(*at) < DELETE_SETTLE);
    let latest = rows.into_iter().filter_map(|row| deleted.get(row)).max();
    if let Some(wait) = latest.map(|at| (*at + DELETE_SETTLE).saturating_duration_since(now)) {
        std::thread::sleep(wait);
    }
}

/// When a [`Writer`] flushes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterOptions {
    /// Buffered operations that trigger a flush.
    pub max_rows: usize,
    /// Buffered cell bytes that trigger a flush.
    pub max_bytes: usize,
    /// The longest an operation waits in the buffer (`None`: only bounds, flush and close).
    pub flush_interval: Option<Duration>,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            max_rows: 1000,
            max_bytes: 4 << 20,
            flush_interval: Some(Duration::from_secs(1)),
        }
    }
}

impl WriterOptions {
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

    pub fn flush_interval(mut self, every: Option<Duration>) -> Self {
        self.flush_interval = every;
        self
    }
}

enum Op {
    Put(Vec<u8>, Vec<Cell>),
    Delete(Vec<u8>),
    /// One row's counters of a run of increments, amounts summed.
    Increment(Vec<u8>, BTreeMap<(Vec<u8>, Vec<u8>), i64>),
}

struct State {
    conn: Option<Connection>,
    table: &'static TableDef,
    ops: Vec<Op>,
    rows: usize,
    bytes: usize,
    since: Instant,
    /// An error of a background flush, returned by the next call.
    failed: Option<Error>,
    closing: bool,
    /// Rows of recent deletes: when the server acknowledged them.
    deleted: HashMap<Vec<u8>, Instant>,
}

impl State {
    fn flush(&mut self) -> Result<()> {
        let ops = std::mem::take(&mut self.ops);
        self.rows = 0;
        self.bytes = 0;
        self.since = Instant::now();
        let Some(conn) = self.conn.as_mut() else {
            return Err(Error::InvalidArgument("the writer is closed".into()));
        };
        let mut raw = TableClient::new(conn, self.table);
        let options = BatchOptions::default();
        let mut ops = ops.into_iter().peekable();
        while let Some(op) = ops.next() {
            match op {
                Op::Put(row, cells) => {
                    let mut run = vec![(row, cells)];
                    while let Some(Op::Put(..)) = ops.peek() {
                        if let Some(Op::Put(r, c)) = ops.next() {
                            run.push((r, c));
                        }
                    }
                    settle(&mut self.deleted, run.iter().map(|(r, _)| r.as_slice()));
                    raw.put_many(run, &options)?;
                }
                Op::Delete(row) => {
                    let mut run = vec![row];
                    while let Some(Op::Delete(_)) = ops.peek() {
                        if let Some(Op::Delete(r)) = ops.next() {
                            run.push(r);
                        }
                    }
                    let rows = run.clone();
                    let sent = raw.delete_many(run, &options);
                    let acked = Instant::now();
                    self.deleted
                        .extend(rows.into_iter().map(|row| (row, acked)));
                    sent?;
                }
                Op::Increment(row, counters) => {
                    let adds: Vec<CounterAdd> =
                        counters.into_iter().map(|((f, q), n)| (f, q, n)).collect();
                    settle(&mut self.deleted, [row.as_slice()]);
                    raw.increment_many(&[(row, adds)])?;
                }
            }
        }
        Ok(())
    }
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Buffered writes to one table (`K`, `V`: its key and values; `C`: its columns, so only
/// its own counters are accepted).
pub struct Writer<K, V, C> {
    shared: Arc<Shared>,
    options: WriterOptions,
    flusher: Option<JoinHandle<()>>,
    types: super::values::Marker<(K, V, C)>,
}

impl<K: RowKey, V: RowValues, C> Writer<K, V, C> {
    /// A writer over `conn` (returned by [`Writer::close`]).
    pub fn open(conn: Connection, options: WriterOptions) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                conn: Some(conn),
                table: K::table(),
                ops: Vec::new(),
                rows: 0,
                bytes: 0,
                since: Instant::now(),
                failed: None,
                closing: false,
                deleted: HashMap::new(),
            }),
            wake: Condvar::new(),
        });
        let flusher = options.flush_interval.map(|every| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || background(&shared, every))
        });
        Writer {
            shared,
            options,
            flusher,
            types: PhantomData,
        }
    }

    /// Buffers a put of the set fields of `values` (key and value errors are returned now).
    pub fn put(&mut self, key: &K, values: &V) -> Result<()> {
        let row = key.encode_row()?;
        let cells = values.to_cells()?;
        let size = row.len() + cell_bytes(&cells);
        self.push(Op::Put(row, cells), size)
    }

    /// Buffers a delete of the whole row.
    pub fn delete(&mut self, key: &K) -> Result<()> {
        let row = key.encode_row()?;
        let size = row.len();
        self.push(Op::Delete(row), size)
    }

    /// Buffers `amount` added to a counter; consecutive increments of one row are one call,
    /// amounts to the same counter summed.
    pub fn increment(&mut self, key: &K, counter: impl CounterRef<C>, amount: i64) -> Result<()> {
        let row = key.encode_row()?;
        let counter = counter.counter_cell();
        let mut state = self.ready()?;
        // Sum into the current run of increments of this row, if any.
        let last_run = state
            .ops
            .iter_mut()
            .rev()
            .take_while(|op| matches!(op, Op::Increment(..)))
            .find_map(|op| match op {
                Op::Increment(r, counters) if *r == row => Some(counters),
                _ => None,
            });
        if let Some(counters) = last_run {
            *counters.entry(counter).or_insert(0) += amount;
            return Ok(());
        }
        let size = row.len() + counter.0.len() + counter.1.len() + 8;
        let op = Op::Increment(row, BTreeMap::from([(counter, amount)]));
        self.push_locked(&mut state, op, size)
    }

    /// Sends everything buffered now.
    pub fn flush(&mut self) -> Result<()> {
        let mut state = self.ready()?;
        state.flush()
    }

    /// Flushes, stops the background flusher and returns the connection; an error of a
    /// background flush not yet returned is returned here.
    pub fn close(mut self) -> Result<Connection> {
        self.stop();
        let mut state = self.shared.lock();
        if let Some(e) = state.failed.take() {
            return Err(e);
        }
        state.flush()?;
        state
            .conn
            .take()
            .ok_or_else(|| Error::InvalidArgument("the writer is closed".into()))
    }

    fn stop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.flusher.take() {
            let _ = t.join();
        }
    }

    /// The state, or the error a background flush left.
    fn ready(&self) -> Result<MutexGuard<'_, State>> {
        let mut state = self.shared.lock();
        match state.failed.take() {
            Some(e) => Err(e),
            None => Ok(state),
        }
    }

    fn push(&mut self, op: Op, size: usize) -> Result<()> {
        let mut state = self.ready()?;
        self.push_locked(&mut state, op, size)
    }

    fn push_locked(&self, state: &mut State, op: Op, size: usize) -> Result<()> {
        if state.ops.is_empty() {
            state.since = Instant::now();
        }
        state.ops.push(op);
        state.rows += 1;
        state.bytes += size;
        if state.rows >= self.options.max_rows || state.bytes >= self.options.max_bytes {
            state.flush()?;
        }
        Ok(())
    }
}

/// Flushes whatever has waited `every` until the writer closes.
fn background(shared: &Shared, every: Duration) {
    let mut state = shared.lock();
    loop {
        if state.closing {
            return;
        }
        let waited = state.since.elapsed();
        if !state.ops.is_empty() && waited >= every {
            if let Err(e) = state.flush() {
                state.failed = Some(e);
            }
            continue;
        }
        let wait = if state.ops.is_empty() {
            every
        } else {
            every - waited
        };
        state = shared
            .wake
            .wait_timeout(state, wait)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

impl<K, V, C> Drop for Writer<K, V, C> {
    /// A writer dropped without `close` still flushes (errors are lost: call `close`).
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.flusher.take() {
            let _ = t.join();
        }
        let mut state = self.shared.lock();
        if state.conn.is_some() && !state.ops.is_empty() {
            let _ = state.flush();
        }
    }
}
