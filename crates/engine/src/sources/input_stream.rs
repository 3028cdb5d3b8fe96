//! Data in an input format as a one-partition stream: an insert's body
//! (read once), or a file of `file()` or an object of `s3()` (opened by
//! each execution), read and parsed on a blocking thread, a block at a
//! time, so data of any size is held only a few blocks at a time.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::streaming::PartitionStream;
use parking_lot::Mutex;
use strata_common::{ErrorCode, StrataError};
use strata_formats::encoding::{Encoding, decoder};
use strata_formats::input::{InputFormat, InputTarget};
use strata_storage::disk::ObjectDisk;

use super::input_columns::{self, InputFacts};

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
    /// The virtual columns' values, where the stream shows them after the
    /// data's columns.
    facts: Option<InputFacts>,
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
            facts: None,
        }
    }

    /// The stream with `file()`'s and `s3()`'s virtual columns after the
    /// data's, valued from `facts`.
    pub fn with_virtual_columns(mut self, facts: InputFacts) -> Self {
        self.schema = with_virtual_fields(&self.schema);
        self.facts = Some(facts);
        self
    }
}

/// `schema` followed by the virtual columns of `file()` and `s3()` that no
/// column of the data hides.
pub fn with_virtual_fields(schema: &SchemaRef) -> SchemaRef {
    let own = schema.fields().iter().map(|f| f.as_ref().clone());
    let shown = input_columns::fields()
        .into_iter()
        .filter(|field| schema.field_with_name(field.name()).is_err());
    let fields: Vec<Field> = own.chain(shown).collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `block` with the virtual columns `facts` gives appended, as `schema`.
fn with_facts(
    block: RecordBatch,
    facts: &InputFacts,
    schema: &SchemaRef,
) -> datafusion::common::Result<RecordBatch> {
    let data = block.schema();
    let mut columns = block.columns().to_vec();
    let virtuals = facts.columns(block.num_rows()).into_iter();
    let shown = virtuals
        .zip(input_columns::NAMES)
        .filter(|(_, name)| data.field_with_name(name).is_err());
    columns.extend(shown.map(|(column, _)| column));
    Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
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
        let (facts, schema) = (self.facts.clone(), Arc::clone(&self.schema));
        builder.spawn_blocking(move || {
            let mut blocks = opened
                .and_then(|source| format.open(target, source, block_rows))
                .map_err(StrataError::into_datafusion)?;
            while let Some(block) = blocks.next_block().map_err(StrataError::into_datafusion)? {
                let block = match &facts {
                    Some(facts) => with_facts(block, facts, &schema)?,
                    None => block,
                };
                if sender.blocking_send(Ok(block)).is_err() {
                    break;
                }
            }
            Ok(())
        });
        builder.build()
    }
}
