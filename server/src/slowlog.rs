//! HBase's online slow log: requests slower than a threshold (or with responses larger than a
//! threshold: the "large log"), kept in a bounded ring and cleared on request.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

/// Settings a deployment may change.
#[derive(Debug, Clone)]
pub struct SlowLogConfig {
    /// Requests that take at least this long are recorded (HBase: 10 s).
    pub threshold: Duration,
    /// Responses at least this large are recorded in the large log (HBase: 10 MB).
    pub large_response: usize,
    /// Records kept; the oldest goes first.
    pub capacity: usize,
}

impl Default for SlowLogConfig {
    fn default() -> Self {
        SlowLogConfig {
            threshold: Duration::from_secs(10),
            large_response: 10 * 1024 * 1024,
            capacity: 256,
        }
    }
}

/// Which log a record belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    Slow,
    Large,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub kind: LogKind,
    /// Milliseconds since the epoch.
    pub start_time: i64,
    pub processing_ms: i32,
    pub response_size: i64,
    pub client_address: String,
    pub method: String,
    pub params: String,
    pub table: String,
}

pub struct SlowLog {
    config: SlowLogConfig,
    records: Mutex<VecDeque<Record>>,
}

impl SlowLog {
    pub fn new(config: SlowLogConfig) -> SlowLog {
        SlowLog {
            config,
            records: Mutex::new(VecDeque::new()),
        }
    }

    /// Which log a call of this duration and response size belongs in, if any. Callers build a
    /// record only when this says so, keeping the common path free of work.
    pub fn classify(&self, elapsed: Duration, response_size: usize) -> Option<LogKind> {
        if elapsed >= self.config.threshold {
            Some(LogKind::Slow)
        } else if response_size >= self.config.large_response {
            Some(LogKind::Large)
        } else {
            None
        }
    }

    /// Records a call that [`SlowLog::classify`] placed in a log.
    pub fn record(&self, mut r: Record, kind: LogKind, elapsed: Duration) {
        r.kind = kind;
        r.processing_ms = elapsed.as_millis().min(i32::MAX as u128) as i32;
        let mut recs = self.records.lock().unwrap_or_else(|p| p.into_inner());
        if recs.len() >= self.config.capacity.max(1) {
            recs.pop_front();
        }
        recs.push_back(r);
    }

    /// Newest first.
    pub fn records(&self) -> Vec<Record> {
        let recs = self.records.lock().unwrap_or_else(|p| p.into_inner());
        recs.iter().rev().cloned().collect()
    }

    pub fn clear(&self) {
        self.records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}
