//! Open scanners of a gateway, by id, with HBase's lease: a scanner not used for the lease
//! period is closed and its id becomes unknown.
//!
//! Two bounds: a count per gateway, and one server-wide budget for the bytes open scanners
//! hold ([`ScannerBytes`], `--max-scanner-bytes`), shared by Thrift1, Thrift2 and REST. A
//! scanner keeps its filter (parsed, about twice its text) until its lease ends, so without the
//! budget 300 scanners with 1 MB filters held 630 MB.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::engine::{ReadError, RowResult, Scanner};

/// The default byte budget of open scanners: a thousand scanners with 100 KB filters, or a
/// dozen with the largest filter a Thrift message can carry.
pub const DEFAULT_SCANNER_BYTES: usize = 256 * 1024 * 1024;

/// What every open scanner is counted for besides its filter and keys: the scanner, its
/// registry entry and the first rows it buffers.
pub const SCANNER_OVERHEAD: usize = 4 * 1024;

/// Settings for a gateway's scanners.
#[derive(Debug, Clone)]
pub struct ScannerLimits {
    /// Close a scanner unused for this long (HBase: 60 s).
    pub lease: Duration,
    /// At most this many open scanners per gateway.
    pub max_open: usize,
    /// The bytes all open scanners of the server may hold; clones share it, so every gateway
    /// given clones of one `ScannerLimits` draws on one budget.
    pub bytes: ScannerBytes,
}

impl Default for ScannerLimits {
    fn default() -> Self {
        ScannerLimits {
            lease: Duration::from_secs(60),
            max_open: 10_000,
            bytes: ScannerBytes::default(),
        }
    }
}

/// The server-wide budget for bytes held by open scanners; clones share it.
#[derive(Clone)]
pub struct ScannerBytes {
    inner: Arc<BytesInner>,
}

struct BytesInner {
    total: usize,
    held: AtomicUsize,
    refused_bytes: AtomicU64,
    refused_count: AtomicU64,
    /// Each registry's expiry, so that an open on one gateway can first reclaim the bytes of
    /// scanners whose lease ran out on another (they are otherwise dropped only when their own
    /// gateway next opens a scanner or is scraped). False once the registry is gone.
    reapers: Mutex<Vec<Reaper>>,
}

type Reaper = Box<dyn Fn() -> bool + Send + Sync>;

impl std::fmt::Debug for ScannerBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScannerBytes")
            .field("total", &self.total())
            .field("held", &self.held())
            .finish()
    }
}

impl Default for ScannerBytes {
    fn default() -> Self {
        ScannerBytes::new(DEFAULT_SCANNER_BYTES)
    }
}

impl ScannerBytes {
    pub fn new(total: usize) -> ScannerBytes {
        ScannerBytes {
            inner: Arc::new(BytesInner {
                total,
                held: AtomicUsize::new(0),
                refused_bytes: AtomicU64::new(0),
                refused_count: AtomicU64::new(0),
                reapers: Mutex::new(Vec::new()),
            }),
        }
    }

    pub fn total(&self) -> usize {
        self.inner.total
    }

    /// Bytes open scanners hold now.
    pub fn held(&self) -> usize {
        self.inner.held.load(Ordering::Relaxed)
    }

    /// Opens refused because the budget could not hold the scanner.
    pub fn refused_for_bytes(&self) -> u64 {
        self.inner.refused_bytes.load(Ordering::Relaxed)
    }

    /// Opens refused because a gateway had its most open scanners.
    pub fn refused_for_count(&self) -> u64 {
        self.inner.refused_count.load(Ordering::Relaxed)
    }

    fn add_reaper(&self, r: Reaper) {
        let mut v = self.inner.reapers.lock().unwrap_or_else(|p| p.into_inner());
        v.push(r);
    }

    /// Drops the scanners of every registry whose lease ran out.
    fn reap(&self) {
        let mut v = self.inner.reapers.lock().unwrap_or_else(|p| p.into_inner());
        v.retain(|r| r());
    }

