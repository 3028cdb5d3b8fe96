//! The data of an `INSERT ... FORMAT` as a one-partition stream: read and
//! parsed on a blocking thread, a block at a time, so an insert of any size
//! holds only a few blocks in memory.

use std::io::Read;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::streaming::PartitionStream;
use parking_lot::Mutex;
use strata_common::{ErrorCode, StrataError};
use strata_formats::input::{InputFormat, InputTarget};

/// Blocks handed from the reading thread to the insert before it waits.
const BLOCKS_IN_FLIGHT: usize = 2;

struct Pending {
    format: InputFormat,
    target: InputTarget,
    source: Box<dyn Read + Send>,
}

pub struct InputStream {
    schema: SchemaRef,
    block_rows: usize,
    /// Taken by the one execution the data allows.
    pending: Mutex<Option<Pending>>,
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
        source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Self {
        InputStream {
            schema: target.schema(),
            block_rows,
            pending: Mutex::new(Some(Pending {
                format,
                target,
                source,
            })),
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
        let pending = self.pending.lock().take();
        let block_rows = self.block_rows;
        builder.spawn_blocking(move || {
            let Some(pending) = pending else {
                return Err(StrataError::new(
                    ErrorCode::LOGICAL_ERROR,
                    "The data to insert was already read",
                )
                .into_datafusion());
            };
            let mut blocks = pending
                .format
                .open(pending.target, pending.source, block_rows)
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
