//! Open native scanners, by HBase's 64-bit scanner id, with HBase's lease: a scanner the
//! client has not used for the lease period is closed, and its id then answers
//! UnknownScannerException. Their number is bounded (`--max-scanners`).
//!
//! A scanner that was closed (by the client, or by the server when its region ran out) is
//! remembered for a lease period, as HBase's `closedScanners`: a call naming it then gets an
//! empty answer instead of an error, because clients (HBase's older ones, PyPI's
//! hbase-driver) may call once more on a scanner the server already closed.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::engine::{RowResult, Scanner};
use crate::scanners::ScannerLimits;

use super::errors::{class, NativeError};

/// Closed scanner ids remembered at most (the oldest are forgotten first).
const CLOSED_REMEMBERED: usize = 4096;

/// Where an open scanner's rows come from.
pub enum Source {
    /// A user region's rows, read by the engine within the region's bounds.
    Table(Box<Scanner>),
    /// Rows made when the scanner opened (none for an empty range).
    Rows(VecDeque<RowResult>),
    /// hbase:meta's rows, made as they are read.
    Meta(Box<super::meta::MetaRows>),
}

impl Source {
    fn next_row(&mut self) -> Result<Option<RowResult>, NativeError> {
        match self {
            Source::Table(s) => match s.next_batch(1) {
                Ok(mut rows) => Ok(rows.pop()),
                Err(e) => Err(e.into()),
            },
            Source::Rows(rows) => Ok(rows.pop_front()),
            Source::Meta(rows) => Ok(rows.next_row()),
        }
    }
}

/// One open scanner.
pub struct OpenScan {
    source: Source,
    /// The row read ahead to learn whether the region has more.
    ahead: Option<RowResult>,
    /// The next `next_call_seq` the client must send.
    pub next_call_seq: u64,
    /// Rows the scan may still return (None: no limit).
    pub remaining: Option<u64>,
    /// Bytes of cells per response the client asked for at most.
    pub max_result_size: usize,
    last_used: Instant,
    /// Who opened it: only they may go on with it (as HBase checks a scanner's owner).
    owner: Option<String>,
    /// The scan metrics already reported: (rows scanned, rows filtered).
    reported: (u64, u64),
    /// The client asked for cursors in heartbeats (`Scan.need_cursor_result`).
    pub need_cursor: bool,
}

impl OpenScan {
    pub fn new(source: Source, remaining: Option<u64>, max_result_size: usize) -> OpenScan {
        OpenScan {
            source,
            ahead: None,
            next_call_seq: 0,
            remaining,
            max_result_size,
            last_used: Instant::now(),
            owner: crate::gateway::caller::current().and_then(|c| c.user),
            reported: (0, 0),
            need_cursor: false,
        }
    }

    /// Starts a call that must answer by `deadline` (None: no time limit): past it, reads stop
    /// between rows ([`OpenScan::paused`]).
    pub fn start_call(&mut self, deadline: Option<Instant>) {
        if let Source::Table(s) = &mut self.source {
            s.pace(deadline);
        }
    }

    /// Whether reads stopped at the call's deadline with no row read ahead: the region is not
    /// done, and the next call goes on after the last row read.
    pub fn paused(&self) -> bool {
        self.ahead.is_none() && matches!(&self.source, Source::Table(s) if s.paused())
    }

    /// The last row read, filtered or not (HBase's scan cursor), when asked for at the open.
    pub fn cursor(&self) -> Option<&[u8]> {
        match &self.source {
            Source::Table(s) => s.cursor(),
            Source::Rows(_) | Source::Meta(_) => None,
        }
    }

    /// Whether the current caller is the one who opened this scanner.
    pub fn owned_by_caller(&self) -> bool {
        self.owner == crate::gateway::caller::current().and_then(|c| c.user)
    }

    /// The next row, if the region has one.
    pub fn next_row(&mut self) -> Result<Option<RowResult>, NativeError> {
        match self.ahead.take() {
            Some(r) => Ok(Some(r)),
            None => self.source.next_row(),
        }
    }

    /// Rows the scan read and filtered out since the last call of this (HBase's ROWS_SCANNED
    /// and ROWS_FILTERED scan metrics, per response).
    pub fn take_metrics(&mut self) -> (u64, u64) {
        let now = match &self.source {
            Source::Table(s) => s.rows_scanned(),
            Source::Rows(_) | Source::Meta(_) => (0, 0),
        };
        let (s, f) = self.reported;
        self.reported = now;
        (now.0 - s, now.1 - f)
    }