    /// Takes `n` bytes for one scanner, or says why not (after reclaiming expired scanners).
    fn take(&self, n: usize) -> Result<Held, TooMany> {
        let i = &self.inner;
        let mut held = i.held.load(Ordering::Relaxed);
        let mut reaped = false;
        loop {
            if held.saturating_add(n) > i.total && !reaped && n <= i.total {
                self.reap();
                reaped = true;
                held = i.held.load(Ordering::Relaxed);
                continue;
            }
            if held.saturating_add(n) > i.total {
                i.refused_bytes.fetch_add(1, Ordering::Relaxed);
                return Err(TooMany::Bytes {
                    wanted: n,
                    held,
                    total: i.total,
                });
            }
            match i
                .held
                .compare_exchange_weak(held, held + n, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    return Ok(Held {
                        budget: self.clone(),
                        bytes: n,
                    })
                }
                Err(now) => held = now,
            }
        }
    }
}

/// One scanner's part of the budget, given back when the scanner goes.
struct Held {
    budget: ScannerBytes,
    bytes: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.budget
            .inner
            .held
            .fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// The bytes a scanner is counted for: its filter's text (the parsed filter holds about twice
/// as much: the values it compares with, and their prepared forms), the keys and columns of
/// its scan, and [`SCANNER_OVERHEAD`].
pub fn scan_bytes(filter_text: usize, keys: impl IntoIterator<Item = usize>) -> usize {
    SCANNER_OVERHEAD
        .saturating_add(filter_text.saturating_mul(2))
        .saturating_add(keys.into_iter().fold(0usize, usize::saturating_add))
}

/// Bytes of the scanner budget taken for a scanner being opened.
pub struct Reservation(Held);

/// One open scanner and what the gateway remembers about how to present its rows.
pub struct Open<T> {
    pub scanner: Scanner,
    pub extra: T,
    last_used: Instant,
    _held: Held,
}

/// Why a scanner could not be opened: a bound was reached. Both clear as scanners close or
/// their leases end, so the gateways answer them as retryable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TooMany {
    #[error(
        "too many open scanners (limit {0}): close scanners you no longer use, or retry later"
    )]
    Scanners(usize),
    #[error(
        "open scanners hold too much memory: they hold {held} bytes of the server's {total}-byte \
         budget (--max-scanner-bytes) and this scanner (its filter, keys and columns) needs \
         {wanted}; close scanners you no longer use, or retry later"
    )]
    Bytes {
        wanted: usize,
        held: usize,
        total: usize,
    },
}

pub struct Scanners<T> {
    limits: ScannerLimits,
    inner: Arc<Mutex<State<T>>>,
}

struct State<T> {
    next_id: i32,
    open: HashMap<i32, Arc<Mutex<Open<T>>>>,
}

/// Drops the scanners of `state` whose lease ran out.
fn expire<T>(state: &mut State<T>, lease: Duration) {
    state.open.retain(|_, s| {
        s.try_lock()
            .map(|s| s.last_used.elapsed() < lease)
            .unwrap_or(true)
    });
}

impl<T: Send + 'static> Scanners<T> {
    pub fn new(limits: ScannerLimits) -> Scanners<T> {
        let inner = Arc::new(Mutex::new(State {
            next_id: 1,
            open: HashMap::new(),
        }));
        let registry = Arc::downgrade(&inner);
        let lease = limits.lease;
        limits
            .bytes
            .add_reaper(Box::new(move || match registry.upgrade() {
                Some(st) => {
                    expire(&mut st.lock().unwrap_or_else(|p| p.into_inner()), lease);
                    true
                }
                None => false,
            }));
        Scanners { limits, inner }
    }
}

