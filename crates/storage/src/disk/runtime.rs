//! The runtime object-store requests run on.
//!
//! Part reads and writes are synchronous and may run on a query's own
//! runtime threads, where blocking on a future of that runtime would
//! deadlock or panic; requests run on this separate runtime instead and the
//! caller's thread waits for the answer, as it waits for a local read.

use std::future::Future;
use std::sync::OnceLock;

use strata_common::error::{ErrorCode, Result, StrataError};
use strata_common::events::{self, Scoped};

/// Threads serving requests: enough to keep several ranges of a scan in
/// flight; they mostly wait on the network.
const IO_THREADS: usize = 4;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(IO_THREADS)
            .thread_name("strata-object-io")
            .enable_all()
            .build()
            .expect("the object-store runtime starts")
    })
}

/// Runs `future` on the object-store runtime and waits for its result.
///
/// The answer comes back over a channel, not by polling the task's join
/// handle: polled from a query's runtime thread whose cooperative budget
/// is spent, a join handle defers its wake-up until that thread yields,
/// which a thread blocked here never does.
pub fn block_on<T: Send + 'static>(
    future: impl Future<Output = Result<T>> + Send + 'static,
) -> Result<T> {
    let (answer, answered) = std::sync::mpsc::sync_channel(1);
    // The requests count for the query that waits for them.
    let future = Scoped::new(Box::pin(future), events::current());
    runtime().spawn(async move {
        // The receiver waits until this sends or the task is dropped.
        let _ = answer.send(future.await);
    });
    answered.recv().map_err(|_| {
        StrataError::new(
            ErrorCode::LOGICAL_ERROR,
            "An object-store request task ended without an answer",
        )
    })?
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query thread that spent its task's cooperative budget (tokio
    /// grants 128 operations per poll) still gets its answer.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_spent_cooperative_budget_does_not_stall_a_request() {
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        for i in 0..128 {
            sender.send(i).unwrap();
        }
        for _ in 0..128 {
            receiver.recv().await;
        }
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watched = std::sync::Arc::clone(&done);
        // Bounded: a stall fails the run after 10 s instead of hanging it.
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(10));
            if !watched.load(std::sync::atomic::Ordering::Acquire) {
                eprintln!("block_on stalled on a spent cooperative budget");
                std::process::abort();
            }
        });
        assert_eq!(block_on(async { Ok(7) }).unwrap(), 7);
        done.store(true, std::sync::atomic::Ordering::Release);
    }
}
