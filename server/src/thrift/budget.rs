//! The server-wide budget for bytes that clients make the server hold: partly received
//! messages, requests being processed and replies being written, over every connection of
//! every gateway. Without it, a hundred clients each sending most of a 16 MB frame made the
//! process hold 1.5 GB.
//!
//! Each connection holds a [`Share`] that grows before its buffer may grow. When the budget is
//! spent, a connection waits a little for others to finish (back-pressure), then gives up: the
//! client gets an error reply where its transport allows one, and the connection closes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The default budget: enough for a few maximum-size messages at once, small enough for a
/// container with half a gigabyte of memory.
pub const DEFAULT_INFLIGHT_BYTES: usize = 256 * 1024 * 1024;

/// A handle to one server's budget; clones share it.
#[derive(Clone)]
pub struct Budget {
    inner: Arc<Inner>,
}

struct Inner {
    sem: Arc<Semaphore>,
    total: usize,
    refused: AtomicU64,
}

impl std::fmt::Debug for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budget")
            .field("total", &self.inner.total)
            .field("held", &self.held())
            .finish()
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(DEFAULT_INFLIGHT_BYTES)
    }
}

impl Budget {
    pub fn new(total: usize) -> Budget {
        let total = total.clamp(1, Semaphore::MAX_PERMITS);
        Budget {
            inner: Arc::new(Inner {
                sem: Arc::new(Semaphore::new(total)),
                total,
                refused: AtomicU64::new(0),
            }),
        }
    }

    pub fn total(&self) -> usize {
        self.inner.total
    }

    /// Bytes held by connections now.
    pub fn held(&self) -> usize {
        self.inner.total - self.inner.sem.available_permits()
    }

    /// Times a connection could not get the bytes it needed and was refused.
    pub fn refused(&self) -> u64 {
        self.inner.refused.load(Ordering::Relaxed)
    }

    pub fn share(&self) -> Share {
        Share {
            budget: self.clone(),
            permit: None,
        }
    }
}

/// One connection's part of the budget.
pub struct Share {
    budget: Budget,
    permit: Option<OwnedSemaphorePermit>,
}

/// The budget could not cover a connection's need.
#[derive(Debug)]
pub struct Exhausted {
    pub wanted: usize,
    pub total: usize,
}

impl std::fmt::Display for Exhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.wanted > self.total {
            // Waiting would not help: say so rather than "try again".
            return write!(
                f,
                "this request's {} bytes are more than the server's whole budget for bytes \
                 held by requests in flight ({} bytes, --max-inflight-bytes): send less at a \
                 time, or raise the budget",
                self.wanted, self.total
            );
        }
        write!(
            f,
            "the server's budget for bytes held by requests in flight ({} bytes, \
             --max-inflight-bytes) cannot hold this connection's {} bytes now; try again later",
            self.total, self.wanted
        )
    }
}

impl Share {
    pub fn held(&self) -> usize {
        self.permit.as_ref().map_or(0, |p| p.num_permits())
    }

    /// Grows the share to at least `bytes`, waiting up to `wait` for other connections to give
    /// bytes back.
    pub async fn grow_to(&mut self, bytes: usize, wait: Duration) -> Result<(), Exhausted> {
        let held = self.held();
        if bytes <= held {
            return Ok(());
        }
        let more = bytes - held;
        let exhausted = || Exhausted {
            wanted: bytes,
            total: self.budget.inner.total,
        };
        let Ok(more32) = u32::try_from(more) else {
            self.budget.inner.refused.fetch_add(1, Ordering::Relaxed);
            return Err(exhausted());
        };
        if more > self.budget.inner.total {
            self.budget.inner.refused.fetch_add(1, Ordering::Relaxed);
            return Err(exhausted());
        }
        let sem = self.budget.inner.sem.clone();
        let got = match sem.clone().try_acquire_many_owned(more32) {
            Ok(p) => Some(p),
            Err(_) => tokio::time::timeout(wait, sem.acquire_many_owned(more32))
                .await
                .ok()
                .and_then(Result::ok),
        };
        match got {
            Some(p) => {
                match self.permit.as_mut() {
                    Some(mine) => mine.merge(p),
                    None => self.permit = Some(p),
                }
                Ok(())
            }
            None => {
                self.budget.inner.refused.fetch_add(1, Ordering::Relaxed);
                Err(exhausted())
            }
        }
    }

    /// Gives back everything above `bytes`.
    pub fn shrink_to(&mut self, bytes: usize) {
        let held = self.held();
        if held <= bytes {
            return;
        }
        if bytes == 0 {
            self.permit = None;
        } else if let Some(p) = self.permit.as_mut() {
            drop(p.split(held - bytes));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn shares_grow_shrink_and_refuse_past_the_total() {
        let b = Budget::new(100);
        let mut a = b.share();
        let mut c = b.share();
        a.grow_to(60, Duration::ZERO).await.unwrap();
        assert_eq!(b.held(), 60);
        assert!(c.grow_to(50, Duration::from_millis(10)).await.is_err());
        assert_eq!(b.refused(), 1);
        a.shrink_to(20);
        assert_eq!(b.held(), 20);
        c.grow_to(50, Duration::ZERO).await.unwrap();
        assert_eq!(b.held(), 70);
        drop(a);
        assert_eq!(b.held(), 50);
        assert!(c.grow_to(1000, Duration::ZERO).await.is_err());
        c.shrink_to(0);
        assert_eq!(b.held(), 0);
    }
}