impl<T> Scanners<T> {
    fn state(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn expire(&self, state: &mut State<T>) {
        expire(state, self.limits.lease);
    }

    /// Takes `bytes` of the server's scanner budget (see [`scan_bytes`]) for a scanner about
    /// to be built: asked before its filter is parsed, so a refused open costs nothing more.
    /// Refused when this gateway has its most scanners open or the budget cannot hold it.
    pub fn reserve(&self, bytes: usize) -> Result<Reservation, TooMany> {
        self.check_count(&mut self.state())?;
        Ok(Reservation(self.limits.bytes.take(bytes)?))
    }

    fn check_count(&self, st: &mut State<T>) -> Result<(), TooMany> {
        self.expire(st);
        if st.open.len() >= self.limits.max_open {
            let b = &self.limits.bytes.inner;
            b.refused_count.fetch_add(1, Ordering::Relaxed);
            return Err(TooMany::Scanners(self.limits.max_open));
        }
        Ok(())
    }

    /// Registers a scanner with the bytes [`Scanners::reserve`] took for it; they are given
    /// back when the scanner closes or its lease ends.
    pub fn open(&self, scanner: Scanner, extra: T, held: Reservation) -> Result<i32, TooMany> {
        let mut st = self.state();
        self.check_count(&mut st)?;
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
                _held: held.0,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_share_one_byte_budget_and_come_back() {
        let limits = ScannerLimits {
            bytes: ScannerBytes::new(15_000),
            ..ScannerLimits::default()
        };
        // Two gateways' registries, one budget.
        let a: Scanners<()> = Scanners::new(limits.clone());
        let b: Scanners<u8> = Scanners::new(limits.clone());
        let one = scan_bytes(1000, [10, 10]);
        assert_eq!(one, SCANNER_OVERHEAD + 2020);
        let r1 = a.reserve(one).unwrap();
        let r2 = b.reserve(one).unwrap();
        assert_eq!(limits.bytes.held(), 2 * one);
        let e = a.reserve(one).err().expect("over the budget");
        assert!(
            matches!(e, TooMany::Bytes { wanted, held, total: 15_000 } if wanted == one && held == 2 * one)
        );
        assert!(e.to_string().contains("--max-scanner-bytes"), "{e}");
        assert_eq!(limits.bytes.refused_for_bytes(), 1);
        drop(r1);
        assert_eq!(limits.bytes.held(), one);
        let _r3 = a.reserve(one).unwrap();
        drop(r2);
        assert_eq!(limits.bytes.held(), one);
        // More than the whole budget is refused whatever is held.
        assert!(b.reserve(20_000).is_err());
        assert_eq!(limits.bytes.refused_for_bytes(), 2);
    }

    #[test]
    fn an_open_reclaims_the_bytes_of_scanners_expired_on_another_gateway() {
        let limits = ScannerLimits {
            lease: Duration::from_secs(1),
            bytes: ScannerBytes::new(15_000),
            ..ScannerLimits::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let engine =
            crate::engine::Engine::open(dir.path(), crate::engine::EngineConfig::default())
                .unwrap();
        let a: Scanners<()> = Scanners::new(limits.clone());
        let b: Scanners<()> = Scanners::new(limits.clone());
        let one = scan_bytes(1000, []);
        for _ in 0..2 {
            let held = a.reserve(one).unwrap();
            a.open(engine.scan_lazily("t", Default::default()), (), held)
                .unwrap();
        }
        assert!(b.reserve(one).is_err(), "both of a's scanners are live");
        std::thread::sleep(Duration::from_millis(1200));
        // a's scanners expired; b's open drops them and takes their bytes.
        let _held = b.reserve(one).unwrap();
        assert_eq!(limits.bytes.held(), one);
        assert_eq!(a.len(), 0);
        drop(b);
        // A registry that is gone is no longer asked.
        assert_eq!(limits.bytes.inner.reapers.lock().unwrap().len(), 2);
        limits.bytes.reap();
        assert_eq!(limits.bytes.inner.reapers.lock().unwrap().len(), 1);
        drop(a);
        engine.close();
    }
}
