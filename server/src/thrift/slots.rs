//! The connections a gateway serves, with when each last finished a call, so that at the
//! connection cap the server can make room for a newcomer by closing the connection that has
//! been idle longest (instead of leaving the newcomer unserved in the accept queue while
//! thousands of idle clients hold every slot).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// One connection's entry.
pub struct Slot {
    id: u64,
    pub peer: SocketAddr,
    epoch: Instant,
    /// Milliseconds after `epoch` when the connection was accepted or last finished a call.
    last_active: AtomicU64,
    /// A call is being read or processed: never evicted then.
    busy: AtomicBool,
    /// Told when the server closes this connection to make room.
    pub evict: Notify,
}

impl Slot {
    /// A whole request has arrived: the connection is in a call.
    pub fn call_started(&self) {
        self.busy.store(true, Ordering::Release);
    }

    /// The reply is written: the connection waits for its next call from now.
    pub fn call_finished(&self) {
        self.last_active
            .store(self.epoch.elapsed().as_millis() as u64, Ordering::Relaxed);
        self.busy.store(false, Ordering::Release);
    }
}

/// A gateway's connections.
pub struct Slots {
    epoch: Instant,
    next: AtomicU64,
    live: Mutex<HashMap<u64, Arc<Slot>>>,
}

impl Default for Slots {
    fn default() -> Self {
        Slots {
            epoch: Instant::now(),
            next: AtomicU64::new(0),
            live: Mutex::new(HashMap::new()),
        }
    }
}

impl Slots {
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Slot>>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn add(&self, peer: SocketAddr) -> Arc<Slot> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(Slot {
            id,
            peer,
            epoch: self.epoch,
            last_active: AtomicU64::new(self.epoch.elapsed().as_millis() as u64),
            busy: AtomicBool::new(false),
            evict: Notify::new(),
        });
        self.lock().insert(id, slot.clone());
        slot
    }

    pub fn remove(&self, slot: &Slot) {
        self.lock().remove(&slot.id);
    }

    /// Room for one more connection under `max`: at the cap the connection idle longest is
    /// closed to make it (counted as evicted); false when every connection is in a call (counted
    /// as refused: the newcomer is to be closed).
    pub fn make_room(&self, max: usize, observer: Option<&dyn super::Observer>) -> bool {
        if self.len() < max {
            return true;
        }
        let evicted = self.evict_idlest().is_some();
        if let Some(o) = observer {
            if evicted {
                o.connection_evicted();
            } else {
                o.connection_refused();
            }
        }
        evicted
    }

    /// Closes the connection idle longest (one not in a call) and frees its slot at once.
    /// Returns its peer and how long it had been idle; None when every connection is in a call.
    pub fn evict_idlest(&self) -> Option<(SocketAddr, Duration)> {
        let mut live = self.lock();
        let victim = live
            .values()
            .filter(|s| !s.busy.load(Ordering::Acquire))
            .min_by_key(|s| s.last_active.load(Ordering::Relaxed))?
            .clone();
        live.remove(&victim.id);
        drop(live);
        victim.evict.notify_one();
        let now = self.epoch.elapsed().as_millis() as u64;
        let idle = now.saturating_sub(victim.last_active.load(Ordering::Relaxed));
        Some((victim.peer, Duration::from_millis(idle)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idlest_free_connection_goes_first() {
        let s = Slots::default();
        let addr = |p| SocketAddr::from(([127, 0, 0, 1], p));
        let a = s.add(addr(1));
        std::thread::sleep(Duration::from_millis(5));
        let b = s.add(addr(2));
        std::thread::sleep(Duration::from_millis(5));
        let c = s.add(addr(3));
        a.call_started();
        assert_eq!(s.evict_idlest().unwrap().0, addr(2), "a is in a call");
        assert_eq!(s.len(), 2);
        c.call_finished();
        std::thread::sleep(Duration::from_millis(5));
        a.call_finished();
        assert_eq!(s.evict_idlest().unwrap().0, addr(3));
        a.call_started();
        assert!(s.evict_idlest().is_none(), "only a busy connection is left");
        drop(b);
    }
}
