//! Data in an input format as a one-partition stream: an insert's body
//! (read once), or a file of `file()` or an object of `s3()` (opened by
//! each execution), read and parsed on a blocking thread, a block at a
//! time, so data of any size is held only a few blocks at a time.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::streaming::PartitionStream;
use parking_lot::Mutex;
use strata_common::{ErrorCode, StrataError};
use strata_formats::encoding::{Encoding, decoder};
use strata_formats::input::{InputFormat, InputTarget};
use strata_storage::disk::ObjectDisk;

/// Blocks handed from the reading thread to the consumer before it waits.
const BLOCKS_IN_FLIGHT: usize = 2;

/// Where a stream's bytes come from.
pub enum Source {
    /// An insert's body, taken by the one execution it allows.
    Once(Mutex<Option<Box<dyn Read + Send>>>),
    /// A file or an object, opened and decoded anew by each execution.
    Stored {
        location: Location,
        encoding: Option<Encoding>,
    },
}

/// Where a table function's input is kept.
#[derive(Debug, Clone)]
pub enum Location {
    File(PathBuf),
    Object {
        bucket: Arc<ObjectDisk>,
        key: String,
    },
}

impl Location {
    /// Its bytes from the start, as stored.
    pub fn open(&self) -> Result<Box<dyn Read + Send>, StrataError> {
        match self {
            Location::File(path) => Ok(Box::new(open_file(path)?)),
            Location::Object { bucket, key } => Ok(Box::new(bucket.reader(key)?)),
        }
    }

    /// Its bytes from the start, decoded.
    pub fn open_decoded(
        &self,
        encoding: Option<Encoding>,
    ) -> Result<Box<dyn Read + Send>, StrataError> {
        decoder(encoding, self.open()?)
    }
}

impl Source {
    pub fn once(source: Box<dyn Read + Send>) -> Self {
        Source::Once(Mutex::new(Some(source)))
    }

    fn open(&self) -> Result<Box<dyn Read + Send>, StrataError> {
        match self {
            Source::Once(pending) => pending.lock().take().ok_or_else(|| {
                StrataError::new(
                    ErrorCode::LOGICAL_ERROR,
                    "The data to insert was already read",
                )
            }),
            Source::Stored { location, encoding } => location.open_decoded(*encoding),
        }
    }
}

/// `path` opened for reading, with ClickHouse's error for a missing file.
pub fn open_file(path: &std::path::Path) -> Result<std::fs::File, StrataError> {
    std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => StrataError::new(
            ErrorCode::FILE_DOESNT_EXIST,
            format!("File {} doesn't exist", path.display()),
        ),
        _ => StrataError::new(
            ErrorCode::CANNOT_OPEN_FILE,
            format!("Cannot open file {}: {e}", path.display()),
        ),
    })
}

pub struct InputStream {
    schema: SchemaRef,
    block_rows: usize,
    format: InputFormat,
    target: InputTarget,
    source: Source,
}

impl std::fmt::Debug for InputStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputStream")
            .field("schema", &self.schema)
            .finish()
    }
}

impl InputStream {
    pub fn new(
        format: InputFormat,
        target: InputTarget,
        source: Source,
        block_rows: usize,
    ) -> Self {
        InputStream {
            schema: target.schema(),
            block_rows,
            format,
            target,
            source,
        }
    }
}

impl PartitionStream for InputStream {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let mut builder =
            RecordBatchReceiverStream::builder(Arc::clone(&self.schema), BLOCKS_IN_FLIGHT);
        let sender = builder.tx();
        let opened = self.source.open();
        let (format, target, block_rows) = (self.format, self.target.clone(), self.block_rows);
        builder.spawn_blocking(move || {
            let mut blocks = opened
                .and_then(|source| format.open(target, source, block_rows))
                .map_err(StrataError::into_datafusion)?;
            while let Some(block) = blocks.next_block().map_err(StrataError::into_datafusion)? {
                if sender.blocking_send(Ok(block)).is_err() {
                    break;
                }
            }
            Ok(())
        });
        builder.build()
    }
}
