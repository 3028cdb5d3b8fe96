//! The runtime object-store requests run on.
//!
//! Part reads and writes are synchronous and may run on a query's own
//! runtime threads, where blocking on a future of that runtime would
//! deadlock or panic; requests run on this separate runtime instead and the
//! caller's thread waits for the answer, as it waits for a local read.

use std::future::Future;
use std::sync::OnceLock;

use strata_common::error::{ErrorCode, Result, StrataError};

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
pub fn block_on<T: Send + 'static>(
    future: impl Future<Output = Result<T>> + Send + 'static,
) -> Result<T> {
    let task = runtime().spawn(future);
    futures::executor::block_on(task).map_err(|e| {
        StrataError::new(
            ErrorCode::LOGICAL_ERROR,
            format!("An object-store request task failed: {e}"),
        )
    })?
}
