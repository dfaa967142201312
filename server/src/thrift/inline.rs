//! Short reads answered on the connection's own task. Handing a call to the blocking pool and
//! its reply back costs two thread wake-ups; for a get that is most of the call (a profile of
//! gets at 16 connections spent about half its samples switching threads). A call the service
//! calls short (a point read: bounded work, no fsync) runs inline while fewer than `cap` such
//! calls are running, so at least one runtime worker stays free for the other connections'
//! I/O; anything else, and any call over the cap, goes to the blocking pool as before.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use thrift::protocol::{TBinaryInputProtocol, TCompactInputProtocol, TInputProtocol, TType};

use super::frame::Protocol;

/// Rows a scanner batch may ask for and still count as short.
pub const SHORT_BATCH: i32 = 1000;

/// The i32 argument `field` of a call, if the message has it (for a service to judge a call
/// by its size, e.g. a scanner batch's row count). The message is walked first, so no length
/// it claims can make the reader allocate more than the message holds.
pub fn i32_arg(message: &[u8], protocol: Protocol, field: i16) -> Option<i32> {
    super::check_message(message, protocol).ok()?;
    fn find(p: &mut dyn TInputProtocol, field: i16) -> thrift::Result<Option<i32>> {
        p.read_message_begin()?;
        p.read_struct_begin()?;
        loop {
            let f = p.read_field_begin()?;
            match (f.field_type, f.id) {
                (TType::Stop, _) => return Ok(None),
                (TType::I32, Some(id)) if id == field => return Ok(Some(p.read_i32()?)),
                (t, _) => p.skip(t)?,
            }
            p.read_field_end()?;
        }
    }
    let found = match protocol {
        Protocol::Binary { strict } => find(&mut TBinaryInputProtocol::new(message, strict), field),
        Protocol::Compact => find(&mut TCompactInputProtocol::new(message), field),
    };
    found.ok().flatten()
}

/// The server-wide count of inline calls and its cap; clones share them.
#[derive(Debug, Clone)]
pub struct InlineCalls {
    running: Arc<AtomicUsize>,
    done: Arc<AtomicU64>,
    cap: usize,
}

impl Default for InlineCalls {
    /// One fewer than the machine's cores (the runtime's worker count), at least one.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        InlineCalls::new(cores.saturating_sub(1).max(1))
    }
}

/// Held while an inline call runs.
pub struct InlineCall(Arc<AtomicUsize>);

impl Drop for InlineCall {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl InlineCalls {
    /// `cap` 0 turns inline calls off.
    pub fn new(cap: usize) -> InlineCalls {
        InlineCalls {
            running: Arc::default(),
            done: Arc::default(),
            cap,
        }
    }

    /// A place for one inline call, if fewer than the cap are running.
    pub fn try_start(&self) -> Option<InlineCall> {
        self.running
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.cap).then_some(n + 1)
            })
            .ok()?;
        self.done.fetch_add(1, Ordering::Relaxed);
        Some(InlineCall(self.running.clone()))
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Calls run inline since the server started.
    pub fn count(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_an_i32_argument_in_either_protocol() {
        use thrift::protocol::{
            TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier, TMessageIdentifier,
            TMessageType, TOutputProtocol, TStructIdentifier,
        };
        fn call(p: &mut dyn TOutputProtocol) {
            p.write_message_begin(&TMessageIdentifier::new(
                "scannerGetList",
                TMessageType::Call,
                1,
            ))
            .unwrap();
            p.write_struct_begin(&TStructIdentifier::new("args"))
                .unwrap();
            p.write_field_begin(&TFieldIdentifier::new("id", TType::I32, 1))
                .unwrap();
            p.write_i32(7).unwrap();
            p.write_field_end().unwrap();
            p.write_field_begin(&TFieldIdentifier::new("nbRows", TType::I32, 2))
                .unwrap();
            p.write_i32(100).unwrap();
            p.write_field_end().unwrap();
            p.write_field_stop().unwrap();
            p.write_struct_end().unwrap();
            p.write_message_end().unwrap();
        }
        let mut binary = Vec::new();
        call(&mut TBinaryOutputProtocol::new(&mut binary, true));
        let mut compact = Vec::new();
        call(&mut TCompactOutputProtocol::new(&mut compact));
        let b = Protocol::Binary { strict: true };
        assert_eq!(i32_arg(&binary, b, 2), Some(100));
        assert_eq!(i32_arg(&binary, b, 1), Some(7));
        assert_eq!(i32_arg(&binary, b, 3), None);
        assert_eq!(i32_arg(&compact, Protocol::Compact, 2), Some(100));
        assert_eq!(
            i32_arg(&binary[..binary.len() - 6], b, 2),
            None,
            "cut short"
        );
    }

    #[test]
    fn no_more_than_the_cap_run_at_once() {
        let calls = InlineCalls::new(2);
        let a = calls.try_start().unwrap();
        let _b = calls.try_start().unwrap();
        assert!(calls.try_start().is_none());
        drop(a);
        assert!(calls.try_start().is_some());
        assert_eq!(calls.count(), 3);
        assert!(InlineCalls::new(0).try_start().is_none());
    }
}
