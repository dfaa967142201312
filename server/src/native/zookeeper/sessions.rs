//! Session ids, passwords and timeouts. Nothing is kept per session: a session's password is
//! derived from its id and a secret made at start, so a client that reconnects (after a
//! network blip, to resume its session) proves it owns the id without the server remembering
//! it, and a session from before a restart is refused as expired, as ZooKeeper refuses a
//! session it does not know.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::protocol::ConnectRequest;
use super::ZooKeeperLimits;

/// A session granted.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: i64,
    pub password: [u8; 16],
    pub timeout: Duration,
}

pub struct Sessions {
    secret: [u8; 32],
    next: AtomicI64,
}

impl Sessions {
    /// Ids start from the start time, as ZooKeeper's do, so they differ across restarts.
    pub fn new(start_ms: i64) -> Sessions {
        Sessions {
            secret: rand::random(),
            next: AtomicI64::new(((start_ms & 0xff_ffff_ffff) << 23).max(1)),
        }
    }

    /// The session said to own the ephemeral nodes (the server's own).
    pub fn owner(&self) -> i64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    fn password(&self, id: i64) -> [u8; 16] {
        let mut h = Sha256::new();
        h.update(self.secret);
        h.update(id.to_be_bytes());
        let d = h.finalize();
        let mut p = [0u8; 16];
        p.copy_from_slice(&d[..16]);
        p
    }

    /// A new session, or the one the client resumes; None when it asks to resume a session
    /// this server did not grant (its password does not match).
    pub fn open(&self, req: &ConnectRequest, limits: &ZooKeeperLimits) -> Option<Session> {
        let wanted = Duration::from_millis(req.timeout_ms.max(0) as u64);
        let timeout = wanted.clamp(limits.min_session_timeout, limits.max_session_timeout);
        let id = if req.session_id == 0 {
            self.next.fetch_add(1, Ordering::Relaxed)
        } else {
            let expected = self.password(req.session_id);
            if !bool::from(subtle::ConstantTimeEq::ct_eq(
                &expected[..],
                &req.password[..],
            )) {
                return None;
            }
            req.session_id
        };
        Some(Session {
            id,
            password: self.password(id),
            timeout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(session_id: i64, password: Vec<u8>, timeout_ms: i32) -> ConnectRequest {
        ConnectRequest {
            protocol_version: 0,
            last_zxid_seen: 0,
            timeout_ms,
            session_id,
            password,
            read_only: Some(false),
        }
    }

    #[test]
    fn sessions_resume_only_with_their_password_and_timeouts_are_clamped() {
        let s = Sessions::new(1_700_000_000_000);
        let limits = ZooKeeperLimits::default();
        let a = s.open(&req(0, vec![0; 16], 90_000), &limits).unwrap();
        assert_eq!(a.timeout, Duration::from_secs(40));
        let b = s.open(&req(0, vec![0; 16], 10), &limits).unwrap();
        assert_ne!(a.id, b.id);
        assert_eq!(b.timeout, Duration::from_secs(4));
        let again = s
            .open(&req(a.id, a.password.to_vec(), 6_000), &limits)
            .unwrap();
        assert_eq!((again.id, again.timeout), (a.id, Duration::from_secs(6)));
        assert!(s.open(&req(a.id, vec![0; 16], 6_000), &limits).is_none());
        assert!(s.open(&req(a.id, vec![], 6_000), &limits).is_none());
        // Another server's (or an earlier run's) session is unknown here.
        let other = Sessions::new(1_700_000_000_000);
        assert!(other
            .open(&req(a.id, a.password.to_vec(), 6_000), &limits)
            .is_none());
    }
}
