//! Event counters, ClickHouse's `ProfileEvents` under its names: process-wide
//! (what `system.events` shows) and per query (`system.query_log`'s
//! `ProfileEvents`). Each is counted where the work happens (a file opened,
//! bytes read or written, rows a merge read), never derived afterwards.
//!
//! A query's counts are those added on a thread while the query's
//! [`QueryEvents`] is the thread's scope: its statement, its result stream
//! and its sources run in scope ([`in_scope`], [`Scoped`]), and work handed
//! to another thread for the query carries the scope ([`current`]), as do
//! the mutations a statement runs and waits for (`mutations_sync`,
//! `lightweight_deletes_sync`). Background merges and mutations run out of
//! any query's scope, as in ClickHouse.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

macro_rules! events {
    ($($name:ident: $description:literal,)*) => {
        /// An event Strata counts.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[allow(non_camel_case_types)]
        #[repr(usize)]
        pub enum Event {
            $($name,)*
        }

        impl Event {
            pub const ALL: &'static [Event] = &[$(Event::$name,)*];

            pub fn name(self) -> &'static str {
                match self {
                    $(Event::$name => stringify!($name),)*
                }
            }

            pub fn description(self) -> &'static str {
                match self {
                    $(Event::$name => $description,)*
                }
            }
        }
    };
}

events! {
    Query: "Statements executed, of every kind",
    SelectQuery: "SELECT statements executed",
    InsertQuery: "INSERT statements executed",
    FileOpen: "Files opened",
    ReadBufferFromFileDescriptorReadBytes: "Bytes read from part files, compressed as stored",
    WriteBufferFromFileDescriptorWriteBytes: "Bytes written to part files, compressed as stored",
    SelectedParts: "Parts a scan chose to read after pruning by partition bounds and the primary index",
    SelectedMarks: "Granules (marks) a scan chose to read",
    SelectedRows: "Rows in the granules a scan chose to read",
    InsertedRows: "Rows inserted into MergeTree tables",
    InsertedBytes: "Bytes of rows inserted into MergeTree tables, as held in memory",
    MergedRows: "Rows read by merges",
    MergedUncompressedBytes: "Bytes of rows read by merges, as held in memory",
    MutationTotalParts: "Parts a mutation was applied to",
    MutationUntouchedParts: "Parts a mutation found no rows to change in, linked under the new name",
    MutatedRows: "Rows read by mutations that rewrote a part or a column",
    MutatedUncompressedBytes: "Bytes of rows read by mutations that rewrote a part or a column",
    MarkCacheHits: "Reads of a column's marks found in the mark cache",
    MarkCacheMisses: "Reads of a column's marks that went to the marks file",
    UncompressedCacheHits: "Granules found decoded in the uncompressed cache (the hot tier)",
    UncompressedCacheMisses: "Granules looked for in the uncompressed cache and not found",
    UncompressedCacheWeightLost: "Bytes evicted from the uncompressed cache to make room",
    PageCacheHits: "Granules found compressed in the page cache (the warm tier)",
    PageCacheMisses: "Granules looked for in the page cache and not found",
    CachedReadBufferReadFromCacheHits: "Segments of remote objects read from a filesystem cache",
    CachedReadBufferReadFromCacheMisses: "Segments of remote objects a read through a filesystem cache fetched from the object store",
    CachedReadBufferReadFromCacheBytes: "Bytes of remote objects read from a filesystem cache's files",
    CachedReadBufferReadFromSourceBytes: "Bytes of remote objects read from the object store by reads through a filesystem cache",
    CachedReadBufferCacheWriteBytes: "Bytes written to a filesystem cache by reads that downloaded segments",
    CachedWriteBufferCacheWriteBytes: "Bytes written to a filesystem cache as objects were uploaded (cache_on_write_operations)",
    FilesystemCacheEvictedFileSegments: "Segments removed from a filesystem cache (evicted, dropped or replaced)",
    FilesystemCacheEvictedBytes: "Bytes of segments removed from a filesystem cache",
    PageCacheWeightLost: "Bytes evicted from the page cache to make room",
    S3GetObject: "GetObject requests sent to S3, each try counted",
    S3PutObject: "PutObject requests sent to S3, each try counted",
    S3CreateMultipartUpload: "CreateMultipartUpload requests sent to S3",
    S3UploadPart: "UploadPart requests sent to S3, each try counted",
    S3CompleteMultipartUpload: "CompleteMultipartUpload requests sent to S3",
    S3AbortMultipartUpload: "AbortMultipartUpload requests sent to S3",
    S3DeleteObjects: "DeleteObject and DeleteObjects requests sent to S3",
    S3ListObjects: "ListObjects requests sent to S3, one per page",
    S3HeadObject: "HeadObject requests sent to S3",
    S3ReadRequestsErrors: "Read requests to S3 answered with an error or not answered",
    S3WriteRequestsErrors: "Write requests to S3 answered with an error or not answered",
    ReadBufferFromS3Bytes: "Bytes of object data read from S3",
    WriteBufferFromS3Bytes: "Bytes of object data written to S3",
    DiskS3GetObject: "GetObject requests sent by S3 disks",
    DiskS3PutObject: "PutObject requests sent by S3 disks",
    RemoteObjectsOrphaned: "Objects on object-storage disks that no part referenced, removed by a sweep",
}

static COUNTS: [AtomicU64; Event::ALL.len()] = [const { AtomicU64::new(0) }; Event::ALL.len()];

