//! The HTTP listener's connection slots. A pool holds a fixed number of connections; each is
//! either busy (a request in flight, from its headers to the last byte of its answer) or
//! waiting (for its TLS handshake, its first request's headers, or its next request). When the
//! pool is full a newcomer takes the slot of the connection that has waited longest, so
//! half-sent headers cannot keep others out; only busy connections make a pool refuse.
//!
//! The listener has two pools: the general one, and a small one kept for the probes, used only
//! when every general connection is busy (`serve.rs`).

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use hyper::body::{Body, Frame, SizeHint};
use tokio::sync::Notify;

use super::limits::ListenerMetrics;

struct Entry {
    busy: usize,
    waiting_since: Instant,
    evict: Arc<Notify>,
}

#[derive(Default)]
struct Inner {
    next: u64,
    conns: HashMap<u64, Entry>,
}

pub struct Pool {
    name: &'static str,
    capacity: usize,
    metrics: ListenerMetrics,
    inner: Mutex<Inner>,
}

impl Pool {
    pub fn new(name: &'static str, capacity: usize, metrics: ListenerMetrics) -> Arc<Pool> {
        Arc::new(Pool {
            name,
            capacity,
            metrics,
            inner: Mutex::new(Inner::default()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A slot for a new connection: a free one, or the one of the connection waiting longest
    /// (told to close; the bool says so). `None` when every connection is busy.
    pub fn take(self: &Arc<Self>) -> Option<(Slot, bool)> {
        if self.capacity == 0 {
            return None;
        }
        let mut inner = self.lock();
        let mut evicted = false;
        if inner.conns.len() >= self.capacity {
            let victim = inner
                .conns
                .iter()
                .filter(|(_, e)| e.busy == 0)
                .min_by_key(|(_, e)| e.waiting_since)
                .map(|(id, _)| *id)?;
            if let Some(e) = inner.conns.remove(&victim) {
                e.evict.notify_one();
            }
            evicted = true;
        }
        let id = inner.next;
        inner.next += 1;
        let evict = Arc::new(Notify::new());
        inner.conns.insert(
            id,
            Entry {
                busy: 0,
                waiting_since: Instant::now(),
                evict: evict.clone(),
            },
        );
        drop(inner);
        self.metrics.opened(self.name);
        Some((
            Slot {
                handle: SlotHandle {
                    pool: self.clone(),
                    id,
                },
                evict,
            },
            evicted,
        ))
    }

    /// Connections held now.
    pub fn len(&self) -> usize {
        self.lock().conns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One connection's place in its pool; the place is given back when this drops.
pub struct Slot {
    handle: SlotHandle,
    evict: Arc<Notify>,
}

impl Slot {
    /// Completes when a newcomer took this slot: the connection must close.
    pub async fn evicted(&self) {
        self.evict.notified().await
    }

    /// A handle the connection's requests mark themselves busy with.
    pub fn handle(&self) -> SlotHandle {
        self.handle.clone()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.handle.pool.lock().conns.remove(&self.handle.id);
        self.handle.pool.metrics.closed(self.handle.pool.name);
    }
}

#[derive(Clone)]
pub struct SlotHandle {
    pool: Arc<Pool>,
    id: u64,
}

impl SlotHandle {
    /// Marks the connection busy until the returned guard drops.
    pub fn busy(&self) -> Busy {
        if let Some(e) = self.pool.lock().conns.get_mut(&self.id) {
            e.busy += 1;
        }
        Busy(self.clone())
    }
}

/// A request in flight on a connection (kept in its answer's body until that is sent).
pub struct Busy(SlotHandle);

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(e) = self.0.pool.lock().conns.get_mut(&self.0.id) {
            e.busy = e.busy.saturating_sub(1);
            if e.busy == 0 {
                e.waiting_since = Instant::now();
            }
        }
    }
}

/// An answer's body that keeps its connection busy until it is sent (or dropped).
pub struct Tracked<B> {
    inner: B,
    _busy: Busy,
}

impl<B> Tracked<B> {
    pub fn new(inner: B, busy: Busy) -> Self {
        Tracked { inner, _busy: busy }
    }
}

impl<B: Body + Unpin> Body for Tracked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_pool_evicts_the_longest_waiting_and_refuses_when_all_are_busy() {
        let pool = Pool::new("general", 2, ListenerMetrics::default());
        let (a, ea) = pool.take().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let (b, eb) = pool.take().unwrap();
        assert!(!ea && !eb);
        // Both wait: the newcomer takes a's slot, and a is told.
        let (c, ec) = pool.take().unwrap();
        assert!(ec);
        tokio::time::timeout(std::time::Duration::from_secs(1), a.evicted())
            .await
            .expect("a was evicted");
        assert_eq!(pool.len(), 2);
        // b and c busy: nobody can be evicted.
        let bb = b.handle().busy();
        let cb = c.handle().busy();
        assert!(pool.take().is_none());
        drop(cb);
        let (_d, ed) = pool.take().unwrap();
        assert!(ed, "c waits again and is evicted");
        drop(bb);
        drop(a);
        assert_eq!(pool.len(), 2);
    }
}
