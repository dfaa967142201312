//! Open scanners of a gateway, by id, with HBase's lease: a scanner not used for the lease
//! period is closed and its id becomes unknown.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::engine::{ReadError, RowResult, Scanner};

/// Settings for a gateway's scanners.
#[derive(Debug, Clone)]
pub struct ScannerLimits {
    /// Close a scanner unused for this long (HBase: 60 s).
    pub lease: Duration,
    /// At most this many open scanners per gateway.
    pub max_open: usize,
}

impl Default for ScannerLimits {
    fn default() -> Self {
        ScannerLimits {
            lease: Duration::from_secs(60),
            max_open: 10_000,
        }
    }
}

/// One open scanner and what the gateway remembers about how to present its rows.
pub struct Open<T> {
    pub scanner: Scanner,
    pub extra: T,
    last_used: Instant,
}

/// Why a scanner could not be opened: the limit was reached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("too many open scanners (limit {0})")]
pub struct TooMany(pub usize);

pub struct Scanners<T> {
    limits: ScannerLimits,
    inner: Mutex<State<T>>,
}

struct State<T> {
    next_id: i32,
    open: HashMap<i32, Arc<Mutex<Open<T>>>>,
}

impl<T> Scanners<T> {
    pub fn new(limits: ScannerLimits) -> Scanners<T> {
        Scanners {
            limits,
            inner: Mutex::new(State {
                next_id: 1,
                open: HashMap::new(),
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Drops scanners whose lease ran out.
    fn expire(&self, state: &mut State<T>) {
        let lease = self.limits.lease;
        state.open.retain(|_, s| {
            s.try_lock()
                .map(|s| s.last_used.elapsed() < lease)
                .unwrap_or(true)
        });
    }

    pub fn open(&self, scanner: Scanner, extra: T) -> Result<i32, TooMany> {
        let mut st = self.state();
        self.expire(&mut st);
        if st.open.len() >= self.limits.max_open {
            return Err(TooMany(self.limits.max_open));
        }
        let mut id = st.next_id;
        while st.open.contains_key(&id) || id <= 0 {
            id = id.checked_add(1).unwrap_or(1);
        }
        st.next_id = id.checked_add(1).unwrap_or(1);
        st.open.insert(
            id,
            Arc::new(Mutex::new(Open {
                scanner,
                extra,
                last_used: Instant::now(),
            })),
        );
        Ok(id)
    }

    /// The scanner with this id, if open and within its lease; using it renews the lease.
    pub fn get(&self, id: i32) -> Option<Arc<Mutex<Open<T>>>> {
        let mut st = self.state();
        let s = st.open.get(&id)?.clone();
        let expired = {
            let mut g = s.lock().unwrap_or_else(|p| p.into_inner());
            if g.last_used.elapsed() >= self.limits.lease {
                true
            } else {
                g.last_used = Instant::now();
                false
            }
        };
        if expired {
            st.open.remove(&id);
            return None;
        }
        Some(s)
    }

    /// The next `n` rows of scanner `id` (none when `n` is not positive, as HBase's gateways
    /// answer) with what the gateway keeps beside it; None for an id that is not open.
    pub fn next_batch(&self, id: i32, n: i32) -> Option<(Result<Vec<RowResult>, ReadError>, T)>
    where
        T: Clone,
    {
        let open = self.get(id)?;
        let mut open = open.lock().unwrap_or_else(|p| p.into_inner());
        let rows = open.scanner.next_batch(n.max(0) as usize);
        Some((rows, open.extra.clone()))
    }

    /// Closes a scanner; false if the id was not open.
    pub fn close(&self, id: i32) -> bool {
        self.state().open.remove(&id).is_some()
    }

    pub fn len(&self) -> usize {
        let mut st = self.state();
        self.expire(&mut st);
        st.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
