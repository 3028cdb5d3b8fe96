//! Process-wide event counters, ClickHouse's `ProfileEvents` under its
//! names: what `system.events` shows. Each is counted where the work
//! happens (a file opened, bytes read or written, rows a merge read), never
//! derived afterwards.

use std::sync::atomic::{AtomicU64, Ordering};

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

/// Adds `amount` to `event`.
pub fn add(event: Event, amount: u64) {
    COUNTS[event as usize].fetch_add(amount, Ordering::Relaxed);
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
}
