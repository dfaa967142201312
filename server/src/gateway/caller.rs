//! Who is calling: the peer address and, once a connection has proved one, the identity it
//! proved (a TLS client certificate, SASL, HTTP credentials). The Thrift server sets the
//! caller around each call on the thread that runs it, so handlers and the access checks can
//! ask for it without every generated method signature carrying it.

use std::cell::RefCell;
use std::net::SocketAddr;

/// How a connection's identity was established.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    /// Nothing proved: authentication is off, or the peer has not authenticated.
    None,
    /// A TLS client certificate the server's client CA signed.
    ClientCertificate,
    /// SASL PLAIN in Thrift's SASL framing.
    Sasl,
    /// HTTP Basic credentials or a Bearer token on a Thrift-over-HTTP request.
    Http,
}

/// The caller of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub peer: SocketAddr,
    /// The proved user name; `None` for an anonymous caller.
    pub user: Option<String>,
    pub proof: Proof,
    /// Whether the connection is TLS.
    pub tls: bool,
}

impl Caller {
    /// A caller that proved nothing, over a plain connection.
    pub fn anonymous(peer: SocketAddr) -> Caller {
        Caller {
            peer,
            user: None,
            proof: Proof::None,
            tls: false,
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Caller>> = const { RefCell::new(None) };
}

/// Runs `f` with `caller` as the current caller of this thread, restoring the one before.
pub fn scope<R>(caller: Caller, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Caller>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = before);
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.borrow_mut().replace(caller)));
    f()
}

/// The current caller, if a call on this thread set one (tests calling handlers directly
/// have none).
pub fn current() -> Option<Caller> {
    CURRENT.with(|c| c.borrow().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_sets_and_restores_the_caller() {
        let peer: SocketAddr = "127.0.0.1:1".parse().unwrap();
        assert_eq!(current(), None);
        let outer = scope(Caller::anonymous(peer), || {
            let mut bob = Caller::anonymous(peer);
            bob.user = Some("bob".into());
            let inner = scope(bob, || current().and_then(|c| c.user));
            (inner, current().and_then(|c| c.user))
        });
        assert_eq!(outer, (Some("bob".into()), None));
        assert_eq!(current(), None);
    }
}
