//! Failed authentications counted per client address and user name: once one pair reaches the
//! limit, that user is refused from that address for a while, so passwords cannot be guessed
//! at the speed of the network. Counting per pair (not per address) keeps one client behind a
//! NAT from locking every user out for everyone at that address. A small fixed-window counter
//! is all this needs (no crate matched "count failures only, then block").
//!
//! Memory is bounded whatever names clients make up: a user name is kept as a digest, and at
//! [`MAX_TRACKED`] pairs the expired ones are swept, then the least useful dropped (pairs not
//! blocked before blocked ones, then the oldest).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// Pairs of address and user tracked at most (about 100 bytes each).
pub const MAX_TRACKED: usize = 65_536;

#[derive(Debug, Clone, Copy)]
pub struct LimiterConfig {
    /// Failures allowed for one user from one address within `window`: the one that reaches
    /// it blocks the pair.
    pub max_failures: u32,
    pub window: Duration,
    /// How long a blocked pair is refused.
    pub block: Duration,
}

impl Default for LimiterConfig {
    fn default() -> Self {
        LimiterConfig {
            max_failures: 10,
            window: Duration::from_secs(60),
            block: Duration::from_secs(300),
        }
    }
}

#[derive(Debug)]
struct Entry {
    window_start: Instant,
    failures: u32,
    blocked_until: Option<Instant>,
}

type Key = (IpAddr, [u8; 16]);

#[derive(Debug)]
pub struct Limiter {
    config: LimiterConfig,
    max_tracked: usize,
    entries: Mutex<HashMap<Key, Entry>>,
}

fn key(ip: IpAddr, user: &str) -> Key {
    let digest = Sha256::digest(user.as_bytes());
    let mut k = [0u8; 16];
    k.copy_from_slice(&digest[..16]);
    (ip, k)
}

impl Limiter {
    pub fn new(config: LimiterConfig) -> Limiter {
        Limiter::with_capacity(config, MAX_TRACKED)
    }

    /// A limiter tracking at most `max_tracked` pairs (tests use a small one).
    pub fn with_capacity(config: LimiterConfig, max_tracked: usize) -> Limiter {
        Limiter {
            config,
            max_tracked: max_tracked.max(1),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// `Err(seconds left)` while `user` is refused from `ip`.
    pub fn check(&self, ip: IpAddr, user: &str) -> Result<(), u64> {
        let now = Instant::now();
        let map = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        match map.get(&key(ip, user)).and_then(|e| e.blocked_until) {
            Some(until) if until > now => Err((until - now).as_secs().max(1)),
            _ => Ok(()),
        }
    }

    /// Counts a failure; true when this one blocked the pair (log that once).
    pub fn failed(&self, ip: IpAddr, user: &str) -> bool {
        let now = Instant::now();
        let k = key(ip, user);
        let mut map = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if !map.contains_key(&k) && map.len() >= self.max_tracked {
            self.make_room(&mut map, now);
        }
        let e = map.entry(k).or_insert(Entry {
            window_start: now,
            failures: 0,
            blocked_until: None,
        });
        if now.duration_since(e.window_start) >= self.config.window {
            e.window_start = now;
            e.failures = 0;
        }
        e.failures += 1;
        if e.failures >= self.config.max_failures.max(1) && e.blocked_until.is_none_or(|u| u <= now)
        {
            e.blocked_until = Some(now + self.config.block);
            e.failures = 0;
            e.window_start = now;
            return true;
        }
        false
    }

    /// Pairs tracked now.
    pub fn tracked(&self) -> usize {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Sweeps expired pairs; when all are live, drops an unblocked pair (the oldest window),
    /// else the block that ends first, so the map stays at its bound.
    fn make_room(&self, map: &mut HashMap<Key, Entry>, now: Instant) {
        let c = self.config;
        map.retain(|_, e| {
            e.blocked_until.is_some_and(|u| u > now)
                || now.duration_since(e.window_start) < c.window
        });
        while map.len() >= self.max_tracked {
            let unblocked = map
                .iter()
                .filter(|(_, e)| e.blocked_until.is_none_or(|u| u <= now))
                .min_by_key(|(_, e)| e.window_start)
                .map(|(k, _)| *k);
            let victim = unblocked.or_else(|| {
                map.iter()
                    .min_by_key(|(_, e)| e.blocked_until)
                    .map(|(k, _)| *k)
            });
            match victim {
                Some(k) => {
                    map.remove(&k);
                }
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(max_failures: u32) -> Limiter {
        Limiter::new(LimiterConfig {
            max_failures,
            window: Duration::from_secs(60),
            block: Duration::from_secs(60),
        })
    }

    #[test]
    fn blocks_at_the_limit_and_only_that_user_from_that_address() {
        let l = limiter(2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(!l.failed(a, "alice"));
        assert!(l.check(a, "alice").is_ok());
        assert!(
            l.failed(a, "alice"),
            "the second failure of two allowed blocks"
        );
        assert!(l.check(a, "alice").is_err());
        assert!(
            l.check(a, "bob").is_ok(),
            "another user from the same address"
        );
        assert!(
            l.check(b, "alice").is_ok(),
            "the same user from another address"
        );
    }

    #[test]
    fn many_user_names_stay_within_the_bound_and_blocks_survive() {
        let l = Limiter::with_capacity(
            LimiterConfig {
                max_failures: 2,
                window: Duration::from_secs(60),
                block: Duration::from_secs(60),
            },
            100,
        );
        let ip: IpAddr = "10.0.0.9".parse().unwrap();
        for i in 0..10 {
            assert!(!l.failed(ip, &format!("victim{i}")));
            assert!(l.failed(ip, &format!("victim{i}")));
        }
        // A flood of made-up names, each failing once: the map stays at its bound, and the
        // flood pushes out its own entries, not the blocks.
        for i in 0..10_000 {
            l.failed(ip, &format!("made-up-{i}-{}", "x".repeat(i % 300)));
            assert!(l.tracked() <= 100);
        }
        for i in 0..10 {
            assert!(l.check(ip, &format!("victim{i}")).is_err(), "victim{i}");
        }
    }
}