    /// Whether the scan's filter says no later row can pass.
    pub fn filter_done(&self) -> bool {
        matches!(&self.source, Source::Table(s) if s.filter_done())
    }

    /// Whether another row follows (reads it ahead), or the call's time limit stopped the
    /// reads before the region's end.
    pub fn has_more(&mut self) -> Result<bool, NativeError> {
        if self.ahead.is_none() {
            self.ahead = self.source.next_row()?;
        }
        Ok(self.ahead.is_some() || self.paused())
    }
}

/// Every open scanner of the native listener.
pub struct ScannerTable {
    limits: ScannerLimits,
    next_id: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Mutex<OpenScan>>>>,
    /// Recently closed ids, oldest first, with when they closed.
    closed: Mutex<VecDeque<(u64, Instant)>>,
}

impl ScannerTable {
    pub fn new(limits: ScannerLimits) -> ScannerTable {
        // Ids start at a value of their own per process, as HBase's do, so a client that
        // kept an id across a restart hears UnknownScannerException, not another scan's rows.
        let seed = crate::engine::cell::now_ms().unsigned_abs() << 16;
        ScannerTable {
            limits,
            next_id: AtomicU64::new(seed.max(1)),
            open: Mutex::new(HashMap::new()),
            closed: Mutex::new(VecDeque::new()),
        }
    }

    pub fn lease(&self) -> Duration {
        self.limits.lease
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Mutex<OpenScan>>>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn expire(&self, open: &mut HashMap<u64, Arc<Mutex<OpenScan>>>) {
        let lease = self.limits.lease;
        open.retain(|_, s| {
            s.try_lock()
                .map(|s| s.last_used.elapsed() < lease)
                .unwrap_or(true)
        });
    }

    pub fn add(&self, scan: OpenScan) -> Result<u64, NativeError> {
        let mut open = self.lock();
        if open.len() >= self.limits.max_open {
            self.expire(&mut open);
        }
        if open.len() >= self.limits.max_open {
            return Err(NativeError::retry(
                class::REGION_TOO_BUSY,
                format!(
                    "too many open scanners ({}, --max-scanners): close scanners or retry later",
                    self.limits.max_open
                ),
            ));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        open.insert(id, Arc::new(Mutex::new(scan)));
        Ok(id)
    }

    /// The scanner with this id, within its lease (renewed by this use).
    pub fn get(&self, id: u64) -> Result<Arc<Mutex<OpenScan>>, NativeError> {
        let mut open = self.lock();
        let found = open.get(&id).cloned();
        if let Some(s) = found {
            let mut g = s.lock().unwrap_or_else(|p| p.into_inner());
            if g.last_used.elapsed() < self.limits.lease {
                g.last_used = Instant::now();
                drop(g);
                return Ok(s);
            }
            drop(g);
            open.remove(&id);
        }
        Err(self.unknown(id))
    }

    /// The error for an id that names no scanner of the caller's.
    pub fn unknown(&self, id: u64) -> NativeError {
        NativeError::final_(
            class::UNKNOWN_SCANNER,
            format!(
                "Unknown scanner '{id}': its lease of {} s expired, it was closed, or the id is \
                 wrong",
                self.limits.lease.as_secs()
            ),
        )
    }

    /// Drops a scanner without remembering it (its id then answers UnknownScannerException).
    pub fn remove(&self, id: u64) -> bool {
        self.lock().remove(&id).is_some()
    }

    /// Closes a scanner, remembering its id for a lease period ([`ScannerTable::was_closed`]).
    pub fn close(&self, id: u64) {
        if !self.remove(id) {
            return;
        }
        let mut closed = self.closed.lock().unwrap_or_else(|p| p.into_inner());
        let lease = self.limits.lease;
        while closed
            .front()
            .is_some_and(|(_, at)| at.elapsed() >= lease || closed.len() >= CLOSED_REMEMBERED)
        {
            closed.pop_front();
        }
        closed.push_back((id, Instant::now()));
    }

    /// Whether this id named a scanner closed within the last lease period.
    pub fn was_closed(&self, id: u64) -> bool {
        let closed = self.closed.lock().unwrap_or_else(|p| p.into_inner());
        let lease = self.limits.lease;
        closed
            .iter()
            .any(|(c, at)| *c == id && at.elapsed() < lease)
    }

    pub fn len(&self) -> usize {
        let mut open = self.lock();
        self.expire(&mut open);
        open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
