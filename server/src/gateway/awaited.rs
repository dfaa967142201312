//! Single-row writes answered without a thread waiting for their commit.
//!
//! A write normally runs on a blocking thread that sleeps until its row's region has committed
//! (and, when durable, synced) it: two thread hand-offs per call on top of the committer's. For
//! the calls that write one row (Thrift2 `put`, `deleteSingle`; Thrift1 `mutateRow`) the
//! connection instead runs the handler twice on its own task: once *starting*, where the
//! handler's checks run and its mutation is queued ([`Engine::start_mutate_row`]) instead of
//! applied, and, after the commit's outcome has been awaited, once *finishing*, where the same
//! handler gets that outcome back and the generated processor writes the reply exactly as it
//! would have. The handlers call [`mutate_row`] where they would call the engine; outside the
//! two stages it is `Engine::mutate_row`.

use std::cell::RefCell;

use super::caller::{self, Caller};
use crate::engine::{Engine, MutateError, PendingWrite, RowMutation, Started};

/// The reply of a started call, once its write has committed.
pub type PendingReply = std::pin::Pin<Box<dyn std::future::Future<Output = Vec<u8>> + Send>>;

/// What a handler did while starting.
pub enum Parked {
    /// It answered without writing (refused, or a bad request): its reply is the answer.
    Nothing,
    /// Its mutation is queued; await it, then run the handler again finishing.
    Pending(PendingWrite),
    /// Its region's writers would wait now; nothing was queued: run the call the usual way.
    WouldWait,
}

enum Stage {
    Direct,
    Starting(Parked),
    /// The awaited outcome, taken by the call's first write; later writes of the same call
    /// were applied while starting.
    Finishing(Option<Result<(), MutateError>>),
}

thread_local! {
    static STAGE: RefCell<Stage> = const { RefCell::new(Stage::Direct) };
}

/// Puts the stage back when the call returns, however it returns.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        STAGE.with(|s| *s.borrow_mut() = Stage::Direct);
    }
}

/// Runs `handler` (a processor call) starting: the one row it writes is queued, not waited
/// for. Returns its reply (the answer only with [`Parked::Nothing`]) and what it parked.
pub fn starting<R>(handler: impl FnOnce() -> R) -> (R, Parked) {
    STAGE.with(|s| *s.borrow_mut() = Stage::Starting(Parked::Nothing));
    let _restore = Restore;
    let reply = handler();
    let parked = STAGE.with(
        |s| match std::mem::replace(&mut *s.borrow_mut(), Stage::Direct) {
            Stage::Starting(p) => p,
            _ => Parked::Nothing,
        },
    );
    (reply, parked)
}

/// Runs `handler` again finishing: its [`mutate_row`] returns `outcome`.
pub fn finishing<R>(outcome: Result<(), MutateError>, handler: impl FnOnce() -> R) -> R {
    STAGE.with(|s| *s.borrow_mut() = Stage::Finishing(Some(outcome)));
    let _restore = Restore;
    handler()
}

/// The handlers' one-row write: `Engine::mutate_row`, except while starting (queue it and
/// report success to the discarded reply) or finishing (the awaited outcome).
pub fn mutate_row(engine: &Engine, table: &str, m: RowMutation) -> Result<(), MutateError> {
    enum Now {
        Direct,
        Start,
        Finish(Option<Result<(), MutateError>>),
    }
    let now = STAGE.with(|s| match &mut *s.borrow_mut() {
        Stage::Direct => Now::Direct,
        Stage::Starting(Parked::Nothing) => Now::Start,
        // Only calls that write one row are started (the services' `start`); a second write
        // is applied at once, and its finishing run below does not repeat it.
        Stage::Starting(_) => Now::Direct,
        Stage::Finishing(outcome) => Now::Finish(Some(outcome.take().unwrap_or(Ok(())))),
    });
    match now {
        Now::Direct => engine.mutate_row(table, m),
        Now::Start => {
            let parked = match engine.start_mutate_row(table, m)? {
                Started::Queued(p) => Parked::Pending(p),
                Started::WouldWait(_) => Parked::WouldWait,
            };
            STAGE.with(|s| *s.borrow_mut() = Stage::Starting(parked));
            Ok(())
        }
        Now::Finish(outcome) => outcome.unwrap_or(Ok(())),
    }
}

/// Starts a call with `process` (the service's processor on a message, run on the caller's
/// thread): the reply at once when the handler answered without writing, a future of the
/// finishing run's reply when it queued its write, None when the call must run the usual way.
pub fn start<P>(process: P, message: &[u8], caller: &Caller) -> Option<PendingReply>
where
    P: Fn(&[u8]) -> Vec<u8> + Send + 'static,
{
    let (reply, parked) = caller::scope(caller.clone(), || starting(|| process(message)));
    match parked {
        Parked::Nothing => Some(Box::pin(std::future::ready(reply))),
        Parked::WouldWait => None,
        Parked::Pending(pending) => {
            let (message, caller) = (message.to_vec(), caller.clone());
            Some(Box::pin(async move {
                let outcome = pending.finish().await;
                caller::scope(caller, || finishing(outcome, || process(&message)))
            }))
        }
    }
}
