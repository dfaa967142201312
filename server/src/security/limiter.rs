//! Failed authentications counted per client IP: past the limit, that address is refused for a
//! while, so passwords cannot be guessed at the speed of the network. A small fixed-window
//! counter is all this needs (no crate matched "count failures only, then block").

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Tracked addresses before expired entries are swept (bounds the map's memory).
const SWEEP_AT: usize = 4096;

#[derive(Debug, Clone, Copy)]
pub struct LimiterConfig {
    /// Failures allowed from one address within `window`.
    pub max_failures: u32,
    pub window: Duration,
    /// How long an address over the limit is refused.
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

#[derive(Debug)]
pub struct Limiter {
    config: LimiterConfig,
    entries: Mutex<HashMap<IpAddr, Entry>>,
}

impl Limiter {
    pub fn new(config: LimiterConfig) -> Limiter {
        Limiter {
            config,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// `Err(seconds left)` while `ip` is refused.
    pub fn check(&self, ip: IpAddr) -> Result<(), u64> {
        let now = Instant::now();
        let map = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        match map.get(&ip).and_then(|e| e.blocked_until) {
            Some(until) if until > now => Err((until - now).as_secs().max(1)),
            _ => Ok(()),
        }
    }

    /// Counts a failure; true when this one put `ip` over the limit (log that once).
    pub fn failed(&self, ip: IpAddr) -> bool {
        let now = Instant::now();
        let mut map = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= SWEEP_AT {
            let c = self.config;
            map.retain(|_, e| {
                e.blocked_until.is_some_and(|u| u > now)
                    || now.duration_since(e.window_start) < c.window
            });
        }
        let e = map.entry(ip).or_insert(Entry {
            window_start: now,
            failures: 0,
            blocked_until: None,
        });
        if now.duration_since(e.window_start) >= self.config.window {
            e.window_start = now;
            e.failures = 0;
        }
        e.failures += 1;
        if e.failures > self.config.max_failures && e.blocked_until.is_none_or(|u| u <= now) {
            e.blocked_until = Some(now + self.config.block);
            e.failures = 0;
            e.window_start = now;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_after_the_limit_and_only_that_address() {
        let l = Limiter::new(LimiterConfig {
            max_failures: 2,
            window: Duration::from_secs(60),
            block: Duration::from_secs(60),
        });
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(!l.failed(a));
        assert!(!l.failed(a));
        assert!(l.check(a).is_ok());
        assert!(l.failed(a));
        assert!(l.check(a).is_err());
        assert!(l.check(b).is_ok());
    }
}