/// Adds `amount` to `event`, and to the scope's query if there is one.
pub fn add(event: Event, amount: u64) {
    COUNTS[event as usize].fetch_add(amount, Ordering::Relaxed);
    // A thread's scope is gone while it exits; its events are then no query's.
    let _ = SCOPE.try_with(|scope| {
        if let Some(query) = scope.borrow().as_ref() {
            query.counts[event as usize].fetch_add(amount, Ordering::Relaxed);
        }
    });
}

/// The events one query caused.
#[derive(Debug)]
pub struct QueryEvents {
    counts: [AtomicU64; Event::ALL.len()],
}

impl Default for QueryEvents {
    fn default() -> Self {
        QueryEvents {
            counts: [const { AtomicU64::new(0) }; Event::ALL.len()],
        }
    }
}

impl QueryEvents {
    pub fn value(&self, event: Event) -> u64 {
        self.counts[event as usize].load(Ordering::Relaxed)
    }

    /// The events counted so far, those above zero, in [`Event::ALL`]'s order.
    pub fn nonzero(&self) -> Vec<(Event, u64)> {
        Event::ALL
            .iter()
            .map(|&event| (event, self.value(event)))
            .filter(|&(_, value)| value > 0)
            .collect()
    }
}

thread_local! {
    static SCOPE: RefCell<Option<Arc<QueryEvents>>> = const { RefCell::new(None) };
}

/// The query whose events this thread counts now, to carry into work it
/// hands to other threads.
pub fn current() -> Option<Arc<QueryEvents>> {
    SCOPE.with_borrow(Clone::clone)
}

/// Counts the thread's events for `query` too until the guard drops, which
/// brings back the scope before. With no query the scope stays as it is:
/// work run for no query in particular (a plan without the query's events,
/// a fresh thread) still counts for a query it runs inside.
#[must_use = "the scope ends when the guard drops"]
pub fn enter(query: Option<&Arc<QueryEvents>>) -> ScopeGuard {
    ScopeGuard {
        previous: query.map(|query| SCOPE.replace(Some(Arc::clone(query)))),
    }
}

pub struct ScopeGuard {
    /// The scope to bring back; none when entering changed nothing.
    previous: Option<Option<Arc<QueryEvents>>>,
}

impl Drop for ScopeGuard {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            SCOPE.set(previous);
        }
    }
}

/// Runs `f` in `query`'s scope, as [`enter`] does.
pub fn in_scope<R>(query: Option<&Arc<QueryEvents>>, f: impl FnOnce() -> R) -> R {
    let _scope = enter(query);
    f()
}

/// A future or stream polled in a query's scope, on whichever thread polls it.
pub struct Scoped<T> {
    inner: T,
    query: Option<Arc<QueryEvents>>,
}

impl<T: Unpin> Scoped<T> {
    pub fn new(inner: T, query: Option<Arc<QueryEvents>>) -> Self {
        Scoped { inner, query }
    }
}

impl<T: Future + Unpin> Future for Scoped<T> {
    type Output = T::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T::Output> {
        let this = self.get_mut();
        in_scope(this.query.as_ref(), || Pin::new(&mut this.inner).poll(cx))
    }
}

impl<T: futures::Stream + Unpin> futures::Stream for Scoped<T> {
    type Item = T::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T::Item>> {
        let this = self.get_mut();
        in_scope(this.query.as_ref(), || {
            Pin::new(&mut this.inner).poll_next(cx)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// The value of `event` now.
pub fn value(event: Event) -> u64 {
    COUNTS[event as usize].load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_under_their_names() {
        let before = value(Event::MergedRows);
        add(Event::MergedRows, 5);
        add(Event::MergedRows, 2);
        assert!(value(Event::MergedRows) >= before + 7);
        assert_eq!(Event::MergedRows.name(), "MergedRows");
        assert_eq!(Event::ALL[Event::FileOpen as usize], Event::FileOpen);
    }

    #[test]
    fn a_query_counts_what_its_scope_adds_and_nothing_else() {
        let query = Arc::new(QueryEvents::default());
        let other = Arc::new(QueryEvents::default());
        add(Event::FileOpen, 1);
        in_scope(Some(&query), || {
            add(Event::FileOpen, 2);
            // A nested scope counts for its own query only, then hands back;
            // entering no query leaves the scope as it is.
            in_scope(Some(&other), || add(Event::FileOpen, 5));
            in_scope(None, || add(Event::FileOpen, 7));
            let carried = current();
            std::thread::spawn(move || in_scope(carried.as_ref(), || add(Event::FileOpen, 3)))
                .join()
                .unwrap();
        });
        add(Event::FileOpen, 1);
        assert_eq!(query.value(Event::FileOpen), 12);
        assert_eq!(other.value(Event::FileOpen), 5);
        assert_eq!(query.nonzero(), vec![(Event::FileOpen, 12)]);
        assert!(current().is_none());
    }

    #[test]
    fn a_scoped_stream_counts_each_poll_for_its_query() {
        use futures::StreamExt;
        let query = Arc::new(QueryEvents::default());
        let counting = futures::stream::iter(0..3).map(|n| {
            add(Event::SelectedParts, 1);
            n
        });
        let scoped = Scoped::new(counting, Some(Arc::clone(&query)));
        let seen: Vec<i32> = futures::executor::block_on(scoped.collect());
        assert_eq!(seen, vec![0, 1, 2]);
        assert_eq!(query.value(Event::SelectedParts), 3);
        assert!(current().is_none());
    }
}
